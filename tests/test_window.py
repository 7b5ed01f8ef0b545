# SPDX-License-Identifier: Apache-2.0
"""The host agent's window over streams in flight (hostagent/window.py): the AIMD
policy on its own, and what the agent does with it (starts at most a window of
streams, releases more as they finish, shrinks on loss, stays exact whatever
windows the workers hold)."""

from __future__ import annotations

import math
import socket
import threading

import numpy as np
import pytest
from conftest import block_sparse, run_workers
from hypothesis import given, settings
from hypothesis import strategies as st

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.hostagent.window import DECREASE, FIRST_DECREASE, QUEUE_FACTOR, StreamWindow
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, decode_values, encode

# -- the policy ---------------------------------------------------------------------------


def lossy(limit: int = 64, at: int | None = None) -> StreamWindow:
    """A window that has seen one loss (halved from `limit`), then as many more as
    bring its size to `at` or below, if given (an allreduce starts from it)."""
    w = StreamWindow(limit)
    w.on_round(0.001)
    w.on_loss(0.0, 1.0)
    if at is not None:
        while w.size > at:
            w.on_loss(2.0 + w.decreases, 2.0 + w.decreases)
    return w


def test_starts_at_the_configured_slots_and_keeps_them_without_loss():
    w = StreamWindow(64)
    assert (w.size, w.lossless, w.decreases) == (64, True, 0)
    for latency in (0.001, 0.5, 0.002):  # delayed or not: nothing to grow to
        w.on_round(latency)
    w.restart()
    assert (w.size, w.lossless) == (64, True)


def test_the_first_loss_halves_later_ones_take_30_percent_once_per_loss_event():
    w = StreamWindow(64)
    assert w.on_loss(round_started=1.0, now=2.0)
    assert (w.size, w.decreases, w.lossless) == (32, 1, False)  # FIRST_DECREASE: 64 * 0.5
    # Other rounds of the same burst, sent before the decrease: the same event.
    assert not w.on_loss(round_started=1.5, now=2.1)
    assert not w.on_loss(round_started=1.99, now=2.6)
    assert w.size == 32
    # A round sent after the decrease was lost anew: DECREASE, 32 * 0.7 = 22.4.
    assert w.on_loss(round_started=2.2, now=2.7)
    assert (w.size, w.decreases) == (22, 2) and math.isclose(w._cwnd, 22.4)
    assert not w.on_loss(round_started=2.69, now=2.8)
    assert w.on_loss(round_started=2.8, now=2.9)  # 22.4 * 0.7 = 15.68
    assert (w.size, w.decreases) == (15, 3) and math.isclose(w._cwnd, 15.68)
    assert (FIRST_DECREASE, DECREASE) == (0.5, 0.7)


def test_never_below_the_minimum_nor_above_the_limit():
    w = StreamWindow(8, minimum=2)
    for i in range(10):
        w.on_loss(float(i), float(i))
    assert w.size == 2
    for _ in range(10_000):
        w.on_round(0.001)
    assert w.size == 8


@pytest.mark.parametrize("limit, minimum", [(0, 1), (4, 0), (4, 5)])
def test_bad_bounds_refused(limit, minimum):
    with pytest.raises(ValueError):
        StreamWindow(limit, minimum=minimum)


def test_after_a_loss_one_more_stream_per_window_of_clean_rounds():
    w = lossy(64)
    assert w.size == 32
    for _ in range(32):
        w.on_round(0.001)
    assert w.size == 32  # 1/32 of a stream per round, each a little less as it grows
    w.on_round(0.001)
    assert w.size == 33


def test_rounds_delayed_by_queueing_do_not_grow_the_window():
    w = lossy(64)  # its base latency: 1 ms (its only round so far)
    for _ in range(200):  # the smoothed latency rises to 3 ms; the base stays at its lowest
        w.on_round(0.001 * QUEUE_FACTOR * 1.5)
    assert w.size == 32 and math.isclose(w._base, 0.001)
    w.on_round(0.001 * QUEUE_FACTOR)  # at the limit: not delayed
    w.on_round(0.0005)  # shorter than the base: not delayed either
    assert math.isclose(w._cwnd, 32 + 1 / 32 + 1 / (32 + 1 / 32))


def test_the_base_latency_is_the_lowest_smoothed_latency_not_one_fast_round():
    w = lossy(64)  # base 1 ms
    w.on_round(0.0001)  # one outlier: the smoothed latency moves 1/8 of the way to it
    assert math.isclose(w._base, 0.875 * 0.001 + 0.125 * 0.0001)
    # So rounds of 1.5 ms still grow the window (below 2 x 0.89 ms); against the
    # outlier alone (2 x 0.1 ms) they would all have counted as queued.
    cwnd = w._cwnd
    for _ in range(10):
        w.on_round(0.0015)
    assert w._cwnd > cwnd + 9 / 33
    # A lasting change of the path moves the base down with it.
    for _ in range(100):
        w.on_round(0.0002)
    assert math.isclose(w._base, 0.0002, rel_tol=1e-3)
    grown = w._cwnd
    w.on_round(0.0005)  # 2.5 x the new base: queued
    assert w._cwnd == grown


