# SPDX-License-Identifier: Apache-2.0
"""The native kernels (p4reduce._native, C) against the numpy reference model, bit for bit.

Reference: fixedpoint.reference_quantize / reference_dequantize_into and
BlockPlan.build_reference (the numpy code the agent ran before the kernels); for the
aggregator's kernels, numpy's int64 sums and unsafe cast. Every wire-side input and
output is also tried as a big-endian view at odd offsets inside a bytearray (a
datagram has a 36-byte header before its values).
"""

from __future__ import annotations

import importlib
import itertools
import platform
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from p4reduce import _native
from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.protocol import EXP_BIAS, HEADER_LEN

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
F32 = np.float32
# numpy's float -> int32 cast of NaN and out-of-range values is the CPU's: INT32_MIN on
# x86-64, which the kernels reproduce everywhere; elsewhere only in-range values compare.
X86 = platform.machine().lower() in ("x86_64", "amd64")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# float32 bit patterns worth having: zeros, subnormals, normals, the largest, NaN and Inf.
SPECIAL = np.array(
    [
        0.0,
        -0.0,
        1e-45,
        -1e-45,
        1.1754942e-38,
        1.1754944e-38,
        0.5,
        1.0,
        -1.0,
        1.5,
        2.5,
        3.4028235e38,
        -3.4028235e38,
        np.inf,
        -np.inf,
        np.nan,
    ],
    dtype=F32,
)


def float32_elements(allow_nonfinite: bool = True) -> st.SearchStrategy[float]:
    # Mostly zeros (blocks must come out zero), then anything float32 can hold.
    return st.one_of(
        st.just(0.0),
        st.just(-0.0),
        st.floats(width=32, allow_nan=allow_nonfinite, allow_infinity=allow_nonfinite),
        st.sampled_from([float(v) for v in SPECIAL if allow_nonfinite or np.isfinite(v)]),
    )


def datagram_view(nvalues: int, offset: int, fill: int = 0xA5) -> tuple[bytearray, memoryview]:
    """A bytearray with `offset` bytes before `nvalues` int32 slots and a few after,
    and a raw view of the slots (what a datagram's values are)."""
    buf = bytearray([fill]) * (offset + 4 * nvalues + 7)
    return buf, memoryview(buf)[offset : offset + 4 * nvalues]


def reference_scan(flat: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray] | str:
    try:
        plan = BlockPlan.build_reference(flat, block, 1)
    except ValueError as exc:
        return str(exc)
    return plan.nonzero, plan.exps


def native_scan(flat: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray] | str:
    try:
        plan = BlockPlan.build(flat, block, 1)
    except ValueError as exc:
        return str(exc)
    return plan.nonzero, plan.exps


def assert_same_scan(flat: np.ndarray, block: int) -> None:
    want, got = reference_scan(flat, block), native_scan(flat, block)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
        return
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def values_below(rng: np.random.Generator, exp: int, size: int) -> np.ndarray:
    """float32 values with |x| < 2^(exp-127): the agreed exponent's promise."""
    top = float(np.finfo(F32).max) if exp == 255 else np.ldexp(1.0, exp - EXP_BIAS)
    x = (rng.uniform(-1, 1, size) * top).astype(F32)
    x = x[np.abs(x) < top] if exp < 255 else x
    return np.concatenate([x, np.array([0.0, -0.0], F32)])


def halfway_values(exp: int, n: int) -> np.ndarray:
    """float32 values that scale to exactly k + 1/2 (round half to even decides them)."""
    shift = fixedpoint.scale_shift(exp, n)
    odd = np.arange(-41, 42, 2, dtype=np.float64)  # (2j+1)/2 for small j, both signs
    x = np.ldexp(odd / 2, -shift)
    ok = (np.abs(x) < np.finfo(F32).max) & (np.abs(x) >= np.finfo(F32).smallest_subnormal)
    x = x[ok].astype(F32)
    return x[np.ldexp(x.astype(np.float64), shift) == np.ldexp(odd[ok] / 2, 0)]


