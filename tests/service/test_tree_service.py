# SPDX-License-Identifier: Apache-2.0
"""The job service over a tree of switches (leaves under a spine): the `tree` section,
ranks placed by where workers sit, and what the service writes to every switch (fake
P4Runtime and BMv2 thrift servers, one pair per switch) as a job completes and goes."""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
from typing import Any

import grpc
import pytest
from conftest import wait_until
from service_helpers import control_plane, job_lost, table_entries

from p4reduce.controller.bmv2 import slot_register_arrays
from p4reduce.controller.errors import ConfigError
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import NAMES
from p4reduce.hostagent import WorkerConfig
from p4reduce.hostagent.service import register
from p4reduce.jobapi import JobClient
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact
from p4reduce.service import JobServer, parse_service_config
from p4reduce.service.errors import InvalidArgument
from p4reduce.service.registry import JobWish, Place, Registry

fake_p4runtime = control_plane("fake_p4runtime")
fake_bmv2_thrift = control_plane("fake_bmv2_thrift")
INFO = P4Info.load(build_artifact(P4INFO))
REGISTERS = slot_register_arrays(json.loads(build_artifact(BMV2_JSON).read_text()))
LEAF_MAC, LEAF_IP = "02:00:00:00:00:fe", "10.0.0.254"
SPINE_MAC, SPINE_IP = "02:00:00:00:01:fe", "10.0.1.254"
# Two workers under each leaf, on ports 1 and 2; leaf i's port 3 is its link to spine port i + 1.
SEATS = {
    "02:00:00:00:00:01": ("leaf0", 1),
    "02:00:00:00:00:02": ("leaf1", 1),
    "02:00:00:00:00:03": ("leaf0", 2),
    "02:00:00:00:00:04": ("leaf1", 2),
    "02:00:00:00:00:05": ("leaf1", 4),
}
TREE: dict[str, Any] = {
    "switches": {
        "spine": {"grpc_addr": "127.0.0.1:1", "mac": SPINE_MAC, "ip": SPINE_IP},
        "leaf0": {"grpc_addr": "127.0.0.1:2", "mac": LEAF_MAC, "ip": LEAF_IP},
        "leaf1": {"grpc_addr": "127.0.0.1:3", "mac": LEAF_MAC, "ip": LEAF_IP},
    },
    "spine": "spine",
    "links": [{"leaf": "leaf0", "port": 3, "spine_port": 1}, {"leaf": "leaf1", "port": 3, "spine_port": 2}],
    "workers": [{"mac": mac, "switch": leaf, "port": port} for mac, (leaf, port) in SEATS.items()],
    "slots": [0, 64],
    "mgids": [10, 12],
}
MACS = list(SEATS)


def tree_config(**changes: Any) -> dict[str, Any]:
    tree = copy.deepcopy(TREE)
    tree.update(changes)
    return {"tree": tree, "fallback": {"host": "127.0.0.1", "port": 0}}


# -- the configuration -----------------------------------------------------------------


