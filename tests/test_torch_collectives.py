# SPDX-License-Identifier: Apache-2.0
"""The collectives the "p4reduce" backend runs on its internal group (p4reduce.torch.fallback)
against gloo's results, bit for bit, and which path each call took (stats().paths).

One spawn of 2 ranks runs every check: the default group is p4reduce, a gloo group over the
same ranks gives the reference. CUDA variants need a GPU and skip without one.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'p4reduce[torch]')")
dist = pytest.importorskip("torch.distributed", reason="this PyTorch build has no torch.distributed")
if not dist.is_available():
    pytest.skip("this PyTorch build has no torch.distributed", allow_module_level=True)

from rank_checks import RankChecks, run_checks  # noqa: E402

import p4reduce.torch  # noqa: E402 - registers the backend (in the spawned ranks too)

WORLD = 2


def make(rank: int, shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(0 if dtype == torch.uint8 else -100, 100, shape, generator=g, dtype=dtype)


def same(got: object, ref: object) -> bool:
    if isinstance(got, list):
        return isinstance(ref, list) and len(got) == len(ref) and all(same(a, b) for a, b in zip(got, ref, strict=True))
    return isinstance(got, torch.Tensor) and got.dtype == ref.dtype and torch.equal(got, ref)


def on_both(call, gloo, *tensors):
    """`call(group, *copies)` on p4reduce (group None: the default) and on gloo, each on its
    own copies of `tensors` (lists of tensors too): both results."""

    def copy(x):
        return [copy(t) for t in x] if isinstance(x, list) else x.clone()

    ours, theirs = [copy(t) for t in tensors], [copy(t) for t in tensors]
    call(None, *ours)
    call(gloo, *theirs)
    return ours, theirs


# -- checks: each returns {what: ok} and runs on every rank in the same order ---------------
def check_reductions(rank, n, gloo, device):
    ops = {
        "MAX": (dist.ReduceOp.MAX, torch.float32),
        "MIN": (dist.ReduceOp.MIN, torch.float32),
        "PRODUCT": (dist.ReduceOp.PRODUCT, torch.float32),
        "BAND": (dist.ReduceOp.BAND, torch.int64),
        "BOR": (dist.ReduceOp.BOR, torch.int32),
        "BXOR": (dist.ReduceOp.BXOR, torch.uint8),
        "SUM float64": (dist.ReduceOp.SUM, torch.float64),
    }
    out = {}
    for seed, (name, (op, dtype)) in enumerate(ops.items()):
        x = make(rank, (5, 3), dtype, seed).to(device)
        ours, theirs = on_both(lambda g, t, op=op: dist.all_reduce(t, op=op, group=g), gloo, x)
        out[f"all_reduce {name}"] = same(ours, theirs)
        ours, theirs = on_both(lambda g, t, op=op: dist.reduce(t, dst=1, op=op, group=g), gloo, x)
        out[f"reduce {name}"] = rank != 1 or same(ours, theirs)  # other ranks' buffers: scratch
        big = make(rank, (n * 4,), dtype, seed + 50).to(device)
        ours, theirs = on_both(
            lambda g, o, i, op=op: dist.reduce_scatter_tensor(o, i, op=op, group=g),
            gloo,
            torch.empty(4, dtype=dtype),
            big,
        )
        out[f"reduce_scatter {name}"] = same(ours, theirs)
    # reduce always runs on the internal group, SUM too: gloo's own result
    x = make(rank, (7,), torch.float32, 99).to(device)
    ours, theirs = on_both(lambda g, t: dist.reduce(t, dst=0, group=g), gloo, x)
    out["reduce SUM"] = rank != 0 or same(ours, theirs)
    return out


def check_gather_scatter_all_to_all(rank, n, gloo, device):
    out = {}
    x = make(rank, (3, 2), torch.float32, 20).to(device)
    slots = [
        torch.zeros_like(x) for _ in range(n)
    ]  # zeros: a non-root rank compares them untouched (empty may hold NaN)
    ours, theirs = on_both(lambda g, t, s: dist.gather(t, s if rank == 0 else None, dst=0, group=g), gloo, x, slots)
    out["gather"] = same(ours, theirs) and (
        rank != 0 or same(ours[1], [make(r, (3, 2), torch.float32, 20).to(device) for r in range(n)])
    )
    pieces = [make(r, (4,), torch.int64, 21).to(device) for r in range(n)]
    ours, theirs = on_both(
        lambda g, o, p: dist.scatter(o, p if rank == 1 else None, src=1, group=g),
        gloo,
        torch.empty(4, dtype=torch.int64, device=device),
        pieces,
    )
    out["scatter"] = same(ours, theirs) and same(ours[0], pieces[rank])
    inputs = [make(rank * n + r, (3,), torch.float32, 22).to(device) for r in range(n)]
    outputs = [torch.empty(3, device=device) for _ in range(n)]  # gloo: one size
    ours, theirs = on_both(lambda g, o, i: dist.all_to_all(o, i, group=g), gloo, outputs, inputs)
    expected = [make(r * n + rank, (3,), torch.float32, 22).to(device) for r in range(n)]
    out["all_to_all"] = same(ours, theirs) and same(ours[0], expected)
    split_in, split_out = [1 + r for r in range(n)], [1 + rank] * n
    flat = make(rank, (sum(split_in),), torch.float32, 23).to(device)
    ours, theirs = on_both(
        lambda g, o, i: dist.all_to_all_single(o, i, split_out, split_in, group=g),
        gloo,
        torch.empty(sum(split_out), device=device),
        flat,
    )
    out["all_to_all_single"] = same(ours, theirs)
    x = make(rank, (6,), torch.float32, 24).to(device)
    ours, theirs = on_both(
        lambda g, o, i: dist.all_gather_coalesced(o, i, group=g),
        gloo,
        [[torch.empty(6, device=device)] for _ in range(n)],  # per rank: one per input
        [x],
    )
    out["all_gather_coalesced"] = same(ours, theirs)
    return out


def check_send_recv(rank, n, gloo, device):
    out = {}
    peer = (rank + 1) % n
    mine = make(rank, (5,), torch.float32, 30).to(device)
    got = torch.empty(5, device=device)
    # both ranks send first: the two paths' sends must not wait for each other's recv
    ops = [dist.P2POp(dist.isend, mine, peer), dist.P2POp(dist.irecv, got, peer)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    out["isend/irecv"] = same(got, make(peer, (5,), torch.float32, 30).to(device))
    if rank == 0:
        dist.send(mine, dst=1)
        src = dist.recv(got)  # from any source
        out["recv from any source"] = src == 1 and same(got, make(1, (5,), torch.float32, 30).to(device))
    else:
        dist.recv(got, src=0)
        out["send/recv"] = same(got, make(0, (5,), torch.float32, 30).to(device))
        dist.send(mine, dst=0)
    return out


def check_subgroup(rank, n, gloo, device):
    sub = dist.new_group(ranks=[1, 0], backend="p4reduce")  # group ranks differ from the world's
    t = torch.full((3,), float(rank + 2), device=device)
    dist.all_reduce(t, group=sub)  # the aggregator of the subgroup
    ok = {"subgroup all_reduce": torch.equal(t, torch.full((3,), 5.0, device=device))}
    t = torch.full((3,), float(rank + 2), device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=sub)  # its internal group
    ok["subgroup MAX"] = torch.equal(t, torch.full((3,), 3.0, device=device))
    paths = p4reduce.torch.stats(sub).report()["paths"]
    ok["subgroup paths"] = paths == {"all_reduce": {"p4reduce": 1, "gloo" if device.type == "cpu" else "nccl": 1}}
    dist.destroy_process_group(sub)
    return ok


def check_sparse(rank, n, gloo, device):
    """gloo's sparse all_reduce, and DDP over an nn.EmbeddingBag with sparse gradients."""
    if device.type != "cpu":
        return {}
    indices, values = torch.tensor([[0, 2 + rank, 7]]), torch.tensor([1.0, 2.0 + rank, -0.5 * rank])
    ours, theirs = on_both(
        lambda g, t: dist.all_reduce(t, group=g),
        gloo,
        torch.sparse_coo_tensor(indices, values, (10,), check_invariants=True),
    )
    out = {"sparse all_reduce": same(ours[0].coalesce().to_dense(), theirs[0].coalesce().to_dense())}
    weights = {}
    for name, group in (("p4reduce", None), ("gloo", gloo)):
        torch.manual_seed(0)
        model = torch.nn.parallel.DistributedDataParallel(
            torch.nn.EmbeddingBag(100, 4, sparse=True), process_group=group
        )
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        g = torch.Generator().manual_seed(rank)
        for _ in range(2):
            opt.zero_grad()
            model(torch.randint(0, 100, (8, 3), generator=g)).square().sum().backward()
            opt.step()
        weights[name] = model.module.weight.detach().clone()
    out["DDP with sparse gradients"] = same(weights["p4reduce"], weights["gloo"])
    return out