# -- scan -------------------------------------------------------------------------------------
@SETTINGS
@given(values=hnp.arrays(F32, st.integers(0, 700), elements=float32_elements()), block=st.integers(1, 300))
def test_scan_float32_matches_reference(values, block):
    assert_same_scan(values, block)


@SETTINGS
@given(
    values=hnp.arrays(np.int32, st.integers(0, 700), elements=st.one_of(st.just(0), st.integers(INT32_MIN, INT32_MAX))),
    block=st.integers(1, 300),
)
def test_scan_int32_matches_reference(values, block):
    assert_same_scan(values, block)


def test_scan_exponent_at_every_float32_exponent():
    """Every exponent field, with the smallest, largest and some mantissas in between, and
    the subnormals' bit lengths: the exponent byte is frexp's, clamped to 0..255."""
    fields = np.arange(255, dtype=np.uint32)  # 255 is Inf/NaN
    mantissas = np.array([0, 1, 0x3FFFFF, 0x400000, 0x7FFFFE, 0x7FFFFF], dtype=np.uint32)
    bits = (fields[:, None] << 23 | mantissas[None, :]).reshape(-1)
    bits = np.concatenate([bits, np.uint32(1) << np.arange(23, dtype=np.uint32)])  # subnormals
    bits = bits[bits != 0]
    for sign in (0, 0x80000000):
        values = (bits | np.uint32(sign)).view(F32)
        # Each value alone in a block of 3, beside a smaller and a zero element.
        flat = np.zeros((values.size, 3), F32)
        flat[:, 0] = values
        flat[:, 2] = values / 4
        assert_same_scan(flat.reshape(-1), 3)
        # And the max of several in one block.
        assert_same_scan(values, 7)
    assert list(native_scan(np.array([3.4028235e38, 1e-45, 0.0, -0.0], F32), 1)[1]) == [255, 0, EXP_BIAS, EXP_BIAS]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [0, 5, 255, 256, 1000, 1029])
def test_scan_names_the_first_nan_or_inf(bad, where):
    flat = np.zeros(1030, F32)
    flat[where] = bad
    flat[-1] = np.nan  # a later one is not the first
    assert_same_scan(flat, 256)
    nonzero, exps = np.empty(5, bool), np.empty(5, np.uint8)
    assert _native.scan(flat, 256, nonzero, exps) == where
    with pytest.raises(ValueError, match=f"NaN or Inf.*index {where}"):
        BlockPlan.build(flat, 256, 4)


def test_scan_short_last_block_and_empty_tensor():
    flat = np.zeros(10, F32)
    flat[9] = -3.0
    nonzero, exps = np.empty(3, bool), np.empty(3, np.uint8)
    assert _native.scan(flat, 4, nonzero, exps) == -1
    assert list(nonzero) == [False, False, True] and list(exps) == [EXP_BIAS, EXP_BIAS, EXP_BIAS + 2]
    assert _native.scan(np.zeros(0, F32), 4, np.empty(0, bool), np.empty(0, np.uint8)) == -1
    assert_same_scan(np.zeros(0, np.int32), 5)


def test_block_plan_agrees_with_reference_beyond_the_scan():
    rng = np.random.default_rng(7)
    flat = rng.standard_normal(1000).astype(F32)
    flat[rng.random(1000) < 0.7] = 0
    native, ref = BlockPlan.build(flat, 16, 5), BlockPlan.build_reference(flat, 16, 5)
    assert native.num_streams == ref.num_streams and native.num_blocks == ref.num_blocks
    for s in range(5):
        assert native.stream_blocks(s, 5) == ref.stream_blocks(s, 5)
    for b in range(native.num_blocks):
        np.testing.assert_array_equal(native.block(b), ref.block(b))
        wire = np.empty(16, ">i4")
        native.encode(b, int(native.exps[b]), 3, wire)
        np.testing.assert_array_equal(wire, fixedpoint.reference_quantize(ref.block(b), int(ref.exps[b]), 3))


