# SPDX-License-Identifier: Apache-2.0
"""End-to-end allreduce over real UDP sockets on loopback through the software aggregator."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import RETRANSMISSION_DROPS, allreduce_all, block_sparse, run_workers

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig, fixedpoint
from p4reduce.hostagent.agent import AgentFailed
from p4reduce.protocol import HEADER_LEN


def exact_sum(arrays):
    return np.sum([a.astype(np.float64) for a in arrays], axis=0)


def assert_float_within_bound(result, arrays, block_size):
    exact = exact_sum(arrays).reshape(-1)
    bound = fixedpoint.tensor_error_bound(arrays, block_size)
    err = np.abs(result.reshape(-1).astype(np.float64) - exact)
    assert (err <= bound).all(), f"max excess {np.max(err - bound)}"


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.1, 1.0])
def test_int32_exact(mode, n, density):
    rng = np.random.default_rng(n * 100 + int(density * 100))
    arrays = [block_sparse(rng, 1000, 16, density, np.int32) for _ in range(n)]
    results, _, counters = allreduce_all(arrays, mode=mode, block_size=16, num_slots=8)
    expected = np.sum(arrays, axis=0, dtype=np.int64)
    for r in results:
        assert r.dtype == np.int32
        np.testing.assert_array_equal(r, expected)
    # Timer-driven retransmissions (a loaded machine) may show up as duplicates;
    # nothing may be dropped for any other reason.
    assert set(k for k in counters if k.startswith("drop_")) <= RETRANSMISSION_DROPS, counters


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.1, 1.0])
def test_float32_within_bound(mode, n, density):
    rng = np.random.default_rng(n + int(density * 1000))
    # 1001 elements: the block size 13 does not divide the tensor length.
    arrays = [block_sparse(rng, 1001, 13, density, scale=10.0 ** rng.integers(-3, 4)) for _ in range(n)]
    results, _, _ = allreduce_all(arrays, mode=mode, block_size=13, num_slots=7)
    for r in results:
        assert r.dtype == np.float32 and r.shape == (1001,)
        assert_float_within_bound(r, arrays, 13)
        np.testing.assert_array_equal(r, results[0])  # every worker gets identical bits


def test_shapes_preserved_and_input_untouched():
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal((3, 5, 7)).astype(np.float32) for _ in range(2)]
    copies = [a.copy() for a in arrays]
    results, _, _ = allreduce_all(arrays, block_size=8)
    assert results[0].shape == (3, 5, 7)
    for a, c in zip(arrays, copies, strict=True):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_empty_and_all_zero_tensors(mode):
    empty = [np.zeros((0, 4), np.float32) for _ in range(3)]
    results, agents, counters = allreduce_all(empty, mode=mode)
    assert results[0].shape == (0, 4) and agents[0].last_stats.packets_sent == 0
    zeros = [np.zeros(100, np.float32) for _ in range(3)]
    results, agents, _ = allreduce_all(zeros, mode=mode, block_size=10, num_slots=4)
    np.testing.assert_array_equal(results[0], zeros[0])
    # Only the opening round of each used stream: one header-only packet per slot
    # (and the JOIN of a worker's first allreduce).
    assert agents[0].last_stats.packets_sent == 4 + 1


def test_repeated_allreduces_of_different_sizes_reuse_slots():
    rng = np.random.default_rng(3)
    sizes = [50, 7, 300, 0, 123]
    from conftest import run_workers

    from p4reduce.aggregator import AggregatorServer, JobSpec

    with AggregatorServer([JobSpec(4, 3, num_slots=5, block_size=4)], port=0) as srv:
        agents = [HostAgent(WorkerConfig(4, r, 3, aggregator=srv.address, num_slots=5, block_size=4)) for r in range(3)]
        data = [[block_sparse(rng, s, 4, 0.3, np.int32) for s in sizes] for _ in range(3)]
        outs = run_workers(lambda r: [agents[r].allreduce(x) for x in data[r]], 3)
        for i in range(len(sizes)):
            np.testing.assert_array_equal(outs[0][i], sum(d[i] for d in data))
            np.testing.assert_array_equal(outs[2][i], outs[0][i])
        for a in agents:
            a.close()


def _sent_packets(arrays: list[np.ndarray], worker: int, B: int, S: int) -> tuple[int, int]:
    """(header-only, full) packets a worker sends in one int32 allreduce (docs/protocol.md 3
    and 4): per stream, a header-only opening DATA if it holds nothing there; else each of
    its non-zero blocks once, and its first block a second time when another worker's
    first block of the stream is smaller (its opening values were left out); and a
    header-only DATA in the round after the opening if it does not hold that round's block."""
    nonzero = [np.flatnonzero(a.reshape(-1, B).any(axis=1)) for a in arrays]
    headers = full = 0
    for s in range(S):
        held = [[b for b in nz if b % S == s] for nz in nonzero]
        mine = held[worker]
        firsts = [h[0] for h in held if h]
        first = min(firsts, default=None)
        # Round 1: the smallest block any worker announced after the opening's.
        second = min((b for h in held for b in h[:2] if b != first), default=None)
        if second is not None and second not in mine:
            headers += 1
        if not mine:
            headers += 1
            continue
        full += len(mine) + (mine[0] != first)
    return headers, full


