# SPDX-License-Identifier: Apache-2.0
"""The TNA program's model (p4reduce.testbed.tna_model) against the spec, the program's
own source and BF Runtime info, and the v1model program's model.

The model is driven by exactly what the controller writes: the entries
p4reduce.controller.bfrt.tna builds for controller/examples/tofino.yaml, decoded with the
compiler's bfrt.json. Every expected frame is built from p4reduce.protocol's codec and
scapy, as docs/protocol.md (sections 3, 6 and 8, "TNA (Tofino)") says the switch answers,
never by running the model. Where the program differs from the spec, the test asserts the
program's behaviour and says which words of the spec it departs from ("DIFFERENCE").
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import random
import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from test_tna_program import _bridged_kinds, _constants

from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.schema import Schema
from p4reduce.controller.config import Config, JobConfig, UplinkConfig, WorkerEntry, load_config
from p4reduce.protocol import (
    AGG_UDP_PORT,
    NONE,
    POISON,
    SCATTER_MASK,
    AggHeader,
    ErrorCode,
    Flags,
    MsgType,
    lookahead_key,
    scatter_flags,
)
from p4reduce.protocol.switch import EVENT_NAMES, TNA_MAX_BLOCKS
from p4reduce.testbed import tna_model
from p4reduce.testbed.model_common import ipv4_checksum_verifies
from p4reduce.testbed.stf import parse_stf
from p4reduce.testbed.stf_replay import ReplayError, replay
from p4reduce.testbed.switch_model import SwitchModel
from p4reduce.testbed.tna_model import (
    CONST_TABLES,
    REGISTERS,
    TABLES,
    TnaSwitchModel,
    install_bfrt,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
TNA_DIR = ROOT / "p4src" / "tna"
BFRT = json.loads((TNA_DIR / "build" / "bfrt.json").read_text())
FIXED = json.loads((ROOT / "controller" / "bfrt" / "fixed_tofino.json").read_text())
SCHEMA = Schema([BFRT, FIXED], "p4reduce_tna")
CONFIG = load_config(ROOT / "controller" / "examples" / "tofino.yaml")
JOB = CONFIG.jobs[0]
W = JOB.workers  # worker 0 on port 0, worker 1 on port 4
SESSION = 0x5E551015
FP = 0xF1F2F3F4
B = 64


@dataclasses.dataclass(frozen=True)
class Addr:
    mac: str
    ip: str
    udp_port: int = AGG_UDP_PORT


AGG = Addr("02:00:00:00:00:fe", "10.0.0.254")  # the aggregation address the workers send to
PARENT = Addr("02:00:00:00:00:99", "10.0.0.99")  # a leaf job's parent aggregator
PARENT_PORT = 8


def switch(jobs: Sequence[JobConfig] = (JOB,), session: int = SESSION, config: Config = CONFIG) -> TnaSwitchModel:
    """A model holding what `p4reduce controller install` writes for `jobs` and `config`'s L2."""
    model = TnaSwitchModel()
    entries = [e for job in jobs for e in tna.job_entries(SCHEMA, job, session=session)]
    install_bfrt(model, SCHEMA, entries + tna.l2_entries(SCHEMA, config))
    return model


def frame(src: WorkerEntry | Addr, payload: bytes, dst: Addr = AGG) -> bytes:
    """A datagram from `src` to the aggregation address, checksums filled in by scapy."""
    return bytes(
        Ether(src=src.mac, dst=dst.mac)
        / IP(src=src.ip, dst=dst.ip)
        / UDP(sport=src.udp_port, dport=dst.udp_port)
        / Raw(payload)
    )


def answer(to: WorkerEntry | Addr, payload: bytes, src: Addr = AGG) -> bytes:
    """An answer as docs/protocol.md says: from the aggregation address to the worker's,
    UDP checksum 0, IPv4 checksum right (the rest of the IPv4 header as scapy's defaults,
    which the packets that make answers carry)."""
    return bytes(
        Ether(src=src.mac, dst=to.mac)
        / IP(src=src.ip, dst=to.ip)
        / UDP(sport=AGG_UDP_PORT, dport=to.udp_port, chksum=0)
        / Raw(payload)
    )


def values(v: np.ndarray | Sequence[int] | None) -> bytes:
    return b"" if v is None else np.asarray(v, ">i4").tobytes()


def int32_sum(*arrays: np.ndarray) -> np.ndarray:
    total = sum(a.astype(np.int64) for a in arrays)
    return ((np.asarray(total) + 2**31) % 2**32 - 2**31).astype(np.int32)


def data(
    worker: int,
    shadow: int,
    block: int,
    nxt: int,
    vals: np.ndarray | None = None,
    *,
    slot: int = 0,
    blocks: int = 8,
    fp: int = FP,
    flags: int = 0,
    exp: int = 127,
    next_exp: int = 127,
    epoch: int = 0,
    session: int = SESSION,
    job: int = 1,
) -> bytes:
    h = AggHeader(
        MsgType.DATA,
        job,
        worker,
        slot,
        shadow,
        epoch,
        block,
        nxt,
        exp,
        next_exp,
        0 if vals is None else len(vals),
        flags,
        session=session,
        blocks=blocks,
        fingerprint=fp,
    )
    return h.pack() + values(vals)


def result(worker: int, shadow: int, block: int, nxt: int, vals: np.ndarray | None = None, **kw: int) -> bytes:
    """The RESULT the spec says the switch sends for a round of `data` packets."""
    f = {"blocks": 8, "fingerprint": FP, "exp": 127, "next_exp": 127, "slot": 0, "flags": 0, "epoch": 0}
    f.update(kw)
    h = AggHeader(
        MsgType.RESULT,
        f.get("job", 1),
        worker,
        f["slot"],
        shadow,
        f["epoch"],
        block,
        nxt,
        f["exp"],
        f["next_exp"],
        0 if vals is None else len(vals),
        f["flags"],
        session=f.get("session", SESSION),
        blocks=f["blocks"],
        fingerprint=f["fingerprint"],
    )
    return h.pack() + values(vals)


def datagram(raw: bytes) -> bytes:
    """A frame's UDP payload as a receiver takes it: by the IPv4 and UDP lengths (bytes
    behind the datagram are ignored)."""
    ip = raw[14:34]
    total_len = int.from_bytes(ip[2:4], "big")
    udp_len = int.from_bytes(raw[38:40], "big")
    assert udp_len == total_len - 20
    return raw[42 : 34 + udp_len]


def send(model: TnaSwitchModel, worker: int, payload: bytes) -> list[tuple[int, bytes]]:
    return model.process(W[worker].port, frame(W[worker], payload))


def to_both(shadow: int, block: int, nxt: int, vals: np.ndarray | None, **kw: int) -> list[tuple[int, bytes]]:
    """The round's RESULT multicast to both workers of the example job, in group order."""
    return [(w.port, answer(w, result(w.worker_id, shadow, block, nxt, vals, **kw))) for w in W]


def ev(model: TnaSwitchModel) -> dict[str, int]:
    """The non-zero cells of pipe.Ingress.events."""
    return {k: v for k, v in model.events().items() if v}


# -- the model's tables, registers and constant entries are the program's ---------------------------


def _bfrt_tables() -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in BFRT["tables"]}


def _width(field: dict[str, Any]) -> int:
    t = field["type"]
    return int(t["width"]) if t["type"] == "bytes" else {"uint32": 32, "uint16": 16, "uint8": 8}[t["type"]]


