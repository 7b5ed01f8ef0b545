#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Dense baseline for the Mininet runner: time torch.distributed gloo allreduce of
a float32 tensor on one host of the experiment; prints one JSON line per iteration."""

from __future__ import annotations

import argparse
import datetime
import json
import time

import torch
import torch.distributed as dist


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--master", required=True, help="HOST:PORT of rank 0")
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--elements", type=int, required=True)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument(
        "--timeout", type=float, default=300, help="seconds gloo waits for the other ranks (connecting included)"
    )
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://{args.master}",
        rank=args.rank,
        world_size=args.workers,
        timeout=datetime.timedelta(seconds=args.timeout),
    )
    t = torch.ones(args.elements)
    for i in range(args.iterations + 1):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        if i:  # the first one is warm-up
            print(json.dumps({"iteration": i - 1, "seconds": time.perf_counter() - start}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
