# SPDX-License-Identifier: Apache-2.0
"""Per-job counters of the software aggregator (AggregatorEngine.job_counters): exact
numbers for a known sequence of packets on both engines, where the native engine's are
the C core's part plus the Python engine's (JOINs, strangers, failed jobs)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import allreduce_all, join_packet

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.server import Datapath, make_engine
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, encode
from p4reduce.protocol.switch import JOB_EVENT_NAMES

ZERO = dict.fromkeys(JOB_EVENT_NAMES, 0)
EPOCH, FP = 1, 0xF00D  # the allreduce the workers run (one block, one stream)


def session(job: int, worker: int) -> int:
    return job << 8 | worker << 1 | 1


class Job:
    """Packets of one job's workers: 2 ranks, one slot, blocks of 2 values."""

    def __init__(self, job_id: int, slot_base: int) -> None:
        self.spec = JobSpec(job_id, 2, num_slots=1, slot_base=slot_base, block_size=2)

    def addr(self, w: int) -> tuple[str, int]:
        return (f"10.0.{self.spec.job_id}.{w + 1}", 5000 + w)

    def data(
        self, w: int, shadow: int, block: int, epoch: int = EPOCH, opening: bool = False, size: int = 2, **fields: int
    ) -> bytes:
        """A DATA about `block` (0, the only one, or NONE), an opening round's if `opening`."""
        values = None if block == NONE else np.array([w + 1, 10 * (w + 1), 0][:size], np.int32)
        h = AggHeader(
            MsgType.DATA,
            self.spec.job_id,
            w,
            self.spec.slot_base,
            shadow,
            epoch,
            block,
            NONE,
            127,
            127,
            0 if values is None else size,
            Flags.OPENING if opening else 0,
            session(self.spec.job_id, w),
            1,
            FP,
        )
        return encode(h._replace(**fields), values)

    def query(self, w: int, shadow: int, block: int, epoch: int) -> bytes:
        s = self.spec
        return AggHeader(
            MsgType.QUERY, s.job_id, w, s.slot_base, shadow, epoch, block, NONE, session=session(s.job_id, w)
        ).pack()


def run(path: Datapath, job: Job, *packets: tuple[int, bytes]) -> list[AggHeader]:
    """Each (rank, packet) in a datagram of its own from the rank's address; the replies."""
    out = path.process([(p, job.addr(w)) for w, p in packets])
    return [AggHeader.unpack(d) for d, _ in out]


def allreduce_with_loss(path: Datapath, job: Job) -> None:
    """JOINs, an opening round with a duplicate that ends in a REPEAT (the workers disagree
    on the block's exponent), the repeated round, a retransmission answered from its result,
    a late opening DATA answered from the opening's, a DATA of the wrong size and a
    stranger's."""
    spec = job.spec
    replies = run(path, job, (0, join_packet(spec, 0)), (1, join_packet(spec, 1)))
    assert [r.msg_type for r in replies] == [MsgType.JOINED] * 2
    opening = job.data(0, 0, 0, opening=True)
    replies = run(path, job, (0, opening), (0, opening), (1, job.data(1, 0, 0, opening=True, exp=128)))
    assert [(r.msg_type, r.next_block) for r in replies] == [(MsgType.PENDING, 0b10), (MsgType.RESULT, 0)] + [
        (MsgType.RESULT, 0)
    ]
    replies = run(path, job, (0, job.data(0, 1, 0, exp=128)), (1, job.data(1, 1, 0, exp=128)))
    assert [r.msg_type for r in replies] == [MsgType.RESULT, MsgType.RESULT]
    replies = run(
        path,
        job,
        (1, job.data(1, 1, 0, exp=128)),  # its RESULT was lost: re-sent from the kept one
        (0, job.data(0, 0, 0, EPOCH + 1, opening=True, size=3)),  # not a block's worth of values
        (0, opening),  # a late copy of its opening DATA: the opening round's RESULT again
        (1, job.data(1, 0, NONE, EPOCH + 1, opening=True, session=12345)),  # not the member's session
    )
    assert [r.msg_type for r in replies] == [MsgType.RESULT, MsgType.RESULT, MsgType.ERROR]


