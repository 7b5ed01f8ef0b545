# SPDX-License-Identifier: Apache-2.0
"""The tests p4testgen generated for both P4 programs (tests/data/p4testgen), replayed
against the project's models of the switch: each test's table entries, its input packet
and the packets p4testgen says leave (registers start at 0: p4testgen's STF backends
configure none). A difference is a bug in the program or in the model, or a designed
difference named in docs/protocol.md section 8 (KNOWN below, with the reason).

`make -C p4src testgen` and `make -C p4src/tna testgen` regenerate them (p4testgen's log
beside the tests names its version, the command and the coverage it reached); the same
v1model tests run on BMv2 in bmv2_tests/test_model_vs_bmv2.py.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from p4reduce.testbed.stf import load_stf
from p4reduce.testbed.stf_replay import replay
from p4reduce.testbed.switch_model import SwitchModel
from p4reduce.testbed.tna_model import TnaSwitchModel

DATA = pathlib.Path(__file__).resolve().parent / "data" / "p4testgen"
MODELS = {"v1model": SwitchModel, "tna": TnaSwitchModel}
# The programs whose generated tests are committed (docs/tofino.md says why not the TNA
# program's yet, if it is missing here).
GENERATED = ["v1model"]


def _tests(program: str) -> list[pathlib.Path]:
    return sorted((DATA / program).glob("*.stf"))


@pytest.mark.parametrize("program", GENERATED)
def test_the_generated_tests_are_there_with_their_provenance(program):
    """Each program's tests, with p4testgen's log: the command, its version, and the node
    coverage after each test, which the last test's own header repeats."""
    log = (DATA / program / "p4testgen.log").read_text()
    command, version = log.splitlines()[:2]
    assert command.startswith("# p4testgen --target ") and "--test-backend STF" in command
    assert version.startswith("# p4testgen Version")
    tests = _tests(program)
    coverage = [float(c) for c in re.findall(r"Nodes covered: ([0-9.]+)", log)]
    assert len(tests) == len(coverage) >= 5 and coverage == sorted(coverage)
    last = max(tests, key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    assert load_stf(last).coverage == pytest.approx(coverage[-1], abs=0.005)  # (rounded there)


@pytest.mark.parametrize(
    ("program", "path"),
    [(program, path) for program in GENERATED for path in _tests(program)],
    ids=lambda v: getattr(v, "name", v),
)
def test_a_generated_test_replays_on_the_model(program, path):
    """The test's packet through a fresh model with the test's entries leaves as p4testgen
    says it does (or is dropped as it says)."""
    outcome = replay(load_stf(path), MODELS[program])
    assert outcome.passed, outcome.report()
