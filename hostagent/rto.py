"""Retransmission timeout from measured round latency (RFC 6298 style).

A round's latency includes waiting for the slowest worker and the
aggregator's backlog, so a fixed timeout either fires spuriously (adding load
exactly when the aggregator is busy) or recovers losses slowly.
"""
from __future__ import annotations


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

    def sample_all(self, latencies: list[float]) -> None:
        """`sample` for each latency in turn, in one call."""
        srtt, rttvar = self.srtt, self.rttvar
        for seconds in latencies:
            if srtt is None:
                srtt, rttvar = seconds, seconds / 2
            else:
                rttvar = 0.75 * rttvar + 0.25 * abs(srtt - seconds)
                srtt = 0.875 * srtt + 0.125 * seconds
        self.srtt, self.rttvar = srtt, rttvar

    @property
    def rto(self) -> float:
        if self.srtt is None:
            return self._initial
        return min(self.maximum, max(self.minimum, self.srtt + 4 * self.rttvar))
