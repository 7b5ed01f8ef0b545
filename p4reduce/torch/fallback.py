# SPDX-License-Identifier: Apache-2.0
"""The collectives the aggregator does not run, on an internal process group of the same ranks.

A P4ReduceProcessGroup hands everything its aggregator does not accelerate (reduce,
gather, scatter, all_to_all, send/recv, the coalesced collectives, reductions other than
SUM/AVG, sums of dtypes the codec refuses) to a torch ProcessGroup of the same ranks,
built on first use from the group's own store under a key prefix of its own, so that
nothing has to be configured:

* CPU tensors: gloo, whose connections are made on first use (lazy init) so that two
  ranks' first send/recv does not wait for the group's other ranks;
* CUDA tensors: NCCL where torch has it; else gloo on host copies of the tensors (gloo
  refuses CUDA tensors in most of these collectives), copied back when the Work is waited.

The internal group has its own channel: its collectives are not ordered with the
aggregator's, so wait() an async collective before handing its tensors to another one
(as with gloo, whose worker threads run async collectives side by side).

The policy's dense all_reduce (policy.py) runs on a second internal group of its own
(`prefix` DENSE_PREFIX): it is issued from the process group's communication thread, the
fallback's collectives from the caller's, and gloo matches collectives by the order they
were issued in, which on one shared group could differ from rank to rank.
"""

from __future__ import annotations

import datetime
import os
import threading
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import PrefixStore, ProcessGroupGloo, Store  # names torch's stubs know

STORE_PREFIX = "p4reduce/fallback/"
DENSE_PREFIX = "p4reduce/dense/"  # the policy's dense path's own group
GLOO, NCCL = "gloo", "nccl"  # the paths P4ReduceStats.paths counts besides "p4reduce"


class Fallback:
    """The internal process group of one P4ReduceProcessGroup (created on first call)."""

    def __init__(
        self, store: Store, rank: int, size: int, timeout: datetime.timedelta, prefix: str = STORE_PREFIX
    ) -> None:
        self._store, self._rank, self._size, self._timeout = store, rank, size, timeout
        self._prefix = prefix  # of the store keys of its backends' rendezvous
        self._lock = threading.Lock()  # collectives may be issued from several threads
        self._group: dist.ProcessGroup | None = None
        self._cuda: str | None = None  # the backend registered for CUDA tensors, once one came

    def path(self, args: tuple[Any, ...]) -> str:
        """Which backend runs a collective on `args` (its tensors share one device type)."""
        return NCCL if _on_cuda(args) and dist.is_nccl_available() else GLOO

    def call(self, method: str, args: tuple[Any, ...]) -> dist.Work:
        """ProcessGroup.`method`(*args) on the internal group."""
        group = self._ensure(_on_cuda(args))
        if _on_cuda(args) and self._cuda == GLOO:
            return _staged(getattr(group, method), args)
        work: dist.Work = getattr(group, method)(*args)
        return work

    def cpu_group(self) -> dist.ProcessGroup:
        """The internal group for CPU tensors (gloo), e.g. the policy's dense all_reduce."""
        return self._ensure(False)

    def close(self) -> None:
        with self._lock:
            group, self._group = self._group, None
        if group is not None:
            group.shutdown()

    def _ensure(self, cuda: bool) -> dist.ProcessGroup:
        with self._lock:
            if self._group is None:
                self._group = dist.ProcessGroup(self._store, self._rank, self._size)
                self._group._set_default_backend(dist.ProcessGroup.BackendType.GLOO)
                self._register(torch.device("cpu"), dist.ProcessGroup.BackendType.GLOO, self._gloo())
            if cuda and self._cuda is None:
                if dist.is_nccl_available():
                    self._register(torch.device("cuda"), dist.ProcessGroup.BackendType.NCCL, self._nccl())
                    self._cuda = NCCL
                else:  # staged through host memory onto the CPU backend (see _staged)
                    self._cuda = GLOO
            return self._group

    def _register(self, device: torch.device, kind: Any, backend: Any) -> None:
        assert self._group is not None
        self._group._register_backend(device, kind, backend)

    def _gloo(self) -> Any:
        opts = ProcessGroupGloo._Options()  # type: ignore[attr-defined]  # not in torch's stubs
        opts._timeout = self._timeout
        # GLOO_SOCKET_IFNAME names the interfaces as it does for torch's own gloo groups
        # (else the hostname's address, often loopback: unreachable from other hosts).
        interfaces = [i for i in os.environ.get("GLOO_SOCKET_IFNAME", "").split(",") if i]
        opts._devices = [ProcessGroupGloo.create_device(interface=i, lazy_init=True) for i in interfaces] or [
            ProcessGroupGloo.create_default_device(lazy_init=True)
        ]
        store = PrefixStore(self._prefix + GLOO, self._store)
        return ProcessGroupGloo(store, self._rank, self._size, opts)

    def _nccl(self) -> Any:  # pragma: no cover - needs a CUDA build with NCCL
        opts = dist.ProcessGroupNCCL.Options()
        opts._timeout = self._timeout
        store = PrefixStore(self._prefix + NCCL, self._store)
        return dist.ProcessGroupNCCL(store, self._rank, self._size, opts)


def _tensors(obj: Any) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, list | tuple):
        return [t for item in obj for t in _tensors(item)]
    return []


def _on_cuda(args: tuple[Any, ...]) -> bool:
    return any(t.device.type == "cuda" for t in _tensors(args))


def _staged(method: Callable[..., dist.Work], args: tuple[Any, ...]) -> dist.Work:
    """`method` on host copies of the device tensors in `args`, whose values are copied
    back into them when the Work is waited (on the waiting thread's CUDA stream)."""
    pairs: list[tuple[torch.Tensor, torch.Tensor]] = []

    def host(obj: Any) -> Any:
        if isinstance(obj, torch.Tensor) and obj.device.type != "cpu":
            copy = obj.detach().cpu()
            pairs.append((obj, copy))
            return copy
        if isinstance(obj, list | tuple):
            return type(obj)(host(item) for item in obj)
        return obj

    return StagedWork(method(*host(args)), pairs)


class StagedWork(dist.Work):
    """A Work on host copies: wait() writes every copy back into its device tensor once
    (inputs too: reduce and the in-place collectives write their input)."""

    def __init__(self, inner: dist.Work, pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        super().__init__()
        self._inner, self._pairs = inner, pairs
        self._lock = threading.Lock()

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        self._inner.wait() if timeout is None else self._inner.wait(timeout)
        with self._lock:
            pairs, self._pairs = self._pairs, []
        with torch.no_grad():
            for device_tensor, copy in pairs:
                device_tensor.copy_(copy)
        return True

    def is_completed(self) -> bool:
        return self._inner.is_completed()

    def is_success(self) -> bool:
        return self._inner.is_success()

    def exception(self) -> Any:
        return self._inner.exception()

    def _source_rank(self) -> int:  # dist.recv(src=None) asks the Work who sent
        return self._inner._source_rank()
