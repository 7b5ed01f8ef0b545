# SPDX-License-Identifier: Apache-2.0
"""Software aggregator engine: validation, counters, sparse bookkeeping, epochs."""

import numpy as np
import pytest
from conftest import SESSION, joined_engine

from p4reduce.aggregator import AggregatorEngine, JobSpec
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, decode_values, encode


def data(
    worker,
    shadow,
    block,
    nxt,
    *,
    job=1,
    slot=0,
    epoch=0,
    exp=127,
    next_exp=127,
    values=None,
    msg=MsgType.DATA,
    blocks=64,
    fingerprint=7,
    flags=0,
):
    count = 0 if values is None else len(values)
    h = AggHeader(
        msg,
        job,
        worker,
        slot,
        shadow,
        epoch,
        block,
        nxt,
        exp,
        next_exp,
        count,
        flags,
        session=SESSION,
        blocks=blocks,
        fingerprint=fingerprint,
    )
    return encode(h, None if values is None else np.asarray(values))


def opening(worker, block, nxt, *, shadow=0, values=None, **kw):
    """A worker's opening DATA: its own first block (values unless it holds none)."""
    if values is None and block != NONE:
        values = [worker + 1, worker + 1]
    return data(worker, shadow, block, nxt, values=values, flags=Flags.OPENING, **kw)


def result(handled, i=0):
    return AggHeader.unpack(handled.replies[i].payload)


@pytest.fixture
def engine():
    return joined_engine([JobSpec(1, 2, mode="sparse", slot_base=0, num_slots=4, block_size=2)])


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"\x01\x01", "truncated"),
        (opening(0, 4, NONE, job=7), "unknown_job"),
        (opening(2, 4, NONE), "bad_worker"),
        (opening(0, 4, NONE, slot=4), "bad_slot"),
        (opening(0, 4, 8, values=[1, 2, 3]), "bad_count"),
        (opening(0, NONE, NONE, values=[1, 2]), "bad_count"),  # no block, no values
        (opening(0, 4, NONE, msg=MsgType.RESULT), "bad_type"),
        (opening(0, 4, NONE, shadow=1), "stale"),  # wrong shadow copy for a fresh slot
        (data(0, 0, 4, NONE, values=[1, 2]), "stale"),  # a data round's DATA: the slot is opening
        (bytes([2]) + opening(0, 4, NONE)[1:], "bad_version"),  # protocol version 2
    ],
)
def test_bad_input_dropped_and_counted(engine, payload, reason):
    handled = engine.handle(payload)
    assert handled.event == reason and handled.replies == []
    assert {k: v for k, v in engine.counters.drops().items()} == {reason: 1}
    # The slot still works afterwards.
    engine.handle(opening(0, NONE, NONE))
    assert len(engine.handle(opening(1, NONE, NONE)).replies) == 2


def test_opening_round_sums_the_smallest_block_and_looks_ahead(engine):
    engine.handle(opening(0, 8, NONE, exp=130, values=[1, 2]))
    done = engine.handle(opening(1, 4, 12, exp=129, next_exp=131, values=[5, 6]))
    h = result(done)
    # Worker 1's block 4 is the round's; worker 0 still holds 8, worker 1 announced 12.
    assert (h.block, h.exp, h.next_block, h.next_exp, h.count) == (4, 129, 8, 130, 2)
    assert list(decode_values(done.replies[0].payload, 2)) == [5, 6]
    # The round after the opening expects every worker, sparse mode too: worker 1, who does
    # not hold block 8, answers header-only.
    assert engine.handle(data(0, 1, 8, NONE, exp=130, values=[1, 2])).event == "counted"
    done = engine.handle(data(1, 1, 8, 12, exp=130, next_exp=131))
    assert (result(done).block, result(done).next_block) == (8, 12)
    assert list(decode_values(done.replies[0].payload, 2)) == [1, 2]
    # From the next round on, only announced holders: worker 0 is done.
    assert engine.handle(data(0, 0, 12, NONE, exp=131, values=[1, 1])).event == "unexpected"