def test_the_base_latency_of_quieter_times_expires_after_two_epochs():
    """A machine that got busier lengthens every round for good: against the base of its
    quiet time no round would count as unqueued, and a window a loss shrank would never grow
    again. The base is the lowest smoothed latency of this epoch and the one before."""
    from p4reduce.hostagent.window import BASE_EPOCH

    w = StreamWindow(64)
    for _ in range(100):
        w.on_round(0.0001)  # quiet: 0.1 ms rounds
    w.on_loss(0.0, 1.0)
    for _ in range(2000):
        w.on_round(0.001)  # busy from now on: 1 ms rounds, 10x the base
    shrunk = w._cwnd
    assert shrunk == 32 and math.isclose(w._base, 0.0001)
    rounds = 2100
    while w._cwnd == shrunk:  # the quiet epoch is forgotten within two epochs
        w.on_round(0.001)
        rounds += 1
        assert rounds <= 2 * BASE_EPOCH
    assert math.isclose(w._base, 0.001) and rounds > BASE_EPOCH
    for _ in range(64):
        w.on_round(0.001)
    assert w._cwnd > shrunk + 1.5  # and now it grows by one per window of rounds


def test_an_allreduce_starts_from_a_window_known_to_pass_as_a_burst():
    w = lossy(64)
    for _ in range(128):  # an allreduce grows it to 35.8
        w.on_round(0.001)
    assert w.size == 35
    w.restart()  # 3/4 of 35.8 is below 32: back to the window that followed the loss
    assert w.size == 32
    for _ in range(600):  # to 47.2
        w.on_round(0.001)
    assert w.size == 47
    w.restart()  # 3/4 of a larger window that ran without a loss
    assert w.size == 35
    for _ in range(3):
        w.on_round(0.001)
    w.restart()  # the start only rises: 3/4 of 35.4 is below 35.4
    assert w.size == 35


@settings(max_examples=200, deadline=None)
@given(
    limit=st.integers(1, 300),
    minimum=st.integers(1, 300),
    events=st.lists(st.tuples(st.sampled_from(["round", "loss", "restart"]), st.floats(0.0, 1.0)), max_size=300),
)
def test_any_event_sequence_stays_within_bounds(limit, minimum, events):
    minimum = min(minimum, limit)
    w = StreamWindow(limit, minimum=minimum)
    now = 0.0
    for kind, x in events:
        now += x
        if kind == "round":
            w.on_round(x)
        elif kind == "loss":
            w.on_loss(now - x, now)
        else:
            w.restart()
        assert minimum <= w.size <= limit


# -- the agent ----------------------------------------------------------------------------


class OneWorkerSwitch:
    """A dense aggregator for a job of one worker, on loopback, that records what it
    gets: every DATA completes its round, and the RESULT carries the packet's own
    values (zeros when header-only) and look-ahead, as a switch would answer.

    `hold`: answer nothing until `hold` DATA have come (the first burst, all of it seen
    whatever the machine's speed). `ring`: a queue of this many packets, served a few
    per millisecond, that drops what arrives while it is full, like BMv2's
    receive ring of 32 frames per port.
    """

    def __init__(self, block_size: int, num_slots: int, hold: int = 0, ring: int | None = None) -> None:
        self.block_size, self.num_slots, self.hold, self.ring = block_size, num_slots, hold, ring
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.01)
        self.first_burst: list[int] = []  # slots of the DATA that came before any answer
        self.max_in_flight = 0
        self.dropped = 0
        self._open: set[int] = set()  # slots with an unanswered DATA
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        return self.sock.getsockname()

    def __enter__(self) -> OneWorkerSwitch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()

    def _serve(self) -> None:
        answered = False  # anything yet: the first burst is over
        held: list[tuple[bytes, tuple]] = []
        queue: list[tuple[bytes, tuple]] = []
        while not self._stop.is_set():
            try:
                while True:  # the first read waits a little, the others take what is there
                    packet = self.sock.recvfrom(65535)
                    self.sock.setblocking(False)
                    if self.ring is not None and len(queue) >= self.ring:
                        self.dropped += 1
                    else:
                        queue.append(packet)
            except (BlockingIOError, TimeoutError):
                pass
            finally:
                self.sock.settimeout(0.001 if queue else 0.01)
            served = len(queue) if self.ring is None else 4  # per millisecond or so
            batch, queue = queue[:served], queue[served:]
            for raw, addr in batch:
                h = AggHeader.unpack(raw)
                if h.msg_type == MsgType.JOIN:  # the job's geometry as a switch has it
                    self.sock.sendto(
                        h._replace(
                            msg_type=MsgType.JOINED,
                            block=self.block_size,
                            next_block=self.num_slots,
                            exp=1,
                            next_exp=1,
                            session=7,
                            blocks=0,
                        ).pack(),
                        addr,
                    )
                    continue
                if not answered:
                    self.first_burst.append(h.slot)
                self._open.add(h.slot)
                self.max_in_flight = max(self.max_in_flight, len(self._open))
                held.append((raw, addr))
            if not answered and len(held) < self.hold:
                continue
            answered = True
            for raw, addr in held:
                h = AggHeader.unpack(raw)
                values = None
                if h.block != NONE:
                    values = decode_values(raw, self.block_size) if h.count else np.zeros(self.block_size, np.int32)
                # The RESULT of a one-worker round: the packet itself (an opening round's too,
                # whose smallest block is this worker's), OPENING cleared (bit 0 is OVERFLOW there).
                result = h._replace(
                    msg_type=MsgType.RESULT,
                    count=0 if values is None else self.block_size,
                    flags=h.flags & ~Flags.OPENING,
                )
                self._open.discard(h.slot)
                self.sock.sendto(encode(result, values), addr)
            held.clear()


