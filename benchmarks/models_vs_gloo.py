#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Three models trained with DDP under gloo and under "p4reduce", side by side, in one run.

2 workers on this machine (CPU), p4reduce through its embedded software aggregator with
the path policy (p4reduce.torch.policy) as configured: calibrated, or --dense-threshold.

* dense: an MLP, no embedding (every gradient bucket dense);
* embedding: DLRM-like, a big nn.EmbeddingBag read at a few rows per sample, whose dense
  gradient is mostly zero blocks, under a small MLP;
* mixed: a smaller embedding under a bigger MLP.

The variants of a model (no exchange, DDP without exchange, gloo, p4reduce) train side by
side in the same two processes, one step of each in turn, and a run's speed-up is its own
gloo step over its own p4reduce step. Per model and backend: median time per step after
warm-up, and bytes per step per rank (gloo: the gradient bytes, what its ring allreduce
sends per rank with 2 workers; p4reduce: the aggregator path's wire bytes plus the dense
path's gradient bytes).

    python3 benchmarks/models_vs_gloo.py --steps 30 --markdown
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.distributed as dist
from _report import MarkdownReport, add_markdown_option, emit_row
from torch import nn

import p4reduce.torch  # registers the backend (in the spawned ranks too)
from p4reduce.torch.launch import run_ranks

BATCH = 128
ROWS_PER_SAMPLE = 4


class Recommender(nn.Module):
    """DLRM-like: summed embedding rows of a few ids per sample under an MLP."""

    def __init__(self, rows: int, dim: int, hidden: int) -> None:
        super().__init__()
        self.embedding = nn.EmbeddingBag(rows, dim, mode="sum")  # dense gradient, mostly zero
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.mlp(self.embedding(ids)))


def build(name: str) -> nn.Module:
    if name == "dense":
        return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 1))
    if name == "embedding":
        return Recommender(rows=400_000, dim=32, hidden=64)
    if name == "mixed":
        return Recommender(rows=200_000, dim=32, hidden=1024)
    raise ValueError(name)


def batch(name: str, model: nn.Module, g: torch.Generator) -> torch.Tensor:
    if name == "dense":
        return torch.randn(BATCH, 512, generator=g)
    rows = model.embedding.num_embeddings  # type: ignore[union-attr]
    return torch.randint(0, rows, (BATCH, ROWS_PER_SAMPLE), generator=g)


def _exchange_nothing(state, bucket):  # type: ignore[no-untyped-def]  # DDP refuses a hook whose annotation is a string
    """A DDP communication hook that hands every bucket back as it is."""
    done: torch.futures.Future[torch.Tensor] = torch.futures.Future()
    done.set_result(bucket.buffer())
    return done


VARIANTS = ("none", "ddp", "gloo", "p4reduce")


def train(rank: int, world: int, name: str, steps: int, warmup: int, bucket_view: bool) -> dict[str, object]:
    """The four variants of the model, side by side in the same two processes, one step of
    each in turn (the order turns with the step), so that whatever slows a process or the
    machine for a while slows all four alike: one run's step time moves by 10-30% from one
    set of processes to the next on a 2-CPU host, far more than the difference measured.

    "none": the same steps on every rank at once without DDP, no gradient exchanged: the
    time a step takes on this machine whatever the collective. "ddp": under DDP (gloo's
    group) with a hook that exchanges nothing: DDP's own cost (its bucket copies) added,
    what a step under DDP takes whatever the collective. "gloo" and "p4reduce": under DDP
    on a group of that backend (the default group is gloo's; p4reduce's is a new group of
    the same ranks, with its embedded aggregator)."""
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        groups = {"ddp": None, "gloo": None, "p4reduce": dist.new_group(backend="p4reduce")}
        models: dict[str, nn.Module] = {}
        for variant in VARIANTS:
            torch.manual_seed(0)  # the same weights in every variant
            model = build(name)
            if variant != "none":
                model = nn.parallel.DistributedDataParallel(
                    model, process_group=groups[variant], gradient_as_bucket_view=bucket_view
                )
            if variant == "ddp":
                model.register_comm_hook(None, _exchange_nothing)
            models[variant] = model
        optimizers = {v: torch.optim.SGD(m.parameters(), lr=1e-3) for v, m in models.items()}
        inputs = torch.Generator().manual_seed(rank)
        grad_bytes = sum(p.numel() * p.element_size() for p in models["none"].parameters())
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        sent = 0
        for step in range(warmup + steps):
            if step == warmup:
                s = p4reduce.torch.stats(groups["p4reduce"])
                sent = -(s.totals.wire_bytes_sent + s.policy.dense_bytes)
            x = batch(name, models["none"], inputs)
            turn = step % len(VARIANTS)
            for variant in VARIANTS[turn:] + VARIANTS[:turn]:
                model, optimizer = models[variant], optimizers[variant]
                start = time.perf_counter()
                optimizer.zero_grad()
                model(x).square().mean().backward()
                optimizer.step()
                times[variant].append(time.perf_counter() - start)
        s = p4reduce.torch.stats(groups["p4reduce"])
        sent += s.totals.wire_bytes_sent + s.policy.dense_bytes
        return dict(
            step_s={v: statistics.median(t[warmup:]) for v, t in times.items()},
            params=grad_bytes // 4,
            gloo_bytes=grad_bytes,
            p4reduce_bytes=sent / steps,
            threshold=s.policy.threshold,
            paths=(s.policy.aggregator_calls, s.policy.dense_calls),
        )
    finally:
        dist.destroy_process_group()