# -- quantize ---------------------------------------------------------------------------------
def native_quantize_bytes(values: np.ndarray, exp: int, n: int, offset: int, extra: int = 0) -> bytes:
    """The kernel writing into a datagram at `offset`; checks nothing around it was touched."""
    buf, view = datagram_view(values.size + extra, offset)
    _native.quantize(values, exp, n, view)
    assert buf[:offset] == bytearray([0xA5]) * offset and buf[offset + len(view) :] == bytearray([0xA5]) * 7
    return bytes(view)


@pytest.mark.parametrize("n", range(1, 33))
def test_quantize_matches_reference_at_every_exponent(n):
    rng = np.random.default_rng(n)
    for exp in range(256):
        values = np.concatenate([values_below(rng, exp, 64), halfway_values(exp, n)])
        want = fixedpoint.reference_quantize(values, exp, n)
        got = np.empty(values.size, np.int32)
        _native.quantize(values, exp, n, got)
        np.testing.assert_array_equal(got, want, err_msg=f"exp {exp} n {n}")
        assert native_quantize_bytes(values, exp, n, HEADER_LEN + exp % 4) == want.astype(">i4").tobytes()


def test_quantize_rounds_half_to_even():
    exp, n = EXP_BIAS + 8, 1  # scale 2^22: x = k/2 * 2^-22 scales to k/2
    x = (np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5], np.float64) * 2.0**-22).astype(F32)
    assert list(fixedpoint.quantize(x, exp, n)) == [0, 2, 2, 0, -2, -2, 4]


@SETTINGS
@given(
    values=hnp.arrays(F32, st.integers(0, 600), elements=float32_elements()),
    exp=st.integers(0, 255),
    n=st.integers(1, 32),
    offset=st.integers(0, 40),
    extra=st.integers(0, 5),
)
def test_quantize_any_values_into_a_datagram(values, exp, n, offset, extra):
    """Arbitrary float32 (even beyond the exponent's promise, NaN and Inf) and a padded tail."""
    in_range = np.abs(values.astype(np.float64)) < np.ldexp(1.0, exp - EXP_BIAS)
    if not X86:
        values = values[in_range]
    with np.errstate(invalid="ignore", over="ignore"):
        want = fixedpoint.reference_quantize(values, exp, n)
    padded = np.concatenate([want, np.zeros(extra, np.int32)]).astype(">i4").tobytes()
    assert native_quantize_bytes(values, exp, n, offset, extra) == padded
    if values.size:  # the same into a native int32 array and a '>i4' array
        for dtype in (np.int32, ">i4"):
            out = np.full(values.size, 7, dtype)
            _native.quantize(values, exp, n, out)
            np.testing.assert_array_equal(out, want)


@SETTINGS
@given(
    values=hnp.arrays(
        st.sampled_from([np.dtype("<i4"), np.dtype(">i4")]),
        st.integers(0, 300),
        elements=st.integers(INT32_MIN, INT32_MAX),
    ),
    offset=st.integers(0, 9),
    exp=st.integers(0, 255),
    n=st.integers(1, 32),
)
def test_quantize_int32_is_a_byte_order_copy(values, offset, exp, n):
    assert native_quantize_bytes(values, exp, n, offset) == values.astype(">i4").tobytes()
    out = np.empty(values.size, np.int32)
    _native.quantize(values, exp, n, out)
    np.testing.assert_array_equal(out, values)


def test_quantize_extremes():
    ext = np.array([INT32_MIN, INT32_MAX, 0, -1, 1], np.int32)
    assert native_quantize_bytes(ext, EXP_BIAS, 1, 3) == ext.astype(">i4").tobytes()
    # The largest float32 at exponent 255 and the smallest subnormal at exponent 0.
    for exp, x in ((255, SPECIAL[10:13]), (0, SPECIAL[:4])):
        for n in (1, 2, 32, 1 << 20, (1 << 31) - 1):
            np.testing.assert_array_equal(fixedpoint.quantize(x, exp, n), fixedpoint.reference_quantize(x, exp, n))


