# SPDX-License-Identifier: Apache-2.0
"""A job's streams spread over several aggregators (sharded aggregation, spec 6.2)."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest
from conftest import block_sparse, cli_aggregator, run_cli_workers, run_workers

from p4reduce.aggregator import JobSpec, sharded_servers
from p4reduce.hostagent import GeometryMismatch, HostAgent, WorkerConfig
from p4reduce.testbed.synthetic import worker_tensor


def _agents(servers, n, **kw):
    addresses = tuple(s.address for s in servers)
    return [HostAgent(WorkerConfig(1, r, n, aggregator=addresses[0], aggregators=addresses, **kw)) for r in range(n)]


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_three_shards_give_exact_sums_and_split_the_streams(mode, caplog):
    caplog.set_level(logging.INFO, logger="p4reduce.aggregator")
    rng = np.random.default_rng(8)
    data = [[block_sparse(rng, 40 * 16, 16, 0.4, np.int32) for _ in range(3)] for _ in range(3)]
    servers = sharded_servers([JobSpec(1, 3, mode=mode, num_slots=8, block_size=16)], 3, port=0)
    try:
        for s in servers:
            s.start()
        agents = _agents(servers, 3, mode=mode, num_slots=8, block_size=16)
        outs = run_workers(lambda r: [agents[r].allreduce(x) for x in data[r]], 3)
        for i in range(3):
            for r in range(3):
                np.testing.assert_array_equal(outs[r][i], sum(d[i] for d in data))
        counters = [s.counters() for s in servers]
        # Every shard did its share, none saw another's slot; each logged every allreduce.
        assert all(c["completed"] > 0 and c.get("drop_bad_slot", 0) == 0 for c in counters)
        want = sorted([f"job 1: allreduce {e} complete" for e in range(3)] * 3)

        def done() -> list[str]:
            return sorted(
                r.getMessage()
                for r in caplog.records
                if r.getMessage().endswith("complete")
                and "allreduce" in r.getMessage()
                and "slot" not in r.getMessage()
            )

        # A native aggregator logs a batch's events after sending its results: the workers
        # may return before the last allreduce's line is written.
        deadline = time.monotonic() + 10
        while done() != want and time.monotonic() < deadline:
            time.sleep(0.01)
        assert done() == want
        agents[0].reset_job()
        for a in agents[1:]:
            a.reset()
        outs = run_workers(lambda r: agents[r].allreduce(data[r][0]), 3)
        np.testing.assert_array_equal(outs[0], sum(d[0] for d in data))
        assert all(s.counters()["reset"] == 1 for s in servers)
        for a in agents:
            a.close()
    finally:
        for s in servers:
            s.stop()


def test_worker_listing_the_shards_wrongly_is_told():
    servers = sharded_servers([JobSpec(1, 1, num_slots=4, block_size=8)], 2, port=0)
    try:
        for s in servers:
            s.start()
        reversed_list = (servers[1].address, servers[0].address)
        cfg = WorkerConfig(1, 0, 1, aggregator=reversed_list[0], aggregators=reversed_list, num_slots=4, block_size=8)
        with HostAgent(cfg) as agent, pytest.raises(GeometryMismatch, match="has shard 1/2, this worker 0/2"):
            agent.allreduce(np.ones(64, np.int32))
    finally:
        for s in servers:
            s.stop()


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(aggregators=(("127.0.0.1", 1),) * 5, num_slots=4), "5 aggregators for 4 slots"),
        (dict(aggregators=(("127.0.0.1", 1),) * 2, bind=("0.0.0.0", 4000)), "bind to port 0"),
    ],
)
def test_bad_worker_sharding_config(kw, message):
    with pytest.raises(ValueError, match=message):
        WorkerConfig(1, 0, 2, **kw)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1:2:shard=2/2", "shard 2/2"),
        ("1:2:num_slots=2,shard=0/3", "shard 0/3"),
        ("1:2:shard=1", "INDEX/COUNT"),
        ("1:2:shard=0/2,upstream=10.0.0.1,up_job=2,up_rank=0", "cannot be sharded"),
    ],
)
def test_bad_shard_specs(text, message):
    with pytest.raises(ValueError, match=message):
        JobSpec.parse(text)


def test_cli_aggregator_threads_and_worker_list(tmp_path):
    with cli_aggregator("--threads", "2", "--job", "3:2:block_size=16,num_slots=4") as (agg, endpoints):
        assert endpoints.count(",") == 1
        results = run_cli_workers(endpoints, 3, 2, tmp_path, "--block-size", "16", "--slots", "4")
    expected = sum(worker_tensor(0, r, 500, 16, 0.1, "int32") for r in range(2))
    for result in results:
        np.testing.assert_array_equal(result, expected)
