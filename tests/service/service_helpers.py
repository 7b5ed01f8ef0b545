# SPDX-License-Identifier: Apache-2.0
"""What the service tests share (not a conftest.py: tests import tests/conftest.py by
module name, and a second conftest would shadow it)."""

from __future__ import annotations

import copy
import importlib.util
import pathlib
import random
import re
import sys
import urllib.request
from typing import Any

from p4reduce.service.config import ServiceConfig, parse_service_config

MACS = [f"02:00:00:00:00:{i:02x}" for i in range(1, 9)]

SWITCH: dict[str, Any] = {
    "grpc_addr": "127.0.0.1:1",
    "address": {"ip": "10.0.0.254", "mac": "02:00:00:00:00:fe"},
    "l2": [{"mac": mac, "port": i} for i, mac in enumerate(MACS, 1)],
    "slots": [0, 64],
    "mgids": [10, 12],
}


def service_config(switch: bool = True, fallback: bool = True, **overrides: Any) -> ServiceConfig:
    """A configuration with a switch section (slots 0..63, mgids 10..12, ports 1..8 for
    MACS) and an embedded fallback on an ephemeral port; `overrides` replace switch keys
    (`jobs=...` the jobs section)."""
    doc: dict[str, Any] = {}
    jobs = overrides.pop("jobs", None)
    if switch:
        doc["switch"] = {**copy.deepcopy(SWITCH), **overrides}
    if fallback:
        doc["fallback"] = {"host": "127.0.0.1", "port": 0}
    if jobs is not None:
        doc["jobs"] = jobs
    return parse_service_config(doc)


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Scripted(random.Random):
    """An RNG that offers the given numbers in turn (the source must skip used ones)."""

    def __init__(self, *values: int) -> None:
        super().__init__(0)
        self._values = iter(values)

    def randint(self, a: int, b: int) -> int:
        return next(self._values)


CONTROL_PLANE = pathlib.Path(__file__).resolve().parents[1] / "control_plane"


def control_plane(name: str) -> Any:
    """A module of tests/control_plane (the fake P4Runtime and BMv2 thrift servers), which
    is not on this folder's import path."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CONTROL_PLANE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# -- metrics ---------------------------------------------------------------------------

SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (\S+)')


def parse_exposition(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Prometheus text format 0.0.4, strictly: HELP and TYPE before a family's samples,
    each sample line `name{labels} value`; returns the samples by family."""
    families: dict[str, list[tuple[dict[str, str], float]]] = {}
    typed: dict[str, str] = {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in families, f"{name} described twice"
            families[name] = []
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert kind in ("counter", "gauge") and name in families and name not in typed
            typed[name] = kind
        else:
            m = SAMPLE.fullmatch(line)
            assert m is not None, f"not a sample line: {line!r}"
            assert m[1] in typed, f"{m[1]} has no TYPE line before its samples"
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m[2] or ""))
            families[m[1]].append((labels, float(m[3])))
    return families


def fetch_metrics(server: Any) -> str:
    """GET /metrics of a JobServer, checking the content type."""
    with urllib.request.urlopen("http://{}:{}/metrics".format(*server.metrics_address), timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return response.read().decode()


def job_lost(stub: Any, job_id: int, cause: str) -> bool:
    """Whether KeepAlive of `job_id` is refused UNAVAILABLE with details starting `cause`
    (its switch is gone); False while the service still holds the job."""
    import grpc

    from p4reduce.jobapi import jobs_pb2 as pb

    try:
        stub.KeepAlive(pb.KeepAliveRequest(job_id=job_id))
    except grpc.RpcError as exc:
        assert exc.code() == grpc.StatusCode.UNAVAILABLE and exc.details().startswith(cause), exc.details()
        return True
    return False


def table_entries(fake: Any, table: str, action: str, field: str) -> dict[int, dict[str, int]]:
    """The entries of `table` on a fake P4Runtime switch (the shipped program's P4Info): the
    value of exact match field `field` -> the parameters of `action`."""
    from p4reduce.controller.encoding import decode_value
    from p4reduce.controller.p4info import P4Info
    from p4reduce.p4src import P4INFO, build_artifact

    info = P4Info.load(build_artifact(P4INFO))
    table_id = info.table(table).id
    names = {p.id: p.name for p in info.action(action).params.values()}
    key = info.match_field(table, field).id
    out = {}
    for (tid, _), entry in fake.tables.items():
        if tid == table_id:
            value = next(decode_value(m.exact.value) for m in entry.match if m.field_id == key)
            out[value] = {names[p.param_id]: decode_value(p.value) for p in entry.action.action.params}
    return out
