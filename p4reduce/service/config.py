# SPDX-License-Identifier: Apache-2.0
"""The job service's configuration (YAML or JSON): the switch it programs, the fallback
software aggregator, and the jobs' defaults.

    switch:                       # optional: without it every job runs on the fallback
      grpc_addr: 127.0.0.1:9559   # device_id, election_id, thrift_ip, thrift_port as the
      thrift_port: 9090           # controller's configuration (controller/config.py)
      address: {ip: 10.0.0.254, mac: "02:00:00:00:00:fe"}  # what workers send to (udp_port 48864)
      l2: [{mac: "02:00:00:00:00:01", port: 1}, ...]        # worker MAC -> switch port
      broadcast: {mgid: 1000, ports: [1, 2]}                # optional, as the controller's
      slots: [0, 1024]            # the slot pool: base, count
      mgids: [1, 999]             # multicast group ids for jobs: first, last
      max_workers: 32             # workers the switch admits per job
      timeout: 5                  # seconds for connecting and for each P4Runtime request
      p4info: FILE                # optional: the pipeline pushed at start (default: shipped)
      bmv2_json: FILE
    fallback: embedded            # or {type: embedded, host, port, advertise, slots}, or
                                  # running aggregators (`p4reduce aggregator --admin`):
                                  # {aggregators: [{admin: HOST:PORT, advertise, slots}, ...]}
    jobs: {num_slots: 64, lease_seconds: 30, max_lease_seconds: 3600,
           authenticate: true}    # software jobs get a key (default: when credentials are configured)
    security:                     # optional (docs/service.md, "Securing the service"); the
      tls_cert: FILE              # `controller serve` flags of the same names override these
      tls_key: FILE
      tls_client_ca: FILE         # client certificates: the tenant is the subject CN
      tenants: FILE               # tenants, roles, token digests, quota overrides (jobapi/security.py)
      insecure: false             # true: no credentials on a non-loopback address, knowingly
      aggregators: {tls_ca: FILE, tls_cert: FILE, tls_key: FILE, token_file: FILE}  # towards fallback.aggregators
    state: FILE                   # optional: the state file kept across restarts (store.py;
                                  # relative to this file); without it, state is in memory only
    quota: {jobs: 8, slots: 512, workers: 32, lease_seconds: 600}  # each tenant's (slots: half the largest pool)

Instead of `switch`, a `tree` of leaf switches under a spine (docs/service.md, "Several
switches"): the switches, spine and links as a tree document's (controller/tree.py; every
leaf answers its workers at the same aggregation address), where workers sit instead of
`l2`, and the switch keys slots, mgids, max_workers, timeout, p4info, bmv2_json:

    tree:
      switches: {spine: {grpc_addr: ..., thrift_port: ..., mac: ..., ip: ...}, leaf0: {...}, ...}
      spine: spine
      links: [{leaf: leaf0, port: 3, spine_port: 1}, ...]
      workers: [{mac: "02:00:00:00:00:01", switch: leaf0, port: 1}, ...]

Every mistake is a ConfigError (p4reduce.controller.errors) of one line naming the field;
the field checks are the controller's own (controller/config.py).
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass, field
from typing import Any

from p4reduce.controller.config import (
    BroadcastConfig,
    L2Entry,
    SwitchConfig,
    check_int,
    check_ip,
    check_keys,
    check_list,
    check_unicast_mac,
    parse_broadcast,
    parse_l2,
    parse_switch,
    read_document,
    shown,
)
from p4reduce.controller.errors import ConfigError
from p4reduce.controller.tree import BROADCAST_MGID, Tree, parse_topology, tree_l2
from p4reduce.jobapi.security import ClientCredentials, ServerSecurity, Tenants
from p4reduce.protocol import AGG_UDP_PORT, MAX_SLOTS
from p4reduce.protocol.switch import (
    SWITCH_MAX_PORT,
    SWITCH_MAX_WORKERS,
    SWITCH_SLOTS,
    SWITCH_VALUES_PER_PACKET,
    TNA_VALUES_PER_PACKET,
)
from p4reduce.service.quota import Quota, parse_quota

# The controller's switch keys (both kinds): parse_switch checks which go with `kind`.
_SWITCH_CONNECTION = {
    "kind",
    "grpc_addr",
    "device_id",
    "election_id",
    "thrift_port",
    "thrift_ip",
    "bfrt",
    "client_id",
    "program",
    "ports",
}
_SWITCH_KEYS = _SWITCH_CONNECTION | {
    "address",
    "l2",
    "broadcast",
    "slots",
    "mgids",
    "max_workers",
    "timeout",
    "p4info",
    "bmv2_json",
}


@dataclass(frozen=True)
class AggregationAddress:
    """Where a switch job's workers send: an address the switch answers for (static ARP)."""

    ip: str
    mac: str
    udp_port: int = AGG_UDP_PORT


