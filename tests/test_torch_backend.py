# SPDX-License-Identifier: Apache-2.0
"""The "p4reduce" torch.distributed backend (p4reduce.torch) against gloo.

Each scenario spawns its ranks once: the default group is p4reduce, a gloo group over
the same ranks gives the reference, and every check runs the same collective on both
(plus an exact float64 / integer reference where gloo itself rounds). Blocks of 4 values
and 3 slots put shard boundaries inside blocks and make streams wrap. Skipped without
PyTorch.
"""

from __future__ import annotations

import math
import traceback

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'p4reduce[torch]')")
dist = pytest.importorskip("torch.distributed", reason="this PyTorch build has no torch.distributed")
if not dist.is_available():
    pytest.skip("this PyTorch build has no torch.distributed", allow_module_level=True)

import numpy as np  # noqa: E402

import p4reduce.torch  # noqa: E402 - registers the backend (in the spawned ranks too)
from p4reduce.torch.codec import SumCodec, decode_bytes, encode_bytes, lane_bits, placement_array  # noqa: E402
from p4reduce.torch.launch import run_ranks  # noqa: E402
from p4reduce.torch.options import Options  # noqa: E402

SMALL_GEOMETRY = {"P4REDUCE_BLOCK_SIZE": "4", "P4REDUCE_SLOTS": "3", "P4REDUCE_FAILURE_TIMEOUT": "30"}


# -- inputs every rank can rebuild for every other rank ------------------------------------
def make(rank: int, shape: tuple[int, ...], dtype: torch.dtype, seed: int, zero_ranks: tuple[int, ...] = ()):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    if rank in zero_ranks:
        return torch.zeros(shape, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float64) * 10 ** torch.randint(-3, 4, shape, generator=g)
        x[torch.rand(shape, generator=g) < 0.3] = 0  # some zero values (and zero blocks)
        return x.to(dtype)
    info = torch.iinfo(dtype)
    if dtype == torch.int32:  # p4reduce's int32 input bound for 3 workers
        low, high = -(2**31 - 1) // 3, (2**31 - 1) // 3
    else:
        low, high = info.min, info.max
    return torch.randint(low, high, shape, generator=g, dtype=dtype)


_problems: list[str] = []


def expect(condition: object, message: object = "") -> None:
    """A soft assert: a rank that failed a comparison must still issue every later
    collective of the check, or the ranks fall apart (p4reduce would then fail the job)."""
    if not condition:
        _problems.append(f"{traceback.format_stack(limit=2)[0].strip()}\n  {message}")


def fixed_point_atol(inputs: list[torch.Tensor]) -> float:
    """docs/protocol.md section 5: n * 2^(e + ceil(log2 n) - 31), e bounding every block's values."""
    n = len(inputs)
    biggest = max(float(x.abs().max()) if x.numel() else 0.0 for x in inputs)
    if biggest == 0:
        return 0.0
    e = math.frexp(biggest)[1]
    return n * 2.0 ** (e + (n - 1).bit_length() - 31)


def close_to_sum(got, gloo, inputs, average=False, whole=None):
    """`got` within the fixed-point bound of the exact sum of `inputs` (and of gloo's result);
    `whole`: the ranks' complete tensors when `inputs` are shards of them (blocks span shards,
    so the bound comes from the whole tensor)."""
    n = len(inputs)
    exact = sum(x.double() for x in inputs)
    if average:
        exact = exact / n
    atol = fixed_point_atol(whole or inputs) / (n if average else 1)
    expect(got.dtype == gloo.dtype and got.shape == gloo.shape, (got.dtype, gloo.dtype, got.shape, gloo.shape))
    expect(
        torch.allclose(got.double(), exact, rtol=2**-23, atol=atol),
        f"off the exact sum by {_maxdiff(got, exact):g} (bound {atol:g})",
    )
    slack = atol + n * 2.0**-23 * float(exact.abs().max() if exact.numel() else 0)
    expect(torch.allclose(got.double(), gloo.double(), rtol=2**-22, atol=slack), f"off gloo by {_maxdiff(got, gloo):g}")


def _maxdiff(a, b) -> float:
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


