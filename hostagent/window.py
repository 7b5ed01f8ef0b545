# SPDX-License-Identifier: Apache-2.0
"""How many streams a worker keeps in flight: an AIMD window (TCP-style) over streams.

Each stream has one packet outstanding, so the number of streams a worker has
started and not finished is its number of packets in flight. All of them at
once (the configured slots) can overflow small switch buffers: BMv2 takes only
32 frames of a burst per port before its receive ring drops, and each lost
packet stalls its round for a retransmission timeout (at least 50 ms, where a
round through BMv2 takes about a millisecond).

The window starts at the configured slots, as workers did before it existed:
a path that never loses (a software aggregator with large socket buffers)
keeps it there. The first loss, a retransmission timeout, halves it; later
loss events take 30% off (`FIRST_DECREASE`, `DECREASE`). After a loss the
window grows by one stream per window of clean rounds (one per round trip),
and only on rounds that did not wait in queues: at most `QUEUE_FACTOR` times
the base latency, the lowest the smoothed round latency has been lately (this
epoch of `BASE_EPOCH` rounds and the one before). Growing past
the point where packets queue adds delay and, sooner or later, the next loss,
and this path has shown that it has a limit.

Every allreduce starts its first streams back to back, a burst rather than
rounds paced by results. After a loss, an allreduce therefore starts from a
window known to pass as a burst: the one that followed the last loss, raised
to 3/4 of a larger window the previous allreduce ended with (like TCP's
restart after idle, RFC 5681 section 4.1, without the slow start).

Workers may hold different windows: every slot is independent, and a worker
only delays the start of a stream, never skips it (see HostAgent._drive). In
dense mode a lost packet stalls its round for every worker, so every worker's
timer fires and the windows shrink together.
"""

from __future__ import annotations

import math

from p4reduce import _native

# A round that takes longer than this many times the base latency (the lowest
# smoothed round latency seen) waited in queues: it does not grow the window.
QUEUE_FACTOR = 2.0
# The first loss halves the window: the configured slots it started from were a
# guess, not a size that ever worked. Later losses take 30% off a window that
# grew from one that worked (CUBIC's factor): random loss on a link then costs
# less window than halving, and a slight overshoot is still undone at once.
# Measured through BMv2 in Mininet (4 workers, 1% nftables drop per worker link,
# dense mode: one lost packet times out every worker): halving on every loss
# held the window at a few streams, 1.2-1.6 s per 100%-density allreduce
# against 0.29-0.34 s with 0.7 (0.29-0.32 s with no window at all); without
# loss the two were the same within the noise (README, Mininet table).
FIRST_DECREASE = 0.5
DECREASE = 0.7
# The base latency is the lowest smoothed latency of this epoch of clean rounds and the one
# before, not of all time (as BBR's min RTT expires): a machine that got busier (other jobs,
# a loaded aggregator) lengthens every round for good, and measured against a base from
# quieter times no round counts as unqueued, so a window a loss shrank would never grow.
BASE_EPOCH = 10_000


class StreamWindow:
    """Congestion window over streams in flight, between `minimum` and `limit`.

    Losses of rounds started before the last decrease belong to the loss event
    that caused it (one burst loses several packets) and shrink nothing further.
    """

    def __init__(self, limit: int, minimum: int = 1, base_epoch: int = BASE_EPOCH) -> None:
        if not 1 <= minimum <= limit:
            raise ValueError(f"need 1 <= minimum <= limit, got minimum {minimum}, limit {limit}")
        if base_epoch < 1:
            raise ValueError(f"need base_epoch >= 1, got {base_epoch}")
        self.limit, self.minimum, self.base_epoch = limit, minimum, base_epoch
        self._cwnd = float(limit)
        self._start = math.inf  # window an allreduce starts from; infinite: no loss yet
        self._smoothed = 0.0  # round latency, exponentially smoothed (as RFC 6298's SRTT)
        # The lowest smoothed latency of this epoch and the one before (BASE_EPOCH): rounds
        # that did not queue; and this epoch's own lowest, and its rounds so far.
        self._base = math.inf
        self._epoch_low = math.inf
        self._epoch_rounds = 0
        self._last_decrease = -math.inf
        self.decreases = 0  # loss events that shrank the window

    @property
    def size(self) -> int:
        """Streams that may be in flight now."""
        return max(self.minimum, min(self.limit, int(self._cwnd)))

    @property
    def lossless(self) -> bool:
        """No loss yet: the window is the configured slots."""
        return self._start == math.inf

    def restart(self) -> None:
        """An allreduce starts."""
        if self._cwnd > self._start:
            self._start = max(self._start, 0.75 * self._cwnd)
            self._cwnd = self._start

    def on_round(self, latency: float) -> None:
        """A round completed `latency` seconds after it was sent, without a
        retransmission of ours (a retransmitted round neither grows the window
        nor, its loss having done that, shrinks it again; nor is its latency
        known: Karn)."""
        self._smoothed = latency if self._base == math.inf else 0.875 * self._smoothed + 0.125 * latency
        self._base = min(self._base, self._smoothed)
        self._epoch_low = min(self._epoch_low, self._smoothed)
        self._epoch_rounds += 1
        if self._epoch_rounds >= self.base_epoch:  # the epoch before this one is forgotten
            self._base, self._epoch_low, self._epoch_rounds = self._epoch_low, math.inf, 0
        if self.lossless or latency > QUEUE_FACTOR * self._base:
            return
        self._cwnd = min(self._cwnd + 1.0 / self._cwnd, float(self.limit))

    def on_rounds(self, latencies: _native.Latencies) -> None:
        """`on_round` for each latency in turn, in one call: the native engine hands them
        over a batch at a time, a float64 buffer (or any sequence of floats). The loop runs
        in C (p4reduce._native.window_feed), bit for bit like `on_round`."""
        self._smoothed, self._base, self._cwnd, self._epoch_low, self._epoch_rounds = _native.window_feed(
            self._smoothed,
            self._base,
            self._cwnd,
            float(self.limit),
            not self.lossless,
            QUEUE_FACTOR,
            self._epoch_low,
            self._epoch_rounds,
            self.base_epoch,
            _native.float64_buffer(latencies),
        )

    def on_loss(self, round_started: float, now: float) -> bool:
        """A round started at `round_started` is presumed lost at `now` (its
        retransmission timer expired). Returns whether the window shrank."""
        if round_started < self._last_decrease:
            return False
        factor = FIRST_DECREASE if self.lossless else DECREASE
        self._cwnd = max(float(self.minimum), self._cwnd * factor)
        self._start = self._cwnd
        self._last_decrease = now
        self.decreases += 1
        return True
