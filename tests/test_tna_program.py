# SPDX-License-Identifier: Apache-2.0
"""The TNA (Tofino 1) program in p4src/tna: the Tofino backend compiles it to what
p4src/tna/build holds, p4c's frontend and midend accept it, its constants agree with
p4reduce.protocol and with the spec (docs/protocol.md section 8, "TNA (Tofino)"), and its
opening round, modelled register by register with the decisions read from its constant
table entries, ends as section 3's table says.

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
import random
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
    POISON,
    PROTOCOL_VERSION,
    SCATTER_MASK,
    ErrorCode,
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


def _bridged_kinds() -> dict[str, int]:
    body = re.search(r"enum bit<8> bridged_kind_t \{(.*?)\}", _source("types.p4"), re.S)[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"(\w+)\s*=\s*(\d+)", body)}


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
    # The seen bitmap, 6 per-round registers (countdown, agreement, K2 and the opening
    # round's three), the leaf role's two (sent_block, awaiting), the pairs.
    assert sum(per_stage) == 1 + 6 + 2 + p4["VALUE_PAIRS"]


def test_wire_constants_match_the_protocol():
    p4 = _constants()
    assert p4["AGG_UDP_PORT"] == AGG_UDP_PORT == 48864
    assert p4["PROTOCOL_VERSION"] == PROTOCOL_VERSION == 3
    assert p4["AGG_HDR_LEN"] == HEADER_LEN == 36
    assert p4["MSG_DATA"] == MsgType.DATA and p4["MSG_RESULT"] == MsgType.RESULT
    assert p4["MSG_JOIN"] == MsgType.JOIN and p4["MSG_JOINED"] == MsgType.JOINED
    assert p4["FLAG_OPENING"] == Flags.OPENING
    assert p4["FLAG_MISMATCH"] == Flags.MISMATCH
    assert p4["FLAG_SCATTER"] == Flags.SCATTER
    assert p4["SCATTER_MASK"] == SCATTER_MASK and p4["OWNER_SHIFT"] == OWNER_SHIFT
    # The opening round's agreement (docs/protocol.md section 8): OPENING and SCATTER.
    assert p4["OPENING_MASK"] == Flags.OPENING | Flags.SCATTER
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
    assert (p4["NUM_SLOTS"], values) == (switch.TNA_SLOTS, switch.TNA_VALUES_PER_PACKET)
    types = _source("types.p4")
    assert re.search(rf"typedef bit<{p4['SLOT_BITS']}>\s+slot_index_t;", types)
    assert re.search(rf"typedef bit<{p4['SLOT_BITS'] + 1}>\s+cell_index_t;", types)
    assert 0 < p4["RECIRC_PORT_IN_PIPE"] < 128  # a port number inside a pipe


def test_event_codes_match_the_v1model_contract():
    p4 = _constants()
    events = {name: value for name, value in p4.items() if name.startswith("EV_")}
    # every event, the leaf role's (uplink.p4) included
    assert events == {f"EV_{name.upper()}": i for i, name in enumerate(switch.EVENT_NAMES)}
    assert set(switch.LEAF_EVENT_NAMES) <= set(switch.EVENT_NAMES)
    assert p4["NUM_EVENTS"] == switch.NUM_EVENTS and max(events.values()) < p4["NUM_EVENTS"]
    # the events counter's index type holds every cell
    width = int(re.search(r"typedef bit<(\d+)>\s+event_t;", _source("types.p4"))[1])
    assert p4["NUM_EVENTS"] <= 2**width


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
    assert int(rows["max blocks per tensor (`blocks`)"]) == p4["MAX_BLOCKS"]
    assert "block = 64" in section and p4["VALUES_PER_PACKET"] == 64


def test_lookahead_keys_fit_one_word():
    """The 32-bit keys (types.p4): 24 bits of block, then 255 - e; every block of a tensor
    the switch takes is below 2^24 - 1, so NONE's 24 bits stay above every block's."""
    p4 = _constants()
    assert p4["MAX_BLOCKS"] == 2**24 - 1 < NONE
    assert p4["KEY_BLOCK_MASK"] == 0xFFFFFFFF ^ 0xFF and p4["KEY_ONE_BLOCK"] == 0x100
    # What first_key answers for an equal key: never K1_old of a better key in K1's block
    # (exponent byte >= 1), and not 0 (a worse key).
    assert p4["CODE_SAME_KEY"] != 0 and p4["CODE_SAME_KEY"] & 0xFF == 0


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
    # The pair that decides in stage 3 and the later ones: each pair once.
    early = re.search(r"#define FOR_EARLY_VALUE_PAIRS\(M\)(.*?)\n", _source("values.p4"))[1]
    later = re.search(r"#define FOR_LATER_VALUE_PAIRS\(M\)(.*?)\n\n", _source("values.p4"), re.S)[1]
    pairs = re.findall(r"M\((\d\d)\)", early) + re.findall(r"M\((\d\d)\)", later)
    assert sorted(pairs) == [f"{i:02d}" for i in range(p4["VALUE_PAIRS"])]


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
    # seen, remaining, rounds, first_block, first_key, first_flags, min_key; sent_block,
    # awaiting; sums
    assert len(registers) == 1 + 6 + 2 + 1
    for element, index, size, name in registers:
        actions = re.findall(rf"RegisterAction<{re.escape(element)}, {index}, [\w<>]+>\({name}\)", text)
        assert 1 <= len(actions) <= 4, (name, len(actions))
        if element in structs:
            assert len(structs[element]) == 2, element  # a register pair
        else:
            assert int(re.fullmatch(r"bit<(\d+)>", element)[1]) <= 32, element
        assert size == ("NUM_SLOTS" if index == "slot_index_t" else "REGISTER_SIZE"), name


def test_leaf_constants_match_the_protocol_and_the_v1model_program():
    """The leaf role's wire numbers (uplink.p4) are the protocol's and the v1model
    program's; the awaiting register's states are distinct, the two waiting ones above the
    two answered ones (the harvest pass's `awaiting >= AWAIT_DATA`, take_mismatch's test)."""
    p4 = _constants()
    assert p4["MSG_ERROR"] == MsgType.ERROR and p4["ERROR_UPSTREAM"] == ErrorCode.UPSTREAM
    assert p4["POISON"] == POISON
    v1 = {
        m[1]: int(m[2], 0)
        for m in re.finditer(r"^const bit<\d+>\s+(\w+)\s*=\s*(\w+);", (ROOT / "p4src" / "types.p4").read_text(), re.M)
    }
    for name in ("MSG_ERROR", "ERROR_UPSTREAM", "POISON", "EV_UPSTREAM", "EV_FROM_PARENT", "EV_PARENT_DROPPED"):
        assert p4[name] == v1[name], name
    states = [p4[f"AWAIT_{s}"] for s in ("ANSWERED", "MISMATCH", "DATA", "OPENING")]
    assert states == sorted(set(states)) and max(states[:2]) < min(states[2:])
    assert _bridged_kinds()["UPSTREAM"] not in {v for k, v in _bridged_kinds().items() if k != "UPSTREAM"}


def _bfrt_table(name: str) -> dict:
    import json

    tables = json.loads((TNA / "build" / "bfrt.json").read_text())["tables"]
    found = [t for t in tables if t["name"] == name]
    assert len(found) == 1, name
    return found[0]


def _keys(table: dict) -> list[tuple[str, str, int]]:
    return [(k["name"], k["match_type"], k["type"].get("width")) for k in table["key"]]


def _action_fields(table: dict, action: str) -> list[tuple[str, int]]:
    spec = [a for a in table["action_specs"] if a["name"] == action]
    assert len(spec) == 1, action
    return [(d["name"], d["type"]["width"]) for d in spec[0]["data"]]


def test_leaf_tables_and_registers_are_in_bfrt():
    """What a control plane installs for a leaf job (README.md, "Control plane"): the
    `uplinks` entry (the v1model program's set_uplink fields) and the `parents` entry (the
    v1model program's keys), and the two registers a job reset zeroes."""
    uplinks = _bfrt_table("pipe.Ingress.uplink.uplinks")
    assert _keys(uplinks) == [("hdr.agg.job_id", "Exact", 16)]
    assert _action_fields(uplinks, "Ingress.uplink.to_parent") == [
        ("up_job", 16),
        ("up_rank", 8),
        ("up_session", 32),
        ("port", 9),
        ("mac", 48),
        ("ip", 32),
        ("udp_port", 16),
    ]
    parents = _bfrt_table("pipe.Ingress.admission.parents")
    assert _keys(parents) == [
        ("ig_intr_md.ingress_port", "Exact", 9),
        ("hdr.ethernet.src_addr", "Exact", 48),
        ("hdr.ipv4.src_addr", "Exact", 32),
        ("hdr.udp.src_port", "Exact", 16),
        ("hdr.agg.job_id", "Exact", 16),
        ("hdr.agg.worker_id", "Exact", 8),
    ]
    assert _action_fields(parents, "Ingress.admission.from_parent") == [
        ("job_id", 16),
        ("mgid", 16),
        ("slot_base", 16),
        ("slot_end", 16),
        ("session", 32),
        ("up_session", 32),
    ]
    p4 = _constants()
    for name, fields in (("uplink_sent.sent_block", ["f1"]), ("uplink_wait.awaiting", ["state", "fingerprint"])):
        register = _bfrt_table(f"pipe.Ingress.{name}")
        assert register["table_type"] == "Register" and register["size"] == p4["REGISTER_SIZE"], name
        assert [d["singleton"]["name"] for d in register["data"]] == [f"Ingress.{name}.{f}" for f in fields]


# --- The opening round, modelled -----------------------------------------------------
#
# Nothing runs this P4 code (no tofino-model here), so the test below checks its opening
# round as far as a model can: the stateful ALUs' RegisterActions (opening.p4,
# lookahead.p4, values.p4) written out in Python, and every decision between them taken
# from the program's own constant table entries (ValueOp, OpeningFlags, Lookahead,
# OpeningResult), against docs/protocol.md section 3's table with 40-bit keys.

_WORD = 0xFFFFFFFF


def _entries(text: str) -> list[tuple[list[str], str]]:
    """`(k1, k2, ...) : action(args);` lines (comments dropped) as (keys, action)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text)
    return [
        ([k.strip() for k in keys.split(",")], action.strip())
        for keys, action in re.findall(r"\(([^()]*)\)\s*:\s*([\w]+\s*\([^;]*\))\s*;", text)
    ]


def _table_body(source: str, name: str) -> str:
    return re.search(rf"table {name} \{{(.*?)\n    \}}", _source(source), re.S)[1]


class _Table:
    """A constant ternary table: keys `_`, `V` or `V &&& M`, first matching entry wins."""

    def __init__(self, entries: list[tuple[list[str], str]], default: str | None):
        names = _constants()
        kinds = _bridged_kinds()

        def value(expr: str) -> int:
            expr = re.sub(r"bridged_kind_t\.(\w+)", lambda m: str(kinds[m[1]]), expr)
            return eval(re.sub(r"\b[A-Z_]+\b", lambda m: str(names[m[0]]), expr))

        self.rows = []
        for keys, action in entries:
            row = []
            for key in keys:
                if key == "_":
                    row.append((0, 0))
                elif "&&&" in key:
                    v, m = key.split("&&&")
                    row.append((value(v), value(m)))
                else:
                    row.append((value(key), _WORD))
            self.rows.append((row, action))
        self.default = default

    def action(self, *keys: int) -> str | None:
        for row, action in self.rows:
            assert len(row) == len(keys)
            if all((k & mask) == (v & mask) for k, (v, mask) in zip(keys, row, strict=True)):
                return action
        return self.default


def _call(action: str) -> tuple[str, list[int]]:
    names = _constants()
    name, args = re.fullmatch(r"(\w+)\s*\((.*)\)", action).groups()
    values = [eval(re.sub(r"\b[A-Z_]+\b", lambda m: str(names[m[0]]), a)) for a in args.split(",") if a.strip()]
    return name, values


def _program_tables() -> dict[str, _Table]:
    values = _source("values.p4")
    op_entries = re.search(r"#define VALUE_OP_ENTRIES\(HARVEST, WRITE, ADD, READ\)(.*?)\n\n", values, re.S)[1]
    flags = _table_body("opening.p4", "flags")
    result = _table_body("opening.p4", "result")
    next_min = _table_body("lookahead.p4", "next_min")
    return {
        "value_op": _Table(_entries(re.sub(r": (\w+);", r": \1();", op_entries.replace("\\", ""))), None),
        "flags": _Table(_entries(flags), None),
        "next_min": _Table(_entries(next_min), None),
        "result": _Table(_entries(result), re.search(r"const default_action = (\w+\([^;]*\));", result)[1]),
    }


def _key32(block: int, exp: int) -> int:
    return (block & 0xFFFFFF) << 8 | (255 - exp)


def _switch_opening(packets, tables, upstream=False):
    """The program's opening round: each packet through stages 2 and 3 (opening.p4's
    first_block and first_key, then first_flags, min_key and the pairs as the tables say),
    then the harvest pass of the last one (first_key, first_flags, OpeningResult), which a
    leaf job's round (`upstream`) makes as uplink.p4 marks it (bridged kind UPSTREAM)."""
    p4 = _constants()
    fb_block = fk_key = ff_block = ff_flags = k2 = 0
    sums = [0] * p4["VALUES_PER_PACKET"]
    for i, (block, exp, next_block, next_exp, owner_bits, values) in enumerate(packets):
        own, nxt = _key32(block, exp), _key32(next_block, next_exp)
        scatter = owner_bits | (1 if values is None else 0)  # agreement.p4: bit 0 for count 0
        values = values if values is not None else [0] * len(sums)  # ZeroValues
        position = p4["ROUND_FIRST"] if i == 0 else p4["ROUND_LATER"]
        # Stage 2: first_block (the candidate, into next_block) and first_key.
        first_code = 0xDEADBEEF  # not written for the first packet
        if i == 0:
            fb_block, candidate = own & p4["KEY_BLOCK_MASK"], nxt
            fk_key = own
        else:
            if own < fb_block:
                fb_block, candidate = own & p4["KEY_BLOCK_MASK"], 0
            elif own - fb_block >= p4["KEY_ONE_BLOCK"]:
                candidate = own
            else:
                candidate = nxt
            if own < fk_key:
                first_code = min(fk_key, nxt)
            elif own == fk_key:
                first_code = p4["CODE_SAME_KEY"]
            else:
                first_code = 0
            fk_key = min(fk_key, own)
        # Stage 3 (from_parent 0, awaiting: not written, count: B after ZeroValues).
        keys = (0, 1, position, 1, candidate, first_code, 0, 0xEE, p4["VALUES_PER_PACKET"])
        op, _ = _call(tables["value_op"].action(*keys))
        if op == "WRITE":
            sums = list(values)
        elif op == "ADD":
            sums = [(a + b) & _WORD for a, b in zip(sums, values, strict=True)]
        else:
            assert op == "READ", op
        flag_action, _ = _call(tables["flags"].action(0, 1, 1, position, candidate, first_code, 0, 0xEE))
        if flag_action == "set":
            ff_block, ff_flags = block, scatter
        elif flag_action == "repeat":
            if block == ff_block:
                ff_flags = scatter | 1
        elif flag_action == "same_key":
            ff_flags |= scatter
        else:
            raise AssertionError(flag_action)
        k2_action, _ = _call(tables["next_min"].action(position, 1, candidate, 0, 0xEE))
        if k2_action == "open":
            k2 = candidate
        elif k2_action == "take":
            k2 = min(k2, candidate)
        else:
            assert k2_action == "take_first", k2_action
            k2 = min(k2, first_code)
    # The completing packet: next_exp = ~K2[7:0], DecodeNext.
    head = {
        "next_exp": 255 - (k2 & 0xFF),
        "next_block": NONE if k2 & p4["KEY_BLOCK_MASK"] == p4["KEY_BLOCK_MASK"] else k2 >> 8,
    }
    # Harvest pass: K1 into block (exp = ~K1[7:0]), first_flags, OpeningResult.
    k1 = fk_key
    head["exp"] = 255 - (k1 & 0xFF)
    kind = _bridged_kinds()["UPSTREAM" if upstream else "ANSWER"]
    name, args = _call(tables["result"].action(kind, k1, ff_flags, 0))
    head["flags"] = ff_flags ^ (args[0] if args else 0)
    if name == "values":
        head["block"], head["count"] = k1 >> 8, len(sums)
    elif name == "up_repeat":  # header-only, the look-ahead stays K2's
        head["block"], head["count"] = k1 >> 8, 0
    elif name == "repeat":
        head["next_block"] = head["block"] = k1 >> 8
        head["next_exp"], head["count"] = head["exp"], 0
    else:
        assert name == "empty", name
        head["block"] = head["next_block"] = NONE
        head["count"] = 0
    return head, (sums if head["count"] else None)


