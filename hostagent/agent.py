# SPDX-License-Identifier: Apache-2.0
"""The host agent: block-sparse allreduce of numpy arrays over the p4reduce protocol."""

from __future__ import annotations

import collections
import functools
import math
import secrets
import selectors
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from p4reduce.hostagent import fastpath, fixedpoint
from p4reduce.hostagent.blocks import BlockList, BlockPlan
from p4reduce.hostagent.config import WorkerConfig
from p4reduce.hostagent.endpoint import SOCKET_BUFFER_BYTES, Endpoint
from p4reduce.hostagent.errors import (
    AgentFailed,
    AllreduceTimeout,
    GeometryMismatch,
    JobFailed,
    JobKeyMismatch,
    ProtocolError,
    describe,
    error_code,
)
from p4reduce.hostagent.rto import RtoEstimator
from p4reduce.hostagent.stream import Stream
from p4reduce.hostagent.window import StreamWindow
from p4reduce.protocol import (
    ALL_WORKERS,
    EPOCH_MOD,
    HEADER_LEN,
    NONE,
    AggHeader,
    ErrorCode,
    MalformedPacket,
    Mode,
    MsgType,
    fingerprint,
)
from p4reduce.protocol.auth import MAC_LEN, authentic

if TYPE_CHECKING:
    from p4reduce.hostagent.service import LeaseKeeper
    from p4reduce.jobapi import JobClient, Placement
from p4reduce.protocol.framing import message_limit, split_datagram
from p4reduce.transport.batchio import BatchReceiver

WIRE_OVERHEAD = 14 + 20 + 8  # Ethernet + IPv4 + UDP headers per datagram
SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.int32))
_T = TypeVar("_T")


