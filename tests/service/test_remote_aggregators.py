# SPDX-License-Identifier: Apache-2.0
"""Running software aggregators as the service's fallback (config `fallback: {aggregators:
[...]}`): their AggregatorAdmin API (`p4reduce aggregator --admin`), jobs placed on them and
allreducing, the next one taking what the first cannot, and one that dies under a job."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import numpy as np
import pytest
from conftest import run_workers, wait_until

from p4reduce.aggregator import AggregatorServer
from p4reduce.aggregator.admin import AdminServer
from p4reduce.cli.main import main as cli
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.jobapi import AGGREGATOR_LOST, JobClient, JobServiceError
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.service import JobServer
from p4reduce.service.config import parse_service_config


@dataclass
class Running:
    """An aggregator process's two servers: UDP (the data) and AggregatorAdmin."""

    server: AggregatorServer
    admin: AdminServer
    alive: bool = True

    def die(self) -> None:
        """The process goes away: admin API and UDP socket."""
        self.admin.stop()
        self.server.stop()
        self.alive = False


@contextlib.contextmanager
def running_aggregator():
    server = AggregatorServer([], host="127.0.0.1", port=0).start()
    running = Running(server, AdminServer(server, ("127.0.0.1", 0)).start())
    try:
        yield running
    finally:
        if running.alive:
            running.die()


def service_over(*entries: dict) -> JobServer:
    return JobServer(parse_service_config({"fallback": {"aggregators": list(entries)}}), "127.0.0.1:0", tick=0.05)


def admin_entry(running: Running, **extra) -> dict:
    return {"admin": "{}:{}".format(*running.admin.address), "timeout": 2, **extra}


def allreduce_through(
    service: JobServer, name: str, tensors: list[np.ndarray], while_open: Callable[[], None] = lambda: None
) -> list[np.ndarray]:
    """The workers' sums; `while_open` runs once they have them, before they close (which
    releases the job)."""
    address = "{}:{}".format(*service.address)
    n = len(tensors)
    configs = [WorkerConfig(0, r, n, controller=address, job_name=name, bind=("127.0.0.1", 0)) for r in range(n)]
    agents = [HostAgent(c) for c in configs]
    try:
        results = run_workers(lambda r: agents[r].allreduce(tensors[r]), n)
        while_open()
        return results
    finally:
        for agent in agents:
            agent.close()


def test_a_job_on_a_running_aggregator_allreduces_and_is_counted():
    with (
        running_aggregator() as running,
        service_over(admin_entry(running)) as service,
        JobClient(service.address) as client,
    ):
        aggregator = running.server
        rng = np.random.default_rng(3)
        tensors = [rng.integers(-1000, 1000, 5000, dtype=np.int32) for _ in range(2)]
        tensors[1][:2000] = 0

        def counted() -> None:
            [status] = client.list_jobs().jobs
            assert status.job.target == "software" and status.job.address == aggregator.address
            # The aggregator's only job: its own counters are the aggregator's.
            assert status.job_counters["packets"] == status.counters["packets_in"] > 0
            assert status.job_counters["rounds"] == status.counters["completed"] > 0
            assert [s.job_id for s in aggregator.engine.jobs()] == [status.job.job_id]

        for result in allreduce_through(service, "remote", tensors, counted):
            np.testing.assert_array_equal(result, tensors[0] + tensors[1])
        assert client.list_jobs().jobs == []  # the workers' closes released the job
        assert aggregator.engine.jobs() == []  # RemoveJob answered: applied


def test_the_next_aggregator_takes_what_the_first_cannot():
    with (
        running_aggregator() as small,
        running_aggregator() as big,
        service_over(admin_entry(small, slots=[0, 8]), admin_entry(big)) as service,
        JobClient(service.address) as client,
    ):
        first = client.create_job("fits", 2, num_slots=8)
        second = client.create_job("does-not", 2, num_slots=8)
        assert first.address == small.server.address and second.address == big.server.address
        assert [s.job_id for s in small.server.engine.jobs()] == [first.job_id]
        assert [s.job_id for s in big.server.engine.jobs()] == [second.job_id]
        client.release_job(first.job_id)
        assert client.create_job("again", 2, num_slots=8).address == small.server.address  # its slots came back


def test_an_aggregator_that_is_not_there_is_skipped_and_one_that_dies_fails_its_jobs():
    with running_aggregator() as alive:
        dead = {"admin": "127.0.0.1:1", "timeout": 0.5}  # nothing listens there
        with service_over(dead, admin_entry(alive)) as service, JobClient(service.address) as client:
            job = client.create_job("skips", 2)
            assert job.address == alive.server.address
            client.register_worker(job.job_id, 0, "127.0.0.1", "", 40100)
            alive.die()  # under the job

            def lost() -> bool:
                try:
                    client.keep_alive(job.job_id)
                except JobServiceError as exc:
                    return exc.code == "UNAVAILABLE" and exc.cause.startswith(AGGREGATOR_LOST)
                return False

            wait_until(lost, "KeepAlive answered 'aggregator lost'", timeout=10)
            with pytest.raises(JobServiceError, match="RESOURCE_EXHAUSTED.*no software aggregator is reachable"):
                client.create_job("skips", 2)  # the failed job's name starts afresh, nowhere to go


