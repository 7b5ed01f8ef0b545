# SPDX-License-Identifier: Apache-2.0
"""The switch target against the fake P4Runtime and BMv2 thrift servers of
tests/control_plane: what the service writes to the switch as jobs come and go, and
what happens when the switch goes away under a job."""

from __future__ import annotations

import contextlib
import json
from concurrent import futures

import grpc
import pytest
from conftest import wait_until
from service_helpers import (
    MACS,
    FakeClock,
    control_plane,
    fetch_metrics,
    job_lost,
    parse_exposition,
    service_config,
    table_entries,
)

from p4reduce.controller.bmv2 import slot_register_arrays
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import NAMES
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact
from p4reduce.service import JobServer
from p4reduce.service.switch import JoinSender, SwitchTarget, join_sender

fake_p4runtime = control_plane("fake_p4runtime")
fake_bmv2_thrift = control_plane("fake_bmv2_thrift")
INFO = P4Info.load(build_artifact(P4INFO))
REGISTERS = slot_register_arrays(json.loads(build_artifact(BMV2_JSON).read_text()))
L2_ENTRIES = len(MACS)


@pytest.fixture
def switch():
    """(JobServer with a switch and the fallback, stub, fake P4Runtime, fake thrift, ExitStack
    that owns the fake P4Runtime: close it to kill the switch)."""
    with contextlib.ExitStack() as stack:
        thrift = stack.enter_context(fake_bmv2_thrift.serve())
        for name in REGISTERS:
            thrift.add_register(name, 2048, fill=7)
        p4rt_stack = stack.enter_context(contextlib.ExitStack())
        fake = p4rt_stack.enter_context(fake_p4runtime.serve())
        cfg = service_config(grpc_addr=fake.addr, thrift_port=thrift.port)
        server = stack.enter_context(JobServer(cfg, metrics="127.0.0.1:0", tick=0.05))
        channel = stack.enter_context(grpc.insecure_channel("{}:{}".format(*server.address)))
        yield server, pb_grpc.JobServiceStub(channel), fake, thrift, p4rt_stack


def worker_entries(fake) -> dict[int, dict[str, int]]:
    """The worker-table entries on the fake switch: udp port -> set_worker's parameters."""
    return table_entries(fake, NAMES.workers_table, NAMES.set_worker, "hdr.udp.src_port")


def cells(thrift, start: int, stop: int) -> set[int]:
    """The values in cells [start, stop) of both shadow copies of every slot register."""
    return {v for name in REGISTERS for shadow in (0, 1) for v in thrift.registers[name][shadow * 1024 :][start:stop]}


def register(stub, job_id: int, rank: int):
    return stub.RegisterWorker(
        pb.RegisterWorkerRequest(
            job_id=job_id, rank=rank, ip=f"10.0.0.{rank + 1}", mac=MACS[rank], udp_port=40001 + rank
        )
    )


