# SPDX-License-Identifier: Apache-2.0
"""`make -C p4src` reproduces the committed p4src/build/ byte for byte, and the
outputs carry nothing that depends on where or when they were built."""

from __future__ import annotations

import json

from bmv2_tests.harness import P4SRC
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import check_contract

NEEDS_SWITCH = False  # only p4c


def test_build_outputs_are_committed_and_current(pipeline):
    for fresh in (pipeline.bmv2_json, pipeline.p4info):
        committed = P4SRC / "build" / fresh.name
        assert committed.exists(), f"p4src/build/{fresh.name} is missing: run make -C p4src"
        assert fresh.read_bytes() == committed.read_bytes(), (
            f"p4src/build/{fresh.name} is stale: run make -C p4src and commit it"
        )


def test_bmv2_json_names_sources_relatively(pipeline):
    data = json.loads(pipeline.bmv2_json.read_text())
    files = {s["filename"] for s in _source_infos(data)}
    assert files, "no source_info in the BMv2 JSON"
    assert all(not f.startswith("/") for f in files), sorted(files)
    assert str(pipeline.bmv2_json.parent.parent) not in pipeline.bmv2_json.read_text()


def test_p4info_has_the_control_plane_contract(pipeline):
    text = pipeline.p4info.read_text()
    for name in (
        "P4ReduceIngress.admission.workers",
        "P4ReduceIngress.admission.set_worker",
        "P4ReduceIngress.forwarding.l2",
        "P4ReduceIngress.forwarding.to_port",
        "P4ReduceIngress.forwarding.flood",
        "P4ReduceEgress.result_dest",
        "P4ReduceEgress.set_result_dest",
        "P4ReduceIngress.events",
    ):
        assert f'name: "{name}"' in text, name
    check_contract(P4Info.load(pipeline.p4info))  # keys and parameters (session too), counter size
    registers = {r["name"]: r["size"] for r in json.loads(pipeline.bmv2_json.read_text())["register_arrays"]}
    expected = {
        "P4ReduceIngress.seen_bitmap.seen",
        "P4ReduceIngress.countdown.remaining",
        "P4ReduceIngress.lookahead.min_key",
        "P4ReduceIngress.agreement.fingerprint",
        "P4ReduceIngress.agreement.mismatch",
        "P4ReduceIngress.values.held",
        "P4ReduceIngress.opening.first_key",
        "P4ReduceIngress.opening.repeat",
        "P4ReduceIngress.uplink.awaiting",
        "P4ReduceIngress.uplink.sent_round",
        "P4ReduceIngress.uplink.sent_fingerprint",
        "P4ReduceIngress.uplink.parent_mismatch",
    } | {f"P4ReduceIngress.values.value_{i:02d}" for i in range(32)}
    assert set(registers) == expected
    assert set(registers.values()) == {2 * 1024}


def _source_infos(node):
    if isinstance(node, dict):
        if isinstance(node.get("source_info"), dict) and "filename" in node["source_info"]:
            yield node["source_info"]
        for v in node.values():
            yield from _source_infos(v)
    elif isinstance(node, list):
        for v in node:
            yield from _source_infos(v)
