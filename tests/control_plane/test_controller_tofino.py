# SPDX-License-Identifier: Apache-2.0
"""The controller's Tofino target against the fake BF Runtime server, which loads the
compiler's bfrt.json and refuses what bf_switchd would: install, a leaf job, a reset and
the counters, through the command line; and one job model on both targets (the same
configuration's jobs on the fake P4Runtime switch and on the fake Tofino)."""

from __future__ import annotations

import copy
import json
import pathlib

import pytest
import yaml
from fake_bfruntime import fake_bfrt  # noqa: F401
from fake_p4runtime import fake  # noqa: F401

from p4reduce.cli import main
from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.tofino import TofinoClient
from p4reduce.controller.client import SwitchClient
from p4reduce.controller.config import load_config
from p4reduce.controller.errors import NotPrimary, WriteError
from p4reduce.controller.pipeline import NAMES as V1_NAMES
from p4reduce.controller.pipeline import SET_WORKER_PARAMS
from p4reduce.protocol.switch import TNA_SLOTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = yaml.safe_load((ROOT / "controller/examples/tofino.yaml").read_text())
WORKERS = "pipe.Ingress.admission.workers"


def _config(tmp_path, fake, **changes) -> pathlib.Path:
    doc = copy.deepcopy(EXAMPLE)
    doc["switch"]["bfrt"] = fake.addr
    for key, value in changes.items():
        doc[key] = value
    path = tmp_path / "tofino.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _workers(fake) -> dict[int, dict]:
    """Admission entries by the worker's UDP source port."""
    return {dict(k)["hdr.udp.src_port"]: data for k, (_, data) in fake.table_entries(WORKERS).items()}


def test_install_leaves_exactly_the_entries_the_tna_notes_list(fake_bfrt, tmp_path, capsys):  # noqa: F811
    config = _config(tmp_path, fake_bfrt)
    assert main(["controller", "install", "--config", str(config)]) == 0
    assert "installed 1 job(s), 2 worker(s), 2 L2 entries, broadcast" in capsys.readouterr().out
    workers = _workers(fake_bfrt)
    assert set(workers) == {40001, 40002}
    session = workers[40001]["session"]
    assert workers[40002] == {
        "job_id": 1,
        "worker_id": 1,
        "worker_bit": 2,
        "num_workers": 2,
        "mgid": 2,
        "slot_base": 0,
        "slot_end": 64,
        "num_slots": 64,
        "session": session,
    }
    dests = {
        dict(k)["eg_md.dest_worker"]: d for k, (_, d) in fake_bfrt.table_entries("pipe.Egress.result_dest").items()
    }
    assert dests[1] == {"mac": 0x020000000002, "ip": 0x0A000002, "udp_port": 40002} and set(dests) == {0, 1}
    l2 = {
        dict(k)["hdr.ethernet.dst_addr"]: row
        for k, row in fake_bfrt.table_entries("pipe.Ingress.forwarding.l2").items()
    }
    assert l2[0x020000000001] == ("Ingress.forwarding.to_port", {"port": 0})
    assert l2[0xFFFFFFFFFFFF] == ("Ingress.forwarding.flood", {"mgid": 1000})
    assert fake_bfrt.groups() == {
        2: [tna.node_id(1, 0), tna.node_id(1, 1)],
        1000: [tna.BROADCAST_NODES, tna.BROADCAST_NODES + 4],
    }
    nodes = fake_bfrt.nodes()
    assert nodes[tna.node_id(1, 1)] == (1, [4]) and nodes[tna.BROADCAST_NODES + 4] == (0, [4])
    ports = fake_bfrt.ports()
    assert set(ports) == {0, 4} and ports[4]["$SPEED"] == "BF_SPEED_100G" and ports[4]["$PORT_ENABLE"] is True
    assert ports[0]["$FEC"] == "BF_FEC_TYP_REED_SOLOMON"
    for other in ("pipe.Ingress.uplink.uplinks", "pipe.Ingress.admission.parents"):
        assert fake_bfrt.table_entries(other) == {}

    # Installing again replaces what is there: the same entries, a job's new session.
    assert main(["controller", "install", "--config", str(config)]) == 0
    assert set(_workers(fake_bfrt)) == {40001, 40002} and len(fake_bfrt.groups()) == 2


