#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""p4reduce (software aggregator) vs torch.distributed gloo, in one run on one machine.

For each worker count, tensor size and block density it times:
  * p4reduce: block-sparse allreduce through the software aggregator (loopback UDP),
  * gloo dense: dist.all_reduce of the full float32 tensor,
  * gloo sparse: dist.all_reduce of the same tensor as a torch sparse COO tensor,
  * the memory-bandwidth floor: every worker process reads its whole tensor once
    at the same time (what any allreduce of it must at least do; the scan that
    finds its non-zero blocks is such a pass).
Density is the fraction of non-zero blocks of --block-size elements (the data
is generated with that block structure). Every p4reduce result is checked
against numpy. Prints medians and ratios (`--markdown`: as a Markdown table headed by
the command, machine, date and commit), writes CSV and a PNG plot.

    python3 benchmarks/allreduce_vs_gloo.py --quick
    python3 benchmarks/allreduce_vs_gloo.py            # full sweep (long)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from _report import MarkdownReport, add_markdown_option

from p4reduce.cli.demo import DemoConfig, run_demo
from p4reduce.protocol import Mode
from p4reduce.testbed.ports import free_port
from p4reduce.testbed.results import Panel, human_bytes, save_results
from p4reduce.testbed.synthetic import worker_tensor

FIELDS = [
    "workers",
    "size_mb",
    "density",
    "block_size",
    "p4reduce_ms",
    "gloo_dense_ms",
    "gloo_sparse_ms",
    "memory_pass_ms",
    "over_memory_pass",
    "speedup_vs_dense",
    "speedup_vs_sparse",
    "p4reduce_wire_bytes",
    "nonzero_payload_bytes",
    "wire_over_payload",
    "worker_cpu_ms",
    "aggregator_cpu_ms",
    "cpu_share",
]


def _gloo_worker(
    rank: int, n: int, port: int, elements: int, block: int, density: float, sparse: bool, iterations: int, queue
) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=n)
    dense = torch.from_numpy(worker_tensor(0, rank, elements, block, density))
    times = []
    for i in range(iterations + 1):  # first one is warm-up
        t = dense.to_sparse() if sparse else dense.clone()
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        if sparse:
            t = t.coalesce()
        elapsed = time.perf_counter() - start
        if i:
            times.append(elapsed)
    queue.put((rank, times))
    dist.destroy_process_group()


def _memory_pass_worker(rank: int, elements: int, block: int, iterations: int, barrier, queue) -> None:
    # A read-only pass: the integer max of the raw bits is memory-bound (vectorised, no FP).
    bits = worker_tensor(0, rank, elements, block, 1.0).view(np.uint32)
    times = []
    for i in range(iterations + 1):  # first one is warm-up
        barrier.wait()
        start = time.perf_counter()
        bits.max()
        elapsed = time.perf_counter() - start
        if i:
            times.append(elapsed)
    queue.put((rank, times))


