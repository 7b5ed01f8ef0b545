# SPDX-License-Identifier: Apache-2.0
"""The path policy of float32 all_reduce (p4reduce.torch.policy): aggregator or dense gloo.

Two spawned ranks per scenario: one with a set threshold (the choice on dense, sparse and
mixed buckets, and exact results on both paths), one calibrated (a threshold in [0, 1] that
both ranks share). Values are multiples of 1/8 below 2^10, exact in float32 and in the
aggregator's fixed point, so both paths must give the float32 sum bit for bit.
"""

from __future__ import annotations

import datetime
import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'p4reduce[torch]')")
dist = pytest.importorskip("torch.distributed", reason="this PyTorch build has no torch.distributed")

import p4reduce.torch  # noqa: E402 - registers the backend (in the spawned ranks too)
from p4reduce.torch.launch import run_ranks  # noqa: E402
from p4reduce.torch.options import Options  # noqa: E402
from p4reduce.torch.policy import OBSERVED_BLOCKS, block_density, check_dense_threshold, crossover  # noqa: E402

BLOCK = 64
BLOCKS = 50  # x the case's scale (1-5): at most OBSERVED_BLOCKS, so results are read whole


def bucket(rank: int, nonzero_blocks: int, seed: int, scale: int = 1) -> torch.Tensor:
    """`scale` x BLOCKS blocks of BLOCK values, the first `scale` x `nonzero_blocks` of them
    non-zero (every value), the rest zero: multiples of 1/8, distinct per rank and seed."""
    g = torch.Generator().manual_seed(seed * 10 + rank)
    x = torch.zeros(scale * BLOCKS * BLOCK)
    n = scale * nonzero_blocks * BLOCK
    x[:n] = (torch.randint(1, 8000, (n,), generator=g) / 8).float()
    return x


# (name, non-zero blocks of rank 0, of rank 1, path both ranks must take at threshold 0.5)
CASES = [
    ("dense", BLOCKS, BLOCKS, "dense"),
    ("sparse", 1, 3, "aggregator"),
    ("mixed, both under", 20, 5, "aggregator"),
    ("mixed, one over", 5, 35, "dense"),
    ("at the threshold", 25, 0, "dense"),
]


def _set_threshold(rank: int, world: int) -> dict[str, object]:
    options = Options(block_size=BLOCK, dense_threshold=0.5)
    dist.init_process_group("p4reduce", rank=rank, world_size=world, pg_options=options)
    stats = p4reduce.torch.stats().policy
    out: dict[str, object] = {}
    try:
        # One size per case: its first call (SUM) goes by both ranks' own densities, agreed;
        # its second (AVG) by the first's result, without an agreement.
        for seed, (name, *blocks, _) in enumerate(CASES):
            for average in (False, True):
                mine = bucket(rank, blocks[rank], seed, scale=seed + 1)
                expected = bucket(0, blocks[0], seed, scale=seed + 1) + bucket(1, blocks[1], seed, scale=seed + 1)
                if average:
                    expected /= 2
                before = (stats.aggregator_calls, stats.dense_calls)
                t = mine.clone()
                dist.all_reduce(t, op=dist.ReduceOp.AVG if average else dist.ReduceOp.SUM)
                path = "dense" if stats.dense_calls > before[1] else "aggregator"
                out[f"{name}, {'avg' if average else 'sum'}"] = (
                    path,
                    bool(torch.equal(t, expected)),
                    stats.densities[-1],
                )
        out["_calls"] = (stats.aggregator_calls, stats.dense_calls)
        out["_agreements"] = stats.agreements
        # A size met before goes by its last result: a dense bucket after a sparse one of the
        # same size still takes the sparse one's path, then the next one follows the dense result.
        paths = []
        for nonzero in (2, BLOCKS, BLOCKS):
            before = stats.dense_calls
            dist.all_reduce(bucket(rank, nonzero, 99, scale=9))
            paths.append("dense" if stats.dense_calls > before else "aggregator")
        out["_predicted"] = (paths, stats.agreements)
    finally:
        dist.destroy_process_group()
    return out


