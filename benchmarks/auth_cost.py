#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What authenticated jobs cost (docs/protocol.md 6.3): the same allreduces with and without
a per-job key, side by side in one run (alternating, so that load on the machine hits both
alike), through the software aggregator on loopback with the native engines on both sides.

For each worker count, tensor size and block density it prints the median allreduce time
(the slowest worker's, as the demo measures it) without and with the key, their ratio, and
the bytes each worker sends (the MAC adds 8 bytes per packet). Every result is checked
against numpy.

    python3 benchmarks/auth_cost.py                 # 2 and 4 workers, 16 MB, 1/10/100%
    python3 benchmarks/auth_cost.py --quick
    python3 benchmarks/auth_cost.py --markdown      # headed by the command, machine, date, commit
"""

from __future__ import annotations

import argparse
import statistics
import sys

from _report import MarkdownReport, add_markdown_option

from p4reduce.cli.demo import DemoConfig, run_demo
from p4reduce.protocol.auth import JobKey


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, nargs="+", default=[2, 4], help="worker counts (default: 2 4)")
    p.add_argument("--size-mb", type=float, nargs="+", default=[16.0], help="float32 tensor sizes in MB")
    p.add_argument(
        "--density",
        type=float,
        nargs="+",
        default=[0.01, 0.1, 1.0],
        help="fractions of non-zero blocks (default: 0.01 0.1 1.0)",
    )
    p.add_argument("--block-size", type=int, default=256, help="values per block (default: 256)")
    p.add_argument("--iterations", type=int, default=5, help="timed allreduces per run (default: 5)")
    p.add_argument("--repeats", type=int, default=3, help="alternating runs of each kind (default: 3)")
    p.add_argument("--quick", action="store_true", help="2 workers, 4 MB, 10%% only, 2 repeats")
    add_markdown_option(p)
    args = p.parse_args(argv)
    if args.quick:
        args.workers, args.size_mb, args.density, args.repeats = [2], [4.0], [0.1], 2
    columns = [
        "workers",
        "MB",
        "density",
        "plain ms",
        "authenticated ms",
        "ratio",
        "bytes/worker plain",
        "bytes/worker authenticated",
    ]
    report = (
        MarkdownReport(
            columns,
            argv,
            intro=[
                (
                    f"{args.block_size}-value blocks, {args.iterations} allreduces per run, medians of {args.repeats} "
                    "alternating runs of each kind (the slowest worker's time), native engines, loopback."
                )
            ],
        )
        if args.markdown
        else None
    )
    if report is None:
        print("| " + " | ".join(columns) + " |")
        print("|---" * len(columns) + "|")
    key = JobKey.random()
    for n in args.workers:
        for size in args.size_mb:
            for density in args.density:
                times: dict[bool, list[float]] = {False: [], True: []}
                wire: dict[bool, float] = {}
                for _ in range(args.repeats):
                    for keyed in (False, True):
                        cfg = DemoConfig(
                            workers=n,
                            elements=int(size * 2**20 / 4),
                            density=density,
                            block_size=args.block_size,
                            iterations=args.iterations,
                            key=key if keyed else None,
                        )
                        summary = run_demo(cfg)  # raises if any result is wrong
                        times[keyed].append(float(summary["median_seconds"]))
                        wire[keyed] = float(summary["wire_bytes_per_worker"])
                plain, authed = statistics.median(times[False]), statistics.median(times[True])
                cells = [
                    n,
                    f"{size:g}",
                    f"{density:.0%}",
                    f"{plain * 1e3:.2f}",
                    f"{authed * 1e3:.2f}",
                    f"{authed / plain:.2f}",
                    f"{wire[False]:,.0f}",
                    f"{wire[True]:,.0f}",
                ]
                if report is not None:
                    report.row(*cells)
                else:
                    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)
    if report is not None:
        report.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
