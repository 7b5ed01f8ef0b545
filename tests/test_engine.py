"""Software aggregator engine: validation, counters, sparse bookkeeping, epochs."""

import numpy as np
import pytest
from conftest import SESSION, joined_engine

from p4reduce.aggregator import AggregatorEngine, JobSpec
from p4reduce.protocol import NONE, AggHeader, MsgType, encode


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
        session=SESSION,
        blocks=blocks,
        fingerprint=fingerprint,
    )
    return encode(h, None if values is None else np.asarray(values))


@pytest.fixture
def engine():
    return joined_engine([JobSpec(1, 2, mode="sparse", slot_base=0, num_slots=4, block_size=2)])


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"\x01\x01", "truncated"),
        (data(0, 0, NONE, 4, job=7), "unknown_job"),
        (data(2, 0, NONE, 4), "bad_worker"),
        (data(0, 0, NONE, 4, slot=4), "bad_slot"),
        (data(0, 0, 4, 8, values=[1, 2, 3]), "bad_count"),
        (data(0, 0, NONE, 4, values=[1, 2]), "bad_count"),  # bootstrap carries no values
        (data(0, 0, NONE, 4, msg=MsgType.RESULT), "bad_type"),
        (data(0, 1, NONE, 4), "stale"),  # wrong shadow copy for a fresh slot
    ],
)
def test_bad_input_dropped_and_counted(engine, payload, reason):
    handled = engine.handle(payload)
    assert handled.event == reason and handled.replies == []
    assert {k: v for k, v in engine.counters.drops().items()} == {reason: 1}
    # The slot still works afterwards.
    engine.handle(data(0, 0, NONE, NONE))
    assert len(engine.handle(data(1, 0, NONE, NONE)).replies) == 2


def test_sparse_round_waits_only_for_announced_holders(engine):
    engine.handle(data(0, 0, NONE, 4, next_exp=130))
    done = engine.handle(data(1, 0, NONE, 8, next_exp=120))
    assert AggHeader.unpack(done.replies[0].payload).next_block == 4
    # Worker 1 did not announce block 4: it may not contribute there.
    assert engine.handle(data(1, 1, 4, 8, exp=130, values=[5, 5])).event == "unexpected"
    assert engine.handle(data(0, 1, 4, NONE, exp=129, values=[1, 2])).event == "bad_exp"
    done = engine.handle(data(0, 1, 4, NONE, exp=130, values=[1, 2]))
    assert done.event == "completed"
    h = AggHeader.unpack(done.replies[1].payload)
    assert (h.block, h.next_block, h.next_exp, h.worker_id) == (4, 8, 120, 1)


def test_query_answered_only_once_round_is_done(engine):
    engine.handle(data(0, 0, NONE, 4))
    engine.handle(data(1, 0, NONE, 8))
    assert engine.handle(data(1, 1, 4, 8, msg=MsgType.QUERY)).event == "pending"
    engine.handle(data(0, 1, 4, NONE, values=[1, 2]))
    reply = engine.handle(data(1, 1, 4, 8, msg=MsgType.QUERY))
    assert reply.event == "resent" and [r.worker_id for r in reply.replies] == [1]


def test_overflow_flagged(engine):
    engine = joined_engine([JobSpec(1, 2, num_slots=1, block_size=1)])
    engine.handle(data(0, 0, NONE, 0))
    engine.handle(data(1, 0, NONE, 0))
    engine.handle(data(0, 1, 0, NONE, values=[2**31 - 1]))
    h = AggHeader.unpack(engine.handle(data(1, 1, 0, NONE, values=[1])).replies[0].payload)
    assert h.flags == 1


def test_stale_bootstrap_of_previous_epoch_is_answered_not_counted(engine):
    # Epoch 0: worker 0 has nothing (announces NONE) and loses the bootstrap result.
    engine.handle(data(0, 0, NONE, NONE))
    engine.handle(data(1, 0, NONE, 4))
    engine.handle(data(1, 1, 4, NONE, values=[3, 3]))
    # The slot now waits for epoch 1's bootstrap at round 2 (shadow 0 again).
    replay = engine.handle(data(0, 0, NONE, NONE, epoch=0))
    assert replay.event == "resent"
    assert AggHeader.unpack(replay.replies[0].payload).epoch == 0
    engine.handle(data(0, 0, NONE, NONE, epoch=1))
    done = engine.handle(data(1, 0, NONE, NONE, epoch=1))
    assert done.event == "completed"
    assert AggHeader.unpack(done.replies[0].payload).epoch == 1


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