def _spec_opening(packets, block_size):
    """docs/protocol.md section 3: K1, K2 and repeat with 40-bit keys."""
    key = lambda b, e: b << 8 | (255 - e)  # noqa: E731
    k1 = k2 = repeat = first_flags = None
    sums = [0] * block_size
    for i, (block, exp, next_block, next_exp, owner_bits, values) in enumerate(packets):
        own, nxt = key(block, exp), key(next_block, next_exp)
        h = values is None and block != NONE
        vals = values if values is not None else [0] * block_size
        if i == 0 or block < k1 >> 8:
            k2 = nxt if i == 0 else min(k1, nxt)
            k1, repeat, first_flags, sums = own, h, owner_bits, list(vals)
        elif block == k1 >> 8:
            k2 = min(k2, nxt)
            if own == k1:
                sums = [(a + b) & _WORD for a, b in zip(sums, vals, strict=True)]
            elif own < k1:
                sums, first_flags = list(vals), owner_bits
            repeat = repeat or own != k1 or h
            k1 = min(k1, own)
        else:
            k2 = min(k2, own)
    b, e = k1 >> 8, 255 - (k1 & 0xFF)
    head = {"flags": first_flags, "exp": e}
    if b == NONE:
        head.update(block=NONE, next_block=NONE, next_exp=255 - (k2 & 0xFF), count=0)
    elif repeat:
        head.update(block=b, next_block=b, next_exp=e, count=0)
    else:
        head.update(block=b, next_block=k2 >> 8, next_exp=255 - (k2 & 0xFF), count=block_size)
    return head, (sums if head["count"] else None)