EXPECTED = {"packets": 11, "drops": 2, "retransmissions": 3, "rounds": 2}


@pytest.mark.parametrize("engine", ["python", "native"])
def test_two_jobs_count_their_own_packets_exactly(engine):
    a, b = Job(1, 0), Job(2, 1)
    agg = make_engine([a.spec, b.spec], engine, new_session=session)
    path = Datapath(agg, {})
    assert agg.job_counters(1) == agg.job_counters(2) == ZERO
    allreduce_with_loss(path, a)
    assert agg.job_counters(1) == EXPECTED
    assert agg.job_counters(2) == ZERO
    allreduce_with_loss(path, b)
    run(path, b, (0, join_packet(b.spec, 7)))  # no rank 7: refused (with an ERROR)
    run(path, b, (0, b"\x02\x01" + bytes(10)))  # unparsable: no job's
    run(path, b, (0, join_packet(JobSpec(9, 2), 0)))  # a job that is not ours
    assert agg.job_counters(1) == EXPECTED
    assert agg.job_counters(2) == EXPECTED | {"packets": 12, "drops": 3}
    with pytest.raises(KeyError, match="unknown job 9"):
        agg.job_counters(9)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_failing_packets_and_a_failed_jobs_packets_are_drops(engine):
    job = Job(4, 0)
    agg = make_engine([job.spec], engine, new_session=session)
    path = Datapath(agg, {})
    run(path, job, (0, join_packet(job.spec, 0)), (1, join_packet(job.spec, 1)))
    replies = run(path, job, (0, job.data(0, 0, NONE, opening=True, blocks=0)))  # a stream beyond the tensor: fails
    assert [r.msg_type for r in replies] == [MsgType.ERROR] and agg.failure(4) is not None
    run(path, job, (1, job.data(1, 0, NONE, opening=True)), (0, job.query(0, 0, NONE, EPOCH)))  # the job has failed
    assert agg.job_counters(4) == {"packets": 5, "drops": 3, "retransmissions": 0, "rounds": 0}


@pytest.mark.parametrize("engine", ["python", "native"])
def test_counters_survive_a_reset_and_start_from_zero_for_a_new_job(engine):
    job = Job(3, 0)
    agg = make_engine([job.spec], engine, new_session=session)
    path = Datapath(agg, {})
    allreduce_with_loss(path, job)
    reset = AggHeader(MsgType.RESET, 3, 0, 0, 0, 0, NONE, session=session(3, 0)).pack()
    assert [r.msg_type for r in run(path, job, (0, reset))] == [MsgType.RESET]
    agg.reset_job(3)
    assert agg.job_counters(3) == EXPECTED | {"packets": 12}  # the RESET counts in no cell
    allreduce_with_loss(path, job)  # the same job after the reset, from the start
    assert agg.job_counters(3) == {"packets": 23, "drops": 4, "retransmissions": 6, "rounds": 4}
    agg.remove_job(3)
    with pytest.raises(KeyError, match="unknown job 3"):
        agg.job_counters(3)
    agg.add_job(job.spec)
    assert agg.job_counters(3) == ZERO
    allreduce_with_loss(path, job)
    assert agg.job_counters(3) == EXPECTED


@pytest.mark.parametrize("engine", ["python", "native"])
def test_server_job_counters_add_up_to_its_counters(engine):
    x = [np.arange(300, dtype=np.int32) * (r + 1) for r in range(3)]
    with AggregatorServer([JobSpec(1, 3, num_slots=8, block_size=16)], port=0, engine=engine) as srv:
        outs, _, counters = allreduce_all(x, server=srv)
        np.testing.assert_array_equal(outs[0], sum(x))
        mine = srv.job_counters(1)
        assert mine["packets"] == counters["packets_in"] and mine["rounds"] == counters["completed"]
        drops = sum(v for k, v in counters.items() if k.startswith("drop_"))
        assert mine["drops"] + mine["retransmissions"] == drops + counters.get("resent", 0)
        with pytest.raises(KeyError, match="unknown job 2"):
            srv.job_counters(2)
