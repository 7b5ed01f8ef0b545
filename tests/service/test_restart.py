# SPDX-License-Identifier: Apache-2.0
"""The service's state file (config `state`, `controller serve --state`): a SIGKILLed service
started again takes back its jobs (same ids, leases, workers) while their workers go on,
reconciles the aggregators with what it recorded, and continues the job ids; placement
moves on past an aggregator that refuses AddJob."""

from __future__ import annotations

import dataclasses
import re
import signal
import socket
import threading

import grpc
import numpy as np
import pytest
from conftest import run_workers, wait_until
from test_remote_aggregators import admin_entry, running_aggregator

from p4reduce.controller.errors import ConfigError
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.jobapi import JobClient, JobServiceError
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.protocol import Mode
from p4reduce.service import JobServer
from p4reduce.service.config import parse_service_config
from p4reduce.service.registry import Job, JobWish, Target, WorkerRecord
from p4reduce.service.store import StateStore, decode, encode
from p4reduce.testbed.service_process import free_port, serving


def served(running) -> dict[int, dict[int, tuple[str, int]]]:
    """Job id -> admitted ranks' addresses, as the aggregator's ListServed answers."""
    with grpc.insecure_channel("{}:{}".format(*running.admin.address)) as ch:
        jobs = pb_grpc.AggregatorAdminStub(ch).ListServed(pb.ListServedRequest(), timeout=10).jobs
    return {s.job.job_id: {w.rank: (w.ip, w.udp_port) for w in s.workers} for s in jobs}


def add_directly(running, job_id: int, slot_base: int, num_slots: int) -> None:
    """A job the service never recorded (AddJob straight to the aggregator)."""
    request = pb.AddJobRequest(
        job_id=job_id, num_workers=1, mode=pb.DENSE, block_size=32, slot_base=slot_base, num_slots=num_slots
    )
    with grpc.insecure_channel("{}:{}".format(*running.admin.address)) as ch:
        pb_grpc.AggregatorAdminStub(ch).AddJob(request, timeout=10)


def test_a_sigkilled_service_restarts_under_running_workers_and_loses_no_answered_job(tmp_path):
    with running_aggregator() as running:
        config = tmp_path / "service.yaml"
        admin = "{}:{}".format(*running.admin.address)
        config.write_text(f"fallback: {{aggregators: [{{admin: '{admin}'}}]}}\n")
        state, port = tmp_path / "state.db", free_port()
        address = f"127.0.0.1:{port}"
        n, name = 2, "through-a-restart"
        rng = np.random.default_rng(5)
        tensors = [[rng.integers(-1000, 1000, 3000, dtype=np.int32) for _ in range(n)] for _ in range(2)]
        first_done, restarted = threading.Barrier(n + 1, timeout=120), threading.Event()
        second_done = threading.Barrier(n + 1, timeout=120)
        checked = threading.Event()  # the job is looked at while its workers are open

        def work(rank: int) -> list[np.ndarray]:
            config = WorkerConfig(0, rank, n, controller=address, job_name=name, bind=("127.0.0.1", 0), lease=20)
            with HostAgent(config) as agent:
                before = agent.allreduce(tensors[0][rank])
                first_done.wait()
                assert restarted.wait(120)
                after = agent.allreduce(tensors[1][rank])
                second_done.wait()
                assert checked.wait(120)
                return [before, after]

        answered: list[tuple[int, str]] = []
        with serving(config, state, port) as proc:
            results: list = []
            workers = threading.Thread(target=lambda: results.append(run_workers(work, n, timeout=180)))
            workers.start()
            first_done.wait()
            with JobClient(address) as client:
                [before] = client.list_jobs().jobs
                stop = threading.Event()

                def create_until_killed() -> None:  # each answered CreateJob must survive
                    for i in range(10_000):
                        try:
                            job = client.create_job(f"extra-{i}", 1, num_slots=1, lease_seconds=600)
                        except JobServiceError:
                            return
                        answered.append((job.job_id, job.name))
                        if stop.is_set():
                            return

                creator = threading.Thread(target=create_until_killed)
                creator.start()
                wait_until(lambda: len(answered) >= 3, "a few CreateJob answers before the kill", timeout=60)
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
                stop.set()
                creator.join(timeout=60)
        assert [i for i, _ in answered] == list(range(2, 2 + len(answered)))
        with serving(config, state, port), JobClient(address) as client:
            restarted.set()
            second_done.wait()
            jobs = {s.job.job_id: s for s in client.list_jobs().jobs}
            checked.set()
            workers.join(timeout=180)
            [per_rank] = results
            for before_and_after in per_rank:  # exact sums before the kill and after the restart
                for result, round_tensors in zip(before_and_after, tensors, strict=True):
                    np.testing.assert_array_equal(result, sum(round_tensors))
            again = jobs[before.job.job_id]
            assert again.job == before.job and again.registered == n  # same id, slots, lease, address
            assert 0 < again.expires_in <= 20
            # Its workers closed through the restarted service: the job is released.
            assert before.job.job_id not in {s.job.job_id for s in client.list_jobs().jobs}
            for job_id, job_name in answered:  # no answered job lost
                assert jobs[job_id].job.name == job_name
            # the job added unanswered (if any) removed; the closed one too
            assert served(running).keys() == jobs.keys() - {before.job.job_id}
            assert client.create_job("after", 1, num_slots=1).job_id == max(jobs) + 1  # ids go on