def time_memory_pass(n: int, elements: int, block: int, iterations: int) -> float:
    """Median over iterations of the slowest of n processes reading their tensor at once."""
    ctx = mp.get_context("spawn")
    queue, barrier = ctx.Queue(), ctx.Barrier(n)
    procs = [
        ctx.Process(target=_memory_pass_worker, args=(r, elements, block, iterations, barrier, queue)) for r in range(n)
    ]
    for p in procs:
        p.start()
    reports = [queue.get(timeout=900) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return statistics.median(max(rep[1][i] for rep in reports) for i in range(iterations))


def time_gloo(n: int, elements: int, block: int, density: float, sparse: bool, iterations: int) -> float:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = free_port()
    procs = [
        ctx.Process(target=_gloo_worker, args=(r, n, port, elements, block, density, sparse, iterations, queue))
        for r in range(n)
    ]
    for p in procs:
        p.start()
    reports = [queue.get(timeout=900) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    per_iter = [max(rep[1][i] for rep in reports) for i in range(iterations)]
    return statistics.median(per_iter)


def time_p4reduce(
    n: int, elements: int, block: int, slots: int, density: float, iterations: int, multicast: bool, spin_us: int = 0
) -> dict:
    return run_demo(
        DemoConfig(
            workers=n,
            elements=elements,
            density=density,
            block_size=block,
            slots=slots,
            mode=Mode.SPARSE,
            iterations=iterations,
            start_method="spawn",
            multicast=multicast,
            spin_us=spin_us,
        )
    )


FIGURE_TITLE = "one machine, loopback: p4reduce's software aggregator vs gloo's allreduce (dense and sparse COO)"


def panels(rows: list[dict]) -> list[Panel]:
    """One panel per (workers, size): time over density for each method; then the speed-up
    over gloo's dense allreduce against density, a line per (workers, size)."""
    out = []
    speedup = Panel("speed-up over gloo dense", "non-zero blocks (%)", "gloo dense time / p4reduce time")
    speedup.baselines["as fast as gloo"] = 1.0
    for w, mb in sorted({(r["workers"], r["size_mb"]) for r in rows}):
        sel = sorted((r for r in rows if r["workers"] == w and r["size_mb"] == mb), key=lambda r: r["density"])
        d = [r["density"] * 100 for r in sel]
        out.append(
            Panel(
                f"{w} workers, {human_bytes(mb * 2**20)} tensor",
                "non-zero blocks (%)",
                "allreduce time (ms)",
                {
                    label: (d, [r[key] for r in sel])
                    for key, label in (
                        ("p4reduce_ms", "p4reduce"),
                        ("gloo_dense_ms", "gloo dense"),
                        ("gloo_sparse_ms", "gloo sparse COO"),
                    )
                },
                ylog=True,
            )
        )
        speedup.lines[f"{w} workers, {human_bytes(mb * 2**20)}"] = (
            d,
            [r["gloo_dense_ms"] / r["p4reduce_ms"] for r in sel],
        )
    return [*out, speedup]


MARKDOWN_COLUMNS = [
    "workers",
    "MB",
    "non-zero blocks",
    "p4reduce",
    "gloo dense",
    "gloo sparse COO",
    "vs dense",
    "1 pass",
    "p4reduce / 1 pass",
    "wire / non-zero payload",
]


def _ms(ms: float) -> str:
    return f"{ms:.2f} ms" if ms < 1 else f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def _ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 2 else f"{x:.1f}x" if x < 10 else f"{x:.0f}x"


# --cpu: where the time goes. CPU milliseconds per allreduce of the workers (summed) and of
# the aggregator, and their sum over what the machine's cores offer in p4reduce's time: near
# 1, the allreduce waits for CPU, not for the network or for round trips.
CPU_COLUMNS = ["worker CPU", "aggregator CPU", "CPU / (cores x time)"]


def cpu_cells(row: dict) -> list[str]:
    return [_ms(row["worker_cpu_ms"]), _ms(row["aggregator_cpu_ms"]), f"{row['cpu_share']:.2f}"]


def markdown_row(row: dict) -> list[str]:
    wire = row["wire_over_payload"]
    return [
        str(row["workers"]),
        f"{row['size_mb']:g}",
        f"{row['density'] * 100:g}%",
        _ms(row["p4reduce_ms"]),
        _ms(row["gloo_dense_ms"]),
        _ms(row["gloo_sparse_ms"]),
        f"**{_ratio(row['speedup_vs_dense'])}**",
        _ms(row["memory_pass_ms"]),
        _ratio(row["over_memory_pass"]),
        "-" if wire is None else f"{wire:.3f}",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, nargs="+", default=[2, 4], help="worker counts (default: 2 4)")
    ap.add_argument(
        "--sizes-mb", type=float, nargs="+", default=[1, 4, 16, 64], help="tensor sizes in MB (default: 1 4 16 64)"
    )
    ap.add_argument(
        "--densities",
        type=float,
        nargs="+",
        default=[0.001, 0.01, 0.1, 0.5, 1.0],
        help="fractions of non-zero blocks (default: 0.001 0.01 0.1 0.5 1.0)",
    )
    ap.add_argument(
        "--block-size", type=int, default=16000, help="elements per block = values per packet (16000: 64 KB datagrams)"
    )
    ap.add_argument("--slots", type=int, default=32, help="the job's slots: streams in flight (default: 32)")
    ap.add_argument("--iterations", type=int, default=5, help="timed allreduces per cell, the median kept (default: 5)")
    ap.add_argument("--quick", action="store_true", help="2 workers, 4 MB, 3 densities")
    ap.add_argument(
        "--multicast", action="store_true", help="the aggregator sends each result once to an IP multicast group"
    )
    ap.add_argument(
        "--spin-us",
        type=int,
        default=0,
        help="p4reduce workers poll their sockets without sleeping this long before they block (default: 0)",
    )
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="add CPU columns: workers' and aggregator's CPU ms per allreduce, and their share of "
        "the cores in p4reduce's time (near 1: CPU-bound)",
    )
    ap.add_argument("--out", default="results/bench", help="CSV and PNG path, without suffix (default: results/bench)")
    add_markdown_option(ap)
    args = ap.parse_args()
    if args.quick:
        args.workers, args.sizes_mb, args.densities = [2], [4], [0.01, 0.1, 1.0]
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    report = None
    if args.markdown:
        report = MarkdownReport(
            MARKDOWN_COLUMNS + (CPU_COLUMNS if args.cpu else []),
            intro=[
                (
                    f"{args.block_size}-element blocks, {args.slots} slots, medians of {args.iterations} "
                    f"(the slowest worker's time), results {'multicast' if args.multicast else 'unicast'}"
                    + (f", workers spin {args.spin_us} us before they block" if args.spin_us else "")
                    + "; 1 pass: every worker reads its whole tensor once at the same time."
                )
            ],
        )
    else:
        print(
            f"{'W':>2} {'MB':>5} {'dens':>6} | {'p4reduce':>9} {'gloo':>9} {'gloo COO':>9} | "
            f"{'x dense':>7} {'x COO':>7} | {'1 pass':>7} {'/ pass':>6} | {'wire/nz payload':>15}"
        )
    for n in args.workers:
        for mb in args.sizes_mb:
            elements = int(mb * 2**20 / 4)
            dense_ms = time_gloo(n, elements, args.block_size, 1.0, False, args.iterations) * 1e3
            pass_ms = time_memory_pass(n, elements, args.block_size, args.iterations) * 1e3
            for density in args.densities:
                p4 = time_p4reduce(
                    n, elements, args.block_size, args.slots, density, args.iterations, args.multicast, args.spin_us
                )
                sparse_ms = time_gloo(n, elements, args.block_size, density, True, args.iterations) * 1e3
                p4_ms = p4["median_seconds"] * 1e3
                cpu_s = p4["worker_cpu_seconds"] + p4["aggregator_cpu_seconds"]
                nz_payload = p4["block_density"] * (-(-elements // args.block_size)) * args.block_size * 4
                row = {
                    "workers": n,
                    "size_mb": mb,
                    "density": density,
                    "block_size": args.block_size,
                    "p4reduce_ms": round(p4_ms, 3),
                    "gloo_dense_ms": round(dense_ms, 3),
                    "gloo_sparse_ms": round(sparse_ms, 3),
                    "memory_pass_ms": round(pass_ms, 3),
                    "over_memory_pass": round(p4_ms / pass_ms, 3),
                    "speedup_vs_dense": round(dense_ms / p4_ms, 3),
                    "speedup_vs_sparse": round(sparse_ms / p4_ms, 3),
                    "p4reduce_wire_bytes": round(p4["wire_bytes_per_worker"]),
                    "nonzero_payload_bytes": round(nz_payload),
                    "wire_over_payload": round(p4["wire_bytes_per_worker"] / nz_payload, 3) if nz_payload else None,
                    "worker_cpu_ms": round(p4["worker_cpu_seconds"] * 1e3, 3),
                    "aggregator_cpu_ms": round(p4["aggregator_cpu_seconds"] * 1e3, 3),
                    "cpu_share": round(cpu_s / (os.cpu_count() or 1) / (p4_ms / 1e3), 3),
                }
                rows.append(row)
                if report is not None:
                    report.row(*markdown_row(row), *(cpu_cells(row) if args.cpu else []))
                    continue
                print(
                    f"{n:>2} {mb:>5g} {density:>6.1%} | {p4_ms:>7.1f}ms {dense_ms:>7.1f}ms "
                    f"{sparse_ms:>7.1f}ms | {row['speedup_vs_dense']:>6.2f}x "
                    f"{row['speedup_vs_sparse']:>6.2f}x | {pass_ms:>5.1f}ms {row['over_memory_pass']:>5.1f}x | "
                    f"{row['wire_over_payload']}",
                    flush=True,
                )
    if report is not None:
        report.end()
        with contextlib.redirect_stdout(sys.stderr):  # stdout stays the Markdown block
            save_results(out, FIELDS, rows, panels(rows), FIGURE_TITLE)
        return 0
    save_results(out, FIELDS, rows, panels(rows), FIGURE_TITLE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