# -- dequantize -------------------------------------------------------------------------------
def int32_sums(rng: np.random.Generator, size: int) -> np.ndarray:
    s = rng.integers(INT32_MIN, INT32_MAX, size, dtype=np.int64, endpoint=True).astype(np.int32)
    edges = [
        0,
        1,
        -1,
        INT32_MIN,
        INT32_MAX,
        (1 << 24) + 1,
        -(1 << 24) - 1,
        (1 << 24) + 3,
        (1 << 30),
        -(1 << 30),
        0x7FFFFFC0,
        0x7FFFFFBF,
    ]  # rounding ties and overflow edges of float32
    return np.concatenate([np.array(edges, np.int32), s])


def reference_dequantize(values: np.ndarray, exp: int, n: int) -> tuple[bytes, bool]:
    out = np.empty(values.size, F32)
    with np.errstate(over="ignore"):
        fixedpoint.reference_dequantize_into(values, exp, n, out)
    return out.tobytes(), not np.isfinite(out).all()


@pytest.mark.parametrize("n", range(1, 33))
def test_dequantize_matches_reference_at_every_exponent(n):
    rng = np.random.default_rng(100 + n)
    for exp in range(256):
        sums = int32_sums(rng, 100)
        want, want_inf = reference_dequantize(sums, exp, n)
        for wire in (sums, sums.astype(">i4")):
            out = np.empty(sums.size, F32)
            assert _native.dequantize(wire, exp, n, out) == want_inf
            assert out.tobytes() == want, f"exp {exp} n {n} {wire.dtype}"
        buf, view = datagram_view(sums.size, HEADER_LEN + exp % 4)
        view[:] = sums.astype(">i4").tobytes()
        out = np.empty(sums.size, F32)
        assert _native.dequantize(view, exp, n, out) == want_inf
        assert out.tobytes() == want


@SETTINGS
@given(
    sums=hnp.arrays(np.int32, st.integers(0, 400), elements=st.integers(INT32_MIN, INT32_MAX)),
    exp=st.integers(0, 255),
    n=st.one_of(st.integers(1, 32), st.integers(33, (1 << 31) - 1)),
    offset=st.integers(0, 40),
    short=st.integers(0, 4),
)
def test_dequantize_from_a_datagram_into_a_short_block(sums, exp, n, offset, short):
    """A received datagram's values at any offset, into a last block cut `short` values short."""
    want, _ = reference_dequantize(sums, exp, n)
    keep = max(0, sums.size - short)
    buf, view = datagram_view(sums.size, offset)
    view[:] = sums.astype(">i4").tobytes()
    before = bytes(buf)
    out = np.full(keep + 2, np.float32(7))  # two sentinels after the block
    assert _native.dequantize(view, exp, n, out[:keep]) == (not np.isfinite(np.frombuffer(want, F32)[:keep]).all())
    assert out[:keep].tobytes() == want[: 4 * keep] and list(out[keep:]) == [7, 7]
    assert bytes(buf) == before  # the datagram is only read


@SETTINGS
@given(
    sums=hnp.arrays(
        st.sampled_from([np.dtype("<i4"), np.dtype(">i4")]),
        st.integers(0, 300),
        elements=st.integers(INT32_MIN, INT32_MAX),
    ),
    offset=st.integers(0, 9),
)
def test_dequantize_into_int32_is_a_byte_order_copy(sums, offset):
    buf, view = datagram_view(sums.size, offset)
    view[:] = sums.astype(">i4").tobytes()
    for src in (view, sums):
        out = np.empty(sums.size, np.int32)
        assert _native.dequantize(src, EXP_BIAS, 4, out) is False
        np.testing.assert_array_equal(out, sums)


def test_dequantize_reports_float32_overflow():
    sums = np.array([INT32_MAX, 5], ">i4")
    out = np.empty(2, F32)
    assert fixedpoint.dequantize_into(sums, 255, 1, out) is True and np.isinf(out[0])
    assert fixedpoint.dequantize_into(sums, 253, 1, out) is False and np.isfinite(out).all()