def _random_opening(rng: random.Random, p4: dict[str, int]) -> list[tuple]:
    """One opening round's DATA of 1 to 5 workers: (block, exp, next_block, next_exp, owner
    bits, values or None): own blocks, NONE workers, exponents that disagree, header-only
    DATA about a block, reduce-scatter owner bits, blocks near 2^24."""
    blocks = [0, 1, 2, 3, 7, 0xFFFF00, p4["MAX_BLOCKS"] - 1]
    scatter = rng.random() < 0.5
    packets = []
    for _ in range(rng.randint(1, 5)):
        if rng.random() < 0.25:
            packets.append((NONE, 127, NONE, rng.choice([127, 120]), Flags.SCATTER if scatter else 0, None))
            continue
        block = rng.choice(blocks[:-1] if rng.random() < 0.9 else blocks)
        next_block = rng.choice([b for b in blocks if b > block] + [NONE])
        owner = (block % 4) << OWNER_SHIFT | Flags.SCATTER if scatter else 0
        values = None if rng.random() < 0.15 else [rng.randrange(1 << 32) for _ in range(p4["VALUES_PER_PACKET"])]
        packets.append((block, rng.choice([120, 126, 127]), next_block, rng.choice([100, 126, 127]), owner, values))
    return packets


def test_opening_round_model_follows_the_spec():
    """Random opening rounds (own blocks, NONE workers, exponents that disagree, header-only
    DATA about a block, reduce-scatter owner bits, blocks near 2^24) end with the spec's
    RESULT: block, exp, look-ahead, REPEAT or empty stream, owner bits and sums."""
    _check_random_openings(random.Random(3), 4000, upstream=False)


