"""Switch configuration: jobs, their workers, L2 forwarding (JSON or YAML)."""
from __future__ import annotations

import ipaddress
import json
import pathlib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

SWITCH_SLOTS = 1024  # p4src/headers.p4 NUM_SLOTS
SWITCH_MAX_WORKERS = 32
_MAC = re.compile(r"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$")


class ConfigError(ValueError):
    """The configuration is invalid; the message names the offending item."""


@dataclass(frozen=True)
class WorkerEntry:
    worker_id: int
    port: int  # switch port the worker is attached to
    mac: str
    ip: str
    udp_port: int  # the worker's source port; results go back to it

    @property
    def identity(self) -> tuple[int, str, str, int]:
        return (self.port, self.mac.lower(), self.ip, self.udp_port)


@dataclass(frozen=True)
class JobConfig:
    job_id: int
    slot_base: int
    num_slots: int
    workers: tuple[WorkerEntry, ...]
    mgid: int
    mode: str = "dense"

    @property
    def num_workers(self) -> int:
        return len(self.workers)


@dataclass(frozen=True)
class L2Entry:
    mac: str
    port: int


@dataclass(frozen=True)
class BroadcastConfig:
    mgid: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class SwitchConfig:
    grpc_addr: str = "127.0.0.1:9559"
    device_id: int = 0
    election_id: int = 1
    thrift_port: int = 9090


@dataclass(frozen=True)
class Config:
    switch: SwitchConfig
    jobs: tuple[JobConfig, ...]
    l2: tuple[L2Entry, ...] = ()
    broadcast: BroadcastConfig | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def job(self, job_id: int) -> JobConfig:
        for j in self.jobs:
            if j.job_id == job_id:
                return j
        raise ConfigError(f"no job {job_id} in the configuration")


def _keys(where: str, data: Any, required: set[str], optional: set[str]) -> dict:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    unknown = set(data) - required - optional
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}")
    missing = required - set(data)
    if missing:
        raise ConfigError(f"{where}: missing key(s) {sorted(missing)}")
    return data


def _int(where: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{where}: {value!r} is not an integer in {lo}..{hi}")
    return value


def _mac(where: str, value: Any) -> str:
    if not isinstance(value, str) or not _MAC.match(value):
        raise ConfigError(f"{where}: {value!r} is not a MAC address like 02:00:00:00:00:01")
    return value.lower()


def _ip(where: str, value: Any) -> str:
    try:
        return str(ipaddress.IPv4Address(value))
    except (ipaddress.AddressValueError, ValueError):
        raise ConfigError(f"{where}: {value!r} is not an IPv4 address") from None


def _worker(where: str, data: Any) -> WorkerEntry:
    d = _keys(where, data, {"worker_id", "port", "mac", "ip", "udp_port"}, set())
    return WorkerEntry(_int(f"{where}.worker_id", d["worker_id"], 0, SWITCH_MAX_WORKERS - 1),
                       _int(f"{where}.port", d["port"], 0, 510), _mac(f"{where}.mac", d["mac"]),
                       _ip(f"{where}.ip", d["ip"]), _int(f"{where}.udp_port", d["udp_port"], 1, 65535))


def _job(where: str, data: Any) -> JobConfig:
    d = _keys(where, data, {"job_id", "slot_base", "num_slots", "workers"}, {"mgid", "mode"})
    job_id = _int(f"{where}.job_id", d["job_id"], 0, 65535)
    where = f"job {job_id}"
    if d.get("mode", "dense") != "dense":
        raise ConfigError(f"{where}: mode {d['mode']!r}: the switch only runs 'dense' mode")
    base = _int(f"{where}.slot_base", d["slot_base"], 0, SWITCH_SLOTS - 1)
    count = _int(f"{where}.num_slots", d["num_slots"], 1, SWITCH_SLOTS)
    if base + count > SWITCH_SLOTS:
        raise ConfigError(f"{where}: slots {base}..{base + count - 1} exceed the switch's "
                          f"{SWITCH_SLOTS} slots")
    raw = d["workers"]
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}.workers: expected a non-empty list")
    if len(raw) > SWITCH_MAX_WORKERS:
        raise ConfigError(f"{where}: {len(raw)} workers, the switch supports at most "
                          f"{SWITCH_MAX_WORKERS}")
    workers = tuple(_worker(f"{where}.workers[{i}]", w) for i, w in enumerate(raw))
    ids = sorted(w.worker_id for w in workers)
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ConfigError(f"{where}: duplicate worker_id {dup}")
    if ids != list(range(len(ids))):
        raise ConfigError(f"{where}: worker ids must be 0..{len(ids) - 1}, got {ids}")
    mgid = _int(f"{where}.mgid", d.get("mgid", job_id + 1), 1, 65535)
    return JobConfig(job_id, base, count, workers, mgid)


