"""The TNA (Tofino 1) program in p4src/tna: the Tofino backend compiles it to what
p4src/tna/build holds, p4c's frontend and midend accept it, and its constants agree with
p4reduce.protocol and with the spec (docs/protocol.md section 8, "TNA (Tofino)").

The compile needs the Tofino backend, `p4c-barefoot` (p4lang/p4c built with
-DENABLE_TOFINO=ON): P4C_BAREFOOT, else p4c-barefoot on PATH, else the one next to a
`bf-p4c` driver on PATH (a p4c build directory). The p4test check needs p4c's `p4test` and
the open TNA headers (tna.p4 and the files it includes, from p4lang/p4c
backends/tofino/bf-p4c/p4include): P4REDUCE_TNA_INCLUDE, else the p4include next to the
backend, else a few conventional install places. Each test skips saying what is missing;
the constant checks need nothing but this checkout.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest
from conftest import codec_header_fields, p4_header_fields

from p4reduce.protocol import (
    AGG_UDP_PORT,
    HEADER_LEN,
    MAX_BLOCK_SIZE,
    MAX_SLOTS,
    MAX_WORKERS,
    NONE,
    OWNER_SHIFT,
    PROTOCOL_VERSION,
    SCATTER_MASK,
    Flags,
    Mode,
    MsgType,
    switch,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
TNA = ROOT / "p4src" / "tna"
SPEC = ROOT / "docs" / "protocol.md"

# Where an installed p4c with the Tofino backend, or Intel's SDE, keeps tna.p4.
_CONVENTIONAL_INCLUDES = [
    "/usr/local/share/p4c/tna-include",
    "/usr/local/share/p4c/p4include",
    "/usr/share/p4c/p4include",
]


def _backend() -> tuple[pathlib.Path | None, str]:
    """The Tofino backend (p4c-barefoot), or None and why it was not found."""
    configured = os.environ.get("P4C_BAREFOOT")
    if configured:
        if os.access(configured, os.X_OK):
            return pathlib.Path(configured), ""
        return None, f"P4C_BAREFOOT={configured} is not executable"
    found = shutil.which("p4c-barefoot")
    if found:
        return pathlib.Path(found), ""
    driver = shutil.which("bf-p4c")
    if driver:  # p4c's driver, linked from a build directory that holds the backend
        beside = pathlib.Path(driver).resolve().parent / "p4c-barefoot"
        if os.access(beside, os.X_OK):
            return beside, ""
    return None, (
        "no Tofino backend: set P4C_BAREFOOT to p4c-barefoot (p4lang/p4c built with "
        "-DENABLE_TOFINO=ON) or put it on PATH"
    )


def _tna_include() -> tuple[pathlib.Path | None, str]:
    """The TNA headers' directory, or None and why it was not found."""
    configured = os.environ.get("P4REDUCE_TNA_INCLUDE")
    if configured:
        path = pathlib.Path(configured)
        if (path / "tna.p4").is_file():
            return path, ""
        return None, f"P4REDUCE_TNA_INCLUDE={configured} has no tna.p4"
    candidates = list(_CONVENTIONAL_INCLUDES)
    backend, _ = _backend()
    if backend is not None:  # a p4c build directory, or <prefix>/bin of an installation
        candidates[:0] = [str(backend.parent / "p4include"), str(backend.parent.parent / "share" / "p4c" / "p4include")]
    if os.environ.get("SDE_INSTALL"):
        candidates.insert(0, os.path.join(os.environ["SDE_INSTALL"], "share", "p4c", "p4include"))
    for candidate in candidates:
        if (pathlib.Path(candidate) / "tna.p4").is_file():
            return pathlib.Path(candidate), ""
    return None, (
        "no TNA headers (tna.p4): set P4REDUCE_TNA_INCLUDE to p4c's "
        "backends/tofino/bf-p4c/p4include (looked in " + ", ".join(candidates) + ")"
    )


def _source(name: str) -> str:
    return (TNA / name).read_text()


def _all_sources() -> str:
    return "\n".join(p.read_text() for p in sorted(TNA.glob("*.p4")))


def _constants() -> dict[str, int]:
    text = _source("types.p4")
    found = {m[1]: int(m[2], 0) for m in re.finditer(r"^const [\w<>]+\s+(\w+)\s*=\s*(\w+);", text, re.M)}
    found.update({m[1]: int(m[2], 0) for m in re.finditer(r"^#define (\w+) (\d+)\b", text, re.M)})
    return found