def test_a_tree_section_gives_every_switch_the_l2_of_the_whole_tree():
    tree = parse_service_config(tree_config()).tree
    assert tree is not None and tree.address.ip == LEAF_IP and tree.address.mac == LEAF_MAC
    assert (
        tree.port_of(MACS[1]) == 1 and tree.seat(MACS[1]).leaf == "leaf1" and tree.port_of("02:00:00:00:00:99") is None
    )
    sections = tree.switch_sections()
    assert list(sections) == ["spine", "leaf0", "leaf1"]
    # a leaf: its own workers on their ports, the others through its uplink (port 3)
    assert {e.mac: e.port for e in sections["leaf0"].l2} == {
        MACS[0]: 1, MACS[2]: 2, MACS[1]: 3, MACS[3]: 3, MACS[4]: 3
    }  # fmt: skip
    assert {e.mac: e.port for e in sections["spine"].l2} == {
        MACS[0]: 1, MACS[2]: 1, MACS[1]: 2, MACS[3]: 2, MACS[4]: 2
    }  # fmt: skip
    assert sections["leaf1"].broadcast.ports == (1, 2, 3, 4) and sections["spine"].broadcast.ports == (1, 2)
    assert sections["spine"].address.mac == SPINE_MAC and sections["leaf1"].slots == (0, 64)


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"spine": "leaf9"}, "tree.spine: 'leaf9' is not one of `switches`"),
        (
            {"workers": [{"mac": MACS[0], "switch": "spine", "port": 1}]},
            "tree.workers[0].switch: 'spine' is not a leaf",
        ),
        ({"workers": [{"mac": MACS[0], "switch": "leaf0", "port": 3}]}, "port: 3 is leaf leaf0's link to the spine"),
        (
            {
                "workers": [
                    {"mac": MACS[0], "switch": "leaf0", "port": 1},
                    {"mac": MACS[0], "switch": "leaf1", "port": 1},
                ]
            },
            "sits elsewhere already",
        ),
        ({"mgids": [1, 1000]}, "holds 1000, the tree's broadcast group"),
        ({"workers": [{"mac": "01:00:5e:00:00:01", "switch": "leaf0", "port": 1}]}, "tree.workers[0].mac"),
    ],
)
def test_tree_mistakes_are_one_line_naming_the_field(changes, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        parse_service_config(tree_config(**changes))


def test_leaves_answer_their_workers_at_one_address_and_a_tree_is_no_switch():
    doc = tree_config()
    doc["tree"]["switches"]["leaf1"]["ip"] = "10.0.0.253"
    with pytest.raises(ConfigError, match="every leaf answers its workers at the same aggregation address"):
        parse_service_config(doc)
    doc = tree_config()
    doc["switch"] = {"grpc_addr": "127.0.0.1:1", "address": {"ip": LEAF_IP, "mac": LEAF_MAC}}
    with pytest.raises(ConfigError, match="'switch' and 'tree'"):
        parse_service_config(doc)


# -- ranks placed by where workers sit --------------------------------------------------


def registry() -> Registry:
    config = parse_service_config(tree_config())
    return Registry(config.tree, config.fallback_pools(), config.jobs)


def test_ranks_are_placed_by_leaf_once_every_rank_registered():
    reg = registry()
    job = reg.create(JobWish("t", 4)).job
    leaves = ["leaf0", "leaf1"]
    # registered ranks 0..3 alternate between the leaves
    for rank in range(4):
        assert job.places(leaves) == {}  # not placed before the last rank
        reg.register(job.job_id, rank, f"10.0.0.{rank + 1}", MACS[rank], 40001 + rank)
    assert job.places(leaves) == {
        0: Place(0, "leaf0", 0, 2),
        2: Place(1, "leaf0", 1, 2),
        1: Place(2, "leaf1", 0, 2),
        3: Place(3, "leaf1", 1, 2),
    }
    tree_job = job.tree_job(leaves)  # the same ranks, and each leaf's local ones
    assert [(w.rank, w.leaf, w.entry.worker_id, w.entry.port, w.entry.mac) for w in tree_job.workers] == [
        (0, "leaf0", 0, 1, MACS[0]),
        (1, "leaf0", 1, 2, MACS[2]),
        (2, "leaf1", 0, 1, MACS[1]),
        (3, "leaf1", 1, 2, MACS[3]),
    ]


def test_a_worker_the_tree_does_not_seat_is_refused_by_name():
    reg = registry()
    job = reg.create(JobWish("t", 2)).job
    with pytest.raises(InvalidArgument, match="sits under no leaf of the tree"):
        reg.register(job.job_id, 0, "10.0.0.9", "02:00:00:00:00:99", 40001)
    assert job.workers == {}


# -- the service and the switches -------------------------------------------------------


@pytest.fixture
def tree_service():
    """(JobServer over three fake switches, stub, {switch name: (fake P4Runtime, fake thrift)},
    {switch name: the ExitStack that owns its fake P4Runtime: close it to kill the switch})."""
    with contextlib.ExitStack() as stack:
        fakes, doc, killers = {}, tree_config(), {}
        for name in ("spine", "leaf0", "leaf1"):
            thrift = stack.enter_context(fake_bmv2_thrift.serve())
            for register_name in REGISTERS:
                thrift.add_register(register_name, 2048, fill=7)
            killers[name] = stack.enter_context(contextlib.ExitStack())
            p4rt = killers[name].enter_context(fake_p4runtime.serve())
            fakes[name] = (p4rt, thrift)
            doc["tree"]["switches"][name] |= {"grpc_addr": p4rt.addr, "thrift_port": thrift.port}
        server = stack.enter_context(JobServer(parse_service_config(doc), tick=0.05))
        channel = stack.enter_context(grpc.insecure_channel("{}:{}".format(*server.address)))
        yield server, pb_grpc.JobServiceStub(channel), fakes, killers


def test_a_tree_job_is_written_to_every_switch_when_its_last_rank_registers(tree_service):
    server, stub, fakes, _ = tree_service
    job = stub.CreateJob(pb.CreateJobRequest(name="t", num_workers=3, num_slots=8))
    assert job.target == pb.SWITCH and (job.host, job.mac, job.block_size) == (LEAF_IP, LEAF_MAC, 32)
    before = {name: len(p4rt.tables) for name, (p4rt, _) in fakes.items()}
    answers = []
    for rank, mac in ((0, MACS[1]), (1, MACS[0]), (2, MACS[3])):  # leaf1, leaf0, leaf1
        answers.append(
            stub.RegisterWorker(
                pb.RegisterWorkerRequest(
                    job_id=job.job_id, rank=rank, ip=f"10.0.0.{rank + 1}", mac=mac, udp_port=40001 + rank
                )
            )
        )
        if rank < 2:  # nothing on any switch, nobody placed, until the last rank
            assert not answers[-1].placed and {n: len(p.tables) for n, (p, _) in fakes.items()} == before
    # the last answer, and the others asked again, place every rank: leaf0's first
    again = [
        stub.RegisterWorker(
            pb.RegisterWorkerRequest(job_id=job.job_id, rank=r, ip=f"10.0.0.{r + 1}", mac=m, udp_port=40001 + r)
        )
        for r, m in ((0, MACS[1]), (1, MACS[0]))
    ]
    placed = {r: (a.placed, a.rank, a.leaf, a.local_rank, a.local_workers) for r, a in enumerate([*again, answers[2]])}
    assert placed == {0: (True, 1, "leaf1", 0, 2), 1: (True, 0, "leaf0", 0, 1), 2: (True, 2, "leaf1", 1, 2)}

    spine, leaf0, leaf1 = (fakes[n][0] for n in ("spine", "leaf0", "leaf1"))
    workers = (NAMES.workers_table, NAMES.set_worker, "hdr.udp.src_port")
    # each leaf admits its own workers with local ranks; the spine admits the leaves
    assert {port: p["worker_id"] for port, p in table_entries(leaf1, *workers).items()} == {40001: 0, 40003: 1}
    assert {port: p["worker_id"] for port, p in table_entries(leaf0, *workers).items()} == {40002: 0}
    # the leaves send from the address their workers send to: told apart by their spine port
    members = table_entries(spine, NAMES.workers_table, NAMES.set_worker, "standard_metadata.ingress_port")
    assert {port: p["worker_id"] for port, p in members.items()} == {1: 0, 2: 1}
    for fake, rank in ((leaf0, 0), (leaf1, 1)):
        (uplink,) = table_entries(fake, NAMES.uplinks_table, NAMES.set_uplink, "meta.job_id").values()
        assert uplink["up_rank"] == rank and uplink["port"] == 3 and uplink["up_job"] == job.job_id
        assert uplink["up_session"] == job.session  # the spine's session: the job's, on every switch
    groups = {name: fakes[name][0].groups for name in fakes}
    mgid = server.coordinator.registry.job(job.job_id).mgid
    assert all(mgid in g for g in groups.values())
    assert sorted(r.egress_port for r in groups["spine"][mgid].replicas) == [1, 2]
    assert sorted(r.egress_port for r in groups["leaf1"][mgid].replicas) == [1, 2]

    # released: every switch lets the job go, its registers zeroed
    stub.ReleaseJob(pb.ReleaseJobRequest(job_id=job.job_id))
    for name, (p4rt, thrift) in fakes.items():
        assert len(p4rt.tables) == before[name] and mgid not in p4rt.groups, name
        assert {v for reg_name in REGISTERS for v in thrift.registers[reg_name][:8]} == {0}


def test_a_job_under_one_leaf_spans_that_leaf_and_the_spine_only(tree_service):
    server, stub, fakes, _ = tree_service
    job = stub.CreateJob(pb.CreateJobRequest(name="one", num_workers=2, num_slots=8))
    for rank, mac in enumerate((MACS[3], MACS[4])):  # both under leaf1
        answer = stub.RegisterWorker(
            pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=f"10.0.0.{rank + 4}", mac=mac, udp_port=40001)
        )
    assert (answer.placed, answer.leaf, answer.local_workers) == (True, "leaf1", 2)
    workers = (NAMES.workers_table, NAMES.set_worker, "hdr.udp.src_port")
    assert table_entries(fakes["leaf0"][0], *workers) == {}
    members = table_entries(fakes["spine"][0], NAMES.workers_table, NAMES.set_worker, "standard_metadata.ingress_port")
    assert {port: p["worker_id"] for port, p in members.items()} == {2: 0}  # leaf1, the spine job's only member