def test_a_leaf_job_gets_its_uplink_and_its_parents_entry(fake_bfrt, tmp_path):  # noqa: F811
    jobs = copy.deepcopy(EXAMPLE["jobs"])
    jobs[0]["uplink"] = {
        "parent_job": 9,
        "rank": 3,
        "session": 555,
        "port": 8,
        "mac": "02:00:00:00:00:aa",
        "ip": "10.0.1.1",
    }
    assert main(["controller", "install", "--config", str(_config(tmp_path, fake_bfrt, jobs=jobs))]) == 0
    ((key, (action, data)),) = fake_bfrt.table_entries("pipe.Ingress.uplink.uplinks").items()
    assert dict(key) == {"hdr.agg.job_id": 1} and action == "Ingress.uplink.to_parent"
    assert data == {
        "up_job": 9,
        "up_rank": 3,
        "up_session": 555,
        "port": 8,
        "mac": 0x0200000000AA,
        "ip": 0x0A000101,
        "udp_port": 48864,
    }
    ((key, (action, data)),) = fake_bfrt.table_entries("pipe.Ingress.admission.parents").items()
    assert dict(key)["hdr.agg.job_id"] == 9 and dict(key)["hdr.agg.worker_id"] == 3
    session = _workers(fake_bfrt)[40001]["session"]
    assert data == {"job_id": 1, "mgid": 2, "slot_base": 0, "slot_end": 64, "session": session, "up_session": 555}


def test_reset_gives_a_new_session_and_zeroes_only_the_jobs_cells(fake_bfrt, tmp_path, capsys):  # noqa: F811
    jobs = copy.deepcopy(EXAMPLE["jobs"])
    jobs[0].update(slot_base=100, num_slots=8)
    config = _config(tmp_path, fake_bfrt, jobs=jobs)
    assert main(["controller", "install", "--config", str(config)]) == 0
    before = _workers(fake_bfrt)[40001]["session"]
    sums = "pipe.Ingress.values.value_07.sums"
    for index in (100, 107, TNA_SLOTS + 100, 99, 108, TNA_SLOTS + 108):
        fake_bfrt.set_register(
            sums, index, {"Ingress.values.value_07.sums.first": 5, "Ingress.values.value_07.sums.second": 6}
        )
    fake_bfrt.set_register(
        "pipe.Ingress.seen_bitmap.seen", 103, {"Ingress.seen_bitmap.seen.set0": 3, "Ingress.seen_bitmap.seen.set1": 1}
    )
    assert main(["controller", "reset", "--config", str(config), "--job", "1"]) == 0
    assert "zeroed 648 register cells (slots 100..107" in capsys.readouterr().out  # 40 x 2 x 8, and 8 of the bitmap
    after = {w["session"] for w in _workers(fake_bfrt).values()}
    assert len(after) == 1 and before not in after
    first = "Ingress.values.value_07.sums.first"
    assert {i: fake_bfrt.register(sums, i)[3][first] for i in (100, 107, TNA_SLOTS + 100)} == dict.fromkeys(
        (100, 107, TNA_SLOTS + 100), 0
    )
    assert {i: fake_bfrt.register(sums, i)[0][first] for i in (99, 108, TNA_SLOTS + 108)} == dict.fromkeys(
        (99, 108, TNA_SLOTS + 108), 5
    )
    assert fake_bfrt.register("pipe.Ingress.seen_bitmap.seen", 103)[1] == {
        "Ingress.seen_bitmap.seen.set0": 0,
        "Ingress.seen_bitmap.seen.set1": 0,
    }


