# SPDX-License-Identifier: Apache-2.0
"""Worker crash, aggregator restart, multi-job isolation."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import RETRANSMISSION_DROPS, block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import AgentFailed, AllreduceTimeout, HostAgent, JobFailed, WorkerConfig
from p4reduce.protocol import ErrorCode


def _agents(server, job, n, **kw):
    return [HostAgent(WorkerConfig(job, r, n, aggregator=server.address, **kw)) for r in range(n)]


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_silent_worker_is_named_then_reset_recovers(mode):
    n, kw = 3, dict(mode=mode, num_slots=4, block_size=8, timeout=0.01, failure_timeout=0.5)
    rng = np.random.default_rng(1)
    data = [block_sparse(rng, 200, 8, 0.5, np.int32) for _ in range(n)]
    with AggregatorServer([JobSpec(1, n, mode=mode, num_slots=4, block_size=8)], port=0) as srv:
        agents = _agents(srv, 1, n, **kw)
        # Worker 2 "crashes": it never calls allreduce.
        errors = run_workers(lambda r: _expect_timeout(agents[r], data[r]), 2)
        for err in errors:  # the failure timeout ended it (AllreduceTimeout), naming the silent worker
            assert err.missing_workers == [2], str(err)
            assert "waiting for worker(s) [2]" in str(err)
        with pytest.raises(AgentFailed):
            agents[0].allreduce(data[0])
        # Recovery: one worker resets the job on the aggregator, a replacement
        # for worker 2 starts, the survivors reset locally.
        agents[0].reset_job()
        agents[1].reset()
        agents[2].close()
        agents[2] = HostAgent(WorkerConfig(1, 2, n, aggregator=srv.address, **kw))
        outs = run_workers(lambda r: agents[r].allreduce(data[r]), n)
        for out in outs:
            np.testing.assert_array_equal(out, sum(data))
        assert srv.counters()["reset"] == 1
        for a in agents:
            a.close()


def _expect_timeout(agent, tensor):
    with pytest.raises(AllreduceTimeout) as info:
        agent.allreduce(tensor)
    return info.value


def test_worker_dies_mid_allreduce():
    """Worker 1 stops answering after some rounds: worker 0 fails naming it."""
    n = 2
    kw = dict(num_slots=2, block_size=4, timeout=0.01, failure_timeout=0.4)
    with AggregatorServer([JobSpec(1, n, num_slots=2, block_size=4)], port=0) as srv:
        agents = _agents(srv, 1, n, **kw)
        full = np.ones(400, np.int32)
        stop_after = threading.Event()

        def dying_worker() -> None:
            agents[1].allreduce(full)  # one good allreduce ...
            stop_after.set()
            agents[1].close()  # ... then the process is gone

        t = threading.Thread(target=dying_worker)
        t.start()
        np.testing.assert_array_equal(agents[0].allreduce(full), 2 * full)
        t.join()
        with pytest.raises(AllreduceTimeout) as info:
            agents[0].allreduce(full)
        assert info.value.missing_workers == [1]
        agents[0].close()


def test_aggregator_restart_gives_every_worker_a_clear_error_then_rejoin_works():
    """The restarted aggregator knows no sessions: every worker's next packet is answered
    with ERROR NOT_JOINED at once (no waiting for a timeout); after reset() they join the
    new aggregator and the next allreduce is right."""
    n, kw = 2, dict(num_slots=2, block_size=4, timeout=0.01, failure_timeout=5.0)
    spec = JobSpec(1, n, num_slots=2, block_size=4)
    srv = AggregatorServer([spec], port=0).start()
    addr = srv.address
    agents = _agents(srv, 1, n, **kw)
    tensor = np.ones(64, np.int32)
    run_workers(lambda r: agents[r].allreduce(tensor), n)
    srv.stop()
    srv2 = AggregatorServer([spec], host=addr[0], port=addr[1]).start()
    try:
        # JobFailed, not AllreduceTimeout: the new aggregator answered (failure_timeout is 5 s).
        errors = run_workers(lambda r: _expect(JobFailed, agents[r], tensor), n)
        assert all(e.code == ErrorCode.NOT_JOINED for e in errors)
        assert "does not know this worker's session" in str(errors[0])
        for a in agents:
            a.reset()
        outs = run_workers(lambda r: agents[r].allreduce(tensor * (r + 1)), n)
        for out in outs:
            np.testing.assert_array_equal(out, 3 * tensor)
    finally:
        srv2.stop()
        for a in agents:
            a.close()


def _expect(kind, agent, tensor):
    with pytest.raises(kind) as info:
        agent.allreduce(tensor)
    return info.value


def test_two_jobs_share_one_aggregator_without_interference():
    jobs = [
        JobSpec(1, 3, mode="sparse", slot_base=0, num_slots=8, block_size=16),
        JobSpec(2, 2, mode="dense", slot_base=8, num_slots=4, block_size=32),
    ]
    rng = np.random.default_rng(9)
    with AggregatorServer(jobs, port=0) as srv:
        a1 = _agents(srv, 1, 3, mode="sparse", slot_base=0, num_slots=8, block_size=16)
        a2 = _agents(srv, 2, 2, mode="dense", slot_base=8, num_slots=4, block_size=32)
        d1 = [[block_sparse(rng, 3000, 16, 0.2, np.int32) for _ in range(4)] for _ in range(3)]
        d2 = [[block_sparse(rng, 5000, 32, 0.5) for _ in range(4)] for _ in range(2)]
        everyone = [(a, d) for a, d in zip(a1, d1, strict=True)] + [(a, d) for a, d in zip(a2, d2, strict=True)]
        outs = run_workers(lambda i: [everyone[i][0].allreduce(x) for x in everyone[i][1]], 5)
        for it in range(4):
            for r in range(3):
                np.testing.assert_array_equal(outs[r][it], sum(d[it] for d in d1))
            exact = np.sum([d[it].astype(np.float64) for d in d2], axis=0)
            for r in range(3, 5):
                assert np.abs(outs[r][it] - exact).max() < 1e-4
        drops = {k for k in srv.counters() if k.startswith("drop_")}
        assert drops <= RETRANSMISSION_DROPS, drops
        for a in a1 + a2:
            a.close()