def parse_config(data: Any) -> Config:
    d = _keys("config", data, {"jobs"}, {"switch", "l2", "broadcast", "extra"})
    sw = _keys("switch", d.get("switch", {}), set(),
               {"grpc_addr", "device_id", "election_id", "thrift_port"})
    switch = SwitchConfig(**sw)
    for name in ("device_id", "election_id", "thrift_port"):
        _int(f"switch.{name}", getattr(switch, name), 0, 2**63 - 1)
    if not isinstance(d["jobs"], list):
        raise ConfigError("jobs: expected a list")
    jobs = tuple(_job(f"jobs[{i}]", j) for i, j in enumerate(d["jobs"]))
    seen_jobs: set[int] = set()
    seen_mgids: dict[int, str] = {}
    identities: dict[tuple, str] = {}
    used_slots: dict[int, int] = {}
    for j in jobs:
        if j.job_id in seen_jobs:
            raise ConfigError(f"duplicate job_id {j.job_id}")
        seen_jobs.add(j.job_id)
        if j.mgid in seen_mgids:
            raise ConfigError(f"job {j.job_id}: mgid {j.mgid} already used by {seen_mgids[j.mgid]}")
        seen_mgids[j.mgid] = f"job {j.job_id}"
        for s in range(j.slot_base, j.slot_base + j.num_slots):
            if s in used_slots:
                raise ConfigError(f"job {j.job_id}: slot {s} overlaps job {used_slots[s]}")
            used_slots[s] = j.job_id
        for w in j.workers:
            if w.identity in identities:
                raise ConfigError(f"job {j.job_id} worker {w.worker_id}: (port, mac, ip, udp_port) "
                                  f"{w.identity} already used by {identities[w.identity]}")
            identities[w.identity] = f"job {j.job_id} worker {w.worker_id}"
    l2 = []
    for i, raw_entry in enumerate(_list("l2", d.get("l2", []))):
        e = _keys(f"l2[{i}]", raw_entry, {"mac", "port"}, set())
        l2.append(L2Entry(_mac(f"l2[{i}].mac", e["mac"]), _int(f"l2[{i}].port", e["port"], 0, 510)))
    broadcast = None
    if "broadcast" in d:
        b = _keys("broadcast", d["broadcast"], {"mgid", "ports"}, set())
        broadcast = BroadcastConfig(_int("broadcast.mgid", b["mgid"], 1, 65535),
                                    tuple(_int("broadcast.ports", p, 0, 510) for p in _list("broadcast.ports", b["ports"])))
        if broadcast.mgid in seen_mgids:
            raise ConfigError(f"broadcast: mgid {broadcast.mgid} already used by "
                              f"{seen_mgids[broadcast.mgid]}")
    return Config(switch, jobs, tuple(l2), broadcast, d.get("extra", {}))


def _list(where: str, value: Any) -> list:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list")
    return value


def load_config(source: str | pathlib.Path | dict) -> Config:
    """Read a config from a dict or a .json/.yaml file."""
    if isinstance(source, dict):
        return parse_config(source)
    path = pathlib.Path(source)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}") from None
    return parse_config(data)
