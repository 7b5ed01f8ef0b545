# SPDX-License-Identifier: Apache-2.0
"""Whatever arrives, the software aggregator's memory stays bounded: 200,000 hostile
datagrams from 2,000 source addresses grow its resident memory by less than 10 MB,
and a well-behaved job keeps working. Also: a member whose look-ahead never ends a
stream fails the job instead of growing the kept results."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import SESSION, joined_engine, run_workers

from p4reduce.aggregator import JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import NONE, AggHeader, ErrorCode, Flags, MsgType

SOURCES, PER_SOURCE = 2000, 100
STATS_INTERVAL = 0.05  # s between the aggregator's counter lines
QUIET_LINES = 12  # that many lines without a new datagram (0.6 s): it has taken in what will come


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def _hostile(rng: np.random.Generator, i: int) -> bytes:
    """Garbage, JOIN floods of job 2, job-1 packets with made-up sessions, strangers' RESETs."""
    kind = i % 5
    if kind == 0:
        return rng.bytes(int(rng.integers(0, 120)))
    if kind == 1:  # a new "process" of job 2 every time: members are replaced, not added
        return AggHeader(
            MsgType.JOIN, 2, int(rng.integers(0, 4)), 8, 0, int(rng.integers(1, 1 << 32)), 8, 8, 0, 4
        ).pack()
    if kind == 2:
        return AggHeader(
            MsgType.DATA,
            1,
            int(rng.integers(0, 2)),
            int(rng.integers(0, 8)),
            0,
            int(rng.integers(0, 1 << 32)),
            NONE,
            int(rng.integers(0, 1 << 32)),
            session=int(rng.integers(1, 1 << 32)),
            blocks=int(rng.integers(0, 1 << 32)),
        ).pack()
    if kind == 3:
        return AggHeader(MsgType.RESET, 1, 0, 0, 0, 0, NONE, session=int(rng.integers(1, 1 << 32))).pack()
    return AggHeader(MsgType.QUERY, int(rng.integers(0, 1 << 16)), 0, 0, 0, 0, 5).pack()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@contextlib.contextmanager
def _aggregator_process(*args: str) -> Iterator[tuple[subprocess.Popen, int, queue.Queue]]:
    """`p4reduce aggregator ARGS` on an ephemeral loopback port printing its counters every
    STATS_INTERVAL s: the process, its port, and a queue of the counters as they come."""
    agg = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "p4reduce",
            "aggregator",
            "--bind",
            "127.0.0.1:0",
            *args,
            "--stats-interval",
            str(STATS_INTERVAL),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    stats: queue.Queue[dict] = queue.Queue()
    try:
        port = int(agg.stdout.readline().split(" on ")[1].split()[0].rsplit(":", 1)[1])
        threading.Thread(
            target=lambda: [stats.put(json.loads(line)) for line in agg.stdout if line.startswith("{")], daemon=True
        ).start()
        yield agg, port, stats
    finally:
        agg.terminate()
        agg.wait(timeout=10)


def test_hostile_flood_keeps_memory_bounded_and_the_job_working():
    with _aggregator_process(
        "--job", "1:2:num_slots=8,block_size=8", "--job", "2:4:slot_base=8,num_slots=8,block_size=8"
    ) as (agg, port, stats):
        x = [np.arange(64, dtype=np.int32) * (r + 1) for r in range(2)]
        agents = [
            HostAgent(WorkerConfig(1, r, 2, aggregator=("127.0.0.1", port), num_slots=8, block_size=8, timeout=0.01))
            for r in range(2)
        ]
        for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):  # warm: buffers, imports
            np.testing.assert_array_equal(out, x[0] + x[1])
        stats.get(timeout=10)  # its loop went round since (it prints counters when idle)
        before = _rss_kib(agg.pid)
        rng = np.random.default_rng(0)
        sent = 0
        for s in range(SOURCES):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.bind((f"127.{1 + s // 250}.{s % 250}.{1 + s % 7}", 0))
                for i in range(PER_SOURCE):
                    sock.sendto(_hostile(rng, sent + i), ("127.0.0.1", port))
            sent += PER_SOURCE
            if s % 50 == 49:
                _wait_for(stats, sent)  # let it keep up: a full socket buffer only drops
        counters = _wait_for(stats, sent)
        after = _rss_kib(agg.pid)
        # A loaded machine may drop some in the kernel; most must have been handled.
        assert counters["packets_in"] >= 0.9 * SOURCES * PER_SOURCE
        # 10 MB for 200,000 hostile datagrams (a per-packet leak would be hundreds); under ASan
        # (.ci/sanitize) its allocator's redzones, caches and 4 MB quarantine come on top.
        limit_mb = 10 + (8 if "ASAN_OPTIONS" in os.environ else 0)
        assert after - before < limit_mb * 1024, f"RSS grew by {(after - before) / 1024:.1f} MB (limit {limit_mb})"
        # The flood made no one a member of job 1: its workers go on, with correct sums.
        for out in run_workers(lambda r: agents[r].allreduce(x[r] * 3), 2):
            np.testing.assert_array_equal(out, (x[0] + x[1]) * 3)
        for a in agents:
            a.close()


