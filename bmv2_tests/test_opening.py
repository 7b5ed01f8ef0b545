# SPDX-License-Identifier: Apache-2.0
"""Opening rounds on simple_switch_grpc (docs/protocol.md section 3, the table, and
section 8): each worker's first DATA names its own first block; the RESULT is the data
round of the smallest one (b*) at the largest exponent its holders used, a REPEAT of it
when they disagree, or the end of an empty stream. Every arrival order gives the same
bytes, and a retransmitted opening DATA gets its copy of them again by unicast."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import Tap, Worker, data, frame, job_dict, opening, results, send_counted
from bmv2_tests.test_rounds import result_payload
from p4reduce.protocol import NONE, AggHeader, Flags, decode_values, is_repeat, scatter_flags

SHARD_BLOCKS = 7  # reduce-scatter: rank r owns blocks 7r .. 7r+6


def play_round(switch, tap: Tap, workers: list[Worker], packets: dict[int, bytes], order) -> dict[int, bytes]:
    """Send each worker's packet in `order`, each once the one before it was counted (ports
    race in BMv2); the round's RESULT copies by receiver."""
    for i in order:
        send_counted(switch, tap, workers[i], packets[i])
    got = results(tap.collect(expect=len(workers), timeout=10), workers)
    assert sorted(w.worker_id for w, _ in got) == sorted(order), got
    return {w.worker_id: p for w, p in got}


def resend_each(tap: Tap, workers: list[Worker], packets: dict[int, bytes], got: dict[int, bytes]) -> None:
    """A worker that lost the RESULT retransmits its opening DATA (which names its own
    block, not b*): it alone gets its copy again, byte for byte."""
    for i, w in enumerate(workers):
        tap.send(w.host_if, frame(w, packets[i]))
        again = results(tap.collect(expect=1, timeout=10), workers)
        assert [(v.worker_id, p) for v, p in again] == [(i, got[i])], f"re-send to worker {i}"


def test_the_smallest_block_wins_in_any_order(switch, tap):
    """Workers 1 and 2 hold block 3 (b*), worker 0 starts at block 5, worker 3 holds
    nothing. In all 24 orders (one slot each), the RESULT is block 3 with the sum of its
    holders only (overwritten when b* comes after block 5, added when its second holder
    comes, left alone for block 5 and the empty worker) and the look-ahead K2: block 4,
    the larger of the two exponents its holders announced, below worker 0's own block 5."""
    workers = make_workers(switch, 4)
    switch.install({"jobs": [job_dict(1, workers, num_slots=24)]})
    rng = np.random.default_rng(3)
    a, c, d = (rng.integers(-(2**20), 2**20, 32).astype(np.int32) for _ in range(3))
    body = (c + d).astype(">i4").tobytes()
    for slot, order in enumerate(itertools.permutations(range(4))):
        packets = {
            0: opening(workers[0], 0, 5, 9, a, slot=slot, exp=127, next_exp=127),
            1: opening(workers[1], 0, 3, 4, c, slot=slot, exp=127, next_exp=110),
            2: opening(workers[2], 0, 3, 4, d, slot=slot, exp=127, next_exp=120),
            3: opening(workers[3], 0, NONE, NONE, slot=slot, next_exp=0),
        }
        got = play_round(switch, tap, workers, packets, order)
        assert got == {i: result_payload(i, slot, 0, 3, 4, 127, 120, body, 0) for i in range(4)}, f"order {order}"
        if slot % 6 == 0:
            resend_each(tap, workers, packets, got)
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"], c["result_unicast"]) == (96, 24, 16)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))), ids=str)
def test_holders_that_disagree_on_the_exponent_make_a_repeat(switch, tap, order):
    """Workers 0 and 1 hold block 3 at exponents 120 and 125, worker 2 starts at block 6:
    the opening round's RESULT is a REPEAT (header-only, block = next_block = 3, exp =
    next_exp = 125), and the next round is an ordinary data round of block 3 at 125, in
    which worker 2 announces its own block again."""
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    rng = np.random.default_rng(125)
    a, b, c, a2, b2 = (rng.integers(-(2**20), 2**20, 32).astype(np.int32) for _ in range(5))
    packets = {
        0: opening(workers[0], 0, 3, 8, a, exp=120, next_exp=100),
        1: opening(workers[1], 0, 3, NONE, b, exp=125, next_exp=0),
        2: opening(workers[2], 0, 6, NONE, c, exp=127, next_exp=0),
    }
    got = play_round(switch, tap, workers, packets, order)
    assert got == {i: result_payload(i, 0, 0, 3, 3, 125, 125, b"", 0) for i in range(3)}
    assert all(is_repeat(AggHeader.unpack(p)) and len(p) == 36 for p in got.values())
    resend_each(tap, workers, packets, got)
    round1 = {
        0: data(workers[0], 1, 3, 8, a2, exp=125, next_exp=100),
        1: data(workers[1], 1, 3, NONE, b2, exp=125, next_exp=0),
        2: data(workers[2], 1, 3, 6, exp=125, next_exp=127),  # header-only: its own first block
    }
    got = play_round(switch, tap, workers, round1, order)
    body = (a2 + b2).astype(">i4").tobytes()
    assert got == {i: result_payload(i, 0, 1, 3, 6, 125, 127, body, 0) for i in range(3)}


