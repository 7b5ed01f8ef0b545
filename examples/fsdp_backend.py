#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""FSDP2 (torch.distributed.fsdp.fully_shard) on CPU processes over the "p4reduce" backend,
checked against gloo.

    python3 examples/fsdp_backend.py --workers 2 --steps 40
    python3 examples/fsdp_backend.py --workers 2 --steps 40 --device cuda --rtol 1e-4   # on GPUs

Trains a small bag-of-words classifier (embedding table + MLP, layer widths that do not
divide by the number of ranks, so FSDP pads its shards) with every layer and the root
wrapped by fully_shard, twice from the same seeds: on gloo and on p4reduce. FSDP2's
traffic is exactly the collectives this backend implements: all_gather_single of the
parameter shards before each forward and backward (through p4reduce an allreduce in
which each rank holds only its own shard: raw bytes, bit-exact) and
reduce_scatter_single of the gradients with ReduceOp.AVG (for now an allreduce of the
whole gradient, each rank keeping its shard; float32 fixed point). Few embedding rows are
touched per step, so the gradient is block-sparse.

Exits non-zero unless every step's loss agrees with gloo's within --rtol (default 1e-6,
relative; the fixed-point bound of docs/protocol.md section 5 is of the order of float32
rounding, and gloo's own float32 sums are not exact either).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import fully_shard

import p4reduce.torch as p4torch  # registers the "p4reduce" backend
from p4reduce.torch.launch import rank_device, run_ranks

BLOCK_SIZE = 1024


class BagClassifier(nn.Module):
    def __init__(self, vocab: int, dim: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.hidden = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(self.embed(ids, offsets))))


def batches(rank: int, steps: int, batch: int, vocab: int, words: int, classes: int):
    """Synthetic documents: words drawn with a skewed (Zipf-like) frequency, the class is
    the most common residue of the word ids, so the loss falls as the frequent words' rows
    are learned; each step touches few rows of the table."""
    g = torch.Generator().manual_seed(2000 + rank)
    for _ in range(steps):
        ids = (vocab * torch.rand(batch * words, generator=g) ** 4).long()
        offsets = torch.arange(0, batch * words, words)
        labels = (ids.view(batch, words) % classes).mode(dim=1).values
        yield ids, offsets, labels


def train(rank: int, world_size: int, backend: str, args: argparse.Namespace) -> dict:
    device = rank_device(rank, args.device)
    dist.init_process_group(backend, rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = BagClassifier(args.vocab, args.dim, args.hidden, args.classes).to(device)
    for layer in (model.embed, model.hidden, model.out):
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    started = time.perf_counter()
    for step, (ids, offsets, labels) in enumerate(
        batches(rank, args.steps, args.batch, args.vocab, args.words, args.classes)
    ):
        ids, offsets, labels = ids.to(device), offsets.to(device), labels.to(device)
        opt.zero_grad()
        loss = loss_fn(model(ids, offsets), labels)
        loss.backward()
        opt.step()
        # Every rank's loss (of its own batch), averaged: the same number on every rank.
        mean = loss.detach().clone()
        dist.all_reduce(mean, op=dist.ReduceOp.AVG)
        losses.append((loss.item(), mean.item()))
        if rank == 0 and (step + 1) % args.log_every == 0:
            extra = f"  {p4torch.stats().progress()}" if backend == "p4reduce" else ""
            print(f"[{backend:8}] step {step + 1:4d}  mean loss over ranks {mean.item():.4f}{extra}", flush=True)
    dist.barrier()
    elapsed = time.perf_counter() - started
    report = {"losses": [own for own, _ in losses], "mean_losses": [m for _, m in losses], "seconds": elapsed}
    if backend == "p4reduce":
        report.update(p4torch.stats().report())
    dist.destroy_process_group()
    return report


def compare(ref: list[float], got: list[float]) -> float:
    return max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(ref, got, strict=True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--vocab", type=int, default=20_001)
    ap.add_argument("--dim", type=int, default=33)
    ap.add_argument("--hidden", type=int, default=65)
    ap.add_argument("--classes", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--words", type=int, default=12)
    ap.add_argument("--lr", type=float, default=2.0)
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
        help="where the model trains: cuda puts each rank on a GPU (round robin; the collectives stage their "
        "tensors through host memory)",
    )
    ap.add_argument(
        "--rtol",
        type=float,
        default=1e-6,
        help="largest allowed relative difference of a step's loss from gloo's (every rank)",
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
    diff = max(compare(r["losses"], g["losses"]) for r, g in zip(ref, got, strict=True))
    p4 = got[0]
    print(
        f"final mean loss: gloo {ref[0]['mean_losses'][-1]:.6f}  p4reduce {p4['mean_losses'][-1]:.6f}  "
        f"largest relative per-step difference (any rank) {diff:.2e} (tolerance {args.rtol:g})"
    )
    print(
        f"training time: gloo {max(r['seconds'] for r in ref):.2f} s  p4reduce "
        f"{max(r['seconds'] for r in got):.2f} s; collectives on rank 0: {p4['collectives']}"
    )
    print(
        f"block density {p4['density']:.2%}; p4reduce sent {p4['wire'] / 1e6:.1f} MB per worker "
        f"for {p4['tensors'] / 1e6:.1f} MB of tensors"
    )
    print(f"p4reduce rank 0, per collective:\n{p4['summary']}")
    if diff > args.rtol:
        print(f"FAIL: a step's loss differs from gloo's by more than {args.rtol:g} (relative)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