def _step_s(ranks: list[dict[str, object]], variant: str) -> float:
    """A run's step time of `variant`: a step ends when the slower rank's does."""
    return max(float(r["step_s"][variant]) for r in ranks)  # type: ignore[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="dense,embedding,mixed")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--dense-threshold", default="", help="P4REDUCE_DENSE_THRESHOLD (default: calibrated)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="runs per model (each a new pair of processes training every variant in turns); the "
        "table gives the median over runs of each step time and of each run's own speed-up",
    )
    parser.add_argument(
        "--bucket-view",
        action="store_true",
        help="DDP(gradient_as_bucket_view=True) in every DDP variant: the gradients are views of the "
        "buckets, which DDP then neither copies in nor out",
    )
    add_markdown_option(parser)
    args = parser.parse_args()
    env = {"P4REDUCE_DENSE_THRESHOLD": args.dense_threshold} if args.dense_threshold else {}
    columns = [
        "model",
        "parameters",
        "no exchange ms/step",
        "DDP, no exchange ms/step",
        "gloo ms/step",
        "p4reduce ms/step",
        "speed-up",
        "gloo MB/step",
        "p4reduce MB/step",
        "policy: aggregator/dense calls",
        "threshold",
    ]
    report = MarkdownReport(columns) if args.markdown else None
    if report is None:
        emit_row(None, columns)
    for name in args.models.split(","):
        runs = [
            run_ranks(train, 2, args=(name, args.steps, args.warmup, args.bucket_view), env=env, timeout=900)
            for _ in range(args.repeats)
        ]
        alone_s, ddp_s, g_s, p_s = (statistics.median(_step_s(r, v) for r in runs) for v in VARIANTS)
        # Each run's own ratio (its gloo and p4reduce steps taken in turn): their median.
        speedup = statistics.median(_step_s(r, "gloo") / _step_s(r, "p4reduce") for r in runs)
        last = runs[-1][0]  # bytes per step: the same in every run
        calls = last["paths"]
        emit_row(
            report,
            [
                name,
                f"{last['params'] / 1e6:.1f} M",
                f"{alone_s * 1e3:.1f}",
                f"{ddp_s * 1e3:.1f}",
                f"{g_s * 1e3:.1f}",
                f"{p_s * 1e3:.1f}",
                f"{speedup:.2f}x",
                f"{last['gloo_bytes'] / 1e6:.1f}",
                f"{last['p4reduce_bytes'] / 1e6:.1f}",
                f"{calls[0]}/{calls[1]}",
                f"{last['threshold']:.2f}",
            ],
        )
    if report is not None:
        report.end(
            [
                f"2 workers, CPU, one thread each, embedded software aggregator (loopback UDP); batch {BATCH}, "
                f"{ROWS_PER_SAMPLE} embedding rows per sample; step time (forward, backward, allreduce, SGD step): "
                f"the median over {args.steps} steps after {args.warmup} warm-up steps, of the slower rank, the "
                f"median of {args.repeats} runs. In a run, the four variants train side by side in the same two "
                "processes, one step of each in turn; the speed-up is the median over runs of each run's own "
                "gloo step over its p4reduce step. The threshold is "
                + (f"set ({args.dense_threshold})." if args.dense_threshold else "the one calibrated at start")
                + " (of the last run, as its policy's calls).",
                "No exchange: the same steps on both ranks at once, without DDP and without any collective. "
                "DDP, no exchange: under DDP with a communication hook that hands every bucket back as it is "
                + (
                    "(DDP(gradient_as_bucket_view=True) in every DDP variant: the gradients are views of the "
                    "buckets, so DDP copies none of them in or out)."
                    if args.bucket_view
                    else "(DDP still copies each gradient into its bucket and back)."
                )
                + " No backend's step under DDP can be faster, so no speed-up over gloo can exceed gloo's time "
                "over it.",
            ]
        )


if __name__ == "__main__":
    main()
