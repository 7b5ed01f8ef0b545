# SPDX-License-Identifier: Apache-2.0
"""The DDP communication hook trains exactly like gloo (skipped without torch)."""

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch)")
EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ddp_sparse_embedding.py"


def test_ddp_hook_matches_gloo_losses():
    proc = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--workers",
            "2",
            "--steps",
            "8",
            "--items",
            "20000",
            "--log-every",
            "4",
            "--tolerance",
            "1e-5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "[p4reduce] step    8" in proc.stdout and "block density" in proc.stdout
    assert "max per-step difference" in proc.stdout


class _SlowAgent:
    """Stands in for a HostAgent: sums with a fixed peer once `release` is set (at once by
    default), records the order."""

    def __init__(self, fail_at: int | None = None, held: bool = False) -> None:
        import threading
        from types import SimpleNamespace

        from p4reduce.hostagent import AllreduceStats

        self.fail_at, self.order = fail_at, []
        self.release = threading.Event()
        if not held:
            self.release.set()
        self.config = SimpleNamespace(scale_workers=2)
        self.last_stats = AllreduceStats(blocks=1, nonzero_blocks=1)

    def allreduce(self, values, out):
        assert self.release.wait(30), "the test never released the agent"
        self.order.append(float(values[0]))
        if len(self.order) == self.fail_at:
            raise TimeoutError("no result for slot 0")
        out += values  # the "other worker" holds the same bucket
        return out


class _Bucket:
    def __init__(self, tensor):
        self._tensor = tensor

    def buffer(self):
        return self._tensor


def test_hook_returns_at_once_and_reduces_buckets_in_order():
    import torch

    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    state = P4ReduceHookState(_SlowAgent(held=True))
    buckets = [torch.full((4,), float(i)) for i in range(3)]
    # The hook returns while the agent cannot finish any allreduce: backward goes on.
    futures = [p4reduce_hook(state, _Bucket(b)) for b in buckets]
    assert not any(f.done() for f in futures)
    state.agent.release.set()
    for i, fut in enumerate(futures):
        assert torch.equal(fut.wait(), torch.full((4,), float(i)))  # (x + x) / 2 workers
    assert state.agent.order == [0.0, 1.0, 2.0] and state.buckets == 3
    state.close()


def test_hook_failure_reaches_ddp_through_the_future():
    import torch

    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    state = P4ReduceHookState(_SlowAgent(fail_at=1))
    fut = p4reduce_hook(state, _Bucket(torch.ones(4)))
    with pytest.raises(Exception, match="no result for slot 0"):
        fut.wait()
    state.close()


def test_the_old_import_path_still_gives_the_hook_with_a_deprecation_warning():
    import importlib

    from p4reduce.torch import ddp_hook

    old = importlib.import_module("p4reduce.hostagent.torch_hook")
    with pytest.warns(DeprecationWarning, match=r"moved to p4reduce\.torch\.ddp_hook"):
        assert old.P4ReduceHookState is ddp_hook.P4ReduceHookState
    with pytest.warns(DeprecationWarning):
        assert old.p4reduce_hook is ddp_hook.p4reduce_hook
    with pytest.raises(AttributeError, match="no attribute 'HostAgent'"):
        old.HostAgent  # noqa: B018 - only the hook's names are forwarded


def test_the_host_agent_layer_does_not_import_torch():
    code = "import sys, p4reduce.hostagent, p4reduce.hostagent.torch_hook; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def _nonfinite_buckets(rank: int, world: int, address: tuple[str, int], with_group: bool) -> dict[str, object]:
    """On one rank: buckets with NaN/Inf on one rank, then a finite one, through the hook,
    against gloo's sum of the same buckets."""
    import torch
    import torch.distributed as dist

    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    dist.init_process_group("gloo", rank=rank, world_size=world)
    dense = dist.new_group(backend="gloo") if with_group else None
    agent = HostAgent(WorkerConfig(1, rank, world, aggregator=address, failure_timeout=5.0))
    state = P4ReduceHookState(agent, dense_group=dense)
    out: dict[str, object] = {}
    try:
        for name, index, value in (("nan", 5, float("nan")), ("inf", 70_000, float("inf")), ("finite", 0, 1.0)):
            bucket = torch.randn(100_000, generator=torch.Generator().manual_seed(rank))
            if rank == 1:
                bucket[index] = value
            expected = bucket.clone()
            dist.all_reduce(expected)
            try:
                got = p4reduce_hook(state, _Bucket(bucket)).wait()
            except Exception as exc:  # noqa: BLE001 - reported
                out[name] = f"raised {type(exc).__name__}"
                break
            close = torch.allclose(got, expected / world, rtol=1e-5, atol=1e-5, equal_nan=True)
            out[name] = bool(close and torch.equal(got.isnan(), expected.isnan()))
        out["nonfinite_buckets"] = state.nonfinite_buckets
    finally:
        state.close()
        agent.close()
        dist.destroy_process_group()
    return out


def test_with_a_dense_group_buckets_with_nan_or_inf_sum_as_ddps_own():
    """GradScaler finds an overflowed step by the Inf in the averaged gradients: the hook hands
    them on (summed on the state's gloo group) and goes on aggregating afterwards."""
    from p4reduce.aggregator import AggregatorServer, JobSpec
    from p4reduce.torch.launch import run_ranks

    with AggregatorServer([JobSpec(1, 2)], port=0) as server:
        outcomes = run_ranks(_nonfinite_buckets, 2, args=(server.address, True), timeout=120)
    for outcome in outcomes:
        assert outcome == {"nan": True, "inf": True, "finite": True, "nonfinite_buckets": 2}, outcome