def _check_random_openings(rng: random.Random, rounds: int, upstream: bool) -> None:
    """`rounds` random opening rounds through the program's tables, each ending as the spec
    says (the leaf's upstream DATA when `upstream`), every kind of ending among them."""
    tables = _program_tables()
    p4 = _constants()
    spec = _spec_upstream if upstream else _spec_opening
    seen = set()
    for _ in range(rounds):
        packets = _random_opening(rng, p4)
        got, want = _switch_opening(packets, tables, upstream=upstream), spec(packets, p4["VALUES_PER_PACKET"])
        assert got == want, packets
        seen.add("empty" if want[0]["block"] == NONE else "repeat" if want[0]["count"] == 0 else "values")
    assert seen == {"empty", "repeat", "values"}


def _spec_upstream(packets, block_size):
    """docs/protocol.md, "Hierarchical aggregation": a leaf's opening round goes up as its
    own opening DATA: b* at e* with b*'s owner bits and OPENING, K2 as its look-ahead, the
    partial sum; header-only on a local repeat, block = NONE when nobody holds anything
    (the v1model program's to_parent and opening_to_parent)."""
    head, sums = _spec_opening(packets, block_size)
    key = lambda b, e: b << 8 | (255 - e)  # noqa: E731
    k2 = None
    k1 = None
    for i, (block, exp, next_block, next_exp, _, _) in enumerate(packets):
        own, nxt = key(block, exp), key(next_block, next_exp)
        if i == 0 or block < k1 >> 8:
            k2 = nxt if i == 0 else min(k1, nxt)
            k1 = own
        elif block == k1 >> 8:
            k2 = min(k2, nxt)
            k1 = min(k1, own)
        else:
            k2 = min(k2, own)
    up = {"flags": head["flags"] | Flags.OPENING, "exp": head["exp"], "block": head["block"]}
    up["next_block"], up["next_exp"] = (NONE if k2 >> 8 == NONE else k2 >> 8), 255 - (k2 & 0xFF)
    repeat = head["block"] != NONE and head["count"] == 0
    up["count"] = 0 if head["block"] == NONE or repeat else block_size
    return up, (sums if up["count"] else None)


