# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the BMv2 tests: compiled pipeline, a running switch, a tap on its ports.

Every test module here is skipped (with the reason) when BMv2's simple_switch_grpc or
root are missing. The switch runs the P4 sources compiled afresh when p4c is on PATH,
else the committed p4src/build. A module that only needs the compiler sets
`NEEDS_SWITCH = False` (and skips without p4c).
"""

from __future__ import annotations

import json
import pathlib
import time

import pytest

from bmv2_tests.harness import (
    Bmv2Switch,
    Pipeline,
    Tap,
    committed_pipeline,
    compile_pipeline,
    compiler_missing,
    missing_requirements,
)
from p4reduce.testbed.veth import make_workers as make_workers  # the tests import them from here
from p4reduce.testbed.veth import worker_namespaces as worker_namespaces

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


@pytest.fixture
def switch(tmp_path, pipeline):
    sw = Bmv2Switch(num_ports=5).start(tmp_path, pipeline)
    yield sw
    sw.stop()


@pytest.fixture
def tap(switch):
    t = Tap([switch.host_if(i) for i in range(1, switch.num_ports + 1)])
    # The switch is shared by a module's tests: on a loaded machine BMv2 may still be
    # emitting an earlier test's answers (to that test's workers). Those are taken off the
    # wire here, until it has been silent for 0.3 s (at most 20 s of them).
    deadline = time.monotonic() + 20
    while t.collect(timeout=0.3) and time.monotonic() < deadline:
        pass
    yield t
    t.close()
