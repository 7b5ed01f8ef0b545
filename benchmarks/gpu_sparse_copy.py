#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""all_reduce of a CUDA gradient: p4reduce's device path vs gloo, in one run on one machine.

    python3 benchmarks/gpu_sparse_copy.py --workers 2 --megabytes 64 --densities 0.01 0.1 1.0

Two ranks (spawned processes) on one GPU (or one each where there are several), each with
a float32 tensor of `--megabytes` on the GPU whose `--block-size` blocks are non-zero with
probability `density`:
  * gloo: dist.all_reduce on a gloo process group with the CUDA tensor (gloo stages the
    whole tensor through host memory, both ways),
  * p4reduce: the same call on a "p4reduce" process group (embedded software aggregator in
    rank 0's process): the non-zero blocks are found on the GPU and only those, with their
    indices, cross PCIe (p4reduce.torch.device).
Per call: the median time (the slowest rank's, after a barrier and one warm-up call) and
the bytes one rank copied device-to-host and host-to-device (gloo: the tensor each way;
p4reduce: what p4reduce.torch.stats() counted). The first p4reduce result is checked
against the exact sum (within the fixed-point bound of docs/protocol.md section 5).

Needs CUDA; without it the script says so and exits 2. `--markdown` prints the table
headed by the command, the machine, the date and the git commit (benchmarks/_report.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from _report import MarkdownReport, add_markdown_option, emit_row, sum_check

import p4reduce.torch as p4torch  # registers the backend
from p4reduce.testbed.synthetic import worker_tensor
from p4reduce.torch.launch import rank_device, run_ranks

SEED = 29


def data(rank: int, elements: int, block: int, density: float) -> np.ndarray:
    seed = int(np.random.SeedSequence([SEED, int(density * 1e6)]).generate_state(1)[0])
    return worker_tensor(seed, rank, elements, block, density)


def bench_rank(rank: int, n: int, backend: str, args: argparse.Namespace) -> dict:
    device = rank_device(rank, "cuda")
    dist.init_process_group(backend, rank=rank, world_size=n)
    out: dict = {}
    for density in args.densities:
        host = torch.from_numpy(data(rank, args.elements, args.block_size, density))
        times, d2h, h2d, check = [], [], [], None
        for i in range(args.iterations + 1):  # the first call is a warm-up
            tensor = host.to(device)
            torch.cuda.synchronize(device)
            dist.barrier()
            before = p4torch.stats().totals if backend == "p4reduce" else None
            down0 = before.device_to_host_bytes if before else 0
            up0 = before.host_to_device_bytes if before else 0
            started = time.perf_counter()
            dist.all_reduce(tensor)
            torch.cuda.synchronize(device)
            elapsed = time.perf_counter() - started
            if backend == "p4reduce":
                totals = p4torch.stats().totals
                d2h.append(totals.device_to_host_bytes - down0)
                h2d.append(totals.host_to_device_bytes - up0)
            else:  # gloo copies the whole tensor to the host and back
                d2h.append(tensor.numel() * 4)
                h2d.append(tensor.numel() * 4)
            if i == 0 and backend == "p4reduce" and rank == 0:
                check = verify(tensor.cpu().numpy(), n, args, density)
            if i:
                times.append(elapsed)
        out[density] = {"times": times, "d2h": statistics.median(d2h), "h2d": statistics.median(h2d), "check": check}
    dist.destroy_process_group()
    return out


def verify(got: np.ndarray, n: int, args: argparse.Namespace, density: float) -> str:
    ref = np.sum([data(r, args.elements, args.block_size, density).astype(np.float64) for r in range(n)], axis=0)
    return sum_check(got, ref, n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2, help="ranks (processes) on the GPU(s) (default: %(default)s)")
    ap.add_argument("--megabytes", type=float, default=64.0, help="float32 tensor size (default: %(default)s)")
    ap.add_argument("--densities", type=float, nargs="+", default=[0.01, 0.1, 1.0], help="non-zero block fractions")
    ap.add_argument("--block-size", type=int, default=256, help="p4reduce block (default: %(default)s)")
    ap.add_argument("--slots", type=int, default=256, help="p4reduce slots (default: %(default)s)")
    ap.add_argument("--iterations", type=int, default=5, help="timed calls per cell (default: %(default)s)")
    add_markdown_option(ap)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("gpu_sparse_copy: needs CUDA (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    args.elements = int(args.megabytes * 1e6) // 4
    env = {"P4REDUCE_BLOCK_SIZE": str(args.block_size), "P4REDUCE_SLOTS": str(args.slots)}
    columns = ["non-zero blocks", "gloo", "p4reduce", "speed-up", "gloo D2H+H2D MB", "p4reduce D2H MB",
               "p4reduce H2D MB", "p4reduce result"]  # fmt: skip
    intro = [
        f"{args.workers} ranks on {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}, "
        f"{args.elements:,} float32 elements ({args.elements * 4 / 1e6:.0f} MB) on the GPU, block "
        f"{args.block_size}, {args.slots} slots, medians of {args.iterations} (the slowest rank's time); "
        "MB copied by one rank per call."
    ]
    report = MarkdownReport(columns, argv, intro=intro) if args.markdown else None
    if report is None:
        print(intro[0])
        print("| " + " | ".join(columns) + " |")
        print("|---" * len(columns) + "|")
    gloo = run_ranks(bench_rank, args.workers, args=("gloo", args))
    ours = run_ranks(bench_rank, args.workers, args=("p4reduce", args), env=env)

    def slowest(reports: list[dict], density: float) -> float:
        return statistics.median(max(r[density]["times"][i] for r in reports) for i in range(args.iterations))

    wrong = False
    for density in args.densities:
        t_gloo, t_ours = slowest(gloo, density), slowest(ours, density)
        check = ours[0][density]["check"]
        wrong |= "WRONG" in check
        cells = [
            f"{density:.0%}",
            f"{t_gloo * 1e3:.1f} ms",
            f"{t_ours * 1e3:.1f} ms",
            f"{t_gloo / t_ours:.2f}x",
            f"{(gloo[0][density]['d2h'] + gloo[0][density]['h2d']) / 1e6:.1f}",
            f"{ours[0][density]['d2h'] / 1e6:.2f}",
            f"{ours[0][density]['h2d'] / 1e6:.2f}",
            check,
        ]
        emit_row(report, cells)
    if report is not None:
        report.end()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
