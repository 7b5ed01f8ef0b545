# SPDX-License-Identifier: Apache-2.0
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

Lossy mode (opt-in, off by default): ``P4ReduceHookState(agent, lossy_threshold=T)``
zeroes every block (of ``agent.config.block_size`` elements of the bucket, the blocks the
agent sends or skips) whose largest |gradient| is under T before the allreduce, and keeps
what it zeroed as this rank's residual, per parameter, added back into the same gradient
at the next step (error feedback, p4reduce.torch.lossy). ``state.blocks_dropped`` counts
the blocks left out. T = 0 is the lossless hook, bit for bit.

GPU buckets stay on the GPU: their non-zero blocks are found there and only those cross
PCIe, both ways (p4reduce.torch.device); the residuals of lossy mode stay there too.
``state.totals.device_to_host_bytes`` / ``host_to_device_bytes`` count the copies.

A float32 sum beyond float32's range is +-Inf in the bucket, as DDP's own allreduce gives it
(GradScaler then skips the step). NaN or Inf in a gradient: the aggregator's fixed point has
neither. With ``P4ReduceHookState(agent, dense_group=dist.new_group(backend="gloo"))`` (made
on every rank, for the hook alone) a bucket that holds one on any rank is summed on that
group instead, NaN and Inf where DDP's own allreduce puts them, which is what GradScaler
needs; every bucket then costs a one-flag MAX allreduce on it to agree on that
(``state.nonfinite_buckets`` counts those summed there). Without it such a bucket fails the
hook on its rank, and the other ranks after their failure timeout.
"""

# No `from __future__ import annotations`: DDP checks the hook's annotations
# against the real dist.GradBucket and torch.futures.Future objects.
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import GradBucket  # dist.GradBucket, as torch's stubs name it

from p4reduce.hostagent import AllreduceStats, HostAgent
from p4reduce.hostagent.errors import FloatOverflow
from p4reduce.torch import device as device_path
from p4reduce.torch.device import DeviceOrder, DeviceStager
from p4reduce.torch.lossy import ErrorFeedback, check_threshold
from p4reduce.torch.policy import holds_nonfinite, true_on_any_rank


@dataclass
class P4ReduceHookState:
    agent: HostAgent
    average: bool = True  # DDP semantics: gradients are averaged over ranks
    buckets: int = 0
    dense_bytes: int = 0
    totals: AllreduceStats = field(default_factory=AllreduceStats)  # over every bucket so far
    # Lossy mode: blocks whose largest |x| is under this are not sent but fed back at the
    # next step (0: lossless). Must be finite and >= 0.
    lossy_threshold: float = 0.0
    feedback: ErrorFeedback | None = field(default=None, repr=False)
    stager: DeviceStager | None = field(default=None, repr=False)  # GPU buckets (made when first needed)
    # A gloo group of the same ranks, the hook's alone (DDP's own collectives run on another
    # thread): where buckets that hold NaN or Inf on some rank are summed. None: they fail.
    dense_group: dist.ProcessGroup | None = field(default=None, repr=False)
    nonfinite_buckets: int = 0  # buckets summed on dense_group for NaN/Inf
    # One thread: buckets are reduced one after another, in DDP's order, on every rank.
    _comm: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="p4reduce-ddp"), repr=False
    )

    def __post_init__(self) -> None:
        self.lossy_threshold = check_threshold(self.lossy_threshold, "P4ReduceHookState lossy_threshold")
        if self.feedback is None and self.lossy_threshold > 0:
            self.feedback = ErrorFeedback(self.lossy_threshold, self.agent.config.block_size)

    @property
    def blocks_dropped(self) -> int:
        """Non-zero blocks lossy mode left out (and fed back), over every bucket so far."""
        return self.feedback.blocks_dropped if self.feedback is not None else 0

    def close(self) -> None:
        """Wait for the buckets under way, then stop the communication thread."""
        self._comm.shutdown(wait=True)

    def summed_densely(self, flat: torch.Tensor) -> bool:
        """If the float32 bucket `flat` holds NaN or Inf on any rank (agreed on dense_group),
        its sum (or average) there, in place, and True; else False: the aggregator's."""
        if self.dense_group is None or not true_on_any_rank(
            self.dense_group, holds_nonfinite(flat, self.agent.config.block_size)
        ):
            return False
        host = flat if flat.device.type == "cpu" else flat.to("cpu")
        self.dense_group.allreduce([host]).wait()
        if self.average:
            host.div_(self.agent.config.scale_workers)
        if host is not flat:
            flat.copy_(host)
        self.nonfinite_buckets += 1
        return True


