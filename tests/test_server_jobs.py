# SPDX-License-Identifier: Apache-2.0
"""Jobs added and removed while an AggregatorServer serves (what the job service's fallback
does from its gRPC threads): applied by the serving thread between batches, never while the
native core runs a batch without the GIL; the jobs already running keep exact sums."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from conftest import block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig


def _agents(server: AggregatorServer, job: int, n: int, slot_base: int = 0, num_slots: int = 8) -> list[HostAgent]:
    return [
        HostAgent(
            WorkerConfig(
                job,
                r,
                n,
                aggregator=server.address,
                slot_base=slot_base,
                num_slots=num_slots,
                block_size=16,
                failure_timeout=30,
            )
        )
        for r in range(n)
    ]


@pytest.mark.parametrize("engine", ["native", "python"])
def test_jobs_come_and_go_under_traffic(engine):
    rng = np.random.default_rng(7)
    data = [block_sparse(rng, 4096, 16, 0.3, np.float32) for _ in range(2)]
    expected = data[0].astype(np.float64) + data[1]
    with AggregatorServer([JobSpec(1, 2, num_slots=8, block_size=16)], port=0, engine=engine) as server:
        busy = _agents(server, 1, 2)
        stop = threading.Event()
        sums: list[np.ndarray] = []
        # Both ranks decide together whether to run one more allreduce (the barrier's action
        # runs once per crossing): a rank that started one the other never joins would wait
        # out its failure_timeout.
        going: list[bool] = []
        together = threading.Barrier(2, action=lambda: going.append(not stop.is_set()))

        def traffic(rank: int) -> None:
            while True:
                together.wait()
                if not going[-1]:
                    return
                got = busy[rank].allreduce(data[rank])
                if rank == 0:
                    sums.append(got)

        runner = threading.Thread(target=lambda: run_workers(traffic, 2), daemon=True)
        runner.start()
        try:
            # Ids 2..9 over and over while job 1 runs: at least 40 changes, and on until
            # job 1 has finished 3 allreduces meanwhile (its first one may take longer).
            deadline = time.monotonic() + 60
            round_ = 0
            while round_ < 40 or (len(sums) < 3 and time.monotonic() < deadline and runner.is_alive()):
                job = 2 + round_ % 8
                server.add_job(JobSpec(job, 2, num_slots=4, block_size=16, slot_base=8))
                server.remove_job(job)
                round_ += 1
        finally:
            stop.set()
            runner.join(60)
        assert not runner.is_alive() and sums
        for got in sums:
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
        # A job added while serving serves; errors of the engine reach the caller.
        server.add_job(JobSpec(20, 2, num_slots=4, block_size=16, slot_base=8))
        with pytest.raises(ValueError, match="20"):
            server.add_job(JobSpec(20, 2, num_slots=4, block_size=16, slot_base=8))
        fresh = _agents(server, 20, 2, slot_base=8, num_slots=4)
        outs = run_workers(lambda r: fresh[r].allreduce(np.full(64, r + 1, np.int32)), 2)
        assert all((o == 3).all() for o in outs)
        with pytest.raises((KeyError, ValueError), match="99"):
            server.remove_job(99)
        for agent in busy + fresh:
            agent.close()
