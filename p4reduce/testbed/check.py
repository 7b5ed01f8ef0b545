# SPDX-License-Identifier: Apache-2.0
"""Checking allreduce results against numpy (demo, benchmarks, netns experiments)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from p4reduce.hostagent.fixedpoint import tensor_error_bound


class WrongResult(RuntimeError):
    """A worker's result differs from the exact sum beyond the documented bound."""


def check_results(inputs: Sequence[np.ndarray], results: Sequence[np.ndarray], block_size: int) -> float:
    """Max |error| of the workers' results against the float64 sum of `inputs`.

    int32 sums must be exact; float32 ones within the fixed-point bound of
    docs/protocol.md section 5. Every worker must hold the same bits. Raises
    WrongResult naming the first worker that breaks either rule.
    """
    exact = np.sum([x.astype(np.float64) for x in inputs], axis=0)
    bound = 0.0 if inputs[0].dtype == np.int32 else tensor_error_bound(list(inputs), block_size)
    max_err = 0.0
    for rank, result in enumerate(results):
        if not np.array_equal(result, results[0]):
            raise WrongResult(f"worker {rank}: result differs from worker 0's")
        err = np.abs(result.astype(np.float64) - exact)
        if not (err <= bound).all():
            raise WrongResult(
                f"worker {rank}: result differs from numpy beyond the bound (max |error| {err.max():.3g})"
            )
        max_err = max(max_err, float(err.max(initial=0.0)))
    return max_err