def service_with_state(state, *entries) -> JobServer:
    doc = {"fallback": {"aggregators": list(entries)}, "state": str(state)}
    return JobServer(parse_service_config(doc), "127.0.0.1:0", tick=0.05)


def test_restart_removes_unrecorded_jobs_adds_lost_ones_and_continues_ids(tmp_path):
    state = tmp_path / "state.db"
    with running_aggregator() as running:
        entry = admin_entry(running, slots=[0, 16])
        with service_with_state(state, entry) as service, JobClient(service.address) as client:
            kept = client.create_job("kept", 2, num_slots=8)
            lost = client.create_job("lost", 1, num_slots=4)
            gone = client.create_job("gone", 1, num_slots=4)
            client.register_worker(kept.job_id, 0, "127.0.0.1", "", 40100)
            client.register_worker(lost.job_id, 0, "127.0.0.1", "", 40101)
            client.release_job(gone.job_id)  # its id is not given again after the restart
        with grpc.insecure_channel("{}:{}".format(*running.admin.address)) as ch:
            pb_grpc.AggregatorAdminStub(ch).RemoveJob(pb.RemoveJobRequest(job_id=lost.job_id), timeout=10)
        add_directly(running, 99, 12, 4)  # where "gone" was: the service never recorded it
        with service_with_state(state, entry) as service, JobClient(service.address) as client:
            assert served(running) == {
                kept.job_id: {0: ("127.0.0.1", 40100)},
                lost.job_id: {0: ("127.0.0.1", 40101)},  # added and admitted again
            }
            assert [s.job.job_id for s in client.list_jobs().jobs] == [kept.job_id, lost.job_id]
            new = client.create_job("new", 1, num_slots=4)
            assert (new.job_id, new.slot_base) == (gone.job_id + 1, 12)  # 99's slots were freed
            with pytest.raises(JobServiceError, match="ALREADY_EXISTS"):  # the workers are recorded too
                client.register_worker(kept.job_id, 0, "127.0.0.1", "", 40199)


def test_an_aggregator_that_refuses_add_job_is_passed_over(tmp_path):
    with running_aggregator() as refusing, running_aggregator() as taking:
        with (
            service_with_state(tmp_path / "s.db", admin_entry(refusing), admin_entry(taking)) as service,
            JobClient(service.address) as client,
        ):
            add_directly(refusing, 1, 0, 64)  # after the start: the service does not know it
            job = client.create_job("moves-on", 2)
            assert (job.job_id, job.address) == (2, taking.server.address)  # id 1 was refused
            assert served(refusing).keys() == {1} and served(taking).keys() == {2}
            add_directly(taking, 3, 64, 64)
            with pytest.raises(JobServiceError, match="FAILED_PRECONDITION.*refused AddJob.*overlap"):
                client.create_job("nowhere", 1)  # both refuse: the last refusal is the answer
            assert [s.job.job_id for s in client.list_jobs().jobs] == [2]