def test_roundtrip_through_a_datagram():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(256).astype(F32)
    exp = int(fixedpoint.block_exponents(x[None, :])[0])
    buf = bytearray(HEADER_LEN + 4 * 256)
    fixedpoint.quantize_into(x, exp, 1, memoryview(buf)[HEADER_LEN:])
    y = np.empty(256, F32)
    assert fixedpoint.dequantize_into(memoryview(buf)[HEADER_LEN:], exp, 1, y) is False
    assert np.abs(y - x).max() <= fixedpoint.error_bound(exp, 1)


# -- the aggregator's add ---------------------------------------------------------------------
@SETTINGS
@given(
    packets=st.integers(1, 40).flatmap(
        lambda k: st.lists(hnp.arrays(np.int32, k, elements=st.integers(INT32_MIN, INT32_MAX)), min_size=1, max_size=33)
    ),
    offset=st.integers(0, 40),
    wire=st.sampled_from(["bytes", ">i4", "<i4"]),
)
def test_accumulate_and_write_sums_match_numpy(packets, offset, wire):
    k = packets[0].size
    acc = np.full(k, 12345, np.int64)  # overwritten by the first packet
    for i, p in enumerate(packets):
        if wire == "bytes":
            buf, src = datagram_view(k, offset)
            src[:] = p.astype(">i4").tobytes()
        else:
            src = p.astype(wire)
        _native.accumulate(src, acc, i == 0)
    want = np.sum([p.astype(np.int64) for p in packets], axis=0)
    np.testing.assert_array_equal(acc, want)
    wrapped = np.empty(k, ">i4")
    np.copyto(wrapped, want, casting="unsafe")
    outside = bool((want < INT32_MIN).any() or (want > INT32_MAX).any())
    buf, out = datagram_view(k, offset)
    assert _native.write_sums(acc, out) is outside
    assert bytes(out) == wrapped.tobytes()
    native_out = np.empty(k, np.int32)
    assert _native.write_sums(acc, native_out) is outside
    np.testing.assert_array_equal(native_out, wrapped)


def test_write_sums_overflow_edges():
    acc = np.array([INT32_MAX, INT32_MIN, 0, -1], np.int64)
    out = np.empty(4, ">i4")
    assert _native.write_sums(acc, out) is False
    for bad in (INT32_MAX + 1, INT32_MIN - 1, 1 << 62, -(1 << 63)):
        acc[2] = bad
        assert _native.write_sums(acc, out) is True


# -- misuse: clean exceptions, never a crash --------------------------------------------------
def test_wrong_sizes_raise_value_error():
    x = np.ones(8, F32)
    with pytest.raises(ValueError, match="room for 7 values"):
        _native.quantize(x, EXP_BIAS, 2, np.empty(7, ">i4"))
    with pytest.raises(ValueError, match="whole number of int32"):
        _native.quantize(x, EXP_BIAS, 2, bytearray(33))
    with pytest.raises(ValueError, match="out has 9 values"):
        _native.dequantize(np.empty(8, ">i4"), EXP_BIAS, 2, np.empty(9, F32))
    with pytest.raises(ValueError, match="whole number of int32"):
        _native.dequantize(bytes(6), EXP_BIAS, 2, np.empty(1, F32))
    with pytest.raises(ValueError, match="make 3 blocks"):
        _native.scan(x, 3, np.empty(2, bool), np.empty(3, np.uint8))
    with pytest.raises(ValueError, match="make 3 blocks"):
        _native.scan(x, 3, np.empty(3, bool), np.empty(4, np.uint8))
    with pytest.raises(ValueError, match="acc has 3"):
        _native.accumulate(np.empty(4, ">i4"), np.zeros(3, np.int64), True)
    with pytest.raises(ValueError, match="out has 5"):
        _native.write_sums(np.zeros(4, np.int64), np.empty(5, ">i4"))


@pytest.mark.parametrize("exp,n", [(-1, 1), (256, 1), (EXP_BIAS, 0), (EXP_BIAS, -3)])
def test_bad_exponent_or_worker_count_raise_value_error(exp, n):
    for fn, out in ((_native.quantize, np.empty(2, ">i4")), (_native.dequantize, np.empty(2, F32))):
        src = np.ones(2, F32) if fn is _native.quantize else np.ones(2, ">i4")
        with pytest.raises(ValueError):
            fn(src, exp, n, out)