# -- the checks (each runs on every rank, in the same order) ---------------------------
def check_all_reduce_float32(rank, n, gloo):
    for seed, shape in ((1, (5, 7)), (2, (1,)), (3, (4, 4)), (4, (13,))):
        inputs = [make(r, shape, torch.float32, seed) for r in range(n)]
        for average in (False, True):
            op = dist.ReduceOp.AVG if average else dist.ReduceOp.SUM
            got, ref = inputs[rank].clone(), inputs[rank].clone()
            dist.all_reduce(got, op=op)
            dist.all_reduce(ref, op=op, group=gloo)
            close_to_sum(got, ref, inputs, average)


def check_all_reduce_exact_dtypes(rank, n, gloo):
    for seed, dtype in enumerate((torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8, torch.bool)):
        inputs = [make(r, (3, 5), dtype, seed) for r in range(n)]
        expected = inputs[0].clone()
        for x in inputs[1:]:  # the dtype's own (wrapping) sum; bool: or
            expected = expected | x if dtype == torch.bool else expected + x
        got = inputs[rank].clone()
        dist.all_reduce(got)
        expect(got.dtype == dtype and torch.equal(got, expected), (dtype, got, expected))
        if dtype != torch.int16:  # gloo has no int16 ("Invalid scalar type")
            ref = inputs[rank].clone()
            dist.all_reduce(ref, group=gloo)
            expect(torch.equal(got, ref), (dtype, got, ref))


def check_all_reduce_half_precision(rank, n, gloo):
    for dtype in (torch.float16, torch.bfloat16):
        got = make(rank, (11,), torch.float32, 7).clamp(-100, 100).to(dtype)
        ref = got.clone()
        dist.all_reduce(got)
        dist.all_reduce(ref, group=gloo)
        # p4reduce rounds once to the dtype, gloo after every addition: a couple of ulps apart
        expect(got.dtype == dtype and torch.allclose(got.float(), ref.float(), rtol=2e-2, atol=1e-2))


def check_all_reduce_zero_empty_noncontiguous(rank, n, gloo):
    zero = torch.zeros(9)
    dist.all_reduce(zero)
    expect(torch.equal(zero, torch.zeros(9)))
    empty = torch.zeros(0, 3)
    dist.all_reduce(empty)
    expect(empty.shape == (0, 3))
    inputs = [make(r, (6, 5), torch.float32, 11) for r in range(n)]
    base = inputs[rank].clone()
    view = base.t()  # not contiguous: reduced through a copy and written back
    ref = view.contiguous()
    dist.all_reduce(view)
    dist.all_reduce(ref, group=gloo)
    close_to_sum(view.contiguous(), ref, [x.t() for x in inputs])


def check_async_work_and_order(rank, n, gloo):
    tensors = [torch.full((k + 1,), float(rank + k)) for k in range(8)]
    works = [dist.all_reduce(t, async_op=True) for t in tensors]
    expect(all(isinstance(w, dist.Work) for w in works))
    futures = [w.get_future() for w in works]
    for k in reversed(range(8)):  # waited in any order, they ran in call order
        works[k].wait()
        expect(works[k].is_completed())
        expected = torch.full((k + 1,), float(sum(r + k for r in range(n))))
        expect(torch.equal(tensors[k], expected))
        (value,) = futures[k].wait()
        expect(value is tensors[k] or torch.equal(value, expected))


