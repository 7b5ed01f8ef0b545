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


@pytest.mark.parametrize("lossy", [0.0, 0.5])
def test_the_ddp_hooks_device_branch_reduces_like_its_host_branch(monkeypatch, lossy):
    """The hook's device branch (CPU tensors sent down it): the same averaged buckets, bit
    for bit, as the host branch, lossy residuals kept where the bucket lives."""
    from p4reduce.torch import device as device_path
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    class Bucket:
        def __init__(self, tensor: torch.Tensor) -> None:
            self._tensor = tensor

        def buffer(self) -> torch.Tensor:
            return self._tensor

        def parameters(self) -> list[torch.Tensor]:
            return [self._tensor]

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