@dataclass(frozen=True)
class SwitchSection:
    connection: SwitchConfig
    address: AggregationAddress
    l2: tuple[L2Entry, ...] = ()
    broadcast: BroadcastConfig | None = None
    slots: tuple[int, int] = (0, SWITCH_SLOTS)  # base, count
    mgids: tuple[int, int] = (1, 999)  # first, last
    max_workers: int = SWITCH_MAX_WORKERS
    timeout: float = 5.0
    p4info: pathlib.Path | None = None  # None: the compiled program shipped with p4reduce
    bmv2_json: pathlib.Path | None = None

    def port_of(self, mac: str) -> int | None:
        """The switch port of a worker's MAC (lower case), from the L2 table."""
        return next((e.port for e in self.l2 if e.mac == mac), None)

    @property
    def kind(self) -> str:
        return self.connection.kind

    @property
    def values_per_packet(self) -> int:
        """The block size the switch's program aggregates (JOINED tells the workers)."""
        return TNA_VALUES_PER_PACKET if self.kind == "tofino" else SWITCH_VALUES_PER_PACKET


@dataclass(frozen=True)
class Seat:
    """Where a worker's MAC sits in a tree: a leaf and its port there."""

    mac: str
    leaf: str
    port: int


@dataclass(frozen=True)
class TreeSection:
    """Leaf switches under a spine, all programmed by the service: a job's workers may sit
    under several leaves (each leaf sums its own, the spine the leaves' partial sums)."""

    topology: Tree  # switches (with aggregation addresses), spine, links; no jobs
    seats: tuple[Seat, ...]
    slots: tuple[int, int] = (0, SWITCH_SLOTS)  # the same slots on every switch of a job
    mgids: tuple[int, int] = (1, 999)  # the same group id on every switch of a job
    max_workers: int = SWITCH_MAX_WORKERS
    timeout: float = 5.0
    p4info: pathlib.Path | None = None
    bmv2_json: pathlib.Path | None = None

    @property
    def address(self) -> AggregationAddress:
        """What every worker sends to: the address each leaf answers its workers at."""
        leaf = self.topology.switches[self.topology.leaves[0]]
        return AggregationAddress(leaf.ip, leaf.mac)

    kind = "bmv2"  # a tree is of BMv2 switches only
    values_per_packet = SWITCH_VALUES_PER_PACKET

    def seat(self, mac: str) -> Seat | None:
        return next((s for s in self.seats if s.mac == mac), None)

    def port_of(self, mac: str) -> int | None:
        seat = self.seat(mac)
        return seat.port if seat else None

    def switch_sections(self) -> dict[str, SwitchSection]:
        """Each switch as a single switch's section: its connection and address, and the
        tree's L2 forwarding and broadcast on it."""
        l2 = tree_l2(self.topology, [(s.leaf, s.mac, s.port) for s in self.seats])
        return {
            name: SwitchSection(
                sw.switch,
                AggregationAddress(sw.ip, sw.mac),
                tuple(l2[name][0]),
                l2[name][1],
                self.slots,
                self.mgids,
                self.max_workers,
                self.timeout,
                self.p4info,
                self.bmv2_json,
            )
            for name, sw in self.topology.switches.items()
        }


