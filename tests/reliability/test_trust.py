# SPDX-License-Identifier: Apache-2.0
"""Every worker gets the same, correct result or an error naming the cause (issue classes:
restarted workers, idle slots, workers that disagree, admission, float32 overflow)."""

from __future__ import annotations

import socket
import threading

import numpy as np
import pytest
from conftest import run_workers, wait_until

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.config import WorkerAddress
from p4reduce.hostagent import GeometryMismatch, HostAgent, JobFailed, WorkerConfig
from p4reduce.protocol import NONE, AggHeader, ErrorCode, MsgType

FAST = dict(timeout=0.01, max_timeout=0.05, failure_timeout=3.0)


def _agent(srv, rank, n=2, job=1, **kw) -> HostAgent:
    cfg = dict(num_slots=4, block_size=8) | FAST | kw
    return HostAgent(WorkerConfig(job, rank, n, aggregator=srv.address, **cfg))


def _outcomes(agents, tensors) -> list[object]:
    """Each worker's result or the exception it raised, all run at once."""

    def one(r):
        try:
            return agents[r].allreduce(tensors[r])
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            return exc

    return run_workers(one, len(agents), timeout=30)


def _assert_all_fail(outcomes, code):
    """Every worker failed with `code`: a JobFailed is the aggregator's answer, so it came
    before any worker's failure_timeout (which would have raised AllreduceTimeout)."""
    for out in outcomes:
        assert isinstance(out, JobFailed), out
        assert out.code == code, out


# -- restarted workers ----------------------------------------------------------------
def test_restarted_worker_between_allreduces_fails_every_worker_then_recovers():
    x = [np.arange(40, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r) for r in range(2)]
        for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
            np.testing.assert_array_equal(out, x[0] + x[1])
        agents[1].close()
        agents[1] = _agent(srv, 1)  # the same rank, a new process
        outcomes = _outcomes(agents, x)
        _assert_all_fail(outcomes, ErrorCode.REJOINED)
        assert "worker 1 joined again with a new process" in str(outcomes[0])
        # Recovery: the new process is a member (its ERROR carried its session).
        agents[1].reset_job()
        agents[0].reset()
        for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
            np.testing.assert_array_equal(out, x[0] + x[1])
        for a in agents:
            a.close()


def test_worker_restarted_inside_an_allreduce_never_mixes_its_blocks():
    x = [np.full(64, r + 1, np.int32) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r) for r in range(2)]
        # Worker 1 starts an allreduce alone (its bootstraps are counted) and dies in it.
        doomed = threading.Thread(target=lambda: _outcomes([agents[1]], [x[1]]))
        doomed.start()
        wait_until(lambda: srv.counters().get("counted", 0) >= 4, "worker 1's 4 bootstraps counted")
        agents[1].close()
        doomed.join()
        agents[1] = _agent(srv, 1)
        _assert_all_fail(_outcomes(agents, x), ErrorCode.REJOINED)
        for a in agents:
            a.close()