def test_workers_wait_for_their_place_and_run_as_their_leaf_job(tree_service):
    """hostagent.service.register: each worker asks until the last rank registered, then runs
    as its leaf job's rank, with its leaf's worker count, scaling for the whole job."""
    server, stub, _, _ = tree_service
    address = "{}:{}".format(*server.address)
    clients = [JobClient(address) for _ in range(3)]
    placement = clients[0].create_job("w", 3, num_slots=8)
    results: dict[int, WorkerConfig] = {}
    seats = {0: MACS[1], 1: MACS[0], 2: MACS[3]}

    def worker(rank: int) -> None:
        config = WorkerConfig(placement.job_id, rank, 3, mode="dense", block_size=32, num_slots=8)
        # (a worker registers its route's address; here each rank's as the tree seats it)
        results[rank] = register(clients[rank], placement, config, 40001, ip=f"10.0.0.{rank + 1}", mac=seats[rank])

    threads = [threading.Thread(target=worker, args=(r,)) for r in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    got = {r: (c.worker_id, c.num_workers, c.scale_workers) for r, c in results.items()}
    assert got == {0: (0, 2, 3), 1: (0, 1, 3), 2: (1, 2, 3)}
    for client in clients:
        client.close()


def test_a_leaf_lost_under_a_job_fails_it_and_the_tree_goes_down_as_one(tree_service):
    """Leaf 1 dies under a running job: the job fails by name, the service lets go of the
    spine and leaf 0 too (a reconnection sets every switch up afresh, none keeping the failed
    job's entries or registers), and the next job goes to the fallback saying why."""
    server, stub, fakes, killers = tree_service
    job = stub.CreateJob(pb.CreateJobRequest(name="t", num_workers=2, num_slots=8))
    for rank, mac in enumerate((MACS[0], MACS[1])):  # one under each leaf
        request = pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=f"10.0.0.{rank + 1}", mac=mac)
        request.udp_port = 40001
        assert stub.RegisterWorker(request).placed == (rank == 1)
    killers["leaf1"].close()

    wait_until(lambda: job_lost(stub, job.job_id, "switch lost: leaf1: "), "the service to notice leaf 1 is gone")
    tree = server.coordinator.switch
    assert all(switch.down is not None for switch in tree.switches.values())
    assert tree.switches["spine"].down.startswith("the tree lost leaf1: ")
    again = stub.CreateJob(pb.CreateJobRequest(name="t2", num_workers=2))
    assert again.target == pb.SOFTWARE and "leaf1" in again.reason
