# SPDX-License-Identifier: Apache-2.0
"""Which path each all_reduce takes: the aggregator, or a dense gloo allreduce.

A software aggregator beats gloo on sparse tensors and loses on dense ones (docs/benchmarks.md);
a switch aggregates at line rate and always wins. So, per float32 all_reduce (per DDP bucket):

* switch target, or threshold 1.0: the aggregator, always;
* threshold 0.0: the dense path, always;
* otherwise the aggregator when the bucket's block density (the fraction of non-zero blocks
  of ``block_size`` elements) is under the threshold. The density a call goes by is that of
  the last result of the same size: a result is the same on every rank, so its density
  needs no agreement, and DDP's buckets come back every step with the same sizes. A size
  seen for the first time is measured on the call's own tensor instead, the largest
  fraction over the ranks (a one-float MAX allreduce through the dense group).

The threshold is the user's (``Options(dense_threshold=...)``, ``P4REDUCE_DENSE_THRESHOLD``)
or, left unset, the crossover measured at the group's first such all_reduce (`calibrate`):
every rank must take the same path for the same call, so every input of the decision is
agreed (the density by an allreduce, the threshold through the store).

The dense path is gloo's async allreduce on an internal gloo group of its own (fallback.py,
DENSE_PREFIX: not the one that runs the collectives the aggregator does not, which the
caller's thread issues in an order of its own). Lossy groups (Options.lossy_threshold)
always aggregate: their error feedback lives on the aggregator path.

Whatever the threshold, a float sum (all_reduce, reduce_scatter, of every float dtype the
aggregator sums) that holds NaN or Inf on some rank goes down the dense path
(`nonfinite_anywhere`): the aggregator's fixed point has no NaN or Inf, and gloo's sum
hands them on, which is what mixed-precision training relies on to skip an overflowed step.
Finding out costs every aggregated float sum one scan of its tensor and a one-flag MAX
allreduce. So does an int32 sum with an element beyond the fixed point's input bound
|x| <= (2^31-1)//n on some rank (`beyond_int_bound_anywhere`): the aggregator refuses it,
since the sum could overflow, and gloo sums it, wrapping around where it does.
"""

from __future__ import annotations

import datetime
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import Store
from torch.futures import Future

from p4reduce import _native
from p4reduce.hostagent.fixedpoint import INT32_MAX, int_input_fits
from p4reduce.torch.lossy import block_maxima

if TYPE_CHECKING:
    from p4reduce.hostagent import HostAgent
    from p4reduce.torch.options import Options

THRESHOLD_KEY = "p4reduce/dense_threshold"  # the calibrated threshold, in the group's store
CALIBRATION_ELEMENTS = 1 << 20  # 4 MB of float32: a mid-sized DDP bucket
CALIBRATION_ROUNDS = 5  # per path, after CALIBRATION_WARMUP rounds each; the median counts
# A fresh aggregator path runs slower for its first few calls (sockets, the aggregator's
# slot memory, the scan's pages): measured cold, the calibration sent everything dense.
CALIBRATION_WARMUP = 3
MAX_SIZES_KEPT = 4096  # result densities remembered (by element count): a model's buckets fit
# A result's density is an estimate from this many blocks at most: reading every block of a
# 50 MB bucket took 3-5 ms per call, half the aggregator path's whole allreduce of a 1%-dense
# one, and the estimate is on the critical path of every DDP bucket (1024 blocks: 0.3 ms per
# bucket beside training, 3% of a dense model's exchange). 256 blocks drawn at random are
# within 3.1% of the exact fraction (one standard error at density 0.5): a bucket that close
# to the threshold costs about the same on either path.
OBSERVED_BLOCKS = 256


def check_dense_threshold(value: object, what: str = "dense_threshold") -> float:
    """`value` as a float in [0, 1], or ValueError in one line."""
    try:
        threshold = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{what} {value!r}: expected a block density in [0, 1]") from None
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"{what} {value!r}: must be in [0, 1] (1: always the aggregator, 0: always dense)")
    return threshold


