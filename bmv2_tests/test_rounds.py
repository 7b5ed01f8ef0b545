# SPDX-License-Identifier: Apache-2.0
"""Aggregation rounds on simple_switch_grpc: look-ahead, shadow-set reuse,
retransmissions, header-only packets, 32 workers, job isolation, reset."""

from __future__ import annotations

import numpy as np
import pytest

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import (
    BLOCKS,
    SESSION,
    Tap,
    Worker,
    data,
    frame,
    job_dict,
    opening,
    results,
    tensor_fingerprint,
    wait_for_counters,
)
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import NONE, AggHeader, Mode, MsgType, decode_values, lookahead_key, split_key

# -- host agents' stream state machines over raw frames ---------------------------------


def drive_streams(
    tap: Tap, workers: list[Worker], streams: list[Stream], rounds_cap: int = 10000, quiet: float = 2.0, tries: int = 5
) -> int:
    """Plays host-agent streams (workers[i] runs streams[i]) until every stream is done; as
    a worker does, each unfinished stream resends its packet when nothing came for `quiet`
    seconds (BMv2 drops a frame now and then on a loaded machine). Returns how many packets
    were resent: the switch answers each with a unicast RESULT, drops it (its round still
    open), or counts it as DATA (the first copy never arrived)."""
    by_worker: dict[Worker, list[Stream]] = {}  # (workers of two switches may share an id)
    for w, s in zip(workers, streams, strict=True):
        by_worker.setdefault(w, []).append(s)
        tap.send(w.host_if, frame(w, s.start()))
    resent = silent = 0
    for _ in range(rounds_cap):
        if all(s.done for s in streams):
            return resent
        got = results(tap.collect(timeout=quiet, expect=1), workers)
        if not got:
            silent += 1
            assert silent < tries, "the switch stopped answering"
            for w, s in zip(workers, streams, strict=True):
                if not s.done and s.pending is not None:
                    tap.send(w.host_if, frame(w, s.pending))
                    resent += 1
            continue
        silent = 0
        for w, payload in got:
            h = AggHeader.unpack(payload)
            assert h.msg_type == MsgType.RESULT and h.worker_id == w.worker_id
            for s in by_worker[w]:
                if s.slot == h.slot and s.job_id == h.job_id:
                    reply = s.on_result(h, payload)
                    if reply is not None:
                        tap.send(w.host_if, frame(w, reply))
    raise AssertionError("streams did not finish")


def make_stream(
    job: int, w: Worker, slot: int, blocks: dict[int, np.ndarray], sums: dict, *, round_: int = 0, epoch: int = 0
) -> Stream:
    """Worker `w`'s stream in `slot` of allreduce `epoch` of a BLOCKS-block int32 tensor."""
    return Stream(
        job_id=job,
        worker_id=w.worker_id,
        slot=slot,
        round_=round_,
        epoch=epoch,
        mode=Mode.DENSE,
        my_blocks=sorted(blocks) + [NONE],
        my_exps={b: 127 for b in blocks},
        block_size=32,
        quantize=lambda b, e: blocks[b],
        deliver=lambda b, e, v: sums.setdefault((slot, b), []).append(v.copy()),
        session=SESSION,
        blocks=BLOCKS,
        fingerprint=tensor_fingerprint(epoch),
    )


def random_streams(
    rng: np.random.Generator, job: int, workers: list[Worker], slots: range, per_stream: int, density: float
) -> tuple[list[Stream], list[Worker], dict, dict]:
    """Each worker's stream in each of `slots` (stream s = slot - slots.start holds blocks
    s, s + len(slots), ..., `per_stream` of them), each block held with probability
    `density`, random int32 values: (streams, the worker of each, the blocks held by
    (slot, block), the sums delivered by (slot, block), filled as the streams run)."""
    streams, owners, held, sums = [], [], {}, {}
    for w in workers:
        for slot in slots:
            stream_blocks = [slot - slots.start + len(slots) * k for k in range(per_stream)]
            mine = {
                b: rng.integers(-(2**20), 2**20, 32).astype(np.int32) for b in stream_blocks if rng.random() < density
            }
            for b, v in mine.items():
                held.setdefault((slot, b), []).append(v)
            streams.append(make_stream(job, w, slot, mine, sums))
            owners.append(w)
    return streams, owners, held, sums


def assert_every_sum(held: dict, sums: dict, copies: int) -> None:
    """Every block anyone held reached `copies` workers, each with the exact sum."""
    assert set(sums) == set(held)
    for key, vals in held.items():
        assert len(sums[key]) == copies, key
        for got in sums[key]:
            np.testing.assert_array_equal(got, np.sum(vals, axis=0))


