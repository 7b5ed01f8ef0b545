# SPDX-License-Identifier: Apache-2.0
"""The tests p4testgen generated for both P4 programs (tests/data/p4testgen), replayed
against the project's models of the switch: each test's table entries (and, for the TNA
program, the register cells it sets), its input packet and the packets p4testgen says
leave. A difference is a bug in the program or in the model.

v1model (STF, registers at 0): every test compares in full; the same tests run on BMv2 in
bmv2_tests/test_model_vs_bmv2.py. TNA (PTF): a test whose path ends in ingress compares in
full; for a path through egress p4testgen's Tofino model (p4c 1.2.5.16) does not give the
egress parser the bytes the ingress deparser emitted (its traces parse other header values
there, as fresh packet variables), so its expected packet is not the program's: such a test
checks that the model's traffic manager sends the packet where p4testgen's did.

`make -C p4src testgen` and `make -C p4src/tna testgen` regenerate them (p4testgen's log
beside the tests names the command, the version and the coverage it reached).
"""

from __future__ import annotations

import pathlib
import re

import pytest

from p4reduce.testbed.ptf_tests import PtfError, load_ptf, parse_ptf
from p4reduce.testbed.stf import load_stf
from p4reduce.testbed.stf_replay import replay, replay_ptf
from p4reduce.testbed.switch_model import SwitchModel

DATA = pathlib.Path(__file__).resolve().parent / "data" / "p4testgen"
MODELS = {"v1model": SwitchModel}
GENERATED = ["v1model"]  # the STF ones
TNA_TESTS = DATA / "tna" / "tna.py"


def _tests(program: str) -> list[pathlib.Path]:
    return sorted((DATA / program).glob("*.stf"))


def _coverage(program: str, target: str, backend: str) -> list[float]:
    """The node coverage after each test, from p4testgen's log, whose first lines name the
    command (its target and backend) and p4testgen's version."""
    log = (DATA / program / "p4testgen.log").read_text()
    command, version = log.splitlines()[:2]
    assert command.startswith(f"# p4testgen {target} ") and f"--test-backend {backend}" in command
    assert version.startswith("# p4testgen Version")
    return [float(c) for c in re.findall(r"Nodes covered: ([0-9.]+)", log)]


@pytest.mark.parametrize("program", GENERATED)
def test_the_generated_tests_are_there_with_their_provenance(program):
    """Each program's tests, with p4testgen's log: the command, its version, and the node
    coverage after each test, which the last test's own header repeats."""
    coverage = _coverage(program, "--target bmv2 --arch v1model", "STF")
    tests = _tests(program)
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


# -- the TNA program's (PTF) ----------------------------------------------------------------------


def test_the_tna_tests_are_there_with_their_provenance():
    coverage = _coverage("tna", "--target tofino --arch tna", "PTF")
    cases = load_ptf(TNA_TESTS)
    assert len(cases) == len(coverage) >= 10 and coverage == sorted(coverage)
    # both kinds of path, and the register cells the paths read set by the tests
    assert {c.reaches_egress for c in cases} == {False, True}
    assert all(c.registers for c in cases)


@pytest.mark.parametrize("case", load_ptf(TNA_TESTS) if TNA_TESTS.exists() else [], ids=lambda c: c.test.name)
def test_a_generated_tna_test_replays_on_the_model(case):
    outcome = replay_ptf(case)
    if not case.reaches_egress:
        assert outcome.passed, outcome.report()
    else:  # where p4testgen's traffic manager sent it (module docstring)
        assert case.tm_port in {port for port, _ in outcome.model.last_copies}, outcome.report()


_PTF = """
class Test1(AbstractTest):
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 3;
    '''
    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.r', [('Ingress.r.f', 0x1)], 4)
        self.insertTableEntry('Ingress.forwarding.l2', [gc.KeyTuple('hdr.ethernet.dst_addr', 0x2)],
                              'Ingress.forwarding.to_port', [gc.DataTuple('port', 0x3)])
    def sendPacket(self):
        ig_port = 1
        pkt = b'\\x00\\x01'
        send_packet(self, ig_port, pkt)
    def verifyPackets(self):
        eg_port = 3
        exp_pkt = b'\\x00\\x01'
        exp_pkt = Mask(exp_pkt)
        exp_pkt.set_do_not_care(4, 4)
        verify_packet(self, exp_pkt, eg_port)
"""


def test_a_ptf_test_is_read_as_data():
    (case,) = parse_ptf(_PTF)
    assert [(r.register, r.index, r.fields) for r in case.registers] == [("Ingress.r", 4, (("Ingress.r.f", 1),))]
    (entry,) = case.test.entries
    assert (entry.table, entry.match[0][0], entry.match[0][1].value, entry.action, entry.params) == (
        "Ingress.forwarding.l2",
        "hdr.ethernet.dst_addr",
        2,
        "Ingress.forwarding.to_port",
        (("port", 3),),
    )
    assert (case.test.packet.port, case.test.packet.data) == (1, bytes([0, 1]))
    assert (case.test.expected.port, case.test.expected.pattern) == (3, "0*01")
    assert (case.reaches_egress, case.tm_port) == (False, 3)


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("send_packet(self, ig_port, pkt)", "os.system('x')", "is not what p4testgen writes"),
        ("self.setRegisterValue(", "self.deleteEverything(", "self.deleteEverything(...) with 3 arguments"),
        ("gc.DataTuple('port', 0x3)", "gc.DataTuple('port', port)", "'port' is not a literal"),
    ],
)
def test_what_p4testgen_does_not_write_is_refused_naming_the_line(old, new, error):
    with pytest.raises(PtfError, match=re.escape(error)):
        parse_ptf(_PTF.replace(old, new, 1))