class Expert(torch.nn.Module):
    """A tiny MoE layer: each rank holds one expert; tokens go to their expert's rank and
    back by all_to_all_single (the same calls under both backends)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        torch.manual_seed(0)
        self.gate = torch.nn.Linear(4, n)
        self.expert = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, group) -> torch.Tensor:
        choice = self.gate(x).argmax(dim=1)
        order = torch.argsort(choice, stable=True)
        counts = torch.bincount(choice, minlength=self.n)
        sent = counts.tolist()
        received = torch.empty_like(counts)
        dist.all_to_all_single(received, counts, group=group)
        arrived = _Exchange.apply(x[order], received.tolist(), sent, group)
        back = _Exchange.apply(self.expert(arrived), sent, received.tolist(), group)
        y = torch.empty_like(back)
        y[order] = back
        return y * torch.softmax(self.gate(x), dim=1).max(dim=1, keepdim=True).values


class _Exchange(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, out_splits, in_splits, group):
        ctx.splits, ctx.group = (out_splits, in_splits), group
        out = x.new_empty(sum(out_splits), *x.shape[1:])
        dist.all_to_all_single(out, x.contiguous(), out_splits, in_splits, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        out_splits, in_splits = ctx.splits
        back = grad.new_empty(sum(in_splits), *grad.shape[1:])
        dist.all_to_all_single(back, grad.contiguous(), in_splits, out_splits, group=ctx.group)
        return back, None, None, None


def check_moe_trains_identically(rank, n, gloo, device):
    losses = {}
    for name, group in (("p4reduce", None), ("gloo", gloo)):
        model = Expert(n).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        g = torch.Generator().manual_seed(rank)
        losses[name] = []
        for _ in range(4):
            x, y = torch.randn(8, 4, generator=g).to(device), torch.randn(8, 4, generator=g).to(device)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x, group), y)
            loss.backward()  # no gradient sync: the exchange's backward is the check
            opt.step()
            losses[name].append(loss.item())
    return {"moe losses": losses["p4reduce"] == losses["gloo"] or str(losses)}


CHECKS = (
    check_reductions,
    check_gather_scatter_all_to_all,
    check_send_recv,
    check_subgroup,
    check_sparse,
    check_moe_trains_identically,
)


def scenario(rank: int, n: int, device_kind: str) -> dict[str, object]:
    return run_checks(rank, n, device_kind, CHECKS)


CHECKED = RankChecks(scenario, WORLD, {"P4REDUCE_FAILURE_TIMEOUT": "30"})


def test_every_collective_matches_gloo_on_cpu():
    assert not CHECKED.failures("cpu")


def test_stats_count_each_calls_path():
    for paths in (o["_report"]["paths"] for o in CHECKED.outcomes("cpu")):
        # the 7 non-aggregated reductions, the sparse one and DDP's 2 sparse gradients; the
        # SUM all_reduces ran on the subgroup (its own stats)
        assert paths["all_reduce"] == {"gloo": 7 + 1 + 2} and paths["reduce"] == {"gloo": 8}, paths
        for name in ("gather", "scatter", "all_to_all", "all_gather_coalesced", "send", "recv"):
            assert set(paths[name]) == {"gloo"}, (name, paths)
        assert paths["all_to_all_single"]["gloo"] == 1 + 2 * 8, paths  # one check + the MoE's counts


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (NCCL, or gloo on host copies)")
def test_every_collective_matches_gloo_on_cuda():
    assert not CHECKED.failures("cuda")