def one_worker_agent(switch: OneWorkerSwitch, **cfg) -> HostAgent:
    return HostAgent(
        WorkerConfig(
            1,
            0,
            1,
            aggregator=switch.address,
            mode="dense",
            num_slots=switch.num_slots,
            block_size=switch.block_size,
            message_size=0,
            **cfg,
        )
    )


def test_agent_starts_a_window_of_streams_and_releases_more_as_they_finish():
    B, S = 8, 32
    x = np.arange(1, B * S * 4 + 1, dtype=np.int32)  # 4 rounds in every stream, the first its opening
    # The switch answers once it holds 3 DATA (a window of 3 sends no more before an answer);
    # the agent's timeout is far longer than that takes: no retransmission in the burst.
    with OneWorkerSwitch(B, S, hold=3) as switch, one_worker_agent(switch, timeout=10, max_timeout=10) as agent:
        # As if this worker had lost packets before: 32 -> 16 -> 11.2 -> 7.84 -> 5.49 -> 3.84.
        agent.engine.io.window = lossy(S, at=4)
        assert agent.engine.io.window.size == 3
        np.testing.assert_array_equal(agent.allreduce(x), x)
        # The first burst: the opening DATA of the window's first streams, in stream order.
        assert switch.first_burst == [0, 1, 2]
        assert switch.max_in_flight <= agent.engine.io.window.size
        stats = agent.last_stats
        assert stats.retransmissions == 0 and stats.packets_sent == 1 + S * 4  # JOIN, 4 rounds each


def test_agent_shrinks_its_window_where_bursts_are_lost_and_stays_exact():
    B, S, ring = 8, 64, 12
    rng = np.random.default_rng(4)
    x = block_sparse(rng, B * S * 3, B, 0.5, np.int32)
    with OneWorkerSwitch(B, S, ring=ring) as switch, one_worker_agent(switch) as agent:
        retransmissions = []
        for _ in range(6):
            np.testing.assert_array_equal(agent.allreduce(x), x)
            retransmissions.append(agent.last_stats.retransmissions)
        assert switch.dropped > 0 and agent.engine.io.window.decreases >= 1
        assert agent.engine.io.window.size <= 2 * ring
        # The first allreduce loses much of its first burst of 64; once the window
        # has shrunk, the rest lose little or nothing.
        assert retransmissions[0] >= S // 2
        assert sum(retransmissions[3:]) < retransmissions[0]


@pytest.mark.parametrize("mode", ["dense", "sparse"])
def test_workers_with_different_windows_still_agree(mode):
    """Each worker starts streams in order and never pauses a started one, so the
    lowest unfinished stream always progresses whatever windows the others hold."""
    n, B, S = 3, 8, 16
    rng = np.random.default_rng(9)
    arrays = [block_sparse(rng, B * S * 6, B, 0.4, np.int32) for _ in range(n)]
    with AggregatorServer([JobSpec(1, n, mode=mode, num_slots=S, block_size=B)], port=0) as server:
        agents = [
            HostAgent(WorkerConfig(1, r, n, aggregator=server.address, mode=mode, num_slots=S, block_size=B))
            for r in range(n)
        ]
        try:
            agents[0].engine.io.window = lossy(S, at=1)
            agents[1].engine.io.window = lossy(S, at=3)
            outs = run_workers(lambda r: [agents[r].allreduce(arrays[r]) for _ in range(2)], n)
            for out in outs:
                for result in out:
                    np.testing.assert_array_equal(result, np.sum(arrays, axis=0))
        finally:
            for a in agents:
                a.close()
