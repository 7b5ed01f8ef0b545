# SPDX-License-Identifier: Apache-2.0
"""Block-sparse reduce-scatter (docs/protocol.md section 3.1): HostAgent.reduce_scatter against
numpy on both aggregator engines, the values of each result block going to its owner only,
and layouts that disagree failing every worker."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SESSION, joined_engine, run_workers

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, JobFailed, WorkerConfig, fixedpoint
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import (
    ALL_WORKERS,
    HEADER_LEN,
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    MsgType,
    fingerprint,
    scatter_flags,
    scatter_owner,
)
from p4reduce.testbed.synthetic import block_sparse

B, S = 16, 4


def _layouts(n: int) -> dict[str, list[int]]:
    """Shard lengths: whole blocks, cut blocks, unequal with an empty shard, a 1-element one."""
    return {"whole": [3 * B] * n, "cut": [45] * n, "unequal": [0, 70] + [17] * (n - 2), "tiny": [1] * n}


def _inputs(rng, layout, dtype, zero_shard: int | None = None) -> np.ndarray:
    parts = [block_sparse(rng, m, 8, 0.6, dtype) for m in layout]
    if zero_shard is not None:
        parts[zero_shard][:] = 0
    return np.concatenate(parts)


def _scatter_all(arrays, layout, *, n, mode="sparse", engine="python", group=None, **cfg):
    """Every worker's reduce_scatter of arrays[rank] (and the agents' stats)."""
    spec = JobSpec(1, n, mode=mode, num_slots=S, block_size=B, group=group)
    with AggregatorServer([spec], port=0, engine=engine) as srv:
        agents = [
            HostAgent(
                WorkerConfig(1, r, n, aggregator=srv.address, mode=mode, num_slots=S, block_size=B, group=group, **cfg)
            )
            for r in range(n)
        ]
        try:
            outs = run_workers(lambda r: agents[r].reduce_scatter(arrays[r], layout), n)
            return outs, [a.last_stats for a in agents]
        finally:
            for a in agents:
                a.close()


def _shard(total: np.ndarray, layout: list[int], rank: int) -> np.ndarray:
    start = sum(layout[:rank])
    return total[start : start + layout[rank]]


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", ["whole", "cut", "unequal", "tiny"])
def test_int32_shards_are_exact(engine, mode, n, name):
    rng = np.random.default_rng(n * 7 + len(name))
    layout = _layouts(n)[name]
    arrays = [_inputs(rng, layout, np.int32, zero_shard=n - 1) for _ in range(n)]
    outs, _ = _scatter_all(arrays, layout, n=n, mode=mode, engine=engine)
    total = np.sum(arrays, axis=0, dtype=np.int64)
    for rank, out in enumerate(outs):
        assert out.dtype == np.int32 and out.shape == (layout[rank],)
        np.testing.assert_array_equal(out, _shard(total, layout, rank))
    assert not outs[n - 1].any()  # the all-zero shard


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", ["cut", "unequal"])
def test_float32_shards_within_bound(engine, n, name):
    rng = np.random.default_rng(n + 100 * len(name))
    layout = _layouts(n)[name]
    arrays = [_inputs(rng, layout, np.float32) for _ in range(n)]
    outs, _ = _scatter_all(arrays, layout, n=n, engine=engine)
    exact = np.sum([a.astype(np.float64) for a in arrays], axis=0)
    for rank, out in enumerate(outs):
        # The bound of the padded layout: each shard on its own blocks.
        shard_inputs = [_shard(a, layout, rank) for a in arrays]
        bound = fixedpoint.tensor_error_bound(shard_inputs, B) if layout[rank] else np.zeros(0)
        err = np.abs(out.astype(np.float64) - _shard(exact, layout, rank))
        assert out.dtype == np.float32 and (err <= bound).all()


def test_empty_tensor_and_all_zero_tensor():
    n = 2
    outs, stats = _scatter_all([np.zeros(0, np.float32)] * n, None, n=n)
    assert [o.shape for o in outs] == [(0,), (0,)] and all(s.packets_sent == 0 for s in stats)
    outs, stats = _scatter_all([np.zeros(4 * B, np.int32)] * n, None, n=n)
    assert all(o.shape == (2 * B,) and not o.any() for o in outs)
    # Only bootstraps: nobody holds a block, so no values travel either way.
    assert all(s.payload_bytes_received == HEADER_LEN * s.packets_received for s in stats)


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("multicast", [False, True])
def test_non_owners_receive_no_values(monkeypatch, mode, multicast):
    """Every RESULT with values that reaches a worker's stream is for a block it owns; the
    owner of an all-zero shard receives no value bytes at all."""
    if multicast:
        from test_multicast import GROUP, _multicast_on_loopback

        if not _multicast_on_loopback():
            pytest.skip("this host cannot join multicast groups on loopback")
    n = 3
    layout = [5 * B, 5 * B - 3, 5 * B]
    rng = np.random.default_rng(11)
    arrays = [_inputs(rng, layout, np.int32, zero_shard=2) for _ in range(n)]
    seen: list[tuple[int, int, int, int | None]] = []  # (worker, block, count, owner)
    # The spy watches the Python engine's streams (the native worker engine takes the same
    # RESULTs: tests/test_native_worker.py).
    monkeypatch.setenv("P4REDUCE_WORKER_ENGINE", "python")
    original = Stream.on_result

    def spy(self, h, payload, source):
        seen.append((self.worker_id, h.block, h.count, self.owner(h.block)))
        return original(self, h, payload, source)

    monkeypatch.setattr(Stream, "on_result", spy)
    outs, stats = _scatter_all(arrays, layout, n=n, mode=mode, group=GROUP if multicast else None)
    total = np.sum(arrays, axis=0)
    for rank in range(n):
        np.testing.assert_array_equal(outs[rank], _shard(total, layout, rank))
    data_rounds = [(w, b, c, o) for w, b, c, o in seen if b != NONE]
    assert data_rounds and all(o == w for w, b, c, o in data_rounds if c)
    assert {w for w, b, c, o in data_rounds if not c} == {0, 1, 2}  # header-only copies arrived
    values = [s.payload_bytes_received - HEADER_LEN * s.packets_received for s in stats]
    assert values[2] == 0
    # Each owner receives its non-zero blocks' values once, plus at most one re-sent copy of
    # a block per retransmission or query of its own (what a lost packet costs), nothing else.
    for rank in (0, 1):
        held = {b // B for a in arrays for b in np.flatnonzero(_shard(a, layout, rank))}
        extra = values[rank] - 4 * B * len(held)
        asked = stats[rank].retransmissions + stats[rank].queries
        assert extra % (4 * B) == 0 and 0 <= extra // (4 * B) <= asked, (rank, values[rank], len(held), asked)


def test_allreduce_still_gets_values_everywhere():
    """A plain allreduce after a reduce-scatter on the same agents: full results to all."""
    n = 2
    rng = np.random.default_rng(3)
    arrays = [block_sparse(rng, 6 * B, B, 1.0, np.int32) for _ in range(n)]
    with AggregatorServer([JobSpec(1, n, num_slots=S, block_size=B)], port=0, engine="python") as srv:
        agents = [HostAgent(WorkerConfig(1, r, n, aggregator=srv.address, num_slots=S, block_size=B)) for r in range(n)]
        try:

            def work(r):
                shard = agents[r].reduce_scatter(arrays[r])
                return shard, agents[r].allreduce(arrays[r])

            results = run_workers(work, n)
        finally:
            for a in agents:
                a.close()
    total = np.sum(arrays, axis=0)
    for rank, (shard, full) in enumerate(results):
        np.testing.assert_array_equal(shard, total[rank * 3 * B : (rank + 1) * 3 * B])
        np.testing.assert_array_equal(full, total)


# -- layouts that disagree fail every worker ----------------------------------------------


def _expect_failure(agent, fn):
    with pytest.raises(JobFailed) as info:
        fn(agent)
    return info.value


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("case", ["layout", "scatter_vs_allreduce", "equal_blocks_other_lengths"])
def test_mismatched_scatter_layouts_fail_every_worker(engine, case):
    n = 2
    x = np.ones(4 * B, np.int32)
    calls = {
        # Same length, shards cut elsewhere.
        "layout": [lambda a: a.reduce_scatter(x, [2 * B, 2 * B]), lambda a: a.reduce_scatter(x, [B, 3 * B])],
        "scatter_vs_allreduce": [lambda a: a.reduce_scatter(x), lambda a: a.allreduce(x)],
        # Both pad to two blocks per shard: only the fingerprint tells them apart.
        "equal_blocks_other_lengths": [
            lambda a: a.reduce_scatter(np.ones(2 * 30, np.int32)),
            lambda a: a.reduce_scatter(np.ones(2 * 31, np.int32)),
        ],
    }[case]
    with AggregatorServer([JobSpec(1, n, num_slots=S, block_size=B)], port=0, engine=engine) as srv:
        agents = [
            HostAgent(WorkerConfig(1, r, n, aggregator=srv.address, num_slots=S, block_size=B, failure_timeout=10.0))
            for r in range(n)
        ]
        try:
            errors = run_workers(lambda r: _expect_failure(agents[r], calls[r]), n)
        finally:
            for a in agents:
                a.close()
    for e in errors:
        assert e.code == ErrorCode.TENSOR and "disagree" in str(e)


def test_bad_arguments_raise_before_sending():
    cfg = WorkerConfig(1, 0, 3, aggregator=("127.0.0.1", 9), num_slots=S, block_size=B)
    with HostAgent(cfg) as agent:
        with pytest.raises(ValueError, match="must divide"):
            agent.reduce_scatter(np.ones(10, np.float32))
        with pytest.raises(ValueError, match="summing to"):
            agent.reduce_scatter(np.ones(10, np.float32), [3, 3, 3])
        with pytest.raises(ValueError, match="shard"):
            agent.reduce_scatter(np.ones(9, np.float32), out=np.zeros(4, np.float32))
        with pytest.raises(TypeError, match="float64"):
            agent.reduce_scatter(np.ones(9))
        with pytest.raises(ValueError, match="NaN"):
            agent.reduce_scatter(np.full(9, np.nan, np.float32))
        assert agent.last_stats.packets_sent == 0
    hier = WorkerConfig(1, 0, 2, aggregator=("127.0.0.1", 9), total_workers=4)
    with HostAgent(hier) as agent, pytest.raises(ValueError, match="leaf"):
        agent.reduce_scatter(np.ones(4, np.float32))


# -- the software aggregator's packets, without sockets -------------------------------------

BLOCKS = 4  # two ranks, two blocks per shard: block b belongs to rank b // 2


def _data(
    worker: int,
    block: int,
    nxt: int,
    *,
    values: bool,
    owner: int | None = None,
    shadow: int = 0,
    flags: int | None = None,
    opening: bool = False,
) -> bytes:
    tag = fingerprint(0, 4 * B, np.int32, B, 1, 2, [2 * B, 2 * B])
    if flags is None:
        flags = scatter_flags(0 if block == NONE else (block // 2 if owner is None else owner))
    if opening:
        flags |= Flags.OPENING
    h = AggHeader(
        MsgType.DATA,
        1,
        worker,
        0,
        shadow,
        0,
        block,
        nxt,
        count=B if values else 0,
        flags=flags,
        session=SESSION,
        blocks=BLOCKS,
        fingerprint=tag,
    )
    return h.pack() + (np.arange(B, dtype=">i4") * (worker + 1)).tobytes() * values


def _engine(mode: str = "dense", group=None) -> AggregatorEngine:
    return joined_engine([JobSpec(1, 2, mode=mode, num_slots=1, block_size=B, group=group)])


def _replies(handled) -> dict[int, AggHeader]:
    return {o.worker_id: (AggHeader.unpack(o.payload), o.nbytes) for o in handled.replies}


def test_engine_sends_values_to_the_owner_only():
    engine = _engine()
    engine.handle(_data(0, 2, NONE, values=True, opening=True))
    done = _replies(engine.handle(_data(1, NONE, NONE, values=False, opening=True)))
    # Block 2 (worker 0's, the smallest) is rank 1's: the values go to worker 1; worker 0
    # gets the header only. The opening round's RESULT names the owner of its block.
    assert {w: (h.count, n, scatter_owner(h.flags)) for w, (h, n) in done.items()} == {
        0: (0, HEADER_LEN, 1),
        1: (B, HEADER_LEN + 4 * B, 1),
    }
    assert all(h.block == 2 and h.next_block == NONE and not h.flags & Flags.OPENING for h, _ in done.values())
    # Re-sends keep it that way.
    for worker, count in ((0, 0), (1, B)):
        again = _replies(
            engine.handle(_data(worker, 2 if worker == 0 else NONE, NONE, values=worker == 0, opening=True))
        )
        assert again[worker][0].count == count and list(again) == [worker]


def test_engine_multicast_unicasts_the_owner_and_sends_one_header_to_the_group():
    engine = _engine("sparse", group=("239.77.1.1", 41000))
    engine.handle(_data(0, 1, NONE, values=True, opening=True))
    done = engine.handle(_data(1, NONE, NONE, values=False, opening=True))
    got = [
        (o.worker_id, AggHeader.unpack(o.payload).count, AggHeader.unpack(o.payload).worker_id) for o in done.replies
    ]
    assert got == [(0, B, 0), (ALL_WORKERS, 0, ALL_WORKERS)]


@pytest.mark.parametrize("how", ["other_owner", "no_scatter"])
def test_engine_flags_a_round_whose_owners_disagree(how):
    """Same fingerprint, other owner (a worker that computes it wrongly): MISMATCH for all."""
    engine = _engine()
    engine.handle(_data(0, 0, 1, values=True, opening=True))
    engine.handle(_data(1, 0, 1, values=True, opening=True))
    engine.handle(_data(0, 1, NONE, values=True, shadow=1))
    wrong = dict(owner=1) if how == "other_owner" else dict(flags=0)
    done = engine.handle(_data(1, 1, NONE, values=True, shadow=1, **wrong))
    assert sorted(o.worker_id for o in done.replies) == [0, 1]
    assert all(AggHeader.unpack(o.payload).flags & Flags.MISMATCH for o in done.replies)
    assert engine.failure(1) == (ErrorCode.TENSOR, 1)


def test_engine_takes_each_opening_datas_own_owner():
    """In an opening round each packet names its own block's owner: no MISMATCH for that."""
    engine = _engine()
    engine.handle(_data(0, 2, NONE, values=True, opening=True))  # rank 1's block
    done = engine.handle(_data(1, 0, NONE, values=True, opening=True))  # rank 0's, the smallest
    assert {o.worker_id: scatter_owner(AggHeader.unpack(o.payload).flags) for o in done.replies} == {0: 0, 1: 0}
    assert engine.failure(1) is None


def test_engine_fails_a_job_named_owner_outside_it():
    engine = _engine()
    engine.handle(_data(0, 0, 1, values=True, opening=True))
    engine.handle(_data(1, 0, 1, values=True, opening=True))
    handled = engine.handle(_data(0, 1, NONE, values=True, shadow=1, owner=5))
    assert engine.failure(1) == (ErrorCode.BAD_BLOCKS, 0) and handled.event == "failed"
