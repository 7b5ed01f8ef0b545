# SPDX-License-Identifier: Apache-2.0
"""The BF Runtime schema and the TNA program's entries, against the compiler's bfrt.json
(p4src/tna/build): every name and width the controller writes is the program's, and
anything else is refused by name before a request is made."""

from __future__ import annotations

import copy
import json
import pathlib

import pytest
import yaml

from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.schema import Schema, SchemaError
from p4reduce.controller.config import load_config
from p4reduce.protocol.switch import TNA_SLOTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
BFRT = json.loads((ROOT / "p4src/tna/build/bfrt.json").read_text())
FIXED = json.loads((ROOT / "controller/bfrt/fixed_tofino.json").read_text())
CONFIG = load_config(ROOT / "controller/examples/tofino.yaml")


def _schema(program: dict | None = None) -> Schema:
    return Schema([program or BFRT, FIXED], "p4reduce_tna")


def test_the_programs_bfrt_json_has_everything_the_controller_writes():
    tna.check_contract(_schema())


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            lambda t: t["name"] == "pipe.Ingress.admission.workers" and t.update(name="pipe.Ingress.admit.workers"),
            "pipe.Ingress.admission.workers",
        ),
        (lambda t: t["name"] == "pipe.Egress.result_dest" and t["action_specs"][0]["data"].pop(), "udp_port"),
        (
            lambda t: (
                t["name"] == "pipe.Ingress.uplink.uplinks" and t["action_specs"][0]["data"][3]["type"].update(width=4)
            ),
            "port",
        ),
        (lambda t: t["name"] == "pipe.Ingress.job_events" and t.update(size=64), "$COUNTER_INDEX"),
    ],
)
def test_a_program_that_differs_is_refused_naming_what_differs(change, named):
    program = copy.deepcopy(BFRT)
    for table in program["tables"]:
        change(table)
    with pytest.raises(SchemaError, match=f"(?s)contract.*{named.replace('$', '[$]')}"):
        tna.check_contract(_schema(program))


def test_a_jobs_entries_carry_what_the_tna_notes_say():
    schema = _schema()
    job = CONFIG.jobs[0]
    entries = tna.job_entries(schema, job, session=77)
    by_table: dict[str, list] = {}
    for e in entries:
        table = schema.by_id(e.entity.table_entry.table_id)
        key = table.decode_key(e.entity.table_entry.key)
        by_table.setdefault(table.name, []).append((key, *table.decode_data(e.entity.table_entry.data)))
    assert [schema.by_id(e.entity.table_entry.table_id).name for e in entries][-2:] == [tna.NAMES.workers] * 2
    workers = {key["hdr.udp.src_port"]: data for key, action, data in by_table[tna.NAMES.workers]}
    assert workers[40002] == {
        "job_id": 1,
        "worker_id": 1,
        "worker_bit": 2,
        "num_workers": 2,
        "mgid": 2,
        "slot_base": 0,
        "slot_end": 64,
        "num_slots": 64,
        "session": 77,
    }
    nodes = by_table["$pre.node"]
    assert [(k["$MULTICAST_NODE_ID"], d["$MULTICAST_RID"], d["$DEV_PORT"]) for k, _, d in nodes] == [
        (tna.node_id(1, 0), 0, [0]),
        (tna.node_id(1, 1), 1, [4]),
    ]
    ((key, _, group),) = by_table["$pre.mgid"]
    assert key == {"$MGID": 2} and group["$MULTICAST_NODE_ID"] == [tna.node_id(1, 0), tna.node_id(1, 1)]
    dests = sorted((k["eg_md.dest_worker"], d["udp_port"]) for k, a, d in by_table[tna.NAMES.result_dest])
    assert dests == [(0, 40001), (1, 40002)]


