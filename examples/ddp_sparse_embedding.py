#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Train a small recommendation-style model (big embedding table + MLP) with
PyTorch DDP across local processes, gradients allreduced through p4reduce, and
compare the loss with plain gloo allreduce from the same seeds.

    python3 examples/ddp_sparse_embedding.py --workers 2 --steps 60

Each batch touches few embedding rows, so the embedding gradient is block-sparse:
p4reduce sends only the touched blocks.

    python3 examples/ddp_sparse_embedding.py --items 300 --lr 1.0 --steps 300 --block-size 64 \
        --log-every 20 --lossy-threshold 3e-3

adds lossy mode (opt-in): blocks whose largest |gradient| is under the threshold are not
sent but fed back into the next step's gradient (error feedback). Losses then differ from
gloo's step by step; the run fails unless the final loss (mean of the last --log-every
steps) is within --lossy-margin of gloo's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.testbed.ports import free_port
from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook
from p4reduce.torch.lossy import check_threshold


class ClickModel(nn.Module):
    def __init__(self, items: int, dim: int) -> None:
        super().__init__()
        self.items = nn.EmbeddingBag(items, dim, mode="sum")  # dense grad: zero rows untouched
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.items(ids, offsets)).squeeze(-1)


def batches(rank: int, steps: int, batch: int, items: int, per_user: int):
    """Synthetic clicks: label depends on whether a user's items are mostly 'popular'."""
    g = torch.Generator().manual_seed(1000 + rank)
    for _ in range(steps):
        ids = torch.randint(0, items, (batch * per_user,), generator=g)
        offsets = torch.arange(0, batch * per_user, per_user)
        labels = ((ids.view(batch, per_user) % 7 == 0).float().mean(1) > 0.14).float()
        yield ids, offsets, labels


def train(rank: int, args: argparse.Namespace, use_p4reduce: bool, agg_addr, queue) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(args.port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=args.workers)
    torch.manual_seed(0)
    model = DDP(ClickModel(args.items, args.dim), bucket_cap_mb=args.bucket_mb)
    state = None
    if use_p4reduce:
        agent = HostAgent(
            WorkerConfig(1, rank, args.workers, aggregator=agg_addr, block_size=args.block_size, num_slots=args.slots)
        )
        state = P4ReduceHookState(agent, lossy_threshold=args.lossy_threshold)
        model.register_comm_hook(state, p4reduce_hook)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.BCEWithLogitsLoss()
    losses = []
    started = time.perf_counter()
    for step, (ids, offsets, labels) in enumerate(batches(rank, args.steps, args.batch, args.items, args.per_user)):
        opt.zero_grad()
        loss = loss_fn(model(ids, offsets), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if rank == 0 and (step + 1) % args.log_every == 0:
            extra = ""
            if state is not None:
                extra = (
                    f"  block density {state.totals.density:.2%}  wire {state.totals.wire_bytes_sent / 1e6:.1f} MB"
                    f" (dense {state.dense_bytes / 1e6:.1f} MB)"
                )
                if state.feedback is not None:
                    extra += f"  blocks dropped {state.blocks_dropped}"
            print(
                f"[{'p4reduce' if use_p4reduce else 'gloo    '}] step {step + 1:4d}"
                f"  loss {sum(losses[-args.log_every :]) / args.log_every:.4f}{extra}",
                flush=True,
            )
    elapsed = time.perf_counter() - started
    queue.put(
        (
            rank,
            losses,
            elapsed,
            None
            if state is None
            else (
                state.totals.density,
                state.totals.wire_bytes_sent,
                state.dense_bytes,
                state.blocks_dropped,
                state.feedback.blocks_seen if state.feedback is not None else 0,
            ),
        )
    )
    if state is not None:
        state.close()
        state.agent.close()
    dist.destroy_process_group()


def run(args: argparse.Namespace, use_p4reduce: bool) -> tuple[list[float], float, tuple | None]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    server = (
        AggregatorServer([JobSpec(1, args.workers, block_size=args.block_size, num_slots=args.slots)], port=0).start()
        if use_p4reduce
        else None
    )
    try:
        procs = [
            ctx.Process(target=train, args=(r, args, use_p4reduce, server.address if server else None, queue))
            for r in range(args.workers)
        ]
        for p in procs:
            p.start()
        results = []
        while len(results) < len(procs):
            try:
                results.append(queue.get(timeout=1))
            except Exception:  # queue.Empty: check nobody died
                dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    raise RuntimeError(f"a training process failed (exit codes {dead})") from None
        results.sort()
        for p in procs:
            p.join(timeout=30)
    finally:
        if server is not None:
            server.stop()
    return results[0][1], max(r[2] for r in results), results[0][3]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--items", type=int, default=50_000)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--per-user", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument("--block-size", type=int, default=256)
    ap.add_argument("--slots", type=int, default=64)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument(
        "--tolerance",
        type=float,
        default=1e-3,
        help="max |loss difference| per step between p4reduce and gloo (lossless)",
    )
    ap.add_argument(
        "--lossy-threshold",
        type=float,
        default=0.0,
        help="lossy mode: blocks whose largest |gradient| is under this are fed back "
        "to the next step instead of sent (default 0: lossless)",
    )
    ap.add_argument(
        "--lossy-margin",
        type=float,
        default=0.02,
        help="lossy mode: max |final loss difference| from gloo (final loss: mean of the last --log-every steps)",
    )
    args = ap.parse_args(argv)
    try:
        check_threshold(args.lossy_threshold, "--lossy-threshold")
    except ValueError as exc:
        ap.error(str(exc))
    args.port = free_port()
    ref, t_ref, _ = run(args, use_p4reduce=False)
    args.port = free_port()
    got, t_got, (density, wire, dense, dropped, offered) = run(args, use_p4reduce=True)
    diff = max(abs(a - b) for a, b in zip(ref, got, strict=True))
    print(f"final loss: gloo {ref[-1]:.4f}  p4reduce {got[-1]:.4f}  max per-step difference {diff:.2e}")
    print(
        f"training time: gloo {t_ref:.2f} s  p4reduce {t_got:.2f} s; gradient block density "
        f"{density:.2%}, p4reduce sent {wire / 1e6:.1f} MB per worker vs {dense / 1e6:.1f} MB dense"
    )
    if args.lossy_threshold > 0:
        last = max(1, min(args.log_every, len(ref)))
        final_ref, final_got = sum(ref[-last:]) / last, sum(got[-last:]) / last
        print(
            f"lossy mode (threshold {args.lossy_threshold:g}): rank 0 dropped {dropped} of {offered} non-zero "
            f"blocks ({dropped / max(offered, 1):.1%}); final loss (mean of the last {last} steps) gloo "
            f"{final_ref:.4f}  p4reduce lossy {final_got:.4f}  difference {final_got - final_ref:+.4f} "
            f"(margin {args.lossy_margin})"
        )
        if abs(final_got - final_ref) > args.lossy_margin:
            print(f"FAIL: lossy final loss differs from gloo's by more than {args.lossy_margin}", file=sys.stderr)
            return 1
        return 0
    if diff > args.tolerance:
        print(f"FAIL: loss differs from gloo by more than {args.tolerance}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
