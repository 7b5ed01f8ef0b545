# SPDX-License-Identifier: Apache-2.0
"""Packet counters of the software aggregator (drops are counted by reason)."""

from __future__ import annotations

import threading
from collections import Counter


class Counters:
    """Thread-safe named counters; the server thread writes, anyone reads a snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: Counter[str] = Counter()

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self._values[name] += amount

    def add_many(self, amounts: dict[str, int]) -> None:
        """Several counters under one lock acquisition (once per packet on the fast path)."""
        with self._lock:
            for name, amount in amounts.items():
                self._values[name] += amount

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)

    def drops(self) -> dict[str, int]:
        return {k.removeprefix("drop_"): v for k, v in self.snapshot().items() if k.startswith("drop_")}