def test_bytes_sent_follow_the_nonzero_blocks():
    """Sparse mode: besides the JOIN of its first allreduce, a worker sends one header-only
    opening DATA per stream it holds nothing in and one full packet per non-zero block, plus
    its first block again in the streams whose opening round summed another worker's
    smaller one: nothing depends on the tensor's size beyond its non-zero blocks."""
    rng = np.random.default_rng(11)
    B, S, L = 32, 16, 32 * 400
    for density in (0.01, 0.1, 0.5, 1.0):
        arrays = [block_sparse(rng, L, B, density, np.int32) for _ in range(4)]  # int32: never a REPEAT
        # A long timeout: a retransmission on a loaded machine would add bytes.
        _, agents, _ = allreduce_all(arrays, block_size=B, num_slots=S, timeout=2.0, max_timeout=4.0)
        for w, a in enumerate(agents):
            st = a.last_stats
            assert st.retransmissions == 0 and st.queries == 0
            headers, full = _sent_packets(arrays, w, B, S)
            assert st.payload_bytes_sent == (1 + headers) * HEADER_LEN + full * (HEADER_LEN + 4 * B)
            assert st.packets_sent == 1 + headers + full
            assert full >= st.nonzero_blocks


def test_unsupported_dtype_and_bad_values_send_nothing():
    cfg = WorkerConfig(1, 0, 2, aggregator=("127.0.0.1", 9))
    with HostAgent(cfg) as agent:
        with pytest.raises(TypeError, match="float64"):
            agent.allreduce(np.zeros(4))
        with pytest.raises(ValueError, match="NaN"):
            agent.allreduce(np.array([1, np.nan], np.float32))
        with pytest.raises(OverflowError):
            agent.allreduce(np.array([2**30 + 5], np.int32))
        assert agent.last_stats.packets_sent == 0


