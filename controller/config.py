# SPDX-License-Identifier: Apache-2.0
"""Switch configuration: jobs and their workers, L2 forwarding, broadcast (JSON or YAML).

Everything the switch would reject (or, worse, silently mis-handle) is caught
here with a `ConfigError` naming the job/worker/field, before any write.
"""

from __future__ import annotations

import ipaddress
import json
import pathlib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from p4reduce.controller.errors import ConfigError
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.protocol.switch import SWITCH_MAX_PORT as MAX_PORT
from p4reduce.protocol.switch import SWITCH_MAX_WORKERS, SWITCH_SLOTS, TNA_SLOTS

__all__ = [
    "BroadcastConfig",
    "Config",
    "ConfigError",
    "JobConfig",
    "L2Entry",
    "MAX_SESSION",
    "PortSetting",
    "SwitchConfig",
    "UplinkConfig",
    "WorkerEntry",
    "load_config",
    "read_document",
    "parse_config",
    "SWITCH_SLOTS",
    "SWITCH_MAX_WORKERS",
]

BROADCAST_MAC = "ff:ff:ff:ff:ff:ff"
# Used with fullmatch: `$` would also accept a trailing newline.
_MAC = re.compile(r"([0-9a-f]{2}:){5}[0-9a-f]{2}")
_GRPC_ADDR = re.compile(r"unix:.+|(?P<host>[^\s]+):(?P<port>[0-9]{1,5})")
# A job's session is a 32-bit header field; 0 is what a JOIN carries (no session yet).
MAX_SESSION = 2**32 - 1


# The switch kinds: BMv2 (the v1model program, P4Runtime + thrift) and Tofino (the TNA
# program, BF Runtime gRPC). Their slot pools differ.
SWITCH_KINDS = ("bmv2", "tofino")
KIND_SLOTS = {"bmv2": SWITCH_SLOTS, "tofino": TNA_SLOTS}
PORT_SPEEDS = ("1G", "10G", "25G", "40G", "50G", "100G", "200G", "400G")
PORT_FECS = ("none", "fc", "rs")
PORT_AUTONEG = ("default", "on", "off")


@dataclass(frozen=True)
class PortSetting:
    """A Tofino port the controller brings up through $PORT: its device port, or its
    front-panel name ("1/0", resolved by the switch), speed, FEC, auto-negotiation."""

    port: int | str
    speed: str = "100G"
    fec: str = "rs"
    autoneg: str = "default"
    enable: bool = True


@dataclass(frozen=True)
class SwitchConfig:
    grpc_addr: str = "127.0.0.1:9559"
    device_id: int = 0
    election_id: int = 1
    thrift_port: int = 9090  # BMv2 only: registers are not reachable over P4Runtime
    # Host of BMv2's thrift server. BMv2 has no option for it (it listens on every
    # address), so this is simply where the switch runs; not derived from grpc_addr,
    # which may be a unix: socket or a proxy.
    thrift_ip: str = "127.0.0.1"
    kind: str = "bmv2"
    # Tofino: bf_switchd's BF Runtime server, this controller's client id there, the
    # program's name (as bf_switchd loaded it) and the ports to bring up.
    bfrt_addr: str = "127.0.0.1:50052"
    client_id: int = 0
    program: str = "p4reduce_tna"
    ports: tuple[PortSetting, ...] = ()

    @property
    def address(self) -> str:
        """Where the controller talks to the switch."""
        return self.bfrt_addr if self.kind == "tofino" else self.grpc_addr

    @property
    def slots(self) -> int:
        return KIND_SLOTS[self.kind]


@dataclass(frozen=True)
class WorkerEntry:
    worker_id: int
    port: int  # switch port the worker is attached to
    mac: str  # lower-case aa:bb:cc:dd:ee:ff
    ip: str
    udp_port: int  # the worker's source port; its results are sent back to it

    @property
    def identity(self) -> tuple[int, str, str, int]:
        """Key of the worker table: what the switch recognises the worker by."""
        return (self.port, self.mac, self.ip, self.udp_port)


@dataclass(frozen=True)
class UplinkConfig:
    """A leaf job's parent (docs/protocol.md, "Hierarchical aggregation"): the parent job,
    this switch's rank and session in it, and where the parent is (a spine switch's
    aggregation address, or a software aggregator's). The leaf sends from the address its
    own workers send to, UDP port 48864."""

    parent_job: int
    rank: int
    session: int
    port: int  # switch port towards the parent
    mac: str
    ip: str
    udp_port: int = AGG_UDP_PORT