@dataclass(frozen=True)
class FallbackSection:
    """The software aggregator started in the service's process (native engine)."""

    host: str = "127.0.0.1"  # where it binds
    port: int = AGG_UDP_PORT  # 0: a port the system chooses
    advertise: str = "127.0.0.1"  # the address workers are told to send to
    slots: tuple[int, int] = (0, MAX_SLOTS)  # its slot pool: base, count


@dataclass(frozen=True)
class RemoteAggregator:
    """A running software aggregator the service adds jobs to over its admin API."""

    admin: tuple[str, int]  # `p4reduce aggregator --admin HOST:PORT`
    advertise: str  # the address workers are told to send to
    slots: tuple[int, int] = (0, MAX_SLOTS)  # the slot pool the service gives its jobs: base, count
    timeout: float = 5.0  # seconds for each admin request

    @property
    def name(self) -> str:
        return f"{self.admin[0]}:{self.admin[1]}"


@dataclass(frozen=True)
class JobDefaults:
    num_slots: int = 64  # a job that wishes none
    lease_seconds: float = 30.0
    max_lease_seconds: float = 3600.0
    authenticate: bool | None = None  # software jobs get a key; None: when the service has credentials


@dataclass(frozen=True)
class ServiceConfig:
    switch: SwitchSection | None = None
    fallback: FallbackSection | None = field(default_factory=FallbackSection)
    jobs: JobDefaults = field(default_factory=JobDefaults)
    aggregators: tuple[RemoteAggregator, ...] = ()  # instead of the embedded fallback
    tree: TreeSection | None = None  # instead of `switch`
    state: pathlib.Path | None = None  # the state file (store.py); None: kept in memory only
    security: ServerSecurity = field(default_factory=ServerSecurity)
    quota: Quota = field(default_factory=Quota)  # each tenant's, unless its tenants file entry overrides keys
    aggregator_credentials: ClientCredentials | None = None  # towards `aggregators`' admin APIs

    @property
    def authenticate_jobs(self) -> bool:
        """Whether software jobs get a key."""
        return self.security.configured if self.jobs.authenticate is None else self.jobs.authenticate

    def tenant_quotas(self) -> dict[str, Quota]:
        """The quota of each tenant the tenants file overrides (ConfigError naming a bad key)."""
        tenants = self.security.tenants
        if tenants is None:
            return {}
        return {
            name: parse_quota(f"{tenants.source}: tenants.{name}.quota", entry.quota, self.quota)
            for name, entry in tenants.by_name.items()
        }

    @property
    def switches(self) -> SwitchSection | TreeSection | None:
        """What the service programs: the switch, or the tree (None: software only)."""
        return self.switch or self.tree

    def fallback_pools(self) -> list[tuple[int, int]]:
        """The slot pool (base, count) of each software target, in placement order."""
        return [self.fallback.slots] if self.fallback else [a.slots for a in self.aggregators]