def check_reduce_scatter(rank, n, gloo):
    cases = [
        (1, 7, torch.float32, ()),
        (2, 7, torch.int32, ()),
        (3, 5, torch.float32, (1,)),
        (4, 0, torch.float32, ()),
        (5, 9, torch.int64, ()),
        (9, 6, torch.float32, "shard 1"),
        (10, 3, torch.int32, "shard 1"),
    ]
    for seed, shard, dtype, zero_ranks in cases:
        if zero_ranks == "shard 1":  # shard 1 is zero on every rank: its owner gets zeros
            inputs = [make(r, (n * shard,), dtype, seed) for r in range(n)]
            for x in inputs:
                x[shard : 2 * shard] = 0
        else:
            inputs = [make(r, (n * shard,), dtype, seed, zero_ranks) for r in range(n)]
        ops = [dist.ReduceOp.SUM, dist.ReduceOp.AVG] if dtype.is_floating_point else [dist.ReduceOp.SUM]
        for op in ops:
            got, ref = torch.full((shard,), -1, dtype=dtype), torch.zeros(shard, dtype=dtype)
            before = inputs[rank].clone()
            dist.reduce_scatter_tensor(got, inputs[rank], op=op)
            dist.reduce_scatter_tensor(ref, inputs[rank].clone(), op=op, group=gloo)
            expect(torch.equal(inputs[rank], before), "the input must not change")
            if dtype.is_floating_point:
                mine = [x[rank * shard : (rank + 1) * shard] for x in inputs]
                close_to_sum(got, ref, mine, op == dist.ReduceOp.AVG, whole=inputs)
            else:
                expect(torch.equal(got, ref))
    # Converted dtypes, which gloo's reduce_scatter refuses: bfloat16 against gloo's all_reduce
    # (p4reduce rounds once to the dtype, gloo after every addition), int16 exactly, wrapping.
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG):
        inputs = [make(r, (n * 6,), torch.float32, 12).clamp(-100, 100).to(torch.bfloat16) for r in range(n)]
        got, full = torch.zeros(6, dtype=torch.bfloat16), inputs[rank].clone()
        dist.reduce_scatter_tensor(got, inputs[rank], op=op)
        dist.all_reduce(full, group=gloo)
        ref = full[rank * 6 : (rank + 1) * 6].float() / (n if op == dist.ReduceOp.AVG else 1)
        expect(got.dtype == torch.bfloat16 and torch.allclose(got.float(), ref, rtol=2e-2, atol=1e-2), (got, ref))
    inputs = [make(r, (n * 5,), torch.int16, 13) for r in range(n)]
    got = torch.zeros(5, dtype=torch.int16)
    dist.reduce_scatter_tensor(got, inputs[rank])
    exact = np.sum([x.numpy().astype(np.int64) for x in inputs], axis=0).astype(np.int16)  # wraps
    expect(torch.equal(got, torch.from_numpy(exact[rank * 5 : (rank + 1) * 5])), got)
    # the list form, stacked input of shape (n, 3)
    stacked = make(rank, (n, 3), torch.float32, 6)
    got, ref = torch.zeros(3), torch.zeros(3)
    dist.reduce_scatter(got, list(stacked.clone()))
    dist.reduce_scatter(ref, list(stacked.clone()), group=gloo)
    stacks = [make(r, (n, 3), torch.float32, 6) for r in range(n)]
    close_to_sum(got, ref, [x[rank] for x in stacks], whole=stacks)


def check_reduce_scatter_owner_only(rank, n, gloo):
    """Only the owner of a shard receives its values: rank 1, whose shard is zero everywhere,
    receives headers only (both engines of the embedded aggregator)."""
    shard = 40
    inputs = [make(r, (n * shard,), torch.float32, 11) for r in range(n)]
    for x in inputs:
        x[shard : 2 * shard] = 0
    got, ref = torch.zeros(shard), torch.zeros(shard)
    pg = dist.distributed_c10d._get_default_group()
    before = pg.agent.last_stats
    dist.reduce_scatter_tensor(got, inputs[rank])
    stats = pg.agent.last_stats
    dist.reduce_scatter_tensor(ref, inputs[rank].clone(), group=gloo)
    close_to_sum(got, ref, [x[rank * shard : (rank + 1) * shard] for x in inputs], whole=inputs)
    expect(stats is not before)
    value_bytes = stats.payload_bytes_received - 36 * stats.packets_received
    expect((value_bytes == 0) == (rank == 1), (rank, value_bytes))


def check_all_gather(rank, n, gloo):
    cases = [
        (1, (7,), torch.float32, ()),
        (2, (7,), torch.int32, ()),
        (3, (3, 2), torch.float64, ()),
        (4, (5,), torch.bfloat16, ()),
        (5, (6,), torch.float32, (0,)),
        (6, (0,), torch.float32, ()),
        (7, (4,), torch.bool, ()),
        (8, (9,), torch.int64, (n - 1,)),
    ]

    def shard(r, shape, dtype, seed, zero_ranks):
        x = make(r, shape, dtype, seed, zero_ranks)
        if r == 0 and dtype.is_floating_point and x.numel():
            x.view(-1)[0] = -0.0  # bits, not values, travel
        return x

    for seed, shape, dtype, zero_ranks in cases:
        mine = shard(rank, shape, dtype, seed, zero_ranks)
        got = torch.empty((n * shape[0],) + shape[1:], dtype=dtype)
        dist.all_gather_into_tensor(got, mine)
        expected = torch.cat([shard(r, shape, dtype, seed, zero_ranks) for r in range(n)])
        if dtype not in (torch.bool, torch.bfloat16):  # and gloo agrees
            ref = torch.empty_like(got)
            dist.all_gather_into_tensor(ref, mine.clone(), group=gloo)
            expect(torch.equal(ref, expected))
        as_bytes = (lambda t: t) if dtype == torch.bool else (lambda t: t.reshape(-1).view(torch.uint8))
        expect(torch.equal(as_bytes(got), as_bytes(expected)), (dtype, got, expected))
    # stacked output form and the list form
    mine = make(rank, (5,), torch.float32, 9)
    got, ref = torch.empty(n, 5), torch.empty(n * 5)  # gloo takes only the concatenated form
    dist.all_gather_into_tensor(got, mine)
    dist.all_gather_into_tensor(ref, mine.clone(), group=gloo)
    expect(torch.equal(got.view(-1), ref))
    outs, refs = [torch.empty(5) for _ in range(n)], [torch.empty(5) for _ in range(n)]
    dist.all_gather(outs, mine)
    dist.all_gather(refs, mine.clone(), group=gloo)
    expect(all(torch.equal(a, b) for a, b in zip(outs, refs, strict=True)))