@pytest.mark.parametrize("n", [3, 4])
def test_sparse_blocks_with_lookahead(switch, tap, n):
    """n workers, two slots; each worker holds a random 40% of the 60 blocks of
    each stream. Every block anyone holds becomes one round (the look-ahead
    skips the others), and every worker receives every sum."""
    rng = np.random.default_rng(n)
    workers = make_workers(switch, n)
    switch.install({"jobs": [job_dict(1, workers, slot_base=8, num_slots=2)]})
    streams, owners, held, sums = random_streams(rng, 1, workers, range(8, 10), 60, 0.4)
    resent = drive_streams(tap, owners, streams)
    assert_every_sum(held, sums, n)
    c = switch.counters()
    assert c["result_multicast"] == len(held)  # one round per block anyone holds (no slot is empty)
    assert c["result_unicast"] + c["retransmit_dropped"] <= resent  # none unless a frame was lost


# -- one slot, many rounds, checked packet by packet ----------------------------------------


def result_payload(
    receiver: int, slot: int, shadow: int, block: int, next_block: int, exp: int, next_exp: int, body: bytes, epoch: int
) -> bytes:
    """A RESULT the switch sends `receiver` in a round of the job installed with job_dict(1, ...)
    (header fields the completing DATA carried: epoch, session, blocks, fingerprint)."""
    return (
        AggHeader(
            MsgType.RESULT,
            1,
            receiver,
            slot,
            shadow,
            epoch,
            block,
            next_block,
            exp,
            next_exp,
            32 if body else 0,
            session=SESSION,
            blocks=BLOCKS,
            fingerprint=tensor_fingerprint(epoch),
        ).pack()
        + body
    )


def test_one_slot_reused_for_50_rounds(switch, tap):
    """The opening round and data rounds of 50 blocks in one slot (both shadow sets reused
    about 25 times), 3 workers holding random subsets of the blocks with random values and
    exponents. Every RESULT copy is compared with the bytes docs/protocol.md section 3
    gives (numpy sums, the look-ahead decision; for the opening round b*, e*, K2 and the
    REPEAT when b*'s holders disagree on its exponent), the packets of each round arriving
    in a random order. On some rounds (the opening round always) a counted packet is
    retransmitted before (dropped) or after completion (unicast re-send of the same bytes)."""
    n, slot, epoch = 3, 5, 7
    rng = np.random.default_rng(50)
    workers = make_workers(switch, n)
    switch.install({"jobs": [job_dict(1, workers, slot_base=4, num_slots=4)]})
    blocks = sorted(int(b) * 4 + 1 for b in rng.choice(2000, 50, replace=False))
    holders = {
        b: [i for i in range(n) if m >> i & 1] for b, m in zip(blocks, rng.integers(1, 2**n, len(blocks)), strict=True)
    }
    values = {(i, b): rng.integers(-(2**28), 2**28, 32).astype(np.int32) for b in blocks for i in holders[b]}
    exps = {(i, b): int(rng.integers(100, 150)) for (i, b) in values}
    mine = [[b for b in blocks if i in holders[b]] + [NONE] for i in range(n)]
    pos = [0] * n  # each worker's next block to send: mine[i][pos[i]]

    def total(at: list[int], b: int) -> bytes:
        return sum((values[(i, b)].astype(np.int64) for i in at), np.zeros(32, np.int64)).astype(">i4").tobytes()

    block, exp, rounds, repeats = NONE, 127, 0, 0
    drops = unicasts = 0
    while True:
        shadow = rounds & 1
        packets = {}
        if rounds == 0:  # the opening round: each worker's own first block at its own exponent
            own = {i: (mine[i][0], exps.get((i, mine[i][0]), 127)) for i in range(n)}
            for i, w in enumerate(workers):
                b, e = own[i]
                nxt = mine[i][1] if b != NONE else NONE
                vals = values[(i, b)] if b != NONE else None
                nexp = exps.get((i, nxt), 0)
                packets[i] = opening(w, shadow, b, nxt, vals, slot=slot, exp=e, next_exp=nexp, epoch=epoch)
            block, exp = split_key(min(lookahead_key(*own[i]) for i in range(n)))  # b*, e*
            at = [i for i in range(n) if own[i][0] == block]
            repeat = any(own[i][1] != exp for i in at)
            k2 = min(
                lookahead_key(mine[i][1], exps.get((i, mine[i][1]), 0)) if i in at else lookahead_key(*own[i])
                for i in range(n)
            )
            if repeat:
                next_block, next_exp, body = block, exp, b""
                repeats += 1
            else:
                next_block, next_exp = split_key(k2)
                body = total(at, block)
                for i in at:
                    pos[i] = 1
        else:
            keys = []
            for i, w in enumerate(workers):
                vals = None
                if mine[i][pos[i]] == block:
                    vals = values[(i, block)]
                    pos[i] += 1
                nxt = mine[i][pos[i]]
                nexp = exps.get((i, nxt), 0)
                keys.append(lookahead_key(nxt, nexp))
                packets[i] = data(w, shadow, block, nxt, vals, slot=slot, exp=exp, next_exp=nexp, epoch=epoch)
            next_block, next_exp = split_key(min(keys))
            body = total(holders[block], block)
        expected = {i: result_payload(i, slot, shadow, block, next_block, exp, next_exp, body, epoch) for i in range(n)}

        order = [int(i) for i in rng.permutation(n)]
        first, rest = order[0], order[1:]
        tap.send(workers[first].host_if, frame(workers[first], packets[first]))
        if rounds % 7 == 3 or rounds == 0:  # duplicate while the round is open: dropped, not added
            tap.send(workers[first].host_if, frame(workers[first], packets[first]))
            drops += 1
            wait_for_counters(switch, retransmit_dropped=drops)
        for i in rest:  # one at a time: the switch sees the random order
            counted = switch.counters()["data_counted"]
            tap.send(workers[i].host_if, frame(workers[i], packets[i]))
            if i != rest[-1]:
                wait_for_counters(switch, data_counted=counted + 1)
        got = results(tap.collect(timeout=10, expect=n), workers)
        assert sorted((w.worker_id, p) for w, p in got) == [(i, expected[i]) for i in range(n)], (
            f"round {rounds} (block {block})"
        )
        if rounds % 5 == 2 or rounds == 0:  # a worker lost the result: only it gets it again
            again = int(rng.integers(n))
            tap.send(workers[again].host_if, frame(workers[again], packets[again]))
            unicasts += 1
            got = results(tap.collect(timeout=10, expect=1), workers)
            assert [(w.worker_id, p) for w, p in got] == [(again, expected[again])]
        rounds += 1
        block, exp = next_block, next_exp
        if block == NONE:
            break
    assert rounds == 50 + repeats and all(m[p] == NONE for m, p in zip(mine, pos, strict=True))
    assert results(tap.collect(timeout=0.3), workers) == []
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"]) == (rounds * n, rounds)
    assert (c["retransmit_dropped"], c["result_unicast"]) == (drops, unicasts)