def test_leaf_opening_round_goes_up_as_the_spec_says():
    """The same random opening rounds as a leaf job's: the harvest pass's OpeningResult
    entries for UPSTREAM make the leaf's own opening DATA (section "Hierarchical
    aggregation"): OPENING with b*'s owner bits, K2 as look-ahead even on a local REPEAT,
    header-only on a REPEAT or an empty stream."""
    _check_random_openings(random.Random(5), 3000, upstream=True)


# --- The leaf role's check, modelled ---------------------------------------------------
#
# uplink.p4's two registers (sent_block in stage 0, awaiting in stage 1) written out in
# Python, which of their RegisterActions runs taken from the program's `sent` and `check`
# tables, against the v1model program's check (p4src/uplink.p4: the same block, any block
# for an opening round; the same fingerprint, its poison, or MISMATCH; once).


def _leaf_tables() -> dict[str, _Table]:
    uplink = _source("uplink.p4")
    slot_ok = re.search(r"#define SLOT_OK (.*)", _source("seen_bitmap.p4"))[1]
    assert slot_ok == "0, 16w0 &&& ~((bit<16>) NUM_SLOTS - 1)"  # below_base 0, slot < NUM_SLOTS
    body = re.search(r"table check \{(.*?)\n    \}", uplink, re.S)[1].replace("SLOT_OK", "0, 0 &&& 0xE000")
    sent = re.search(r"table sent \{(.*?)\n    \}", uplink, re.S)[1]
    return {"sent": _Table(_entries(sent), "NoAction()"), "check": _Table(_entries(body), "NoAction()")}


