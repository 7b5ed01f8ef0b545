#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""torch.distributed collectives on the "p4reduce" backend vs gloo, in one run on one machine.

    python3 benchmarks/collectives_vs_gloo.py --workers 2 --elements 4000000 \\
        --densities 0.001 0.01 0.1 1.0 --block-size 4096 --slots 64 --iterations 5

For each collective (all_reduce, reduce_scatter_single, all_gather_single) and block
density it times, in spawned ranks on loopback:
  * gloo: the collective on a gloo process group,
  * p4reduce: the same call on a "p4reduce" process group (embedded software aggregator
    in rank 0's process, sparse mode).
Tensors are float32 and block-sparse: each `--block-size` block of a rank's data is
non-zero with probability `density` (all_reduce / reduce_scatter: the whole
`--elements` input; all_gather: the rank's shard of elements / workers). Each timed call
starts after a barrier; a call's time is the slowest rank's; the table shows medians
after one warm-up call. The p4reduce results of the first call are checked against the
exact sums (within the fixed-point bound of docs/protocol.md section 5) and the
gathered shards bit for bit; "sent" and "received" are what one p4reduce rank sent and
received per call (UDP payload + Ethernet/IP/UDP headers), against the tensor's bytes.

reduce_scatter is a p4reduce reduce-scatter (docs/protocol.md 3.1): each result block's
values go to the rank owning it, the others receive its header only, so a rank receives
about its shard's share of the union of the non-zero blocks (all_reduce: all of it).

`--markdown` prints the table headed by the command, the machine, the date and the git
commit (benchmarks/_report.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from _report import MarkdownReport, add_markdown_option, emit_row, sum_check

import p4reduce.torch as p4torch  # registers the backend
from p4reduce.hostagent.engine_api import WIRE_OVERHEAD
from p4reduce.testbed.synthetic import worker_tensor
from p4reduce.torch.launch import run_ranks

COLLECTIVES = ("all_reduce", "reduce_scatter", "all_gather")
SEED = 13


def inputs(collective: str, rank: int, n: int, elements: int, block: int, density: float) -> np.ndarray:
    seed = [SEED, COLLECTIVES.index(collective), int(density * 1e6)]
    length = elements // n if collective == "all_gather" else elements
    return worker_tensor(int(np.random.SeedSequence(seed).generate_state(1)[0]), rank, length, block, density)


def expected(collective: str, n: int, elements: int, block: int, density: float) -> np.ndarray:
    parts = [inputs(collective, r, n, elements, block, density) for r in range(n)]
    return np.concatenate(parts) if collective == "all_gather" else np.sum(np.stack(parts).astype(np.float64), 0)


def bench_rank(rank: int, n: int, backend: str, args: argparse.Namespace) -> dict:
    dist.init_process_group(backend, rank=rank, world_size=n)
    shard = args.elements // n
    out: dict = {}
    for collective in COLLECTIVES:
        for density in args.densities:
            data = torch.from_numpy(inputs(collective, rank, n, args.elements, args.block_size, density))
            times, wire, received, check = [], [], [], None
            for i in range(args.iterations + 1):  # the first call is a warm-up
                if collective == "all_reduce":
                    tensor = data.clone()
                    call, call_args = dist.all_reduce, (tensor,)
                    result = tensor
                elif collective == "reduce_scatter":
                    result = torch.empty(shard)
                    call, call_args = dist.reduce_scatter_single, (result, data[: shard * n])
                else:
                    result = torch.empty(shard * n)
                    call, call_args = dist.all_gather_single, (result, data)
                dist.barrier()
                sent = p4torch.stats().totals.wire_bytes_sent if backend == "p4reduce" else 0
                got = _received(p4torch.stats().totals) if backend == "p4reduce" else 0
                started = time.perf_counter()
                call(*call_args)
                elapsed = time.perf_counter() - started
                if backend == "p4reduce":
                    wire.append(p4torch.stats().totals.wire_bytes_sent - sent)
                    received.append(_received(p4torch.stats().totals) - got)
                if i == 0 and backend == "p4reduce" and rank == 0:
                    check = verify(collective, result, n, args, density)
                if i:
                    times.append(elapsed)
            out[(collective, density)] = {
                "times": times,
                "wire": statistics.median(wire) if wire else 0,
                "received": statistics.median(received) if received else 0,
                "check": check,
                "bytes": data.numel() * 4,
            }
    dist.destroy_process_group()
    return out


def _received(stats) -> int:
    return stats.payload_bytes_received + WIRE_OVERHEAD * stats.packets_received


def verify(collective: str, result: torch.Tensor, n: int, args: argparse.Namespace, density: float) -> str:
    ref = expected(collective, n, args.elements, args.block_size, density)
    got = result.numpy()
    if collective == "all_gather":
        return "exact" if np.array_equal(got.view(np.uint32), ref.view(np.uint32)) else "WRONG"
    if collective == "reduce_scatter":
        ref = ref[: got.size]  # rank 0's shard
    return sum_check(got, ref, n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--elements", type=int, default=4_000_000, help="float32 elements of the full tensor")
    ap.add_argument("--densities", type=float, nargs="+", default=[0.001, 0.01, 0.1, 1.0])
    ap.add_argument("--block-size", type=int, default=4096, help="p4reduce block (and data sparsity) granularity")
    ap.add_argument("--slots", type=int, default=64)
    ap.add_argument("--iterations", type=int, default=5)
    add_markdown_option(ap)
    args = ap.parse_args(argv)
    args.elements -= args.elements % args.workers
    env = {"P4REDUCE_BLOCK_SIZE": str(args.block_size), "P4REDUCE_SLOTS": str(args.slots)}
    load_before = os.getloadavg()
    columns = [
        "collective",
        "non-zero blocks",
        "gloo",
        "p4reduce",
        "speed-up",
        "p4reduce sent MB / rank",
        "received MB / rank",
        "tensor MB / rank",
        "p4reduce result",
    ]
    report = (
        MarkdownReport(
            columns,
            argv,
            intro=[
                (
                    f"{args.workers} ranks, {args.elements:,} float32 elements ({args.elements * 4 / 1e6:.1f} MB), "
                    f"block {args.block_size}, {args.slots} slots, medians of {args.iterations} (the slowest rank's "
                    "time); MB per rank per call, sent and received, headers included."
                )
            ],
        )
        if args.markdown
        else None
    )
    gloo = run_ranks(bench_rank, args.workers, args=("gloo", args))
    ours = run_ranks(bench_rank, args.workers, args=("p4reduce", args), env=env)

    def median_slowest(reports: list[dict], key: tuple) -> float:
        return statistics.median(max(rep[key]["times"][i] for rep in reports) for i in range(args.iterations))

    if report is None:
        print(
            f"{args.workers} workers, {args.elements:,} float32 elements ({args.elements * 4 / 1e6:.1f} MB), "
            f"block {args.block_size}, {args.slots} slots, medians of {args.iterations}; load average "
            f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} CPUs"
        )
        print("| " + " | ".join(columns) + " |")
        print("|---" * len(columns) + "|")
    wrong = False
    for collective in COLLECTIVES:
        for density in args.densities:
            key = (collective, density)
            t_gloo, t_ours = median_slowest(gloo, key), median_slowest(ours, key)
            check = ours[0][key]["check"]
            wrong |= "WRONG" in check
            cells = [
                collective,
                f"{density:.1%}",
                f"{t_gloo * 1e3:.1f} ms",
                f"{t_ours * 1e3:.1f} ms",
                f"{t_gloo / t_ours:.2f}x",
                f"{ours[0][key]['wire'] / 1e6:.2f}",
                f"{ours[0][key]['received'] / 1e6:.2f}",
                f"{ours[0][key]['bytes'] / 1e6:.1f}",
                check,
            ]
            emit_row(report, cells)
    if report is not None:
        report.end()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
