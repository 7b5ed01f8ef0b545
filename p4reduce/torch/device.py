# SPDX-License-Identifier: Apache-2.0
"""Device tensors (CUDA) through p4reduce without crossing PCIe whole.

A dense copy moves the whole tensor to the host and back; with 5% non-zero blocks that
is 20x the bytes the network will carry. Here the non-zero blocks (and, for float32,
each block's exponent) are found on the device with torch operations, packed there,
and copied once into pinned host memory on a side stream; the host agent takes them as
a BlockList (HostAgent.allreduce_blocks), and the sum's non-zero blocks come back the
same way and are scattered into the tensor on the device.

Device memory added per call, freed when it returns: the packed non-zero blocks and
their indices (at most the tensor's size plus 8 bytes per block), a bool per block,
then the same for the sum's non-zero blocks. Host memory: pinned buffers of the same
sizes (kept for the next call) and one dense scratch tensor on the host.

Nothing here is CUDA-specific: on a CPU tensor the same functions run (no side stream,
no pinned memory), which is how CI tests them against the dense path bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch

from p4reduce.hostagent import AllreduceStats, HostAgent
from p4reduce.hostagent.blocks import BlockList
from p4reduce.hostagent.errors import FloatOverflow
from p4reduce.protocol import EXP_BIAS

DIRECT_DTYPES = (torch.float32, torch.int32)  # what the host agent sums as it is
_NUMPY = {torch.float32: np.float32, torch.int32: np.int32}


@dataclass
class DeviceBlocks:
    """A flat tensor's non-zero blocks, on its device."""

    numel: int
    block_size: int
    indices: torch.Tensor  # int64, ascending
    values: torch.Tensor  # (k, block_size), a cut last block zero-padded
    exps: torch.Tensor | None  # uint8 biased exponents (float32), None for int32

    @property
    def nbytes(self) -> int:
        """What crosses PCIe for these blocks: values, indices and exponents."""
        exps = self.exps.numel() if self.exps is not None else 0
        return self.values.numel() * self.values.element_size() + self.indices.numel() * 8 + exps


def scan_blocks(flat: torch.Tensor, block_size: int) -> DeviceBlocks:
    """The non-zero blocks of a contiguous 1-D float32/int32 tensor, found and packed on its
    device: a block is non-zero when any element is (NaN and Inf included: the host agent
    refuses them, naming the element). float32 blocks get their exponent byte, as the host
    agent computes it (p4reduce.hostagent.fixedpoint.exponent_bytes)."""
    n = flat.numel()
    nfull = n // block_size
    rows = flat[: nfull * block_size].view(nfull, block_size)
    mask = rows.ne(0).any(dim=1)
    tail = None
    if n % block_size:
        tail = torch.zeros(block_size, dtype=flat.dtype, device=flat.device)
        tail[: n - nfull * block_size] = flat[nfull * block_size :]
        mask = torch.cat([mask, tail.ne(0).any().view(1)])
    indices = mask.nonzero().view(-1)  # waits for the device: the host needs the count
    whole = indices[indices < nfull] if tail is not None else indices
    values = rows.index_select(0, whole)
    if tail is not None and indices.numel() > whole.numel():  # the cut last block is non-zero
        values = torch.cat([values, tail.view(1, block_size)])
    exps = None
    if flat.dtype == torch.float32:
        exps = block_exponents(values)
    return DeviceBlocks(n, block_size, indices, values, exps)


def block_exponents(values: torch.Tensor) -> torch.Tensor:
    """Biased exponent byte E per row of a (k, B) float32 tensor: max|x| < 2^(E-127)."""
    if values.shape[0] == 0:
        return torch.zeros(0, dtype=torch.uint8, device=values.device)
    low, high = torch.aminmax(values, dim=1)
    hi = torch.maximum(high, -low)
    _, e = torch.frexp(hi)
    return (e.to(torch.int32) + EXP_BIAS).clamp(0, 255).to(torch.uint8)