# -- retransmissions and header-only packets ------------------------------------------------


def test_retransmissions_are_not_added_twice(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0, w1 = workers
    v = np.arange(32)
    for shadow, send in ((0, opening), (1, data)):  # the opening round of block 0, a data round of block 3
        block, nxt = (0, 3) if shadow == 0 else (3, NONE)
        counted = switch.counters()["data_counted"]
        tap.send(w0.host_if, frame(w0, send(w0, shadow, block, nxt, v)))
        wait_for_counters(switch, data_counted=counted + 1)
        tap.send(w0.host_if, frame(w0, send(w0, shadow, block, nxt, v)))  # duplicate while open
        assert results(tap.collect(timeout=0.5), workers) == []
        tap.send(w1.host_if, frame(w1, send(w1, shadow, block, nxt, 10 * v)))
        got = results(tap.collect(expect=2, timeout=10), workers)
        assert len(got) == 2
        for _, payload in got:
            assert AggHeader.unpack(payload)[6:8] == (block, nxt)  # block, next_block
            np.testing.assert_array_equal(decode_values(payload, 32), 11 * v)
        for _ in range(2):  # lost result (twice): re-sent, still not added again
            tap.send(w1.host_if, frame(w1, send(w1, shadow, block, nxt, 10 * v)))
            again = results(tap.collect(expect=1, timeout=10), workers)
            assert [(w.worker_id, p) for w, p in again] == [(1, dict((w.worker_id, p) for w, p in got)[1])]
    c = switch.counters()
    assert (c["retransmit_dropped"], c["result_unicast"], c["data_counted"]) == (2, 4, 4)


def test_header_only_packet_completes_a_round_with_values(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0, w1 = workers
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 0, 2, np.full(32, 3))))
    tap.send(w1.host_if, frame(w1, opening(w1, 0, NONE, NONE)))  # holds nothing
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert len(got) == 2
    for _, payload in got:
        assert AggHeader.unpack(payload)[6:8] == (0, 2)
        np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 3))
    tap.send(w0.host_if, frame(w0, data(w0, 1, 2, NONE, np.full(32, 7))))
    wait_for_counters(switch, data_counted=3)
    tap.send(w1.host_if, frame(w1, data(w1, 1, 2, NONE)))  # header only, completes the round
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert sorted(w.worker_id for w, _ in got) == [0, 1]
    for _, payload in got:
        assert AggHeader.unpack(payload).count == 32
        np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 7))