def test_the_service_alone_sets_the_switch_up_and_jobs_come_and_go(switch):
    server, stub, fake, thrift, _ = switch
    assert len(fake.pipelines) == 1 and len(fake.tables) == L2_ENTRIES
    assert cells(thrift, 0, 64) == {0} and cells(thrift, 64, 1024) == {7}  # the pool is cleared, nothing else

    job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2, num_slots=16))
    assert (job.target, job.host, job.port, job.mac) == (pb.SWITCH, "10.0.0.254", 48864, "02:00:00:00:00:fe")
    assert (job.mode, job.block_size, job.message_size, job.slot_base, job.num_slots) == (pb.DENSE, 32, 0, 0, 16)
    mgid = server.coordinator.registry.job(job.job_id).mgid

    first = register(stub, job.job_id, 0)
    assert (first.registered, first.switch_port) == (1, 1)
    assert worker_entries(fake) == {
        40001: {
            "job_id": job.job_id,
            "worker_id": 0,
            "num_workers": 2,  # the job's, not the workers registered so far
            "mgid": mgid,
            "slot_base": 0,
            "num_slots": 16,
            "session": job.session,
        }
    }
    assert len(fake.tables) == L2_ENTRIES + 2 and fake.groups == {}  # result destination + worker entry

    second = register(stub, job.job_id, 1)
    assert (second.registered, second.switch_port) == (2, 2)
    assert sorted(worker_entries(fake)) == [40001, 40002] and len(fake.tables) == L2_ENTRIES + 4
    group = fake.groups[mgid]
    assert sorted((r.egress_port, r.instance) for r in group.replicas) == [(1, 0), (2, 1)]

    # The job's own counters are its cells of job_events (at slot_base 0); cell 4 is slot 1's.
    job_events = INFO.counter(NAMES.job_events_counter).id
    fake.cells.update({(job_events, i): n for i, n in enumerate([9, 1, 2, 4, 100])})
    listed = stub.ListJobs(pb.ListJobsRequest())
    assert (listed.slots_total, listed.slots_free, listed.switch_up) == (64, 48, True)
    assert "data_counted" in listed.jobs[0].counters
    assert dict(listed.jobs[0].job_counters) == {"packets": 9, "drops": 1, "retransmissions": 2, "rounds": 4}
    metrics = parse_exposition(fetch_metrics(server))
    labels = {"job": str(job.job_id), "name": "a", "target": "switch"}
    assert metrics["p4reduce_job_packets_total"] == [(labels, 9.0)]
    assert metrics["p4reduce_job_rounds_total"] == [(labels, 4.0)]

    for name in REGISTERS:  # the job's traffic left state in its slots
        thrift.registers[name][:] = [7] * 2048
    stub.ReleaseJob(pb.ReleaseJobRequest(job_id=job.job_id))
    assert len(fake.tables) == L2_ENTRIES and fake.groups == {}
    assert cells(thrift, 0, 16) == {0} and cells(thrift, 16, 1024) == {7}
    assert [fake.cells[job_events, i] for i in range(5)] == [0, 0, 0, 0, 100]  # the next job counts from 0

    # The same slots again: a new session, the registers as a new job needs them.
    again = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2, num_slots=16))
    assert again.slot_base == 0 and again.session != job.session and again.job_id != job.job_id


def test_a_job_that_does_not_fit_goes_to_the_fallback(switch):
    _, stub, fake, _, _ = switch
    stub.CreateJob(pb.CreateJobRequest(name="big", num_workers=2, num_slots=48))
    other = stub.CreateJob(pb.CreateJobRequest(name="other", num_workers=2, num_slots=32))
    assert other.target == pb.SOFTWARE and other.host == "127.0.0.1"
    assert other.reason == "no free slots on the switch (asked 32, largest free range 16)"
    wide = stub.CreateJob(pb.CreateJobRequest(name="sparse", num_workers=2, mode=pb.SPARSE))
    assert wide.reason == "mode: sparse: the switch aggregates dense mode only"
    register(stub, other.job_id, 0)
    assert len(fake.tables) == L2_ENTRIES  # nothing on the switch for a software job


def test_a_port_not_in_the_l2_table_is_learned_from_the_first_join(switch):
    """A MAC the configuration does not list registers with port 0 and nothing is written;
    the switch's PacketIn of that worker's JOIN (here given to the coordinator as the switch
    client would) admits it on the port the JOIN came in on, and the job's group follows."""
    server, stub, fake, _, _ = switch
    job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    unknown = "02:00:00:00:00:99"
    answer = stub.RegisterWorker(
        pb.RegisterWorkerRequest(job_id=job.job_id, rank=0, ip="10.0.0.9", mac=unknown, udp_port=40009)
    )
    assert answer.switch_port == 0 and worker_entries(fake) == {}
    register(stub, job.job_id, 1)
    assert set(worker_entries(fake)) == {40002} and not fake.groups  # rank 0's port still unknown
    join = JoinSender(unknown, "10.0.0.9", 40010, job.job_id, 0)  # another address: learns nothing
    server.coordinator._learn(7, join)
    assert set(worker_entries(fake)) == {40002}
    server.coordinator._learn(7, JoinSender(unknown, "10.0.0.9", 40009, job.job_id, 0))
    entries = worker_entries(fake)
    assert set(entries) == {40002, 40009} and entries[40009]["worker_id"] == 0
    assert fake.groups  # the job's multicast group, now that every rank's port is known
    stub.ReleaseJob(pb.ReleaseJobRequest(job_id=job.job_id))
    assert worker_entries(fake) == {}


