# SPDX-License-Identifier: Apache-2.0
"""An off-path attacker on loopback: it forges the aggregator's (or a worker's) source
address with a raw socket and knows every public value (job, slots, epochs, the
fingerprint), but not the sessions. Nothing it sends may change a sum or fail a worker;
the aggregator answers it at most once per datagram (issue 19, points 1 and 3)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from conftest import can_spoof, run_workers, spoof_udp

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.config import WorkerAddress
from p4reduce.aggregator.replies import ANSWER_BURST, ANSWER_RATE
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import EXP_BIAS, NONE, AggHeader, MsgType, fingerprint

pytestmark = pytest.mark.skipif(can_spoof() is not None, reason=str(can_spoof()))

B, S = 8, 2
FAST = dict(timeout=0.02, max_timeout=0.1, failure_timeout=5.0, num_slots=S, block_size=B)


def _forged_results(tensor_len: int, dtype: np.dtype) -> list[bytes]:
    """RESULTs for every round an allreduce of this tensor could be in, as a blind
    spoofer makes them: right epoch and fingerprint, guessed sessions, values 666."""
    blocks = -(-tensor_len // B)
    tag = fingerprint(0, tensor_len, dtype, B, S, 2)
    forged = []
    for session in (0, 1, 0xFFFFFFFF, 0x12345678):
        for worker in (0, 1, 0xFF):
            for slot in range(S):
                for shadow in (0, 1):
                    stream = [b for b in range(slot, blocks, S)]
                    for block, nxt in zip([NONE, *stream], [*stream, NONE], strict=True):
                        count = 0 if block == NONE else B
                        h = AggHeader(
                            MsgType.RESULT,
                            1,
                            worker,
                            slot,
                            shadow,
                            0,
                            block,
                            nxt,
                            EXP_BIAS,
                            EXP_BIAS,
                            count,
                            0,
                            session,
                            blocks,
                            tag,
                        )
                        forged.append(h.pack() + np.full(count, 666, ">i4").tobytes())
                    forged.append(
                        AggHeader(MsgType.ERROR, 1, worker, slot, shadow, 0, 1, worker, session=session).pack()
                    )
    return forged


@pytest.mark.parametrize("engine", ["native", "python"])
def test_forged_results_and_errors_from_the_aggregators_address_are_ignored(engine):
    x = [np.arange(1, 4 * B + 1, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B)], port=0) as srv:
        agents = [HostAgent(WorkerConfig(1, r, 2, aggregator=srv.address, engine=engine, **FAST)) for r in range(2)]
        try:
            outs: list = [None]
            first = threading.Thread(target=lambda: outs.__setitem__(0, agents[0].allreduce(x[0])))
            first.start()  # worker 0 joins and waits in its bootstrap round for worker 1
            time.sleep(0.3)
            forged = _forged_results(x[0].size, x[0].dtype)
            for _ in range(3):
                spoof_udp(srv.address, agents[0].address, forged)
            time.sleep(0.2)
            second = agents[1].allreduce(x[1])
            first.join(30)
            expected = x[0] + x[1]
            np.testing.assert_array_equal(outs[0], expected)
            np.testing.assert_array_equal(second, expected)
            assert agents[0].last_stats.ignored_packets >= 3 * len(forged)  # they did arrive
        finally:
            for a in agents:
                a.close()


def test_spoofed_query_from_a_declared_address_fails_nobody():
    """A QUERY with a made-up session from worker 0's declared address makes the aggregator
    answer worker 0 with ERROR NOT_JOINED; that ERROR echoes the made-up session, so the
    worker ignores it and the job goes on."""
    x = [np.arange(4 * B, dtype=np.int32) + r for r in range(2)]
    ports = []
    for _ in range(2):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    declared = tuple(WorkerAddress("127.0.0.1", p) for p in ports)
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B, workers=declared)], port=0) as srv:
        agents = [
            HostAgent(WorkerConfig(1, r, 2, aggregator=srv.address, bind=("127.0.0.1", ports[r]), **FAST))
            for r in range(2)
        ]
        try:
            run_workers(lambda r: agents[r].allreduce(x[r]), 2)  # joined
            query = AggHeader(MsgType.QUERY, 1, 0, 0, 0, 1, 0, NONE, session=0xBAD5E55, blocks=4).pack()
            spoof_udp(("127.0.0.1", ports[0]), srv.address, [query] * 5)
            time.sleep(0.2)
            assert srv.counters()["drop_not_joined"] == 5
            for _ in range(2):
                for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
                    np.testing.assert_array_equal(out, x[0] + x[1])
        finally:
            for a in agents:
                a.close()


@pytest.mark.parametrize("engine", ["native", "python"])
def test_one_datagram_of_many_headers_is_answered_once(engine):
    """No reflector: 1,800 JOINs in one datagram with a victim's source address get one
    answer; a stream of such datagrams gets at most the per-source burst."""
    with (
        AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B)], port=0, engine=engine) as srv,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as victim,
    ):
        victim.bind(("127.0.0.1", 0))
        victim.settimeout(0.5)
        joins = b"".join(AggHeader(MsgType.JOIN, 1, i % 2, 0, 0, i, B, S, 0, 2).pack() for i in range(1800))
        spoof_udp(victim.getsockname(), srv.address, [joins])
        got = [victim.recv(65536)]
        with pytest.raises(socket.timeout):
            victim.recv(65536)
        assert len(got[0]) == 36
        stale = AggHeader(MsgType.QUERY, 1, 0, 0, 0, 1, 0, NONE, session=7).pack()
        started = time.monotonic()
        spoof_udp(victim.getsockname(), srv.address, [stale * 100] * 200)  # 200 datagrams at once
        # Every stale header the aggregator took in (a busy machine's kernel may drop some of
        # the 200 datagrams: counted, not assumed) was answered or counted as refused; its
        # answers are in the victim's buffer once it has counted them (loopback).
        counters = _settled(srv, lambda c: c.get("datagrams_in", 0) == 1 + 200)
        victim.setblocking(False)
        answers = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                victim.recv(65536)
                answers += 1
        # the burst, and what the rate refilled meanwhile (not one per packet: 20,000)
        assert 1 <= answers <= ANSWER_BURST + ANSWER_RATE * (time.monotonic() - started) + 1
        assert counters["drop_not_joined"] >= 100
        assert counters["answers_limited"] >= 1799 + counters["drop_not_joined"] - answers


def _settled(srv: AggregatorServer, done: Callable[[dict[str, int]], bool]) -> dict[str, int]:
    """The aggregator's counters once they stop changing (a datagram's packets are counted
    after the datagram): for 0.2 s once `done` holds of them, else for 1 s (the kernel
    dropped some datagrams). Bounded by 30 s, only to turn a hang into a failure."""
    deadline = time.monotonic() + 30
    last, still_since = srv.counters(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        counters = srv.counters()
        if counters != last:
            last, still_since = counters, time.monotonic()
        elif time.monotonic() - still_since >= (0.2 if done(counters) else 1.0):
            return counters
    raise AssertionError("the aggregator's counters kept changing for 30 s")
