# SPDX-License-Identifier: Apache-2.0
"""How many answers an aggregator gives to requests it cannot authenticate.

JOINED and ERROR go to whatever address a JOIN, or a packet with an unknown session,
came from, and UDP source addresses can be forged: without a limit, one datagram of
many headers aimed at the aggregator with a victim's source address would make it
send the victim one answer per header (a reflector). So (docs/protocol.md 6.1):

* at most one such answer per incoming datagram, and
* at most `rate` per second to any one source address (a token bucket of `burst`),
  for the `sources` addresses seen most recently (an older one starts afresh).

Answers to a member's authenticated packets (RESULT, PENDING, the RESET echo) are not
limited here: they need the member's session and address.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

ANSWER_RATE = 20.0  # answers per second and source address
ANSWER_BURST = 20
TRACKED_SOURCES = 4096


class AnswerLimiter:
    def __init__(
        self,
        rate: float = ANSWER_RATE,
        burst: int = ANSWER_BURST,
        sources: int = TRACKED_SOURCES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1 or sources < 1:
            raise ValueError("need rate > 0, burst >= 1 and sources >= 1")
        self.rate, self.burst, self.sources, self._clock = rate, burst, sources, clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # tokens, when
        self._answered: Hashable = None  # the datagram last answered

    def allow(self, source: Hashable, datagram: Hashable = None) -> bool:
        """Whether an answer to `source` may go out for datagram `datagram` (any value that
        is the same for the packets of one datagram and differs between datagrams; None:
        a packet that came alone)."""
        if datagram is not None and datagram == self._answered:
            return False
        now = self._clock()
        tokens, then = self._buckets.pop(source, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[source] = (tokens, now)
            return False
        self._buckets[source] = (tokens - 1.0, now)
        while len(self._buckets) > self.sources:
            self._buckets.popitem(last=False)
        self._answered = datagram
        return True


__all__ = ["ANSWER_BURST", "ANSWER_RATE", "AnswerLimiter"]