def test_timeout_names_slot_then_agent_refuses_until_reset():
    cfg = WorkerConfig(
        1,
        0,
        2,
        aggregator=("127.0.0.1", 9),
        num_slots=2,
        block_size=4,
        timeout=0.001,
        max_timeout=0.002,
        failure_timeout=0.05,
    )
    with HostAgent(cfg) as agent:
        with pytest.raises(TimeoutError, match="did not answer JOIN within 0.05 s"):
            agent.allreduce(np.ones(8, np.float32))
        with pytest.raises(AgentFailed):
            agent.allreduce(np.ones(8, np.float32))
        agent.reset()
        with pytest.raises(TimeoutError):
            agent.allreduce(np.ones(8, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("length", [1000, 1003])  # 1003: the last block is cut short
def test_out_in_place_and_separate_give_the_same_bits(dtype, length):
    rng = np.random.default_rng(length)
    arrays = [block_sparse(rng, length, 16, 0.3, dtype) for _ in range(3)]
    fresh, _, _ = allreduce_all(arrays, block_size=16)
    in_place = [a.copy() for a in arrays]
    separate = [np.full(length, 7, dtype=dtype) for _ in arrays]  # stale content is cleared
    with AggregatorServer([JobSpec(1, 3, num_slots=8, block_size=16)], port=0) as server:
        agents = [
            HostAgent(WorkerConfig(1, r, 3, aggregator=server.address, num_slots=8, block_size=16)) for r in range(3)
        ]
        try:

            def work(rank):
                a = agents[rank]
                got = a.allreduce(in_place[rank], out=in_place[rank])
                assert got is in_place[rank]
                assert a.allreduce(arrays[rank], out=separate[rank]) is separate[rank]

            run_workers(work, 3)
        finally:
            for a in agents:
                a.close()
    for r in range(3):
        assert in_place[r].tobytes() == fresh[0].tobytes()
        assert separate[r].tobytes() == fresh[0].tobytes()


@pytest.mark.parametrize(
    "make_out, error",
    [
        (lambda buf: np.zeros(99, np.float32), "out is float32"),
        (lambda buf: np.zeros(100, np.float64), "out is float64"),
        (lambda buf: np.zeros(200, np.float32)[::2], "C-contiguous"),
        (lambda buf: [0.0] * 100, "numpy array"),
        (lambda buf: buf[1:], "overlaps"),  # shares the tensor's memory without being it
    ],
)
def test_bad_out_rejected_before_anything_is_sent(make_out, error):
    buf = np.arange(101, dtype=np.float32)
    x = buf[:100]
    with HostAgent(WorkerConfig(1, 0, 1, aggregator=("127.0.0.1", 9))) as agent:
        with pytest.raises((ValueError, TypeError), match=error):
            agent.allreduce(x, out=make_out(buf))
        assert agent.last_stats.packets_sent == 0
    np.testing.assert_array_equal(buf, np.arange(101, dtype=np.float32))


def test_overflow_flagged_by_the_aggregator_raises(monkeypatch):
    """Workers refuse inputs that could overflow; if one does not (here: the check is
    switched off), the aggregator's OVERFLOW flag reaches every worker as an error."""
    monkeypatch.setattr(fixedpoint, "check_int_input", lambda flat, n: None)
    big = np.full(32, 2**31 - 1, dtype=np.int32)
    with pytest.raises(OverflowError, match="overflow in the sum"):
        allreduce_all([big, big], block_size=16, num_slots=2)


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_workers_that_spin_before_blocking_are_exact(mode):
    """spin_us on UDP sockets: the native engine polls without sleeping before it blocks;
    the results are the same, only when the engine sleeps differs."""
    rng = np.random.default_rng(5)
    arrays = [block_sparse(rng, 16 * 40, 16, 0.3, np.int32) for _ in range(3)]
    results, agents, _ = allreduce_all(arrays, mode=mode, repeat=3, spin_us=200)
    assert agents[0].config.spin_us == 200
    for out in results:
        np.testing.assert_array_equal(out, np.sum(arrays, axis=0))


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("length", [1000, 1003])
def test_a_plan_scanned_first_gives_the_same_bits_and_the_array_is_not_read_again(engine, length):
    rng = np.random.default_rng(length)
    arrays = [block_sparse(rng, length, 16, 0.3, np.float32) for _ in range(3)]
    fresh, _, _ = allreduce_all(arrays, block_size=16, engine=engine)
    given = [a.copy() for a in arrays]
    outs = [np.zeros(length, np.float32) for _ in arrays]
    zero_block = int(np.flatnonzero(~given[0][:992].reshape(-1, 16).any(axis=1))[0])
    with AggregatorServer([JobSpec(1, 3, num_slots=8, block_size=16)], port=0) as server:
        agents = [
            HostAgent(WorkerConfig(1, r, 3, aggregator=server.address, num_slots=8, block_size=16, engine=engine))
            for r in range(3)
        ]
        try:

            def work(rank):
                a = agents[rank]
                plan = a.scan(given[rank])
                assert plan.scanned == plan.num_blocks  # read whole before anything is sent
                if rank == 0:  # written after the scan: the plan says zero, so it is not sent
                    given[0][zero_block * 16 : zero_block * 16 + 16] = 1.0
                assert a.allreduce(given[rank], out=outs[rank], plan=plan) is outs[rank]

            run_workers(work, 3)
        finally:
            for a in agents:
                a.close()
    for r in range(3):
        assert outs[r].tobytes() == fresh[0].tobytes()


def test_a_plan_refused_for_another_array_and_nan_found_by_the_scan():
    x, other = np.ones(100, np.float32), np.ones(100, np.float32)
    with HostAgent(WorkerConfig(1, 0, 1, aggregator=("127.0.0.1", 9), block_size=16)) as agent:
        for plan in (agent.scan(other), agent.scan(x[:50]), agent.scan(x.view(np.int32))):
            with pytest.raises(ValueError, match="`plan` is not this array's"):
                agent.allreduce(x, plan=plan)
        with HostAgent(WorkerConfig(1, 0, 1, aggregator=("127.0.0.1", 9), block_size=32)) as wider:
            with pytest.raises(ValueError, match="`plan` is not this array's"):
                agent.allreduce(x, plan=wider.scan(x))
        with pytest.raises(TypeError, match="C-contiguous"):
            agent.scan(np.ones(200, np.float32)[::2])
        with pytest.raises(TypeError, match="float64"):
            agent.scan(np.ones(10))
        x[77] = np.inf
        with pytest.raises(fixedpoint.NonFiniteInput):
            agent.scan(x)
        assert agent.last_stats.packets_sent == 0
