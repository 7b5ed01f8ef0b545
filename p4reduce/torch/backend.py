# SPDX-License-Identifier: Apache-2.0
"""The "p4reduce" torch.distributed backend: a Python ProcessGroup over a HostAgent.

Every collective becomes one p4reduce allreduce (docs/protocol.md), run on one
background thread per process group in call order: the protocol needs every rank to
issue the same collectives in the same order, which is what torch.distributed asks of
its users anyway. A collective returns at once with a `P4ReduceWork` whose `wait()`
blocks (and raises the collective's error) and whose `get_future()` is a torch Future
holding the output tensors, as gloo's does.

* all_reduce (SUM, AVG): the tensor, encoded by codec.SumCodec (float32 fixed point,
  int32, widened or laned dtypes);
* reduce_scatter_single / reduce_scatter_tensor, reduce_scatter: a reduce-scatter
  (HostAgent.reduce_scatter, docs/protocol.md 3.1): the input encoded shard by shard, each
  shard on whole blocks, and each result block's values sent to its owner only;
* all_gather_single / all_gather_into_tensor, all_gather: an allreduce in which each
  rank holds only its own shard (raw bytes, bit-exact);
* broadcast: an allreduce in which only the source holds data (raw bytes, bit-exact);
* barrier: a one-element allreduce.

Lossy mode (``Options(lossy_threshold=T)``, off by default) applies to float32 all_reduce
only: blocks whose largest |x| is under T are zeroed before the allreduce and their values
added to the next all_reduce of the same tensor (p4reduce.torch.lossy.ErrorFeedback keyed
by the tensor's memory address and length: a tensor reduced in the same memory at every
step, as DDP's gradient buckets are). The threshold applies to the tensor as handed over:
DDP's default hook divides a bucket by the world size before its all_reduce. Every
float32 all_reduce of the group is lossy, so keep metrics on another group. Other
collectives, and other dtypes, stay lossless.

Device (CUDA) tensors: a float32/int32 all_reduce finds its non-zero blocks on the
device and moves only those across PCIe, both ways (p4reduce.torch.device; the lossy
residuals stay on the device); the other collectives and dtypes stage the tensor through
host memory whole and write the result back to its device. `stats()` counts the bytes
copied each way. Device tensors are ordered with the caller's CUDA streams
(p4reduce.torch.device.DeviceOrder).

Zero blocks are never sent, so an all-gather costs each rank the non-zero bytes of its
own shard, and a broadcast costs the non-zero bytes of the source's tensor. Everything
else (reduce, gather, scatter, all_to_all, send/recv, the coalesced collectives other
than a SUM/AVG all_reduce_coalesced, reductions other than SUM/AVG, sums of dtypes the
codec refuses) runs on an internal gloo/NCCL group of the same ranks
(p4reduce.torch.fallback); `stats().paths` counts which path each call took.
"""

from __future__ import annotations

import datetime
import functools
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import PrefixStore, Store  # under the names torch's stubs know
from torch.futures import Future

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import AllreduceStats, HostAgent, WorkerConfig
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.hostagent.errors import FloatOverflow, NonFiniteInput
from p4reduce.protocol import MAX_WORKERS
from p4reduce.torch import device as device_path
from p4reduce.torch.codec import (
    SUPPORTED_SUM_DTYPES,
    SumCodec,
    check_average_dtype,
    check_sum_dtype,
    placement_array,
    read_from_lanes,
    tensor_bytes,
)
from p4reduce.torch.device import DeviceOrder, DeviceStager
from p4reduce.torch.fallback import DENSE_PREFIX, GLOO, Fallback
from p4reduce.torch.lossy import ErrorFeedback
from p4reduce.torch.options import Options
from p4reduce.torch.policy import Policy, PolicyStats, beyond_int_bound, holds_nonfinite, switch_target

log = logging.getLogger(__name__)

BACKEND_NAME = "p4reduce"
ADDRESS_KEY = "p4reduce/aggregator"  # in the group's own (prefixed) store
JOB_NAME_KEY = "p4reduce/job_name"  # the job's name at the job service (Options.controller)
FINISHED_KEY = "p4reduce/finished"
GENERATION_KEY = "p4reduce/generations"  # counts the ranks that made a group under this store prefix
SHUTDOWN_WAIT = 60.0  # seconds rank 0 keeps its embedded aggregator up for the others' last collective

_T = TypeVar("_T")

# ProcessGroup methods that the internal group (p4reduce.torch.fallback) runs, with the
# name stats().paths counts them under.
FALLBACK = {
    "reduce": "reduce",
    "gather": "gather",
    "scatter": "scatter",
    "alltoall": "all_to_all",
    "alltoall_base": "all_to_all_single",
    "send": "send",
    "recv": "recv",
    "recv_anysource": "recv",
    "allgather_coalesced": "all_gather_coalesced",
    "all_gather_single_coalesced": "all_gather_single_coalesced",
    "allgather_into_tensor_coalesced": "all_gather_single_coalesced",
    "reduce_scatter_single_coalesced": "reduce_scatter_single_coalesced",
    "reduce_scatter_tensor_coalesced": "reduce_scatter_single_coalesced",
}
AGGREGATOR_PATH = "p4reduce"
# ProcessGroup methods torch.distributed may call that p4reduce does not implement,
# with the name the user called them by.
UNSUPPORTED = {
    "start_coalescing": "coalescing (_coalescing_manager)",
    "end_coalescing": "coalescing (_coalescing_manager)",
    "_start_coalescing": "coalescing (_coalescing_manager)",
    "_end_coalescing": "coalescing (_coalescing_manager)",
}
SUPPORTED_NAMES = (
    "all_reduce (SUM, AVG), reduce_scatter_single/reduce_scatter_tensor, reduce_scatter, "
    "all_gather_single/all_gather_into_tensor, all_gather, broadcast, barrier, and on the internal group "
    + ", ".join(sorted(set(FALLBACK.values())))
)