def check_broadcast_and_barrier(rank, n, gloo):
    for seed, (shape, dtype) in enumerate(
        (((7,), torch.float32), ((2, 3), torch.int64), ((5,), torch.float64), ((3,), torch.bool))
    ):
        for src in (0, n - 1):
            got = make(rank, shape, dtype, seed)
            dist.broadcast(got, src=src)
            expect(torch.equal(got, make(src, shape, dtype, seed)), (dtype, src))
    zero = torch.zeros(4)
    dist.broadcast(zero, src=1)
    expect(torch.equal(zero, torch.zeros(4)))
    dist.barrier()
    dist.barrier(async_op=True).wait()


def check_subgroup_and_parameters(rank, n, gloo):
    members = list(range(1, n))  # a group of its own, with its own embedded aggregator
    sub = dist.new_group(ranks=members, backend="p4reduce")
    if rank in members:
        t = torch.full((5,), float(rank))
        dist.all_reduce(t, group=sub)
        expect(torch.equal(t, torch.full((5,), float(sum(members)))), t)
        out = torch.empty(2 * len(members))
        dist.all_gather_into_tensor(out, torch.full((2,), float(rank)), group=sub)
        expect(torch.equal(out, torch.tensor([float(r) for r in members for _ in range(2)])), out)
        dist.destroy_process_group(sub)
    weight = torch.nn.Parameter(torch.ones(3))  # requires grad: written in place all the same
    dist.all_reduce(weight)
    dist.broadcast(weight, src=0)
    expect(torch.equal(weight.detach(), torch.full((3,), float(n))), weight)


def check_errors_name_the_operation(rank, n, gloo):
    # (reduce, gather, MAX, float64 sums, ...: the internal group's, tests/test_torch_collectives.py)
    with pytest.raises(TypeError, match="AVG.*int32"):
        dist.all_reduce(torch.ones(3, dtype=torch.int32), op=dist.ReduceOp.AVG)
    with pytest.raises(ValueError, match="elements"):
        dist.reduce_scatter_tensor(torch.empty(2), torch.ones(2 * n + 1))
    # A failure inside a collective (here on every rank alike, before anything is sent)
    # reaches wait().
    policy = dist.distributed_c10d._get_default_group().policy

    def fail(local: bool) -> bool:
        raise ConnectionError("injected: the dense group is gone")

    policy.beyond_int_bound_anywhere = fail  # an int32 sum's first step on the communication thread
    try:
        work = dist.all_reduce(torch.full((3,), 7, dtype=torch.int32), async_op=True)
        with pytest.raises(ConnectionError, match="injected"):
            work.wait()
    finally:
        del policy.beyond_int_bound_anywhere
    expect(work.is_completed() and not work.is_success())
    again = torch.ones(2)
    dist.all_reduce(again)  # the group goes on
    expect(torch.equal(again, torch.full((2,), float(n))))


