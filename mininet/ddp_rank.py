#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One rank of a small DDP training, twice side by side: the model's gradients averaged by
the "p4reduce" backend (whatever the P4REDUCE_* environment says: P4REDUCE_CONTROLLER for a
job placed by the job service) and a copy of it by gloo. Prints one JSON line with both
losses per step and where the p4reduce job ran (mininet/shared_switch.py reads it)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import p4reduce.torch  # noqa: F401  (registers the "p4reduce" backend)


def model() -> torch.nn.Module:
    torch.manual_seed(0)  # the same start on every rank and for both copies
    return torch.nn.Sequential(torch.nn.Embedding(300, 8), torch.nn.Flatten(), torch.nn.Linear(24, 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--master", required=True, help="HOST:PORT of rank 0's store")
    ap.add_argument("--rank", type=int, required=True, help="this rank")
    ap.add_argument("--world", type=int, required=True, help="ranks in the job")
    ap.add_argument("--steps", type=int, default=5, help="training steps (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="the training's data (default: %(default)s)")
    ap.add_argument(
        "--hold",
        metavar="FILE",
        help="after the report, keep the process group (and so the job) open until FILE exists "
        "(at most 300 s): closing it releases the job at the service",
    )
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("p4reduce", init_method=f"tcp://{args.master}", rank=args.rank, world_size=args.world)
    gloo = dist.new_group(backend="gloo")
    ours, theirs = DistributedDataParallel(model()), DistributedDataParallel(model(), process_group=gloo)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ours, theirs)]
    data = torch.Generator().manual_seed(1000 * args.seed + args.rank)
    steps = []
    for _ in range(args.steps):
        ids = torch.randint(0, 300, (16, 3), generator=data)
        target = torch.randn(16, 1, generator=data)
        losses = []
        for m, opt in zip((ours, theirs), optimizers, strict=True):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(m(ids), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        steps.append(losses)
    same = all(
        torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(ours.parameters(), theirs.parameters(), strict=True)
    )
    config = dist.distributed_c10d._get_default_group().agent.config  # the job as the service placed it
    print(
        json.dumps(
            {
                "rank": args.rank,
                "losses": steps,
                "parameters_equal": same,
                "job": config.job_id,
                "at": config.aggregator,
            }
        ),
        flush=True,
    )
    if args.hold:
        deadline = time.monotonic() + 300
        while not os.path.exists(args.hold) and time.monotonic() < deadline:
            time.sleep(0.1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    # Not through the interpreter's teardown: freeing the gloo DDP copy's process group can
    # deadlock in PyTorch (its destructor joins gloo's threads holding the GIL while one of
    # them needs it to free its last work; seen once under load). Everything is printed.
    sys.stdout.flush()
    os._exit(0)