def _dense_path_async(rank: int, world: int) -> dict[str, object]:
    """The dense path's all_reduces run like gloo's async ones: several under way at once,
    in an order of their own beside the caller's fallback collectives, the same tensor
    summed twice in a row, a barrier after all of them."""
    import threading

    from p4reduce.torch.backend import _Queued

    dist.init_process_group("p4reduce", rank=rank, world_size=world, pg_options=Options(dense_threshold=0.0))
    pg = dist.distributed_c10d._get_default_group()
    out: dict[str, object] = {}
    try:
        x, y = bucket(rank, BLOCKS, 1), bucket(rank, BLOCKS, 2)
        x_sum, y_sum = bucket(0, BLOCKS, 1) + bucket(1, BLOCKS, 1), bucket(0, BLOCKS, 2) + bucket(1, BLOCKS, 2)
        dist.all_reduce(torch.ones(1))  # both internal groups made (a gloo group is made by every rank at once)
        dist.reduce(torch.ones(1), dst=0)
        # Rank 1's communication thread is held until its caller's reduce is done, so each
        # rank issues the dense all_reduce and the fallback's reduce in another order.
        held = threading.Event()

        def hold() -> None:
            held.wait(60)

        if rank == 1:
            pg._queue.put(_Queued("hold", hold, torch.futures.Future(), [], set()))
        work = dist.all_reduce(x, async_op=True)
        if rank == 0:  # its dense all_reduce issued first (bounded wait)
            for _ in range(6000):
                if pg._in_flight or work.is_completed():
                    break
                threading.Event().wait(0.01)
        dist.reduce(y, dst=0)
        held.set()
        work.wait()
        out["interleaved"] = (bool(torch.equal(x, x_sum)), rank != 0 or bool(torch.equal(y, y_sum)))
        # The same tensor twice, async: the second reads the first's sum.
        z = bucket(rank, BLOCKS, 3)
        works = [dist.all_reduce(z, async_op=True) for _ in range(2)]
        works[1].wait()
        out["twice"] = bool(torch.equal(z, 2 * (bucket(0, BLOCKS, 3) + bucket(1, BLOCKS, 3))))
        # Many buckets under way, then a barrier: every one is done when it returns.
        many = [bucket(rank, BLOCKS, 10 + i) for i in range(8)]
        works = [dist.all_reduce(t, async_op=True) for t in many]
        dist.barrier()
        out["barrier"] = [w.is_completed() for w in works]
        out["sums"] = all(
            torch.equal(t, bucket(0, BLOCKS, 10 + i) + bucket(1, BLOCKS, 10 + i)) for i, t in enumerate(many)
        )
        out["paths"] = p4reduce.torch.stats().paths["all_reduce"]
    finally:
        dist.destroy_process_group()
    return out


def _calibrated(rank: int, world: int) -> dict[str, object]:
    os.environ.pop("P4REDUCE_DENSE_THRESHOLD", None)  # the tests' default (conftest) would set it
    options = Options(block_size=BLOCK)
    assert options.dense_threshold is None
    dist.init_process_group(
        "p4reduce", rank=rank, world_size=world, pg_options=options, timeout=datetime.timedelta(seconds=120)
    )
    stats = p4reduce.torch.stats().policy
    try:
        mine = bucket(rank, 15, 7)
        t = mine.clone()
        dist.all_reduce(t)
        exact = bool(torch.equal(t, bucket(0, 15, 7) + bucket(1, 15, 7)))
        return dict(
            threshold=stats.threshold,
            timings=sorted(stats.calibrated),
            exact=exact,
            path="dense" if stats.dense_calls else "aggregator",
            density=stats.densities[-1],
        )
    finally:
        dist.destroy_process_group()


def test_threshold_checked():
    assert check_dense_threshold("0.25") == 0.25
    for bad in (-0.1, 1.5, "x", float("nan")):
        with pytest.raises(ValueError, match="dense_threshold"):
            Options(dense_threshold=bad)  # type: ignore[arg-type]
    assert Options.from_env({"P4REDUCE_DENSE_THRESHOLD": "0.3"}).dense_threshold == 0.3
    with pytest.raises(ValueError, match="P4REDUCE_DENSE_THRESHOLD"):
        Options.from_env({"P4REDUCE_DENSE_THRESHOLD": "2"})