def check_a_failed_bucket_fails_ddps_backward(rank, n, gloo):
    """A bucket whose allreduce fails raises from backward() on every rank (DDP reads the
    Work's Future in C++: the error must be the Future's error, not its value, which crashed
    the process), and the group goes on."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    policy = dist.distributed_c10d._get_default_group().policy

    def fail(flat: torch.Tensor) -> bool:
        raise ConnectionError("injected: the aggregator is gone")

    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(4, 1))
    policy.use_dense = fail  # the first step of a float32 all_reduce on the communication thread
    try:
        with pytest.raises(RuntimeError, match="ConnectionError: injected"):
            model(torch.ones(2, 4)).sum().backward()
    finally:
        del policy.use_dense
    again = torch.ones(2)
    dist.all_reduce(again)
    expect(torch.equal(again, torch.full((2,), float(n))))


def check_ddp_matches_gloo(rank, n, gloo):
    from torch.nn.parallel import DistributedDataParallel as DDP

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Embedding(300, 8), torch.nn.Flatten(), torch.nn.Linear(24, 1))

    ours, theirs = DDP(model()), DDP(model(), process_group=gloo)
    opts = [torch.optim.SGD(m.parameters(), lr=0.5) for m in (ours, theirs)]
    g = torch.Generator().manual_seed(rank)
    for _ in range(3):
        ids = torch.randint(0, 300, (16, 3), generator=g)
        target = torch.randn(16, 1, generator=g)
        losses = []
        for m, opt in zip((ours, theirs), opts, strict=True):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(m(ids), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        expect(math.isclose(losses[0], losses[1], rel_tol=1e-5), losses)
    for a, b in zip(ours.parameters(), theirs.parameters(), strict=True):
        expect(torch.allclose(a, b, rtol=1e-5, atol=1e-6))


def check_fsdp2_matches_gloo(rank, n, gloo):
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.fsdp import fully_shard

    def model(mesh):
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(7, 13), torch.nn.ReLU(), torch.nn.Linear(13, 1))
        for layer in (m[0], m[2]):
            fully_shard(layer, mesh=mesh)
        return fully_shard(m, mesh=mesh)

    ours = model(None)  # the default mesh: the default (p4reduce) group
    theirs = model(DeviceMesh.from_group(gloo, "cpu"))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ours, theirs)]
    g = torch.Generator().manual_seed(rank)
    for _ in range(3):
        x, y = torch.randn(8, 7, generator=g), torch.randn(8, 1, generator=g)
        losses = []
        for m, opt in zip((ours, theirs), opts, strict=True):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        expect(math.isclose(losses[0], losses[1], rel_tol=1e-5), losses)


CHECKS = {
    f.__name__.removeprefix("check_"): f
    for f in (
        check_all_reduce_float32,
        check_all_reduce_exact_dtypes,
        check_all_reduce_half_precision,
        check_all_reduce_zero_empty_noncontiguous,
        check_async_work_and_order,
        check_reduce_scatter,
        check_reduce_scatter_owner_only,
        check_all_gather,
        check_broadcast_and_barrier,
        check_subgroup_and_parameters,
        check_errors_name_the_operation,
        check_a_failed_bucket_fails_ddps_backward,
        check_ddp_matches_gloo,
        check_fsdp2_matches_gloo,
    )
}
EXTERNAL_CHECKS = ("all_reduce_float32", "reduce_scatter", "all_gather", "broadcast_and_barrier")
# Through the job service (P4REDUCE_CONTROLLER), placed on its software fallback.
SERVICE_CHECKS = ("all_reduce_float32", "all_reduce_exact_dtypes", "reduce_scatter", "ddp_matches_gloo")
PYTHON_ENGINE_CHECKS = ("reduce_scatter", "reduce_scatter_owner_only")


def scenario(rank: int, n: int, names: tuple[str, ...]) -> dict[str, str | None]:
    """Runs on every rank: each check's error text, or None when it passed."""
    dist.init_process_group("p4reduce", rank=rank, world_size=n)
    gloo = dist.new_group(backend="gloo")
    outcome: dict[str, str | None] = {}
    for name in names:
        _problems.clear()
        try:
            CHECKS[name](rank, n, gloo)
        except BaseException:  # noqa: BLE001 - reported per check (pytest.raises' Failed too)
            _problems.append(traceback.format_exc())
        outcome[name] = "\n".join(_problems) or None
        dist.barrier(group=gloo)  # a failed check must not leave the ranks apart
    outcome["_backend"] = dist.get_backend()
    outcome["_stats"] = dict(p4reduce.torch.stats().collectives)
    dist.destroy_process_group()
    return outcome


_cache: dict[str, list] = {}


