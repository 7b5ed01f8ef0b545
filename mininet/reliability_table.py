#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reliability table for the README: real processes in network namespaces over
impaired links, software aggregator. Run as root:

    sudo python3 mininet/reliability_table.py --runs 5
"""

from __future__ import annotations

import argparse
import sys

from p4reduce.testbed.experiment import NetnsRun, run
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.netns import netem_supported

SCENARIOS = [
    ("clean", None),
    ("loss 1%", Impairment(loss=0.01)),
    ("loss 5%", Impairment(loss=0.05)),
    ("loss 10%", Impairment(loss=0.10)),
    ("duplicate 10%", Impairment(duplicate=0.10)),
    ("loss 5% + duplicate 5%", Impairment(loss=0.05, duplicate=0.05)),
    ("delay 2 ms ± 1 ms (reorder)", Impairment(delay_ms=2, jitter_ms=1)),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--elements", type=int, default=100_000)
    ap.add_argument("--check-args", action="store_true", help="check the options and exit: nothing is run")
    args = ap.parse_args()
    for name in ("runs", "workers", "elements"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if args.check_args:
        print(f"options consistent: --runs {args.runs} --workers {args.workers} --elements {args.elements}")
        return 0
    columns = (
        "scenario",
        "mechanism",
        "mode, dtype",
        "runs",
        "results exact",
        "retransmissions + queries (total)",
        "median time (ms)",
    )
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|---|")
    for name, imp in SCENARIOS:
        if imp is not None and imp.needs_netem() and not netem_supported():
            print(f"| {name} | needs netem (absent in this kernel) | | 0 | | | |")
            continue
        for mode, dtype in (("sparse", "float32"), ("dense", "int32")):
            exact, retx, times, mech = 0, 0, [], "none"
            for seed in range(args.runs):
                res = run(
                    NetnsRun(
                        workers=args.workers, elements=args.elements, mode=mode, dtype=dtype, seed=seed, iterations=3
                    ),
                    imp,
                )
                exact += res.exact
                retx += res.retransmissions + res.queries
                times += res.seconds
                mech = res.mechanism
            times.sort()
            print(
                f"| {name} | {mech} | {mode}, {dtype} | {args.runs} | {exact}/{args.runs} | "
                f"{retx} | {times[len(times) // 2] * 1e3:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