def test_crossover():
    assert crossover(aggregator_empty_ms=1, aggregator_dense_ms=11, dense_ms=6) == pytest.approx(0.5)
    assert crossover(aggregator_empty_ms=1, aggregator_dense_ms=5, dense_ms=6) == 1.0  # wins when dense
    assert crossover(aggregator_empty_ms=7, aggregator_dense_ms=20, dense_ms=6) == 0.0  # loses when empty


def test_block_density():
    assert block_density(bucket(0, 0, 1), BLOCK) == 0.0
    assert block_density(bucket(0, 37, 1), BLOCK) == pytest.approx(37 / BLOCKS)
    x = torch.zeros(BLOCK * 3 + 5)
    x[-1] = -2.0  # the cut last block counts as one
    assert block_density(x, BLOCK) == pytest.approx(1 / 4)


def test_block_density_of_a_big_tensor_is_estimated_from_blocks_drawn_at_random():
    g = torch.Generator().manual_seed(5)
    x = torch.zeros(BLOCK * 20_000)
    x.view(-1, BLOCK)[torch.rand(20_000, generator=g) < 0.3] = 1.0
    exact = block_density(x, BLOCK)
    assert block_density(x, BLOCK, max_blocks=20_000) == exact
    assert block_density(x, BLOCK, max_blocks=1000) == pytest.approx(exact, abs=0.05)
    assert block_density(x, BLOCK, max_blocks=OBSERVED_BLOCKS) == pytest.approx(exact, abs=0.1)  # 3 standard errors
    assert block_density(x.clone(), BLOCK, max_blocks=1000) == block_density(x, BLOCK, max_blocks=1000)
    for offset in range(3):  # every 20th block (from 0, 1 or 2): no layout lines up with the draw
        y = torch.zeros(BLOCK * 20_000)
        y.view(-1, BLOCK)[offset::20] = 1.0
        assert block_density(y, BLOCK, max_blocks=1000) == pytest.approx(0.05, abs=0.03)


def test_choice_per_bucket_and_exact_results():
    assert 5 * BLOCKS <= OBSERVED_BLOCKS  # every result read whole: the threshold decides exactly
    ranks = run_ranks(_set_threshold, 2, timeout=240)
    assert ranks[0] == ranks[1]  # same path, same density, same exactness on both ranks
    out = ranks[0]
    for name, *_, path in CASES:
        for op in ("sum", "avg"):
            got_path, exact, density = out[f"{name}, {op}"]
            assert got_path == path, (name, op, density)
            assert exact, (name, op, got_path)
    dense = sum(2 for *_, path in CASES if path == "dense")
    assert out["_calls"] == (2 * len(CASES) - dense, dense)
    assert out["_agreements"] == len(CASES)  # one per size
    assert out["_predicted"] == (["aggregator", "aggregator", "dense"], len(CASES) + 1)


def test_dense_path_runs_async_in_its_own_order():
    ranks = run_ranks(_dense_path_async, 2, timeout=240)
    for out in ranks:
        assert out["interleaved"] == (True, True)
        assert out["twice"]
        assert out["barrier"] == [True] * 8
        assert out["sums"]
        assert out["paths"] == {"gloo": 12, "p4reduce": 0}  # every all_reduce dense


def test_calibration_agrees():
    ranks = run_ranks(_calibrated, 2, timeout=300)
    assert ranks[0] == ranks[1]
    out = ranks[0]
    assert 0.0 <= out["threshold"] <= 1.0
    assert out["timings"] == ["aggregator_dense_ms", "aggregator_empty_ms", "dense_ms"]
    assert out["exact"]
    assert out["density"] == pytest.approx(0.3)
    assert out["path"] == ("dense" if 0.3 >= out["threshold"] else "aggregator")