def test_p4test_accepts_the_program_without_warnings():
    include, why = _tna_include()
    if include is None:
        pytest.skip(why)
    p4test = os.environ.get("P4TEST") or shutil.which("p4test")
    if not p4test:
        pytest.skip("p4test (p4c's frontend/midend test driver) is not on PATH; set P4TEST")
    if not shutil.which("make"):
        pytest.skip("make is not installed (the check is p4src/tna/Makefile's target)")
    run = subprocess.run(
        ["make", "-s", "-C", str(TNA), "check", f"TNA_INCLUDE={include}", f"P4TEST={p4test}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # --Werror turns warnings into failures; anything printed at all is worth a look.
    assert run.stdout.strip() == "" and run.stderr.strip() == "", run.stdout + run.stderr


# The files of p4src/tna/build a compile writes (make -C p4src/tna), all text.
_BUILD_FILES = ("p4reduce_tna.p4info.txtpb", "bfrt.json", "resources.txt")


def test_committed_build_is_the_backends_output(tmp_path):
    """p4src/tna/build is what the Tofino backend makes of the committed program, and it fits."""
    backend, why = _backend()
    if backend is None:
        pytest.skip(why)
    include, why = _tna_include()
    if include is None:
        pytest.skip(why)
    if not shutil.which("make"):
        pytest.skip("make is not installed (the compile is p4src/tna/Makefile's default target)")
    run = subprocess.run(
        ["make", "-s", "-C", str(TNA), f"BUILD={tmp_path}", f"P4C_BAREFOOT={backend}", f"TNA_INCLUDE={include}"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for name in _BUILD_FILES:
        fresh = (tmp_path / name).read_text()
        assert fresh == (TNA / "build" / name).read_text(), f"p4src/tna/build/{name} is stale: run make -C p4src/tna"


def test_committed_resources_say_it_fits():
    """The committed report: Tofino 1's 12 stages, 4 stateful ALUs per stage, one per register."""
    report = (TNA / "build" / "resources.txt").read_text()
    stages = re.search(r"^MAU stages: (\d+); used by ingress: (\d+)", report, re.M)
    assert stages and int(stages[1]) == 12 and int(stages[2]) <= 12
    registers = re.findall(r"^  registers \(one stateful ALU each\): (.*)$", report, re.M)
    per_stage = [len(line.split(", ")) for line in registers]
    assert max(per_stage) <= 4
    p4 = _constants()
    assert sum(per_stage) == 1 + 4 + p4["VALUE_PAIRS"]  # seen bitmap, 4 per-round registers, the pairs


def test_wire_constants_match_the_protocol():
    p4 = _constants()
    assert p4["AGG_UDP_PORT"] == AGG_UDP_PORT == 48864
    assert p4["PROTOCOL_VERSION"] == PROTOCOL_VERSION == 2
    assert p4["AGG_HDR_LEN"] == HEADER_LEN == 36
    assert p4["MSG_DATA"] == MsgType.DATA and p4["MSG_RESULT"] == MsgType.RESULT
    assert p4["MSG_JOIN"] == MsgType.JOIN and p4["MSG_JOINED"] == MsgType.JOINED
    assert p4["FLAG_MISMATCH"] == Flags.MISMATCH
    assert p4["FLAG_SCATTER"] == Flags.SCATTER
    assert p4["SCATTER_MASK"] == SCATTER_MASK and p4["OWNER_SHIFT"] == OWNER_SHIFT
    assert p4["MODE_DENSE"] == Mode.DENSE.code
    assert p4["BLOCK_NONE"] == NONE
    assert p4["MAX_WORKERS"] == MAX_WORKERS == switch.SWITCH_MAX_WORKERS
    assert p4["IPV4_HDR_LEN"] == 20 and p4["UDP_HDR_LEN"] == 8


def test_switch_constants_are_consistent():
    p4 = _constants()
    values = p4["VALUES_PER_PACKET"]
    assert values == 2 * p4["VALUE_PAIRS"]  # one register pair per two values
    assert p4["AGG_VALUES_LEN"] == 4 * values
    assert 0 < values <= MAX_BLOCK_SIZE
    assert p4["REGISTER_SIZE"] == 2 * p4["NUM_SLOTS"] == 2 ** (p4["SLOT_BITS"] + 1)
    assert p4["NUM_SLOTS"] <= MAX_SLOTS
    types = _source("types.p4")
    assert re.search(rf"typedef bit<{p4['SLOT_BITS']}>\s+slot_index_t;", types)
    assert re.search(rf"typedef bit<{p4['SLOT_BITS'] + 1}>\s+cell_index_t;", types)
    assert 0 < p4["RECIRC_PORT_IN_PIPE"] < 128  # a port number inside a pipe


def test_event_codes_match_the_v1model_contract():
    p4 = _constants()
    events = {name: value for name, value in p4.items() if name.startswith("EV_")}
    assert events == {f"EV_{name.upper()}": i for i, name in enumerate(switch.EVENT_NAMES)}
    assert p4["NUM_EVENTS"] == switch.NUM_EVENTS and max(events.values()) < p4["NUM_EVENTS"]


def test_job_event_codes_match_the_v1model_contract():
    p4 = _constants()
    cells = {name: value for name, value in p4.items() if name.startswith("JOB_EV_")}
    assert cells == {f"JOB_EV_{name.upper()}": i for i, name in enumerate(switch.JOB_EVENT_NAMES)}
    assert p4["NUM_JOB_EVENTS"] == switch.NUM_JOB_EVENTS
    assert p4["JOB_EVENTS_SIZE"] == p4["NUM_SLOTS"] * p4["NUM_JOB_EVENTS"]


def test_spec_lists_the_tna_constants():
    section = SPEC.read_text().split("### TNA (Tofino)", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| (\d+)", section, re.M))
    p4 = _constants()
    assert int(rows["values per packet `B`"]) == p4["VALUES_PER_PACKET"]
    assert int(rows["slots"]) == p4["NUM_SLOTS"]
    assert int(rows["max workers per job"]) == p4["MAX_WORKERS"]
    assert int(rows["aggregation UDP port"]) == p4["AGG_UDP_PORT"]
    assert "block = 64" in section and p4["VALUES_PER_PACKET"] == 64


def test_agg_header_layout_matches_the_codec():
    """agg_h has the codec's fields, in order, with the codec's sizes (pool = shadow ++ slot)."""
    assert p4_header_fields(_source("headers.p4"), "agg_h") == codec_header_fields()


def test_values_headers_and_pairs_cover_every_value():
    p4 = _constants()
    body = re.search(r"header values_h \{(.*?)\}", _source("headers.p4"), re.S)[1]
    fields = re.findall(r"value_t (v\d\d);", body)
    assert fields == [f"v{i:02d}" for i in range(p4["VALUE_PAIRS"])]
    assert re.search(r"values_h\s+vals_a;\s+values_h\s+vals_b;", _source("headers.p4"))
    listed = re.search(r"#define FOR_ALL_VALUE_PAIRS\(M\)(.*?)\n\n", _source("values.p4"), re.S)[1]
    assert re.findall(r"M\((\d\d)\)", listed) == [f"{i:02d}" for i in range(p4["VALUE_PAIRS"])]


def test_registers_fit_tofino1_stateful_alus():
    """At most four RegisterActions per register (a Tofino 1 stateful ALU's instruction
    memory), register cells of at most two 32-bit words, and per-round registers sized for
    both shadow copies. p4test does not know these limits."""
    text = _all_sources()
    structs = {
        m[1]: re.findall(r"bit<(\d+)>|(?:value_t|worker_bitmap_t)", m[2])
        for m in re.finditer(r"struct (\w+) \{(.*?)\}", text, re.S)
    }
    registers = re.findall(r"Register<([\w<>]+), (\w+)>\((\w+)\) (\w+);", text)
    assert len(registers) == 1 + 4 + 1  # seen, remaining, min_block, block_exp, rounds, sums
    for element, index, size, name in registers:
        actions = re.findall(rf"RegisterAction<{re.escape(element)}, {index}, [\w<>]+>\({name}\)", text)
        assert 1 <= len(actions) <= 4, (name, len(actions))
        if element in structs:
            assert len(structs[element]) == 2, element  # a register pair
        else:
            assert int(re.fullmatch(r"bit<(\d+)>", element)[1]) <= 32, element
        assert size == ("NUM_SLOTS" if index == "slot_index_t" else "REGISTER_SIZE"), name