def block_density(flat: torch.Tensor, block_size: int, max_blocks: int | None = None) -> float:
    """Fraction of the non-zero blocks of a 1-D tensor (what the aggregator path sends).
    With `max_blocks`, a tensor of more blocks is read at `max_blocks` of its whole blocks
    drawn at random, the same ones for every tensor of its size (so the same estimate for
    the same tensor on every rank), and no layout lines up with them as with every k-th."""
    if flat.numel() == 0:
        return 0.0
    t = flat.detach()
    whole = t.numel() // block_size
    sampled = max_blocks is not None and whole > max_blocks
    if t.device.type == "cpu" and t.dtype == torch.float32 and t.is_contiguous():
        values = t.numpy()
        if sampled:  # numpy's gather: a third of torch's indexing time, on the critical path of DDP
            values = values[: whole * block_size].reshape(whole, block_size).take(_sample(whole, max_blocks), 0)
        # The worker's scan: about a quarter of the tensor operations' time on a 4 MB bucket.
        bad, nonzero = _scan(values.reshape(-1), block_size)
        if bad < 0:
            return float(np.count_nonzero(nonzero)) / nonzero.size
    if sampled:
        t = t[: whole * block_size].view(whole, block_size)[torch.from_numpy(_sample(whole, max_blocks))].view(-1)
    maxima = block_maxima(t, block_size)  # other devices and dtypes, and NaN/Inf (which count)
    return float(maxima.ne(0).sum().item()) / maxima.numel()


def holds_nonfinite(values: torch.Tensor, block_size: int) -> bool:
    """Does the 1-D float tensor `values` hold NaN or Inf?"""
    t = values.detach()
    if t.numel() == 0:
        return False
    if t.device.type == "cpu" and t.dtype == torch.float32 and t.is_contiguous():
        return _scan(t.numpy(), block_size)[0] >= 0  # one pass, no temporary tensor
    return not bool(torch.isfinite(t).all())


def beyond_int_bound(values: torch.Tensor, num_workers: int) -> bool:
    """Does the 1-D int32 tensor `values` (any device) hold an element beyond the fixed
    point's input bound |x| <= (2^31-1)//num_workers (hostagent.fixedpoint)?"""
    t = values.detach()
    if t.device.type == "cpu":
        return not int_input_fits(t.numpy(), num_workers)
    limit = INT32_MAX // num_workers
    return t.numel() > 0 and bool((t.max() > limit) | (t.min() < -limit))


def max_over_ranks(group: dist.ProcessGroup, values: torch.Tensor) -> torch.Tensor:
    """The element-wise MAX of the CPU tensor `values` over `group`'s ranks, in place: what
    they agree on."""
    opts = dist.AllreduceOptions()
    opts.reduceOp = dist.ReduceOp(dist.ReduceOp.MAX)
    group.allreduce([values], opts).wait()
    return values


def true_on_any_rank(group: dist.ProcessGroup, local: bool) -> bool:
    """Is `local` true on any of `group`'s ranks? (a MAX allreduce of one flag)"""
    return bool(max_over_ranks(group, torch.tensor([1.0 if local else 0.0]))[0] > 0)


