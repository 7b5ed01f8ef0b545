# SPDX-License-Identifier: Apache-2.0
"""NaN and Inf in the sums the aggregator runs, and int32 sums beyond its input bound:
gloo's result, on every rank.

The aggregator's fixed point has no NaN or Inf; gloo's sum hands them on, and mixed-precision
training relies on that (GradScaler skips a step whose reduced gradients hold Inf). So a float
sum that holds one on any rank goes down the dense path on every rank (p4reduce.torch.policy,
`nonfinite_anywhere`), and the group goes on aggregating afterwards. One spawn of 2 ranks per
device runs every check with the threshold at 1.0 (every finite float32 all_reduce on the
aggregator), against a gloo group of the same ranks.

int32: the aggregator sums exactly what cannot overflow, |x| <= (2^31-1)//n per element;
gloo sums anything, wrapping around where the sum overflows. A sum with a larger element on
any rank goes to gloo on every rank (`beyond_int_bound_anywhere`): before, the rank that held
it raised OverflowError while the others waited out their failure timeout.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'p4reduce[torch]')")
dist = pytest.importorskip("torch.distributed", reason="this PyTorch build has no torch.distributed")
if not dist.is_available():
    pytest.skip("this PyTorch build has no torch.distributed", allow_module_level=True)

from rank_checks import RankChecks, run_checks  # noqa: E402

from p4reduce.torch.policy import holds_nonfinite  # noqa: E402

WORLD = 2
N = 100_000  # elements: many blocks, so that the bad ones lie past the worker's first scan chunk
INF, NAN = float("inf"), float("nan")


def exact(got: torch.Tensor, ref: torch.Tensor) -> bool | str:
    """The same values bit for bit, NaN where the reference has NaN."""
    try:
        torch.testing.assert_close(got.cpu(), ref.cpu(), rtol=0, atol=0, equal_nan=True)
    except AssertionError as exc:
        return str(exc)
    return True


def tensor_with(rank: int, dtype: torch.dtype, device: torch.device, bad: dict[int, tuple[int, float]]) -> torch.Tensor:
    """Random values of `dtype` with `bad` = {rank: (index, value)} written in on that rank."""
    g = torch.Generator().manual_seed(rank)
    t = torch.randn(N, generator=g).to(dtype)
    for r, (index, value) in bad.items():
        if r == rank:
            t[index] = value
    return t.to(device)


def check_all_reduce(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    out: dict[str, object] = {}
    cases = {
        "inf on one rank": {1: (70_000, INF)},
        "nan on one rank": {0: (99_999, NAN)},
        "inf and -inf at one place": {0: (80_000, -INF), 1: (80_000, INF)},
    }
    for name, bad in cases.items():
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            ours, theirs = tensor_with(rank, dtype, device, bad), tensor_with(rank, dtype, device, bad)
            dist.all_reduce(ours)
            dist.all_reduce(theirs, group=gloo)
            out[f"all_reduce {name} {dtype}"] = exact(ours, theirs)
    # AVG (gloo has none): gloo's SUM divided by the world size
    ours = tensor_with(rank, torch.float32, device, {1: (5, INF)})
    theirs = ours.clone()
    dist.all_reduce(ours, op=dist.ReduceOp.AVG)
    dist.all_reduce(theirs, group=gloo)
    out["all_reduce AVG"] = exact(ours, theirs / WORLD)
    # finite again: back on the aggregator, the group unharmed
    finite = torch.full((N,), float(rank + 1), device=device)
    dist.all_reduce(finite)
    out["finite all_reduce after"] = exact(finite, torch.full((N,), 3.0, device=device))
    return out


def check_reduce_scatter(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    big = tensor_with(rank, torch.float32, device, {1: (N - 3, INF), 0: (7, NAN)})
    ours = torch.empty(N // WORLD, device=device)
    theirs = torch.empty(N // WORLD, device=device)
    dist.reduce_scatter_tensor(ours, big.clone())
    dist.reduce_scatter_tensor(theirs, big.clone(), group=gloo)
    kept = big.clone()
    dist.reduce_scatter_tensor(torch.empty(N // WORLD, device=device), kept)
    return {"reduce_scatter_tensor": exact(ours, theirs), "reduce_scatter input unchanged": exact(kept, big)}


def train_with_scaler(rank: int, group: object, device: torch.device) -> tuple[list[float], list[torch.Tensor]]:
    """Four DDP steps under GradScaler; at the third, rank 1's loss (so its gradients) is
    Inf: every rank must skip that step and halve the scale. The scales, and the weights."""
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).to(device),
        process_group=group,
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler(device.type, init_scale=1024.0)
    g = torch.Generator().manual_seed(rank)
    scales = []
    for step in range(4):
        x = torch.randn(16, 64, generator=g).to(device)
        optimizer.zero_grad()
        loss = model(x).square().mean()
        if step == 2 and rank == 1:
            loss = loss * INF
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, [p.detach().cpu().clone() for p in model.parameters()]


def check_grad_scaler(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    ours, weights = train_with_scaler(rank, None, device)
    theirs, gloo_weights = train_with_scaler(rank, gloo, device)
    # the finite steps went through the aggregator's fixed point: close to gloo, not bit for bit
    close = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(weights, gloo_weights, strict=True))
    everywhere = [torch.zeros(1) for _ in range(WORLD)]
    dist.all_gather(everywhere, torch.tensor([float(sum(w.double().sum() for w in weights))]), group=gloo)
    return {
        "GradScaler skips the step on every rank": ours == theirs and ours[2] == ours[1] / 2 or str((ours, theirs)),
        "weights as under gloo": close,
        "weights the same on every rank": bool(everywhere[0] == everywhere[1]),
    }


def check_overflow(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    """Finite values whose sum is beyond the dtype's range: +-Inf there, as gloo's sum."""
    out: dict[str, object] = {}
    for dtype, big in ((torch.float32, 3e38), (torch.float16, 60000.0), (torch.bfloat16, 3e38)):
        x = with_big_values(rank, dtype, device, {12_345: big, 99_000: -big})
        ours, theirs = x.clone(), x.clone()
        dist.all_reduce(ours)
        dist.all_reduce(theirs, group=gloo)
        out[f"all_reduce overflow {dtype}"] = close(ours, theirs, 1e-5 if dtype == torch.float32 else 1e-2)
    big = with_big_values(rank, torch.float32, device, {N - 1: 3e38, 3: -3e38})
    ours, theirs = torch.empty(N // WORLD, device=device), torch.empty(N // WORLD, device=device)
    dist.reduce_scatter_tensor(ours, big.clone())
    dist.reduce_scatter_tensor(theirs, big.clone(), group=gloo)
    out["reduce_scatter overflow"] = close(ours, theirs, 1e-5)
    return out


def check_int32_beyond_the_bound(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    """An element beyond (2^31-1)//n on one rank (the sum fits), on both (it wraps around in
    gloo), and reduce_scatter: gloo's sums bit for bit; then the aggregator again."""
    out: dict[str, object] = {}
    big = 2**31 // n + 5
    for name, values in (("one rank, the sum fits", {0: big}), ("every rank, the sum wraps", {0: big, 1: big})):
        x = torch.arange(N, dtype=torch.int32, device=device) % 1000 - 500
        x[N // 2] = values.get(rank, 0)
        ours, theirs = x.clone(), x.clone()
        dist.all_reduce(ours)
        dist.all_reduce(theirs, group=gloo)
        out[f"int32 all_reduce, {name}"] = exact(ours, theirs)
    x = torch.full((N,), rank, dtype=torch.int32, device=device)
    x[-1] = -big if rank == 1 else 0
    ours, theirs = torch.empty(N // n, dtype=torch.int32, device=device), torch.empty_like(x[: N // n])
    dist.reduce_scatter_tensor(ours, x.clone())
    dist.reduce_scatter_tensor(theirs, x.clone(), group=gloo)
    out["int32 reduce_scatter"] = exact(ours, theirs)
    fits = torch.full((N,), 2**30 // n, dtype=torch.int32, device=device)
    dist.all_reduce(fits)
    out["int32 within the bound after"] = exact(
        fits, torch.full((N,), n * (2**30 // n), dtype=torch.int32, device=device)
    )
    return out


def check_device_branch_on_cpu(rank: int, n: int, gloo: object, device: torch.device) -> dict[str, object]:
    """The GPU path's code (the backend's _device_sum, p4reduce.torch.device) on CPU tensors,
    sent down it as on a device: NaN, and a sum beyond float32's range."""
    if device.type != "cpu":
        return {}  # a device tensor takes it anyway (check_all_reduce, check_overflow)
    from p4reduce.torch import device as device_path

    real, device_path.on_device = device_path.on_device, lambda t: True
    try:
        out: dict[str, object] = {}
        wide = torch.zeros(N, dtype=torch.int32, device=device)
        wide[7] = 2**31 // n + 5 if rank == 1 else 0
        for name, x in (
            ("nan", tensor_with(rank, torch.float32, device, {1: (70_000, NAN)})),
            ("overflow", with_big_values(rank, torch.float32, device, {12_345: 3e38, 99_000: -3e38})),
            ("int32 beyond the bound", wide),
        ):
            ours, theirs = x.clone(), x.clone()
            dist.all_reduce(ours)
            dist.all_reduce(theirs, group=gloo)
            out[f"device branch {name}"] = close(ours, theirs, 1e-5) if name == "overflow" else exact(ours, theirs)
        return out
    finally:
        device_path.on_device = real


def with_big_values(rank: int, dtype: torch.dtype, device: torch.device, big: dict[int, float]) -> torch.Tensor:
    """Random values with `big` = {index: value} written on every rank, alone in their block
    (a block is summed at the exponent of its largest value: beside one near the dtype's
    range, the others would be within the fixed point's bound, not gloo's rounding)."""
    t = tensor_with(rank, dtype, device, {})
    for index, value in big.items():
        start = index - index % 256
        t[start : start + 256] = 0
        t[index] = value
    return t


def close(got: torch.Tensor, ref: torch.Tensor, tolerance: float) -> bool | str:
    """+-Inf where the reference has them, the finite sums within `tolerance`."""
    if not torch.equal(torch.isinf(got) & (got > 0), torch.isinf(ref) & (ref > 0)):
        return "+Inf elsewhere than gloo's"
    if not torch.equal(torch.isinf(got) & (got < 0), torch.isinf(ref) & (ref < 0)):
        return "-Inf elsewhere than gloo's"
    if not torch.isinf(ref).any():
        return "the reference holds no Inf: nothing overflowed"
    finite = torch.isfinite(ref)
    a, b = got[finite].float().cpu(), ref[finite].float().cpu()
    return bool(torch.allclose(a, b, rtol=tolerance, atol=tolerance)) or "finite sums differ"


CHECKS = (
    check_all_reduce,
    check_reduce_scatter,
    check_overflow,
    check_int32_beyond_the_bound,
    check_device_branch_on_cpu,
    check_grad_scaler,
)


def scenario(rank: int, n: int, device_kind: str) -> dict[str, object]:
    return run_checks(rank, n, device_kind, CHECKS)


CHECKED = RankChecks(scenario, WORLD, {"P4REDUCE_DENSE_THRESHOLD": "1.0", "P4REDUCE_FAILURE_TIMEOUT": "30"})


def test_nan_and_inf_sum_as_gloo_sums_them_on_cpu():
    assert not CHECKED.failures("cpu")


def test_stats_count_the_sums_that_held_nan_or_inf():
    for outcome in CHECKED.outcomes("cpu"):
        # 3 cases x 3 dtypes + AVG, 2 reduce_scatters with NaN/Inf, the device branch's NaN, and
        # the GradScaler's step 2
        assert outcome["_report"]["policy"]["nonfinite_calls"] == 9 + 1 + 2 + 1 + 1, outcome["_report"]["policy"]
        assert outcome["_report"]["paths"]["all_reduce"]["gloo"] >= 9 + 1 + 1 + 1, outcome["_report"]["paths"]
        # 2 all_reduces, a reduce_scatter and the device branch's
        assert outcome["_report"]["policy"]["int_bound_calls"] == 2 + 1 + 1, outcome["_report"]["policy"]


def test_holds_nonfinite_finds_each_kind_anywhere():
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        assert not holds_nonfinite(torch.zeros(0, dtype=dtype), 256)
        assert not holds_nonfinite(torch.randn(1000).to(dtype), 256)
        for value in (INF, -INF, NAN):
            for index in (0, 255, 256, 999):  # block edges, and the cut last block
                t = torch.randn(1000).to(dtype)
                t[index] = value
                assert holds_nonfinite(t, 256), (dtype, value, index)
    strided = torch.randn(2000)[::2].clone()
    strided[3] = NAN
    assert holds_nonfinite(strided[::1], 256) and holds_nonfinite(torch.randn(2000)[::2].fill_(INF), 256)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_nan_and_inf_sum_as_gloo_sums_them_on_cuda():
    assert not CHECKED.failures("cuda")