def test_wrong_types_raise_type_error():
    x = np.ones(4, F32)
    with pytest.raises(TypeError, match="float32 .* or int32"):
        _native.quantize(x.astype(np.float64), EXP_BIAS, 1, np.empty(4, ">i4"))
    with pytest.raises(TypeError, match="float32 .* or int32"):
        _native.quantize(x.astype(">f4"), EXP_BIAS, 1, np.empty(4, ">i4"))  # not native order
    with pytest.raises(TypeError, match="int32 or raw-byte"):
        _native.quantize(x, EXP_BIAS, 1, np.empty(4, np.uint32))
    with pytest.raises(TypeError, match="int32 or raw-byte"):
        _native.quantize(x, EXP_BIAS, 1, np.empty(4, F32))
    with pytest.raises(TypeError, match="float32 .* or int32"):
        _native.dequantize(np.empty(4, ">i4"), EXP_BIAS, 1, np.empty(4, np.float64))
    with pytest.raises(TypeError, match="int32 or raw-byte"):
        _native.dequantize(np.empty(4, np.int16), EXP_BIAS, 1, np.empty(4, F32))
    with pytest.raises(TypeError, match="bool or uint8"):
        _native.scan(x, 2, np.empty(2, np.int32), np.empty(2, np.uint8))
    with pytest.raises(TypeError, match="int64"):
        _native.accumulate(np.empty(4, ">i4"), np.zeros(4, np.int32), True)
    with pytest.raises(TypeError, match="buffer protocol"):
        _native.quantize([1.0, 2.0], EXP_BIAS, 1, bytearray(8))
    with pytest.raises(TypeError):
        _native.quantize(x, "127", 1, bytearray(16))
    with pytest.raises(TypeError, match="exactly 4 positional"):
        _native.quantize(x, EXP_BIAS, 1)
    with pytest.raises(TypeError):
        _native.quantize(x, EXP_BIAS, 1, out=bytearray(16))
    with pytest.raises(OverflowError):
        _native.quantize(x, 1 << 70, 1, bytearray(16))
    with pytest.raises(ValueError, match="block_size"):
        _native.scan(x, 0, np.empty(0, bool), np.empty(0, np.uint8))


def test_read_only_and_non_contiguous_buffers_are_refused():
    x = np.ones(4, F32)
    frozen = np.empty(4, ">i4")
    frozen.flags.writeable = False
    for out in (bytes(16), frozen, memoryview(bytearray(16)).toreadonly()):
        with pytest.raises((BufferError, TypeError, ValueError)):
            _native.quantize(x, EXP_BIAS, 1, out)
    frozen_out = np.empty(4, F32)
    frozen_out.flags.writeable = False
    for out in (frozen_out, np.frombuffer(bytes(16), F32)):
        with pytest.raises((BufferError, TypeError, ValueError)):
            _native.dequantize(bytes(16), EXP_BIAS, 1, out)
    with pytest.raises((BufferError, TypeError, ValueError)):
        _native.quantize(np.ones(8, F32)[::2], EXP_BIAS, 1, bytearray(16))
    with pytest.raises((BufferError, TypeError, ValueError)):
        _native.dequantize(bytes(32), EXP_BIAS, 1, np.empty(8, F32)[::2])
    # Read-only inputs are fine: a received datagram may be bytes.
    out = np.empty(4, F32)
    assert _native.dequantize(bytes(16), EXP_BIAS, 1, out) is False and (out == 0).all()
    frozen_in = np.ones(4, F32)
    frozen_in.flags.writeable = False
    _native.quantize(frozen_in, EXP_BIAS, 1, bytearray(16))


# -- no silent fallback -----------------------------------------------------------------------
def test_import_fails_loudly_without_the_extension(monkeypatch):
    monkeypatch.setitem(sys.modules, "p4reduce._kernels", None)  # as if the .so were missing
    monkeypatch.delitem(sys.modules, "p4reduce._native")
    with pytest.raises(ImportError, match=r"C extension.*pip install -e \."):
        importlib.import_module("p4reduce._native")


