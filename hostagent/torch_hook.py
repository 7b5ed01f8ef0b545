"""PyTorch DDP communication hook: gradient buckets are allreduced through p4reduce.

    agent = HostAgent(WorkerConfig(job_id=1, worker_id=rank, num_workers=world, ...))
    ddp_model.register_comm_hook(P4ReduceHookState(agent), p4reduce_hook)

DDP still needs a process group (e.g. gloo) for parameter broadcast at start-up;
only the gradient allreduce goes through p4reduce. Every rank calls the hook for
the same buckets in the same order, which is what the protocol requires.
"""
# No `from __future__ import annotations`: DDP checks the hook's annotations
# against the real dist.GradBucket and torch.futures.Future objects.
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


def p4reduce_hook(state: P4ReduceHookState, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    grad = bucket.buffer()
    if grad.dtype != torch.float32:
        raise TypeError(f"p4reduce_hook supports float32 gradients, not {grad.dtype}")
    # Reduced in place like DDP's own allreduce hook: for a CPU bucket `host`
    # shares the bucket's memory, so nothing is allocated or copied.
    host = grad.detach().cpu().contiguous()
    values = host.numpy()
    state.agent.allreduce(values, out=values)
    if state.average:
        host.div_(state.agent.config.scale_workers)
    state.buckets += 1
    state.dense_bytes += grad.numel() * 4
    state.totals.accumulate(state.agent.last_stats)
    fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()
    fut.set_result(host.to(grad.device).view_as(grad))
    return fut