def test_the_embedded_fallback_gets_its_recorded_jobs_back(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        udp = s.getsockname()[1]
    doc = {"fallback": {"host": "127.0.0.1", "port": udp}, "state": str(tmp_path / "s.db")}
    with JobServer(parse_service_config(doc), "127.0.0.1:0") as service, JobClient(service.address) as client:
        job = client.create_job("embedded", 2, num_slots=8)
        client.register_worker(job.job_id, 1, "127.0.0.1", "", 40102)
    with JobServer(parse_service_config(doc), "127.0.0.1:0") as service:
        [spec] = service.coordinator.fallback._running().engine.jobs()
        assert (spec.job_id, spec.slot_base, spec.num_slots) == (job.job_id, job.slot_base, 8)
        assert spec.workers[0] is None and (spec.workers[1].ip, spec.workers[1].port) == ("127.0.0.1", 40102)


# -- the store ------------------------------------------------------------------------


def a_job(**changes) -> Job:
    job = Job(
        job_id=7,
        name="j",
        target=Target.SOFTWARE,
        mode=Mode.DENSE,
        block_size=32,
        slot_base=8,
        num_slots=4,
        num_workers=2,
        message_size=0,
        session=0,
        lease_seconds=30.0,
        expires_at=1010.0,
        wish=JobWish("j", 2, Mode.DENSE, 32, 4, 30.0),
        workers={1: WorkerRecord(1, "10.0.0.2", "", 4000)},
        aggregator=1,
        tenant="t",
        key=b"\x00\xffk",
        failed="why",
        closed={1},
        reason="the switch is full",
        mgid=7,
    )
    for name, value in changes.items():
        setattr(job, name, value)
    return job


def test_every_job_field_round_trips_and_the_lease_is_kept_in_wall_clock_time(tmp_path):
    job = a_job()
    unset = [
        f.name
        for f in dataclasses.fields(Job)
        if (f.default is not dataclasses.MISSING and getattr(job, f.name) == f.default)
        or (f.default_factory is not dataclasses.MISSING and getattr(job, f.name) == f.default_factory())
    ]
    assert not unset, f"a_job() leaves {unset} at their defaults: the round trip would not check them"
    assert decode(Job, encode(job)) == job
    clock, wall = [1000.0], [5e8]
    store = StateStore(tmp_path / "s.db", clock=lambda: clock[0], wall=lambda: wall[0])
    store.commit([job, a_job(job_id=8, name="k", workers={})], [], 9, ["a", "b"])
    store.commit([], [8], 12, ["a", "b"])
    store.close()
    clock[0], wall[0] = 3.0, 5e8 + 4  # another process (its clock starts afresh), 4 s later
    stored = StateStore(tmp_path / "s.db", clock=lambda: clock[0], wall=lambda: wall[0]).load()
    assert stored.next_job_id == 12 and stored.targets == ("a", "b")
    [back] = stored.jobs
    assert back.expires_at == pytest.approx(3.0 + 10 - 4)
    assert back == a_job(expires_at=back.expires_at)


def test_a_state_file_that_is_no_database_is_one_line(tmp_path):
    bad = tmp_path / "s.db"
    bad.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(ConfigError, match=rf"^state {re.escape(str(bad))}: file is not a database$"):
        StateStore(bad)


def test_slots_of_a_job_the_aggregator_will_not_remove_stay_out_of_placement(tmp_path):
    from concurrent import futures

    from p4reduce.aggregator import AggregatorServer
    from p4reduce.aggregator.admin import AdminServicer

    class Stubborn(AdminServicer):
        def RemoveJob(self, request, context):
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "not yours")

    aggregator = AggregatorServer([], host="127.0.0.1", port=0).start()
    admin = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_AggregatorAdminServicer_to_server(Stubborn(aggregator), admin)
    port = admin.add_insecure_port("127.0.0.1:0")
    admin.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            request = pb.AddJobRequest(job_id=99, num_workers=1, mode=pb.DENSE, block_size=32, num_slots=8)
            pb_grpc.AggregatorAdminStub(ch).AddJob(request, timeout=10)
        entry = {"admin": f"127.0.0.1:{port}", "timeout": 2, "slots": [0, 16]}
        with service_with_state(tmp_path / "s.db", entry) as service, JobClient(service.address) as client:
            assert client.create_job("beside", 1, num_slots=8).slot_base == 8  # 0..7: job 99's, kept
            with pytest.raises(JobServiceError, match="RESOURCE_EXHAUSTED"):
                client.create_job("full", 1, num_slots=8)
    finally:
        admin.stop(grace=1).wait(5)
        aggregator.stop()


def test_the_state_file_is_named_in_the_config_relative_to_it(tmp_path):
    from p4reduce.service.config import load_service_config

    config = tmp_path / "service.yaml"
    config.write_text("fallback: embedded\nstate: state/service.db\n")
    assert load_service_config(config).state == tmp_path / "state" / "service.db"
    with pytest.raises(ConfigError, match="state: 5 is not a file name"):
        parse_service_config({"fallback": "embedded", "state": 5})
