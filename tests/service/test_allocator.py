# SPDX-License-Identifier: Apache-2.0
"""Slot ranges, ids and sessions of the job service (p4reduce/service/allocator.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import Scripted

from p4reduce.service.allocator import IdAllocator, RangeAllocator, SessionSource
from p4reduce.service.errors import NoSlots


def test_first_fit_and_coalescing():
    pool = RangeAllocator(0, 100)
    a, b, c = pool.allocate(10), pool.allocate(20), pool.allocate(30)
    assert (a, b, c) == (0, 10, 30)
    pool.release(b)
    assert pool.free_ranges() == [(10, 20), (60, 40)]
    assert pool.allocate(5) == 10  # the first hole that holds it, not the largest
    pool.release(a)
    pool.release(c)
    assert pool.free_ranges() == [(0, 10), (15, 85)]
    pool.release(10)
    assert pool.free_ranges() == [(0, 100)]


def test_no_slots_names_the_ask_and_the_largest_range():
    pool = RangeAllocator(16, 64, what="slots on the switch")
    pool.allocate(32)
    pool.allocate(16)
    with pytest.raises(NoSlots, match=r"no free slots on the switch \(asked 32, largest free range 16\)"):
        pool.allocate(32)


def test_release_of_what_was_not_allocated():
    pool = RangeAllocator(0, 8)
    start = pool.allocate(4)
    with pytest.raises(ValueError, match="no range allocated at 1"):
        pool.release(start + 1)
    pool.release(start)
    with pytest.raises(ValueError):
        pool.release(start)


# A sequence of operations: allocate(size) or release(index into the live ranges).
operations = st.lists(
    st.one_of(
        st.tuples(st.just("allocate"), st.integers(1, 40)),
        st.tuples(st.just("release"), st.integers(0, 1000)),
    ),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50), st.integers(1, 200), operations)
def test_random_sequences_never_overlap_never_leak_and_coalesce(base, count, ops):
    pool = RangeAllocator(base, count)
    live: dict[int, int] = {}  # start -> size, as the test sees it
    for op, arg in ops:
        if op == "allocate":
            fits = any(length >= arg for _, length in pool.free_ranges())
            if fits:
                start = pool.allocate(arg)
                assert base <= start and start + arg <= base + count
                for other, size in live.items():
                    assert start + arg <= other or other + size <= start, "overlap"
                live[start] = arg
            else:
                with pytest.raises(NoSlots):
                    pool.allocate(arg)
        elif live:
            start = sorted(live)[arg % len(live)]
            pool.release(start)
            del live[start]
        # Every slot is free or in exactly one live range; free ranges are never adjacent.
        free = pool.free_ranges()
        assert pool.free + sum(live.values()) == count
        assert sorted(pool.used_ranges()) == sorted(live.items())
        for (s1, l1), (s2, _) in zip(free, free[1:], strict=False):
            assert s1 + l1 < s2, "adjacent free ranges not coalesced"
    for start in list(live):
        pool.release(start)
    assert pool.free_ranges() == [(base, count)]


def test_ids_round_robin_never_two_holders():
    ids = IdAllocator(1, 3, what="job ids")
    assert [ids.allocate() for _ in range(3)] == [1, 2, 3]
    with pytest.raises(NoSlots, match=r"no free job ids \(1\.\.3 all in use\)"):
        ids.allocate()
    ids.release(2)
    ids.release(1)
    assert ids.allocate() == 1  # after 3 comes 1 again: the oldest free first
    assert ids.allocate() == 2
    with pytest.raises(ValueError):
        ids.release(7)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=60))
def test_ids_never_held_twice(steps):
    ids = IdAllocator(5, 12)
    held: list[int] = []
    for take in steps:
        if take and ids.free:
            value = ids.allocate()
            assert value not in held and 5 <= value <= 12
            held.append(value)
        elif held:
            ids.release(held.pop(0))
    assert ids.free == 8 - len(held)


def test_sessions_non_zero_and_never_a_live_or_recent_one():
    sessions = SessionSource(Scripted(5, 5, 7, 5, 7, 9, 5, 7, 9, 11))
    first, second = sessions.new(), sessions.new()
    assert (first, second) == (5, 7)
    sessions.retire(first)
    assert sessions.new() == 9  # 5 is retired, 7 live
    sessions.retire(7)
    assert sessions.new() == 11


def test_sessions_forget_only_beyond_their_memory():
    sessions = SessionSource(Scripted(1, 2, 1), remember=1)
    sessions.retire(sessions.new())  # 1 retired
    sessions.retire(sessions.new())  # 2 retired: 1 forgotten
    assert sessions.new() == 1
