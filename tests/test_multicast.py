# SPDX-License-Identifier: Apache-2.0
"""Results sent once per round to an IP multicast group (software aggregator option)."""

from __future__ import annotations

import os
import socket

import numpy as np
import pytest
from conftest import block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.config import parse_group
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import ALL_WORKERS, AggHeader

GROUP = ("239.77.1.1", 41000 + os.getpid() % 10000)


def _multicast_on_loopback() -> bool:
    try:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        rx.bind(GROUP)
        rx.setsockopt(
            socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP[0]) + socket.inet_aton("127.0.0.1")
        )
        rx.close()
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(
    not _multicast_on_loopback(), reason="this host cannot join multicast groups on loopback"
)


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_multicast_results_are_exact_and_sent_once(mode):
    n, B, S = 3, 16, 4
    rng = np.random.default_rng(5)
    data = [block_sparse(rng, 900, B, 0.3, np.int32) for _ in range(n)]
    spec = JobSpec(1, n, mode=mode, num_slots=S, block_size=B, group=GROUP)
    with AggregatorServer([spec], port=0) as srv:
        agents = [
            HostAgent(WorkerConfig(1, r, n, aggregator=srv.address, mode=mode, num_slots=S, block_size=B, group=GROUP))
            for r in range(n)
        ]
        outs = run_workers(lambda r: [agents[r].allreduce(data[r]) for _ in range(2)], n)
        counters = srv.counters()
        for a in agents:
            a.close()
    for per_worker in outs:
        for out in per_worker:
            np.testing.assert_array_equal(out, sum(data))
    # One datagram per completed round; anything else sent is a unicast answer
    # to a retransmission (re-send or PENDING).
    answers = sum(counters.get(k, 0) for k in ("resent", "drop_duplicate", "drop_pending", "joined"))
    assert counters["packets_out"] == counters["completed"] + answers


def test_multicast_result_carries_all_workers_id():
    from conftest import SESSION, joined_engine

    from p4reduce.protocol import NONE, Flags, MsgType

    engine = joined_engine([JobSpec(1, 2, num_slots=1, block_size=4, group=GROUP)])
    for w in range(2):
        opening = AggHeader(MsgType.DATA, 1, w, 0, 0, 0, NONE, NONE, flags=Flags.OPENING, session=SESSION, blocks=1)
        done = engine.handle(opening.pack())
    assert [o.worker_id for o in done.replies] == [ALL_WORKERS]
    assert AggHeader.unpack(done.replies[0].payload).worker_id == ALL_WORKERS


@pytest.mark.parametrize("text", ["10.0.0.1:5000", "239.1.1.1", "239.1.1.1:0", "x:1"])
def test_group_must_be_a_multicast_address_and_port(text):
    with pytest.raises(ValueError, match="multicast group"):
        parse_group(text)
