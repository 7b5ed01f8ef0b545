# SPDX-License-Identifier: Apache-2.0
"""Retransmission timeout from measured round latency (RFC 6298 style).

A round's latency includes waiting for the slowest worker and the
aggregator's backlog, so a fixed timeout either fires spuriously (adding load
exactly when the aggregator is busy) or recovers losses slowly.
"""

from __future__ import annotations

from p4reduce import _native


class RtoEstimator:
    def __init__(self, initial: float, minimum: float, maximum: float) -> None:
        self.minimum, self.maximum = minimum, maximum
        self._initial = initial
        self.srtt: float | None = None
        self.rttvar = 0.0

    def sample(self, seconds: float) -> None:
        """Feed the latency of a round that needed no retransmission (Karn's rule)."""
        if self.srtt is None:
            self.srtt, self.rttvar = seconds, seconds / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - seconds)
            self.srtt = 0.875 * self.srtt + 0.125 * seconds

    def sample_all(self, latencies: _native.Latencies) -> None:
        """`sample` for each latency in turn, in one call: `latencies` is a float64
        buffer (what the native worker returns) or a sequence of floats. The loop runs
        in C (p4reduce._native.rto_feed), bit for bit like `sample`."""
        self.srtt, self.rttvar = _native.rto_feed(self.srtt, self.rttvar, _native.float64_buffer(latencies))

    @property
    def rto(self) -> float:
        if self.srtt is None:
            return self._initial
        return min(self.maximum, max(self.minimum, self.srtt + 4 * self.rttvar))