@dataclass
class AllreduceStats:
    """What one allreduce cost this worker."""

    elements: int = 0
    blocks: int = 0
    nonzero_blocks: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    payload_bytes_sent: int = 0
    payload_bytes_received: int = 0  # UDP payloads of the aggregation packets received
    retransmissions: int = 0
    queries: int = 0
    ignored_packets: int = 0
    unauthenticated: int = 0  # of those, packets without a valid MAC (an authenticated job)
    # UDP offload (native engine): UDP_SEGMENT buffers sent and the datagrams they carried,
    # UDP_GRO buffers received and the datagrams they carried
    gso_sends: int = 0
    gso_segments: int = 0
    gro_buffers: int = 0
    gro_segments: int = 0
    # Bytes a device tensor's blocks crossed PCIe (p4reduce.torch.device): to the host
    # (the non-zero blocks and their indices) and back (the sum's non-zero blocks)
    device_to_host_bytes: int = 0
    host_to_device_bytes: int = 0
    # Blocks of the tensor scanned when its first packet left (the native engine scans while
    # its first streams run; the Python engine scans every block first)
    scanned_at_send: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time during the call (all its threads)
    per_slot_retries: dict[int, int] = field(default_factory=dict)

    @property
    def wire_bytes_sent(self) -> int:
        return self.payload_bytes_sent + WIRE_OVERHEAD * self.packets_sent

    @property
    def density(self) -> float:
        return self.nonzero_blocks / self.blocks if self.blocks else 0.0

    def accumulate(self, other: AllreduceStats) -> None:
        """Add `other`'s counts and time to these (totals over many allreduces)."""
        for name in (
            "elements",
            "blocks",
            "nonzero_blocks",
            "packets_sent",
            "packets_received",
            "payload_bytes_sent",
            "payload_bytes_received",
            "retransmissions",
            "queries",
            "ignored_packets",
            "unauthenticated",
            "gso_sends",
            "gso_segments",
            "gro_buffers",
            "gro_segments",
            "device_to_host_bytes",
            "host_to_device_bytes",
            "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for slot, retries in other.per_slot_retries.items():
            self.per_slot_retries[slot] = self.per_slot_retries.get(slot, 0) + retries


def _serialized(method: Callable[..., _T]) -> Callable[..., _T]:
    """The agent's calls one at a time (HostAgent's docstring)."""

    @functools.wraps(method)
    def serialized(self: HostAgent, *args: object, **kwargs: object) -> _T:
        with self._busy:
            return method(self, *args, **kwargs)

    return serialized


class HostAgent:
    """One worker's endpoint. Call `allreduce` the same number of times, with
    tensors of the same shape, on every worker of the job.

    Safe to share between threads: concurrent calls (allreduce, reduce_scatter, reset,
    reset_job) are serialized, each running to its end before the next starts, in the
    order the threads reach the agent. Every worker of the job must still make the
    same calls in the same order, so threads that share an agent must agree on it.

    `udp_offload` says whether the native engine uses UDP GSO and GRO (and why not)."""

    def __init__(self, config: WorkerConfig) -> None:
        self._endpoints: list[Endpoint] = []
        self._lease: LeaseKeeper | None = None
        self._jobs: JobClient | None = None
        placement = None
        if config.controller is not None:  # the job service says where and with what geometry
            from p4reduce.hostagent import service  # grpc: only for agents of a placed job

            config, placement, self._jobs = service.placed(config)
        self.config = config
        # Where the job service placed the job (its target, address, geometry); None without one.
        self.placement: Placement | None = placement
        # A switch's sessions come from the job service: a JOINED with another is not the switch's.
        self._expected_session = placement.session if placement is not None and placement.target == "switch" else 0
        try:
            for address in config.endpoints:
                self._endpoints.append(
                    Endpoint(
                        address,
                        config.bind,
                        config.key,
                        config.transport,
                        config.interface,
                        config.gateway_mac,
                        config.spin_us,
                    )
                )
            self._message_size = self._datagram_size()
            if placement is not None and self._jobs is not None:
                port = self._endpoints[0].sock.getsockname()[1]
                rank = config.worker_id  # as registered (what CloseWorker names)
                # On a tree of switches: the rank and worker count of the worker's leaf job.
                config = self.config = service.register(self._jobs, placement, config, port)
                self._lease = service.LeaseKeeper(self._jobs, placement, rank)
            self._group_sock = self._join_group(config.group) if config.group else None
            receiving = [e.sock for e in self._endpoints]
            if self._group_sock is not None:
                receiving.append(self._group_sock)
            # Before anything is received: a socket's GRO must suit the engine that reads it.
            self.udp_offload = fastpath.probe_offload(config, receiving)
        except BaseException:
            self.close()
            raise
        # (receiver, the peers whose datagrams it may carry, the endpoint it belongs to; None:
        # the multicast group's, which hears every aggregator).
        self._receivers: list[tuple[BatchReceiver, set[tuple[str, int]], int | None]] = [
            (e.receiver, {e.peer}, i) for i, e in enumerate(self._endpoints)
        ]
        if self._group_sock is not None:
            self._receivers.append((BatchReceiver(self._group_sock), {e.peer for e in self._endpoints}, None))
        self._rounds = [0] * config.num_slots
        self._epoch = 0
        # This process's identity towards the aggregators (their JOINs give sessions).
        self._incarnation = secrets.randbits(32)
        self._failed: str | None = None
        self._oversize_noted = False  # transport "packet": the warning of fastpath.note_oversize given
        self._rto = RtoEstimator(config.timeout, config.timeout, config.max_timeout)
        # Streams in flight, learned across allreduces like the timeout (hostagent/window.py).
        self._window = StreamWindow(config.num_slots)
        self.last_stats = AllreduceStats()
        # One call at a time: rounds, epochs and sockets belong to one allreduce (see the class).
        self._busy = threading.RLock()

    def _datagram_size(self) -> int:
        """The message size this worker announces in its JOIN: WorkerConfig.message_size, at
        most what one frame carries on a raw transport (its interface's MTU less 28 bytes),
        where one packet must fit."""
        cfg = self.config
        limits = [e.max_datagram for e in self._endpoints if e.max_datagram is not None]
        if not limits:
            return cfg.message_size
        packet = HEADER_LEN + 4 * cfg.block_size + (MAC_LEN if cfg.key is not None else 0)
        if packet > min(limits):
            route = next(e.route for e in self._endpoints if e.route is not None)
            raise ValueError(
                f"block_size {cfg.block_size}: a {packet}-byte packet exceeds the {min(limits)} bytes one frame "
                f"carries on {route.interface} (MTU {route.mtu}); transport {cfg.transport!r} sends a datagram "
                "per frame"
            )
        return min(cfg.message_size, min(limits)) if cfg.message_size else 0

    @property
    def address(self) -> tuple[str, int]:
        """The local address this worker sends from (to its first aggregator)."""
        return self._endpoints[0].sock.getsockname()

    @property
    def _joined(self) -> bool:
        return all(e.session is not None for e in self._endpoints)

    def _endpoint(self, slot: int) -> Endpoint:
        """The aggregator that serves `slot`'s stream."""
        return self._endpoints[(slot - self.config.slot_base) % len(self._endpoints)]

    def _join_group(self, group: tuple[str, int]) -> socket.socket:
        """A socket receiving the job's multicast results on the interface that
        reaches the aggregator; several workers of one host can share the port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
        sock.bind(group)  # bound to the group address: nothing else reaches this socket
        local_ip = self.address[0]
        sock.setsockopt(
            socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group[0]) + socket.inet_aton(local_ip)
        )
        sock.setblocking(False)
        return sock

    def close(self) -> None:
        """Close the sockets; a worker of the job service tells it this rank is done (the
        last rank's close releases the job)."""
        lease, jobs = getattr(self, "_lease", None), getattr(self, "_jobs", None)
        if lease is not None:
            lease.close()
        if jobs is not None:
            jobs.close()
        for e in self._endpoints:
            e.close()
        group_sock = getattr(self, "_group_sock", None)  # absent when __init__ failed early
        if group_sock is not None:
            group_sock.close()

    def __enter__(self) -> HostAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @_serialized
    def reset(self) -> None:
        """Forget round/epoch state and the session, to pair with a reset of the job on the
        aggregator: the next allreduce joins the job afresh, as a new process would."""
        self._rounds = [0] * self.config.num_slots
        self._epoch = 0
        self._incarnation = secrets.randbits(32)
        for e in self._endpoints:
            e.session = None
        self._failed = None

    @_serialized
    def reset_job(self, timeout: float = 5.0) -> None:
        """Ask a software aggregator to forget the job's state, then reset() locally.

        Call it from one worker that has joined the job (or use the controller for
        a switch) once every worker has stopped sending; then call reset() on the
        others. The aggregator takes a RESET only from a member of the job.
        """
        cfg = self.config
        if not self._joined:
            self._join(allow_failed=True)
        for e in self._endpoints:  # every shard of the job forgets it
            session = e.session or 0
            request = AggHeader(
                MsgType.RESET, cfg.job_id, cfg.worker_id, cfg.slot_base, 0, 0, NONE, session=session
            ).pack()
            answer, _ = self._exchange(e, request, _answers_reset(request, session), timeout, "RESET")
            if answer.msg_type == MsgType.ERROR:
                raise JobFailed(cfg.job_id, cfg.worker_id, error_code(answer.block), answer.next_block)
        self.reset()

    def _check_usable(self) -> None:
        if self._failed is not None:
            raise AgentFailed(
                f"an earlier allreduce failed ({self._failed}); reset the job on "
                "the aggregator and call reset() on every worker"
            )
        self._check_held()

    def _check_held(self) -> None:
        """AgentFailed naming why, once the job service no longer holds the job (checked
        while an allreduce waits too, at least every fastpath.POLL_MAX_WAIT)."""
        if self._lease is not None and self._lease.lost is not None:
            raise AgentFailed(f"the job service no longer holds job {self.config.job_id}: {self._lease.lost}")

    def _join(self, allow_failed: bool = False) -> None:
        """JOIN the job: learn its geometry as the aggregator (or switch) has it, and a session.

        `allow_failed`: a failed job still makes this process a member (the ERROR
        carries the session), which is all a RESET needs.
        """
        cfg = self.config
        for index, e in enumerate(self._endpoints):
            if e.session is not None:
                continue
            answer, raw = self._join_exchange(e)
            if answer.msg_type == MsgType.ERROR and answer.block == ErrorCode.KEY:
                raise JobKeyMismatch(
                    f"job {cfg.job_id} worker {cfg.worker_id}: the aggregator at {e.peer[0]}:{e.peer[1]} refuses "
                    f"this worker's JOIN: {describe(ErrorCode.KEY, answer.next_block)}: do the keys match?"
                )
            if answer.msg_type == MsgType.ERROR:
                e.session = answer.session or None
                if allow_failed and e.session is not None:
                    continue
                raise JobFailed(cfg.job_id, cfg.worker_id, error_code(answer.block), answer.next_block)
            theirs = {
                "num_workers": answer.next_exp,
                "slot_base": answer.slot,
                "num_slots": answer.next_block,
                "block_size": answer.block,
                "mode": _mode_name(answer.exp),
            }
            ours = {
                "num_workers": cfg.num_workers,
                "slot_base": cfg.slot_base,
                "num_slots": cfg.num_slots,
                "block_size": cfg.block_size,
                "mode": cfg.mode.value,
            }
            # Which share of the streams it serves (a switch, which says 0, serves all).
            theirs["shard"] = f"{answer.fingerprint >> 16}/{answer.fingerprint & 0xFFFF or 1}"
            ours["shard"] = f"{index}/{len(self._endpoints)}"
            for name, value in ours.items():
                if theirs[name] != value:
                    raise GeometryMismatch(
                        f"job {cfg.job_id} worker {cfg.worker_id}: the aggregator at "
                        f"{e.peer[0]}:{e.peer[1]} has {name} {theirs[name]}, this worker "
                        f"{value}"
                    )
            if cfg.group is not None and answer.count != 1:
                raise GeometryMismatch(
                    f"job {cfg.job_id} worker {cfg.worker_id}: the aggregator at "
                    f"{e.peer[0]}:{e.peer[1]} has no multicast group for the job, this "
                    f"worker group {cfg.group[0]}:{cfg.group[1]}"
                )
            if self._expected_session and answer.session != self._expected_session:
                raise ProtocolError(
                    f"job {cfg.job_id} worker {cfg.worker_id}: JOINED from {e.peer[0]}:{e.peer[1]} "
                    f"carries session {answer.session}, the job service gave {self._expected_session}"
                )
            # A job with a multicast group: the session of the group's results (spec 6.1).
            e.group_session = int.from_bytes(raw[HEADER_LEN : HEADER_LEN + 4], "big") if answer.count == 1 else 0
            e.session = answer.session
            e.pack_up_to = message_limit(self._message_size, answer.blocks)

    def _join_exchange(self, e: Endpoint) -> tuple[AggHeader, bytes]:
        """JOIN `e` until it answers JOINED or ERROR. A CHALLENGE (an authenticated job whose
        rank has a member: spec 6.3) is met by JOINing again with its nonce; an ERROR KEY
        (the aggregator cannot check our MAC) is taken unsealed, when it names our
        incarnation."""
        cfg = self.config
        deadline = time.monotonic() + cfg.failure_timeout
        nonce = 0
        while True:
            request = AggHeader(
                MsgType.JOIN,
                cfg.job_id,
                cfg.worker_id,
                cfg.slot_base,
                0,
                self._incarnation,
                cfg.block_size,
                cfg.num_slots,
                cfg.mode.code,
                cfg.num_workers,
                blocks=self._message_size,
                fingerprint=nonce,
            ).pack()
            answer, raw = self._exchange(
                e,
                request,
                lambda h, raw: h.msg_type in _JOIN_ANSWERS and h.epoch == self._incarnation,
                max(0.0, deadline - time.monotonic()),
                "JOIN",
                lambda h: h.msg_type == MsgType.ERROR and h.block == ErrorCode.KEY,
                cfg.failure_timeout,
            )
            if answer.msg_type != MsgType.CHALLENGE:
                return answer, raw
            nonce = answer.fingerprint

    def _exchange(
        self,
        endpoint: Endpoint,
        request: bytes,
        accept: Callable[[AggHeader, bytes], bool],
        timeout: float,
        what: str,
        unsealed: Callable[[AggHeader], bool] = lambda h: False,
        waited: float | None = None,
    ) -> tuple[AggHeader, bytes]:
        """Send `request` to `endpoint` until an answer of this job that `accept`s arrives
        (`unsealed`: and may come without a MAC; `waited`: the time a timeout names, if not
        `timeout`)."""
        job_id = self.config.job_id

        def counted(size: int) -> None:
            self._check_held()  # before each (re)send: a JOIN of a dropped job waits no longer
            self.last_stats.packets_sent += 1
            self.last_stats.payload_bytes_sent += size

        answer = endpoint.exchange(
            request,
            lambda h, raw: h.job_id == job_id and h.worker_id == self.config.worker_id and accept(h, raw),
            timeout,
            lambda: self._rto.rto,
            counted,
            unsealed,
        )
        if answer is None:
            keys = (
                f"; {endpoint.unauthenticated} answers arrive without a valid MAC: do the keys match?"
                if endpoint.unauthenticated
                else ""
            )
            raise TimeoutError(
                f"job {job_id} worker {self.config.worker_id}: the aggregator at "
                f"{endpoint.peer[0]}:{endpoint.peer[1]} did not answer {what} within {waited or timeout:g} s{keys}"
            )
        return answer

    # -- public API -------------------------------------------------------------
    @_serialized
    def allreduce(self, array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Sum of `array` over all workers of the job, same shape and dtype.

        The sum goes to a new array, or to `out` (same shape and dtype,
        C-contiguous). `out=array` reduces in place like
        torch.distributed.all_reduce: nothing is allocated and the blocks that
        are zero on every worker are not touched. A wrong dtype, shape or int32
        range raises before anything is written; NaN or Inf raises ValueError
        (the native engine finds it while the first streams run: found after
        packets left, the allreduce fails on every worker, docs/protocol.md 5);
        if the allreduce fails, `out` holds a partial sum.

        int32 sums are exact; float32 sums are exact up to the fixed-point bound
        of docs/protocol.md section 5.
        """
        self._check_usable()
        started = time.perf_counter()
        array = np.asarray(array)
        if array.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"allreduce supports float32 and int32 arrays, not {array.dtype}")
        in_place = out is not None and _check_out(array, out)
        cfg = self.config
        flat = np.ascontiguousarray(array).reshape(-1)
        if array.dtype == np.int32:
            fixedpoint.check_int_input(flat, cfg.scale_workers)
        plan = self._plan(flat)
        if out is None:
            out = np.zeros(array.shape, dtype=array.dtype)
        elif not in_place:
            out[...] = 0
        self._collective(plan, flat, _BlockTarget(out.reshape(-1)), started)
        return out

    @_serialized
    def allreduce_blocks(self, blocks: BlockList, scratch: np.ndarray | None = None) -> BlockList:
        """`allreduce` of a tensor given by its non-zero blocks (a BlockList of
        block_size = the job's), returning the sum's non-zero blocks the same way: what a
        GPU hands over after finding its non-zero blocks on the device, so that only those
        cross PCIe (p4reduce.torch.device). The tensor is not scanned: the list's indices
        say which blocks are non-zero and its exponents (or its packed rows) what they
        scale to; the other workers may call `allreduce` with the dense tensor.

        `scratch` (blocks.numel elements, the dtype, C-contiguous) holds the dense tensor
        and then the sum while the allreduce runs (default: allocated); the BlockList
        returned shares no memory with it.
        """
        self._check_usable()
        started = time.perf_counter()
        cfg = self.config
        if blocks.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"allreduce_blocks supports float32 and int32 blocks, not {blocks.dtype}")
        if blocks.block_size != cfg.block_size:
            raise ValueError(
                f"allreduce_blocks: blocks of {blocks.block_size} elements, the job's are {cfg.block_size}"
            )
        if blocks.dtype == np.int32:
            fixedpoint.check_int_input(blocks.values.reshape(-1), cfg.scale_workers)
        else:  # the packed rows only (every other block is zero), named by the tensor's index
            finite = np.isfinite(blocks.values)
            if not finite.all():
                row, col = np.argwhere(~finite)[0]
                raise fixedpoint.nonfinite_input(int(blocks.indices[row]) * blocks.block_size + int(col))
        if scratch is None:
            scratch = np.empty(blocks.numel, dtype=blocks.dtype)
        elif scratch.shape != (blocks.numel,) or scratch.dtype != blocks.dtype or not scratch.flags.c_contiguous:
            raise ValueError(f"allreduce_blocks: scratch must be {blocks.numel} contiguous {blocks.dtype} elements")
        flat = blocks.dense(out=scratch)
        plan = BlockPlan.from_blocks(blocks, cfg.num_slots, flat)
        self._collective(plan, flat, _BlockTarget(flat), started)  # summed in place
        summed = BlockList.of(flat, cfg.block_size)
        return summed

    @_serialized
    def reduce_scatter(
        self, array: np.ndarray, shards: Sequence[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """This worker's shard of the sum of `array` over all workers (docs/protocol.md 3.1).

        `array` (any shape, read flat) is every rank's shard back to back, in rank order;
        `shards` are their lengths (default: equal shards, so the length must divide by
        num_workers). Every worker must pass the same layout: one that differs fails the
        allreduce on every worker (JobFailed), like a tensor of another length. Returns a
        new 1-D array of this worker's shard, or writes it to `out` (that many elements,
        same dtype, C-contiguous). Each shard starts at a block boundary (the tensor is
        padded with zero blocks, which are never sent), and an aggregator that implements
        SCATTER sends each result block's values to its owner only: a worker receives the
        headers of the other shards' rounds, not their values. Sums are exact or within
        the fixed-point bound as in `allreduce`; an int32 overflow anywhere raises
        OverflowError on every worker, a float32 sum beyond float32's range on its owner.
        """
        self._check_usable()
        started = time.perf_counter()
        cfg = self.config
        if cfg.scale_workers != cfg.num_workers:
            raise ValueError(
                "reduce_scatter needs every rank in one job: behind leaf aggregators "
                "(total_workers) a rank of the parent job is a leaf, not a worker"
            )
        array = np.asarray(array)
        if array.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"reduce_scatter supports float32 and int32 arrays, not {array.dtype}")
        flat = np.ascontiguousarray(array).reshape(-1)
        layout = _shard_layout(flat.size, cfg.num_workers, shards)
        mine = layout[cfg.worker_id]
        if out is not None:
            _check_shard_out(out, mine, array.dtype)
        size = cfg.block_size
        shard_blocks = max(-(-m // size) for m in layout) if layout else 0
        if array.dtype == np.int32:
            fixedpoint.check_int_input(flat, cfg.scale_workers)
        if all(m == shard_blocks * size for m in layout):
            padded = flat  # every shard is whole blocks: no copy
        else:  # each shard starts at its first block: zero blocks in between, never sent
            padded = np.zeros(cfg.num_workers * shard_blocks * size, dtype=flat.dtype)
            start = 0
            for rank, m in enumerate(layout):
                padded[rank * shard_blocks * size : rank * shard_blocks * size + m] = flat[start : start + m]
                start += m
        plan = self._plan(padded)
        if out is None:
            out = np.zeros(mine, dtype=array.dtype)
        else:
            out[...] = 0
        target = _BlockTarget(out.reshape(-1), cfg.worker_id * shard_blocks)
        self._collective(plan, flat, target, started, layout, shard_blocks)
        return out

    def _plan(self, flat: np.ndarray) -> BlockPlan:
        """The blocks of `flat`: the native engine scans while its first streams run (and
        finds NaN/Inf then); the Python engine's plan is scanned here, checks included."""
        cfg = self.config
        if cfg.engine == "native":
            return BlockPlan.unscanned(flat, cfg.block_size, cfg.num_slots)
        return BlockPlan.build(flat, cfg.block_size, cfg.num_slots)  # float checks happen here

    def _collective(
        self,
        plan: BlockPlan,
        flat: np.ndarray,
        target: _BlockTarget,
        started: float,
        shards: Sequence[int] | None = None,
        shard_blocks: int = 0,
    ) -> None:
        """Run one allreduce (a reduce-scatter when `shard_blocks`) of `plan` into `target`."""
        cfg = self.config
        stats = self.last_stats = AllreduceStats(elements=flat.size, blocks=plan.num_blocks)
        cpu_started = time.process_time()
        epoch = self._epoch
        try:
            if not self._joined and plan.num_streams:  # an empty tensor sends nothing
                self._join()
            epoch = self._epoch
            self._epoch = (self._epoch + 1) % EPOCH_MOD
            tag = fingerprint(epoch, flat.size, flat.dtype, cfg.block_size, cfg.num_slots, cfg.scale_workers, shards)
            if cfg.engine == "native":  # the same rounds in C (hostagent/fastpath.py)
                run = fastpath.make_run(
                    self, plan, target.flat, epoch, tag, first_block=target.first_block, shard_blocks=shard_blocks
                )
                try:
                    fastpath.run_allreduce(self, run, stats)
                finally:
                    plan.scanned = run.scanned
                rounds, overflow, target.float_overflow = run.rounds(), run.overflow, run.float_overflow
            else:
                streams = self._make_streams(plan, target, epoch, tag, shard_blocks)
                self._run(streams, stats)
                stats.scanned_at_send = plan.num_blocks if stats.packets_sent else 0  # scanned first
                rounds, overflow = [s.round for s in streams], any(s.overflow for s in streams)
        except BaseException as exc:
            if isinstance(exc, fixedpoint.NonFiniteInput) and not exc.sent:
                self._epoch = epoch  # NaN/Inf before anything left: as if the call had not been made
            else:  # (found after packets left, the other workers fail too: docs/protocol.md 5)
                self._failed = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            stats.seconds = time.perf_counter() - started
            stats.cpu_seconds = time.process_time() - cpu_started
            # (the native engine's plan is complete once its run is)
            stats.nonzero_blocks = int(plan.nonzero[: plan.scanned].sum())
        self._rounds[: len(rounds)] = rounds
        if overflow:
            raise OverflowError("the aggregator reported an int32 overflow in the sum")
        if target.float_overflow:
            raise OverflowError("the float32 sum of some block exceeds float32's range (inf)")

    # -- internals --------------------------------------------------------------
    def _make_streams(
        self, plan: BlockPlan, out: _BlockTarget, epoch: int, tag: int, shard_blocks: int = 0
    ) -> list[Stream]:
        cfg = self.config
        n = cfg.scale_workers
        size, flat_out, first = cfg.block_size, out.flat, out.first_block

        def encode(block: int, exp: int, wire: memoryview) -> None:
            # float32: quantized at exp; int32: as they are; a cut last block zero-padded.
            plan.encode(block, exp, n, wire)

        def deliver(block: int, exp: int, values: np.ndarray) -> None:
            if block >= plan.num_blocks:
                raise ProtocolError(f"result for block {block} of a {plan.num_blocks}-block tensor")
            # float32: dequantized (True: the sum overflowed to inf); int32: as they are.
            # A cut last block (of the tensor, or of this worker's shard) takes only its own values.
            local = block - first
            if fixedpoint.dequantize_into(values, exp, n, flat_out[local * size : (local + 1) * size]):
                out.float_overflow = True

        def delivered(block: int, exp: int, values: np.ndarray) -> bool:
            """Whether `values` are what deliver() stored for `block` (a duplicate RESULT)."""
            local = block - first
            held = flat_out[local * size : (local + 1) * size]
            again = np.empty_like(held)
            fixedpoint.dequantize_into(values, exp, n, again)
            return again.tobytes() == held.tobytes()

        streams = []
        for s in range(plan.num_streams):
            mine = plan.stream_blocks(s, cfg.num_slots)
            endpoint = self._endpoint(cfg.slot_base + s)
            streams.append(
                Stream(
                    job_id=cfg.job_id,
                    worker_id=cfg.worker_id,
                    slot=cfg.slot_base + s,
                    round_=self._rounds[s],
                    epoch=epoch,
                    mode=cfg.mode,
                    my_blocks=mine,
                    my_exps={b: int(plan.exps[b]) for b in mine[:-1]},
                    block_size=cfg.block_size,
                    quantize=None,  # encode writes the values into the datagram
                    encode=encode,
                    deliver=deliver,
                    delivered=delivered,
                    session=endpoint.session or 0,
                    group_session=endpoint.group_session,
                    blocks=plan.num_blocks,
                    fingerprint=tag,
                    shard_blocks=shard_blocks,
                    stream=s,
                    num_slots=cfg.num_slots,
                )
            )
        return streams

    def _send(self, slot: int, packet: bytes | bytearray, stats: AllreduceStats) -> None:
        """Queue a packet of `slot`'s stream; `_flush` hands the queues to the kernel."""
        stats.payload_bytes_sent += self._endpoint(slot).send(packet)
        stats.packets_sent += 1

    def _flush(self) -> None:
        for e in self._endpoints:
            e.flush()

    def _run(self, streams: list[Stream], stats: AllreduceStats) -> None:
        """Run the streams to the end, at most the window's worth in flight.

        Streams start in order as the window allows and, once started, run every
        round to the end: a worker delays a stream but never skips or pauses
        one (in dense mode a round needs every worker, and a stream nobody has
        started cannot finish). The lowest unfinished stream is always started
        by every worker, so whatever windows the workers hold, it completes.
        """
        active: dict[int, Stream] = {}  # started and not finished, by slot: the packets in flight
        timers: dict[int, _RoundTimer] = {}
        waiting = collections.deque(streams)  # not started yet
        self._window.restart()

        def release() -> float:
            """Start waiting streams up to the window; returns the earliest new deadline."""
            now, earliest = time.monotonic(), math.inf
            while waiting and len(active) < self._window.size:
                s = waiting.popleft()
                active[s.slot] = s
                timers[s.slot] = _RoundTimer(self._rto.rto, now)
                earliest = min(earliest, timers[s.slot].deadline)
                self._send(s.slot, s.start(), stats)
            self._flush()
            return earliest

        next_check = release()
        remaining = len(streams)
        sel = selectors.DefaultSelector()
        for e in self._endpoints:
            sel.register(e.sock, selectors.EVENT_READ)
        if self._group_sock is not None:
            sel.register(self._group_sock, selectors.EVENT_READ)
        try:
            while remaining:
                self._check_held()
                if sel.select(min(fastpath.POLL_MAX_WAIT, max(0.0, next_check - time.monotonic()))):
                    for receiver, peers, endpoint in self._receivers:
                        while batch := receiver.recv():
                            remaining -= self._process(batch, peers, endpoint, active, timers, stats)
                            # Finished streams and clean rounds make room for more.
                            next_check = min(next_check, release())
                now = time.monotonic()
                if remaining and now >= next_check:
                    next_check = min(self._expire(active, timers, now, stats), release())
                    self._flush()
        finally:
            sel.close()

    def _process(
        self,
        batch: list[tuple[memoryview, tuple[str, int]]],
        peers: set[tuple[str, int]],
        endpoint: int | None,
        by_slot: dict[int, Stream],
        timers: dict[int, _RoundTimer],
        stats: AllreduceStats,
    ) -> int:
        """Handle datagrams received on endpoint `endpoint`'s socket (None: the multicast
        group's); returns how many streams finished."""
        finished = 0
        for datagram, source in batch:
            if source not in peers:  # only the group socket can hear others
                stats.ignored_packets += 1
                continue
            packets, leftover = split_datagram(datagram)
            stats.ignored_packets += bool(leftover)
            finished += self._process_packets(packets, source, endpoint, by_slot, timers, stats)
        return finished

    def _process_packets(
        self,
        packets: list[memoryview],
        source: tuple[str, int],
        endpoint: int | None,
        by_slot: dict[int, Stream],
        timers: dict[int, _RoundTimer],
        stats: AllreduceStats,
    ) -> int:
        """The packets of one datagram from `source` (docs/protocol.md 7: what a worker takes)."""
        cfg = self.config
        finished = 0
        for payload in packets:
            stats.packets_received += 1
            stats.payload_bytes_received += len(payload)
            try:
                h = AggHeader.unpack(payload)
            except MalformedPacket:
                stats.ignored_packets += 1
                continue
            if not authentic(cfg.key, payload):  # an authenticated job's: sealed, a valid MAC
                stats.unauthenticated += 1
                stats.ignored_packets += 1
                continue
            # Addressed to this worker by unicast, or to the job's group on the group's socket.
            if h.job_id != cfg.job_id or h.worker_id != (cfg.worker_id if endpoint is not None else ALL_WORKERS):
                stats.ignored_packets += 1
                continue
            if h.msg_type == MsgType.ERROR:  # about the job, whichever slot it names
                # Only an answer to one of ours (its session echoed) from the aggregator itself.
                if endpoint is None or h.session != self._endpoints[endpoint].session:
                    stats.ignored_packets += 1
                    continue
                raise JobFailed(cfg.job_id, cfg.worker_id, error_code(h.block), h.next_block, h.epoch)
            stream = by_slot.get(h.slot)
            # From the aggregator serving the stream, with this worker's session (or the group's).
            if (
                stream is None
                or (endpoint is not None and self._endpoint(h.slot) is not self._endpoints[endpoint])
                or h.session != (stream.session if endpoint is not None else stream.group_session)
            ):
                stats.ignored_packets += 1
                continue
            if h.msg_type == MsgType.PENDING:
                stream.on_pending(h)
                continue
            if h.msg_type != MsgType.RESULT:
                stats.ignored_packets += 1
                continue
            before, retried = stream.round, stream.retries
            reply = stream.on_result(h, payload, source)
            if stream.round == before:
                stats.ignored_packets += 1
                continue
            now = time.monotonic()
            if not retried:  # Karn: a retransmitted round's latency is ambiguous
                latency = now - timers[h.slot].started
                self._rto.sample(latency)
                self._window.on_round(latency)
            if stream.done:
                finished += 1
                del by_slot[h.slot], timers[h.slot]  # no longer in flight
                continue
            if reply is not None:
                self._send(h.slot, reply, stats)
                if self._endpoint(h.slot).sender.full:
                    self._flush()
            timers[h.slot] = _RoundTimer(self._rto.rto, now)
        return finished

    def _expire(
        self, active: dict[int, Stream], timers: dict[int, _RoundTimer], now: float, stats: AllreduceStats
    ) -> float:
        """Retransmit for every stream in flight whose timer ran out (and shrink the
        window); returns the next check time."""
        cfg = self.config
        earliest = math.inf
        for s in active.values():
            timer = timers[s.slot]
            if timer.deadline <= now:
                if now - timer.started >= cfg.failure_timeout:
                    raise AllreduceTimeout(cfg, s, now - timer.started)
                self._window.on_loss(timer.started, now)
                s.retries += 1
                assert s.pending is not None
                self._send(s.slot, s.pending, stats)
                stats.per_slot_retries[s.slot] = stats.per_slot_retries.get(s.slot, 0) + 1
                if s.pending_is_query:
                    stats.queries += 1
                else:
                    stats.retransmissions += 1
                timer.backoff(now, cfg.max_timeout)
            earliest = min(earliest, timer.deadline)
        return earliest


def _check_out(array: np.ndarray, out: np.ndarray) -> bool:
    """Validates an `out` argument; True when it is `array` itself (in place)."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.shape != array.shape or out.dtype != array.dtype:
        raise ValueError(f"out is {out.dtype}{list(out.shape)}, the tensor is {array.dtype}{list(array.shape)}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writable C-contiguous array")
    same = out.__array_interface__["data"][0] == array.__array_interface__["data"][0] and array.flags.c_contiguous
    if not same and np.may_share_memory(out, array):
        raise ValueError("out overlaps the tensor without being it")
    return same


class _BlockTarget:
    """Where aggregated blocks land: the flat output (the kernels write a cut last
    block's own values only), from block `first_block` on (a reduce-scatter's shard),
    and whether a float32 sum overflowed."""

    def __init__(self, flat: np.ndarray, first_block: int = 0) -> None:
        self.flat = flat
        self.first_block = first_block
        self.float_overflow = False  # a delivered float32 block summed to inf


def _shard_layout(length: int, num_workers: int, shards: Sequence[int] | None) -> list[int]:
    """Every rank's shard length (equal shards by default)."""
    if shards is None:
        if length % num_workers:
            raise ValueError(
                f"reduce_scatter of {length} elements over {num_workers} workers: the length "
                "must divide by the workers, or give the shard lengths"
            )
        return [length // num_workers] * num_workers
    layout = [int(m) for m in shards]
    if len(layout) != num_workers or min(layout, default=0) < 0 or sum(layout) != length:
        raise ValueError(
            f"shards {layout} must be {num_workers} lengths >= 0 summing to the tensor's {length} elements"
        )
    return layout


def _check_shard_out(out: np.ndarray, size: int, dtype: np.dtype) -> None:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.size != size or out.dtype != dtype:
        raise ValueError(f"out is {out.dtype}[{out.size}], this worker's shard {dtype}[{size}]")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writable C-contiguous array")


@dataclass
class _RoundTimer:
    """Retransmission timer of one stream's current round."""

    timeout: float
    started: float
    deadline: float = 0.0

    def __post_init__(self) -> None:
        self.deadline = self.started + self.timeout

    def backoff(self, now: float, cap: float) -> None:
        self.timeout = min(self.timeout * 2, cap)
        self.deadline = now + self.timeout


_JOIN_ANSWERS = frozenset({MsgType.JOINED, MsgType.ERROR, MsgType.CHALLENGE})


def _answers_reset(request: bytes, session: int) -> Callable[[AggHeader, bytes], bool]:
    """A RESET is answered by its own echo (sealed or not: the version byte's AUTH flag and a
    MAC aside), or by an ERROR for the session it was sent with."""
    return lambda h, raw: (
        raw[1:HEADER_LEN] == request[1:HEADER_LEN] or (h.msg_type == MsgType.ERROR and h.session == session)
    )


def _mode_name(code: int) -> str:
    try:
        return Mode.from_code(code).value
    except ValueError:
        return f"unknown mode {code}"
