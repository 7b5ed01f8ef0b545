from __future__ import annotations

import json
import pathlib

import pytest

from bmv2_tests.harness import Bmv2Switch, Tap, Worker, missing_requirements

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "docs" / "golden_packets.json"


def pytest_collection_modifyitems(config, items):
    reason = missing_requirements()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"BMv2 tests skipped: {reason}")
    for item in items:
        if "bmv2_tests" in str(item.fspath) and not item.fspath.basename == "test_build.py":
            item.add_marker(skip)


@pytest.fixture(scope="session")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def make_workers(switch: Bmv2Switch, n: int, first_port: int = 1) -> list[Worker]:
    return [Worker(i, first_port + i, f"02:00:00:00:00:{first_port + i:02x}",
                   f"10.0.0.{first_port + i}", 40000 + first_port + i,
                   switch.host_if(first_port + i)) for i in range(n)]


@pytest.fixture
def switch(tmp_path):
    sw = Bmv2Switch(num_ports=5).start(tmp_path)
    yield sw
    sw.stop()


@pytest.fixture
def tap(switch):
    t = Tap([switch.host_if(i) for i in range(1, switch.num_ports + 1)])
    yield t
    t.close()