def on_device(tensor: torch.Tensor) -> bool:
    """Does `tensor` take the device path (it lives off the CPU)? The backend and the DDP
    hook ask here, so that tests can send CPU tensors down the same path."""
    return tensor.device.type != "cpu"


class DeviceOrder:
    """Orders a collective that another thread runs with the caller's CUDA work.

    The tensors a collective is handed may still be written by kernels queued on the
    caller's stream (FSDP2 gathers and reduces on streams of its own, which do not wait
    for the default stream): made at the call, this records an event on the caller's
    current stream of each device, and `inputs_ready()` on the worker thread waits for it
    before anything is read. `outputs_written()` waits until what the worker thread queued
    on those devices is done, before the collective reports completion, so that whoever
    waits for it sees the results. Nothing to do for CPU tensors."""

    def __init__(self, tensors: Iterable[torch.Tensor]) -> None:
        self.devices = sorted({t.device for t in tensors if t.device.type == "cuda"}, key=str)
        self._events = []
        for device in self.devices:
            event = torch.cuda.Event()  # type: ignore[no-untyped-call]  # torch's own stub
            event.record(torch.cuda.current_stream(device))
            self._events.append(event)

    def inputs_ready(self) -> None:
        for event in self._events:
            event.synchronize()

    def outputs_written(self) -> None:
        for device in self.devices:
            torch.cuda.current_stream(device).synchronize()