# (aggregator addresses, job) of the live process groups of this process that use an
# external aggregator: two groups must not share a job.
_external_jobs: dict[tuple[tuple[tuple[str, int], ...], int], str] = {}
_external_lock = threading.Lock()


@dataclass
class P4ReduceStats:
    """What a process group's collectives cost this rank (see HostAgent.last_stats)."""

    collectives: dict[str, int] = field(default_factory=dict)
    totals: AllreduceStats = field(default_factory=AllreduceStats)  # every allreduce so far
    tensor_bytes: int = 0  # bytes of the tensors handed over (what gloo would reduce)
    # the same, per collective (all_reduce, reduce_scatter_single, ...)
    per_collective: dict[str, AllreduceStats] = field(default_factory=dict)
    per_collective_bytes: dict[str, int] = field(default_factory=dict)
    # lossy mode: non-zero blocks of float32 all_reduce inputs left out (fed back later),
    # out of the non-zero blocks offered
    blocks_dropped: int = 0
    blocks_offered: int = 0
    policy: PolicyStats = field(default_factory=PolicyStats)  # float32 all_reduce: which path
    # which path each call took, per collective: {"reduce": {"gloo": 3}, "all_reduce": {"p4reduce": 9, "gloo": 1}}
    paths: dict[str, dict[str, int]] = field(default_factory=dict)

    def took(self, name: str, path: str, instead_of: str | None = None) -> None:
        """A `name` call took `path` (`instead_of`: the path it was counted on when queued)."""
        per_path = self.paths.setdefault(name, {})
        per_path[path] = per_path.get(path, 0) + 1
        if instead_of is not None:
            per_path[instead_of] -= 1

    def count(self, name: str, tensor_bytes: int, stats: AllreduceStats) -> None:
        self.collectives[name] = self.collectives.get(name, 0) + 1
        self.tensor_bytes += tensor_bytes
        self.totals.accumulate(stats)
        self.per_collective.setdefault(name, AllreduceStats()).accumulate(stats)
        self.per_collective_bytes[name] = self.per_collective_bytes.get(name, 0) + tensor_bytes

    def staged(self, name: str, inputs: Sequence[torch.Tensor], outputs: Sequence[torch.Tensor]) -> None:
        """Count a collective's device tensors copied whole to the host (inputs) and back
        (outputs): what the collectives other than a float32/int32 all_reduce cost PCIe."""
        d2h = sum(t.numel() * t.element_size() for t in inputs if t.device.type != "cpu")
        h2d = sum(t.numel() * t.element_size() for t in outputs if t.device.type != "cpu")
        for s in (self.totals, self.per_collective.setdefault(name, AllreduceStats())):
            s.device_to_host_bytes += d2h
            s.host_to_device_bytes += h2d

    def progress(self) -> str:
        """The running totals, for a training loop's progress line."""
        return (
            f"block density {self.totals.density:.2%}  wire {self.totals.wire_bytes_sent / 1e6:.1f} MB"
            f" (tensors {self.tensor_bytes / 1e6:.1f} MB)"
        )

    def report(self) -> dict[str, object]:
        """The totals as plain values (picklable: a training process hands them to its parent)."""
        return dict(
            density=self.totals.density,
            wire=self.totals.wire_bytes_sent,
            tensors=self.tensor_bytes,
            device_to_host=self.totals.device_to_host_bytes,
            host_to_device=self.totals.host_to_device_bytes,
            collectives=dict(self.collectives),
            paths={name: dict(per_path) for name, per_path in self.paths.items()},
            policy=self.policy.report(),
            summary=self.summary(),
        )

    def summary(self) -> str:
        """One line per collective the aggregator ran: calls, block density, bytes sent vs
        tensor bytes."""
        rows = ((name, calls, self.per_collective[name]) for name, calls in self.collectives.items())
        return "\n".join(
            f"  {name}: {calls} calls, block density {s.density:.1%}, sent "
            f"{s.wire_bytes_sent / 1e6:.1f} MB for {self.per_collective_bytes[name] / 1e6:.1f} MB "
            f"of tensors, {s.retransmissions + s.queries} retransmissions/queries"
            for name, calls, s in rows
        )


class P4ReduceWork(dist.Work):
    """A collective under way on the process group's communication thread."""

    def __init__(self, future: Future[list[Any]], name: str) -> None:
        super().__init__()
        self._future = future
        self._name = name
        self._done = done = threading.Event()
        # The callback holds the Event, not the Work: no reference cycle, so a Work (and the
        # tensors its Future holds) is freed with its last reference, not by the garbage collector.
        future.add_done_callback(lambda _: done.set())
        self._chained: Future[list[Any]] | None = None

    def wait(self, timeout: datetime.timedelta | float | None = None) -> bool:
        """Block until the collective is done; raises its error (OverflowError, JobFailed,
        AllreduceTimeout, ...) if it failed. A positive `timeout` bounds the wait."""
        seconds = _seconds(timeout)
        if seconds > 0 and not self._done.wait(seconds):
            raise TimeoutError(f"p4reduce {self._name} did not complete within {seconds:g} s")
        self._future.wait()
        return True

    def get_future(self) -> Future[list[Any]]:
        """The collective's result as a torch Future that C++ reads too (DDP's reducer): a
        failed collective completes it with an error (a RuntimeError naming the collective's),
        not with the exception as its value, which the reducer took for tensors and crashed."""
        if self._chained is None:
            self._chained = self._future.then(_unwrapped)
        return self._chained

    def is_completed(self) -> bool:
        return self._future.done()

    def is_success(self) -> bool:
        return self.exception() is None if self._future.done() else False

    def exception(self) -> BaseException | None:
        if not self._future.done():
            return None
        try:
            self._future.wait()
        except BaseException as exc:  # noqa: BLE001 - reported, not raised
            return exc
        return None

    def result(self) -> list[torch.Tensor]:
        return self._future.wait()

    def __repr__(self) -> str:
        return f"P4ReduceWork({self._name}, {'done' if self._future.done() else 'pending'})"