def test_join_sender_reads_a_frame():
    from scapy.layers.inet import IP

    from p4reduce.protocol import AggHeader, MsgType

    join = AggHeader(MsgType.JOIN, 3, 1, 0, 0, 9, 32, 8, 1, 2).pack()
    udp = (40005).to_bytes(2, "big") + (48864).to_bytes(2, "big") + (8 + len(join)).to_bytes(2, "big") + bytes(2)
    ip = bytes(IP(src="10.0.0.5", dst="10.0.0.254", proto=17, len=20 + len(udp) + len(join)))  # its checksum too
    frame = bytes.fromhex("02000000fe") + b"\xfe" + bytes.fromhex("020000000005") + b"\x08\x00" + ip + udp + join
    assert join_sender(frame) == JoinSender("02:00:00:00:00:05", "10.0.0.5", 40005, 3, 1)
    assert join_sender(frame[:40]) is None and join_sender(frame.replace(b"\x08\x00", b"\x86\xdd", 1)) is None
    # The switch hands a JOIN over before checking it: a bad IPv4 checksum or version names no one.
    bad_checksum = frame[:24] + bytes([frame[24] ^ 1]) + frame[25:]
    version_6 = frame[:14] + bytes([0x65]) + frame[15:]
    assert join_sender(bad_checksum) is None and join_sender(version_6) is None


def test_a_refused_write_fails_the_switch_jobs(switch):
    server, stub, fake, _, _ = switch
    job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    fake.refuse = lambda update: (fake_p4runtime.code_pb2.RESOURCE_EXHAUSTED, "table full")
    with pytest.raises(grpc.RpcError) as info:
        register(stub, job.job_id, 0)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    assert info.value.details().startswith("switch lost: ") and "table full" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        stub.KeepAlive(pb.KeepAliveRequest(job_id=job.job_id))
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE and "table full" in info.value.details()


def test_the_switch_dies_under_a_job(switch):
    server, stub, fake, _, p4rt_stack = switch
    job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    register(stub, job.job_id, 0)
    p4rt_stack.close()  # the switch is gone

    wait_until(lambda: job_lost(stub, job.job_id, "switch lost: "), "the service to notice the switch is gone")
    with pytest.raises(grpc.RpcError) as info:
        register(stub, job.job_id, 1)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    listed = stub.ListJobs(pb.ListJobsRequest())
    assert not listed.switch_up and [s.job.name for s in listed.jobs] == ["a"]
    # The job again: on the fallback, saying why.
    again = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    assert again.target == pb.SOFTWARE and again.reason.startswith("switch unreachable: ")
    assert again.job_id != job.job_id
    assert [s.job.target for s in stub.ListJobs(pb.ListJobsRequest()).jobs] == [pb.SOFTWARE]
    # The failed job's slots are back in the pool (cleared when the switch is set up again).
    assert stub.ListJobs(pb.ListJobsRequest()).slots_free == 64


def test_a_switch_that_never_answers_leaves_the_service_on_the_fallback():
    closed = fake_bmv2_thrift.closed_port()
    cfg = service_config(grpc_addr=f"127.0.0.1:{closed}", timeout=0.5)
    with JobServer(cfg) as server, grpc.insecure_channel("{}:{}".format(*server.address)) as channel:
        stub = pb_grpc.JobServiceStub(channel)
        job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
        assert job.target == pb.SOFTWARE
        assert job.reason.startswith(f"switch unreachable: no P4Runtime server answered at 127.0.0.1:{closed}")


def test_a_switch_that_comes_back_is_set_up_again():
    port = fake_bmv2_thrift.closed_port()
    clock = FakeClock()
    with fake_bmv2_thrift.serve() as thrift:
        for name in REGISTERS:
            thrift.add_register(name, 2048, fill=7)
        cfg = service_config(grpc_addr=f"127.0.0.1:{port}", thrift_port=thrift.port, timeout=0.5).switch
        target = SwitchTarget(cfg, reconnect_interval=5.0, clock=clock)
        assert not target.start() and "no P4Runtime server answered" in target.down
        fake = fake_p4runtime.FakeP4Runtime()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        fake_p4runtime.p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        try:
            clock.now += 4.9
            assert target.check() is not None and fake.pipelines == []  # too soon to try again
            clock.now += 0.1
            assert target.check() is None
            assert len(fake.pipelines) == 1 and len(fake.tables) == L2_ENTRIES and cells(thrift, 0, 64) == {0}
        finally:
            target.close()
            server.stop(0)