class _LeafCell:
    """One cell of sent_block and awaiting, as uplink.p4's RegisterActions update them."""

    def __init__(self, tables):
        self.tables, self.sent, self.state, self.fingerprint = tables, 0, 0, 0

    def _passes(self, harvest, unicast, block, flags, fingerprint, opening=0):
        p4 = _constants()
        msg = p4["MSG_RESULT"]  # a harvest pass is a RESULT by then, as the parent's
        awaiting = 0xEE  # not written
        sent_action, _ = _call(self.tables["sent"].action(harvest, unicast, msg))
        if sent_action == "record":
            self.sent = 0 if opening else (block + 1) & _WORD
            awaiting = p4["AWAIT_OPENING"] if opening else p4["AWAIT_DATA"]
        elif sent_action == "compare":
            awaiting = 1 if self.sent in ((block + 1) & _WORD, 0) else 0
        holds = 0 if block == NONE else 1
        keys = (harvest, unicast, 1 - harvest, 0, msg, flags, 0, 0, 5, 1, holds, 1, 0, 0)
        check, _ = _call(self.tables["check"].action(*keys))
        if check == "record_round":
            self.state, self.fingerprint = awaiting, fingerprint
        elif check == "read_awaiting":
            awaiting = self.state
        elif check == "take_parent":
            if self.fingerprint == fingerprint and awaiting == 1:
                awaiting, self.state, self.fingerprint = self.state, p4["AWAIT_ANSWERED"], ~self.fingerprint & _WORD
            else:
                awaiting = p4["AWAIT_ANSWERED"]
        elif check == "take_parent_mismatch":
            if self.state >= p4["AWAIT_DATA"] and awaiting == 1:
                awaiting, self.state, self.fingerprint = self.state, p4["AWAIT_MISMATCH"], ~self.fingerprint & _WORD
            else:
                awaiting = p4["AWAIT_ANSWERED"]
        else:
            assert check == "NoAction", check
        return awaiting

    def send_up(self, opening, block, fingerprint):
        self._passes(1, 0, block, 0, fingerprint, opening)

    def resend_goes_up(self):
        return self._passes(1, 1, 0, 0, 0) >= _constants()["AWAIT_DATA"]

    def parent_result(self, block, fingerprint, mismatch):
        flags = _constants()["FLAG_MISMATCH"] if mismatch else 0
        return bool(self._passes(0, 0, block, flags, fingerprint) & _constants()["AWAIT_DATA"])


