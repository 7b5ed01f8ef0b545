#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-block kernels of the host agent: native (p4reduce._native, C) vs the numpy reference.

Over one float32 tensor (64 MB by default) cut into 256-value blocks, times
  * scan:       non-zero flags and exponents of every block (BlockPlan.build vs
                BlockPlan.build_reference), one call over the whole tensor;
  * quantize:   each block at its exponent into the values of a datagram, one call per
                block as the agent makes them (native: `quantize` into a bytearray view;
                numpy: reference_quantize, then copied into a '>i4' view);
  * dequantize: each block's big-endian values out of a datagram into the float32
                result, one call per block (native: `dequantize` from a memoryview;
                numpy: reference_dequantize_into from a '>i4' view);
and, for quantize and dequantize, one native call over the whole tensor (the kernels
without the per-call cost). Prints blocks/s and GB/s (float32 bytes of the tensor per
second) of each, best of --repeat runs. Not a test: nothing is asserted but that the
native and numpy outputs are equal.

    python3 benchmarks/native_kernels.py [--mb 64] [--block-size 256] [--repeat 3] [--markdown]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _report import MarkdownReport, add_markdown_option

from p4reduce import _native
from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.protocol import HEADER_LEN, VALUE_DTYPE

N_WORKERS = 8


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=64, help="tensor size in MB (float32)")
    ap.add_argument("--block-size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    add_markdown_option(ap)
    args = ap.parse_args()
    B = args.block_size
    n = args.mb * (1 << 20) // 4
    nblocks = -(-n // B)
    rng = np.random.default_rng(0)
    # Every block non-zero (the scan's worst case), magnitudes spread over many exponents.
    flat = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, nblocks)).repeat(B)[:n]).astype(np.float32)
    nbytes = flat.nbytes

    plan = BlockPlan.build(flat, B, 1)
    ref = BlockPlan.build_reference(flat, B, 1)
    assert (plan.nonzero == ref.nonzero).all() and (plan.exps == ref.exps).all()
    exps = [int(e) for e in plan.exps]
    blocks = [plan.values(b) for b in range(nblocks)]  # the views the agent slices

    # One datagram (header + values) per block, as the agent and aggregator see them.
    size = HEADER_LEN + 4 * B
    grams_native = [bytearray(size) for _ in range(nblocks)]
    grams_numpy = [bytearray(size) for _ in range(nblocks)]
    views_native = [memoryview(g)[HEADER_LEN:] for g in grams_native]
    views_numpy = [np.frombuffer(g, VALUE_DTYPE, B, HEADER_LEN) for g in grams_numpy]

    def quantize_native() -> None:
        q = _native.quantize
        for values, e, out in zip(blocks, exps, views_native, strict=True):
            q(values, e, N_WORKERS, out)

    def quantize_numpy() -> None:
        q = fixedpoint.reference_quantize
        for b, (e, out) in enumerate(zip(exps, views_numpy, strict=True)):
            out[:] = q(ref.block(b), e, N_WORKERS)

    result_native = np.empty_like(flat)
    result_numpy = np.empty_like(flat)
    dest_native = [result_native[b * B : (b + 1) * B] for b in range(nblocks)]
    dest_numpy = [result_numpy[b * B : (b + 1) * B] for b in range(nblocks)]

    def dequantize_native() -> None:
        d = _native.dequantize
        for values, e, out in zip(views_native, exps, dest_native, strict=True):
            d(values, e, N_WORKERS, out)

    def dequantize_numpy() -> None:
        d = fixedpoint.reference_dequantize_into
        for b, (values, e) in enumerate(zip(views_numpy, exps, strict=True)):
            if b == nblocks - 1 and n % B:  # the numpy path writes a padded scratch block
                tail = np.empty(B, np.float32)
                d(values, e, N_WORKERS, tail)
                dest_numpy[b][:] = tail[: n % B]
            else:
                d(values, e, N_WORKERS, dest_numpy[b])

    # The whole tensor in one call at one exponent (the kernels alone).
    e_all = int(plan.exps.max())
    bulk_wire = np.empty(n, VALUE_DTYPE)
    bulk_out = np.empty_like(flat)

    rows = []
    r = args.repeat
    report = (
        MarkdownReport(
            ["kernel", "blocks/s", "GB/s", "ms"],
            intro=[
                (f"{args.mb} MB float32 tensor, {nblocks} blocks of {B} values, n = {N_WORKERS} workers, best of {r}.")
            ],
        )
        if args.markdown
        else None
    )

    def row(what: str, seconds: float) -> None:
        rows.append((what, nblocks / seconds, nbytes / seconds / 1e9, seconds))
        if report is not None:
            report.row(
                " ".join(what.split()),
                f"{nblocks / seconds:,.0f}",
                f"{nbytes / seconds / 1e9:.2f}",
                f"{seconds * 1e3:.1f}",
            )

    row("scan        native (1 call)", best(lambda: BlockPlan.build(flat, B, 1), r))
    row("scan        numpy reference", best(lambda: BlockPlan.build_reference(flat, B, 1), r))
    row("quantize    native, per block", best(quantize_native, r))
    row("quantize    numpy,  per block", best(quantize_numpy, r))
    assert all(a == b for a, b in zip(grams_native, grams_numpy, strict=True)), "quantize: native != numpy"
    row("quantize    native, 1 call", best(lambda: _native.quantize(flat, e_all, N_WORKERS, bulk_wire), r))
    row("dequantize  native, per block", best(dequantize_native, r))
    row("dequantize  numpy,  per block", best(dequantize_numpy, r))
    assert result_native.tobytes() == result_numpy.tobytes(), "dequantize: native != numpy"
    row("dequantize  native, 1 call", best(lambda: _native.dequantize(bulk_wire, e_all, N_WORKERS, bulk_out), r))

    by = {w: s for w, _, _, s in rows}
    speedup = "speedup native/numpy: scan {:.0f}x, quantize {:.0f}x, dequantize {:.0f}x (per block)".format(
        by["scan        numpy reference"] / by["scan        native (1 call)"],
        by["quantize    numpy,  per block"] / by["quantize    native, per block"],
        by["dequantize  numpy,  per block"] / by["dequantize  native, per block"],
    )
    if report is not None:
        report.end([speedup[0].upper() + speedup[1:] + "."])
        return
    print(f"{args.mb} MB float32 tensor, {nblocks} blocks of {B} values, n = {N_WORKERS} workers, best of {r}")
    print(f"{'kernel':32} {'blocks/s':>14} {'GB/s':>8} {'ms':>9}")
    for what, bps, gbs, sec in rows:
        print(f"{what:32} {bps:14,.0f} {gbs:8.2f} {sec * 1e3:9.1f}")
    print(speedup)


if __name__ == "__main__":
    main()