def test_opening_round_adds_equal_keys_and_overwrites_on_a_smaller_one():
    engine = joined_engine([JobSpec(1, 3, mode="sparse", slot_base=0, num_slots=4, block_size=2)])
    engine.handle(opening(0, 8, NONE, exp=130, values=[100, 100]))  # left out: 4 comes later
    engine.handle(opening(1, 4, NONE, exp=129, values=[1, 2]))
    done = engine.handle(opening(2, 4, 8, exp=129, next_exp=131, values=[10, 20]))
    h = result(done)
    assert (h.block, h.exp, h.next_block, h.next_exp) == (4, 129, 8, 131)
    assert list(decode_values(done.replies[0].payload, 2)) == [11, 22]


def test_opening_round_repeats_when_holders_disagree_on_the_exponent(engine):
    engine.handle(opening(0, 4, NONE, exp=129, values=[1, 2]))
    done = engine.handle(opening(1, 4, 8, exp=131, next_exp=120, values=[3, 4]))
    h = result(done)
    assert (h.block, h.next_block, h.exp, h.next_exp, h.count) == (4, 4, 131, 131, 0)
    # The repeat is a data round of block 4 at the larger exponent, both holders expected.
    assert engine.handle(data(0, 1, 4, NONE, exp=129, values=[1, 2])).event == "bad_exp"
    engine.handle(data(0, 1, 4, NONE, exp=131, values=[1, 2]))
    done = engine.handle(data(1, 1, 4, 8, exp=131, next_exp=120, values=[3, 4]))
    h = result(done)
    assert (h.block, h.exp, h.next_block, h.next_exp) == (4, 131, 8, 120)
    assert list(decode_values(done.replies[0].payload, 2)) == [4, 6]


def test_header_only_opening_with_a_block_forces_a_repeat(engine):
    engine.handle(opening(0, 4, NONE, exp=129, values=[1, 2]))
    h = result(engine.handle(data(1, 0, 4, NONE, exp=129, flags=Flags.OPENING)))
    assert (h.block, h.next_block, h.count) == (4, 4, 0)


def test_empty_stream_ends_in_its_opening_round(engine):
    engine.handle(opening(0, NONE, NONE))
    done = engine.handle(opening(1, NONE, NONE))
    h = result(done)
    assert (h.block, h.next_block, h.count) == (NONE, NONE, 0)
    assert done.stream_done is not None


@pytest.mark.parametrize(
    "packet",
    [
        opening(0, 5, NONE),  # block 5 is in stream 1, the slot serves stream 0
        opening(0, 64, NONE),  # outside the 64-block tensor
        opening(0, 4, 4),  # the look-ahead does not move forward
        opening(0, NONE, 4),  # a look-ahead after no block
    ],
)
def test_opening_blocks_outside_the_stream_fail_the_job(engine, packet):
    assert engine.handle(packet).failed is not None


def test_retransmitted_opening_data_gets_the_opening_result(engine):
    engine.handle(opening(0, 8, NONE, exp=130))
    done = engine.handle(opening(1, 4, NONE, exp=129))
    again = engine.handle(opening(0, 8, NONE, exp=130))
    assert again.event == "resent" and [r.worker_id for r in again.replies] == [0]
    assert again.replies[0].payload == done.replies[0].payload


def test_query_answered_only_once_round_is_done(engine):
    engine.handle(opening(0, 4, 8))
    engine.handle(opening(1, 12, NONE))
    engine.handle(data(1, 1, 8, 12))  # the round after the opening: everyone, header-only if need be
    engine.handle(data(0, 1, 8, NONE, values=[1, 2]))
    assert engine.handle(data(0, 0, 12, NONE, msg=MsgType.QUERY)).event == "pending"  # silent in round 12
    engine.handle(data(1, 0, 12, NONE, values=[1, 2]))
    reply = engine.handle(data(0, 0, 12, NONE, msg=MsgType.QUERY))
    assert reply.event == "resent" and [r.worker_id for r in reply.replies] == [0]