def test_control_plane_tables_and_registers_are_bfrt_jsons() -> None:
    tables = _bfrt_tables()
    for name, schema in TABLES.items():
        t = tables[name]
        assert [(k["name"], _width(k)) for k in t["key"]] == list(schema.keys), name
        assert {a["name"]: [(d["name"], _width(d)) for d in a["data"]] for a in t["action_specs"]} == {
            a: list(p) for a, p in schema.actions.items()
        }, name
        assert {a["name"] for a in t["action_specs"] if a.get("action_scope") == "DefaultOnly"} == (
            tna_model.DEFAULT_ONLY & set(schema.actions)
        )
    registers = {n: t for n, t in tables.items() if t["table_type"] == "Register"}
    assert set(registers) == set(REGISTERS)
    for name, r in REGISTERS.items():
        t = registers[name]
        assert t["size"] == r.size
        assert [(d["singleton"]["name"], _width(d["singleton"])) for d in t["data"]] == list(r.fields)
    for counter, size in tna_model.COUNTERS.items():
        assert tables[counter]["size"] == size


def test_constant_tables_keys_are_bfrt_jsons() -> None:
    tables = _bfrt_tables()
    for name, table in CONST_TABLES.items():
        t = tables[name.replace("value_NN", "value_00")]
        assert [k["name"] for k in t["key"] if k["name"] != "$MATCH_PRIORITY"] == list(table.keys), name
        assert len(table.entries) <= t["size"], name


