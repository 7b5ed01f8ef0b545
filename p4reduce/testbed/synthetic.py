# SPDX-License-Identifier: Apache-2.0
"""Block-sparse test tensors, as gradients of embedding tables look."""

from __future__ import annotations

import numpy as np


def block_sparse(
    rng: np.random.Generator, length: int, block_size: int, density: float, dtype: type = np.float32, scale: float = 1.0
) -> np.ndarray:
    """A flat tensor whose `block_size` blocks are non-zero with probability `density`."""
    if not 0.0 <= density <= 1.0:
        raise ValueError(f"density {density} outside [0, 1]")
    nblocks = -(-length // block_size)
    keep = rng.random(nblocks) < density
    mask = np.repeat(keep, block_size)[:length]
    if np.dtype(dtype) == np.int32:
        values = rng.integers(-1000, 1000, size=length).astype(np.int32)
        values[values == 0] = 1
    elif np.dtype(dtype) == np.float32:
        values = (rng.standard_normal(length) * scale).astype(np.float32)
    else:
        raise TypeError(f"unsupported dtype {np.dtype(dtype)}")
    return np.where(mask, values, 0).astype(dtype)


def worker_tensor(
    seed: int, rank: int, length: int, block_size: int, density: float, dtype: str = "float32"
) -> np.ndarray:
    """The deterministic tensor of worker `rank`, so anyone can recompute the expected sum."""
    rng = np.random.default_rng([seed, rank])
    return block_sparse(rng, length, block_size, density, np.dtype(dtype).type)