def parse_service_config(data: Any, base_dir: pathlib.Path | None = None) -> ServiceConfig:
    """Validate a configuration document; relative pipeline paths are taken from `base_dir`."""
    try:
        d = check_keys("config", data, set(), {"switch", "fallback", "jobs", "tree", "state", "security", "quota"})
        switch = _switch_section(d["switch"], base_dir) if d.get("switch") is not None else None
        tree = _tree_section(d["tree"], base_dir) if d.get("tree") is not None else None
        if switch is not None and tree is not None:
            raise ConfigError("config: 'switch' and 'tree': the service programs one switch or one tree")
        fallback: FallbackSection | None = None
        aggregators: tuple[RemoteAggregator, ...] = ()
        if isinstance(d.get("fallback"), dict) and "aggregators" in d["fallback"]:
            aggregators = _aggregators(d["fallback"])
        elif d.get("fallback") is not None:
            fallback = _fallback(d["fallback"])
        pools = [s.slots for s in (switch, tree, fallback, *aggregators) if s is not None]
        largest = max((count for _, count in pools), default=MAX_SLOTS)
        jobs = _jobs(d.get("jobs", {}), largest)
        quota = parse_quota("quota", d.get("quota", {}), Quota(slots=max(1, largest // 2)))
        security, credentials = _security(d.get("security", {}), base_dir)
        state = _path("state", d.get("state"), base_dir)
    except RecursionError:
        raise ConfigError("the configuration is nested too deeply") from None
    if switch is None and tree is None and fallback is None and not aggregators:
        raise ConfigError("config: neither 'switch' nor 'fallback' (nor 'tree'): jobs would have nowhere to run")
    config = ServiceConfig(switch, fallback, jobs, aggregators, tree, state, security, quota, credentials)
    config.tenant_quotas()  # a bad override is named now, not at a tenant's first request
    return config


def load_service_config(source: str | pathlib.Path | dict[str, Any]) -> ServiceConfig:
    """Read and validate the service configuration from a dict or a .json / .yaml file."""
    if isinstance(source, dict):
        return parse_service_config(source)
    path = pathlib.Path(source)
    data = read_document(path)
    try:
        return parse_service_config(data, path.parent)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


# -- sections ---------------------------------------------------------------------


def _switch_section(data: Any, base_dir: pathlib.Path | None) -> SwitchSection:
    d = check_keys("switch", data, {"address"}, _SWITCH_KEYS - {"address"})
    connection = parse_switch({k: v for k, v in d.items() if k in _SWITCH_CONNECTION})
    a = check_keys("switch.address", d["address"], {"ip", "mac"}, {"udp_port"})
    udp_port = check_int("switch.address.udp_port", a.get("udp_port", AGG_UDP_PORT), 1, 65535)
    if udp_port != AGG_UDP_PORT:  # p4src/types.p4: AGG_UDP_PORT, the only port it aggregates
        raise ConfigError(f"switch.address.udp_port: the P4 program aggregates UDP port {AGG_UDP_PORT} only")
    address = AggregationAddress(
        check_ip("switch.address.ip", a["ip"]), check_unicast_mac("switch.address.mac", a["mac"])
    )
    keys = _shared_keys("switch", d, base_dir, connection.slots)
    if connection.kind == "tofino" and (keys["p4info"] or keys["bmv2_json"]):
        raise ConfigError("switch.p4info/bmv2_json: a tofino switch runs the program bf_switchd loaded (BMv2 only)")
    mgids = keys["mgids"]
    try:
        l2 = parse_l2(d.get("l2", []))
        broadcast = parse_broadcast(d["broadcast"], {}) if d.get("broadcast") is not None else None
    except ConfigError as exc:  # the controller's messages name l2[i] / broadcast: here under switch
        raise ConfigError(f"switch.{exc}") from None
    if broadcast is not None and mgids[0] <= broadcast.mgid <= mgids[1]:
        raise ConfigError(f"switch.broadcast.mgid: {broadcast.mgid} is in the jobs' range switch.mgids {list(mgids)}")
    return SwitchSection(connection, address, l2, broadcast, **keys)


def _shared_keys(
    where: str, d: dict[str, Any], base_dir: pathlib.Path | None, slots: int = SWITCH_SLOTS
) -> dict[str, Any]:
    """The keys a `switch` and a `tree` section share, by their fields' names."""
    return {
        "slots": _pair(f"{where}.slots", d.get("slots", [0, slots]), slots, count=True),
        "mgids": _pair(f"{where}.mgids", d.get("mgids", [1, 999]), 65535, count=False, low=1),
        "max_workers": check_int(
            f"{where}.max_workers", d.get("max_workers", SWITCH_MAX_WORKERS), 1, SWITCH_MAX_WORKERS
        ),
        "timeout": _seconds(f"{where}.timeout", d.get("timeout", 5.0), 3600.0),
        "p4info": _path(f"{where}.p4info", d.get("p4info"), base_dir),
        "bmv2_json": _path(f"{where}.bmv2_json", d.get("bmv2_json"), base_dir),
    }


def _tree_section(data: Any, base_dir: pathlib.Path | None) -> TreeSection:
    d = check_keys(
        "tree",
        data,
        {"switches", "spine", "links", "workers"},
        {"slots", "mgids", "max_workers", "timeout", "p4info", "bmv2_json"},
    )
    try:
        topology = parse_topology(d)
    except ConfigError as exc:
        raise ConfigError(f"tree.{exc}") from None
    leaves = {link.leaf: link for link in topology.links}
    addresses = {(topology.switches[leaf].ip, topology.switches[leaf].mac) for leaf in leaves}
    if len(addresses) != 1:
        raise ConfigError(
            "tree.switches: every leaf answers its workers at the same aggregation address (mac, ip): "
            "a job's placement names one"
        )
    seats: list[Seat] = []
    for i, item in enumerate(check_list("tree.workers", d["workers"])):
        where = f"tree.workers[{i}]"
        w = check_keys(where, item, {"mac", "switch", "port"}, set())
        mac = check_unicast_mac(f"{where}.mac", w["mac"])
        if w["switch"] not in leaves:
            raise ConfigError(f"{where}.switch: {shown(w['switch'])} is not a leaf with a link to the spine")
        port = check_int(f"{where}.port", w["port"], 1, SWITCH_MAX_PORT)
        if port == leaves[w["switch"]].port:
            raise ConfigError(f"{where}.port: {port} is leaf {w['switch']}'s link to the spine")
        if any(s.mac == mac for s in seats):
            raise ConfigError(f"{where}.mac: {mac} sits elsewhere already (the tree is one L2 network)")
        seats.append(Seat(mac, w["switch"], port))
    keys = _shared_keys("tree", d, base_dir)
    mgids = keys["mgids"]
    if mgids[0] <= BROADCAST_MGID <= mgids[1]:
        raise ConfigError(f"tree.mgids: {list(mgids)} holds {BROADCAST_MGID}, the tree's broadcast group")
    return TreeSection(topology, tuple(seats), **keys)


def _fallback(data: Any) -> FallbackSection:
    if data == "embedded":
        return FallbackSection()
    if not isinstance(data, dict):
        raise ConfigError(f"fallback: {shown(data)} is neither 'embedded' nor a mapping")
    d = check_keys("fallback", data, set(), {"type", "host", "port", "advertise", "slots"})
    if d.get("type", "embedded") != "embedded":
        raise ConfigError(f"fallback.type: {shown(d['type'])}: only 'embedded' is supported")
    host = check_ip("fallback.host", d.get("host", FallbackSection.host))
    if "advertise" in d:
        advertise = check_ip("fallback.advertise", d["advertise"])
    elif host == "0.0.0.0":
        raise ConfigError("fallback.advertise: needed when host is 0.0.0.0 (the address workers send to)")
    else:
        advertise = host
    return FallbackSection(
        host,
        check_int("fallback.port", d.get("port", AGG_UDP_PORT), 0, 65535),
        advertise,
        _pair("fallback.slots", d.get("slots", [0, MAX_SLOTS]), MAX_SLOTS, count=True),
    )


def _aggregators(data: dict[str, Any]) -> tuple[RemoteAggregator, ...]:
    d = check_keys("fallback", data, {"aggregators"}, {"aggregators"})
    items = check_list("fallback.aggregators", d["aggregators"])
    if not items:
        raise ConfigError("fallback.aggregators: an empty list (name one, or use 'fallback: embedded')")
    out = []
    for i, item in enumerate(items):
        where = f"fallback.aggregators[{i}]"
        e = check_keys(where, item, {"admin"}, {"admin", "advertise", "slots", "timeout"})
        admin = _host_port(f"{where}.admin", e["admin"])
        if "advertise" in e:
            advertise = check_ip(f"{where}.advertise", e["advertise"])
        else:
            try:
                advertise = check_ip(f"{where}.admin", admin[0])
            except ConfigError:
                raise ConfigError(f"{where}.advertise: needed when admin is a host name, not an IPv4 address") from None
            if advertise == "0.0.0.0":
                raise ConfigError(f"{where}.advertise: needed when admin is 0.0.0.0 (the address workers send to)")
        out.append(
            RemoteAggregator(
                admin,
                advertise,
                _pair(f"{where}.slots", e.get("slots", [0, MAX_SLOTS]), MAX_SLOTS, count=True),
                _seconds(f"{where}.timeout", e.get("timeout", 5.0), 3600.0),
            )
        )
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"fallback.aggregators: {sorted(n for n in names if names.count(n) > 1)[0]} named twice")
    return tuple(out)


def _security(data: Any, base_dir: pathlib.Path | None) -> tuple[ServerSecurity, ClientCredentials | None]:
    keys = {"tls_cert", "tls_key", "tls_client_ca", "tenants", "insecure", "aggregators"}
    d = check_keys("security", data, set(), keys)
    paths = {k: _path(f"security.{k}", d.get(k), base_dir) for k in ("tls_cert", "tls_key", "tls_client_ca")}
    insecure = d.get("insecure", False)
    if not isinstance(insecure, bool):
        raise ConfigError(f"security.insecure: {shown(insecure)} is not true or false")
    try:
        tenants_file = _path("security.tenants", d.get("tenants"), base_dir)
        tenants = Tenants.load(tenants_file) if tenants_file is not None else None
        security = ServerSecurity(**paths, tenants=tenants, insecure=insecure)
        credentials = None
        if d.get("aggregators") is not None:
            a = check_keys(
                "security.aggregators", d["aggregators"], set(), {"tls_ca", "tls_cert", "tls_key", "token_file"}
            )
            files = [
                _path(f"security.aggregators.{k}", a.get(k), base_dir)
                for k in ("tls_ca", "tls_cert", "tls_key", "token_file")
            ]
            credentials = ClientCredentials(*files)
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(f"security: {exc}") from None
    return security, credentials


def _jobs(data: Any, largest: int) -> JobDefaults:
    d = check_keys("jobs", data, set(), {"num_slots", "lease_seconds", "max_lease_seconds", "authenticate"})
    # Not given: the default, or all of the largest pool when that is smaller.
    num_slots = check_int("jobs.num_slots", d.get("num_slots", min(JobDefaults.num_slots, largest)), 1, largest)
    max_lease = _seconds("jobs.max_lease_seconds", d.get("max_lease_seconds", JobDefaults.max_lease_seconds))
    lease = _seconds("jobs.lease_seconds", d.get("lease_seconds", JobDefaults.lease_seconds), max_lease)
    authenticate = d.get("authenticate")
    if authenticate is not None and not isinstance(authenticate, bool):
        raise ConfigError(f"jobs.authenticate: {shown(authenticate)} is not true or false")
    return JobDefaults(num_slots, lease, max_lease, authenticate)


# -- fields -----------------------------------------------------------------------


def _pair(where: str, value: Any, limit: int, *, count: bool, low: int = 0) -> tuple[int, int]:
    """[base, count] within 0..limit-1 (count=True), or [first, last] within low..limit."""
    items = check_list(where, value)
    if len(items) != 2:
        raise ConfigError(f"{where}: expected [{'base, count' if count else 'first, last'}], got {shown(value)}")
    if count:
        base = check_int(f"{where}[0]", items[0], 0, limit - 1)
        return base, check_int(f"{where}[1]", items[1], 1, limit - base)
    first = check_int(f"{where}[0]", items[0], low, limit)
    return first, check_int(f"{where}[1]", items[1], first, limit)


def _host_port(where: str, value: Any) -> tuple[str, int]:
    if not isinstance(value, str) or value.count(":") != 1 or not value.split(":")[0]:
        raise ConfigError(f"{where}: {shown(value)} is not HOST:PORT")
    host, port = value.split(":")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"{where}: port {shown(port)} outside 1..65535")
    return host, int(port)


def _seconds(where: str, value: Any, high: float = 365 * 86400.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{where}: {shown(value)} is not a number of seconds")
    if not 0 < value <= high:
        raise ConfigError(f"{where}: {shown(value)} outside (0, {high:g}]")
    return float(value)


def _path(where: str, value: Any, base_dir: pathlib.Path | None) -> pathlib.Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: {shown(value)} is not a file name")
    path = pathlib.Path(value)
    return path if path.is_absolute() or base_dir is None else base_dir / path


__all__ = [
    "AggregationAddress",
    "ConfigError",
    "FallbackSection",
    "JobDefaults",
    "RemoteAggregator",
    "Seat",
    "ServiceConfig",
    "SwitchSection",
    "TreeSection",
    "load_service_config",
    "parse_service_config",
]
