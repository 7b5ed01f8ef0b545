"""float32 <-> int32 fixed point with per-block shared exponents (docs/protocol.md section 5).

A block's agreed exponent E (biased by 127) bounds every holder's values by
2^(E-127); scaling by 2^(30 - k - (E-127)) with k = ceil(log2 n) keeps every
scaled value within 2^(30-k), so the sum of n of them cannot overflow int32.
"""
from __future__ import annotations

import numpy as np

from p4reduce.protocol import EXP_BIAS

INT32_MAX = (1 << 31) - 1


def log2_ceil(n: int) -> int:
    return (n - 1).bit_length()


def exponent_bytes(max_abs: np.ndarray) -> np.ndarray:
    """Biased exponent byte E of each magnitude m, so that m < 2^(E-127)."""
    _, e = np.frexp(max_abs)
    return np.clip(e.astype(np.int64) + EXP_BIAS, 0, 255).astype(np.uint8)


def block_exponents(blocks: np.ndarray) -> np.ndarray:
    """Biased exponent byte per row of a (nblocks, B) float32 array: max|x| < 2^(E-127)."""
    if blocks.shape[0] == 0:
        return np.zeros(0, dtype=np.uint8)
    return exponent_bytes(np.abs(blocks).max(axis=1))


def scale_shift(exp: int, num_workers: int) -> int:
    return 30 - log2_ceil(num_workers) - (exp - EXP_BIAS)


def quantize(values: np.ndarray, exp: int, num_workers: int) -> np.ndarray:
    scaled = np.ldexp(values.astype(np.float64), scale_shift(exp, num_workers))
    return np.rint(scaled).astype(np.int32)


def dequantize(values: np.ndarray, exp: int, num_workers: int) -> np.ndarray:
    return np.ldexp(values.astype(np.float64), -scale_shift(exp, num_workers)).astype(np.float32)


def error_bound(exp: int, num_workers: int) -> float:
    """Max |result - exact sum| from quantization for a block with agreed exponent `exp`
    (before the final rounding to float32)."""
    return num_workers * 2.0 ** (exp - EXP_BIAS + log2_ceil(num_workers) - 31)


def check_float_input(flat: np.ndarray) -> None:
    if not np.isfinite(flat).all():
        bad = int(np.flatnonzero(~np.isfinite(flat))[0])
        raise ValueError(f"tensor holds NaN or Inf (first at flat index {bad}); "
                         "fixed-point aggregation needs finite values")


def check_int_input(flat: np.ndarray, num_workers: int) -> None:
    """Each |x| <= (2^31-1)//n guarantees no sum of n workers can overflow int32."""
    limit = INT32_MAX // num_workers
    if flat.size and (flat.max() > limit or flat.min() < -limit):
        idx = int(np.argmax(np.abs(flat.astype(np.int64))))
        raise OverflowError(
            f"int32 element {int(flat[idx])} at flat index {idx} exceeds {limit} = (2^31-1)//"
            f"{num_workers}: the sum over {num_workers} workers could overflow int32")


def tensor_error_bound(inputs: list[np.ndarray], block_size: int) -> np.ndarray:
    """Per-element bound on |allreduce(inputs) - exact sum| for float32 inputs:
    the quantization bound of each block's agreed exponent plus half a float32 ulp."""
    n = len(inputs)
    flat = [np.asarray(x, dtype=np.float32).reshape(-1) for x in inputs]
    length = flat[0].size
    nblocks = -(-length // block_size)
    pad = nblocks * block_size - length
    exps = np.max([block_exponents(np.pad(f, (0, pad)).reshape(nblocks, block_size))
                   for f in flat], axis=0).astype(np.int64)
    per_block = n * np.ldexp(1.0, exps - EXP_BIAS + log2_ceil(n) - 31)
    exact = np.sum([f.astype(np.float64) for f in flat], axis=0)
    return np.repeat(per_block, block_size)[:length] + np.abs(exact) * 2.0**-24
