# SPDX-License-Identifier: Apache-2.0
"""Leaf/spine aggregation: leaves are workers of the spine's job."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.relay import Upstream
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.lossy_relay import LossyRelay

B, S = 16, 6


def _hierarchy(mode: str, leaves: int, per_leaf: int, impairment: Impairment | None = None):
    spine = AggregatorServer([JobSpec(9, leaves, mode=mode, num_slots=S, block_size=B)], port=0)
    spine.start()
    relay = LossyRelay(spine.address, impairment, seed=3).__enter__() if impairment else None
    parent = relay.address if relay else spine.address
    leaf_servers = [
        AggregatorServer(
            [JobSpec(1, per_leaf, mode=mode, num_slots=S, block_size=B, upstream=Upstream(parent[0], parent[1], 9, i))],
            port=0,
        ).start()
        for i in range(leaves)
    ]
    agents = [
        HostAgent(
            WorkerConfig(
                1,
                r,
                per_leaf,
                aggregator=leaf.address,
                mode=mode,
                num_slots=S,
                block_size=B,
                total_workers=leaves * per_leaf,
                timeout=0.01,
                max_timeout=0.05,
            )
        )
        for leaf in leaf_servers
        for r in range(per_leaf)
    ]
    return spine, relay, leaf_servers, agents


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("loss", [0.0, 0.1])
def test_two_leaves_one_spine(mode, loss):
    imp = Impairment(loss=loss) if loss else None
    spine, relay, leaves, agents = _hierarchy(mode, 2, 2, imp)
    rng = np.random.default_rng(7)
    n = len(agents)
    data = [
        [block_sparse(rng, 700, B, d, dtype) for d, dtype in ((0.1, np.int32), (0.5, np.float32), (1.0, np.int32))]
        for _ in range(n)
    ]
    try:
        outs = run_workers(lambda r: [agents[r].allreduce(x) for x in data[r]], n)
    finally:
        for a in agents:
            a.close()
        for s in leaves:
            s.stop()
        if relay:
            relay.__exit__(None, None, None)
        spine.stop()
    for i in range(3):
        exact = np.sum([d[i].astype(np.float64) for d in data], axis=0)
        for r in range(n):
            np.testing.assert_array_equal(outs[r][i], outs[0][i])
        if data[0][i].dtype == np.int32:
            np.testing.assert_array_equal(outs[0][i], exact)
        else:
            from p4reduce.hostagent.fixedpoint import tensor_error_bound

            assert (np.abs(outs[0][i] - exact) <= tensor_error_bound([d[i] for d in data], B)).all()
    if loss:
        assert relay.stats["dropped"] > 0


def test_sparse_leaf_without_holders_stays_silent_upstream():
    """Only leaves with a worker announcing the block send it to the spine."""
    spine, _, leaves, agents = _hierarchy("sparse", 2, 2)
    zero = np.zeros(B * S, np.int32)
    one = zero.copy()
    one[:B] = 5  # block 0 held by the first worker of leaf 0 only
    try:
        outs = run_workers(lambda r: agents[r].allreduce(one if r == 0 else zero), 4)
    finally:
        for a in agents:
            a.close()
        for s in leaves:
            s.stop()
        spine.stop()
    for out in outs:
        np.testing.assert_array_equal(out, one)
    c = spine.counters()
    # One opening DATA per stream from each leaf; leaf 0's for stream 0 carries block 0.
    assert c["counted"] + c["completed"] == 2 * S


def test_job_spec_upstream_parsing():
    spec = JobSpec.parse("1:2:upstream=10.0.0.9:5000,up_job=9,up_rank=1")
    assert spec.upstream == Upstream("10.0.0.9", 5000, 9, 1)
    with pytest.raises(ValueError, match="need upstream"):
        JobSpec.parse("1:2:up_job=3")


def _leaf_waiting_for_its_parent():
    """A leaf engine (job 1, 2 local workers) joined to its parent (job 9, rank 1) whose
    opening DATA of slot 0 went up with block 0 and its look-ahead 2 (local worker 0's):
    (engine, the parent's RESULT for it)."""
    from conftest import join_packet

    from p4reduce.aggregator import AggregatorEngine
    from p4reduce.protocol import EXP_BIAS, NONE, AggHeader, Flags, MsgType

    spec = JobSpec(1, 2, num_slots=2, block_size=4, upstream=Upstream("127.0.0.1", 9999, 9, 1))
    engine = AggregatorEngine([spec], new_session=lambda job, worker: 100 + worker)
    join = AggHeader.unpack(engine.upstream_joins()[0].payload)
    joined = join._replace(msg_type=MsgType.JOINED, session=4242).pack()
    assert engine.handle(joined, from_upstream=True).event == "upstream_joined"
    for w in range(2):
        assert engine.handle(join_packet(spec, w), ("10.0.0.1", 1000 + w)).event == "joined"
    up = None
    for w in range(2):
        opening = AggHeader(
            MsgType.DATA,
            1,
            w,
            0,
            0,
            0,
            0 if w == 0 else NONE,
            2 if w == 0 else NONE,
            EXP_BIAS,
            EXP_BIAS,
            4 if w == 0 else 0,
            Flags.OPENING,
            session=100 + w,
            blocks=4,
            fingerprint=77,
        )
        handled = engine.handle(opening.pack() + bytes(4 * opening.count), ("10.0.0.1", 1000 + w))
        up = handled.replies or up
    sent_up = AggHeader.unpack(up[0].payload)
    assert (sent_up.session, sent_up.block, sent_up.next_block, sent_up.flags) == (4242, 0, 2, Flags.OPENING)
    result = sent_up._replace(msg_type=MsgType.RESULT, worker_id=1, flags=0)
    return engine, result


def _packet(h) -> bytes:
    """`h` and its count of (zero) values."""
    return h.pack() + bytes(4 * h.count)


def test_leaf_ignores_parent_results_without_its_session():
    engine, result = _leaf_waiting_for_its_parent()
    from p4reduce.protocol import MsgType

    for forged in (result._replace(session=1), result._replace(msg_type=MsgType.ERROR, session=5, block=2, count=0)):
        handled = engine.handle(_packet(forged), from_upstream=True)
        assert handled.dropped and handled.event == "upstream_forged"
    handled = engine.handle(_packet(result), from_upstream=True)
    assert handled.event == "completed"
    # each local copy carries its worker's session
    assert sorted(int.from_bytes(out.payload[24:28], "big") for out in handled.replies) == [100, 101]


@pytest.mark.parametrize("change", ["early_end", "other_stream", "count"])
def test_leaf_fails_its_job_on_a_parent_result_that_breaks_the_protocol(change):
    from p4reduce.protocol import NONE, ErrorCode

    engine, result = _leaf_waiting_for_its_parent()
    bad = {
        "early_end": result._replace(next_block=NONE),  # the leaf announced block 2
        "other_stream": result._replace(next_block=1),
        "count": result._replace(count=1),
    }[change]
    handled = engine.handle(_packet(bad), from_upstream=True)
    assert handled.failed == (1, ErrorCode.UPSTREAM, ErrorCode.BAD_BLOCKS)
    assert engine.failure(1) == (ErrorCode.UPSTREAM, ErrorCode.BAD_BLOCKS)


def test_a_parents_error_fails_the_leafs_job_with_upstream():
    from p4reduce.protocol import ErrorCode, MsgType

    engine, result = _leaf_waiting_for_its_parent()
    error = result._replace(msg_type=MsgType.ERROR, block=int(ErrorCode.TENSOR), next_block=1, count=0)
    handled = engine.handle(error.pack(), from_upstream=True)
    assert handled.failed == (1, ErrorCode.UPSTREAM, ErrorCode.TENSOR)
    assert engine.failure(1) == (ErrorCode.UPSTREAM, ErrorCode.TENSOR)


def test_stale_or_unknown_joined_from_upstream_is_dropped():
    from p4reduce.aggregator import AggregatorEngine
    from p4reduce.protocol import AggHeader, MsgType

    spec = JobSpec(1, 2, num_slots=2, block_size=4, upstream=Upstream("127.0.0.1", 9999, 9, 1))
    engine = AggregatorEngine([spec])
    join = AggHeader.unpack(engine.upstream_joins()[0].payload)
    stale = join._replace(msg_type=MsgType.JOINED, epoch=join.epoch ^ 1, session=77)  # another incarnation
    assert engine.handle(stale.pack(), from_upstream=True).event == "upstream_stale"
    unknown = join._replace(msg_type=MsgType.JOINED, job_id=3, session=77)  # a job we are no leaf of
    assert engine.handle(unknown.pack(), from_upstream=True).event == "upstream_unknown"
    assert engine.upstream_joins(), "still not joined: it goes on asking"


def test_a_leafs_stream_ends_with_its_parents_result_not_with_its_local_round():
    """streams_completed / allreduces_completed of a leaf job count when the parent's RESULT
    ends a stream, not when the local round's partial sum goes up."""
    engine, result = _leaf_waiting_for_its_parent()
    from p4reduce.protocol import NONE

    assert engine.counters.snapshot().get("streams_completed", 0) == 0  # the opening went up, no more
    assert engine.handle(_packet(result), from_upstream=True).event == "completed"  # on to block 2
    assert engine.counters.snapshot().get("streams_completed", 0) == 0
    # Slot 1: nobody holds a block; the parent's RESULT to the openings ends its stream.
    from p4reduce.protocol import EXP_BIAS, AggHeader, Flags, MsgType

    up = None
    for w in range(2):
        opening = AggHeader(MsgType.DATA, 1, w, 1, 0, 0, NONE, NONE, EXP_BIAS, EXP_BIAS, 0, Flags.OPENING,
                            session=100 + w, blocks=4, fingerprint=77)  # fmt: skip
        up = engine.handle(opening.pack(), ("10.0.0.1", 1000 + w)).replies or up
    assert engine.counters.snapshot().get("streams_completed", 0) == 0
    ended = AggHeader.unpack(up[0].payload)._replace(msg_type=MsgType.RESULT, worker_id=1, flags=0)
    handled = engine.handle(ended.pack(), from_upstream=True)
    assert handled.stream_done == (1, 1, 0) and handled.allreduce_done is None  # slot 0 still runs
    assert engine.counters.snapshot()["streams_completed"] == 1


def test_leaf_whose_workers_disagree_sends_its_opening_header_only_and_follows_the_repeat():
    """Local holders of the smallest block at different exponents: the leaf's sum is not
    usable, so its opening DATA goes up header-only (docs/protocol.md, Hierarchical
    aggregation) and the parent's REPEAT brings both holders back at the larger exponent."""
    from conftest import join_packet

    from p4reduce.aggregator import AggregatorEngine
    from p4reduce.protocol import NONE, AggHeader, Flags, MsgType

    spec = JobSpec(1, 2, num_slots=2, block_size=4, upstream=Upstream("127.0.0.1", 9999, 9, 1))
    engine = AggregatorEngine([spec], new_session=lambda job, worker: 100 + worker)
    join = AggHeader.unpack(engine.upstream_joins()[0].payload)
    engine.handle(join._replace(msg_type=MsgType.JOINED, session=4242).pack(), from_upstream=True)
    for w in range(2):
        engine.handle(join_packet(spec, w), ("10.0.0.1", 1000 + w))

    def local(w, exp, flags, shadow=0):
        h = AggHeader(MsgType.DATA, 1, w, 0, shadow, 0, 2, NONE, exp, 0, 4, flags, session=100 + w, blocks=4,
                      fingerprint=77)  # fmt: skip
        return engine.handle(_packet(h), ("10.0.0.1", 1000 + w))

    local(0, 128, Flags.OPENING)
    up = AggHeader.unpack(local(1, 130, Flags.OPENING).replies[0].payload)
    assert (up.flags, up.block, up.exp, up.count, up.next_block) == (Flags.OPENING, 2, 130, 0, NONE)
    repeat = up._replace(msg_type=MsgType.RESULT, worker_id=1, flags=0, next_block=2, next_exp=130)
    handled = engine.handle(_packet(repeat), from_upstream=True)
    assert handled.event == "completed" and len(handled.replies) == 2
    assert local(0, 128, 0, shadow=1).event == "bad_exp"  # the repeat is at 130
    local(0, 130, 0, shadow=1)
    up = AggHeader.unpack(local(1, 130, 0, shadow=1).replies[0].payload)
    assert (up.flags, up.block, up.exp, up.count, up.shadow) == (0, 2, 130, 4, 1)


# -- a switch leaf under a software parent: a pinned member ---------------------------------


def test_job_spec_pins_a_member_that_never_joins():
    from p4reduce.aggregator.config import PinnedMember

    spec = JobSpec.parse("9:2:mode=dense,block_size=32,pin=0/10.0.0.254:48864/0x1234")
    assert spec.pinned == (PinnedMember(0, "10.0.0.254", 48864, 0x1234),)
    assert spec.admits(0, ("10.0.0.254", 48864)) and not spec.admits(0, ("10.0.0.254", 40000))
    assert spec.admits(1, ("10.0.0.7", 40000))  # the others as before
    assert "pinned rank 0 at 10.0.0.254:48864" in spec.describe()
    for bad, words in (
        ("9:2:pin=2/10.0.0.1:1/5", "pinned ranks"),
        ("9:2:pin=0/10.0.0.1:1/5,pin=0/10.0.0.2:1/6", "pinned ranks"),
        ("9:2:pin=0/10.0.0.1/5", "RANK/IP:PORT/SESSION"),
        ("9:2:pin=0/10.0.0.1:1/0", r"session 1\.\.2\^32-1"),
        ("9:2:pin=0/nowhere:1/5", "not an IPv4 address"),
    ):
        with pytest.raises(ValueError, match=words):
            JobSpec.parse(bad)


@pytest.mark.parametrize("engine_kind", ["python", "native"])
def test_a_pinned_member_counts_without_joining_and_its_rank_cannot_be_joined(engine_kind):
    from conftest import join_packet

    from p4reduce.aggregator.server import Datapath, make_engine
    from p4reduce.protocol import NONE, AggHeader, ErrorCode, Flags, MsgType

    leaf = ("10.0.0.254", 48864)
    spec = JobSpec.parse("9:2:mode=dense,block_size=4,num_slots=2,message_size=0,pin=0/10.0.0.254:48864/777")
    engine = make_engine([spec], engine_kind, new_session=lambda job, worker: 500 + worker)
    path = Datapath(engine, {})
    # Rank 1 joins as any worker; a JOIN for rank 0, from anywhere, is refused.
    assert AggHeader.unpack(path.process([(join_packet(spec, 1), ("10.0.0.9", 4000))])[0][0]).session == 501
    for source in (("10.0.0.9", 4001), leaf):
        (answer, _), *_ = path.process([(join_packet(spec, 0), source)]) or [(None, None)]
        assert answer is None or AggHeader.unpack(answer).block == ErrorCode.UNKNOWN_RANK

    def opening(worker, session, values):
        h = AggHeader(MsgType.DATA, 9, worker, 0, 0, 0, 0, NONE, 127, 0, 4, Flags.OPENING, session=session,
                      blocks=2, fingerprint=5)  # fmt: skip
        return h.pack() + np.asarray(values, ">i4").tobytes()

    ((error, dest),) = path.process([(opening(0, 999, [1, 2, 3, 4]), leaf)])  # not its session
    assert dest == leaf and AggHeader.unpack(error).msg_type == MsgType.ERROR
    assert AggHeader.unpack(error).block == ErrorCode.NOT_JOINED
    assert path.process([(opening(0, 777, [1, 2, 3, 4]), ("10.0.0.9", 4000))]) == []  # not its address
    assert path.process([(opening(0, 777, [1, 2, 3, 4]), leaf)]) == []  # counted
    out = path.process([(opening(1, 501, [10, 20, 30, 40]), ("10.0.0.9", 4000))])
    by_dest = {dest: AggHeader.unpack(d) for d, dest in out}
    assert set(by_dest) == {leaf, ("10.0.0.9", 4000)}
    assert by_dest[leaf].session == 777 and by_dest[leaf].worker_id == 0
    assert list(np.frombuffer(out[0][0], ">i4", 4, 36)) == [11, 22, 33, 44]
