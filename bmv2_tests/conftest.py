# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the BMv2 tests: compiled pipeline, a running switch, a tap on its ports.

Every test module here is skipped (with the reason) when BMv2's simple_switch_grpc or
root are missing. The switch runs the P4 sources compiled afresh when p4c is on PATH,
else the committed p4src/build. A module that only needs the compiler sets
`NEEDS_SWITCH = False` (and skips without p4c).
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from bmv2_tests.harness import (
    AGG_IP,
    AGG_MAC,
    Bmv2Switch,
    Pipeline,
    Tap,
    Worker,
    committed_pipeline,
    compile_pipeline,
    compiler_missing,
    missing_requirements,
)

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "docs" / "golden_packets.json"


@pytest.fixture(scope="module", autouse=True)
def bmv2_requirements(request):
    reason = missing_requirements(need_switch=getattr(request.module, "NEEDS_SWITCH", True))
    if reason is not None:
        pytest.skip(f"BMv2 tests skipped: {reason}")


@pytest.fixture(scope="session")
def pipeline(tmp_path_factory) -> Pipeline:
    """The P4 sources as they are now, compiled once per session with p4src/Makefile; the
    committed p4src/build without p4c."""
    if compiler_missing() is not None:
        return committed_pipeline()
    return compile_pipeline(tmp_path_factory.mktemp("p4src"))


@pytest.fixture(scope="session")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def make_workers(switch: Bmv2Switch, n: int, first_port: int = 1) -> list[Worker]:
    """Workers 0..n-1, one per switch port starting at `first_port`."""
    return [
        Worker(
            i,
            first_port + i,
            f"02:00:00:00:00:{first_port + i:02x}",
            f"10.0.0.{first_port + i}",
            40000 + first_port + i,
            switch.host_if(first_port + i),
        )
        for i in range(n)
    ]


@pytest.fixture
def switch(tmp_path, pipeline):
    sw = Bmv2Switch(num_ports=5).start(tmp_path, pipeline)
    yield sw
    sw.stop()


@pytest.fixture
def tap(switch):
    t = Tap([switch.host_if(i) for i in range(1, switch.num_ports + 1)])
    yield t
    t.close()


@contextlib.contextmanager
def worker_namespaces(workers: list[Worker], prefix: str) -> Iterator[list[str]]:
    """Each worker's host interface in a network namespace of its own, with its MAC, its IP
    and a static ARP entry for the aggregation address (the switch answers for it, no host
    does); the namespaces are deleted afterwards."""
    namespaces: list[str] = []
    try:
        for w in workers:
            ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
            namespaces.append(ns)
            for cmd in (
                ["ip", "netns", "add", ns],
                ["ip", "link", "set", w.host_if, "netns", ns],
                ["ip", "-n", ns, "link", "set", w.host_if, "address", w.mac],
                ["ip", "-n", ns, "addr", "add", f"{w.ip}/24", "dev", w.host_if],
                ["ip", "-n", ns, "link", "set", w.host_if, "up"],
                ["ip", "-n", ns, "link", "set", "lo", "up"],
                ["ip", "-n", ns, "neigh", "add", AGG_IP, "lladdr", AGG_MAC, "dev", w.host_if],
            ):
                subprocess.run(cmd, check=True, capture_output=True)
        yield namespaces
    finally:
        for ns in namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