def _wait_for(stats: queue.Queue, packets: int, limit: float = 60.0) -> dict:
    """Counters once the aggregator has taken in `packets` datagrams, or has stopped
    taking in more (what the kernel dropped will not come)."""
    deadline, last, still = time.monotonic() + limit, {}, 0
    while time.monotonic() < deadline:
        now = stats.get(timeout=limit)
        if now.get("packets_in", 0) >= packets:
            return now
        still = still + 1 if now.get("packets_in") == last.get("packets_in") else 0
        if still >= QUIET_LINES:
            return now
        last = now
    raise AssertionError(f"the aggregator is still busy after {limit} s")


def test_lookahead_that_never_ends_a_stream_fails_the_job():
    engine = joined_engine([JobSpec(1, 1, num_slots=2, block_size=1)])

    def data(shadow, block, nxt, values=None, flags=0):
        return AggHeader(
            MsgType.DATA,
            1,
            0,
            0,
            shadow,
            0,
            block,
            nxt,
            count=0 if values is None else 1,
            flags=flags,
            session=SESSION,
            blocks=10,
        ).pack() + (b"\0\0\0\1" if values else b"")

    assert engine.handle(data(0, 0, 2, values=True, flags=Flags.OPENING)).event == "completed"
    assert engine.handle(data(1, 2, 4, values=True)).event == "completed"
    # Announcing the block it is in again (or any earlier one) would loop forever.
    refused = engine.handle(data(0, 4, 4, values=True))
    assert refused.event == "failed" and engine.failure(1) == (ErrorCode.BAD_BLOCKS, 0)
    reply = AggHeader.unpack(refused.replies[0].payload)
    assert (reply.msg_type, reply.block, reply.next_block) == (MsgType.ERROR, ErrorCode.BAD_BLOCKS, 0)


@pytest.mark.parametrize("nxt", [11, 3, 1 << 31])  # outside the tensor, another stream, far away
def test_lookahead_outside_the_tensor_or_stream_fails_the_job(nxt):
    engine = joined_engine([JobSpec(1, 1, num_slots=2, block_size=1)])
    h = AggHeader(MsgType.DATA, 1, 0, 0, 0, 0, 0, nxt, count=1, flags=Flags.OPENING, session=SESSION, blocks=10)
    assert engine.handle(h.pack() + b"\0\0\0\1").event == "failed"
    assert engine.failure(1) == (ErrorCode.BAD_BLOCKS, 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("engine", ["native", "python"])
def test_announced_length_attack_is_refused_and_memory_stays_bounded(engine):
    """A member announcing a tensor of 2^32-16 blocks, then 60,000 one-worker rounds that each
    complete at once: without a cap every RESULT would be kept (+63 MiB); the job's max_blocks
    (here the default) fails the job with TOO_LARGE in the opening round, and memory stays flat."""
    with _aggregator_process("--engine", engine, "--job", "1:1:num_slots=1,block_size=8") as (agg, port, stats):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as member:
            member.settimeout(5)
            member.connect(("127.0.0.1", port))
            member.send(AggHeader(MsgType.JOIN, 1, 0, 0, 0, 99, 8, 1, 0, 1).pack())
            session = AggHeader.unpack(member.recv(100)).session
            stats.get(timeout=10)
            before = _rss_kib(agg.pid)
            blocks = (1 << 32) - 16
            values = bytes(range(32))
            opening = AggHeader(
                MsgType.DATA, 1, 0, 0, 0, 0, 0, 1, count=8, flags=Flags.OPENING, session=session, blocks=blocks
            )
            member.send(opening.pack() + values)
            error = AggHeader.unpack(member.recv(100))
            assert (error.msg_type, error.block) == (MsgType.ERROR, ErrorCode.TOO_LARGE)
            sent = 1
            for b in range(1, 60_001):
                member.send(
                    AggHeader(MsgType.DATA, 1, 0, 0, b & 1, 0, b, b + 1, count=8, session=session, blocks=blocks).pack()
                    + values
                )
                sent += 1
                if b % 5000 == 4999:
                    _wait_for(stats, sent + 1)
            _wait_for(stats, sent + 1)
            after = _rss_kib(agg.pid)
        # 10 MB for 200,000 hostile datagrams (a per-packet leak would be hundreds); under ASan
        # (.ci/sanitize) its allocator's redzones, caches and 4 MB quarantine come on top.
        limit_mb = 10 + (8 if "ASAN_OPTIONS" in os.environ else 0)
        assert after - before < limit_mb * 1024, f"RSS grew by {(after - before) / 1024:.1f} MB (limit {limit_mb})"


def test_a_tensor_above_the_jobs_max_blocks_fails_the_job():
    engine = joined_engine([JobSpec(1, 2, num_slots=2, block_size=1, max_blocks=100)])
    ok = AggHeader(MsgType.DATA, 1, 0, 0, 0, 0, NONE, flags=Flags.OPENING, session=SESSION, blocks=100)
    assert engine.handle(ok.pack()).event == "counted"
    engine = joined_engine([JobSpec(1, 2, num_slots=2, block_size=1, max_blocks=100)])
    refused = engine.handle(ok._replace(blocks=101).pack())
    assert refused.event == "failed" and engine.failure(1) == (ErrorCode.TOO_LARGE, 0)
    assert JobSpec.parse("1:2:max_blocks=100").max_blocks == 100
    with pytest.raises(ValueError, match="max_blocks 0 outside"):
        JobSpec(1, 2, max_blocks=0)