def p4reduce_hook(state: P4ReduceHookState, bucket: GradBucket) -> torch.futures.Future[torch.Tensor]:
    grad = bucket.buffer()
    if grad.dtype != torch.float32:
        raise TypeError(f"p4reduce_hook supports float32 gradients, not {grad.dtype}")
    fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()
    pieces = _residual_pieces(bucket, grad.numel()) if state.feedback is not None else None
    if device_path.on_device(grad):
        if state.stager is None:
            state.stager = DeviceStager(state.agent)
        stager = state.stager
        order = DeviceOrder([grad])  # after the backward kernels that wrote the bucket

        def reduce_on_device() -> None:
            try:
                order.inputs_ready()
                flat = grad.detach().view(-1)  # the bucket's own memory, reduced in place
                if pieces is not None and state.feedback is not None:
                    state.feedback.apply_pieces(pieces, flat)
                if not state.summed_densely(flat):
                    try:
                        stats = stager.allreduce(flat)
                    except FloatOverflow:  # the bucket holds +-Inf where it overflowed, as DDP's own allreduce
                        stats = state.agent.last_stats
                    if state.average:
                        flat.div_(state.agent.config.scale_workers)
                    state.totals.accumulate(stats)
                order.outputs_written()
                state.buckets += 1
                state.dense_bytes += grad.numel() * 4
                fut.set_result(grad)
            except BaseException as exc:  # noqa: BLE001 - handed to DDP through the Future
                fut.set_exception(exc)  # type: ignore[arg-type]  # torch's stub types it as a result

        state._comm.submit(reduce_on_device)
        return fut
    # Reduced in place like DDP's own allreduce hook: for a CPU bucket `host`
    # shares the bucket's memory, so nothing is allocated or copied.
    host = grad.detach().cpu().contiguous()

    def reduce() -> None:
        try:
            if pieces is not None and state.feedback is not None:  # this thread only: no lock needed
                state.feedback.apply_pieces(pieces, host.view(-1))
            if not state.summed_densely(host.view(-1)):
                values = host.numpy()
                try:
                    state.agent.allreduce(values, out=values)
                except FloatOverflow:
                    pass  # as on the device: +-Inf where the sum overflowed
                if state.average:
                    host.div_(state.agent.config.scale_workers)
                state.totals.accumulate(state.agent.last_stats)
            state.buckets += 1
            state.dense_bytes += grad.numel() * 4
            fut.set_result(host.to(grad.device).view_as(grad))
        except BaseException as exc:  # noqa: BLE001 - handed to DDP through the Future
            fut.set_exception(exc)  # type: ignore[arg-type]  # torch's stub types it as a result

    state._comm.submit(reduce)
    return fut


def _residual_pieces(bucket: GradBucket, numel: int) -> list[tuple[object, int]]:
    """The bucket as (key, length) pieces, one per parameter in the buffer's order, so
    that each parameter keeps its own residual when DDP rebuilds its buckets; one piece
    named after the bucket if its parameters do not tile the buffer."""
    params = bucket.parameters()
    if sum(p.numel() for p in params) == numel:
        return [(("param", p.data_ptr(), p.numel()), p.numel()) for p in params]
    return [(("bucket", bucket.index(), numel), numel)]
