# SPDX-License-Identifier: Apache-2.0
"""The Python copies of the switch program's constants equal p4src/types.p4."""

from __future__ import annotations

import pathlib
import re

from conftest import codec_header_fields, p4_header_fields

from p4reduce.protocol import (
    AGG_UDP_PORT,
    HEADER_LEN,
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

P4SRC = pathlib.Path(__file__).resolve().parents[1] / "p4src"
TYPES, HEADERS = P4SRC / "types.p4", P4SRC / "headers.p4"


def _p4_constants() -> dict[str, int]:
    text = TYPES.read_text()
    found = {m[1]: int(m[2], 0) for m in re.finditer(r"const bit<\d+>\s+(\w+)\s*=\s*(\w+);", text)}
    found.update({m[1]: int(m[2], 0) for m in re.finditer(r"#define (\w+) (\w+)", text) if m[2][0].isdigit()})
    return found


def test_switch_constants_match_types_p4():
    p4 = _p4_constants()
    assert p4["NUM_SLOTS"] == switch.SWITCH_SLOTS
    assert p4["REGISTER_SIZE"] == 2 * switch.SWITCH_SLOTS
    assert p4["VALUES_PER_PACKET"] == switch.SWITCH_VALUES_PER_PACKET
    assert p4["MAX_WORKERS"] == switch.SWITCH_MAX_WORKERS
    assert p4["NUM_EVENTS"] == switch.NUM_EVENTS
    job_events = sorted((v, k) for k, v in p4.items() if k.startswith("JOB_EV_"))
    assert [k.removeprefix("JOB_EV_").lower() for _, k in job_events] == list(switch.JOB_EVENT_NAMES)
    assert [v for v, _ in job_events] == list(range(switch.NUM_JOB_EVENTS)) and p4["NUM_JOB_EVENTS"] == 4
    assert 1 << p4["JOB_EVENT_BITS"] == p4["NUM_JOB_EVENTS"]
    assert p4["JOB_EVENTS_SIZE"] == switch.SWITCH_SLOTS * switch.NUM_JOB_EVENTS
    assert p4["AGG_UDP_PORT"] == AGG_UDP_PORT
    assert p4["CPU_PORT"] == switch.SWITCH_CPU_PORT > switch.SWITCH_MAX_PORT
    assert p4["PROTOCOL_VERSION"] == PROTOCOL_VERSION
    assert p4["AGG_HDR_LEN"] == HEADER_LEN
    assert p4["MSG_DATA"] == MsgType.DATA and p4["MSG_RESULT"] == MsgType.RESULT
    assert p4["MSG_JOIN"] == MsgType.JOIN and p4["MSG_JOINED"] == MsgType.JOINED
    assert p4["MSG_ERROR"] == MsgType.ERROR and p4["ERROR_UPSTREAM"] == ErrorCode.UPSTREAM
    assert p4["FLAG_MISMATCH"] == Flags.MISMATCH
    assert p4["FLAG_SCATTER"] == Flags.SCATTER
    assert p4["FLAG_OPENING"] == Flags.OPENING
    assert p4["OPENING_MASK"] == Flags.OPENING | Flags.SCATTER
    assert p4["SCATTER_MASK"] == SCATTER_MASK and p4["OWNER_SHIFT"] == OWNER_SHIFT
    assert p4["MODE_DENSE"] == Mode.DENSE.code
    assert p4["POISON"] == POISON
    # Every other constant of types.p4 is compared above, or is the P4 side's own.
    assert set(p4) - {
        "ETHERTYPE_IPV4",
        "IPPROTO_UDP",
        "BLOCK_NONE",
        "SLOT_BITS",
        "IPV4_HDR_LEN",
        "UDP_HDR_LEN",
        "AGG_VALUES_LEN",
    } == {
        "CPU_PORT",
        "NUM_SLOTS",
        "REGISTER_SIZE",
        "VALUES_PER_PACKET",
        "MAX_WORKERS",
        "NUM_EVENTS",
        "NUM_JOB_EVENTS",
        "JOB_EVENT_BITS",
        "JOB_EVENTS_SIZE",
        "AGG_UDP_PORT",
        "PROTOCOL_VERSION",
        "AGG_HDR_LEN",
        "MSG_DATA",
        "MSG_RESULT",
        "MSG_JOIN",
        "MSG_JOINED",
        "MSG_ERROR",
        "ERROR_UPSTREAM",
        "FLAG_MISMATCH",
        "FLAG_SCATTER",
        "FLAG_OPENING",
        "OPENING_MASK",
        "SCATTER_MASK",
        "OWNER_SHIFT",
        "MODE_DENSE",
        "POISON",
    } | {n for n in p4 if n.startswith(("EV_", "JOB_EV_"))}
    assert p4["BLOCK_NONE"] == NONE
    assert p4["AGG_VALUES_LEN"] == 4 * switch.SWITCH_VALUES_PER_PACKET
    events = {name: value for name, value in p4.items() if name.startswith("EV_")}
    assert events == {f"EV_{name.upper()}": i for i, name in enumerate(switch.EVENT_NAMES)}


def test_agg_header_layout_matches_the_codec():
    """agg_h has the codec's fields, in order, with the codec's sizes (pool = shadow ++ slot)."""
    assert p4_header_fields(HEADERS.read_text(), "agg_h") == codec_header_fields()
