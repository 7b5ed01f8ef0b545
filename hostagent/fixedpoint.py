# SPDX-License-Identifier: Apache-2.0
"""float32 <-> int32 fixed point with per-block shared exponents (docs/protocol.md section 5).

A block's agreed exponent E (biased by 127) bounds every holder's values by
2^(E-127); scaling by 2^(30 - k - (E-127)) with k = ceil(log2 n) keeps every
scaled value within 2^(30-k), so the sum of n of them cannot overflow int32.

`quantize*` and `dequantize*` run the native kernels (p4reduce._native, C);
`reference_quantize` and `reference_dequantize_into` are the numpy model they
match bit for bit, kept readable and used by the tests only.
"""

from __future__ import annotations

import numpy as np

from p4reduce import _native
from p4reduce.hostagent.errors import NonFiniteInput as NonFiniteInput  # (defined with the other errors)
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


def _float32_power(shift: int) -> np.float32 | None:
    """2^shift as a normal float32, or None when it is not one."""
    return np.float32(2.0**shift) if -126 <= shift <= 127 else None


def quantize(values: np.ndarray, exp: int, num_workers: int) -> np.ndarray:
    """float32 values of a block with agreed exponent `exp` -> int32 fixed point
    (int32 values are returned as they are)."""
    out = np.empty(values.shape, dtype=np.int32)
    _native.quantize(values, exp, num_workers, out)
    return out


def quantize_into(values: np.ndarray, exp: int, num_workers: int, out: object) -> None:
    """`quantize` written straight into `out`: a datagram's values (raw bytes or a
    '>i4' view, big-endian) or an int32 array, with at least as many values; the
    ones past `values` are set to 0 (a short last block)."""
    _native.quantize(values, exp, num_workers, out)


def dequantize_into(values: object, exp: int, num_workers: int, out: np.ndarray) -> bool:
    """Aggregated int32 fixed point -> float32, written into `out`; returns True when
    some result is Inf (the float32 sum overflowed).

    `values`: an int32 array of either byte order or raw big-endian bytes (a
    received datagram's values); `out`: float32 (int32: copied as they are) with at
    most as many values: the first len(out) are converted (a short last block).
    """
    return _native.dequantize(values, exp, num_workers, out)


def dequantize(values: np.ndarray, exp: int, num_workers: int) -> np.ndarray:
    out = np.empty(values.shape, dtype=np.float32)
    dequantize_into(values, exp, num_workers, out)
    return out


# -- the reference model ------------------------------------------------------
# What the native kernels (p4reduce/_kernels.c) must match bit for bit; only the
# tests run it. It takes the same two paths as the C code.
#
# Scaling by a normal power of two is exact in float32 unless the result leaves
# the normal range, and there both paths below end in the same single rounding
# (to an integer when quantizing, to float32 when dequantizing; an int32 below 2^24
# converts exactly). So the float32 fast paths give the float64 paths' bits
# while touching half the memory; the float64 path only serves exponents whose
# scale factor is not a float32.
def reference_quantize(values: np.ndarray, exp: int, num_workers: int) -> np.ndarray:
    """float32 values of a block with agreed exponent `exp` -> int32 fixed point (numpy)."""
    shift = scale_shift(exp, num_workers)
    factor = _float32_power(shift)
    if factor is not None and values.dtype == np.float32:
        scaled = values * factor
        np.rint(scaled, out=scaled)
    else:
        scaled = np.rint(np.ldexp(values.astype(np.float64), shift))
    return scaled.astype(np.int32)


def reference_dequantize_into(values: np.ndarray, exp: int, num_workers: int, out: np.ndarray) -> None:
    """Aggregated int32 fixed point (any byte order) -> float32, written into `out` (numpy)."""
    shift = scale_shift(exp, num_workers)
    factor = _float32_power(-shift)
    if factor is not None:
        np.copyto(out, values, casting="unsafe")  # rounds once, to float32
        out *= factor  # exact: the product is normal or zero
    else:
        np.copyto(out, np.ldexp(values.astype(np.float64), -shift), casting="same_kind")


def error_bound(exp: int, num_workers: int) -> float:
    """Max |result - exact sum| from quantization for a block with agreed exponent `exp`
    (before the final rounding to float32)."""
    return num_workers * 2.0 ** (exp - EXP_BIAS + log2_ceil(num_workers) - 31)


def nonfinite_input(index: int, sent: bool = False) -> NonFiniteInput:
    return NonFiniteInput(index, sent)


def check_float_input(flat: np.ndarray) -> None:
    if not np.isfinite(flat).all():
        raise nonfinite_input(int(np.flatnonzero(~np.isfinite(flat))[0]))


def int_input_fits(flat: np.ndarray, num_workers: int) -> bool:
    """Each |x| <= (2^31-1)//n: no sum of n workers' int32 elements can overflow int32."""
    limit = INT32_MAX // num_workers
    return not flat.size or (flat.max() <= limit and flat.min() >= -limit)


def check_int_input(flat: np.ndarray, num_workers: int) -> None:
    """OverflowError naming the first element beyond int_input_fits' bound, if any."""
    limit = INT32_MAX // num_workers
    if not int_input_fits(flat, num_workers):
        idx = int(np.argmax(np.abs(flat.astype(np.int64))))
        raise OverflowError(
            f"int32 element {int(flat[idx])} at flat index {idx} exceeds {limit} = (2^31-1)//"
            f"{num_workers}: the sum over {num_workers} workers could overflow int32"
        )


def tensor_error_bound(inputs: list[np.ndarray], block_size: int) -> np.ndarray:
    """Per-element bound on |allreduce(inputs) - exact sum| for float32 inputs:
    the quantization bound of each block's agreed exponent plus half a float32 ulp."""
    n = len(inputs)
    flat = [np.asarray(x, dtype=np.float32).reshape(-1) for x in inputs]
    length = flat[0].size
    nblocks = -(-length // block_size)
    pad = nblocks * block_size - length
    exps = np.max([block_exponents(np.pad(f, (0, pad)).reshape(nblocks, block_size)) for f in flat], axis=0).astype(
        np.int64
    )
    per_block = n * np.ldexp(1.0, exps - EXP_BIAS + log2_ceil(n) - 31)
    exact = np.sum([f.astype(np.float64) for f in flat], axis=0)
    return np.repeat(per_block, block_size)[:length] + np.abs(exact) * 2.0**-24