@pytest.mark.parametrize("header_only_first", [True, False], ids=["header-only-first", "values-first"])
def test_a_holder_without_values_makes_a_repeat(switch, tap, header_only_first):
    """A header-only opening DATA about a block (what a leaf aggregator sends when its own
    workers disagreed) makes the round a REPEAT when its block is b*, even at the same
    exponent, and contributes nothing to the sums of the next round."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    v = np.arange(32)
    packets = {0: opening(workers[0], 0, 2, NONE, exp=127), 1: opening(workers[1], 0, 2, 5, v, exp=127, next_exp=127)}
    got = play_round(switch, tap, workers, packets, (0, 1) if header_only_first else (1, 0))
    assert got == {i: result_payload(i, 0, 0, 2, 2, 127, 127, b"", 0) for i in range(2)}
    resend_each(tap, workers, packets, got)


def test_an_empty_stream(switch, tap):
    """Nobody holds anything: the RESULT is header-only with block = next_block = NONE, and
    the slot's next opening round (the next allreduce) starts from clean registers."""
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    packets = {i: opening(w, 0, NONE, NONE, next_exp=0) for i, w in enumerate(workers)}
    got = play_round(switch, tap, workers, packets, (2, 0, 1))
    assert got == {i: result_payload(i, 0, 0, NONE, NONE, 127, 0, b"", 0) for i in range(3)}
    resend_each(tap, workers, packets, got)
    v = np.arange(32)
    nxt = {i: opening(w, 1, NONE, NONE, epoch=1) for i, w in enumerate(workers)}
    nxt[1] = opening(workers[1], 1, 0, NONE, v, epoch=1)
    got = play_round(switch, tap, workers, nxt, (0, 2, 1))
    body = v.astype(">i4").tobytes()
    # next_exp: the others' own key(NONE, 127) is the smallest announcement after b*.
    assert got == {i: result_payload(i, 0, 1, 0, NONE, 127, 127, body, 1) for i in range(3)}


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))), ids=str)
def test_a_reduce_scatter_opening_names_the_owner_of_b_star(switch, tap, order):
    """Each opening DATA of a reduce-scatter carries its own block's owner: they differ
    and that is no MISMATCH. The RESULT carries b*'s owner (whichever packet completes the
    round); only that owner's copy has the values, the others are header-only, re-sends
    included."""
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    blocks = 3 * SHARD_BLOCKS
    rng = np.random.default_rng(7)
    x, y, z = (rng.integers(-(2**20), 2**20, 32).astype(np.int32) for _ in range(3))
    packets = {  # own blocks 9 (owner 1), 2 (owner 0), 16 (owner 2)
        0: opening(workers[0], 0, 9, 16, x, blocks=blocks, flags=scatter_flags(1)),
        1: opening(workers[1], 0, 2, 9, y, blocks=blocks, flags=scatter_flags(0)),
        2: opening(workers[2], 0, 16, NONE, z, blocks=blocks, flags=scatter_flags(2)),
    }
    got = play_round(switch, tap, workers, packets, order)
    for i, payload in got.items():
        h = AggHeader.unpack(payload)
        assert (h.block, h.next_block, h.flags) == (2, 9, scatter_flags(0)), (i, h)
        assert (h.count, len(payload)) == ((32, 164) if i == 0 else (0, 36)), (i, h)
    np.testing.assert_array_equal(decode_values(got[0], 32), y)
    resend_each(tap, workers, packets, got)


@pytest.mark.parametrize("odd_flags", [0, Flags.SCATTER], ids=["plain-allreduce", "scatter"])
def test_an_opening_round_compares_the_scatter_bit(switch, tap, odd_flags):
    """In an opening round only SCATTER must agree: one DATA of a plain allreduce among a
    reduce-scatter's (or the reverse) makes every copy MISMATCH."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    v = np.arange(32)
    usual = scatter_flags(0) if odd_flags == 0 else 0
    packets = {
        0: opening(workers[0], 0, 1, NONE, v, flags=usual),
        1: opening(workers[1], 0, 1, NONE, v, flags=odd_flags),
    }
    got = play_round(switch, tap, workers, packets, (0, 1))
    assert all(AggHeader.unpack(p).flags & Flags.MISMATCH for p in got.values())