def test_header_only_packets_leave_the_value_registers_alone(switch, tap):
    """A header-only DATA does not touch the value registers (values.p4): a reused
    shadow set still holds the sums of two rounds ago, and whichever packet opens
    a round (with values or without) must keep them out of its RESULT."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0, w1 = workers
    rng = np.random.default_rng(12)
    q, x, y, z, u, v = (rng.integers(-(2**20), 2**20, 32).astype(np.int32) for _ in range(6))
    zeros = np.zeros(32, np.int32)

    def round_(shadow, block, packets, expected):
        (first, first_vals), (last, last_vals) = packets
        counted = switch.counters()["data_counted"]
        tap.send(first.host_if, frame(first, data(first, shadow, block, block + 1, first_vals)))
        # The second packet must find the first counted (ports race in BMv2).
        wait_for_counters(switch, data_counted=counted + 1)
        tap.send(last.host_if, frame(last, data(last, shadow, block, block + 1, last_vals)))
        got = results(tap.collect(expect=2, timeout=10), workers)
        assert sorted(w.worker_id for w, _ in got) == [0, 1], block
        for _, payload in got:
            assert AggHeader.unpack(payload).count == 32
            np.testing.assert_array_equal(decode_values(payload, 32), expected, err_msg=f"block {block}")

    # The opening round: worker 0 holds block 1, worker 1 starts at block 2 (left out).
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 1, 2, q)))
    tap.send(w1.host_if, frame(w1, opening(w1, 0, 2, 3, y)))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert len(got) == 2
    for _, payload in got:
        np.testing.assert_array_equal(decode_values(payload, 32), q)
    round_(1, 2, [(w0, x), (w1, y)], x + y)  # set 1 now holds x + y
    round_(0, 3, [(w0, None), (w1, z)], z)  # opened header-only: z overwrites, not adds
    round_(1, 4, [(w1, None), (w0, None)], zeros)  # nobody carries values: not x + y
    tap.send(w0.host_if, frame(w0, data(w0, 1, 4, 5)))  # lost RESULT: re-sent, still zeros
    again = results(tap.collect(expect=1, timeout=10), workers)
    assert [w.worker_id for w, _ in again] == [0]
    np.testing.assert_array_equal(decode_values(again[0][1], 32), zeros)
    round_(0, 5, [(w1, None), (w0, u)], u)  # set 0 held z
    round_(1, 6, [(w0, v), (w1, None)], v)  # opened with values, completed header-only
    tap.send(w1.host_if, frame(w1, data(w1, 1, 6, 7)))  # header-only re-send: the stored sums
    again = results(tap.collect(expect=1, timeout=10), workers)
    assert [w.worker_id for w, _ in again] == [1]
    np.testing.assert_array_equal(decode_values(again[0][1], 32), v)
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"], c["result_unicast"]) == (12, 6, 2)


def test_32_workers_on_shared_ports(switch, tap):
    """The largest job (32 workers, bit 31 of the bitmap), 8 workers per switch
    port told apart by MAC/IP/UDP port, in the last slots of the switch."""
    workers = [
        Worker(i, 1 + i % 4, f"02:00:00:00:01:{i:02x}", f"10.0.1.{i + 1}", 41000 + i, switch.host_if(1 + i % 4))
        for i in range(32)
    ]
    switch.install({"jobs": [job_dict(3, workers, slot_base=1000, num_slots=24)]})
    rng = np.random.default_rng(32)
    vals = rng.integers(-(2**25), 2**25, (32, 32)).astype(np.int32)
    for w in workers:  # an opening round in which everyone holds block 1023 and nothing after it
        tap.send(w.host_if, frame(w, opening(w, 0, 1023, NONE, vals[w.worker_id], job=3, slot=1023)))
    got = results(tap.collect(expect=32, timeout=10), workers)
    assert sorted(w.worker_id for w, _ in got) == list(range(32))
    for w, payload in got:
        h = AggHeader.unpack(payload)
        assert (h.worker_id, h.slot, h.block, h.next_block, h.count) == (w.worker_id, 1023, 1023, NONE, 32)
        np.testing.assert_array_equal(decode_values(payload, 32), vals.sum(axis=0))
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"]) == (32, 1)


class _LosingTap:
    """A tap whose `lose`-th frame sent (counting from 0) never reaches the switch."""

    def __init__(self, tap: Tap, lose: int) -> None:
        self.tap, self.lose, self.sent = tap, lose, 0

    def send(self, iface: str, data: bytes) -> None:
        if self.sent != self.lose:
            self.tap.send(iface, data)
        self.sent += 1

    def collect(self, timeout: float = 0.5, expect: int | None = None) -> list[tuple[str, bytes]]:
        return self.tap.collect(timeout=timeout, expect=expect)


@pytest.mark.parametrize("lose", [0, 5])
def test_a_lost_frame_is_resent_and_the_sums_stay_exact(switch, tap, lose):
    """drive_streams resends like a worker: a lost opening DATA (frame 0) or a lost DATA of a
    later round (frame 5) is sent again after a quiet spell, and every sum is exact."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    rng = np.random.default_rng(lose)
    held = {w.worker_id: {b: rng.integers(-1000, 1000, 32).astype(np.int32) for b in range(4)} for w in workers}
    sums: dict = {}
    streams = [make_stream(1, w, 0, held[w.worker_id], sums) for w in workers]
    resent = drive_streams(_LosingTap(tap, lose), workers, streams, quiet=0.5)
    assert resent >= 1
    for (_, b), got in sums.items():
        for g in got:
            np.testing.assert_array_equal(g, held[0][b] + held[1][b])
    assert {b for _, b in sums} == set(range(4))


