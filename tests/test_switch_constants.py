"""The Python copies of the switch program's constants equal p4src/headers.p4."""
from __future__ import annotations

import pathlib
import re

from p4reduce.protocol import AGG_UDP_PORT, HEADER_LEN, PROTOCOL_VERSION, MsgType
from p4reduce.protocol import switch

HEADERS = pathlib.Path(__file__).resolve().parents[1] / "p4src" / "headers.p4"


def _p4_constants() -> dict[str, int]:
    text = HEADERS.read_text()
    found = {m[1]: int(m[2], 0) for m in re.finditer(r"const bit<\d+>\s+(\w+)\s*=\s*(\w+);", text)}
    found.update({m[1]: int(m[2], 0) for m in re.finditer(r"#define (\w+) (\w+)", text) if m[2][0].isdigit()})
    return found


def test_switch_constants_match_headers_p4():
    p4 = _p4_constants()
    assert p4["NUM_SLOTS"] == switch.SWITCH_SLOTS
    assert p4["REGISTER_SIZE"] == 2 * switch.SWITCH_SLOTS
    assert p4["VALUES_PER_PACKET"] == switch.SWITCH_VALUES_PER_PACKET
    assert p4["MAX_WORKERS"] == switch.SWITCH_MAX_WORKERS
    assert p4["NUM_EVENTS"] == switch.NUM_EVENTS
    assert p4["AGG_UDP_PORT"] == AGG_UDP_PORT
    assert p4["PROTOCOL_VERSION"] == PROTOCOL_VERSION
    assert p4["AGG_HDR_LEN"] == HEADER_LEN
    assert p4["MSG_DATA"] == MsgType.DATA and p4["MSG_RESULT"] == MsgType.RESULT
    events = {name: value for name, value in p4.items() if name.startswith("EV_")}
    assert events == {f"EV_{name.upper()}": i for i, name in enumerate(switch.EVENT_NAMES)}
