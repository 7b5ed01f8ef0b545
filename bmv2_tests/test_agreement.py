# SPDX-License-Identifier: Apache-2.0
"""The round fingerprint on simple_switch_grpc (docs/protocol.md section 8): a round
whose packets disagree completes with MISMATCH for every worker, a retransmission
is answered only for its own allreduce, and a restarted worker never gets a
result that is not its allreduce's."""

from __future__ import annotations

import numpy as np
import pytest

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import (
    Tap,
    Worker,
    assert_sums,
    data,
    frame,
    job_dict,
    opening,
    results,
    tensor_fingerprint,
    wait_for_counters,
)
from bmv2_tests.test_rounds import drive_streams, make_stream
from p4reduce.hostagent.errors import JobFailed
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import NONE, AggHeader, ErrorCode, Flags, MsgType, decode_values

A, B = tensor_fingerprint(0), tensor_fingerprint(0, blocks=10001)  # one tensor longer


@pytest.mark.parametrize("odd", [0, 1, 2], ids=["first-differs", "middle-differs", "last-differs"])
def test_a_disagreeing_round_is_flagged_for_every_worker(switch, tap, odd):
    """Three workers, one of them with another tensor (fingerprint B): whichever
    packet differs, the round completes with MISMATCH to all three; the bit is
    sticky for the round and cleared when its shadow copy is reused."""
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    fps = [B if i == odd else A for i in range(3)]
    v = np.arange(32)
    for w, fp in zip(workers, fps, strict=True):
        tap.send(w.host_if, frame(w, opening(w, 0, 3, NONE, v, fp=fp)))
        if w.worker_id < 2:  # keep the order: the first packet sets the stored fingerprint
            wait_for_counters(switch, data_counted=w.worker_id + 1)
    frames = tap.collect(expect=3, timeout=10)
    got = results(frames, workers)
    # On failure, say what came (every frame, not only answers) and what the switch counted.
    assert sorted(w.worker_id for w, _ in got) == [0, 1, 2], ([(i, f.hex()) for i, f in frames], switch.counters())
    last = AggHeader.unpack(opening(workers[2], 0, 3, NONE, v, fp=fps[2]))
    for w, payload in got:  # the completing packet's header, flagged
        h = AggHeader.unpack(payload)
        assert h.msg_type == MsgType.RESULT and h.flags == Flags.MISMATCH
        assert (h.worker_id, h.fingerprint, h.blocks) == (w.worker_id, last.fingerprint, last.blocks)
    # A worker that lost the flagged RESULT gets it again, flagged, if its
    # fingerprint is the stored one (the round's first packet's).
    w = workers[1 if odd == 0 else 0]
    tap.send(w.host_if, frame(w, opening(w, 0, 3, NONE, v, fp=fps[0])))
    (again,) = results(tap.collect(expect=1, timeout=10), workers)
    assert again[0] == w and AggHeader.unpack(again[1]).flags == Flags.MISMATCH
    # Round 1 (other copy) and round 2 (copy 0 again, where the bit was set) agree: not flagged.
    for shadow in (1, 0):
        for w in workers:
            tap.send(w.host_if, frame(w, data(w, shadow, 7, NONE, v)))
        assert_sums(results(tap.collect(expect=3, timeout=10), workers), 3, 3 * v)
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"], c["result_unicast"], c["stale"]) == (9, 3, 1, 0)


def test_a_retransmission_of_another_allreduce_is_not_answered(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    w0, w1 = workers
    v = np.arange(32)
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, 0, 3, v)))
    assert len(results(tap.collect(expect=2, timeout=10), workers)) == 2
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 1, 3, NONE, v)))
    assert len(results(tap.collect(expect=2, timeout=10), workers)) == 2
    # Same worker, same shadow bit, but another allreduce (epoch 1, or another
    # tensor): the stored sums are not its sums. Dropped, nothing changes.
    tap.send(w0.host_if, frame(w0, data(w0, 1, 3, NONE, v, epoch=1)))
    tap.send(w1.host_if, frame(w1, data(w1, 1, 3, NONE, v, fp=B)))
    wait_for_counters(switch, stale=2)
    assert results(tap.collect(timeout=0.3), workers) == []
    # The round's own retransmission is still answered, with the unchanged sum.
    tap.send(w1.host_if, frame(w1, data(w1, 1, 3, NONE, v)))
    (again,) = results(tap.collect(expect=1, timeout=10), workers)
    assert again[0] == w1 and AggHeader.unpack(again[1]).flags == Flags.NONE
    np.testing.assert_array_equal(decode_values(again[1], 32), 2 * v)
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"], c["result_unicast"], c["stale"]) == (4, 2, 1, 2)


