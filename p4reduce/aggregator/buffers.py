# SPDX-License-Identifier: Apache-2.0
"""Reuse of result datagrams between allreduces.

A slot keeps every RESULT of the running allreduce for re-sends and drops them
all when the next allreduce starts. Allocating those 64 KB buffers afresh each
time costs page faults (the allocator hands freed memory back to the kernel),
so retired buffers are recycled instead. A retired buffer may still sit in the
server's send queue, so it only becomes reusable once the owner reports that
the queue was handed to the kernel (`flushed`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable


class BufferPool:
    def __init__(self, limit_bytes: int = 64 << 20) -> None:
        self._limit = limit_bytes
        self._held = 0  # bytes in `_free`
        self._retired: list[bytearray] = []
        self._free: defaultdict[int, list[bytearray]] = defaultdict(list)

    def take(self, size: int) -> bytearray:
        """A buffer of `size` bytes with unspecified content."""
        free = self._free.get(size)
        if free:
            self._held -= size
            return free.pop()
        return bytearray(size)

    def retire(self, buffers: Iterable[bytearray]) -> None:
        """Buffers nobody will read once the pending sends are out."""
        self._retired.extend(buffers)

    def flushed(self) -> None:
        """Everything queued for sending so far has been handed to the kernel."""
        for buf in self._retired:
            if self._held + len(buf) > self._limit:
                break
            self._free[len(buf)].append(buf)
            self._held += len(buf)
        self._retired.clear()