@dataclass(frozen=True)
class JobConfig:
    job_id: int
    slot_base: int
    num_slots: int
    workers: tuple[WorkerEntry, ...]
    mgid: int
    mode: str = "dense"
    # The session the switch gives the job's workers in JOINED and requires in
    # every other packet. None: the controller draws a random one at install
    # (and a new one at every job reset, whatever this says).
    session: int | None = None
    # A leaf job: its rounds go to this parent, whose RESULTs go to its workers.
    uplink: UplinkConfig | None = None

    @property
    def num_workers(self) -> int:
        return len(self.workers)

    @property
    def slots(self) -> range:
        return range(self.slot_base, self.slot_base + self.num_slots)


@dataclass(frozen=True)
class L2Entry:
    mac: str
    port: int


@dataclass(frozen=True)
class BroadcastConfig:
    mgid: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class Config:
    switch: SwitchConfig
    jobs: tuple[JobConfig, ...]
    l2: tuple[L2Entry, ...] = ()
    broadcast: BroadcastConfig | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # free-form, ignored by the controller

    def job(self, job_id: int) -> JobConfig:
        for j in self.jobs:
            if j.job_id == job_id:
                return j
        raise ConfigError(
            f"no job {job_id} in the configuration (have: {', '.join(str(j.job_id) for j in self.jobs) or 'none'})"
        )


# -- field checks ------------------------------------------------------------------


def check_keys(where: str, data: Any, required: set[str], optional: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    unknown = set(data) - required - optional
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {shown(sorted(unknown, key=repr))} (allowed: {sorted(required | optional)})"
        )
    missing = required - set(data)
    if missing:
        raise ConfigError(f"{where}: missing key(s) {sorted(missing)}")
    return data