class DeviceStager:
    """Allreduces device tensors through one HostAgent, moving only non-zero blocks.

    Keeps pinned host buffers (grown as needed) and, on CUDA, a side stream for the
    copies; one per agent, used from one thread at a time (the agent's calls are
    serialized anyway)."""

    def __init__(self, agent: HostAgent) -> None:
        self.agent = agent
        self._streams: dict[torch.device, torch.cuda.Stream] = {}
        self._pinned: dict[tuple[str, torch.dtype], torch.Tensor] = {}
        self._scratch: dict[torch.dtype, np.ndarray] = {}

    def allreduce(self, flat: torch.Tensor) -> AllreduceStats:
        """Sum of the contiguous 1-D float32/int32 tensor `flat` over the job, in place on its
        device. Returns the agent's stats for it, with the bytes copied each way."""
        if flat.dtype not in DIRECT_DTYPES:
            raise TypeError(f"p4reduce device path: float32 or int32, not {flat.dtype}")
        if not flat.is_contiguous() or flat.dim() != 1:
            raise ValueError("p4reduce device path: a contiguous 1-D tensor")
        block = self.agent.config.block_size
        local = scan_blocks(flat, block)
        host = self._to_host(local)
        scratch = self._scratch_for(flat)
        overflow = None
        try:
            summed = self.agent.allreduce_blocks(host, scratch=scratch)
        except FloatOverflow as exc:  # complete all the same: scratch holds every sum, +-Inf included
            summed, overflow = BlockList.of(scratch, block), exc
        up = self._to_device(summed, flat.device)
        # The blocks this rank sent that the sum does not hold (summed to zero) become
        # zeros; every block of the sum takes its values; the rest was zero and stays.
        rows, tail_start = _rows(flat, block)
        nfull = rows.shape[0]
        stale = local.indices
        _scatter(flat, rows, nfull, tail_start, stale, torch.zeros_like(local.values))
        _scatter(flat, rows, nfull, tail_start, up.indices, up.values)
        stats = self.agent.last_stats
        stats.device_to_host_bytes = local.nbytes
        stats.host_to_device_bytes = up.nbytes
        if overflow is not None:  # as HostAgent.allreduce: said once the tensor holds the sum
            raise overflow
        return stats

    # -- copies ------------------------------------------------------------------------
    def _stream(self, device: torch.device) -> torch.cuda.Stream | None:
        if device.type != "cuda":
            return None
        if device not in self._streams:
            self._streams[device] = torch.cuda.Stream(device)  # type: ignore[no-untyped-call]  # torch's own stub
        return self._streams[device]

    def _host_buffer(self, name: str, like: torch.Tensor) -> torch.Tensor:
        """A host tensor of like's shape and dtype, pinned when CUDA is there (reused)."""
        key = (name, like.dtype)
        have = self._pinned.get(key)
        if have is None or have.numel() < like.numel():
            have = torch.empty(max(like.numel(), 1), dtype=like.dtype, pin_memory=torch.cuda.is_available())
            self._pinned[key] = have
        return have[: like.numel()].view(like.shape)

    def _to_host(self, blocks: DeviceBlocks) -> BlockList:
        parts = {"indices": blocks.indices, "values": blocks.values}
        if blocks.exps is not None:
            parts["exps"] = blocks.exps
        stream = self._stream(blocks.values.device)
        host = {name: self._host_buffer(name, t) for name, t in parts.items()}
        if stream is None:
            for name, t in parts.items():
                host[name].copy_(t)
        else:
            stream.wait_stream(torch.cuda.current_stream(blocks.values.device))
            with torch.cuda.stream(stream):
                for name, t in parts.items():
                    host[name].copy_(t, non_blocking=True)
            stream.synchronize()
        # Views of the pinned buffers, no copy: the allreduce that takes this list is over
        # before the next call refills them.
        return BlockList(
            blocks.numel,
            blocks.block_size,
            host["indices"].numpy(),
            host["values"].numpy(),
            host["exps"].numpy() if "exps" in host else None,
        )

    def _to_device(self, blocks: BlockList, device: torch.device) -> DeviceBlocks:
        indices = torch.from_numpy(blocks.indices)
        values = torch.from_numpy(blocks.values)
        stream = self._stream(device)
        if stream is None:
            return DeviceBlocks(blocks.numel, blocks.block_size, indices.to(device), values.to(device), None)
        pinned_i = self._host_buffer("up_indices", indices)
        pinned_v = self._host_buffer("up_values", values)
        pinned_i.copy_(indices)
        pinned_v.copy_(values)
        with torch.cuda.stream(stream):
            on_i = pinned_i.to(device, non_blocking=True)
            on_v = pinned_v.to(device, non_blocking=True)
        torch.cuda.current_stream(device).wait_stream(stream)
        on_i.record_stream(torch.cuda.current_stream(device))
        on_v.record_stream(torch.cuda.current_stream(device))
        stream.synchronize()  # the pinned buffers are reused by the next call
        return DeviceBlocks(blocks.numel, blocks.block_size, on_i, on_v, None)

    def _scratch_for(self, flat: torch.Tensor) -> np.ndarray:
        have = self._scratch.get(flat.dtype)
        if have is None or have.size < flat.numel():
            have = np.empty(flat.numel(), dtype=_NUMPY[flat.dtype])
            self._scratch[flat.dtype] = have
        return have[: flat.numel()]


def _rows(flat: torch.Tensor, block: int) -> tuple[torch.Tensor, int]:
    nfull = flat.numel() // block
    return flat[: nfull * block].view(nfull, block), nfull * block


def _scatter(
    flat: torch.Tensor, rows: torch.Tensor, nfull: int, tail_start: int, indices: torch.Tensor, values: torch.Tensor
) -> None:
    """Write packed blocks `values` at block `indices` of `flat` (a cut last block: its own
    elements only)."""
    if indices.numel() == 0:
        return
    whole = indices < nfull
    rows.index_copy_(0, indices[whole], values[whole])
    if tail_start < flat.numel() and bool(indices[-1] == nfull):
        flat[tail_start:] = values[-1, : flat.numel() - tail_start]


__all__ = ["on_device", "DeviceBlocks", "DeviceOrder", "DeviceStager", "block_exponents", "scan_blocks"]
