# SPDX-License-Identifier: Apache-2.0
"""The device path (p4reduce.torch.device, HostAgent.allreduce_blocks): non-zero blocks
found and packed where the tensor lives, the sum's non-zero blocks scattered back. Run on
CPU tensors here (the same functions as on CUDA), compared bit for bit with the dense
path; on a CUDA device too when there is one."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_workers

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch)")

from p4reduce.aggregator import AggregatorServer, JobSpec  # noqa: E402
from p4reduce.hostagent import HostAgent, WorkerConfig  # noqa: E402
from p4reduce.hostagent.blocks import BlockList, BlockPlan  # noqa: E402
from p4reduce.hostagent.errors import FloatOverflow  # noqa: E402
from p4reduce.hostagent.fixedpoint import block_exponents as host_exponents  # noqa: E402
from p4reduce.torch.device import DeviceStager, block_exponents, scan_blocks  # noqa: E402

B = 16
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def sparse_tensor(rng: np.random.Generator, n: int, density: float, dtype: np.dtype) -> np.ndarray:
    blocks = -(-n // B)
    keep = rng.random(blocks) < density
    if dtype == np.int32:
        x = rng.integers(-1000, 1000, blocks * B).astype(np.int32)
    else:
        x = (rng.standard_normal(blocks * B) * 10.0 ** rng.integers(-3, 3, blocks * B)).astype(np.float32)
    x.reshape(blocks, B)[~keep] = 0
    return x[:n].copy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("n", [0, 5, 160, 1000])  # empty, one cut block, whole blocks, a cut last block
def test_scan_finds_what_the_host_plan_finds(device, dtype, n):
    x = sparse_tensor(np.random.default_rng(n), n, 0.3, dtype)
    if n:
        x[-1] = 3  # the last (maybe cut) block is non-zero
    found = scan_blocks(torch.from_numpy(x).to(device), B)
    plan = BlockPlan.build(x, B, 8)
    assert found.indices.cpu().numpy().tolist() == np.flatnonzero(plan.nonzero).tolist()
    packed = found.values.cpu().numpy()
    assert (BlockList(n, B, found.indices.cpu().numpy(), packed).dense() == x).all()
    if dtype == np.float32:
        assert found.exps is not None
        assert found.exps.cpu().numpy().tolist() == plan.exps[plan.nonzero].tolist()
    else:
        assert found.exps is None


@pytest.mark.parametrize("device", DEVICES)
def test_exponents_are_the_host_agents(device):
    rows = np.array(
        [[0.0] * B, [1.0] + [0.0] * (B - 1), [-0.75] * B, [3e38] + [0.0] * (B - 1), [1e-40] * B], dtype=np.float32
    )
    got = block_exponents(torch.from_numpy(rows).to(device)).cpu().numpy()
    assert got.tolist() == host_exponents(rows).tolist()


def test_block_list_checks_its_shape():
    with pytest.raises(ValueError, match="strictly ascending"):
        BlockList(64, B, np.array([2, 1]), np.zeros((2, B), np.float32))
    with pytest.raises(ValueError, match=r"values must be \(1, 16\)"):
        BlockList(64, B, np.array([1]), np.zeros((2, B), np.float32))
    with pytest.raises(ValueError, match="0..3"):
        BlockList(64, B, np.array([4]), np.zeros((1, B), np.float32))


def test_block_list_of_an_array_with_nan_or_inf_keeps_every_nonzero_block():
    """(the native scan stops at the first NaN/Inf; a sum that overflowed holds Inf)"""
    for bad in (np.inf, -np.inf, np.nan):
        x = np.zeros(5 * B + 3, dtype=np.float32)
        x[[3, 2 * B + 1, 5 * B + 2]] = [bad, 7.0, -1.0]  # the last in the cut last block
        got = BlockList.of(x, B)
        assert got.indices.tolist() == [0, 2, 5]
        assert got.dense().tobytes() == x.tobytes()
        assert got.exponents()[1:].tolist() == host_exponents(got.values[1:]).tolist()


def _agents(server: AggregatorServer, n: int) -> list[HostAgent]:
    return [HostAgent(WorkerConfig(1, r, n, aggregator=server.address, num_slots=8, block_size=B)) for r in range(n)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 1.0])
def test_device_path_equals_the_dense_path_bit_for_bit(device, dtype, density):
    rng = np.random.default_rng(int(density * 100))
    n = 3001
    inputs = [sparse_tensor(rng, n, density, dtype) for _ in range(3)]
    with AggregatorServer([JobSpec(1, 3, num_slots=8, block_size=B)], port=0) as server:
        agents = _agents(server, 3)
        try:
            dense = run_workers(lambda r: agents[r].allreduce(inputs[r]), 3)
            stagers = [DeviceStager(a) for a in agents]
            tensors = [torch.from_numpy(x.copy()).to(device) for x in inputs]
            stats = run_workers(lambda r: stagers[r].allreduce(tensors[r]), 3)
        finally:
            for a in agents:
                a.close()
    for r in range(3):
        got = tensors[r].cpu().numpy()
        assert got.tobytes() == dense[r].tobytes()  # bit for bit, -0.0 and all
        local = BlockList.of(inputs[r], B)
        assert stats[r].device_to_host_bytes == local.values.nbytes + 8 * local.indices.size + (
            local.indices.size if dtype == np.float32 else 0
        )
        summed = BlockList.of(dense[r], B)
        assert stats[r].host_to_device_bytes == summed.values.nbytes + 8 * summed.indices.size


def test_the_device_path_refuses_what_the_dense_path_refuses():
    with AggregatorServer([JobSpec(1, 1, num_slots=8, block_size=B)], port=0) as server:
        (agent,) = _agents(server, 1)
        with agent:
            stager = DeviceStager(agent)
            bad = torch.zeros(100)
            bad[37] = float("nan")
            with pytest.raises(ValueError, match=r"NaN or Inf \(first at flat index 37\)"):
                stager.allreduce(bad)
            with pytest.raises(OverflowError, match="exceeds"):
                stager.allreduce(torch.full((10,), -(2**31), dtype=torch.int32))
            with pytest.raises(TypeError, match="float64"):
                stager.allreduce(torch.zeros(10, dtype=torch.float64))
            x = torch.arange(64.0)
            stager.allreduce(x)  # one worker: the sum is the tensor
            assert x.tolist() == list(range(64))


@pytest.mark.parametrize("device", DEVICES)
def test_a_sum_beyond_float32s_range_is_inf_there_as_on_the_dense_path(device):
    """Finite inputs whose sum overflows: the device path completes, the tensor holding
    every sum (+-Inf where it overflowed, bit for bit the dense path's), then says so."""
    x = np.zeros(3001, dtype=np.float32)
    x[[7, 40, 3000]] = [3e38, -3e38, 1.5]  # two blocks overflow, a third sums finitely
    with AggregatorServer([JobSpec(1, 2, num_slots=8, block_size=B)], port=0) as server:
        agents = _agents(server, 2)
        try:

            def dense(rank: int) -> np.ndarray:
                out = np.empty_like(x)
                with pytest.raises(FloatOverflow):
                    agents[rank].allreduce(x, out=out)
                return out

            expected = run_workers(dense, 2)
            tensors = [torch.from_numpy(x.copy()).to(device) for _ in range(2)]
            stagers = [DeviceStager(a) for a in agents]

            def staged(rank: int) -> str:
                with pytest.raises(FloatOverflow) as raised:
                    stagers[rank].allreduce(tensors[rank])
                return str(raised.value)

            said = run_workers(staged, 2)
            assert all("exceeds float32's range" in s for s in said)
            assert agents[0].last_stats.host_to_device_bytes > 0  # the sum's blocks went back
        finally:
            for a in agents:
                a.close()
    assert expected[0][7] == np.inf and expected[0][40] == -np.inf and expected[0][3000] == 3.0
    for r in range(2):
        assert tensors[r].cpu().numpy().tobytes() == expected[r].tobytes()


class Bucket:
    """What the DDP hook reads of a dist.GradBucket."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self._tensor = tensor

    def buffer(self) -> torch.Tensor:
        return self._tensor

    def parameters(self) -> list[torch.Tensor]:
        return [self._tensor]


@pytest.mark.parametrize("via_device", [False, True])
def test_the_ddp_hook_hands_an_overflowed_sum_on_as_inf(monkeypatch, via_device):
    """A bucket whose float32 sum overflows: +-Inf in the averaged bucket, as DDP's own
    allreduce gives it (GradScaler skips the step), on the host and the device branch."""
    from p4reduce.torch import device as device_path
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    monkeypatch.setattr(device_path, "on_device", lambda t: via_device)
    grad = np.zeros(997, dtype=np.float32)
    grad[[5, 500, 996]] = [3e38, -3e38, 0.25]
    with AggregatorServer([JobSpec(1, 2, num_slots=8, block_size=B)], port=0) as server:
        agents = _agents(server, 2)
        states = [P4ReduceHookState(a) for a in agents]
        try:
            got = run_workers(
                lambda r: p4reduce_hook(states[r], Bucket(torch.from_numpy(grad.copy()))).wait().numpy().copy(), 2
            )
        finally:
            for s in states:
                s.close()
            for a in agents:
                a.close()
    expected = np.zeros_like(grad)
    expected[[5, 500, 996]] = [np.inf, -np.inf, 0.25]  # averaged: (x + x) / 2
    for g in got:
        assert g.tobytes() == expected.tobytes()


@pytest.mark.parametrize("lossy", [0.0, 0.5])
def test_the_ddp_hooks_device_branch_reduces_like_its_host_branch(monkeypatch, lossy):
    """The hook's device branch (CPU tensors sent down it): the same averaged buckets, bit
    for bit, as the host branch, lossy residuals kept where the bucket lives."""
    from p4reduce.torch import device as device_path
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    rng = np.random.default_rng(11)
    grads = [[sparse_tensor(rng, 997, 0.2, np.float32) for _ in range(2)] for _ in range(3)]  # step, rank

    def train(via_device: bool) -> list[list[np.ndarray]]:
        monkeypatch.setattr(device_path, "on_device", lambda t: via_device)
        with AggregatorServer([JobSpec(1, 2, num_slots=8, block_size=B)], port=0) as server:
            agents = _agents(server, 2)
            states = [P4ReduceHookState(a, lossy_threshold=lossy) for a in agents]
            buffers = [torch.zeros(997) for _ in range(2)]  # DDP reuses its bucket's memory

            def step(rank: int, g: np.ndarray) -> np.ndarray:
                buffers[rank].copy_(torch.from_numpy(g))
                return p4reduce_hook(states[rank], Bucket(buffers[rank])).wait().numpy().copy()

            try:
                return [run_workers(lambda r, s=s: step(r, grads[s][r]), 2) for s in range(3)]
            finally:
                for s in states:
                    s.close()
                for a in agents:
                    a.close()

    host, device = train(False), train(True)
    for step_host, step_device in zip(host, device, strict=True):
        for h, d in zip(step_host, step_device, strict=True):
            assert h.tobytes() == d.tobytes()