def test_overflow_flagged(engine):
    engine = joined_engine([JobSpec(1, 2, num_slots=1, block_size=1)])
    engine.handle(opening(0, 0, NONE, values=[2**31 - 1]))
    h = result(engine.handle(opening(1, 0, NONE, values=[1])))
    assert h.flags == Flags.OVERFLOW


def test_stale_opening_of_previous_epoch_is_answered_not_counted(engine):
    # Epoch 0: worker 0 has nothing (sends NONE), then answers the next round header-only.
    engine.handle(opening(0, NONE, NONE))
    engine.handle(opening(1, 4, 8))
    engine.handle(data(0, 1, 8, NONE))
    engine.handle(data(1, 1, 8, NONE, values=[3, 3]))
    # The slot now waits for epoch 1's opening round at round 2 (shadow 0 again).
    replay = engine.handle(opening(0, NONE, NONE, epoch=0))
    assert replay.event == "resent"
    assert result(replay).epoch == 0
    engine.handle(opening(0, NONE, NONE, epoch=1))
    done = engine.handle(opening(1, NONE, NONE, epoch=1))
    assert done.event == "completed"
    assert result(done).epoch == 1


def test_jobs_with_overlapping_slots_rejected():
    with pytest.raises(ValueError, match="overlap"):
        AggregatorEngine([JobSpec(1, 2, slot_base=0, num_slots=8), JobSpec(2, 2, slot_base=4)])


@pytest.mark.parametrize(
    "text, err",
    [("1", "expected"), ("1:40", "num_workers"), ("1:2:mode=bogus", "bogus"), ("1:2:color=red", "unknown key")],
)
def test_job_spec_parse_errors(text, err):
    with pytest.raises(ValueError, match=err):
        JobSpec.parse(text)


def test_job_spec_parse():
    spec = JobSpec.parse("3:4:mode=dense,block_size=32,slot_base=64,num_slots=16")
    assert (spec.job_id, spec.num_workers, spec.mode.value, spec.block_size, spec.slot_base, spec.num_slots) == (
        3,
        4,
        "dense",
        32,
        64,
        16,
    )


def test_job_spec_declared_workers():
    spec = JobSpec.parse("1:2:workers=10.0.0.1/10.0.0.2:40001")
    assert [str(w) for w in spec.workers] == ["10.0.0.1", "10.0.0.2:40001"]
    assert spec.admits(0, ("10.0.0.1", 5555)) and not spec.admits(0, ("10.0.0.3", 5555))
    assert spec.admits(1, ("10.0.0.2", 40001)) and not spec.admits(1, ("10.0.0.2", 40002))
    assert "workers 10.0.0.1/10.0.0.2:40001" in spec.describe()
    for bad, err in (
        ("1:2:workers=10.0.0.1", "1 worker addresses for 2 workers"),
        ("1:2:workers=10.0.0.1/host", "not an IPv4 address"),
        ("1:2:workers=10.0.0.1/10.0.0.2:x", "expected IP"),
        ("1:2:workers=10.0.0.1/10.0.0.2:70000", "outside 1..65535"),
    ):
        with pytest.raises(ValueError, match=err):
            JobSpec.parse(bad)


def test_undeclared_source_is_not_admitted_even_to_join():
    from conftest import join_packet

    spec = JobSpec.parse("1:2:workers=10.0.0.1/10.0.0.2")
    engine = AggregatorEngine([spec])
    assert engine.handle(join_packet(spec, 0), ("10.0.0.9", 4000)).event == "not_admitted"
    assert engine.handle(join_packet(spec, 0), ("10.0.0.1", 4000)).event == "joined"
    assert engine.destination(1, 0) == (("10.0.0.1", 4000), 0)  # the JOIN asked for 0: unpacked