@pytest.mark.parametrize("opening_first", [True, False], ids=["opening-first", "data-first"])
def test_opening_and_data_round_packets_disagree(switch, tap, opening_first):
    """The OPENING bit is part of the agreement key (docs/protocol.md section 8): an
    opening DATA and a data round's DATA of the same allreduce in one round make it a
    MISMATCH round, and a data round's DATA retransmitted into a finished opening round
    is stale (not answered)."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    w0, w1 = workers
    v = np.arange(32)
    packets = [opening(w0, 0, 3, NONE, v), data(w1, 0, 3, NONE, v)]
    if not opening_first:
        packets = [data(w0, 0, 3, NONE, v), opening(w1, 0, 3, NONE, v)]
    tap.send(w0.host_if, frame(w0, packets[0]))
    wait_for_counters(switch, data_counted=1)
    tap.send(w1.host_if, frame(w1, packets[1]))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert sorted(w.worker_id for w, _ in got) == [0, 1]
    assert all(AggHeader.unpack(p).flags & Flags.MISMATCH for _, p in got)
    # Shadow copy 1: an opening round that agrees, then a data-round DATA into it.
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 1, 3, NONE, v)))
    assert_sums(results(tap.collect(expect=2, timeout=10), workers), 2, 2 * v)
    tap.send(w0.host_if, frame(w0, data(w0, 1, 3, NONE, v)))
    wait_for_counters(switch, stale=1)
    assert results(tap.collect(timeout=0.3), workers) == []
    c = switch.counters()
    assert (c["data_counted"], c["result_multicast"], c["result_unicast"], c["stale"]) == (4, 2, 0, 1)


# -- a restarted worker ------------------------------------------------------------------


def play(tap: Tap, players: list[tuple[Worker, Stream]], idle_limit: int = 3) -> dict[int, JobFailed]:
    """Run host-agent streams over raw frames like their agents would: answer RESULTs,
    resend the pending packet when nothing arrives (at most `idle_limit` times in a
    row). Returns the JobFailed each worker raised, by worker id."""
    workers = [w for w, _ in players]
    failed: dict[int, JobFailed] = {}
    for w, s in players:
        tap.send(w.host_if, frame(w, s.start()))
    idle = 0
    while idle < idle_limit and any(not s.done and w.worker_id not in failed for w, s in players):
        got = results(tap.collect(timeout=0.4, expect=1), workers)
        if not got:
            idle += 1
            for w, s in players:
                if not s.done and w.worker_id not in failed:
                    tap.send(w.host_if, frame(w, s.pending))
            continue
        idle = 0
        for v, payload in got:
            (s,) = [s for w, s in players if w == v]
            try:
                reply = s.on_result(AggHeader.unpack(payload), payload)
            except JobFailed as exc:
                failed[v.worker_id] = exc
                continue
            if reply is not None:
                tap.send(v.host_if, frame(v, reply))
    return failed


@pytest.mark.parametrize("earlier_blocks", [(2, 1), (2, 2)], ids=["odd-rounds", "even-rounds"])
@pytest.mark.parametrize("restarted_first", [True, False], ids=["restarted-first", "survivor-first"])
def test_a_restarted_worker_never_gets_a_stale_result(switch, tap, earlier_blocks, restarted_first):
    """Two workers run allreduces 0 and 1 in one slot (one round per block: the number of
    blocks decides the parity of the slot's round), then worker 1 restarts: epoch 0, round 0, shadow
    bit 0, same tensor, same session (the switch has one per job). Worker 0 goes on
    with allreduce 2. Either the restarted worker's packet meets the survivor's in a
    round (MISMATCH: both fail), or it hits the finished last round of allreduce 1
    (stale: dropped, both stall). Nobody ever delivers a sum."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    rng = np.random.default_rng(sum(earlier_blocks))
    tensors = {}  # (worker, epoch) -> {block: values}
    rounds = 0
    for epoch, k in enumerate(earlier_blocks):
        sums: dict = {}
        streams = []
        for w in workers:
            tensors[(w.worker_id, epoch)] = {b: rng.integers(-1000, 1000, 32).astype(np.int32) for b in range(k)}
            streams.append(make_stream(1, w, 0, tensors[(w.worker_id, epoch)], sums, round_=rounds, epoch=epoch))
        drive_streams(tap, workers, streams)
        assert all(s.round == rounds + k for s in streams)  # one round per block, opening included
        rounds += k
        for b in range(k):
            for got in sums[(0, b)]:
                np.testing.assert_array_equal(got, tensors[(0, epoch)][b] + tensors[(1, epoch)][b])
    assert rounds == sum(earlier_blocks)
    before = switch.counters()

    delivered: dict = {}
    survivor = make_stream(1, workers[0], 0, tensors[(0, 0)], delivered, round_=rounds, epoch=2)
    restarted = make_stream(1, workers[1], 0, tensors[(1, 0)], delivered, round_=0, epoch=0)
    order = [(workers[1], restarted), (workers[0], survivor)]
    failed = play(tap, order if restarted_first else order[::-1])

    assert delivered == {}, "a worker delivered a sum of blocks from different allreduces"
    # A stored RESULT repeats the asking packet's epoch, block and fingerprint: had the
    # switch re-sent allreduce 1's last round (next block NONE) to the restarted worker,
    # its stream would end here with no block summed, i.e. an all-zero "result".
    assert not restarted.done, "the restarted worker finished with a stale stored result"
    assert not survivor.done
    c = switch.counters()
    if rounds % 2 == 0:
        # The slot's next round uses copy 0, the restarted worker's: they meet there.
        assert set(failed) == {0, 1} and all(e.code == ErrorCode.TENSOR for e in failed.values())
        assert c["result_multicast"] - before["result_multicast"] == 1
        assert c["stale"] == before["stale"]
    else:
        # Copy 0 holds the last round of allreduce 1, in which worker 1 was counted.
        assert failed == {}
        assert c["stale"] - before["stale"] >= 3  # the first packet and every resend
        assert c["result_multicast"] == before["result_multicast"]
        assert c["result_unicast"] == before["result_unicast"]
