"""Leaf/spine aggregation: leaves are workers of the spine's job."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import block_sparse, run_workers
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.lossy_relay import LossyRelay
from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.relay import Upstream

B, S = 16, 6


def _hierarchy(mode: str, leaves: int, per_leaf: int, impairment: Impairment | None = None):
    spine = AggregatorServer([JobSpec(9, leaves, mode=mode, num_slots=S, block_size=B)], port=0)
    spine.start()
    relay = LossyRelay(spine.address, impairment, seed=3).__enter__() if impairment else None
    parent = relay.address if relay else spine.address
    leaf_servers = [AggregatorServer([JobSpec(1, per_leaf, mode=mode, num_slots=S, block_size=B,
                                              upstream=Upstream(parent[0], parent[1], 9, i))],
                                     port=0).start() for i in range(leaves)]
    agents = [HostAgent(WorkerConfig(1, r, per_leaf, aggregator=leaf.address, mode=mode,
                                     num_slots=S, block_size=B, total_workers=leaves * per_leaf,
                                     timeout=0.01, max_timeout=0.05))
              for leaf in leaf_servers for r in range(per_leaf)]
    return spine, relay, leaf_servers, agents


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("loss", [0.0, 0.1])
def test_two_leaves_one_spine(mode, loss):
    imp = Impairment(loss=loss) if loss else None
    spine, relay, leaves, agents = _hierarchy(mode, 2, 2, imp)
    rng = np.random.default_rng(7)
    n = len(agents)
    data = [[block_sparse(rng, 700, B, d, dtype) for d, dtype in
             ((0.1, np.int32), (0.5, np.float32), (1.0, np.int32))] for _ in range(n)]
    try:
        outs = run_workers(lambda r: [agents[r].allreduce(x) for x in data[r]], n)
    finally:
        for a in agents:
            a.close()
        for s in leaves:
            s.stop()
        if relay:
            relay.__exit__(None, None, None)
        spine.stop()
    for i in range(3):
        exact = np.sum([d[i].astype(np.float64) for d in data], axis=0)
        for r in range(n):
            np.testing.assert_array_equal(outs[r][i], outs[0][i])
        if data[0][i].dtype == np.int32:
            np.testing.assert_array_equal(outs[0][i], exact)
        else:
            from p4reduce.hostagent.fixedpoint import tensor_error_bound
            assert (np.abs(outs[0][i] - exact) <= tensor_error_bound([d[i] for d in data], B)).all()
    if loss:
        assert relay.stats["dropped"] > 0


def test_sparse_leaf_without_holders_stays_silent_upstream():
    """Only leaves with a worker announcing the block send it to the spine."""
    spine, _, leaves, agents = _hierarchy("sparse", 2, 2)
    zero = np.zeros(B * S, np.int32)
    one = zero.copy()
    one[:B] = 5  # block 0 held by the first worker of leaf 0 only
    try:
        outs = run_workers(lambda r: agents[r].allreduce(one if r == 0 else zero), 4)
    finally:
        for a in agents:
            a.close()
        for s in leaves:
            s.stop()
        spine.stop()
    for out in outs:
        np.testing.assert_array_equal(out, one)
    c = spine.counters()
    # S bootstrap rounds from each leaf + one data packet from leaf 0.
    assert c["counted"] + c["completed"] == 2 * S + 1


def test_job_spec_upstream_parsing():
    spec = JobSpec.parse("1:2:upstream=10.0.0.9:5000,up_job=9,up_rank=1")
    assert spec.upstream == Upstream("10.0.0.9", 5000, 9, 1)
    with pytest.raises(ValueError, match="need upstream"):
        JobSpec.parse("1:2:up_job=3")
