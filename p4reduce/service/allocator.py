# SPDX-License-Identifier: Apache-2.0
"""What the service hands out: slot ranges, multicast group ids, job ids and sessions.

Pure bookkeeping, no I/O. Slot ranges are taken first fit from a pool and given back
coalesced with their free neighbours, so a pool whose jobs are all gone is one range
again; ids are handed out round robin, so a released id is the last to come back
(stale packets of a finished job rarely meet a new job of the same id).
"""

from __future__ import annotations

import bisect
import random
from collections import deque

from p4reduce.service.errors import NoSlots

MAX_SESSION = 2**32 - 1  # a 32-bit header field; 0 is what a JOIN carries


class RangeAllocator:
    """Contiguous ranges of [base, base + count): first fit, coalescing on release."""

    def __init__(self, base: int, count: int, what: str = "slots") -> None:
        if base < 0 or count < 1:
            raise ValueError(f"{what}: a pool needs base >= 0 and count >= 1, got [{base}, {count}]")
        self.base, self.total, self.what = base, count, what
        self._free: list[tuple[int, int]] = [(base, count)]  # (start, length), by start, never adjacent
        self._used: dict[int, int] = {}  # start -> length

    @property
    def free(self) -> int:
        return sum(length for _, length in self._free)

    @property
    def largest_free(self) -> int:
        return max((length for _, length in self._free), default=0)

    def free_ranges(self) -> list[tuple[int, int]]:
        """The free (start, length) ranges in order."""
        return list(self._free)

    def used_ranges(self) -> list[tuple[int, int]]:
        """The allocated (start, length) ranges in order."""
        return sorted(self._used.items())

    def fits(self, count: int) -> bool:
        return self.largest_free >= count

    def allocate(self, count: int) -> int:
        """The start of a new range of `count`: the lowest free range that holds it."""
        if count < 1:
            raise ValueError(f"{self.what}: cannot allocate {count}")
        for i, (start, length) in enumerate(self._free):
            if length >= count:
                if length == count:
                    del self._free[i]
                else:
                    self._free[i] = (start + count, length - count)
                self._used[start] = count
                return start
        raise NoSlots(f"no free {self.what} (asked {count}, largest free range {self.largest_free})")

    def hold(self, start: int, count: int) -> None:
        """Take exactly [start, start + count) (a range recorded before a restart, or one a
        target holds); ValueError when any of it is not free."""
        for i, (free_start, length) in enumerate(self._free):
            if free_start <= start and start + count <= free_start + length:
                pieces = [(free_start, start - free_start), (start + count, free_start + length - start - count)]
                self._free[i : i + 1] = [p for p in pieces if p[1] > 0]
                self._used[start] = count
                return
        raise ValueError(f"{self.what} {start}..{start + count - 1} are not all free")

    def release(self, start: int) -> None:
        """Give back the range that starts at `start`, merged with free neighbours."""
        try:
            length = self._used.pop(start)
        except KeyError:
            raise ValueError(f"{self.what}: no range allocated at {start}") from None
        i = bisect.bisect(self._free, (start, 0))
        if i < len(self._free) and start + length == self._free[i][0]:  # the next one
            length += self._free.pop(i)[1]
        if i > 0 and self._free[i - 1][0] + self._free[i - 1][1] == start:  # the previous one
            start, previous = self._free.pop(i - 1)
            length += previous
            i -= 1
        self._free.insert(i, (start, length))


class IdAllocator:
    """Integers of [first, last], none given twice while held; round robin."""

    def __init__(self, first: int, last: int, what: str = "ids") -> None:
        if not 0 <= first <= last:
            raise ValueError(f"{what}: need 0 <= first <= last, got {first}..{last}")
        self.first, self.last, self.what = first, last, what
        self._held: set[int] = set()
        self._next = first

    @property
    def total(self) -> int:
        return self.last - self.first + 1

    @property
    def free(self) -> int:
        return self.total - len(self._held)

    def held(self) -> set[int]:
        return set(self._held)

    @property
    def next(self) -> int:
        """Where the round robin goes on (what a restart resumes from)."""
        return self._next

    def resume(self, value: int) -> None:
        """Go on from `value` (clamped into first..last), as before a restart."""
        self._next = min(max(value, self.first), self.last)

    def hold(self, value: int) -> None:
        """Take `value` (one recorded before a restart); ValueError when held or out of range."""
        if not self.first <= value <= self.last or value in self._held:
            raise ValueError(f"{self.what}: {value} is taken or outside {self.first}..{self.last}")
        self._held.add(value)

    def allocate(self) -> int:
        if self.free == 0:
            raise NoSlots(f"no free {self.what} ({self.first}..{self.last} all in use)")
        value = self._next
        while value in self._held:
            value = self.first if value == self.last else value + 1
        self._held.add(value)
        self._next = self.first if value == self.last else value + 1
        return value

    def release(self, value: int) -> None:
        try:
            self._held.remove(value)
        except KeyError:
            raise ValueError(f"{self.what}: {value} is not allocated") from None


class SessionSource:
    """Random non-zero 32-bit sessions, none equal to a live one or to one of the last
    `remember` retired ones: a job's new session never admits an old job's packets."""

    def __init__(self, rng: random.Random | None = None, remember: int = 1 << 16) -> None:
        self._rng = rng or random.SystemRandom()
        self._live: set[int] = set()
        self._retired: deque[int] = deque(maxlen=remember)
        self._retired_set: set[int] = set()

    def new(self) -> int:
        while (session := self._rng.randint(1, MAX_SESSION)) in self._live or session in self._retired_set:
            pass
        self._live.add(session)
        return session

    def adopt(self, session: int) -> None:
        """A live session recorded before a restart: never drawn again while it lives."""
        self._live.add(session)

    def retire(self, session: int) -> None:
        self._live.discard(session)
        if len(self._retired) == self._retired.maxlen:
            self._retired_set.discard(self._retired[0])
        self._retired.append(session)
        self._retired_set.add(session)


__all__ = ["MAX_SESSION", "IdAllocator", "RangeAllocator", "SessionSource"]
