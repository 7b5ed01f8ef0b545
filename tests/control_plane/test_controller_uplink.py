# SPDX-License-Identifier: Apache-2.0
"""A leaf job's uplink in the controller's configuration, and the entries it becomes on the
v1model program's P4Info (docs/protocol.md section 8: `uplinks`, `parents`)."""

from __future__ import annotations

import copy
import pathlib

import pytest
import yaml

from p4reduce.controller.config import ConfigError, UplinkConfig, load_config
from p4reduce.controller.encoding import ip_to_int, mac_to_int
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import (
    FROM_PARENT_PARAMS,
    PARENT_KEYS,
    SET_UPLINK_PARAMS,
    check_contract,
    install_entities,
    worker_entities,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "controller" / "examples"
P4INFO = P4Info.load(ROOT / "p4src" / "build" / "p4reduce.p4info.txtpb")


def test_the_shipped_tree_examples_are_valid():
    leaf, spine = load_config(EXAMPLES / "leaf0.yaml"), load_config(EXAMPLES / "spine.yaml")
    assert leaf.jobs[0].uplink == UplinkConfig(9, 0, 9009, 3, "02:00:00:00:01:fe", "10.0.1.254", 48864)
    assert spine.jobs[0].job_id == leaf.jobs[0].uplink.parent_job
    assert spine.jobs[0].session == leaf.jobs[0].uplink.session
    assert spine.jobs[0].slots == leaf.jobs[0].slots  # the same pool on both levels


def _params(entity) -> list[int]:
    return [int.from_bytes(p.value, "big") for p in entity.table_entry.action.action.params]


def _keys(entity) -> list[int]:
    return [int.from_bytes(m.exact.value, "big") for m in entity.table_entry.match]


def test_a_leaf_job_installs_its_uplink_and_its_parents_entry():
    check_contract(P4INFO)  # the program has both tables, as the controller builds them
    cfg = load_config(EXAMPLES / "leaf0.yaml")
    job = cfg.jobs[0]
    entities = {e.label.split(" entry")[0]: e.entity for e in install_entities(P4INFO, cfg)}
    uplink = entities["P4ReduceIngress.uplink.uplinks"]
    assert _keys(uplink) == [1]
    expected = dict(
        zip(
            SET_UPLINK_PARAMS,
            [9, 0, 9009, 3, mac_to_int("02:00:00:00:01:fe"), ip_to_int("10.0.1.254"), 48864],
            strict=True,
        )
    )
    assert _params(uplink) == list(expected.values())
    parents = entities["P4ReduceIngress.admission.parents"]
    assert dict(zip(PARENT_KEYS, _keys(parents), strict=True)) == {
        "standard_metadata.ingress_port": 3,
        "hdr.ethernet.src_addr": mac_to_int("02:00:00:00:01:fe"),
        "hdr.ipv4.src_addr": ip_to_int("10.0.1.254"),
        "hdr.udp.src_port": 48864,
        "hdr.agg.job_id": 9,
        "hdr.agg.worker_id": 0,
    }
    assert dict(zip(FROM_PARENT_PARAMS, _params(parents), strict=True)) == {
        "job_id": 1,
        "num_workers": 2,
        "mgid": 2,
        "slot_base": 0,
        "num_slots": 64,
        "session": 1001,
        "up_session": 9009,
    }
    # A job reset's new session reaches the parents entry too (it is the leaf's workers').
    (renewed,) = [e for e in worker_entities(P4INFO, job, 4242) if "parents" in e.label]
    assert dict(zip(FROM_PARENT_PARAMS, _params(renewed.entity), strict=True))["session"] == 4242


def test_a_job_without_uplink_installs_neither_table():
    cfg = load_config(ROOT / "controller" / "example_config.yaml")
    labels = [e.label for e in install_entities(P4INFO, cfg, sessions={1: 5})]
    assert not [label for label in labels if "uplinks" in label or "parents" in label]


def _raw_leaf() -> dict:
    return yaml.safe_load((EXAMPLES / "leaf0.yaml").read_text())


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda u: u.update(rank=32), r"job 1\.uplink\.rank: 32 .*0\.\.31"),
        (lambda u: u.update(session=0), r"job 1\.uplink\.session: 0 .*1\.\."),
        (lambda u: u.pop("port"), r"job 1\.uplink.*port"),
        (lambda u: u.update(mac="ff:ff:ff:ff:ff:ff"), r"job 1\.uplink\.mac: .*multicast/broadcast"),
        (lambda u: u.update(ip="10.0.1"), r"job 1\.uplink\.ip: .*not an IPv4 address"),
        (lambda u: u.update(parent="9"), r"job 1\.uplink.*parent"),
    ],
    ids=["rank", "session", "no port", "broadcast mac", "bad ip", "unknown key"],
)
def test_a_bad_uplink_is_refused_naming_the_field(change, message):
    raw = copy.deepcopy(_raw_leaf())
    change(raw["jobs"][0]["uplink"])
    with pytest.raises(ConfigError, match=message):
        load_config(raw)