def test_the_admin_api_names_what_it_refuses():
    with running_aggregator() as running, grpc.insecure_channel("{}:{}".format(*running.admin.address)) as ch:
        aggregator = running.server
        stub = pb_grpc.AggregatorAdminStub(ch)
        info = stub.Describe(pb.DescribeRequest())
        assert (info.host, info.port, info.jobs) == (*aggregator.address, 0)
        good = pb.AddJobRequest(job_id=7, num_workers=2, mode=pb.DENSE, block_size=32, slot_base=0, num_slots=4)
        assert stub.AddJob(good).jobs == 1
        refusals = [
            (stub.AddJob, good, grpc.StatusCode.ALREADY_EXISTS, "job 7 is served already"),
            (stub.AddJob, pb.AddJobRequest(job_id=8, num_workers=2, mode=pb.DENSE, num_slots=4, block_size=32),
             grpc.StatusCode.FAILED_PRECONDITION, "overlap"),
            (stub.AddJob, pb.AddJobRequest(job_id=9, num_workers=2, mode=7, num_slots=4, slot_base=8, block_size=32),
             grpc.StatusCode.INVALID_ARGUMENT, "mode: 7"),
            (stub.AddJob, pb.AddJobRequest(job_id=9, num_workers=0, mode=pb.DENSE, num_slots=4, slot_base=8,
             block_size=32), grpc.StatusCode.INVALID_ARGUMENT, "worker"),
            (stub.AdmitWorker, pb.AdmitWorkerRequest(job_id=99, rank=0, ip="127.0.0.1", udp_port=1),
             grpc.StatusCode.NOT_FOUND, "unknown job 99"),
            (stub.AdmitWorker, pb.AdmitWorkerRequest(job_id=7, rank=5, ip="127.0.0.1", udp_port=1),
             grpc.StatusCode.INVALID_ARGUMENT, "no rank 5"),
            (stub.RemoveJob, pb.RemoveJobRequest(job_id=99), grpc.StatusCode.NOT_FOUND, "unknown job 99"),
        ]  # fmt: skip
        for call, request, code, says in refusals:
            with pytest.raises(grpc.RpcError) as info_:
                call(request)
            assert info_.value.code() == code and says in info_.value.details(), info_.value.details()
        counters = stub.Counters(pb.CountersRequest(job_ids=[7, 99]))
        assert list(counters.jobs) == [7]  # 99 is not served: left out
        assert dict(counters.jobs[7].counters) == {"packets": 0, "drops": 0, "retransmissions": 0, "rounds": 0}
        stub.RemoveJob(pb.RemoveJobRequest(job_id=7))
        assert stub.Describe(pb.DescribeRequest()).jobs == 0 and aggregator.engine.jobs() == []


def test_aggregator_command_with_admin_and_no_job():
    proc = subprocess.Popen(
        [sys.executable, "-m", "p4reduce", "aggregator", "--bind", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(
            r"p4reduce aggregator on 127\.0\.0\.1:(\d+) serving no job yet; admin on 127\.0\.0\.1:(\d+)\n", line
        )
        assert m is not None, line
        with grpc.insecure_channel(f"127.0.0.1:{m[2]}") as ch:
            assert pb_grpc.AggregatorAdminStub(ch).Describe(pb.DescribeRequest(), timeout=10).port == int(m[1])
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "--job SPEC is needed (or --admin HOST:PORT"),
        (["--admin", "127.0.0.1:0", "--threads", "2"], "--admin serves one aggregator thread"),
    ],
)
def test_aggregator_command_names_what_is_missing(capsys, argv, says):
    assert cli(["aggregator", "--bind", "127.0.0.1:0", *argv]) == 2
    assert says in capsys.readouterr().err


def test_an_aggregator_out_of_reach_for_a_while_is_told_of_the_jobs_released_meanwhile():
    """Its admin API goes away (a network blip, say) while it keeps serving: its jobs fail,
    and a job released meanwhile is removed from it once it answers again, so that its
    slots can take a new job."""
    with running_aggregator() as running, service_over(admin_entry(running, slots=[0, 8])) as service:
        aggregator = running.server
        with JobClient(service.address) as client:
            job = client.create_job("blip", 2, num_slots=8)
            port = running.admin.address[1]
            running.admin.stop()

            def lost() -> bool:
                try:
                    client.keep_alive(job.job_id)
                except JobServiceError as exc:
                    return exc.cause.startswith(AGGREGATOR_LOST)
                return False

            wait_until(lost, "KeepAlive answered 'aggregator lost'", timeout=10)
            client.release_job(job.job_id)
            assert [s.job_id for s in aggregator.engine.jobs()] == [job.job_id]  # out of reach: still there
            running.admin = AdminServer(aggregator, ("127.0.0.1", port)).start()  # back
            wait_until(lambda: aggregator.engine.jobs() == [], "the released job to be removed from it", timeout=10)
            again = client.create_job("after", 2, num_slots=8)  # the same slots, free on both sides
            assert again.address == aggregator.address
            assert [s.job_id for s in aggregator.engine.jobs()] == [again.job_id]
