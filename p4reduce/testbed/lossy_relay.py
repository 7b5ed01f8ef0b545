# SPDX-License-Identifier: Apache-2.0
"""A UDP relay that loses, duplicates and delays datagrams on purpose.

Sits between workers and an aggregator on loopback to exercise retransmission
without root (tc netem in network namespaces is the real-network variant).
"""

from __future__ import annotations

import heapq
import itertools
import random
import selectors
import socket
import threading
import time

from p4reduce.testbed.impairment import Impairment


class LossyRelay:
    """Workers send to `address`; each worker gets its own upstream socket so the
    aggregator still sees one source address per worker."""

    def __init__(
        self, upstream: tuple[str, int], impairment: Impairment, seed: int = 0, host: str = "127.0.0.1"
    ) -> None:
        if impairment.rate_mbit is not None:
            raise ValueError("the relay does not limit bandwidth; use a network namespace")
        self.upstream = upstream
        self.impairment = impairment
        # reordered: datagrams sent after one that arrived later (what the delays did)
        self.stats = {"forwarded": 0, "dropped": 0, "duplicated": 0, "reordered": 0}
        self._last_sent = -1  # arrival number of the latest-arrived datagram sent so far
        self._rng = random.Random(seed)
        self._front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._front.bind((host, 0))
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._front, selectors.EVENT_READ, None)
        self._by_client: dict[tuple[str, int], socket.socket] = {}
        self._queue: list[tuple[float, int, socket.socket, bytes, tuple[str, int] | None]] = []
        self._tiebreak = itertools.count()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="lossy-relay", daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        return self._front.getsockname()

    def __enter__(self) -> LossyRelay:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in [self._front, *self._by_client.values()]:
            sock.close()
        self._sel.close()

    def _schedule(self, sock: socket.socket, data: bytes, dest: tuple[str, int] | None) -> None:
        imp = self.impairment
        if self._rng.random() < imp.loss:
            self.stats["dropped"] += 1
            return
        copies = 2 if self._rng.random() < imp.duplicate else 1
        self.stats["duplicated"] += copies - 1
        for _ in range(copies):
            due = time.monotonic() + self._rng.uniform(*imp.delay_range())
            heapq.heappush(self._queue, (due, next(self._tiebreak), sock, data, dest))

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = 0.05
            if self._queue:
                wait = max(0.0, min(wait, self._queue[0][0] - time.monotonic()))
            for key, _ in self._sel.select(wait):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data, src = sock.recvfrom(65535)
                except OSError:
                    continue
                if key.data is None:  # from a worker: forward upstream
                    up = self._by_client.get(src)
                    if up is None:
                        up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                        up.connect(self.upstream)
                        self._by_client[src] = up
                        self._sel.register(up, selectors.EVENT_READ, src)
                    self._schedule(up, data, None)
                else:  # from the aggregator: back to the worker
                    self._schedule(self._front, data, key.data)
            now = time.monotonic()
            while self._queue and self._queue[0][0] <= now:
                _, arrival, sock, data, dest = heapq.heappop(self._queue)
                self.stats["reordered"] += arrival < self._last_sent
                self._last_sent = max(self._last_sent, arrival)
                try:
                    sock.send(data) if dest is None else sock.sendto(data, dest)
                    self.stats["forwarded"] += 1
                except OSError:
                    self.stats["dropped"] += 1
