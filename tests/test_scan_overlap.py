# SPDX-License-Identifier: Apache-2.0
"""The native worker scans its tensor while its first streams run (p4reduce/_worker_scan.c):
the first packets leave before the scan ends, and NaN or Inf found after they left fails
the allreduce on every worker by name (docs/protocol.md 5), never a sum."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_workers

from p4reduce.aggregator.engine import JobSpec
from p4reduce.aggregator.server import AggregatorServer
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.hostagent.errors import AgentFailed, JobFailed
from p4reduce.hostagent.fixedpoint import NonFiniteInput
from p4reduce.protocol import ErrorCode

B, S = 256, 64
SIZE = 1 << 20  # 4096 blocks: 16 chunks of the native scan


def _tensors(n: int, density: float, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for _ in range(n):
        a = np.zeros(SIZE, np.float32)
        rows = a.reshape(-1, B)
        chosen = rng.random(rows.shape[0]) < density
        rows[chosen] = rng.standard_normal((int(chosen.sum()), B)).astype(np.float32)
        arrays.append(a)
    return arrays


def _agents(server: AggregatorServer, n: int, mode: str, **cfg: object) -> list[HostAgent]:
    return [
        HostAgent(WorkerConfig(1, r, n, aggregator=server.address, mode=mode, num_slots=S, block_size=B, **cfg))
        for r in range(n)
    ]


def _outcomes(agents: list[HostAgent], arrays: list[np.ndarray]) -> list[object]:
    def work(rank: int) -> object:
        try:
            return agents[rank].allreduce(arrays[rank])
        except (NonFiniteInput, JobFailed) as exc:
            return exc

    return run_workers(work, len(agents))


def test_the_first_packets_leave_before_the_scan_ends():
    arrays = _tensors(2, 0.1)
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B)], port=0) as server:
        agents = _agents(server, 2, "sparse")
        try:
            results = _outcomes(agents, arrays)
            for r, a in enumerate(agents):
                np.testing.assert_allclose(results[r], arrays[0] + arrays[1], rtol=1e-6, atol=1e-6)
                st = a.last_stats
                assert 0 < st.scanned_at_send < st.blocks // 2, st
                assert st.nonzero_blocks == int(arrays[r].reshape(-1, B).any(axis=1).sum())
        finally:
            for a in agents:
                a.close()


def test_the_python_engine_scans_everything_first():
    arrays = _tensors(1, 0.1)
    with AggregatorServer([JobSpec(1, 1, num_slots=S, block_size=B)], port=0) as server:
        (agent,) = _agents(server, 1, "sparse", engine="python")
        with agent:
            np.testing.assert_allclose(agent.allreduce(arrays[0]), arrays[0], rtol=1e-6, atol=1e-6)
            assert agent.last_stats.scanned_at_send == agent.last_stats.blocks


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("holders", ["alone", "shared"])
def test_a_nan_found_after_packets_left_fails_every_worker_by_name(mode, engine, holders):
    """Worker 0's NaN sits in the tensor's last block, far past what its first streams need:
    it raises ValueError naming the element, the others JobFailed TENSOR; with the NaN's block
    its own (the others' zero there), the poisoned round completes with its fingerprint alone."""
    n = 3
    arrays = _tensors(n, 0.1)
    bad = SIZE - 5
    arrays[0][bad] = np.nan
    for a in arrays[1:]:
        a[SIZE - B :] = 0.0 if holders == "alone" else 1.5
    spec = JobSpec(1, n, mode=mode, num_slots=S, block_size=B)
    with AggregatorServer([spec], port=0, engine=engine) as server:
        agents = _agents(server, n, mode, failure_timeout=30.0)
        try:
            results = _outcomes(agents, arrays)
            assert isinstance(results[0], NonFiniteInput), results[0]
            assert results[0].index == bad and results[0].sent
            assert f"flat index {bad}" in str(results[0])
            for r in results[1:]:
                assert isinstance(r, JobFailed) and r.code == ErrorCode.TENSOR, r
            assert agents[0].last_stats.packets_sent > 0
            with pytest.raises(AgentFailed, match="NaN"):
                agents[0].allreduce(arrays[1])
        finally:
            for a in agents:
                a.close()


@pytest.mark.parametrize("where", [3, 100_000], ids=["first chunk", "before the first packet"])
def test_a_nan_found_before_anything_left_sends_nothing_and_loses_nothing(where):
    """Found before the first packet left (in the chunk scanned before the run, or while the
    first stream looks for its first block): ValueError, nothing sent, and the worker's next
    allreduce is the one the others are at."""
    x = [np.zeros(SIZE, np.float32), np.zeros(SIZE, np.float32)]
    x[0][200_000:200_010] = 2.0
    x[1][300_000:300_010] = 3.0
    nan = x[0].copy()
    nan[:where] = 0.0
    nan[where] = np.inf
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B)], port=0) as server:
        agents = _agents(server, 2, "sparse")
        try:

            def work(rank: int) -> np.ndarray:
                if rank == 0:
                    with pytest.raises(NonFiniteInput, match=f"flat index {where}") as caught:
                        agents[0].allreduce(nan)
                    assert not caught.value.sent
                    stats = agents[0].last_stats  # (the JOIN, if it went, is counted)
                    assert stats is None or (stats.packets_sent <= 1 and stats.scanned_at_send == 0)
                return agents[rank].allreduce(x[rank])

            for out in run_workers(work, 2):
                np.testing.assert_array_equal(out, x[0] + x[1])
        finally:
            for a in agents:
                a.close()