# -- idle slots ---------------------------------------------------------------------------
def test_slot_idle_for_65536_allreduces_is_not_answered_from_old_results():
    """Empty tensors advance the epoch without touching any slot; 2^16 of them used to
    make slot 1's kept result of allreduce 0 look current again."""
    with AggregatorServer([JobSpec(1, 2, num_slots=2, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r, num_slots=2) for r in range(2)]
        first = [np.arange(16, dtype=np.int32) + r for r in range(2)]
        run_workers(lambda r: agents[r].allreduce(first[r]), 2)
        empty = np.zeros(0, np.int32)

        def idle_then_again(r):
            for _ in range(1 << 16):
                agents[r].allreduce(empty)
            return agents[r].allreduce(first[r] * 10)

        for out in run_workers(idle_then_again, 2, timeout=120):
            np.testing.assert_array_equal(out, (first[0] + first[1]) * 10)
        for a in agents:
            a.close()


# -- workers that disagree ------------------------------------------------------------------
@pytest.mark.parametrize(
    "override, field",
    [
        (dict(num_workers=3), "num_workers"),
        (dict(block_size=16), "block_size"),
        (dict(num_slots=2), "num_slots"),
        (dict(slot_base=4), "slot_base"),
        (dict(mode="dense"), "mode"),
    ],
)
def test_worker_with_other_geometry_fails_every_worker(override, field):
    x = [np.ones(64, np.int32)] * 2
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        n = override.pop("num_workers", 2)
        agents = [_agent(srv, 0), _agent(srv, 1, n=n, **override)]
        outcomes = _outcomes(agents, x)
        _assert_all_fail(outcomes, ErrorCode.GEOMETRY)
        assert f"a worker's {field} differs from the job's" in str(outcomes[0])
        for a in agents:
            a.close()


def test_worker_checks_the_geometry_a_switch_reports():
    """A switch does not refuse a JOIN; the worker compares the JOINED answer itself."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as fake_switch:
        fake_switch.bind(("127.0.0.1", 0))

        def answer():
            data, addr = fake_switch.recvfrom(100)
            h = AggHeader.unpack(data)
            joined = AggHeader(MsgType.JOINED, h.job_id, h.worker_id, 0, 0, h.epoch, 32, 1024, 1, 4, session=77)
            fake_switch.sendto(joined.pack(), addr)

        t = threading.Thread(target=answer)
        t.start()
        cfg = WorkerConfig(
            1, 0, 4, aggregator=fake_switch.getsockname(), mode="dense", block_size=32, num_slots=64, **FAST
        )
        with HostAgent(cfg) as agent, pytest.raises(GeometryMismatch, match="has num_slots 1024, this worker 64"):
            agent.allreduce(np.ones(64, np.float32))
        t.join()


@pytest.mark.parametrize(
    "second",
    [
        np.ones(64, np.float32),  # another dtype
        np.ones(72, np.int32),  # another length, same number of blocks in slot 0
        np.ones(200, np.int32),  # another number of blocks
    ],
)
def test_workers_with_other_tensors_all_fail(second):
    x = [np.ones(64, np.int32), second]
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r) for r in range(2)]
        outcomes = _outcomes(agents, x)
        for out in outcomes:
            assert isinstance(out, JobFailed) and out.code == ErrorCode.TENSOR, out
        assert any("disagree" in str(o) for o in outcomes)
        for a in agents:
            a.close()


def test_workers_with_other_fixed_point_scale_all_fail():
    x = [np.ones(64, np.float32)] * 2
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, 0), _agent(srv, 1, total_workers=4)]
        outcomes = _outcomes(agents, x)
        assert all(isinstance(o, JobFailed) and o.code == ErrorCode.TENSOR for o in outcomes), outcomes
        for a in agents:
            a.close()


def test_worker_that_skipped_an_allreduce_makes_every_worker_fail():
    x = np.ones(64, np.int32)
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r) for r in range(2)]
        run_workers(lambda r: agents[r].allreduce(x), 2)
        agents[0].allreduce(np.zeros(0, np.int32))  # worker 0 alone runs an (empty) allreduce
        outcomes = _outcomes(agents, [x, x])
        assert all(isinstance(o, JobFailed) and o.code in (ErrorCode.TENSOR, ErrorCode.SEQUENCE) for o in outcomes), (
            outcomes
        )
        for a in agents:
            a.close()


def test_two_live_processes_with_one_rank_fail_every_worker():
    x = [np.ones(64, np.int32)] * 3
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, 0), _agent(srv, 1), _agent(srv, 1)]
        outcomes = _outcomes(agents, x)
        # Whichever process of rank 1 the job counted, a worker's outcome is the right sum
        # of that allreduce or an error naming the cause; the other rank-1 process fails.
        errors = [o for o in outcomes if isinstance(o, Exception)]
        assert errors and isinstance(outcomes[1 if isinstance(outcomes[2], np.ndarray) else 2], JobFailed)
        for out in outcomes:
            if isinstance(out, np.ndarray):
                np.testing.assert_array_equal(out, x[0] * 2)
            else:
                assert isinstance(out, JobFailed), out
                assert out.code in (ErrorCode.SUPERSEDED, ErrorCode.REJOINED), out
        # The job stays failed: nobody can go on with two claims to one rank.
        assert srv.engine.failure(1)[0] in (ErrorCode.SUPERSEDED, ErrorCode.REJOINED)
        for a in agents:
            a.close()


# -- admission -----------------------------------------------------------------------------
def _session_of(agent: HostAgent) -> int:
    return agent._endpoints[0].session  # what an on-path observer would read off the wire


def test_spoofed_packets_from_other_addresses_change_nothing():
    x = [np.arange(64, dtype=np.int32) + r for r in range(2)]
    with (
        AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as spoofer,
    ):
        agents = [_agent(srv, r) for r in range(2)]
        run_workers(lambda r: agents[r].allreduce(x[r]), 2)  # both joined
        s0 = _session_of(agents[0])
        for session in (s0, 12345):  # the real session (as if observed), and a guessed one
            for msg, block, count in ((MsgType.DATA, NONE, 0), (MsgType.QUERY, 0, 0), (MsgType.RESET, NONE, 0)):
                h = AggHeader(msg, 1, 0, 0, 1, 1, block, 0, count=count, session=session, blocks=8)
                spoofer.sendto(h.pack(), srv.address)
        wait_until(
            lambda: srv.counters().get("drop_wrong_source", 0) + srv.counters().get("drop_not_joined", 0) >= 6,
            "the 6 spoofed packets handled",
        )
        counters = srv.counters()
        assert counters.get("reset", 0) == 0
        assert counters["drop_wrong_source"] == 3 and counters["drop_not_joined"] == 3
        for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
            np.testing.assert_array_equal(out, x[0] + x[1])
        for a in agents:
            a.close()


def test_reset_only_from_a_member():
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        stranger = _agent(srv, 0)
        stranger._endpoints[0].session = 999  # never joined: a made-up session
        with pytest.raises(JobFailed, match="does not know this worker's session"):
            stranger.reset_job(timeout=1.0)
        assert srv.counters().get("reset", 0) == 0
        stranger.close()


def _loopback_alias_works(ip: str) -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((ip, 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _loopback_alias_works("127.0.0.2"), reason="cannot bind 127.0.0.2 here")
def test_declared_worker_addresses_admit_only_those():
    declared = (WorkerAddress("127.0.0.2"), WorkerAddress("127.0.0.3"))
    spec = JobSpec(1, 2, num_slots=4, block_size=8, workers=declared)
    x = [np.arange(64, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([spec], host="127.0.0.1", port=0) as srv:
        intruder = _agent(srv, 0, failure_timeout=0.3)  # from 127.0.0.1: not declared
        with pytest.raises(TimeoutError, match="did not answer JOIN"):
            intruder.allreduce(x[0])
        intruder.close()
        agents = [_agent(srv, r, bind=(str(declared[r].ip), 0)) for r in range(2)]
        for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
            np.testing.assert_array_equal(out, x[0] + x[1])
        assert srv.counters()["drop_not_admitted"] >= 1
        for a in agents:
            a.close()


# -- sums out of range ------------------------------------------------------------------------
def test_float32_sum_overflow_raises_on_every_worker():
    x = [np.full(16, 3e38, np.float32)] * 2  # each finite, the sum is not
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        agents = [_agent(srv, r) for r in range(2)]
        outcomes = _outcomes(agents, x)
        for out in outcomes:
            assert isinstance(out, OverflowError) and "float32" in str(out), out
        for a in agents:
            a.close()


@pytest.mark.parametrize("job,rank,n,code", [(7, 0, 2, ErrorCode.UNKNOWN_JOB), (1, 2, 3, ErrorCode.UNKNOWN_RANK)])
def test_join_for_an_unserved_job_or_rank_is_answered_at_once(job, rank, n, code):
    """Not a 10-second wait for "did not answer JOIN": the aggregator says what is wrong."""
    with AggregatorServer([JobSpec(1, 2, num_slots=4, block_size=8)], port=0) as srv:
        # A JobFailed is the aggregator's answer: without one the JOIN would time out instead.
        agent = HostAgent(
            WorkerConfig(job, rank, n, aggregator=srv.address, num_slots=4, block_size=8, failure_timeout=10.0)
        )
        with pytest.raises(JobFailed) as failed:
            agent.allreduce(np.ones(8, np.int32))
        assert failed.value.code == code
        assert srv.engine.failure(1) is None  # nobody's job failed
        agent.close()


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("gap", [1 << 31, 1 << 32, (1 << 32) + 5])
def test_slot_idle_past_the_epoch_horizon_is_not_answered_from_old_results(engine, gap):
    """Slots idle for 2^31 or exactly 2^32 allreduces (the workers' epochs moved on by
    that much; empty tensors send nothing) used to drop the bootstrap or answer it from the
    kept results of the old allreduce. A slot idle longer than the horizon forgets them."""
    with AggregatorServer([JobSpec(1, 2, num_slots=2, block_size=8)], port=0, engine=engine) as srv:
        # A horizon shorter than the gap between two allreduces of a test: the slots between
        # them count as idle (the real one, 60 s, is longer than 2^31 allreduces take).
        srv.engine.idle_horizon = 1e-6
        agents = [_agent(srv, r, num_slots=2) for r in range(2)]
        first = [np.arange(16, dtype=np.int32) + r for r in range(2)]
        run_workers(lambda r: agents[r].allreduce(first[r]), 2)
        for a in agents:
            a._epoch = (a._epoch - 1 + gap) % (1 << 32)  # as after gap - 1 empty allreduces
        for out in run_workers(lambda r: agents[r].allreduce(first[r] * 10), 2):
            np.testing.assert_array_equal(out, (first[0] + first[1]) * 10)
        for a in agents:
            a.close()
