# SPDX-License-Identifier: Apache-2.0
"""Reduce-scatter on simple_switch_grpc (docs/protocol.md sections 3.1 and 8): egress cuts
the values from every copy of a SCATTER round's RESULT but the owner's, and DATA of one
round that name different owners make a MISMATCH round."""

from __future__ import annotations

import numpy as np
import pytest

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import SESSION, data, frame, job_dict, opening, results, send_counted
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import NONE, AggHeader, Flags, Mode, MsgType, decode_values, fingerprint, scatter_flags

SHARD_BLOCKS = 7  # blocks per shard: rank r owns blocks 7r .. 7r+6


@pytest.mark.parametrize("n", [2, 3])
def test_values_reach_the_owner_only(switch, tap, n):
    """n workers, two slots, a random 50% of every stream's blocks each: every block anyone
    holds becomes a round; its owner receives the sum (164-byte payload), everyone else the
    header with the look-ahead (36 bytes), and every stream runs to its end."""
    rng = np.random.default_rng(n)
    workers = make_workers(switch, n)
    switch.install({"jobs": [job_dict(1, workers, num_slots=2)]})
    blocks = n * SHARD_BLOCKS
    tag = fingerprint(0, 32 * blocks, np.int32, 32, 2, n, [32 * SHARD_BLOCKS] * n)
    held: dict[int, list[np.ndarray]] = {}
    delivered: dict[tuple[int, int], np.ndarray] = {}
    streams: list[tuple[int, Stream]] = []
    for w in workers:
        for slot in (0, 1):
            mine = {
                b: rng.integers(-(2**20), 2**20, 32).astype(np.int32)
                for b in range(slot, blocks, 2)
                if rng.random() < 0.5
            }
            for b, v in mine.items():
                held.setdefault(b, []).append(v)
            streams.append(
                (
                    w.worker_id,
                    Stream(
                        job_id=1,
                        worker_id=w.worker_id,
                        slot=slot,
                        round_=0,
                        epoch=0,
                        mode=Mode.DENSE,
                        my_blocks=sorted(mine) + [NONE],
                        my_exps={b: 127 for b in mine},
                        block_size=32,
                        quantize=lambda b, e, mine=mine: mine[b],
                        deliver=lambda b, e, v, w=w.worker_id: delivered.__setitem__((w, b), v.copy()),
                        session=SESSION,
                        blocks=blocks,
                        fingerprint=tag,
                        shard_blocks=SHARD_BLOCKS,
                    ),
                )
            )
    for wid, s in streams:
        tap.send(workers[wid].host_if, frame(workers[wid], s.start()))
    copies: list[tuple[int, AggHeader, int]] = []  # (receiver, header, payload bytes)
    while not all(s.done for _, s in streams):
        got = results(tap.collect(timeout=10, expect=1), workers)
        assert got, "the switch stopped answering"
        for w, payload in got:
            h = AggHeader.unpack(payload)
            copies.append((w.worker_id, h, len(payload)))
            for wid, s in streams:
                if wid == w.worker_id and s.slot == h.slot:
                    reply = s.on_result(h, payload)
                    if reply is not None:
                        tap.send(w.host_if, frame(w, reply))
    data_copies = [(r, h, size) for r, h, size in copies if h.block != NONE]
    assert {h.block for _, h, _ in data_copies} == set(held)
    for r, h, size in data_copies:
        owner = h.block // SHARD_BLOCKS
        assert h.flags == scatter_flags(owner)
        assert (h.count, size) == ((32, 164) if r == owner else (0, 36)), (r, h)
    assert set(delivered) == {(b // SHARD_BLOCKS, b) for b in held}
    for (_, b), v in delivered.items():
        np.testing.assert_array_equal(v, np.sum(held[b], axis=0))
    empty_streams = sum(1 for slot in (0, 1) if not any(b % 2 == slot for b in held))
    c = switch.counters()
    assert c["result_multicast"] == len(held) + empty_streams  # one round per block anyone holds


def test_a_retransmission_gets_its_own_copy(switch, tap):
    """A re-send (unicast) is cut like a multicast copy: the non-owner gets the header."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    v = np.arange(32)
    owner_bits = scatter_flags(1)  # block 10's (SHARD_BLOCKS 7)
    for w in workers:  # the opening round: both hold block 3 (owner 0)
        tap.send(w.host_if, frame(w, opening(w, 0, 3, 10, v, flags=scatter_flags(0))))
    got = {w.worker_id: p for w, p in results(tap.collect(expect=2, timeout=10), workers)}
    for w in workers:  # a copy BMv2 lost on a loaded machine: asked again, as a worker would
        if w.worker_id not in got and len(got) == 1:
            tap.send(w.host_if, frame(w, opening(w, 0, 3, 10, v, flags=scatter_flags(0))))
            got.update({v_.worker_id: p for v_, p in results(tap.collect(expect=1, timeout=10), workers)})
    assert (len(got[0]), len(got[1])) == (164, 36)
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, 3, 10, v, flags=scatter_flags(0))))
        (again,) = results(tap.collect(expect=1, timeout=10), workers)
        assert again[0] == w and again[1] == got[w.worker_id]
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 1, 10, NONE, v, flags=owner_bits)))
    got = {w.worker_id: p for w, p in results(tap.collect(expect=2, timeout=10), workers)}
    assert (len(got[0]), len(got[1])) == (36, 164)
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 1, 10, NONE, v, flags=owner_bits)))
        (again,) = results(tap.collect(expect=1, timeout=10), workers)
        assert again[0] == w and again[1] == got[w.worker_id]
    np.testing.assert_array_equal(decode_values(got[1], 32), 2 * v)


@pytest.mark.parametrize("odd_flags", [scatter_flags(1), 0], ids=["other-owner", "no-scatter"])
def test_owners_that_disagree_make_a_mismatch_round(switch, tap, odd_flags):
    """Same fingerprint, but one DATA names another owner (or no SCATTER at all): the agreement
    key (fingerprint XOR the SCATTER/owner bits) differs, so every copy is flagged MISMATCH."""
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    v = np.arange(32)
    for w in workers:  # (each counted before the next: a loaded machine makes BMv2 drop a frame now and then)
        send_counted(switch, tap, w, opening(w, 0, 0, 3, v, flags=scatter_flags(0)))
    assert len(results(tap.collect(expect=3, timeout=10), workers)) == 3
    for w in workers:  # the first packet of the round stores the key
        send_counted(switch, tap, w, data(w, 1, 3, NONE, v, flags=odd_flags if w.worker_id == 1 else scatter_flags(0)))
    got = results(tap.collect(expect=3, timeout=10), workers)
    assert len(got) == 3
    for w, payload in got:
        h = AggHeader.unpack(payload)
        assert h.msg_type == MsgType.RESULT and h.flags & Flags.MISMATCH
        assert h.flags & ~Flags.MISMATCH == scatter_flags(0)  # the completing packet's bits
        assert h.count == (32 if w.worker_id == 0 else 0)


def test_owner_bits_without_scatter_are_ignored(switch, tap):
    """Reserved bits: a plain allreduce whose DATA carry junk in bits 7..3 is not cut and
    not flagged; its RESULTs have flags 0."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    v = np.arange(32)
    for shadow, junks, send in ((0, (0x08, 0xF0), opening), (1, (0x10, 0x28), data)):
        for w, junk in zip(workers, junks, strict=True):
            tap.send(w.host_if, frame(w, send(w, shadow, 3 + shadow, NONE, v, flags=junk)))
        got = results(tap.collect(expect=2, timeout=10), workers)
        assert len(got) == 2
        for _, payload in got:
            assert AggHeader.unpack(payload).flags == 0 and len(payload) == 164
            np.testing.assert_array_equal(decode_values(payload, 32), 2 * v)