def test_a_reset_zeroes_both_shadow_copies_of_the_jobs_slots_in_every_register():
    schema = _schema()
    slots = range(100, 164)
    items = tna.zero_registers(schema, slots)
    registers = tna.slot_registers(schema)
    assert len(registers) == 41 and "pipe.Ingress.seen_bitmap.seen" in registers
    cells: dict[str, set[int]] = {}
    for item in items:
        table = schema.by_id(item.entity.table_entry.table_id)
        index = table.decode_key(item.entity.table_entry.key)["$REGISTER_INDEX"]
        _, data = table.decode_data(item.entity.table_entry.data)
        assert set(data.values()) == {0} and set(data) == set(table.data)  # both halves of a pair
        cells.setdefault(table.name, set()).add(index)
    assert cells["pipe.Ingress.seen_bitmap.seen"] == set(slots)
    both = set(slots) | {TNA_SLOTS + s for s in slots}
    assert all(cells[r] == both for r in registers if r != "pipe.Ingress.seen_bitmap.seen")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda s: s.entry("pipe.Ingress.admission.worker", None), "no table 'pipe.Ingress.admission.worker'"),
        (lambda s: s.entry("pipe.Ingress.forwarding.l2", {"hdr.ethernet.dst": 1}), "hdr.ethernet.dst"),
        (
            lambda s: s.entry(
                "pipe.Ingress.forwarding.l2", {"hdr.ethernet.dst_addr": 1}, {"port": 512}, "Ingress.forwarding.to_port"
            ),
            "512 does not fit 9 bits",
        ),
        (
            lambda s: s.entry(
                "pipe.Ingress.forwarding.l2", {"hdr.ethernet.dst_addr": 1}, {}, "Ingress.forwarding.to_port"
            ),
            r"mandatory \['port'\] not given",
        ),
        (
            lambda s: s.entry(
                "pipe.Ingress.forwarding.l2", {"hdr.ethernet.dst_addr": 1}, {}, "Ingress.forwarding.drop"
            ),
            "default entry only",
        ),
        (
            lambda s: s.entry("pipe.Ingress.forwarding.l2", {"hdr.ethernet.dst_addr": 1}, {"port": 1}, "to_port"),
            "has no action 'to_port'",
        ),
        (lambda s: s.entry("pipe.Ingress.countdown.remaining", {"$REGISTER_INDEX": 2 * TNA_SLOTS}), "outside 0..16383"),
        (lambda s: s.entry("$PORT", {"$DEV_PORT": 1}, {"$SPEED": "BF_SPEED_3G"}), "BF_SPEED_3G"),
        (
            lambda s: s.entry(
                "$pre.node", {"$MULTICAST_NODE_ID": 1}, {"$MULTICAST_RID": 1, "$MULTICAST_LAG_ID": [], "$DEV_PORT": 3}
            ),
            "list",
        ),
    ],
)
def test_what_the_program_lacks_is_refused_by_name(build, message):
    with pytest.raises(SchemaError, match=message):
        build(_schema())


def test_counter_and_event_decoding_follow_the_v1model_contract():
    values = {0: 5, 9: 2, 15: 1}
    counts = tna.decode_events(values, 16)
    assert counts["data_counted"] == 5 and counts["joined"] == 2 and counts["event_15"] == 1
    jobs = tna.decode_job_events({4 * 64 + 1: 3, 4 * 64 + 3: 7, 0: 9}, [64])
    assert jobs == {64: {"packets": 0, "drops": 3, "retransmissions": 0, "rounds": 7}}


@pytest.mark.parametrize(
    ("ports", "uplink_port", "message"),
    [
        ((0, 4), None, None),
        ((0, 130), None, r"pipes \[0, 1\] \(worker 0 port 0 \(pipe 0\), worker 1 port 130 \(pipe 1\)\)"),
        ((0, 4), 200, r"pipes \[0, 1\].*its uplink port 200"),
        ((0, 68), None, "port 68 is pipe 0's recirculation port"),
        ((196, 200), None, "port 196 is pipe 1's recirculation port"),
    ],
)
def test_a_tofino_jobs_ports_share_one_pipe_and_avoid_the_recirculation_port(ports, uplink_port, message):
    from p4reduce.controller.errors import ConfigError

    doc = yaml.safe_load((ROOT / "controller/examples/tofino.yaml").read_text())
    for w, port in zip(doc["jobs"][0]["workers"], ports, strict=True):
        w["port"] = port
    if uplink_port is not None:
        doc["jobs"][0]["uplink"] = {
            "parent_job": 9,
            "rank": 0,
            "session": 1,
            "port": uplink_port,
            "mac": "02:00:00:00:00:aa",
            "ip": "10.0.1.1",
        }
    if message is None:
        load_config(doc)
        return
    with pytest.raises(ConfigError, match=message):
        load_config(doc)