def test_import_refuses_a_stale_build(monkeypatch):
    import types

    stale = types.ModuleType("p4reduce._kernels")
    for name in ("GIL_THRESHOLD", "accumulate", "dequantize", "quantize", "scan", "write_sums"):
        setattr(stale, name, getattr(_native, name))
    stale.ABI_VERSION = 0
    monkeypatch.setitem(sys.modules, "p4reduce._kernels", stale)
    monkeypatch.delitem(sys.modules, "p4reduce._native")
    with pytest.raises(ImportError, match="another version"):
        importlib.import_module("p4reduce._native")


# -- the GIL ----------------------------------------------------------------------------------
def _largest_stall(call) -> tuple[float, float]:
    """Runs `call` in a thread while this thread spins, timestamping each turn; returns
    (how long the call took, the longest this thread went without a turn meanwhile)."""
    stamps: list[float] = []
    window: list[float] = []
    started = threading.Event()

    def worker() -> None:
        started.wait()
        window.append(time.perf_counter())
        call()
        window.append(time.perf_counter())

    t = threading.Thread(target=worker)
    t.start()
    started.set()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    begin, end = window
    inside = [s for s in stamps if begin <= s <= end]
    edges = [begin, *inside, end]
    return end - begin, max(b - a for a, b in itertools.pairwise(edges))


def test_long_calls_release_the_gil():
    """While a long kernel runs in one thread, another thread keeps running Python.

    Robust on a loaded machine with few cores: it measures whether the spinning thread
    is ever held off for (most of) the call, not whether two calls run in parallel. A
    call that holds the GIL (the control, a large bytes copy) stalls the spinner for
    its whole duration; one that releases it leaves gaps of a scheduler tick at most.
    """
    assert _native.GIL_THRESHOLD <= 1 << 16
    n = 16 << 20  # 64 MB: tens of milliseconds per call
    x = np.random.default_rng(0).standard_normal(n).astype(F32)
    wire = np.empty(n, ">i4")
    out = x  # dequantize over the input: the values do not matter here, the memory does
    # The scan runs at memory speed (AVX2): over 256 MB, so that it too lasts several
    # scheduler ticks and a stall of a tick or two stays well under half of it.
    scanned = np.ones(4 * n, F32)
    nonzero, exps = np.empty(4 * n // 256, bool), np.empty(4 * n // 256, np.uint8)
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        blob = b"x" * (n // 4)
        took, stall = _largest_stall(lambda: blob * 8)  # holds the GIL: the spinner waits it out
        assert stall >= 0.5 * took, (took, stall)
        for name, call in (
            ("scan", lambda: _native.scan(scanned, 256, nonzero, exps)),
            ("quantize", lambda: _native.quantize(x, 140, 8, wire)),
            ("dequantize", lambda: _native.dequantize(wire, 140, 8, out)),
        ):
            results = []
            for _ in range(5):  # a loaded machine may deschedule the spinner once in a while
                took, stall = _largest_stall(call)
                results.append((round(took, 4), round(stall, 4)))
                if stall < 0.5 * took:
                    break
            else:
                pytest.fail(f"{name}: the other thread stalled for most of the call: {results}")
    finally:
        sys.setswitchinterval(old)


def test_latency_feeds_refuse_other_buffers():
    """rto_feed/window_feed read float64 (or raw bytes of it) only: float32 latencies or a
    byte string that is no whole number of float64 would be read as other numbers."""
    for bad in (np.ones(3, dtype=np.float32), b"1234567"):
        with pytest.raises(TypeError, match="float64"):
            _native.rto_feed(None, 0.0, bad)
        with pytest.raises(TypeError, match="float64"):
            _native.window_feed(0.0, float("inf"), 4.0, 8.0, True, 2.0, float("inf"), 0, 100, bad)
    with pytest.raises(ValueError, match="base_epoch"):
        _native.window_feed(0.0, float("inf"), 4.0, 8.0, True, 2.0, float("inf"), 0, 0, b"")
    assert _native.rto_feed(None, 0.0, b"") == (None, 0.0)  # no sample: still no estimate