def _outcomes(key: str) -> list[dict]:
    if key not in _cache:
        if key == "external":
            from p4reduce.aggregator import AggregatorServer, JobSpec
            from p4reduce.protocol import Mode

            # A switch-like job: dense mode, 32 values per packet, one packet per datagram.
            spec = JobSpec(7, 2, mode=Mode.DENSE, block_size=32, num_slots=8, message_size=0)
            with AggregatorServer([spec], port=0) as server:
                env = {
                    "P4REDUCE_AGGREGATOR": "{}:{}".format(*server.address),
                    "P4REDUCE_JOB": "7",
                    "P4REDUCE_MODE": "dense",
                    "P4REDUCE_BLOCK_SIZE": "32",
                    "P4REDUCE_SLOTS": "8",
                    "P4REDUCE_MESSAGE_SIZE": "0",
                    "P4REDUCE_FAILURE_TIMEOUT": "30",
                }
                _cache[key] = run_ranks(scenario, 2, args=(EXTERNAL_CHECKS,), env=env, timeout=240)
        elif key == "service":
            from p4reduce.service import JobServer, parse_service_config

            config = parse_service_config({"fallback": {"host": "127.0.0.1", "port": 0}})
            with JobServer(config, "127.0.0.1:0") as server:
                env = {"P4REDUCE_CONTROLLER": "{}:{}".format(*server.address), "P4REDUCE_FAILURE_TIMEOUT": "30"}
                _cache[key] = run_ranks(scenario, 2, args=(SERVICE_CHECKS,), env=env, timeout=240)
        elif key.startswith("python"):  # the embedded aggregator on the Python engine
            _cache[key] = run_ranks(
                scenario,
                int(key.removeprefix("python")),
                args=(PYTHON_ENGINE_CHECKS,),
                env=SMALL_GEOMETRY | {"P4REDUCE_ENGINE": "python"},
                timeout=240,
            )
        else:
            _cache[key] = run_ranks(scenario, int(key), args=(tuple(CHECKS),), env=SMALL_GEOMETRY, timeout=240)
    return _cache[key]


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("world", ["2", "3"])
def test_collective_against_gloo(world, check):
    outcomes = _outcomes(world)
    failures = [f"rank {r}: {o[check]}" for r, o in enumerate(outcomes) if o[check] is not None]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("check", EXTERNAL_CHECKS)
def test_external_aggregator_dense_mode(check):
    """P4REDUCE_AGGREGATOR & co: every rank joins a job of an aggregator it did not start,
    here in the switch's dense mode with 32-value packets."""
    outcomes = _outcomes("external")
    failures = [f"rank {r}: {o[check]}" for r, o in enumerate(outcomes) if o[check] is not None]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("check", SERVICE_CHECKS)
def test_job_placed_by_the_job_service(check):
    """P4REDUCE_CONTROLLER alone: rank 0 draws the job's name, every rank creates or joins it
    at the job service, registers, and runs its collectives where the service placed it."""
    pytest.importorskip("grpc")
    outcomes = _outcomes("service")
    failures = [f"rank {r}: {o[check]}" for r, o in enumerate(outcomes) if o[check] is not None]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("check", PYTHON_ENGINE_CHECKS)
@pytest.mark.parametrize("world", ["2", "3"])
def test_reduce_scatter_on_the_python_engine(world, check):
    """The embedded aggregator on the Python engine (P4REDUCE_ENGINE=python)."""
    outcomes = _outcomes("python" + world)
    failures = [f"rank {r}: {o[check]}" for r, o in enumerate(outcomes) if o[check] is not None]
    assert not failures, "\n".join(failures)


def test_backend_is_registered_and_used():
    assert dist.Backend.P4REDUCE == "p4reduce"
    outcomes = _outcomes("2")
    assert {o["_backend"] for o in outcomes} == {"p4reduce"}
    stats = outcomes[0]["_stats"]
    for name in ("all_reduce", "reduce_scatter_single", "all_gather_single", "all_gather", "broadcast", "barrier"):
        assert stats.get(name, 0) > 0, (name, stats)


