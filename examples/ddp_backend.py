#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DDP on the "p4reduce" torch.distributed backend, checked against gloo.

    python3 examples/ddp_backend.py --workers 2 --steps 60
    python3 examples/ddp_backend.py --workers 2 --steps 60 --device cuda --rtol 1e-4   # on GPUs

Trains a small recommendation-style model (embedding table + MLP) with
DistributedDataParallel twice from the same seeds: once on gloo, once with
``dist.init_process_group("p4reduce")`` and no gloo group at all (DDP's start-up
broadcast and parameter check, every gradient bucket and the final barrier go through
p4reduce's embedded software aggregator). Each batch touches few embedding rows, so
the embedding gradient is block-sparse and p4reduce sends only the touched blocks.

Exits non-zero unless every step's loss agrees with gloo's within --rtol (default
1e-6, relative). The sums are not bit-exact: float32 gradients are summed in fixed
point, within n * 2^(e_b + ceil(log2 n) - 31) per element of a block whose largest
magnitude is below 2^e_b (docs/protocol.md section 5), while gloo adds in float32;
both errors are of the order of float32 rounding.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import p4reduce.torch as p4torch  # registers the "p4reduce" backend
from p4reduce.torch.launch import rank_device, run_ranks

BLOCK_SIZE = 256


class ClickModel(nn.Module):
    def __init__(self, items: int, dim: int) -> None:
        super().__init__()
        self.items = nn.EmbeddingBag(items, dim, mode="sum")  # dense grad: untouched rows stay zero
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.items(ids, offsets)).squeeze(-1)


def batches(rank: int, steps: int, batch: int, items: int, per_user: int):
    """Synthetic clicks: items drawn with a skewed (Zipf-like) popularity; the label says
    whether many of a user's items are multiples of 7, which the model learns as the
    popular items' rows are trained. Each step touches few rows of the table."""
    g = torch.Generator().manual_seed(1000 + rank)
    for _ in range(steps):
        ids = (items * torch.rand(batch * per_user, generator=g) ** 4).long()
        offsets = torch.arange(0, batch * per_user, per_user)
        labels = ((ids.view(batch, per_user) % 7 == 0).float().mean(1) > 0.14).float()
        yield ids, offsets, labels


def train(rank: int, world_size: int, backend: str, args: argparse.Namespace) -> dict:
    device = rank_device(rank, args.device)
    dist.init_process_group(backend, rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = ClickModel(args.items, args.dim).to(device)
    model = DDP(model, device_ids=[device] if device.type == "cuda" else None, bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.BCEWithLogitsLoss()
    losses = []
    started = time.perf_counter()
    for step, (ids, offsets, labels) in enumerate(batches(rank, args.steps, args.batch, args.items, args.per_user)):
        ids, offsets, labels = ids.to(device), offsets.to(device), labels.to(device)
        opt.zero_grad()
        loss = loss_fn(model(ids, offsets), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if rank == 0 and (step + 1) % args.log_every == 0:
            extra = f"  {p4torch.stats().progress()}" if backend == "p4reduce" else ""
            print(
                f"[{backend:8}] step {step + 1:4d}  loss {sum(losses[-args.log_every :]) / args.log_every:.4f}{extra}",
                flush=True,
            )
    dist.barrier()
    elapsed = time.perf_counter() - started
    report = {"losses": losses, "seconds": elapsed}
    if backend == "p4reduce":
        report.update(p4torch.stats().report())
    dist.destroy_process_group()
    return report


def compare(ref: list[float], got: list[float]) -> float:
    """Largest relative per-step loss difference."""
    return max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(ref, got, strict=True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--items", type=int, default=50_000)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--per-user", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.03, help="Adam learning rate")
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument(
        "--block-size",
        type=int,
        default=BLOCK_SIZE,
        help="p4reduce values per block/packet (P4REDUCE_BLOCK_SIZE): the granularity of sparsity",
    )
    ap.add_argument("--slots", type=int, default=64, help="p4reduce streams in flight (P4REDUCE_SLOTS)")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="where the model trains: cuda puts each rank on a GPU (round robin); gradients then stay there and "
        "only their non-zero blocks cross PCIe",
    )
    ap.add_argument(
        "--rtol", type=float, default=1e-6, help="largest allowed relative difference of a step's loss from gloo's"
    )
    args = ap.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: torch.cuda.is_available() is False")
    ref = run_ranks(train, args.workers, args=("gloo", args))
    got = run_ranks(
        train,
        args.workers,
        args=("p4reduce", args),
        env={"P4REDUCE_BLOCK_SIZE": str(args.block_size), "P4REDUCE_SLOTS": str(args.slots)},
    )
    diff = compare(ref[0]["losses"], got[0]["losses"])
    p4 = got[0]
    print(
        f"final loss: gloo {ref[0]['losses'][-1]:.6f}  p4reduce {p4['losses'][-1]:.6f}  "
        f"largest relative per-step difference {diff:.2e} (tolerance {args.rtol:g})"
    )
    print(
        f"training time: gloo {max(r['seconds'] for r in ref):.2f} s  p4reduce "
        f"{max(r['seconds'] for r in got):.2f} s; collectives on rank 0: {p4['collectives']}"
    )
    print(
        f"gradient block density {p4['density']:.2%}; p4reduce sent {p4['wire'] / 1e6:.1f} MB per worker "
        f"for {p4['tensors'] / 1e6:.1f} MB of tensors"
    )
    print(f"p4reduce rank 0, per collective:\n{p4['summary']}")
    if args.device == "cuda":
        print(
            f"PCIe on rank 0: {p4['device_to_host'] / 1e6:.2f} MB to the host, {p4['host_to_device'] / 1e6:.2f} MB "
            f"back, for {p4['tensors'] / 1e6:.1f} MB of tensors (a dense copy moves the tensors each way)"
        )
    if diff > args.rtol:
        print(f"FAIL: a step's loss differs from gloo's by more than {args.rtol:g} (relative)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