def test_counters_are_read_back_by_name(fake_bfrt, tmp_path, capsys):  # noqa: F811
    config = _config(tmp_path, fake_bfrt)
    for index, packets in enumerate([40, 10, 3]):
        fake_bfrt.set_counter("pipe.Ingress.events", index, packets)
    for cell, packets in enumerate([9, 1, 2, 4]):
        fake_bfrt.set_counter("pipe.Ingress.job_events", cell, packets)
    fake_bfrt.set_counter("pipe.Ingress.job_events", 4, 100)  # slot 1's: another job's
    assert main(["controller", "counters", "--config", str(config), "--jobs"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["switch"]["data_counted"], out["switch"]["result_multicast"], out["switch"]["result_unicast"]) == (
        40,
        10,
        3,
    )
    assert out["jobs"] == {"1": {"packets": 9, "drops": 1, "retransmissions": 2, "rounds": 4}}


def test_a_refused_write_names_the_entry_and_the_reason(fake_bfrt, tmp_path, capsys):  # noqa: F811
    import grpc

    fake_bfrt.refuse = lambda u: (
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "table full")
        if u.type == 1 and u.entity.table_entry.table_id == fake_bfrt.table(WORKERS).id
        else None
    )
    assert main(["controller", "install", "--config", str(_config(tmp_path, fake_bfrt))]) == 1
    err = capsys.readouterr().err
    assert "pipe.Ingress.admission.workers entry of job 1 worker 0" in err and "table full" in err


def test_a_second_controller_with_the_same_client_id_is_refused(fake_bfrt):  # noqa: F811
    with TofinoClient.connect(fake_bfrt.addr):
        with pytest.raises(NotPrimary, match="client id"):
            TofinoClient.connect(fake_bfrt.addr)


def test_a_program_name_the_switch_does_not_run_is_refused_before_any_write(fake_bfrt, tmp_path, capsys):  # noqa: F811
    doc = copy.deepcopy(EXAMPLE)
    doc["switch"].update(bfrt=fake_bfrt.addr, program="switch_tna")
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert main(["controller", "install", "--config", str(path)]) == 1
    assert "runs no program 'switch_tna'" in capsys.readouterr().err
    assert not fake_bfrt.writes


def test_ports_by_front_panel_name_are_resolved_by_the_switch(fake_bfrt, tmp_path):  # noqa: F811
    from p4reduce.controller.config import PortSetting

    with TofinoClient.connect(fake_bfrt.addr) as client:
        assert client.configure_ports([PortSetting("2/1", "25G", "fc"), PortSetting(9)]) == {"2/1": 5, "9": 9}
        assert client.ports()[5]["$PORT_UP"] is True
        with pytest.raises(WriteError, match=r"\$PORT 600 .*dev port 600 does not exist"):
            client.configure_ports([PortSetting(600)])  # no such device port: refused by the switch
    assert fake_bfrt.ports()[5]["$SPEED"] == "BF_SPEED_25G"


def test_one_job_model_on_both_targets(fake_bfrt, fake, tmp_path):  # noqa: F811
    """The example job installed from one configuration on BMv2 (P4Runtime) and on the
    Tofino (BF Runtime): every worker is admitted with the same job, rank, group, slots
    and session, and answered at the same address."""
    bmv2_doc = copy.deepcopy(EXAMPLE)
    bmv2_doc["switch"] = {"grpc_addr": fake.addr}
    bmv2 = load_config(bmv2_doc)
    tofino = load_config(_config(tmp_path, fake_bfrt))
    assert bmv2.jobs == tofino.jobs  # one job model
    job = tofino.jobs[0]
    with TofinoClient.connect(fake_bfrt.addr) as t:
        t.install(tofino)
        session = t.sessions[job.job_id]
    with SwitchClient.connect(fake.addr) as s:
        s.use_pipeline(ROOT / "p4src/build/p4reduce.p4info.txtpb")
        s.install(load_config({**bmv2_doc, "jobs": [{**bmv2_doc["jobs"][0], "session": session}]}))
        info = s.p4info
    assert info is not None
    workers_id = info.table(V1_NAMES.workers_table).id
    names = {info.param(V1_NAMES.set_worker, n).id: n for n in SET_WORKER_PARAMS}
    on_bmv2 = {}
    for entry in fake.tables.values():
        if entry.table_id == workers_id:
            params = {names[p.param_id]: int.from_bytes(p.value, "big") for p in entry.action.action.params}
            on_bmv2[params["worker_id"]] = params
    on_tofino = {d["worker_id"]: d for d in _workers(fake_bfrt).values()}
    shared = ("job_id", "worker_id", "num_workers", "mgid", "slot_base", "num_slots", "session")
    assert {r: {k: d[k] for k in shared} for r, d in on_tofino.items()} == {
        r: {k: d[k] for k in shared} for r, d in on_bmv2.items()
    }
