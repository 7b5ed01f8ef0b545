# SPDX-License-Identifier: Apache-2.0
"""How jobs of the service end (docs/service.md, "How a job ends"): the workers' closes
release it, and a job the service drops or loses fails every worker at once with
AgentFailed naming why, also in the middle of an allreduce; a service that only stops
fails nobody; watchers never starve the other requests."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from conftest import run_workers, wait_until
from service_helpers import FakeClock, service_config
from test_remote_aggregators import admin_entry, running_aggregator, service_over

from p4reduce.hostagent import AgentFailed, HostAgent, WorkerConfig
from p4reduce.jobapi import JobClient, JobEvent, JobServiceError
from p4reduce.service import JobServer
from p4reduce.service.coordinator import JobCoordinator

LONG = 60.0  # failure_timeout: what a worker would wait without the service's word
BOUND = 20.0  # the word must arrive far sooner (generous on a busy machine)


@pytest.fixture
def server() -> Iterator[JobServer]:
    with JobServer(service_config(switch=False), "127.0.0.1:0", tick=0.05) as s:
        yield s


def agents_of(server: JobServer, name: str, n: int, engine: str = "native") -> list[HostAgent]:
    address = "{}:{}".format(*server.address)
    configs = [
        WorkerConfig(
            0, r, n, controller=address, job_name=name, bind=("127.0.0.1", 0), failure_timeout=LONG, engine=engine
        )
        for r in range(n)
    ]
    return [HostAgent(c) for c in configs]


def watch(client: JobClient, job_id: int) -> tuple[list[JobEvent], threading.Thread]:
    """The job's events as they arrive, gathered by a thread (ends with the stream)."""
    events: list[JobEvent] = []
    stream = client.watch_job(job_id)
    thread = threading.Thread(target=lambda: events.extend(stream), daemon=True)
    thread.start()
    return events, thread


class Failing:
    """Ranks that call allreduce while the others never do: they wait for those others
    until the service's word fails them; `ended` holds (error, seconds since `dropped`)."""

    def __init__(self, agents: list[HostAgent], ranks: list[int]) -> None:
        self.agents, self.ranks = agents, ranks
        self.dropped = 0.0
        self.ended: dict[int, tuple[BaseException | None, float]] = {}
        self.threads = [threading.Thread(target=self._run, args=(r,), daemon=True) for r in ranks]
        for t in self.threads:
            t.start()
        # Each past its JOIN and into the allreduce's rounds (the epoch counts on after the JOIN).
        wait_until(lambda: all(agents[r]._epoch == 1 for r in ranks), "the ranks in their allreduce")

    def _run(self, rank: int) -> None:
        error: BaseException | None = None
        try:
            self.agents[rank].allreduce(np.ones(5000, np.int32))
        except BaseException as exc:  # noqa: BLE001 - what the test looks at
            error = exc
        self.ended[rank] = (error, time.monotonic() - self.dropped)

    def drop(self, how: Callable[[], object]) -> None:
        self.dropped = time.monotonic()
        how()
        for t in self.threads:
            t.join(LONG + 10)

    def check(self, says: str) -> None:
        """Every rank failed with AgentFailed naming `says`, from inside its allreduce, soon."""
        for rank in self.ranks:
            error, seconds = self.ended[rank]
            assert isinstance(error, AgentFailed) and says in str(error), error
            assert seconds < BOUND, f"rank {rank} failed {seconds:.1f} s after the job was dropped"
            failed = self.agents[rank]._failed  # set only where the allreduce itself failed
            assert failed is not None and failed.startswith("AgentFailed"), failed


def idle_fails(agent: HostAgent, says: str) -> None:
    """A rank outside an allreduce learns it too: its next call fails naming `says`."""
    wait_until(lambda: agent._lease is not None and agent._lease.lost is not None, "the idle rank told", BOUND)
    with pytest.raises(AgentFailed, match=says):
        agent.allreduce(np.ones(10, np.int32))


def test_closing_every_registered_rank_releases_the_job(server):
    pool = server.coordinator.registry.fallback_slots[0]
    agents = agents_of(server, "closes", 3)
    with JobClient(server.address) as client:
        try:
            results = run_workers(lambda r: agents[r].allreduce(np.full(300, r, np.int32)), 3)
            assert all((r == 3).all() for r in results)
            job_id = agents[0].config.job_id
            events, watcher = watch(client, job_id)
            agents[0].close()
            agents[1].close()  # a partial close keeps the job and its slots
            [status] = client.list_jobs().jobs
            assert (status.job.job_id, status.registered) == (job_id, 3) and pool.free < pool.total
        finally:
            for a in agents:
                a.close()
        assert client.list_jobs().jobs == [] and pool.free == pool.total
        assert server.coordinator.fallback._running().engine.jobs() == []  # off the aggregator too
        watcher.join(BOUND)
        assert events[-1].ended and events[-1].reason == "released: every registered rank closed"
        assert [e.ended for e in events].count(True) == 1


