# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

from p4reduce.hostagent import fixedpoint
from p4reduce.protocol import EXP_BIAS


def test_exponent_bounds_every_value():
    rng = np.random.default_rng(1)
    blocks = (rng.standard_normal((50, 16)) * 10.0 ** rng.integers(-30, 30, (50, 1))).astype(np.float32)
    exps = fixedpoint.block_exponents(blocks)
    assert (np.abs(blocks).max(axis=1) < 2.0 ** (exps.astype(int) - EXP_BIAS)).all()
    assert (np.abs(blocks).max(axis=1) >= 2.0 ** (exps.astype(int) - EXP_BIAS - 1)).all()


def test_exponent_extremes_are_clamped():
    blocks = np.array([[np.finfo(np.float32).max], [1e-45], [0.0]], dtype=np.float32)
    assert list(fixedpoint.block_exponents(blocks)) == [255, 0, EXP_BIAS]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 32])
def test_sum_of_extreme_values_cannot_overflow(n):
    exp = EXP_BIAS + 5  # values below 32
    worst = np.full(4, np.nextafter(np.float32(32), np.float32(0)), dtype=np.float32)
    q = fixedpoint.quantize(worst, exp, n).astype(np.int64)
    assert (q * n <= 2**30).all() and (-q * n >= -(2**30)).all()


def test_roundtrip_within_documented_bound():
    rng = np.random.default_rng(2)
    n = 5
    xs = [rng.standard_normal(64).astype(np.float32) for _ in range(n)]
    exp = int(max(fixedpoint.block_exponents(x[None, :])[0] for x in xs))
    qsum = np.sum([fixedpoint.quantize(x, exp, n).astype(np.int64) for x in xs], axis=0)
    assert np.abs(qsum).max() < 2**31
    got = fixedpoint.dequantize(qsum.astype(np.int32), exp, n)
    exact = np.sum([x.astype(np.float64) for x in xs], axis=0)
    bound = fixedpoint.error_bound(exp, n) + np.abs(exact) * 2.0**-24
    assert (np.abs(got - exact) <= bound).all()


def test_nan_and_inf_rejected():
    with pytest.raises(ValueError, match="NaN or Inf.*index 2"):
        fixedpoint.check_float_input(np.array([0, 1, np.inf], dtype=np.float32))


def test_int_limit_per_worker_count():
    fixedpoint.check_int_input(np.array([(2**31 - 1) // 4], dtype=np.int32), 4)
    with pytest.raises(OverflowError, match="index 1"):
        fixedpoint.check_int_input(np.array([0, -(2**31)], dtype=np.int32), 1)
    with pytest.raises(OverflowError):
        fixedpoint.check_int_input(np.array([(2**31 - 1) // 4 + 1], dtype=np.int32), 4)


def _quantize_float64(values, exp, n):
    return np.rint(np.ldexp(values.astype(np.float64), fixedpoint.scale_shift(exp, n))).astype(np.int32)


def _dequantize_float64(values, exp, n):
    return np.ldexp(values.astype(np.float64), -fixedpoint.scale_shift(exp, n)).astype(np.float32)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 32])
def test_float32_fast_paths_give_the_float64_bits_at_every_exponent(n):
    """The float32 shortcuts must be bit-identical to exact float64 scaling, including
    exponents near the subnormal and overflow ends where they fall back."""
    rng = np.random.default_rng(n)
    for exp in range(256):
        hi = np.float32(np.ldexp(1.0, exp - EXP_BIAS)) if exp - EXP_BIAS < 128 else np.finfo(np.float32).max
        mantissas = rng.uniform(-1, 1, 256)
        values = np.clip(
            mantissas * float(hi), -float(np.finfo(np.float32).max), float(np.finfo(np.float32).max)
        ).astype(np.float32)
        values = values[np.abs(values) < hi] if exp - EXP_BIAS < 128 else values
        values = np.concatenate([values, np.array([0.0, -0.0], dtype=np.float32)])
        np.testing.assert_array_equal(fixedpoint.quantize(values, exp, n), _quantize_float64(values, exp, n))
        sums = rng.integers(-(2**31), 2**31, 512, dtype=np.int64).astype(np.int32)
        sums[:3] = [0, 1, -(2**31)]
        for wire in (sums, sums.astype(">i4")):
            with np.errstate(over="ignore"):  # top exponents overflow float32, on both paths
                got = fixedpoint.dequantize(wire, exp, n)
                want = _dequantize_float64(sums, exp, n)
            assert got.tobytes() == want.tobytes(), f"exp {exp}"