class P4ReduceProcessGroup(dist.ProcessGroup):
    """torch.distributed process group whose collectives are p4reduce allreduces."""

    def __init__(
        self, store: Store, rank: int, size: int, timeout: datetime.timedelta, options: Options, group_id: str = ""
    ) -> None:
        super().__init__(rank, size)  # type: ignore[call-arg]  # torch's stub lists only (store, rank, size)
        if size > MAX_WORKERS:
            raise ValueError(
                f"p4reduce: a process group has at most {MAX_WORKERS} ranks (the protocol's worker bitmaps), not {size}"
            )
        self.options = options
        self.group_id = group_id
        self._group_name = group_id
        self._group_desc = ""
        self.stats = P4ReduceStats()
        self._store = _generation_store(store, size)
        store = self._store
        self._server: AggregatorServer | None = None
        self._external_key: tuple[tuple[tuple[str, int], ...], int] | None = None
        self._closed = False
        self._sequence = 0
        failure_timeout = options.failure_timeout or max(_seconds(timeout), 1.0)
        try:
            self.agent = HostAgent(self._worker_config(timeout, failure_timeout))
        except BaseException:
            self._release()
            raise
        placed = self.agent.config  # the job as the agent has it (the service's, with a controller)
        self.feedback = (
            ErrorFeedback(options.lossy_threshold, placed.block_size) if options.lossy_threshold > 0 else None
        )
        self.stager = DeviceStager(self.agent)  # device tensors' all_reduce
        self.fallback = Fallback(store, rank, size, timeout)  # what the aggregator does not run
        self.dense = Fallback(store, rank, size, timeout, prefix=DENSE_PREFIX)  # the policy's dense path
        self.policy = Policy(
            store,
            rank,
            size,
            timeout,
            self.dense.cpu_group,
            placed.block_size,
            options.dense_threshold,
            switch_target(self.agent, options),
            lambda values: self.agent.allreduce(values, out=values),
        )
        self.stats.policy = self.policy.stats
        self._queue: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        # The dense all_reduces still running on the internal group: set when one's Work is
        # done, with the storages it writes (the communication thread's own: it waits for
        # one before a collective touches its memory, and for all before a barrier or
        # shutdown). An Event, not the Work's Future: that one holds the tensors.
        self._in_flight: list[tuple[threading.Event, set[int]]] = []
        # A daemon thread: a process that exits without destroy_process_group() is not held up.
        self._thread = threading.Thread(target=self._communicate, name=f"p4reduce-pg{group_id}", daemon=True)
        self._thread.start()
        log.info(
            "p4reduce process group %s: rank %d of %d, job %d at %s (%s, block %d, %d slots)",
            group_id,
            rank,
            size,
            placed.job_id,
            ", ".join(f"{h}:{p}" for h, p in placed.endpoints),
            placed.mode.value,
            placed.block_size,
            placed.num_slots,
        )

    def _transport_options(self) -> dict[str, Any]:
        """WorkerConfig's transport options from the group's Options."""
        o = self.options
        return {"transport": o.transport, "interface": o.interface, "gateway_mac": o.gateway_mac}

    def _worker_config(self, timeout: datetime.timedelta, failure_timeout: float) -> WorkerConfig:
        """This rank's worker: of the job the job service places, of the job at the
        configured aggregators, or of the embedded aggregator's job."""
        options, rank, size = self.options, self.rank(), self.size()
        if options.controller is not None:
            return WorkerConfig(
                job_id=0,
                worker_id=rank,
                num_workers=size,
                controller=options.controller,
                job_name=self._job_name(timeout),
                failure_timeout=failure_timeout,
                key=options.key,
                credentials=options.credentials,
                **self._transport_options(),
            )
        if options.embedded:
            addresses: tuple[tuple[str, int], ...] = (self._embedded_aggregator(timeout),)
        else:
            addresses = options.aggregators
            self._claim_external_job(addresses)
        return WorkerConfig(
            job_id=options.job_id,
            worker_id=rank,
            num_workers=size,
            aggregator=addresses[0],
            aggregators=addresses if len(addresses) > 1 else (),
            mode=options.mode,
            slot_base=options.slot_base,
            num_slots=options.num_slots,
            block_size=options.block_size,
            failure_timeout=failure_timeout,
            message_size=options.message_size,
            key=options.key,
            **self._transport_options(),
        )

    def _job_name(self, timeout: datetime.timedelta) -> str:
        """The name of the group's job at the job service: the options', or one rank 0 draws
        and every rank reads from the group's store."""
        if self.options.job_name:
            return self.options.job_name
        if self.rank() == 0:
            self._store.set(JOB_NAME_KEY, f"torch-{secrets.token_hex(8)}")
        self._store.wait([JOB_NAME_KEY], timeout)
        return str(self._store.get(JOB_NAME_KEY).decode())

    # -- set-up and tear-down ---------------------------------------------------------
    def _embedded_aggregator(self, timeout: datetime.timedelta) -> tuple[str, int]:
        """Rank 0 serves the group's job on an embedded software aggregator and publishes
        where; every rank reads it from the store."""
        opts = self.options
        if self.rank() == 0:
            host = opts.embedded_host or os.environ.get("MASTER_ADDR") or "127.0.0.1"
            try:
                ip = socket.gethostbyname(host)
                spec = JobSpec(
                    opts.job_id,
                    self.size(),
                    mode=opts.mode,
                    slot_base=opts.slot_base,
                    num_slots=opts.num_slots,
                    block_size=opts.block_size,
                    message_size=opts.message_size,
                    key=opts.key,
                )
                self._server = AggregatorServer([spec], host=ip, port=0, engine=opts.engine).start()
            except (OSError, ValueError) as exc:
                message = (
                    f"p4reduce: rank 0 cannot start the embedded aggregator on {host!r} ({exc}); set "
                    "P4REDUCE_HOST to an address of rank 0's host that the other ranks reach"
                )
                self._store.set(ADDRESS_KEY, "error " + message)  # the others fail at once too
                raise OSError(message) from exc
            self._store.set(ADDRESS_KEY, "{}:{}".format(*self._server.address))
        self._store.wait([ADDRESS_KEY], timeout)
        text = self._store.get(ADDRESS_KEY).decode()
        if text.startswith("error "):
            raise RuntimeError(text.removeprefix("error "))
        host, _, port = text.rpartition(":")
        return host, int(port)

    def _claim_external_job(self, addresses: tuple[tuple[str, int], ...]) -> None:
        key = (addresses, self.options.job_id)
        with _external_lock:
            if key in _external_jobs:
                raise ValueError(
                    f"p4reduce: job {self.options.job_id} at {addresses[0][0]}:{addresses[0][1]} "
                    f"is already used by process group {_external_jobs[key]} of this process; "
                    "give this group a job of its own: pg_options=p4reduce.torch.Options("
                    "aggregators=..., job_id=...)"
                )
            _external_jobs[key] = self.group_id
            self._external_key = key

    def _release(self) -> None:
        if self._external_key is not None:
            with _external_lock:
                _external_jobs.pop(self._external_key, None)
            self._external_key = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    def shutdown(self) -> None:
        """Finish the queued collectives, then close (called by destroy_process_group).
        Rank 0 keeps an embedded aggregator up until every rank has shut down (or
        SHUTDOWN_WAIT s), so that nobody loses it in the middle of its last collective."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._thread.join()
        self.agent.close()
        self.fallback.close()
        self.dense.close()
        if self._server is not None:
            try:
                self._store.add(FINISHED_KEY, 1)
                deadline = time.monotonic() + SHUTDOWN_WAIT
                while self._store.add(FINISHED_KEY, 0) < self.size() and time.monotonic() < deadline:
                    time.sleep(0.01)
                self._store.delete_key(FINISHED_KEY)
                self._store.delete_key(ADDRESS_KEY)
            except Exception:  # noqa: BLE001 - the store may be gone with the other ranks
                pass
        elif self.options.embedded:  # rank 0 waits for this; off it nobody does, and its store may be gone
            try:
                self._store.add(FINISHED_KEY, 1)
            except Exception:  # noqa: BLE001
                pass
        self._release()

    def abort(self) -> None:
        self.shutdown()

    def getBackendName(self) -> str:  # noqa: N802 - torch's names
        return BACKEND_NAME

    # A ProcessGroup keeps its name and description in its backends; this one has none
    # (it is its own backend), so it keeps them itself. DeviceMesh (FSDP2) needs them.
    def getGroupName(self) -> str:  # noqa: N802
        return self._group_name

    def setGroupName(self, name: str) -> None:  # noqa: N802
        self._group_name = name

    def getGroupDesc(self) -> str:  # noqa: N802
        return self._group_desc

    def setGroupDesc(self, desc: str) -> None:  # noqa: N802
        self._group_desc = desc

    def __repr__(self) -> str:
        return (
            f"P4ReduceProcessGroup(rank {self.rank()} of {self.size()}, job {self.agent.config.job_id}, "
            f"{'embedded aggregator' if self.options.embedded else 'external aggregator'})"
        )

    # -- the communication thread ----------------------------------------------------
    def _communicate(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                self._wait_in_flight(None)
                return
            sequence, self._sequence = self._sequence, self._sequence + 1
            try:
                self._wait_in_flight(item.storages)
                with torch.no_grad():  # results are written into tensors that may require grad
                    later = item.run()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller through the Future
                self._fail(item, sequence, exc)
                continue
            if later is None:
                item.future.set_result(item.result)
            else:  # a dense all_reduce under way on the internal group: done when it is
                finished = threading.Event()
                self._in_flight.append((finished, item.storages or set()))
                later.add_done_callback(functools.partial(self._finish, item, sequence, finished))

    def _finish(self, item: _Queued, sequence: int, finished: threading.Event, done: Future[Any]) -> None:
        try:
            done.wait()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the Future
            self._fail(item, sequence, exc)
        else:
            item.future.set_result(item.result)
        finally:
            finished.set()

    def _fail(self, item: _Queued, sequence: int, exc: BaseException) -> None:
        exc.add_note(
            f"p4reduce: in {item.name} (collective {sequence} of process group {self.group_id!r}, rank {self.rank()})"
        )
        item.future.set_exception(exc)  # type: ignore[arg-type]  # torch's stub types it as a result

    def _wait_in_flight(self, storages: set[int] | None) -> None:
        """Wait for the dense all_reduces under way that write any of `storages` (None:
        every one)."""
        running = []
        for finished, theirs in self._in_flight:
            if storages is None or theirs & storages:
                finished.wait()
            elif not finished.is_set():
                running.append((finished, theirs))
        self._in_flight = running

    def _submit(
        self,
        name: str,
        run: Callable[[], Future[Any] | None],
        result: list[Any],
        touches: Sequence[torch.Tensor] | None = (),
    ) -> P4ReduceWork:
        """Queue `run` for the communication thread; `touches`: every tensor it reads or
        writes (device tensors are ordered with the caller's streams: DeviceOrder), None:
        it waits for every collective before it (a barrier). `run` returns a Future when
        its collective is still under way on the internal group (the policy's dense path)."""
        if self._closed:
            raise RuntimeError(f"p4reduce {name}: the process group has been shut down")
        future: Future[list[Any]] = Future()
        order = DeviceOrder(touches or ())

        def ordered() -> None:
            order.inputs_ready()
            later = run()
            if later is not None:  # the device's copies are written back when it is done
                later.wait()
            order.outputs_written()

        storages = None if touches is None else {_storage(t) for t in touches}
        self._queue.put(_Queued(name, ordered if order.devices else run, future, result, storages))
        self.stats.took(name, AGGREGATOR_PATH)
        return P4ReduceWork(future, name)

    def _fallback(self, method: str, name: str, *args: Any) -> dist.Work:
        """ProcessGroup.`method`(*args) on the internal group (p4reduce.torch.fallback)."""
        if self._closed:
            raise RuntimeError(f"p4reduce {name}: the process group has been shut down")
        self.stats.took(name, self.fallback.path(args))
        return self.fallback.call(method, args)

    def _allreduce(
        self, values: np.ndarray, in_place: bool, name: str, tensor_bytes: int, plan: BlockPlan | None = None
    ) -> np.ndarray:
        summed = values if in_place else np.empty_like(values)
        try:
            self.agent.allreduce(values, out=summed, plan=plan)
        except FloatOverflow:
            pass  # every sum is in `summed`, +-Inf where float32 overflowed: gloo's sum, Inf and all
        self.stats.count(name, tensor_bytes, self.agent.last_stats)
        return summed

    def _unsummable_anywhere(self, values: torch.Tensor, dtype: torch.dtype) -> bool:
        """Does `values` (what a sum of a tensor of `dtype` sends to the aggregator) hold, on
        some rank, what the aggregator cannot sum: NaN or Inf in a float, an int32 element
        beyond the fixed point's input bound? The same answer on every rank (one one-flag
        MAX allreduce); lane-encoded integers always fit."""
        if values.dtype == torch.float32:
            return self.policy.nonfinite_anywhere(holds_nonfinite(values, self.policy.block_size))
        if dtype == torch.int32:
            local = beyond_int_bound(values.reshape(-1), self.agent.config.scale_workers)
            return self.policy.beyond_int_bound_anywhere(local)
        return False

    def _sum_on_gloo(self, values: torch.Tensor, average: bool, name: str) -> None:
        """A sum bound for the aggregator that it cannot sum (_unsummable_anywhere): gloo's,
        in place in the CPU tensor `values`, counted as the dense path's."""
        self.policy.sum_now(values, average)
        self.stats.took(name, GLOO, instead_of=AGGREGATOR_PATH)

    def _sum(self, flat: torch.Tensor, codec: SumCodec, average: bool, in_place: bool, name: str) -> torch.Tensor:
        """Sum (or average) of a contiguous 1-D CPU tensor over the group, as a 1-D tensor of
        its dtype; `in_place` lets a float32/int32 tensor be reduced in its own memory."""
        nbytes = flat.numel() * flat.element_size()
        values = flat.detach().numpy() if codec.direct else codec.encode(flat)
        plan = None
        if values.dtype == np.float32:
            try:  # scanned once, here: the worker reads the plan, not the tensor again
                plan = self.agent.scan(values)
            except NonFiniteInput:
                pass
            if self.policy.nonfinite_anywhere(plan is None):
                if codec.direct and not in_place:
                    values = values.copy()
                self._sum_on_gloo(torch.from_numpy(values), average, name)
                return codec.decode(values, flat.numel())
        elif self._unsummable_anywhere(flat, flat.dtype):  # an int32 beyond the bound
            if not in_place:
                values = values.copy()
            self._sum_on_gloo(torch.from_numpy(values), False, name)  # (AVG needs a float)
            return codec.decode(values, flat.numel())
        summed = self._allreduce(values, in_place or not codec.direct, name, nbytes, plan)
        if average:
            np.divide(summed, self.size(), out=summed)
        return codec.decode(summed, flat.numel())

    def _device_sum(self, tensor: torch.Tensor, average: bool, name: str, feedback: ErrorFeedback | None) -> None:
        """Sum (or average) of a float32/int32 device tensor, in place, moving only its
        non-zero blocks across PCIe (p4reduce.torch.device)."""
        t = tensor.detach()
        flat = t.view(-1) if t.is_contiguous() else t.contiguous().view(-1)
        if feedback is not None:  # on this thread only: the residuals need no lock
            feedback.apply(("tensor", tensor.data_ptr(), tensor.numel()), flat)
            self.stats.blocks_dropped = feedback.blocks_dropped
            self.stats.blocks_offered = feedback.blocks_seen
        if self._unsummable_anywhere(flat, flat.dtype):
            host = flat.to("cpu")
            self._sum_on_gloo(host, average, name)
            t.copy_(host.view(t.shape))
            return
        try:
            stats = self.stager.allreduce(flat)
        except FloatOverflow:  # as in _allreduce: `flat` holds +-Inf where float32 overflowed
            stats = self.agent.last_stats  # (the stager's, copies counted)
        self.stats.count(name, flat.numel() * flat.element_size(), stats)
        if average:
            flat.div_(self.size())
        if flat.data_ptr() != t.data_ptr():
            t.copy_(flat.view(t.shape))

    def _scatter(
        self, flat: torch.Tensor, sizes: Sequence[int], codec: SumCodec, average: bool, name: str
    ) -> torch.Tensor:
        """This rank's shard of the sum (or average) of a contiguous 1-D CPU tensor made of
        shards of `sizes` elements in rank order, as a 1-D tensor of its dtype."""
        nbytes = flat.numel() * flat.element_size()
        if codec.direct:
            values = flat.detach().numpy()
        elif codec.lanes == 1:
            values = codec.encode(flat)
        else:  # lane planes per shard, so that every shard stays in one piece
            bounds = np.cumsum([0, *sizes])
            values = np.concatenate([codec.encode(flat[bounds[r] : bounds[r + 1]]) for r in range(len(sizes))])
        if self._unsummable_anywhere(torch.from_numpy(values), flat.dtype):
            whole = values.copy() if codec.direct else values  # the input stays as it was
            self._sum_on_gloo(torch.from_numpy(whole), average, name)
            start = sum(sizes[: self.rank()])  # float codecs have one lane
            return codec.decode(whole[start : start + sizes[self.rank()]], sizes[self.rank()])
        shard = np.empty(sizes[self.rank()] * codec.lanes, dtype=values.dtype)
        try:
            self.agent.reduce_scatter(values, [m * codec.lanes for m in sizes], out=shard)
        except FloatOverflow:
            pass  # as in _allreduce: the shard holds +-Inf where float32 overflowed
        self.stats.count(name, nbytes, self.agent.last_stats)
        if average:
            np.divide(shard, self.size(), out=shard)
        return codec.decode(shard, sizes[self.rank()])

    def _place(self, total_bytes: int, pieces: list[tuple[int, np.ndarray]], name: str) -> np.ndarray:
        """An allreduce in which this rank holds only `pieces` (byte offset, bytes) of a
        `total_bytes` buffer: returns the lanes carrying the whole buffer, every rank's
        pieces in place (read them with _write_bytes)."""
        lanes = placement_array(total_bytes, pieces)
        self._allreduce(lanes, True, name, total_bytes)
        return lanes

    # -- checks done when a collective is called (all ranks raise alike) -------------------
    @staticmethod
    def _single(tensors: Sequence[_T], name: str) -> _T:
        if len(tensors) != 1:
            raise ValueError(f"p4reduce {name}: expected one tensor per call, got {len(tensors)}")
        return tensors[0]

    @staticmethod
    def _aggregates(tensor: torch.Tensor, opts: object) -> bool:
        """Whether the aggregator runs this reduction: SUM of a dtype the codec takes, or AVG
        (whose dtype _codec checks: gloo has no AVG at all), of a dense tensor (gloo sums
        sparse ones as they are: DDP hands it an nn.Embedding's sparse gradients)."""
        if tensor.layout != torch.strided:
            return False
        op = getattr(opts, "reduceOp", dist.ReduceOp.SUM)
        kind = getattr(op, "op", op)
        return kind == dist.ReduceOp.AVG or (kind == dist.ReduceOp.SUM and tensor.dtype in SUPPORTED_SUM_DTYPES)

    def _codec(self, tensor: torch.Tensor, opts: object, name: str) -> tuple[SumCodec, bool]:
        op = getattr(opts, "reduceOp", dist.ReduceOp.SUM)
        kind = getattr(op, "op", op)
        if kind not in (dist.ReduceOp.SUM, dist.ReduceOp.AVG):
            raise NotImplementedError(
                f"p4reduce {name} supports ReduceOp.SUM and ReduceOp.AVG, not {getattr(kind, 'name', kind)}"
            )
        check_sum_dtype(tensor.dtype, name)
        average = kind == dist.ReduceOp.AVG
        if average:
            check_average_dtype(tensor.dtype, name)
        return SumCodec(tensor.dtype, self.size()), average

    # -- collectives ------------------------------------------------------------------
    def allreduce(self, tensors: list[torch.Tensor], opts: object = None) -> dist.Work:
        name = "all_reduce"
        tensor = self._single(tensors, name)
        if not self._aggregates(tensor, opts):
            return self._fallback("allreduce", name, tensors, opts)
        codec, average = self._codec(tensor, opts, name)

        feedback = self.feedback if tensor.dtype == torch.float32 else None  # lossy mode

        def run() -> Future[None] | None:
            if (
                feedback is None
                and tensor.dtype == torch.float32
                and self.policy.use_dense(tensor.detach().reshape(-1))
            ):
                flat, write_back = _host_flat(tensor)
                self.stats.took(name, GLOO, instead_of=AGGREGATOR_PATH)  # the policy chose the dense path
                summed = self.policy.dense_sum(flat, average)
                if not write_back:
                    return summed

                def written(done: Future[None]) -> None:
                    done.wait()
                    with torch.no_grad():
                        tensor.detach().copy_(flat.view(tensor.shape))

                return summed.then(written)
            if device_path.on_device(tensor) and codec.direct:
                self._device_sum(tensor, average, name, feedback)
                if feedback is None and tensor.dtype == torch.float32:
                    self.policy.observe(tensor)
                return None
            flat, write_back = _host_flat(tensor)
            if feedback is not None:  # on this thread only: the residuals need no lock
                feedback.apply(("tensor", tensor.data_ptr(), tensor.numel()), flat)
                self.stats.blocks_dropped = feedback.blocks_dropped
                self.stats.blocks_offered = feedback.blocks_seen
            result = self._sum(flat, codec, average, True, name)
            if feedback is None and tensor.dtype == torch.float32:
                self.policy.observe(result)
            if write_back or result.data_ptr() != flat.data_ptr():
                tensor.detach().copy_(result.view(tensor.shape))
            self.stats.staged(name, [tensor], [tensor])
            return None

        return self._submit(name, run, [tensor], [tensor])

    def allreduce_coalesced(self, tensors: list[torch.Tensor], opts: object = None) -> dist.Work:
        name = "all_reduce_coalesced"
        if not tensors:
            raise ValueError(f"p4reduce {name}: no tensors")
        if len({t.dtype for t in tensors}) != 1:
            raise TypeError(f"p4reduce {name}: the tensors must share one dtype")
        if not self._aggregates(tensors[0], opts):
            return self._fallback("allreduce_coalesced", name, tensors, opts)
        codec, average = self._codec(tensors[0], opts, name)

        def run() -> None:
            flat = torch.cat([t.detach().reshape(-1).cpu() for t in tensors])
            result = self._sum(flat, codec, average, True, name)
            offset = 0
            for t in tensors:
                t.detach().copy_(result[offset : offset + t.numel()].view(t.shape))
                offset += t.numel()
            self.stats.staged(name, tensors, tensors)

        return self._submit(name, run, list(tensors), tensors)

    def reduce_scatter_single(
        self,
        output: torch.Tensor,
        input: torch.Tensor,  # noqa: A002 - torch's name
        opts: object = None,
    ) -> dist.Work:
        name = "reduce_scatter_single"
        if input.dtype != output.dtype:
            raise TypeError(f"p4reduce {name}: input is {input.dtype}, output {output.dtype}")
        if input.numel() != self.size() * output.numel():
            raise ValueError(
                f"p4reduce {name}: input has {input.numel()} elements, expected "
                f"{self.size()} x {output.numel()} (world size x output)"
            )
        if not self._aggregates(input, opts):
            return self._fallback("_reduce_scatter_base", name, output, input, opts)
        codec, average = self._codec(input, opts, name)

        def run() -> None:
            flat, _ = _host_flat(input)
            shard = self._scatter(flat, [output.numel()] * self.size(), codec, average, name)
            output.detach().copy_(shard.view(output.shape))
            self.stats.staged(name, [input], [output])

        return self._submit(name, run, [output], [input, output])

    # c10d calls the base form with (output, input, opts), as reduce_scatter_single takes them.
    _reduce_scatter_base = reduce_scatter_single  # type: ignore[assignment]

    def reduce_scatter(
        self, output_tensors: list[torch.Tensor], input_tensors: list[list[torch.Tensor]], opts: object = None
    ) -> dist.Work:
        name = "reduce_scatter"
        output = self._single(output_tensors, name)
        inputs = self._single(input_tensors, name)
        if len(inputs) != self.size():
            raise ValueError(f"p4reduce {name}: {len(inputs)} input tensors for {self.size()} ranks")
        if any(t.dtype != output.dtype for t in inputs):
            raise TypeError(f"p4reduce {name}: every input must be {output.dtype} like the output")
        if inputs[self.rank()].numel() != output.numel():
            raise ValueError(
                f"p4reduce {name}: this rank's input has {inputs[self.rank()].numel()} elements, "
                f"its output {output.numel()}"
            )
        if not self._aggregates(output, opts):
            return self._fallback("reduce_scatter", name, output_tensors, input_tensors, opts)
        codec, average = self._codec(output, opts, name)

        def run() -> None:
            flat = torch.cat([t.detach().reshape(-1).cpu() for t in inputs])
            shard = self._scatter(flat, [t.numel() for t in inputs], codec, average, name)
            output.detach().copy_(shard.view(output.shape))
            self.stats.staged(name, inputs, [output])

        return self._submit(name, run, [output], [*inputs, output])

    def all_gather_single(
        self,
        output: torch.Tensor,
        input: torch.Tensor,  # noqa: A002
        opts: object = None,
    ) -> P4ReduceWork:
        name = "all_gather_single"
        if input.dtype != output.dtype:
            raise TypeError(f"p4reduce {name}: input is {input.dtype}, output {output.dtype}")
        if output.numel() != self.size() * input.numel():
            raise ValueError(
                f"p4reduce {name}: output has {output.numel()} elements, expected "
                f"{self.size()} x {input.numel()} (world size x input)"
            )

        def run() -> None:
            flat, _ = _host_flat(input)
            raw = tensor_bytes(flat)
            gathered = self._place(raw.size * self.size(), [(self.rank() * raw.size, raw)], name)
            _write_bytes(output, gathered, 0)
            self.stats.staged(name, [input], [output])

        return self._submit(name, run, [output], [input, output])

    _allgather_base = all_gather_single

    def allgather(
        self, output_tensors: list[list[torch.Tensor]], input_tensors: list[torch.Tensor], opts: object = None
    ) -> P4ReduceWork:
        name = "all_gather"
        outputs = self._single(output_tensors, name)
        tensor = self._single(input_tensors, name)
        if len(outputs) != self.size():
            raise ValueError(f"p4reduce {name}: {len(outputs)} output tensors for {self.size()} ranks")
        if any(o.dtype != tensor.dtype for o in outputs):
            raise TypeError(f"p4reduce {name}: every output must be {tensor.dtype} like the input")
        if outputs[self.rank()].numel() != tensor.numel():
            raise ValueError(
                f"p4reduce {name}: this rank's output has {outputs[self.rank()].numel()} "
                f"elements, its input {tensor.numel()}"
            )
        item = tensor.element_size()

        def run() -> None:
            flat, _ = _host_flat(tensor)
            sizes = [o.numel() * item for o in outputs]
            offset = sum(sizes[: self.rank()])
            gathered = self._place(sum(sizes), [(offset, tensor_bytes(flat))], name)
            start = 0
            for o, size in zip(outputs, sizes, strict=True):
                _write_bytes(o, gathered, start)
                start += size
            self.stats.staged(name, [tensor], outputs)

        return self._submit(name, run, [list(outputs)], [tensor, *outputs])

    def broadcast(self, tensors: list[torch.Tensor], opts: object = None) -> P4ReduceWork:
        name = "broadcast"
        tensor = self._single(tensors, name)
        root = getattr(opts, "rootRank", 0)
        if not 0 <= root < self.size():
            raise ValueError(f"p4reduce {name}: source rank {root} outside 0..{self.size() - 1}")

        def run() -> None:
            flat, _ = _host_flat(tensor)
            raw = tensor_bytes(flat)
            mine = [(0, raw)] if self.rank() == root else []
            received = self._place(raw.size, mine, name)
            if self.rank() != root:
                _write_bytes(tensor, received, 0)
            self.stats.staged(name, [tensor], [tensor] if self.rank() != root else [])

        return self._submit(name, run, [tensor], [tensor])

    def barrier(self, opts: object = None) -> P4ReduceWork:
        name = "barrier"

        def run() -> None:
            self._allreduce(np.ones(1, dtype=np.int32), True, name, 4)

        return self._submit(name, run, [], touches=None)  # after every collective before it, as gloo's


def _unsupported(method: str, what: str) -> Callable[..., object]:
    def refuse(self: P4ReduceProcessGroup, *args: object, **kwargs: object) -> object:
        raise NotImplementedError(f"p4reduce does not implement {what}; it supports {SUPPORTED_NAMES}")

    refuse.__name__ = method
    refuse.__doc__ = f"Not implemented by p4reduce: raises NotImplementedError naming {what}."
    return refuse


def _forwarded(method: str, name: str) -> Callable[..., dist.Work]:
    def forward(self: P4ReduceProcessGroup, *args: Any) -> dist.Work:
        return self._fallback(method, name, *args)

    forward.__name__ = method
    forward.__doc__ = f"{name}, on the internal gloo/NCCL group (p4reduce.torch.fallback)."
    return forward


for _method, _name in FALLBACK.items():
    setattr(P4ReduceProcessGroup, _method, _forwarded(_method, _name))
for _method, _what in UNSUPPORTED.items():
    setattr(P4ReduceProcessGroup, _method, _unsupported(_method, _what))


@dataclass
class _Queued:
    """A collective queued for the communication thread."""

    name: str
    run: Callable[[], Future[Any] | None]
    future: Future[list[Any]]
    result: list[Any]
    storages: set[int] | None  # the data pointers of the storages it touches; None: all (barrier)


def _generation_store(store: Store, size: int) -> Store:
    """`store` under a prefix of this group's generation only. A store can outlive a
    destroyed group (env:// shares one TCPStore per port within a process, and a rank that
    initialises again first may reach the old one), old keys and all: a rank that read them
    (the embedded aggregator's address, the job's name, the internal groups' gloo
    rendezvous) would connect to sockets that are gone. Each rank of a generation adds one
    to a counter as it makes the group, so generation g is counts g*size+1 .. (g+1)*size."""
    generation = (store.add(GENERATION_KEY, 1) - 1) // size
    return PrefixStore(f"p4reduce/{generation}/", store)


def _storage(tensor: torch.Tensor) -> int:
    """What identifies a tensor's memory: its storage's address (a sparse tensor has none
    of its own: the tensor itself)."""
    try:
        return int(tensor.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError):
        return id(tensor)


def _unwrapped(future: Future[list[Any]]) -> list[Any]:
    """The value of a completed Future, or its exception raised (in a `then` callback, that
    completes the chained Future with an error)."""
    return future.wait()


def _seconds(timeout: datetime.timedelta | float | None) -> float:
    if timeout is None:
        return 0.0
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _host_flat(tensor: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """A contiguous 1-D CPU tensor with `tensor`'s values: a view of it when it is already
    one (False), else a copy whose results must be written back (True). A GPU tensor is
    copied to the host and back; nothing here runs on a device."""
    t = tensor.detach()
    if t.device.type == "cpu" and t.is_contiguous():
        return t.view(-1), False
    return t.to("cpu").contiguous().view(-1), True


def _write_bytes(tensor: torch.Tensor, lanes: np.ndarray, offset: int) -> None:
    """Fill `tensor` (any dtype, device or layout) with the bytes from `offset` on of the
    byte stream `lanes` carry."""
    t = tensor.detach()
    if t.device.type == "cpu" and t.is_contiguous():
        read_from_lanes(lanes, offset, tensor_bytes(t.view(-1)))
        return
    host = torch.empty(t.numel(), dtype=t.dtype)
    read_from_lanes(lanes, offset, tensor_bytes(host))
    t.copy_(host.view(t.shape))


def _create(dist_options: Any, pg_options: object) -> P4ReduceProcessGroup:
    """The creator torch.distributed calls (extended API): `pg_options` is a p4reduce
    Options, or None to read the P4REDUCE_* environment."""
    if pg_options is None:
        options = Options.from_env()
    elif isinstance(pg_options, Options):
        options = pg_options
    else:
        raise TypeError(f"p4reduce: pg_options must be p4reduce.torch.Options, not {type(pg_options).__name__}")
    return P4ReduceProcessGroup(
        dist_options.store,
        dist_options.group_rank,
        dist_options.group_size,
        dist_options.timeout,
        options,
        str(dist_options.group_id),
    )


def register() -> None:
    """Register the "p4reduce" backend with torch.distributed (done by `import p4reduce.torch`)."""
    if getattr(dist.Backend, BACKEND_NAME.upper(), None) == BACKEND_NAME:
        return
    dist.Backend.register_backend(BACKEND_NAME, _create, extended_api=True, devices=["cpu", "cuda"])


def stats(group: dist.ProcessGroup | None = None) -> P4ReduceStats:
    """Counters of a p4reduce process group (the default group when None)."""
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    if not isinstance(pg, P4ReduceProcessGroup):
        raise TypeError(f"not a p4reduce process group: {pg!r}")
    return pg.stats
