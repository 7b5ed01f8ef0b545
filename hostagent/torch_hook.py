"""PyTorch DDP communication hook: gradient buckets are allreduced through p4reduce.

    agent = HostAgent(WorkerConfig(job_id=1, worker_id=rank, num_workers=world, ...))
    state = P4ReduceHookState(agent)
    ddp_model.register_comm_hook(state, p4reduce_hook)
    ...
    state.close()  # after training: stops the communication thread

DDP still needs a process group (e.g. gloo) for parameter broadcast at start-up;
only the gradient allreduce goes through p4reduce. Every rank calls the hook for
the same buckets in the same order, which is what the protocol requires.

The hook returns at once with a Future: one background thread per state reduces
the buckets in the order DDP hands them over, so communication overlaps the rest
of the backward pass (DDP waits for every Future before the optimizer step).
"""
# No `from __future__ import annotations`: DDP checks the hook's annotations
# against the real dist.GradBucket and torch.futures.Future objects.
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from p4reduce.hostagent.agent import AllreduceStats, HostAgent


@dataclass
class P4ReduceHookState:
    agent: HostAgent
    average: bool = True  # DDP semantics: gradients are averaged over ranks
    buckets: int = 0
    dense_bytes: int = 0
    totals: AllreduceStats = field(default_factory=AllreduceStats)  # over every bucket so far
    # One thread: buckets are reduced one after another, in DDP's order, on every rank.
    _comm: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="p4reduce-ddp"),
        repr=False)

    def close(self) -> None:
        """Wait for the buckets under way, then stop the communication thread."""
        self._comm.shutdown(wait=True)


def p4reduce_hook(state: P4ReduceHookState, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    grad = bucket.buffer()
    if grad.dtype != torch.float32:
        raise TypeError(f"p4reduce_hook supports float32 gradients, not {grad.dtype}")
    # Reduced in place like DDP's own allreduce hook: for a CPU bucket `host`
    # shares the bucket's memory, so nothing is allocated or copied.
    host = grad.detach().cpu().contiguous()
    fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()

    def reduce() -> None:
        try:
            values = host.numpy()
            state.agent.allreduce(values, out=values)
            if state.average:
                host.div_(state.agent.config.scale_workers)
            state.buckets += 1
            state.dense_bytes += grad.numel() * 4
            state.totals.accumulate(state.agent.last_stats)
            fut.set_result(host.to(grad.device).view_as(grad))
        except BaseException as exc:  # noqa: BLE001 - handed to DDP through the Future
            fut.set_exception(exc)

    state._comm.submit(reduce)
    return fut