def _scan(values: np.ndarray, block_size: int) -> tuple[int, np.ndarray]:
    """The worker's own scan (p4reduce/_kernels.c) of a 1-D float32 array, one pass at memory
    speed: the flat index of its first NaN/Inf (-1: none), and which blocks are non-zero."""
    nblocks = -(-values.size // block_size)
    nonzero = np.empty(nblocks, dtype=bool)
    return _native.scan(values, block_size, nonzero, np.empty(nblocks, dtype=np.uint8)), nonzero


@functools.lru_cache(maxsize=64)
def _sample(blocks: int, count: int) -> np.ndarray:
    """`count` of `blocks` block indices, drawn once per size with a fixed seed, in order."""
    drawn = torch.randperm(blocks, generator=torch.Generator().manual_seed(blocks))[:count]
    return drawn.sort().values.numpy()


@dataclass
class PolicyStats:
    """Which path the policy sent each all_reduce, and at what agreed block density."""

    threshold: float | None = None  # None until set or calibrated
    calibrated: dict[str, float] = field(default_factory=dict)  # the calibration's timings (ms)
    aggregator_calls: int = 0
    dense_calls: int = 0
    dense_bytes: int = 0  # tensor bytes sent down the dense path
    densities: list[float] = field(default_factory=list)  # the density each decided call went by
    agreements: int = 0  # of those, decided by a MAX allreduce (a size seen for the first time)
    nonfinite_calls: int = 0  # sums that held NaN or Inf on some rank: summed on the dense path
    int_bound_calls: int = 0  # int32 sums beyond the fixed point's input bound on some rank: the same

    def report(self) -> dict[str, object]:
        return dict(
            threshold=self.threshold,
            calibrated=dict(self.calibrated),
            aggregator_calls=self.aggregator_calls,
            dense_calls=self.dense_calls,
            dense_bytes=self.dense_bytes,
            agreements=self.agreements,
            nonfinite_calls=self.nonfinite_calls,
            int_bound_calls=self.int_bound_calls,
        )


class Policy:
    """One process group's path choice for float32 all_reduce (used on its communication
    thread only, so that every rank meets the same agreements in the same order)."""

    def __init__(
        self,
        store: Store,
        rank: int,
        size: int,
        timeout: datetime.timedelta,
        dense_group: Callable[[], dist.ProcessGroup],
        block_size: int,
        threshold: float | None,
        switch: bool,
        aggregate: Callable[[np.ndarray], object],
    ) -> None:
        self._store, self._rank, self._size, self._timeout = store, rank, size, timeout
        self._dense_group = dense_group  # the dense path's internal gloo group (fallback.py), made on first use
        self.block_size = block_size
        self.switch = switch
        self._aggregate = aggregate  # one allreduce through the aggregator, uncounted
        self.stats = PolicyStats(threshold=1.0 if switch else threshold)
        # Element count -> block density of the last result of that size (the same on every rank).
        self._last_result: dict[int, float] = {}
        # Element count -> the dense sum of that size under way (its density is observed when done).
        self._observing: dict[int, Future[None]] = {}

    @property
    def group(self) -> dist.ProcessGroup:
        return self._dense_group()

    def use_dense(self, flat: torch.Tensor) -> bool:
        """Does this all_reduce of a float32 tensor take the dense path? Every rank calls
        this for the same all_reduce and gets the same answer."""
        threshold = self.threshold()
        self._settle(flat.numel())
        if threshold >= 1.0:
            self.stats.aggregator_calls += 1
            return False
        if threshold <= 0.0:
            density = 1.0
        elif (known := self._last_result.get(flat.numel())) is not None:
            density = known
        else:
            density = float(self._max(torch.tensor([block_density(flat, self.block_size)]))[0])
            self.stats.agreements += 1
        self.stats.densities.append(density)
        dense = density >= threshold
        if dense:
            self.stats.dense_calls += 1
            self.stats.dense_bytes += flat.numel() * flat.element_size()
        else:
            self.stats.aggregator_calls += 1
        return dense

    def observe(self, result: torch.Tensor) -> None:
        """Note the block density of a decided call's result (every rank holds the same
        one): the next all_reduce of this size goes by it."""
        threshold = self.stats.threshold
        if threshold is None or not 0.0 < threshold < 1.0:
            return
        if len(self._last_result) >= MAX_SIZES_KEPT and result.numel() not in self._last_result:
            self._last_result.pop(next(iter(self._last_result)))  # the oldest size
        self._last_result[result.numel()] = block_density(result.reshape(-1), self.block_size, OBSERVED_BLOCKS)

    def nonfinite_anywhere(self, local: bool) -> bool:
        """Does the float tensor a sum would send to the aggregator hold NaN or Inf on any
        rank (`local`: on this one, `holds_nonfinite` or the agent's scan)? The same answer
        on every rank (a MAX allreduce of one flag). The
        aggregator's fixed point cannot carry them, and gloo's sum hands them on (GradScaler
        finds an overflowed step by the Inf in the reduced gradients and skips it), so such a
        sum goes down the dense path on every rank (`sum_now`)."""
        found = self._anywhere(local)
        if found:
            self.stats.nonfinite_calls += 1
        return found

    def beyond_int_bound_anywhere(self, local: bool) -> bool:
        """Does the int32 tensor a sum would send to the aggregator hold an element beyond
        the fixed-point input bound |x| <= (2^31-1)//n on any rank (`local`: on this one,
        `beyond_int_bound`)? The same answer on every rank. The aggregator refuses such a
        sum (it could overflow) where gloo sums it, exactly or wrapping around, so it goes
        down the dense path on every rank (`sum_now`), gloo's result bit for bit."""
        found = self._anywhere(local)
        if found:
            self.stats.int_bound_calls += 1
        return found

    def _anywhere(self, local: bool) -> bool:
        return true_on_any_rank(self.group, local)

    def sum_now(self, values: torch.Tensor, average: bool) -> None:
        """Sum (or average: a float) of a CPU tensor over the group through gloo, in place,
        done when this returns (NaN, Inf and int32 wrap-around included, as gloo's
        all_reduce gives them)."""
        self.group.allreduce([values], dist.AllreduceOptions()).wait()
        if average:
            values.div_(self._size)
        self.stats.dense_bytes += values.numel() * values.element_size()

    def _max(self, values: torch.Tensor) -> torch.Tensor:
        return max_over_ranks(self.group, values)

    def dense_sum(self, flat: torch.Tensor, average: bool) -> Future[None]:
        """Sum (or average) of a float32 tensor over the group through gloo, in place, under
        way when this returns (as gloo's own async all_reduce, so that a DDP bucket's sum
        overlaps the next one's): the Future completes once the sum is in `flat` and its
        density observed. The next call of this size waits for that (`_settle`), so every
        rank decides it by the same density."""
        work = self.group.allreduce([flat], dist.AllreduceOptions())

        def finish(done: Future[list[torch.Tensor]]) -> None:
            done.wait()  # raises the allreduce's error
            if average:  # gloo has no AVG
                flat.div_(self._size)
            self.observe(flat)

        summed: Future[None] = work.get_future().then(finish)
        for size in [n for n, f in self._observing.items() if f.done()]:
            del self._observing[size]
        self._observing[flat.numel()] = summed
        return summed

    def _settle(self, numel: int) -> None:
        """Wait for the density of the last dense sum of `numel` elements (the caller's
        Work reports its error, if it failed)."""
        pending = self._observing.pop(numel, None)
        if pending is not None:
            try:
                pending.wait()
            except Exception:  # noqa: BLE001, S110 - that collective's Work raises it
                pass

    def threshold(self) -> float:
        """The threshold: set, or calibrated once per group (cached in its store)."""
        if self.stats.threshold is None:
            self.stats.threshold = self._calibrated()
        return self.stats.threshold

    def _calibrated(self) -> float:
        if self._store.check([THRESHOLD_KEY]):  # a group of this job measured it already
            return float(self._store.get(THRESHOLD_KEY).decode())
        timings = calibrate(self._aggregate, lambda t: self.dense_sum(t, False).wait(), self._rank)
        # the slowest rank's view: a collective waits for it
        agreed = self._max(torch.tensor(list(timings.values()), dtype=torch.float64))
        self.stats.calibrated = dict(zip(timings, (float(v) for v in agreed), strict=True))
        if self._rank == 0:  # one rank decides, every rank reads the same text
            self._store.set(THRESHOLD_KEY, repr(crossover(**self.stats.calibrated)))
        self._store.wait([THRESHOLD_KEY], self._timeout)
        return float(self._store.get(THRESHOLD_KEY).decode())


def crossover(aggregator_empty_ms: float, aggregator_dense_ms: float, dense_ms: float) -> float:
    """The block density at which the aggregator costs what the dense path does, in [0, 1].
    The aggregator's time grows about linearly with the blocks it sends (its fixed cost
    measured on an all-zero tensor); the dense path's does not depend on the values."""
    if aggregator_dense_ms <= dense_ms:
        return 1.0  # it wins even on a dense tensor
    if aggregator_empty_ms >= dense_ms:
        return 0.0  # it loses even on an empty one
    return (dense_ms - aggregator_empty_ms) / (aggregator_dense_ms - aggregator_empty_ms)


def calibrate(
    aggregate: Callable[[np.ndarray], object], dense: Callable[[torch.Tensor], None], rank: int
) -> dict[str, float]:
    """This rank's median times (ms) of an all-zero and a dense CALIBRATION_ELEMENTS tensor
    through the aggregator, and of the dense tensor through the dense path. Collective."""
    values = np.random.default_rng(rank).standard_normal(CALIBRATION_ELEMENTS).astype(np.float32)

    def median_ms(run: Callable[[], object]) -> float:
        times = []
        for _ in range(CALIBRATION_WARMUP + CALIBRATION_ROUNDS):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return float(np.median(times[CALIBRATION_WARMUP:])) * 1e3

    return dict(
        aggregator_empty_ms=median_ms(lambda: aggregate(np.zeros_like(values))),
        aggregator_dense_ms=median_ms(lambda: aggregate(values.copy())),
        dense_ms=median_ms(lambda: dense(torch.from_numpy(values.copy()))),
    )


def switch_target(agent: HostAgent, options: Options) -> bool:
    """Does the group aggregate on a switch? Placed there by the job service, or at an
    external aggregator in one packet per datagram (message_size 0: what a switch needs)."""
    placed_on_switch = agent.placement is not None and agent.placement.target == "switch"
    return placed_on_switch or (bool(options.aggregators) and options.message_size == 0)