def test_leaf_takes_only_the_answer_to_the_round_it_sent():
    """Random rounds of a leaf's cell, each answered by the parent (once or twice), with late
    copies of older answers, other allreduces' answers, MISMATCH answers with any
    fingerprint: the program takes exactly the answers the v1model program takes, except
    a poisoned fingerprint without MISMATCH (docs/tofino.md: the TNA program takes a
    poisoned answer only flagged MISMATCH, as every parent flags one it did not complete
    alone)."""
    rng = random.Random(7)
    taken_kinds = set()
    for _ in range(300):
        cell = _LeafCell(_leaf_tables())
        awaiting, sent, sent_fp, history = False, None, None, []
        fingerprint = rng.randrange(1 << 32)
        block = rng.randrange(1000)
        for _ in range(rng.randint(1, 8)):
            opening = rng.random() < 0.3
            block += rng.randint(0, 3)
            if rng.random() < 0.2:
                fingerprint = rng.randrange(1 << 32)  # the next allreduce
            cell.send_up(opening, block, fingerprint)
            awaiting, sent, sent_fp = True, (opening, block), fingerprint
            history.append((block, fingerprint))
            for _ in range(rng.randint(1, 4)):
                assert cell.resend_goes_up() == awaiting
                kind = rng.choice(["answer", "answer", "late", "other", "mismatch", "poisoned"])
                if kind == "late":
                    answer_block, answer_fp = rng.choice(history)
                elif kind == "other":
                    answer_block, answer_fp = block, rng.randrange(1 << 32)
                else:
                    answer_block, answer_fp = block, fingerprint
                if opening and kind == "answer":
                    answer_block = rng.choice([block, max(0, block - rng.randint(0, 5)), NONE])
                if kind == "poisoned":
                    answer_fp ^= POISON
                mismatch = kind == "mismatch" or (kind in ("poisoned", "other") and rng.random() < 0.5)
                if kind == "mismatch" and rng.random() < 0.5:
                    answer_fp = rng.randrange(1 << 32)
                same_round = sent[0] or answer_block == sent[1]
                same_allreduce = mismatch or answer_fp == sent_fp or answer_fp == sent_fp ^ POISON
                want = awaiting and same_round and same_allreduce
                if answer_fp == sent_fp ^ POISON and not mismatch:
                    want = False  # the documented difference
                got = cell.parent_result(answer_block, answer_fp, mismatch)
                assert got == want, (kind, sent, answer_block, mismatch)
                if got:
                    awaiting = False
                    taken_kinds.add(kind)
    assert {"answer", "mismatch", "poisoned"} <= taken_kinds