def check_int(where: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{where}: {shown(value)} is not an integer in {lo}..{hi}")
    return value


def shown(value: Any) -> str:
    """A value for an error message, short even for an integer of thousands of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested beyond repr's depth; an int too long to print
        return f"a {type(value).__name__} too deeply nested or too long to show"
    return text if len(text) <= 80 else text[:77] + "..."


def check_list(where: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _mac(where: str, value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        # YAML 1.1 reads unquoted 10:00:00:00:00:01 as a base-60 integer.
        raise ConfigError(f"{where}: {value!r} is not a MAC address (quote MACs in YAML)")
    if not isinstance(value, str) or not _MAC.fullmatch(value.lower()):
        raise ConfigError(f"{where}: {shown(value)} is not a MAC address like 02:00:00:00:00:01")
    return value.lower()


def check_unicast_mac(where: str, value: Any) -> str:
    mac = _mac(where, value)
    if int(mac[:2], 16) & 1:
        raise ConfigError(f"{where}: {mac} is a multicast/broadcast MAC, not a host's address")
    return mac


def check_ip(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {shown(value)} is not an IPv4 address like 10.0.0.1")
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError:
        raise ConfigError(f"{where}: {shown(value)} is not an IPv4 address like 10.0.0.1") from None


def _any_ip(where: str, value: Any) -> str:
    if isinstance(value, str):
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            pass
    raise ConfigError(f"{where}: {shown(value)} is not an IP address like 127.0.0.1")


# -- sections ----------------------------------------------------------------------


def _grpc_addr(where: str, addr: Any) -> str:
    m = _GRPC_ADDR.fullmatch(addr) if isinstance(addr, str) else None
    if m is None or (m["port"] is not None and not 1 <= int(m["port"]) <= 65535):
        raise ConfigError(f"{where}: {shown(addr)} is not a host:port address (port 1..65535) or unix:PATH")
    return str(addr)


def _choice(where: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{where}: {shown(value)} is not one of {', '.join(choices)}")
    return str(value)


def _port_setting(where: str, data: Any) -> PortSetting:
    d = check_keys(where, data, {"port"}, {"speed", "fec", "autoneg", "enable"})
    port = d["port"]
    if isinstance(port, str):
        if not re.fullmatch(r"[0-9]{1,3}/[0-9]", port):
            raise ConfigError(f"{where}.port: {shown(port)} is neither a device port nor a front-panel name like 1/0")
    else:
        port = check_int(f"{where}.port", port, 0, MAX_PORT)
    autoneg = d.get("autoneg", PortSetting.autoneg)
    if isinstance(autoneg, bool):  # YAML reads a bare on/off as a boolean
        autoneg = "on" if autoneg else "off"
    autoneg = str(autoneg).lower()
    enable = d.get("enable", True)
    if not isinstance(enable, bool):
        raise ConfigError(f"{where}.enable: {shown(enable)} is not true or false")
    return PortSetting(
        port,
        _choice(f"{where}.speed", str(d.get("speed", PortSetting.speed)).upper(), PORT_SPEEDS),
        _choice(f"{where}.fec", str(d.get("fec", PortSetting.fec)).lower(), PORT_FECS),
        _choice(f"{where}.autoneg", autoneg, PORT_AUTONEG),
        enable,
    )


def _tofino_switch(d: dict[str, Any]) -> SwitchConfig:
    ports = tuple(
        _port_setting(f"switch.ports[{i}]", p) for i, p in enumerate(check_list("switch.ports", d.get("ports", [])))
    )
    named = [str(p.port) for p in ports]
    if len(set(named)) != len(named):
        raise ConfigError(f"switch.ports: a port is listed twice ({sorted(n for n in named if named.count(n) > 1)[0]})")
    program = d.get("program", SwitchConfig.program)
    if not isinstance(program, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", program):
        raise ConfigError(f"switch.program: {shown(program)} is not a P4 program name")
    return SwitchConfig(
        kind="tofino",
        bfrt_addr=_grpc_addr("switch.bfrt", d.get("bfrt", SwitchConfig.bfrt_addr)),
        device_id=check_int("switch.device_id", d.get("device_id", 0), 0, 2**32 - 1),
        client_id=check_int("switch.client_id", d.get("client_id", 0), 0, 2**32 - 1),
        program=program,
        ports=ports,
    )


def parse_switch(data: Any) -> SwitchConfig:
    kind = data.get("kind", "bmv2") if isinstance(data, dict) else "bmv2"
    if kind not in SWITCH_KINDS:
        raise ConfigError(f"switch.kind: {shown(kind)} is not one of {', '.join(SWITCH_KINDS)}")
    if kind == "tofino":
        return _tofino_switch(
            check_keys("switch", data, set(), {"kind", "bfrt", "device_id", "client_id", "program", "ports"})
        )
    d = check_keys("switch", data, set(), {"kind", "grpc_addr", "device_id", "election_id", "thrift_port", "thrift_ip"})
    addr = _grpc_addr("switch.grpc_addr", d.get("grpc_addr", SwitchConfig.grpc_addr))
    return SwitchConfig(
        grpc_addr=addr,
        device_id=check_int("switch.device_id", d.get("device_id", 0), 0, 2**64 - 1),
        # Election id 0 can never be primary; P4Runtime carries it as a uint128.
        election_id=check_int("switch.election_id", d.get("election_id", 1), 1, 2**128 - 1),
        thrift_port=check_int("switch.thrift_port", d.get("thrift_port", 9090), 1, 65535),
        thrift_ip=_any_ip("switch.thrift_ip", d.get("thrift_ip", SwitchConfig.thrift_ip)),
    )


def _worker(where: str, data: Any) -> WorkerEntry:
    d = check_keys(where, data, {"worker_id", "port", "mac", "ip", "udp_port"}, set())
    return WorkerEntry(
        worker_id=check_int(f"{where}.worker_id", d["worker_id"], 0, SWITCH_MAX_WORKERS - 1),
        port=check_int(f"{where}.port", d["port"], 0, MAX_PORT),
        mac=check_unicast_mac(f"{where}.mac", d["mac"]),
        ip=check_ip(f"{where}.ip", d["ip"]),
        udp_port=check_int(f"{where}.udp_port", d["udp_port"], 1, 65535),
    )


def _uplink(where: str, data: Any) -> UplinkConfig:
    d = check_keys(where, data, {"parent_job", "rank", "session", "port", "mac", "ip"}, {"udp_port"})
    return UplinkConfig(
        parent_job=check_int(f"{where}.parent_job", d["parent_job"], 0, 65535),
        rank=check_int(f"{where}.rank", d["rank"], 0, SWITCH_MAX_WORKERS - 1),
        session=check_int(f"{where}.session", d["session"], 1, MAX_SESSION),
        port=check_int(f"{where}.port", d["port"], 0, MAX_PORT),
        mac=check_unicast_mac(f"{where}.mac", d["mac"]),
        ip=check_ip(f"{where}.ip", d["ip"]),
        udp_port=check_int(f"{where}.udp_port", d.get("udp_port", UplinkConfig.udp_port), 1, 65535),
    )


def _job(where: str, data: Any, slots: int = SWITCH_SLOTS) -> JobConfig:
    d = check_keys(where, data, {"job_id", "slot_base", "num_slots", "workers"}, {"mgid", "mode", "session", "uplink"})
    job_id = check_int(f"{where}.job_id", d["job_id"], 0, 65535)
    where = f"job {job_id}"
    mode = d.get("mode", "dense")
    if mode != "dense":
        raise ConfigError(
            f"{where}.mode: {shown(mode)}: the switch only runs 'dense' mode ('sparse' needs the software aggregator)"
        )
    base = check_int(f"{where}.slot_base", d["slot_base"], 0, slots - 1)
    count = check_int(f"{where}.num_slots", d["num_slots"], 1, slots)
    if base + count > slots:
        raise ConfigError(
            f"{where}: slots {base}..{base + count - 1} exceed the switch's {slots} slots (0..{slots - 1})"
        )
    raw = check_list(f"{where}.workers", d["workers"])
    if not raw:
        raise ConfigError(f"{where}.workers: a job needs at least one worker")
    if len(raw) > SWITCH_MAX_WORKERS:
        raise ConfigError(f"{where}: {len(raw)} workers, the switch supports at most {SWITCH_MAX_WORKERS}")
    workers = tuple(_worker(f"{where} workers[{i}]", w) for i, w in enumerate(raw))
    seen: set[int] = set()
    for w in workers:
        if w.worker_id in seen:
            raise ConfigError(f"{where}: duplicate worker_id {w.worker_id}")
        seen.add(w.worker_id)
    if seen != set(range(len(workers))):
        # The switch checks worker_id < num_workers and counts num_workers arrivals.
        raise ConfigError(f"{where}: worker ids must be 0..{len(workers) - 1}, got {sorted(seen)}")
    # mgid 0 is not a valid P4Runtime multicast group.
    mgid = check_int(f"{where}.mgid", d.get("mgid", job_id + 1), 1, 65535)
    session = d.get("session")
    if session is not None:
        session = check_int(f"{where}.session", session, 1, MAX_SESSION)
    uplink = _uplink(f"{where}.uplink", d["uplink"]) if "uplink" in d else None
    return JobConfig(job_id, base, count, workers, mgid, mode, session, uplink)


# Tofino 1: a device port's pipe is its bits 8..7, and port 68 of each pipe is the pipe's
# recirculation port, which the TNA program uses for its second pass (p4src/tna/types.p4).
TOFINO_PIPE_SHIFT = 7
TOFINO_RECIRC_PORT_IN_PIPE = 68


def tofino_pipe(port: int) -> int:
    return port >> TOFINO_PIPE_SHIFT


def check_tofino_job(job: JobConfig) -> None:
    """What a Tofino needs of a job's ports: all in one pipe (its registers are per pipe: a
    round whose packets enter through two pipes never completes), none a recirculation port."""
    ports = [(f"worker {w.worker_id}", w.port) for w in job.workers]
    if job.uplink is not None:
        ports.append(("its uplink", job.uplink.port))
    for who, port in ports:
        if port & ((1 << TOFINO_PIPE_SHIFT) - 1) == TOFINO_RECIRC_PORT_IN_PIPE:
            raise ConfigError(f"job {job.job_id} {who}: port {port} is pipe {tofino_pipe(port)}'s recirculation port")
    pipes = sorted({tofino_pipe(port) for _, port in ports})
    if len(pipes) > 1:
        listed = ", ".join(f"{who} port {port} (pipe {tofino_pipe(port)})" for who, port in ports)
        raise ConfigError(
            f"job {job.job_id}: its ports are in pipes {pipes} ({listed}); a Tofino keeps a job's "
            "registers per pipe, so its workers (and uplink) must share one"
        )


def _check_jobs(jobs: tuple[JobConfig, ...]) -> dict[int, str]:
    """Cross-job checks; returns the multicast groups in use, by owner."""
    mgids: dict[int, str] = {}
    identities: dict[tuple[Any, ...], str] = {}
    by_id: dict[int, JobConfig] = {}
    for j in jobs:
        if j.job_id in by_id:
            raise ConfigError(f"duplicate job_id {j.job_id}")
        for other in by_id.values():
            if j.slot_base < other.slots.stop and other.slot_base < j.slots.stop:
                raise ConfigError(
                    f"job {j.job_id}: slots {j.slot_base}..{j.slot_base + j.num_slots - 1} "
                    f"overlaps job {other.job_id} (slots {other.slot_base}.."
                    f"{other.slot_base + other.num_slots - 1})"
                )
        by_id[j.job_id] = j
        if j.mgid in mgids:
            raise ConfigError(f"job {j.job_id}: mgid {j.mgid} already used by {mgids[j.mgid]}")
        mgids[j.mgid] = f"job {j.job_id}"
        for w in j.workers:
            # Two entries with one identity would be the same worker-table key.
            if w.identity in identities:
                raise ConfigError(
                    f"job {j.job_id} worker {w.worker_id}: (port, mac, ip, udp_port) "
                    f"{w.identity} already used by {identities[w.identity]}"
                )
            identities[w.identity] = f"job {j.job_id} worker {w.worker_id}"
    return mgids


def parse_l2(data: Any) -> tuple[L2Entry, ...]:
    entries: dict[str, L2Entry] = {}
    for i, raw in enumerate(check_list("l2", data)):
        e = check_keys(f"l2[{i}]", raw, {"mac", "port"}, set())
        mac = _mac(f"l2[{i}].mac", e["mac"])
        if mac == BROADCAST_MAC:
            raise ConfigError(f"l2[{i}].mac: broadcast is configured under 'broadcast', not 'l2'")
        if mac in entries:
            raise ConfigError(f"l2[{i}].mac: duplicate entry for {mac}")
        entries[mac] = L2Entry(mac, check_int(f"l2[{i}].port", e["port"], 0, MAX_PORT))
    return tuple(entries.values())


def parse_broadcast(data: Any, mgids: dict[int, str]) -> BroadcastConfig:
    b = check_keys("broadcast", data, {"mgid", "ports"}, set())
    mgid = check_int("broadcast.mgid", b["mgid"], 1, 65535)
    if mgid in mgids:
        raise ConfigError(f"broadcast: mgid {mgid} already used by {mgids[mgid]}")
    ports = tuple(
        check_int(f"broadcast.ports[{i}]", p, 0, MAX_PORT)
        for i, p in enumerate(check_list("broadcast.ports", b["ports"]))
    )
    if not ports:
        raise ConfigError("broadcast.ports: needs at least one port")
    if len(set(ports)) != len(ports):
        raise ConfigError(f"broadcast.ports: duplicate port in {list(ports)}")
    return BroadcastConfig(mgid, ports)


def parse_config(data: Any) -> Config:
    """Validate a configuration document (what JSON or YAML gives); ConfigError naming the
    first problem, whatever the document holds."""
    try:
        return _parse(data)
    except RecursionError:
        raise ConfigError("the configuration is nested too deeply") from None


def _parse(data: Any) -> Config:
    d = check_keys("config", data, {"jobs"}, {"switch", "l2", "broadcast", "extra"})
    switch = parse_switch(d.get("switch", {}))
    jobs = tuple(_job(f"jobs[{i}]", j, switch.slots) for i, j in enumerate(check_list("jobs", d["jobs"])))
    mgids = _check_jobs(jobs)
    if switch.kind == "tofino":
        for job in jobs:
            check_tofino_job(job)
    l2 = parse_l2(d.get("l2", []))
    broadcast = parse_broadcast(d["broadcast"], mgids) if d.get("broadcast") is not None else None
    extra = d.get("extra", {})
    if not isinstance(extra, dict):
        raise ConfigError("extra: expected a mapping")
    return Config(switch, jobs, l2, broadcast, extra)


def read_document(path: pathlib.Path) -> Any:
    """A .json file's or a .yaml file's contents (a key given twice in one mapping is an
    error, not the last one silently); ConfigError naming the file when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    kind = "JSON" if path.suffix == ".json" else "YAML"
    try:
        if kind == "JSON":
            return json.loads(text, object_pairs_hook=_unique_json_keys)
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {kind}: {' '.join(str(exc).split())[:300]}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid {kind}: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ConfigError(f"{path}: not valid {kind}: {exc}") from None


def load_config(source: str | pathlib.Path | dict[str, Any], kind: str | None = None) -> Config:
    """Read and validate a config from a dict or a .json / .yaml file; `kind` (a command
    line's --target) is the switch's kind where the document names none, and must agree
    with it where it does."""
    if isinstance(source, dict):
        return parse_config(_with_kind(source, kind))
    path = pathlib.Path(source)
    data = read_document(path)
    try:
        return parse_config(_with_kind(data, kind))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _with_kind(data: Any, kind: str | None) -> Any:
    if kind is None or not isinstance(data, dict):
        return data
    switch = data.get("switch", {})
    if not isinstance(switch, dict):
        return data  # parse_switch names the problem
    named = switch.get("kind")
    if named is not None and named != kind:
        raise ConfigError(f"switch.kind: the configuration says {shown(named)}, the command line's target {kind!r}")
    return {**data, "switch": {**switch, "kind": kind}}


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML that refuses a key given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"a {type(key).__name__} as a key", key_node.start_mark
                ) from None
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _unique_json_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise json.JSONDecodeError(f"duplicate key(s) {duplicates}", "", 0)
    return dict(pairs)
