# SPDX-License-Identifier: Apache-2.0
"""Retransmission and re-send paths under loss, duplication and reordering (no root needed)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from conftest import block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.lossy_relay import LossyRelay

SCENARIOS = {
    "loss10": Impairment(loss=0.10),
    "dup20": Impairment(duplicate=0.20),
    "reorder": Impairment(delay_ms=2, jitter_ms=2),
    "mixed": Impairment(loss=0.05, duplicate=0.05, delay_ms=1, jitter_ms=1),
}


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_exact_results_under_impairment(mode, name):
    n, B, S = 3, 8, 6
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # the same data in every run
    with (
        AggregatorServer([JobSpec(1, n, mode=mode, num_slots=S, block_size=B)], port=0) as srv,
        LossyRelay(srv.address, SCENARIOS[name], seed=5) as relay,
    ):
        agents = [
            HostAgent(
                WorkerConfig(
                    1,
                    r,
                    n,
                    aggregator=relay.address,
                    mode=mode,
                    num_slots=S,
                    block_size=B,
                    timeout=0.005,
                    max_timeout=0.05,
                )
            )
            for r in range(n)
        ]
        rounds = [[block_sparse(rng, 400, B, d, np.int32) for d in (0.05, 0.3, 1.0)] for _ in range(n)]
        outs = run_workers(lambda r: [agents[r].allreduce(x) for x in rounds[r]], n)
        for i in range(3):
            expected = sum(rounds[r][i] for r in range(n))
            for r in range(n):
                np.testing.assert_array_equal(outs[r][i], expected)
        # The impairments happened (else the test would prove nothing), and the aggregator saw them.
        imp, counters = SCENARIOS[name], srv.counters()
        if imp.loss:
            assert relay.stats["dropped"] > 0
            assert counters.get("resent", 0) + counters.get("drop_duplicate", 0) > 0
        if imp.duplicate:
            assert relay.stats["duplicated"] > 0
            assert sum(counters.get(k, 0) for k in ("drop_duplicate", "drop_stale", "resent")) > 0
        if imp.jitter_ms:
            assert relay.stats["reordered"] > 0
        for a in agents:
            a.close()