# -- no processes -------------------------------------------------------------------------
def test_options_from_environment():
    opts = Options.from_env(
        {
            "P4REDUCE_AGGREGATOR": "10.0.0.254:48864,10.0.0.253",
            "P4REDUCE_MODE": "dense",
            "P4REDUCE_BLOCK_SIZE": "32",
            "P4REDUCE_SLOTS": "64",
            "P4REDUCE_JOB": "5",
            "P4REDUCE_FAILURE_TIMEOUT": "2.5",
        }
    )
    assert opts.aggregators == (("10.0.0.254", 48864), ("10.0.0.253", 48864)) and not opts.embedded
    assert (opts.mode.value, opts.block_size, opts.num_slots, opts.job_id, opts.failure_timeout) == (
        "dense",
        32,
        64,
        5,
        2.5,
    )
    assert Options.from_env({}).embedded
    with pytest.raises(ValueError, match="P4REDUCE_BLOCK_SIZE"):
        Options.from_env({"P4REDUCE_BLOCK_SIZE": "big"})
    with pytest.raises(ValueError, match="P4REDUCE_MODE"):
        Options.from_env({"P4REDUCE_MODE": "ring"})
    with pytest.raises(ValueError, match="P4REDUCE_AGGREGATOR"):
        Options.from_env({"P4REDUCE_AGGREGATOR": "host:port"})
    assert Options.from_env({"P4REDUCE_ENGINE": "Python"}).engine == "python"
    assert Options.from_env({}).engine == "native"
    with pytest.raises(ValueError, match="P4REDUCE_ENGINE"):
        Options.from_env({"P4REDUCE_ENGINE": "fpga"})
    placed = Options.from_env({"P4REDUCE_CONTROLLER": "ctl.example:9560", "P4REDUCE_JOB_NAME": "bert"})
    assert (placed.controller, placed.job_name, placed.embedded) == (("ctl.example", 9560), "bert", False)
    with pytest.raises(ValueError, match="P4REDUCE_CONTROLLER"):
        Options.from_env({"P4REDUCE_CONTROLLER": "a:1,b:2"})
    with pytest.raises(ValueError, match="controller or aggregators"):
        Options.from_env({"P4REDUCE_CONTROLLER": "a:1", "P4REDUCE_AGGREGATOR": "b:2"})


def test_transport_options_from_environment():
    assert Options.from_env({}).transport == "udp"
    opts = Options.from_env(
        {"P4REDUCE_TRANSPORT": "Packet", "P4REDUCE_INTERFACE": "eth1", "P4REDUCE_GATEWAY_MAC": "02-AA-00-00-00-01"}
    )
    assert (opts.transport, opts.interface, opts.gateway_mac) == ("packet", "eth1", "02:aa:00:00:00:01")
    with pytest.raises(ValueError, match=r"P4REDUCE_TRANSPORT/.*: transport 'tcp': use one of udp, packet, xdp"):
        Options.from_env({"P4REDUCE_TRANSPORT": "tcp"})
    with pytest.raises(ValueError, match="P4REDUCE_TRANSPORT/.*: interface and gateway_mac are options of transport"):
        Options.from_env({"P4REDUCE_INTERFACE": "eth1"})
    with pytest.raises(ValueError, match="gateway_mac: 'zz' is not a MAC address"):
        Options(transport="packet", gateway_mac="zz")


@pytest.mark.parametrize("n", [1, 2, 3, 5, 32])
def test_sum_codec_is_exact_with_wraparound(n):
    """Lane sums, as the aggregator computes them in int32, give the dtype's wrapped sum."""
    for dtype in (torch.int64, torch.int16, torch.int8, torch.uint8, torch.bool):
        codec = SumCodec(dtype, n)
        inputs = [make(r, (50,), dtype, n) for r in range(n)]
        encoded = [codec.encode(x) for x in inputs]
        assert max(int(np.abs(e).max()) for e in encoded) <= (2**31 - 1) // n
        summed = np.sum(np.stack(encoded).astype(np.int64), axis=0).astype(np.int32)
        expected = inputs[0].clone()
        for x in inputs[1:]:
            expected = expected | x if dtype == torch.bool else expected + x
        assert torch.equal(codec.decode(summed, 50), expected), dtype
    assert SumCodec(torch.int64, n).lanes == 3 and lane_bits(n) >= 26


def test_byte_lanes_are_bit_exact_at_any_offset():
    rng = np.random.default_rng(1)
    for total in range(0, 30):
        for _ in range(10):
            a = int(rng.integers(0, total + 1))
            b = int(rng.integers(a, total + 1))
            piece = rng.integers(0, 256, b - a).astype(np.uint8)
            expected = np.zeros(total, np.uint8)
            expected[a:b] = piece
            lanes = placement_array(total, [(a, piece)])
            assert lanes.max(initial=0) < 1 << 24
            assert np.array_equal(decode_bytes(lanes, total), expected)
    raw = np.frombuffer(np.array([-0.0, np.nan, 1e300], dtype=np.float64).tobytes(), np.uint8)
    assert decode_bytes(encode_bytes(raw), raw.size).tobytes() == raw.tobytes()


