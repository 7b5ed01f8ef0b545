# SPDX-License-Identifier: Apache-2.0
"""controller.p4info name resolution, the contract check and canonical value encoding."""

from __future__ import annotations

import pathlib

import pytest

from p4reduce.controller.encoding import decode_value, encode_value, ip_to_int, mac_to_int
from p4reduce.controller.p4info import FieldInfo, P4Info, P4InfoError
from p4reduce.controller.pipeline import NAMES, PipelineNames, check_contract

HERE = pathlib.Path(__file__).resolve().parent
SMALL = HERE / "p4info_small.txtpb"
BUILT = HERE.parents[1] / "p4src" / "build" / "p4reduce.p4info.txtpb"


@pytest.fixture(scope="module")
def info() -> P4Info:
    return P4Info.load(SMALL)


def test_names_resolve_to_ids(info):
    assert info.table("P4ReduceIngress.admission.workers").id == 101
    assert info.table("P4ReduceEgress.result_dest").id == 103
    assert info.action("P4ReduceIngress.admission.set_worker").id == 201
    assert info.match_field("P4ReduceIngress.admission.workers", "hdr.ipv4.src_addr") == FieldInfo(
        3, "hdr.ipv4.src_addr", 32, "EXACT"
    )
    assert info.param("P4ReduceEgress.set_result_dest", "udp_port") == FieldInfo(3, "udp_port", 16)
    assert info.counter_id("P4ReduceIngress.events") == 301
    assert info.counter("P4ReduceIngress.events").size == 16
    assert info.name_of(204) == "P4ReduceIngress.forwarding.flood" and info.name_of(999) == "999"


def test_unique_dotted_suffix_resolves_ambiguous_one_does_not(info):
    assert info.table("admission.workers").id == 101
    assert info.table("l2").id == 102
    assert info.action("forwarding.drop").id == 205
    with pytest.raises(
        P4InfoError,
        match=r"action 'drop' is ambiguous in P4Info \(could be: "
        r"P4ReduceEgress.drop, P4ReduceIngress.forwarding.drop\)",
    ):
        info.action("drop")
    with pytest.raises(P4InfoError, match="table 'orkers' not in P4Info"):
        info.table("orkers")  # a suffix must start at a dot


def test_missing_names_list_what_exists(info):
    with pytest.raises(
        P4InfoError,
        match=r"^table 'Ingress.admission.workers' not in P4Info \(have: "
        r"P4ReduceEgress.result_dest, P4ReduceIngress.admission.workers, "
        r"P4ReduceIngress.forwarding.l2, P4ReduceIngress.routes\)$",
    ):
        info.table("Ingress.admission.workers")
    with pytest.raises(
        P4InfoError,
        match=r"counter 'Ingress.events' not in P4Info \(have: P4ReduceIngress.events, P4ReduceIngress.job_events\)",
    ):
        info.counter_id("Ingress.events")
    with pytest.raises(
        P4InfoError,
        match=r"table 'P4ReduceIngress.forwarding.l2' has no match field "
        r"'hdr.ethernet.src_addr' in P4Info \(have: hdr.ethernet.dst_addr\)",
    ):
        info.match_field("P4ReduceIngress.forwarding.l2", "hdr.ethernet.src_addr")
    with pytest.raises(
        P4InfoError,
        match=r"action 'P4ReduceIngress.forwarding.flood' has no parameter "
        r"'port' in P4Info \(have: mgid\)",
    ):
        info.param("P4ReduceIngress.forwarding.flood", "port")
    with pytest.raises(
        P4InfoError,
        match=r"action 'P4ReduceEgress.set_result_dest' is not an action of "
        r"table 'P4ReduceIngress.forwarding.l2' \(have: ",
    ):
        info.check_table_action("P4ReduceIngress.forwarding.l2", "P4ReduceEgress.set_result_dest")


def test_unreadable_or_malformed_p4info(tmp_path):
    with pytest.raises(P4InfoError, match="cannot read P4Info .*nothing.txtpb"):
        P4Info.load(tmp_path / "nothing.txtpb")
    (tmp_path / "bad.txtpb").write_text("tables { preamble { id: 1 ")
    with pytest.raises(P4InfoError, match="bad.txtpb is not a P4Info text protobuf"):
        P4Info.load(tmp_path / "bad.txtpb")
    (tmp_path / "wrong.txtpb").write_text('switch { grpc_addr: "x" }')
    with pytest.raises(P4InfoError, match="wrong.txtpb is not a P4Info text protobuf"):
        P4Info.load(tmp_path / "wrong.txtpb")
    (tmp_path / "empty.txtpb").write_text("")
    with pytest.raises(P4InfoError, match="empty.txtpb is not a P4Info of a program"):
        P4Info.load(tmp_path / "empty.txtpb")