def _preprocessed_source(tmp_path: pathlib.Path) -> str:
    """p4reduce_tna.p4 with every #include and macro expanded (cpp; tna.p4 and core.p4 as
    empty files: no table of theirs is wanted)."""
    cpp = shutil.which("cpp")
    if cpp is None:
        pytest.skip("no C preprocessor (cpp) to expand the P4 source's macros")
    (tmp_path / "core.p4").write_text("")
    (tmp_path / "tna.p4").write_text("")
    return subprocess.run(
        [cpp, "-P", "-undef", "-nostdinc", "-I", str(tmp_path), str(TNA_DIR / "p4reduce_tna.p4")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _block(text: str, start: int) -> str:
    """The text between the `{` at or after `start` and its matching `}`."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += text[j] == "{"
        depth -= text[j] == "}"
        if depth == 0:
            return text[i + 1 : j]
    raise AssertionError("unbalanced braces")


def _evaluate(expr: str) -> int:
    names = _constants()
    kinds = _bridged_kinds()
    expr = re.sub(r"bridged_kind_t\.(\w+)", lambda m: str(kinds[m[1]]), expr)
    expr = re.sub(r"\b\d+w(\d+)\b", r"\1", expr)
    expr = re.sub(r"\(bit<\d+>\)", "", expr)
    expr = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", expr))
    expr = re.sub(r"\b[A-Z][A-Z0-9_]*\b", lambda m: str(names[m[0]]), expr)
    return int(eval(expr, {"__builtins__": {}}))


def _source_table(source: str, name: str, widths: list[int]) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """(entries, default) of `table name` in the source, normalized as (keys, action, args)
    with every key as (value, mask) at its width."""
    m = re.search(rf"\btable {name} \{{", source)
    assert m, name
    body = _block(source, m.start())
    entries = []
    e = re.search(r"const entries = \{", body)
    if e:
        for entry in _split_top(_block(body, e.start()), ";"):
            keys_text, call = re.fullmatch(r"(.*?)\s*:\s*(\w+\s*\(.*\))", entry, re.S).groups()
            keys = _split_top(keys_text[1:-1], ",") if keys_text.startswith("(") else [keys_text]
            row = []
            for key, width in zip(keys, widths, strict=True):
                full = (1 << width) - 1
                if key == "_":
                    row.append((0, 0))
                elif "&&&" in key:
                    v, mk = key.split("&&&")
                    row.append((_evaluate(v) & full, _evaluate(mk) & full))
                else:
                    row.append((_evaluate(key) & full, full))
            action, args = re.fullmatch(r"(\w+)\s*\((.*)\)", call, re.S).groups()
            entries.append((tuple(row), action, tuple(_evaluate(a) for a in _split_top(args, ","))))
    d = re.search(r"default_action = (\w+)\s*(?:\((.*?)\))?;", body)
    default = (d[1], tuple(_evaluate(a) for a in _split_top(d[2] or "", ","))) if d else ("NoAction", ())
    return entries, default


def test_constant_tables_are_the_sources_const_entries(tmp_path: pathlib.Path) -> None:
    """Every constant table of the model is its `const entries` as the compiler sees them
    (macros expanded), entry by entry, in order, with its const default action."""
    source = _preprocessed_source(tmp_path)
    tables = _bfrt_tables()
    for name, table in CONST_TABLES.items():
        keys = [k for k in tables[name.replace("value_NN", "value_00")]["key"] if k["name"] != "$MATCH_PRIORITY"]
        widths = [_width(k) for k in keys]
        entries, default = _source_table(source, name.rsplit(".", 1)[1], widths)
        model = [
            (
                tuple((v & (1 << w) - 1, m & (1 << w) - 1) for (v, m), w in zip(match, widths, strict=True)),
                action,
                args,
            )
            for match, action, args in table.entries
        ]
        assert model == entries, name
        assert table.default == default, name


def test_constants_are_types_p4s() -> None:
    p4 = _constants()
    for name in (
        "VALUES_PER_PACKET",
        "NUM_SLOTS",
        "SLOT_BITS",
        "REGISTER_SIZE",
        "MAX_BLOCKS",
        "KEY_BLOCK_MASK",
        "KEY_ONE_BLOCK",
        "CODE_SAME_KEY",
        "RECIRC_PORT_IN_PIPE",
        "JOB_EVENTS_SIZE",
        "NUM_EVENTS",
        "ERROR_UPSTREAM",
        "POISON",
    ):
        ours = {"VALUES_PER_PACKET": tna_model.VALUES, "NUM_EVENTS": tna_model.EVENTS_SIZE}.get(name)
        assert (ours if ours is not None else getattr(tna_model, name)) == p4[name], name
    for prefix in ("ROUND_", "VALUE_", "AWAIT_", "VERDICT_", "EV_", "JOB_EV_"):
        for name, value in p4.items():
            if name.startswith(prefix) and name != "VALUES_PER_PACKET":
                assert getattr(tna_model, name) == value, name
    kinds = _bridged_kinds()
    assert (tna_model.FORWARD, tna_model.ANSWER, tna_model.HARVEST, tna_model.UPSTREAM) == tuple(
        kinds[k] for k in ("FORWARD", "ANSWER", "HARVEST", "UPSTREAM")
    )


# -- one job, as the controller installs it from controller/examples/tofino.yaml ---------------------


def test_join_is_answered_with_joined_of_the_tna_geometry() -> None:
    """docs/protocol.md section 8: JOINED `slot = slot_base`, `block = B` (64 on a Tofino),
    `next_block = num_slots`, `exp = 1` (dense), `next_exp = num_workers`, the job's session,
    `blocks = fingerprint = 0`, `flags = shadow = 0`, other fields as received; back to the
    sender alone, in one pass (no harvest)."""
    model = switch()
    join = AggHeader(MsgType.JOIN, 1, 1, 0, 0, 0x0C0FFEE0, 64, 64, 1, 0).pack()
    out = send(model, 1, join)
    joined = AggHeader(MsgType.JOINED, 1, 1, JOB.slot_base, 0, 0x0C0FFEE0, B, JOB.num_slots, 1, 2, session=SESSION)
    assert out == [(W[1].port, answer(W[1], joined.pack()))]
    assert len(model.last_passes) == 1
    assert ev(model) == {"joined": 1}
    assert model.job_counters(0) == {"packets": 1, "drops": 0, "retransmissions": 0, "rounds": 0}


def test_two_workers_one_stream_three_rounds() -> None:
    """Stream 0 of the example job (64 slots): worker 0 holds blocks 0 and 128, worker 1
    blocks 0 and 64. The opening round sums block 0 (int32, wrapping at 32 bits) and decides
    64; block 64's round takes worker 1's values (worker 0 header-only: zeros) and decides
    128; block 128's ends the stream (docs/protocol.md section 3)."""
    model = switch()
    rng = np.random.default_rng(7)
    a0, a128, b0, b64 = (rng.integers(-(2**31), 2**31, B, dtype=np.int64).astype(np.int32) for _ in range(4))
    a0[0], b0[0], a0[63], b0[63] = 2**31 - 1, 1, -(2**31), -1
    blocks = 200

    assert send(model, 0, data(0, 0, 0, 128, a0, flags=Flags.OPENING, blocks=blocks)) == []
    assert len(model.last_passes) == 1
    out = send(model, 1, data(1, 0, 0, 64, b0, flags=Flags.OPENING, blocks=blocks))
    assert out == to_both(0, 0, 64, int32_sum(a0, b0), blocks=blocks)
    sums = np.frombuffer(bytes(Ether(out[0][1])[UDP].payload)[36:], ">i4")
    assert (sums[0], sums[63]) == (-(2**31), 2**31 - 1)
    # The completing DATA went round once: its harvest pass entered on the pipe's port 68.
    assert [p.ingress_port for p in model.last_passes] == [W[1].port, 68]
    assert model.last_passes[1].frame[0] == tna_model.HARVEST

    assert send(model, 1, data(1, 1, 64, NONE, b64, blocks=blocks)) == []
    assert send(model, 0, data(0, 1, 64, 128, blocks=blocks)) == to_both(1, 64, 128, b64, blocks=blocks)

    assert send(model, 0, data(0, 0, 128, NONE, a128, blocks=blocks)) == []
    assert send(model, 1, data(1, 0, 128, NONE, blocks=blocks)) == to_both(0, 128, NONE, a128, blocks=blocks)

    # One cell per packet (section 8, TNA): the three completing DATA count in 1 only.
    assert ev(model) == {"data_counted": 3, "result_multicast": 3}
    assert model.job_counters(0) == {"packets": 3, "drops": 0, "retransmissions": 0, "rounds": 3}
    # The registers as the program leaves them: shadow 0 of slot 0 ended with block 128.
    assert model.register_read("countdown.remaining", 0) == {"Ingress.countdown.remaining.f1": 0}
    assert model.register_read("seen_bitmap.seen", 0) == {
        "Ingress.seen_bitmap.seen.set0": 0b11,
        "Ingress.seen_bitmap.seen.set1": 0,
    }
    assert model.register_read("lookahead.min_key", 0)["Ingress.lookahead.min_key.f1"] == 0xFFFFFF80


def test_opening_round_repeat_then_the_data_round_of_b_star() -> None:
    """Section 3: the holders of b* = 3 used exponents 130 and 128: a REPEAT, header-only,
    `block = next_block = 3`, `exp = next_exp = 130` (the largest); then the data round of
    3 at 130 sums both and decides the smallest next block."""
    model = switch()
    x, y = np.full(B, 5, np.int32), np.arange(B, dtype=np.int32)
    n = 200  # blocks of the tensor
    send(model, 0, data(0, 0, 3, 67, x, flags=Flags.OPENING, exp=130, next_exp=129, blocks=n))
    out = send(model, 1, data(1, 0, 3, 131, y, flags=Flags.OPENING, exp=128, next_exp=126, blocks=n))
    assert out == to_both(0, 3, 3, None, exp=130, next_exp=130, blocks=n)
    assert send(model, 1, data(1, 1, 3, 131, y, exp=130, next_exp=126, blocks=n)) == []
    out = send(model, 0, data(0, 1, 3, 67, x, exp=130, next_exp=129, blocks=n))
    assert out == to_both(1, 3, 67, x + y, exp=130, next_exp=129, blocks=n)


def test_opening_round_of_an_empty_stream_and_one_holder() -> None:
    """Nobody holds anything: `block = next_block = NONE`, count 0, the stream ends. One
    holder of 2 at 126 against a header-only NONE: the data round of 2 (the holder's sums)."""
    model = switch()
    none = dict(flags=Flags.OPENING, exp=127, next_exp=127)
    send(model, 0, data(0, 0, NONE, NONE, slot=1, **none))
    out = send(model, 1, data(1, 0, NONE, NONE, slot=1, **none))
    assert out == to_both(0, NONE, NONE, None, slot=1)
    x = np.arange(B, dtype=np.int32) - 30
    send(model, 1, data(1, 0, NONE, NONE, slot=2, **none))
    out = send(model, 0, data(0, 0, 2, NONE, x, slot=2, flags=Flags.OPENING, exp=126, next_exp=127))
    assert out == to_both(0, 2, NONE, x, slot=2, exp=126)


def test_retransmissions_resend_drop_and_stale() -> None:
    """Section 6: into an open round, dropped (3); into a complete one, the stored RESULT to
    the sender alone (2, after its own harvest pass), also for a header-only retransmission;
    with another allreduce's fingerprint, dropped (11)."""
    model = switch()
    x = np.arange(B, dtype=np.int32)
    first = data(0, 0, 0, NONE, x, flags=Flags.OPENING)
    assert send(model, 0, first) == []
    assert send(model, 0, first) == []
    copies = send(model, 1, data(1, 0, 0, NONE, x, flags=Flags.OPENING))
    assert copies == to_both(0, 0, NONE, 2 * x)
    again = send(model, 0, data(0, 0, 0, NONE, flags=Flags.OPENING))
    assert again == copies[:1]
    assert [p.ingress_port for p in model.last_passes] == [W[0].port, 68]
    assert send(model, 1, data(1, 0, 0, NONE, x, flags=Flags.OPENING, fp=1234)) == []
    assert ev(model) == {
        "data_counted": 1,
        "result_multicast": 1,
        "result_unicast": 1,
        "retransmit_dropped": 1,
        "stale": 1,
    }
    assert model.job_counters(0) == {"packets": 1, "drops": 0, "retransmissions": 3, "rounds": 1}


def test_disagreeing_fingerprints_make_a_mismatch_round_and_its_resend() -> None:
    model = switch()
    x = np.ones(B, np.int32)
    send(model, 0, data(0, 1, 5, NONE, x, fp=1))
    out = send(model, 1, data(1, 1, 5, NONE, x, fp=2))
    assert out == to_both(1, 5, NONE, 2 * x, flags=Flags.MISMATCH, fingerprint=2)
    # worker 1's retransmission (its fingerprint is not the stored one: stale) ...
    assert send(model, 1, data(1, 1, 5, NONE, x, fp=2)) == []
    # ... worker 0's is the stored round's: re-sent with MISMATCH
    assert send(model, 0, data(0, 1, 5, NONE, x, fp=1)) == [
        (W[0].port, answer(W[0], result(0, 1, 5, NONE, 2 * x, flags=Flags.MISMATCH, fingerprint=1)))
    ]
    assert ev(model)["stale"] == 1 and ev(model)["result_unicast"] == 1


def test_rejected_packets_are_counted_by_reason() -> None:
    """Section 6.1 / 8: unknown worker (4, for no job), identity (5), bad slot (6),
    malformed (7), bad session (10); a job's rejected packets count in its drops cell."""
    model = switch()
    x = np.ones(B, np.int32)
    stranger = WorkerEntry(0, 0, "02:00:00:00:00:77", "10.0.0.77", 40077)
    cases = [
        (stranger, data(0, 0, 0, NONE, x), "unknown_worker"),
        (W[0], data(1, 0, 0, NONE, x), "identity_mismatch"),  # worker 0's address, rank 1
        (W[0], data(0, 0, 0, NONE, x, job=2), "identity_mismatch"),
        (W[0], data(0, 0, 64, NONE, x, slot=64), "bad_slot"),  # the job has slots 0..63
        (W[0], data(0, 0, 0, NONE, x, session=SESSION ^ 1), "bad_session"),
        (W[0], b"\x02" + data(0, 0, 0, NONE, x)[1:], "malformed"),  # version 2
        (W[0], data(0, 0, 0, NONE, x[:32]), "malformed"),  # count 32: not B
        (W[0], data(0, 0, 0, NONE, x)[:-4], "malformed"),  # values cut short (UDP length says so)
        (W[0], data(0, 0, NONE, NONE, x), "malformed"),  # values about NONE
        (W[0], data(0, 0, 8, NONE, x), "malformed"),  # block beyond the tensor's 8 blocks
        (W[0], data(0, 0, 0, 9, x), "malformed"),  # next_block beyond it
        (W[0], AggHeader(MsgType.QUERY, 1, 0, 0, 0, 0, 0, session=SESSION).pack(), "malformed"),
    ]
    for src, payload, event in cases:
        assert model.process(src.port, frame(src, payload)) == [], event
        assert model.events()[event] >= 1, event
    # A tensor of more blocks than 24-bit keys hold (section 8, TNA): malformed.
    big = TNA_MAX_BLOCKS + 1
    assert send(model, 0, data(0, 0, 0, NONE, x, blocks=big)) == []
    # A bad IPv4 header checksum.
    raw = bytearray(frame(W[0], data(0, 0, 0, NONE, x)))
    raw[24] ^= 0xFF
    assert model.process(W[0].port, bytes(raw)) == []
    assert ev(model) == {
        "unknown_worker": 1,
        "identity_mismatch": 2,
        "bad_slot": 1,
        "bad_session": 1,
        "malformed": 9,
    }
    assert model.job_counters(0) == {"packets": 0, "drops": len(cases) + 1, "retransmissions": 0, "rounds": 0}
    # Nothing reached a register.
    assert model.register_read("seen_bitmap.seen", 0) == {
        "Ingress.seen_bitmap.seen.set0": 0,
        "Ingress.seen_bitmap.seen.set1": 0,
    }


def test_join_of_an_unknown_worker_is_dropped_and_counted() -> None:
    """Section 8, TNA: "A JOIN from an unknown worker is dropped and counted (event 4);
    there is no PacketIn to a controller" (the v1model program sends it to port 510)."""
    model = switch()
    stranger = WorkerEntry(0, 4, "02:00:00:00:00:77", "10.0.0.77", 40077)
    join = AggHeader(MsgType.JOIN, 1, 0, 0, 0, 1, 64, 64, 1, 0).pack()
    assert model.process(stranger.port, frame(stranger, join)) == []
    assert ev(model) == {"unknown_worker": 1}
    assert sum(model.counters[tna_model.JOB_EVENTS]) == 0


def test_a_truncated_aggregation_header_is_malformed_for_no_job() -> None:
    model = switch()
    assert send(model, 0, data(0, 0, 0, NONE)[:20]) == []
    assert ev(model) == {"malformed": 1} and sum(model.counters[tna_model.JOB_EVENTS]) == 0


def test_l2_forwarding_and_the_broadcast_group() -> None:
    """forwarding.l2 from the configuration's l2 and broadcast sections: to_port, flood to
    the broadcast group but not back out of the ingress port, an unknown destination
    dropped; event 8 counts table hits."""
    model = switch()
    plain = bytes(
        Ether(src=W[0].mac, dst=W[1].mac) / IP(src=W[0].ip, dst=W[1].ip) / UDP(sport=5000, dport=6000) / Raw(b"hi")
    )
    assert model.process(W[0].port, plain) == [(W[1].port, plain)]
    broadcast = bytes(Ether(src=W[1].mac, dst="ff:ff:ff:ff:ff:ff") / IP(src=W[1].ip, dst="10.0.0.255") / Raw(b"x"))
    assert model.process(W[1].port, broadcast) == [(W[0].port, broadcast)]
    stranger = bytes(Ether(src=W[0].mac, dst="02:00:00:00:00:77") / IP() / Raw(b"?"))
    assert model.process(W[0].port, stranger) == []
    hairpin = bytes(Ether(src=W[0].mac, dst=W[0].mac) / IP() / Raw(b"!"))
    assert model.process(W[0].port, hairpin) == []  # to_port(0) for a frame from port 0: egress drops it
    assert ev(model) == {"forwarded": 3}
    # A fragment or an IPv4 header with options is never aggregated: L2 forwarded.
    fragment = bytes(
        Ether(src=W[0].mac, dst=W[1].mac)
        / IP(src=W[0].ip, dst=W[1].ip, flags="MF")
        / UDP(sport=W[0].udp_port, dport=AGG_UDP_PORT)
        / Raw(data(0, 0, 0, NONE))
    )
    assert model.process(W[0].port, fragment) == [(W[1].port, fragment)]


def test_reduce_scatter_values_go_to_the_owner_only_but_the_bytes_stay() -> None:
    """Section 3.1: the RESULT goes to every other worker "header-only: the same header with
    `count = 0` and no values", and section 8's TNA part says "Nothing else on the wire
    differs". DIFFERENCE (p4src/tna/egress.p4:80-83, whose parser, parser.p4:121-138, leaves
    the values unparsed; README "Differences" lists it): a non-owner's copy says count 0 and
    header-only IPv4/UDP lengths but still carries the 256 value bytes behind its datagram."""
    model = switch()
    x = np.full(B, 3, np.int32)
    flags = scatter_flags(1)
    send(model, 0, data(0, 1, 5, NONE, x, flags=flags))
    out = send(model, 1, data(1, 1, 5, NONE, x, flags=flags))
    sums = values(2 * x)
    assert out == [
        (W[0].port, answer(W[0], result(0, 1, 5, NONE, None, flags=flags)) + sums),
        (W[1].port, answer(W[1], result(1, 1, 5, NONE, 2 * x, flags=flags))),
    ]
    # As a receiver reads it (by the IPv4 and UDP lengths), worker 0's copy is header-only.
    assert datagram(out[0][1]) == result(0, 1, 5, NONE, None, flags=flags)


def test_a_job_reset_installs_a_new_session_and_zeroes_the_jobs_registers() -> None:
    """README "Control plane": a reset modifies the workers' entries to a new session (old
    packets are event 10) and zeroes the job's cells of every register."""
    model = switch()
    x = np.ones(B, np.int32)
    send(model, 0, data(0, 0, 0, NONE, x, flags=Flags.OPENING))
    assert model.register_read("seen_bitmap.seen", 0)["Ingress.seen_bitmap.seen.set0"] == 1
    install_bfrt(model, SCHEMA, tna.worker_entries(SCHEMA, JOB, 0xABCD) + tna.zero_registers(SCHEMA, range(0, 2)))
    assert model.register_read("seen_bitmap.seen", 0)["Ingress.seen_bitmap.seen.set0"] == 0
    assert all(model.register_read(r, 0) == dict.fromkeys(model.register_read(r, 0), 0) for r in REGISTERS)
    assert send(model, 1, data(1, 0, 0, NONE, x, flags=Flags.OPENING)) == []
    assert ev(model)["bad_session"] == 1
    assert send(model, 1, data(1, 0, 0, NONE, x, flags=Flags.OPENING, session=0xABCD)) == []
    assert send(model, 0, data(0, 0, 0, NONE, x, flags=Flags.OPENING, session=0xABCD)) == to_both(
        0, 0, NONE, 2 * x, session=0xABCD
    )


# -- a leaf job (docs/protocol.md, "Hierarchical aggregation"; section 8, TNA) -----------------------

UP_JOB, UP_RANK, UP_SESSION = 9, 3, 0xAB
LEAF = dataclasses.replace(
    JOB, uplink=UplinkConfig(UP_JOB, UP_RANK, UP_SESSION, PARENT_PORT, PARENT.mac, PARENT.ip, AGG_UDP_PORT)
)


def from_parent(model: TnaSwitchModel, payload: bytes) -> list[tuple[int, bytes]]:
    return model.process(PARENT_PORT, frame(PARENT, payload))


def upstream(shadow: int, block: int, nxt: int, vals: np.ndarray | None, **kw: int) -> bytes:
    """The leaf's round as ONE DATA of the parent job (section "Hierarchical aggregation"):
    job up_job, worker up_rank, session up_session, the round's pool, epoch, blocks, block
    and exponent, its look-ahead minimum, the sums; from the aggregation address to the
    parent's."""
    f = {"blocks": 200, "fp": FP, "exp": 127, "next_exp": 127, "flags": 0, "slot": 0}
    f.update(kw)
    payload = data(
        UP_RANK,
        shadow,
        block,
        nxt,
        vals,
        slot=f["slot"],
        blocks=f["blocks"],
        fp=f["fp"],
        flags=f["flags"],
        exp=f["exp"],
        next_exp=f["next_exp"],
        session=UP_SESSION,
        job=UP_JOB,
    )
    return answer(PARENT, payload)


def parent_result(shadow: int, block: int, nxt: int, vals: np.ndarray | None, **kw: int) -> bytes:
    kw = {"blocks": 200, **kw}
    return result(UP_RANK, shadow, block, nxt, vals, job=UP_JOB, session=UP_SESSION, **kw)


def test_leaf_round_goes_up_and_the_parents_result_comes_down() -> None:
    model = switch([LEAF])
    rng = np.random.default_rng(3)
    a, b, p = (rng.integers(-1000, 1000, B).astype(np.int32) for _ in range(3))
    n = 200
    # The local opening round goes up as the leaf's own opening DATA (OPENING, b*, K2).
    assert send(model, 0, data(0, 0, 0, 64, a, flags=Flags.OPENING, blocks=n)) == []
    up = send(model, 1, data(1, 0, 0, 128, b, flags=Flags.OPENING, blocks=n))
    assert up == [(PARENT_PORT, upstream(0, 0, 64, a + b, flags=Flags.OPENING))]
    assert ev(model) == {"data_counted": 1, "upstream": 1}
    # A local retransmission while the parent has not answered: the partial sum goes up again.
    assert send(model, 0, data(0, 0, 0, 64, a, flags=Flags.OPENING, blocks=n)) == up
    assert ev(model)["upstream"] == 2
    # The parent's RESULT (the data round of 0, next 64 at 126): to every local worker as
    # the leaf job's, in one pass.
    down = from_parent(model, parent_result(0, 0, 64, p, next_exp=126))
    assert down == to_both(0, 0, 64, p, next_exp=126, blocks=n)
    assert len(model.last_passes) == 1
    # A late copy of it answers no round that waits: dropped (14), nothing changes.
    assert from_parent(model, parent_result(0, 0, 64, p, next_exp=126)) == []
    # A local retransmission now gets the parent's RESULT (2).
    assert send(model, 1, data(1, 0, 0, 128, b, flags=Flags.OPENING, blocks=n)) == down[1:]
    # The data round of 64 goes up too, and its answer comes down.
    assert send(model, 0, data(0, 1, 64, NONE, a, exp=126, blocks=n)) == []
    assert send(model, 1, data(1, 1, 64, 128, exp=126, blocks=n)) == [(PARENT_PORT, upstream(1, 64, 128, a, exp=126))]
    assert from_parent(model, parent_result(1, 64, 128, p, exp=126)) == to_both(1, 64, 128, p, exp=126, blocks=n)
    assert ev(model) == {
        "data_counted": 2,
        "result_unicast": 1,
        "upstream": 3,
        "from_parent": 2,
        "parent_dropped": 1,
    }
    # One cell per packet: the rounds are counted when they go up (the v1model program
    # counts them when the parent's RESULT comes down; section 8 TNA says so).
    assert model.job_counters(0) == {"packets": 5, "drops": 0, "retransmissions": 2, "rounds": 2}


def test_leaf_mismatch_round_goes_up_poisoned() -> None:
    """A round whose local packets disagreed goes up with fingerprint XOR 0xFFFFFFFF
    (section 5's poison), without MISMATCH (a DATA carries none). The parent's answer
    flagged MISMATCH is taken whatever its fingerprint; DIFFERENCE from the section's
    "its fingerprint is the round's, the round's poisoned, or it is flagged MISMATCH":
    one with the poisoned fingerprint and no MISMATCH is dropped (14), as section 8's TNA
    part and the README list (p4src/tna/uplink.p4:115-126)."""
    model = switch([LEAF])
    x = np.ones(B, np.int32)
    send(model, 0, data(0, 1, 5, NONE, x, blocks=200, fp=1))
    up = send(model, 1, data(1, 1, 5, NONE, x, blocks=200, fp=2))
    assert up == [(PARENT_PORT, upstream(1, 5, NONE, 2 * x, fp=2 ^ POISON))]
    assert from_parent(model, parent_result(1, 5, NONE, 4 * x, fingerprint=2 ^ POISON)) == []
    assert ev(model)["parent_dropped"] == 1
    down = from_parent(model, parent_result(1, 5, NONE, 4 * x, fingerprint=2 ^ POISON, flags=Flags.MISMATCH))
    assert down == to_both(1, 5, NONE, 4 * x, fingerprint=2 ^ POISON, flags=Flags.MISMATCH, blocks=200)


def test_a_parents_error_goes_to_every_local_worker_as_upstream() -> None:
    """ERROR UPSTREAM (8) with the parent's code as the detail, the leaf job's id and
    session, one copy per local worker; with another session it is event 10."""
    model = switch([LEAF])
    up = AggHeader(MsgType.ERROR, UP_JOB, UP_RANK, 1, 1, 5, ErrorCode.TENSOR, 3, session=UP_SESSION, blocks=8)
    out = from_parent(model, up.pack())
    down = [
        up._replace(job_id=1, worker_id=w.worker_id, session=SESSION, block=ErrorCode.UPSTREAM, next_block=5) for w in W
    ]
    assert out == [(w.port, answer(w, d.pack())) for w, d in zip(W, down, strict=True)]
    assert from_parent(model, up._replace(session=UP_SESSION + 1).pack()) == []
    assert ev(model) == {"from_parent": 1, "bad_session": 1}


def test_a_result_from_a_workers_address_is_an_unknown_senders() -> None:
    """Section 8: "A RESULT from an address without a parents entry is event 4 (or 7 from
    one of the job's workers)". DIFFERENCE: the TNA program applies only `parents` to a
    RESULT or ERROR (p4src/tna/admission.p4:172-176), so from a worker's address it is 4
    too, counted for no job (section 8's TNA part lists this)."""
    model = switch([LEAF])
    assert send(model, 0, result(0, 0, 0, NONE, np.ones(B, np.int32))) == []
    assert ev(model) == {"unknown_worker": 1} and sum(model.counters[tna_model.JOB_EVENTS]) == 0


# -- the same traffic through the v1model program's model ------------------------------------------
#
# The two programs speak the same protocol with different B (32 on BMv2, 64 on a Tofino).
# A DATA sequence of a job is sent to the TNA model with 64 values per packet and to two
# v1model models, one with the first 32 of them and one with the last 32: what the spec
# says is common must agree (section 8's TNA part: "Nothing else on the wire differs"):
# every answer's header but `count` (B or 0 on both), where it goes, and the int32 sums
# (the TNA's first 32 are the first v1model's, its last 32 the second's); the counters
# as section 8 relates them (one cell per packet on a Tofino).


class Differential:
    """One job of `n` workers and `num_slots` slots on both programs' models (a leaf job of
    parent job UP_JOB, rank UP_RANK, if `leaf`)."""

    def __init__(self, n: int, num_slots: int, leaf: bool = False) -> None:
        self.n, self.num_slots, self.leaf = n, num_slots, leaf
        self.workers = tuple(
            WorkerEntry(w, 1 + w, f"02:00:00:00:01:{w:02x}", f"10.0.1.{w + 1}", 41000 + w) for w in range(n)
        )
        job = JobConfig(1, 0, num_slots, self.workers, 2, session=SESSION, uplink=LEAF.uplink if leaf else None)
        self.tna = switch([job], SESSION, Config(CONFIG.switch, (job,), (), None))
        self.v1 = (SwitchModel(), SwitchModel())
        for model in self.v1:
            for w in self.workers:
                sender = {"ingress_port": w.port, "ethernet.src_addr": mac(w.mac), "ipv4.src_addr": ip(w.ip)}
                model.add_entry(
                    "workers",
                    {**sender, "udp.src_port": w.udp_port},
                    "set_worker",
                    dict(
                        job_id=1,
                        worker_id=w.worker_id,
                        num_workers=n,
                        mgid=2,
                        slot_base=0,
                        num_slots=num_slots,
                        session=SESSION,
                    ),
                )
                model.add_entry(
                    "result_dest",
                    {"hdr.agg.job_id": 1, "meta.dest_worker": w.worker_id},
                    "set_result_dest",
                    {"mac": mac(w.mac), "ip": ip(w.ip), "udp_port": w.udp_port},
                )
            model.add_multicast_group(2, [(w.port, w.worker_id) for w in self.workers])
            if leaf:
                up = dict(up_job=UP_JOB, up_rank=UP_RANK, up_session=UP_SESSION, port=PARENT_PORT)
                model.add_entry(
                    "uplinks",
                    {"meta.job_id": 1},
                    "set_uplink",
                    {**up, "mac": mac(PARENT.mac), "ip": ip(PARENT.ip), "udp_port": AGG_UDP_PORT},
                )
                model.add_entry(
                    "parents",
                    {
                        "ingress_port": PARENT_PORT,
                        "ethernet.src_addr": mac(PARENT.mac),
                        "ipv4.src_addr": ip(PARENT.ip),
                        "udp.src_port": AGG_UDP_PORT,
                        "agg.job_id": UP_JOB,
                        "agg.worker_id": UP_RANK,
                    },
                    "from_parent",
                    dict(
                        job_id=1,
                        num_workers=n,
                        mgid=2,
                        slot_base=0,
                        num_slots=num_slots,
                        session=SESSION,
                        up_session=UP_SESSION,
                    ),
                )
        self.sent = 0
        self.trailing = 0  # TNA copies with bytes behind their datagram (header-only scatter copies)
        self.zeros_up = 0  # leaf rounds without local values: zeros up (TNA), header-only (v1model)
        self.ups = 0  # leaf rounds that went up (the first time)
        self.taken = 0  # parents' RESULTs taken

    def send(
        self, worker: int, h: AggHeader, vals: np.ndarray | None, src: WorkerEntry | Addr | None = None
    ) -> list[tuple[int, AggHeader, np.ndarray | None]]:
        """Send one packet (`h`'s count set per program) to all three models from `worker`
        (or `src` on PARENT_PORT); check that they agree; return (port, header, 64 sums or
        None) of each frame that leaves."""
        port, sender = (self.workers[worker].port, self.workers[worker]) if src is None else (PARENT_PORT, src)
        self.sent += 1
        tna_out = self.tna.process(
            port, frame(sender, h._replace(count=0 if vals is None else B).pack() + values(vals))
        )
        halves = (None, None) if vals is None else (vals[:32], vals[32:])
        v1_outs = [
            m.process(port, frame(sender, h._replace(count=0 if half is None else 32).pack() + values(half)))
            for m, half in zip(self.v1, halves, strict=True)
        ]
        what = f"packet {self.sent}: {h}"
        assert [p for p, _ in tna_out] == [p for p, _ in v1_outs[0]] == [p for p, _ in v1_outs[1]], what
        decoded = []
        for (out_port, t), (_, a), (_, b) in zip(tna_out, *v1_outs, strict=True):
            assert t[:12] == a[:12] == b[:12] and t[26:38] == a[26:38] == b[26:38], f"{what}: addressing"
            assert ipv4_ok(t) and ipv4_ok(a), what
            ht, ha, hb = (AggHeader.unpack(datagram(raw)) for raw in (t, a, b))
            assert ha == hb, what
            assert ht._replace(count=0) == ha._replace(count=0), f"{what}:\n TNA {ht}\n v1  {ha}"
            sums = None if ht.count == 0 else np.frombuffer(datagram(t)[36:], ">i4").astype(np.int32)
            if out_port == PARENT_PORT and ha.count == 0 and ht.count == B:
                assert sums is not None and not sums.any(), what  # DIFFERENCE: zeros up, not header-only
                self.zeros_up += 1
            else:
                assert (ht.count == 0) == (ha.count == 0), f"{what}:\n TNA {ht}\n v1  {ha}"
            if ht.count and ha.count:
                assert (ht.count, ha.count) == (B, 32)
                v1_sums = np.concatenate([np.frombuffer(datagram(raw)[36:], ">i4") for raw in (a, b)])
                assert (sums == v1_sums).all(), what
            if len(t) > 34 + int.from_bytes(t[16:18], "big"):
                assert ht.flags & Flags.SCATTER and ht.count == 0, what
                self.trailing += 1
            decoded.append((out_port, ht, sums))
        return decoded

    def check_counters(self) -> None:
        """Section 8: the same event codes; a Tofino counts a completing DATA in cell 1 only
        (the v1model program in 0 and 1), a leaf's round going up in 12 only (v1model: 0 and
        12), a parent's RESULT taken in 13 only (v1model: 13 and 1), and each admitted packet
        in one job cell (the v1model program's `packets` is the sum of the four; its `rounds`
        counts a leaf's rounds when the parent's answer comes down, the TNA's when they go up)."""
        t, v = self.tna.events(), self.v1[0].events()
        assert v == self.v1[1].events()
        same = set(EVENT_NAMES) - {"data_counted", "result_multicast"}
        assert {k: t[k] for k in same} == {k: v[k] for k in same}
        assert v["data_counted"] == t["data_counted"] + t["result_multicast"] + self.ups
        assert v["result_multicast"] == t["result_multicast"] + self.taken
        tj, vj = self.tna.job_counters(0), self.v1[0].job_counters(0)
        assert vj == self.v1[1].job_counters(0)
        assert vj["packets"] == sum(tj.values())
        assert (vj["drops"], vj["retransmissions"]) == (tj["drops"], tj["retransmissions"])
        assert vj["rounds"] == tj["rounds"] - self.ups + self.taken


def mac(text: str) -> int:
    return int(text.replace(":", ""), 16)


def ip(text: str) -> int:
    return int.from_bytes(bytes(int(b) for b in text.split(".")), "big")


def ipv4_ok(raw: bytes) -> bool:
    return ipv4_checksum_verifies(raw[14:34])


@dataclasses.dataclass
class Allreduce:
    """One allreduce of the spec's workers (sections 3, 3.1 and 4, dense mode): random
    block-sparse int32 tensors, each worker's exponent per block, a reduce-scatter or not."""

    rng: random.Random
    epoch: int
    n: int
    num_slots: int

    def __post_init__(self) -> None:
        rng = self.rng
        self.scatter = rng.random() < 0.3
        self.shard = rng.randint(1, 3)
        self.blocks = self.n * self.shard if self.scatter else rng.randint(1, 3 * self.num_slots + 2)
        self.fp = (0x1000 + self.epoch * 7919) & 0xFFFFFFFF
        exps = (127,) if rng.random() < 0.5 else (125, 126, 127)
        self.held = [
            {b: (rng.choice(exps), self.values()) for b in range(self.blocks) if rng.random() < 0.45}
            for _ in range(self.n)
        ]

    def values(self) -> np.ndarray:
        if self.rng.random() < 0.2:  # sums that wrap at 32 bits
            return np.array([self.rng.randint(-(2**31), 2**31 - 1) for _ in range(B)], np.int32)
        return np.array([self.rng.randint(-999, 999) for _ in range(B)], np.int32)

    def owner_flags(self, block: int) -> int:
        return scatter_flags(0 if block == NONE else block // self.shard) if self.scatter else 0

    def after(self, w: int, slot: int, block: int) -> tuple[int, int]:
        """Worker w's next held block of the stream after `block` (-1: its first; NONE:
        none), and its exponent for it."""
        later = [b for b in self.held[w] if b % self.num_slots == slot and (block == -1 or b > block)]
        return (min(later), self.held[w][min(later)][0]) if later else (NONE, 127)

    def packets(self, slot: int, shadow: int, block: int | None, exp: int) -> dict[int, tuple[AggHeader, Any]]:
        """Every worker's DATA of a round: the opening round (`block` None) or the data round
        of `block` at the agreed `exp`."""
        out = {}
        for w in range(self.n):
            if block is None:
                own, own_exp = self.after(w, slot, -1)
                nxt, nxt_exp = self.after(w, slot, own) if own != NONE else (NONE, 127)
                flags = Flags.OPENING | self.owner_flags(own)
                v = self.held[w][own][1] if own != NONE else None
                if self.rng.random() < 0.05:  # a holder's header-only opening DATA (as a leaf sends): `h`
                    v = None
            else:
                own, own_exp = block, exp
                nxt, nxt_exp = self.after(w, slot, block)
                flags = self.owner_flags(block)
                v = self.held[w][block][1] if block in self.held[w] else None
            h = AggHeader(
                MsgType.DATA,
                1,
                w,
                slot,
                shadow,
                self.epoch,
                own,
                nxt,
                own_exp,
                nxt_exp,
                0,
                flags,
                session=SESSION,
                blocks=self.blocks,
                fingerprint=self.fp,
            )
            if self.rng.random() < 0.04:  # this worker disagrees: the round is MISMATCH
                h = h._replace(fingerprint=self.fp ^ 0x55)
            out[w] = (h, v)
        return out


@dataclasses.dataclass
class Round:
    """A round of one slot in progress: what each worker sends, who has."""

    slot: int
    packets: dict[int, tuple[AggHeader, Any]]
    sent: set[int] = dataclasses.field(default_factory=set)


def parents_answer(up: AggHeader, sums: np.ndarray | None, a: Allreduce) -> tuple[AggHeader, Any]:
    """What a parent (docs/protocol.md sections 3 and 6) answers the leaf's DATA `up` when
    its other members are one worker that holds, in the leaf's stream, at most one block
    the leaf's workers do not start with, and announces random later blocks: b* is the
    smaller first block, K2 the smallest announcement, the sums the leaf's plus the other's;
    MISMATCH if the leaf's fingerprint is not the allreduce's (a poisoned one is not)."""
    rng = a.rng
    slot = up.slot
    stream = [b for b in range(a.blocks) if b % a.num_slots == slot]
    mismatch = Flags.MISMATCH if up.fingerprint != a.fp else 0
    h = up._replace(msg_type=MsgType.RESULT, flags=up.flags & SCATTER_MASK | mismatch, count=0)
    other_values = a.values()

    def announced(after: int) -> int:  # the other worker's look-ahead: a later block of the stream, or NONE
        return lookahead_key(rng.choice([NONE, *[b for b in stream if b > after]]), rng.choice((125, 126, 127)))

    if up.flags & Flags.OPENING:
        other = rng.choice([NONE, NONE, *[b for b in stream if b != up.block]])
        if up.block == NONE and other == NONE:  # an empty stream
            return h._replace(next_block=NONE), None
        if other == NONE or up.block < other:  # the leaf's b* is the job's
            if sums is None:  # the leaf's holders disagreed: a REPEAT
                return h._replace(next_block=up.block, next_exp=up.exp), None
            k2 = min(lookahead_key(up.next_block, up.next_exp), lookahead_key(other, 126))
            return h._replace(next_block=k2 >> 8, next_exp=255 - (k2 & 0xFF)), sums
        # the other worker's block is smaller: the data round of it, the leaf's b* announced
        k2 = min(lookahead_key(up.block, up.exp), announced(other))
        h = h._replace(block=other, exp=126, next_block=k2 >> 8, next_exp=255 - (k2 & 0xFF))
        return h._replace(flags=a.owner_flags(other) | mismatch), other_values
    k2 = min(lookahead_key(up.next_block, up.next_exp), announced(up.block))
    total = int32_sum(sums if sums is not None else np.zeros(B, np.int32), other_values)
    return h._replace(next_block=k2 >> 8, next_exp=255 - (k2 & 0xFF)), total


def run_differential(seed: int, allreduces: int = 3, leaf: bool = False) -> Differential:
    """The spec's workers through a few allreduces, with retransmissions (into open and
    complete rounds), stale ones, disagreeing fingerprints and rejected packets on the way;
    a leaf job's rounds answered by a parent, with late copies of its RESULTs. Both
    programs' models see every packet."""
    rng = random.Random(seed)
    n, num_slots = rng.randint(2, 4), rng.randint(1, 3)
    diff = Differential(n, num_slots, leaf)
    shadows = [0] * num_slots
    for epoch in range(allreduces):
        a = Allreduce(rng, epoch, n, num_slots)
        rounds = [Round(s, a.packets(s, shadows[s], None, 127)) for s in range(min(num_slots, a.blocks))]
        while rounds:
            r = rng.choice(rounds)
            w = rng.choice([w for w in range(n) if w not in r.sent])
            h, v = r.packets[w]
            if rng.random() < 0.04:  # a rejected packet first: each program drops and counts it
                bad = [
                    h._replace(session=SESSION ^ 1),
                    h._replace(worker_id=(w + 1) % n),
                    h._replace(slot=num_slots),
                    h._replace(version=2),
                    h._replace(block=a.blocks),
                ]
                assert diff.send(w, rng.choice(bad), v) == []
            out = diff.send(w, h, v)
            r.sent.add(w)
            if rng.random() < 0.1 and len(r.sent) < n:  # a retransmission into the open round
                assert diff.send(w, h, v) == []
            if len(r.sent) < n:
                assert out == []
                continue
            if leaf:  # the round goes up as one DATA of the parent job; the parent answers
                [(port, up, sums)] = out
                assert port == PARENT_PORT and (up.job_id, up.worker_id) == (UP_JOB, UP_RANK)
                diff.ups += 1
                if rng.random() < 0.3:  # a local retransmission while the parent has not answered
                    x = rng.randrange(n)
                    again = diff.send(x, *r.packets[x])  # (none if x's fingerprint is not the round's)
                    assert again == [] or [(p, h._replace(fingerprint=0)) for p, h, _ in again] == [
                        (port, up._replace(fingerprint=0))
                    ]
                answer, vals = parents_answer(up, sums, a)
                if rng.random() < 0.2 and not answer.flags & Flags.MISMATCH:  # another allreduce's: dropped (14)
                    assert diff.send(0, answer._replace(fingerprint=answer.fingerprint ^ 1), vals, PARENT) == []
                out = diff.send(0, answer, vals, PARENT)
                diff.taken += 1
                if rng.random() < 0.3:  # a late copy of it: dropped (14)
                    assert diff.send(0, answer, vals, PARENT) == []
            assert [port for port, _, _ in out] == [x.port for x in diff.workers]  # the RESULT to all
            for _ in range(rng.choice([0, 0, 1, 2])):  # retransmissions into the complete round
                x = rng.randrange(n)
                hx, vx = r.packets[x]
                if rng.random() < 0.25:
                    assert diff.send(x, hx._replace(fingerprint=hx.fingerprint ^ 0xF00D), vx) == []  # stale
                else:
                    again = diff.send(x, hx, vx if rng.random() < 0.7 else None)
                    assert [port for port, _, _ in again] in ([], [diff.workers[x].port])
            rounds.remove(r)
            shadows[r.slot] ^= 1
            res = out[0][1]
            if res.block == res.next_block != NONE:  # a REPEAT: the data round of b* at e*
                rounds.append(Round(r.slot, a.packets(r.slot, shadows[r.slot], res.block, res.exp)))
            elif res.next_block != NONE:
                rounds.append(Round(r.slot, a.packets(r.slot, shadows[r.slot], res.next_block, res.next_exp)))
    diff.check_counters()
    return diff


@pytest.mark.parametrize("seed", range(10))
def test_both_programs_answer_the_same_traffic_alike(seed: int) -> None:
    diff = run_differential(seed)
    assert diff.sent > 0


@pytest.mark.parametrize("seed", range(6))
def test_both_programs_leaf_jobs_answer_alike(seed: int) -> None:
    diff = run_differential(seed, leaf=True)
    assert diff.ups > 0


def test_leaf_round_without_local_values_goes_up_with_zeros() -> None:
    """Section "Hierarchical aggregation" (a switch as the leaf): the partial sums go up
    "header-only when no local worker carried values". DIFFERENCE (section 8's TNA part
    lists it; p4src/tna/values.p4:200-219, zero_values): the TNA program's round goes up
    with 64 zeros (the parent's sum is the same)."""
    model = switch([LEAF])
    send(model, 0, data(0, 1, 7, NONE, blocks=200))
    up = send(model, 1, data(1, 1, 7, NONE, blocks=200))
    assert up == [(PARENT_PORT, upstream(1, 7, NONE, np.zeros(B, np.int32)))]


def test_a_header_only_parent_answer_leaves_the_partial_sums_for_the_resends() -> None:
    """Section "Hierarchical aggregation": a local retransmission "gets the stored parent
    RESULT" once the parent answered. DIFFERENCE (p4src/tna/values.p4:60, VALUE_OP_ENTRIES'
    parent row matches count == B only; README "Differences"): a header-only answer to a data
    round (a parent's reduce-scatter copy for a non-owner) goes down header-only, but the
    re-send then carries the leaf's own partial sums, 64 values. (The v1model program
    re-sends 32 zeros there: `held` cleared, p4src/values.p4:83-89.) Either way the block's owner,
    worker 0 here, would take values that are not the job's sum from a re-send."""
    model = switch([LEAF])
    x = np.arange(B, dtype=np.int32)
    flags = scatter_flags(0)
    send(model, 0, data(0, 1, 7, NONE, x, blocks=200, flags=flags))
    send(model, 1, data(1, 1, 7, NONE, x, blocks=200, flags=flags))
    down = from_parent(model, parent_result(1, 7, NONE, None, flags=flags))
    assert down == to_both(1, 7, NONE, None, flags=flags, blocks=200)
    again = send(model, 0, data(0, 1, 7, NONE, x, blocks=200, flags=flags))
    assert again == [(W[0].port, answer(W[0], result(0, 1, 7, NONE, 2 * x, flags=flags, blocks=200)))]


def test_bytes_behind_the_datagram_pass_through_the_harvest_pass() -> None:
    """Section 8: the switch does not check that the frame ends where the IPv4 datagram
    does; an answer built from such a packet carries the bytes after its values (as on
    BMv2: both passes keep them as payload)."""
    model = switch()
    x = np.arange(B, dtype=np.int32)
    send(model, 0, data(0, 0, 0, NONE, x, flags=Flags.OPENING))
    out = model.process(W[1].port, frame(W[1], data(1, 0, 0, NONE, x, flags=Flags.OPENING)) + b"TAIL")
    assert out == [(p, f + b"TAIL") for p, f in to_both(0, 0, NONE, 2 * x)]


def test_a_leafs_resend_of_an_opening_round_drops_owner_bits_without_scatter() -> None:
    """Section 8: "a leaf keeps a parent's RESULT's bits 3..7 as they came, SCATTER or not".
    The multicast does; DIFFERENCE: a re-send of the leaf's opening round after the parent
    answered takes its flags from first_flags, which holds only what agreement.p4's scatter
    table makes of the answer's flags (p4src/tna/agreement.p4:86-97: owner bits without
    SCATTER become 0); the v1model program's first_key keeps flags & 0xFC (p4src/opening.p4:74).
    Workers ignore owner bits without SCATTER, so nothing they do changes."""
    model = switch([LEAF])
    x = np.arange(B, dtype=np.int32)
    send(model, 0, data(0, 0, 0, NONE, x, flags=Flags.OPENING, blocks=200))
    send(model, 1, data(1, 0, 0, NONE, x, flags=Flags.OPENING, blocks=200))
    down = from_parent(model, parent_result(0, 0, NONE, x + 1, flags=3 << 3))
    assert down == to_both(0, 0, NONE, x + 1, flags=3 << 3, blocks=200)
    again = send(model, 0, data(0, 0, 0, NONE, x, flags=Flags.OPENING, blocks=200))
    assert again == [(W[0].port, answer(W[0], result(0, 0, 0, NONE, x + 1, flags=0, blocks=200)))]


def test_install_bfrt_takes_ports_and_deletes_a_released_job() -> None:
    """`$PORT` entries change nothing the model holds; deleting the job's entries (as a
    release does) makes its workers unknown and its group empty."""
    model = switch()
    ports = [(p.port, p) for p in CONFIG.switch.ports]
    install_bfrt(model, SCHEMA, tna.port_entries(SCHEMA, ports))
    install_bfrt(model, SCHEMA, tna.job_entries(SCHEMA, JOB, session=SESSION), delete=True)
    assert model.multicast_copies(JOB.mgid) == []
    assert send(model, 0, data(0, 0, 0, NONE, np.ones(B, np.int32), flags=Flags.OPENING)) == []
    assert ev(model) == {"unknown_worker": 1}


# -- STF tests as p4testgen's Tofino backend writes them, replayed on the model ---------------------

_TNA_STF = """# p4testgen seed: 1
# Current statement coverage: 0.10
# Table Ingress.forwarding.l2
add Ingress.forwarding.l2 hdr.ethernet.dst_addr:0x020000000002 Ingress.forwarding.to_port(port:0x3)
packet 1 {frame}
expect 3 {frame}$
"""


def test_an_stf_test_in_p4testgens_tofino_form_replays_on_the_model() -> None:
    """Names as p4testgen writes them (no pipe prefix, hexadecimal values) resolve; a frame
    that is no aggregation packet leaves by the L2 entry, unchanged; a wrong port is told."""
    frame = bytes(Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") / IP() / UDP(sport=4, dport=5) / b"x").hex()
    outcome = replay(parse_stf(_TNA_STF.format(frame=frame), "l2.stf"), TnaSwitchModel)
    assert outcome.passed, outcome.report()
    wrong = replay(parse_stf(_TNA_STF.format(frame=frame).replace("expect 3", "expect 4"), "l2.stf"), TnaSwitchModel)
    assert wrong.differences == (
        "port 3: expected no packet, got 1",
        "port 4: expected 1 packet(s) (expect on line 6), got none: dropped",
    )


def test_what_only_the_v1model_model_takes_is_refused_for_the_tna_model_naming_it() -> None:
    text = "setdefault Ingress.forwarding.l2 Ingress.forwarding.drop()\npacket 1 00\n"
    with pytest.raises(ReplayError, match="line 1: setdefault: a default action for Ingress.forwarding.l2"):
        replay(parse_stf(text, "d.stf"), TnaSwitchModel)