def test_unsupported_sum_dtype_is_named():
    with pytest.raises(TypeError, match="float64"):
        SumCodec(torch.float64, 2)
    with pytest.raises(TypeError, match="complex64"):
        SumCodec(torch.complex64, 2)


@pytest.mark.parametrize("embedded", [True, False])
def test_shutdown_counts_ranks_off_the_store_only_for_the_embedded_aggregator(embedded):
    """Rank 0 keeps its embedded aggregator up until every rank said it finished (in the
    group's store); a job elsewhere (an aggregator or switch it did not start, or the job
    service's) has nobody waiting, and rank 0's store may be gone when another rank shuts
    down: then the store is not touched."""
    import datetime

    from p4reduce.aggregator import AggregatorServer, JobSpec
    from p4reduce.torch.backend import ADDRESS_KEY, FINISHED_KEY, P4ReduceProcessGroup

    raw = dist.HashStore()
    store = dist.PrefixStore("p4reduce/0/", raw)  # the keys of the group's first generation
    timeout = datetime.timedelta(seconds=10)
    job_id = 1 if embedded else 7
    with AggregatorServer([JobSpec(job_id, 2, num_slots=8)], port=0) as server:
        if embedded:  # as rank 0 publishes its aggregator
            store.set(ADDRESS_KEY, "{}:{}".format(*server.address))
            options = Options(num_slots=8)
        else:
            options = Options(aggregators=(server.address,), job_id=7, num_slots=8)
        group = P4ReduceProcessGroup(raw, 1, 2, timeout, options)  # rank 1: no aggregator of its own
        group.shutdown()
    assert store.check([FINISHED_KEY]) == embedded


def test_a_work_is_freed_with_its_last_reference():
    """No reference cycle through the Future's done callback: a Work (and the tensors its
    Future holds) goes when the caller drops it, without the garbage collector."""
    import gc
    import weakref

    from p4reduce.torch.backend import P4ReduceWork

    gc.disable()
    try:
        future = torch.futures.Future()
        work = P4ReduceWork(future, "all_reduce")
        gone = weakref.ref(work)
        del work
        assert gone() is None
        future.set_result([torch.zeros(1)])  # its callback outlives the Work harmlessly
    finally:
        gc.enable()


def _generations(rank: int, world: int, count: int) -> list[object]:
    """`count` process groups one after the other in the same processes, each running the
    aggregator, the dense path (the calibration and a dense sum) and the fallback group."""
    outcomes: list[object] = []
    for generation in range(count):
        dist.init_process_group("p4reduce", rank=rank, world_size=world)
        try:
            sparse = torch.zeros(50_000)
            sparse[generation * 256 : generation * 256 + 256] = rank + 1.0
            dense = torch.full((50_000,), float(rank + 1))
            maximum = torch.tensor([float(rank)])
            dist.all_reduce(sparse)
            dist.all_reduce(dense)
            dist.all_reduce(maximum, op=dist.ReduceOp.MAX)
            ok = sparse.sum().item() == 256 * 3 and dense.eq(3).all().item() and maximum.item() == world - 1
            outcomes.append(ok or (sparse.sum().item(), dense[:3].tolist(), maximum.item()))
        except Exception as exc:  # noqa: BLE001 - reported per generation
            outcomes.append(f"generation {generation}: {exc}".splitlines()[0])
        dist.destroy_process_group()
    return outcomes


def test_a_group_made_again_after_destroy_reads_none_of_the_old_ones_keys():
    """env:// shares a TCPStore per port within a process, so a rank that initialises again
    first may reach the store of the group just destroyed, old keys and all (the embedded
    aggregator's address, the internal groups' gloo rendezvous): a group reads and writes
    only the keys of its own generation."""
    env = {"P4REDUCE_DENSE_THRESHOLD": "0.5", "P4REDUCE_FAILURE_TIMEOUT": "30"}
    for outcomes in run_ranks(_generations, 2, args=(6,), env=env, timeout=300):
        assert outcomes == [True] * 6
