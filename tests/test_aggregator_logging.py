# SPDX-License-Identifier: Apache-2.0
"""What the software aggregator logs: jobs, worker addresses, resets, streams, drops."""

from __future__ import annotations

import logging
import socket

import numpy as np
from conftest import allreduce_all

from p4reduce.aggregator import AggregatorServer, JobSpec


def test_aggregator_logs_jobs_streams_and_drops(caplog):
    caplog.set_level(logging.DEBUG, logger="p4reduce.aggregator")
    with AggregatorServer([JobSpec(3, 2, num_slots=4, block_size=16)], port=0) as server:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"\x01\x01", server.address)  # truncated header
        arrays = [np.arange(64, dtype=np.int32) + r for r in range(2)]
        results, _, counters = allreduce_all(arrays, server=server, job_id=3, block_size=16, num_slots=4)
    np.testing.assert_array_equal(results[0], arrays[0] + arrays[1])
    text = caplog.text
    assert "serving job 3 (2 workers, sparse, slots 0..3, block 16)" in text
    assert "job 3 worker 0 joined from 127.0.0.1:" in text and "job 3 worker 1 joined from" in text
    assert "dropped a datagram from 127.0.0.1:" in text and ": truncated" in text
    done = [r for r in caplog.records if "stream of allreduce 0 complete" in r.getMessage()]
    assert len(done) == 4 == counters["streams_completed"]  # 4 blocks, one per slot
    assert all(r.levelno == logging.DEBUG for r in done)
    complete = [r for r in caplog.records if r.getMessage() == "job 3: allreduce 0 complete"]
    assert len(complete) == 1 and complete[0].levelno == logging.INFO
    assert counters["allreduces_completed"] == 1


def test_aggregator_is_quiet_at_warning(caplog):
    caplog.set_level(logging.WARNING, logger="p4reduce.aggregator")
    allreduce_all([np.ones(32, np.int32)] * 2)
    assert caplog.records == []