# -- jobs ------------------------------------------------------------------------------------


def test_two_jobs_are_isolated(switch, tap):
    a = make_workers(switch, 2, first_port=1)
    b = [
        Worker(i, w.port, w.mac, w.ip, w.udp_port, w.host_if)
        for i, w in enumerate(make_workers(switch, 2, first_port=3))
    ]
    switch.install({"jobs": [job_dict(1, a, slot_base=0, num_slots=1), job_dict(2, b, slot_base=1, num_slots=1)]})
    rng = np.random.default_rng(3)
    sums_a, sums_b, streams, held = {}, {}, [], {}
    for job, ws, slot, sums in ((1, a, 0, sums_a), (2, b, 1, sums_b)):
        for w in ws:
            mine = {blk: rng.integers(-1000, 1000, 32).astype(np.int32) for blk in range(20) if rng.random() < 0.5}
            for blk, v in mine.items():
                held.setdefault((job, blk), []).append(v)
            streams.append(make_stream(job, w, slot, mine, sums))
    drive_streams(tap, a + b, streams)
    for job, sums in ((1, sums_a), (2, sums_b)):
        assert {blk for (_, blk) in sums} == {blk for (j, blk) in held if j == job}
        for (_, blk), got in sums.items():
            for g in got:
                np.testing.assert_array_equal(g, np.sum(held[(job, blk)], axis=0))


def test_reset_job_forgets_a_half_finished_round(switch, tap):
    """The controller's reset: a new session in the worker entries (packets of the
    old one are dropped and counted), then the job's registers zeroed."""
    workers = make_workers(switch, 2)
    cfg = switch.install({"jobs": [job_dict(1, workers, num_slots=2)]})
    w0, w1 = workers
    a, b = np.arange(32), np.full(32, 1000)
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 0, NONE, b, exp=200)))  # worker 1 never answers
    wait_for_counters(switch, data_counted=1)
    reset = switch.client.reset_job(cfg.job(1), switch.thrift_port)
    assert (
        reset.session not in (0, SESSION) and reset.cells == 2 * 2 * 44
    )  # 2 slots x 2 shadow copies x 44 per-slot registers
    assert switch.client.read_sessions(cfg.job(1)) == {reset.session}
    # A worker that did not JOIN again still sends with the old session: dropped.
    tap.send(w1.host_if, frame(w1, opening(w1, 0, 2, NONE, b, exp=150)))
    wait_for_counters(switch, bad_session=1)
    # Worker 0's bit, its block and its values are gone: its opening DATA counts
    # again, and only the packets sent after the reset decide.
    tap.send(w1.host_if, frame(w1, opening(w1, 0, 4, NONE, a, exp=130, session=reset.session)))
    wait_for_counters(switch, data_counted=2)
    assert results(tap.collect(timeout=0.3), workers) == []
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 6, NONE, b, exp=140, next_exp=0, session=reset.session)))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert len(got) == 2
    for _, payload in got:
        h = AggHeader.unpack(payload)
        assert (h.block, h.exp, h.next_block, h.next_exp, h.session) == (4, 130, 6, 140, reset.session)
        np.testing.assert_array_equal(decode_values(payload, 32), a)  # worker 0's values are not block 4's
    c = switch.counters()
    assert (c["data_counted"], c["bad_session"], c["result_multicast"]) == (3, 1, 1)