def test_contract_holds_for_the_fixture(info):
    check_contract(info)


def test_contract_violations_are_listed_together():
    text = SMALL.read_text()
    text = text.replace('"P4ReduceEgress.result_dest"', '"P4ReduceEgress.dest"')  # renamed table
    text = text.replace('name: "num_slots"', 'name: "slots"')  # renamed param
    text = text.replace(
        'name: "hdr.ethernet.dst_addr"\n    bitwidth: 48\n    match_type: EXACT',
        'name: "hdr.ethernet.dst_addr"\n    bitwidth: 48\n    match_type: TERNARY',
    )
    text = text.replace("size: 16\n}", "size: 4\n}")  # too few counter cells
    text = text.replace("size: 4096\n}", "size: 1024\n}")  # one cell per slot, not four
    with pytest.raises(P4InfoError) as err:
        check_contract(P4Info.parse(text))
    message = str(err.value)
    assert message.startswith("P4Info does not match the controller's contract")
    assert "table 'P4ReduceEgress.result_dest' not in P4Info" in message
    assert "match field 'hdr.ethernet.dst_addr' is TERNARY, not EXACT" in message
    assert (
        "parameters of action 'P4ReduceIngress.admission.set_worker': P4Info lacks ['num_slots']; "
        "the controller does not set ['slots']"
    ) in message
    assert "counter 'P4ReduceIngress.events' must count PACKETS in at least 15 cells (has 4 cells" in message
    assert "counter 'P4ReduceIngress.job_events' must count PACKETS in at least 4096 cells (4 per slot; has 1024" in (
        message
    )


def test_contract_with_other_names():
    renamed = SMALL.read_text().replace("P4ReduceIngress.", "Ingress.").replace("P4ReduceEgress.", "Egress.")
    info = P4Info.parse(renamed)
    with pytest.raises(P4InfoError, match="not in P4Info"):
        check_contract(info)
    names = PipelineNames(**{k: v.replace("P4Reduce", "") for k, v in vars(NAMES).items()})
    check_contract(info, names)


@pytest.mark.skipif(not BUILT.exists(), reason="p4src/build/p4reduce.p4info.txtpb not built")
def test_built_p4info_has_every_name_the_controller_uses():
    info = P4Info.load(BUILT)
    check_contract(info)
    assert [f.bitwidth for f in sorted(info.table(NAMES.workers_table).match.values(), key=lambda f: f.id)] == [
        9,
        48,
        32,
        16,
    ]
    assert info.counter(NAMES.events_counter).size == 16


@pytest.mark.parametrize(
    "value, width, expected",
    [
        (0, 9, b"\x00"),  # zero is one zero byte
        (1, 9, b"\x01"),
        (255, 9, b"\xff"),
        (256, 9, b"\x01\x00"),
        (511, 9, b"\x01\xff"),
        (5, 16, b"\x05"),  # no leading zero bytes, whatever the width
        (40000, 16, b"\x9c\x40"),
        (0x0A000001, 32, b"\x0a\x00\x00\x01"),
        (0x000000000001, 48, b"\x01"),
        (0x020000000001, 48, b"\x02\x00\x00\x00\x00\x01"),
        (2**40 - 1, 40, b"\xff" * 5),
    ],
)
def test_canonical_encoding(value, width, expected):
    assert encode_value(value, width) == expected
    assert decode_value(expected) == value
    assert decode_value(b"\x00\x00" + expected) == value  # padded strings decode alike


@pytest.mark.parametrize("value, width", [(512, 9), (-1, 16), (1 << 48, 48), (True, 8), ("1", 8)])
def test_values_that_do_not_fit_are_refused(value, width):
    with pytest.raises(ValueError, match="mgid"):
        encode_value(value, width, "mgid")


def test_address_helpers():
    assert mac_to_int("02:00:00:00:00:0a") == 0x02000000000A
    assert ip_to_int("10.0.0.254") == 0x0A0000FE