def test_a_closed_rank_that_registers_again_is_open_again(server):
    with JobClient(server.address) as client:
        job = client.create_job("reopens", 2)
        for rank in range(2):
            client.register_worker(job.job_id, rank, "127.0.0.1", "", 41000 + rank)
        with pytest.raises(JobServiceError, match="INVALID_ARGUMENT: rank: 5 is not a registered rank"):
            client.close_worker(job.job_id, 5)
        assert client.close_worker(job.job_id, 0) == (1, False)
        client.register_worker(job.job_id, 0, "127.0.0.1", "", 41000)  # the same rank, again
        assert client.close_worker(job.job_id, 1) == (1, False)
        assert client.close_worker(job.job_id, 0) == (0, True)
        with pytest.raises(JobServiceError, match="NOT_FOUND"):
            client.close_worker(job.job_id, 0)
        with pytest.raises(JobServiceError, match="WatchJob: NOT_FOUND"):
            list(client.watch_job(job.job_id))


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_release_fails_the_workers_in_their_allreduce_at_once(server, engine):
    agents = agents_of(server, f"released-{engine}", 3, engine)
    try:
        failing = Failing(agents, [0, 1])  # rank 2 never calls: 0 and 1 wait for it
        with JobClient(server.address) as client:
            failing.drop(lambda: client.release_job(agents[0].config.job_id))
        failing.check("released by a ReleaseJob request")
        idle_fails(agents[2], "released by a ReleaseJob request")
    finally:
        for a in agents:
            a.close()


def test_a_lapsed_lease_fails_the_workers():
    clock = FakeClock()
    config = service_config(switch=False)
    coordinator = JobCoordinator(config, clock=clock)
    with JobServer(config, "127.0.0.1:0", tick=0.05, coordinator=coordinator) as server:
        agents = agents_of(server, "lapses", 2)
        try:
            failing = Failing(agents, [0])

            def lapse() -> None:
                clock.now += 10_000  # far past the lease (the keepers' KeepAlive comes every 10 s)
                coordinator.expire()

            failing.drop(lapse)
            failing.check("lease lapsed")
            idle_fails(agents[1], "lease lapsed")
        finally:
            for a in agents:
                a.close()


def test_a_lost_aggregator_fails_the_workers():
    with running_aggregator() as running, service_over(admin_entry(running)) as service:
        agents = agents_of(service, "loses", 2)
        try:
            failing = Failing(agents, [0])
            failing.drop(running.admin.stop)  # its admin API gone: the service counts it lost
            failing.check("aggregator lost")
            idle_fails(agents[1], "aggregator lost")
        finally:
            for a in agents:
                a.close()


def test_a_service_that_stops_fails_no_idle_worker(caplog):
    with JobServer(service_config(switch=False), "127.0.0.1:0", tick=0.05) as server:
        agents = agents_of(server, "outlives", 2)
    try:
        # Each watch stream ended and was opened again (refused: nothing listens) at least once.
        wait_until(lambda: all(a._lease is not None and a._lease.breaks >= 2 for a in agents), "the watches retry")
        for a in agents:
            assert a._lease is not None and a._lease.lost is None
            a._check_usable()
    finally:
        with caplog.at_level(logging.WARNING, logger="p4reduce.hostagent.service"):
            started = time.monotonic()
            for a in agents:
                a.close()
    assert time.monotonic() - started < BOUND  # CloseWorker to a silent service is bounded
    assert caplog.text.count("could not tell the job service it closed") == 2


def test_many_watchers_never_starve_the_other_requests():
    watchers = 12  # more than the 8 threads that serve the other requests
    with (
        JobServer(service_config(switch=False), "127.0.0.1:0", tick=0.05, watchers=watchers) as server,
        JobClient(server.address) as client,
    ):
        job = client.create_job("watched", 1)
        watched = [watch(client, job.job_id) for _ in range(watchers)]
        wait_until(lambda: all(events for events, _ in watched), "every watcher's first event")
        with pytest.raises(JobServiceError, match=f"WatchJob: RESOURCE_EXHAUSTED: {watchers} WatchJob streams"):
            list(client.watch_job(job.job_id))
        other = client.create_job("other", 1)  # answered while every watcher holds its stream
        client.register_worker(job.job_id, 0, "127.0.0.1", "", 42000)
        wait_until(lambda: all(len(events) == 2 for events, _ in watched), "every watcher told of the registration")
        client.release_job(job.job_id)
        for events, thread in watched:
            thread.join(BOUND)
            assert [e.registered for e in events] == [0, 1, 1]
            assert events[-1].ended and events[-1].reason == "released by a ReleaseJob request"
        assert [s.job.name for s in client.list_jobs().jobs] == [other.name]
