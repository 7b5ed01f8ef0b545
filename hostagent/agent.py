# SPDX-License-Identifier: Apache-2.0
"""The host agent: block-sparse allreduce of numpy arrays over the p4reduce protocol."""

from __future__ import annotations

import functools
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockList, BlockPlan
from p4reduce.hostagent.config import WorkerConfig
from p4reduce.hostagent.endpoint import SOCKET_BUFFER_BYTES, Endpoint
from p4reduce.hostagent.engine_api import (
    POLL_MAX_WAIT,
    AllreduceStats,
    BlockTarget,
    Collective,
    EngineIO,
    WorkerEngine,
)
from p4reduce.hostagent.errors import (
    AgentFailed,
    FloatOverflow,
    GeometryMismatch,
    JobFailed,
    JobKeyMismatch,
    NonFiniteInput,
    ProtocolError,
    describe,
    error_code,
)
from p4reduce.hostagent.fastpath import NativeEngine
from p4reduce.hostagent.rto import RtoEstimator
from p4reduce.hostagent.stream_engine import StreamEngine
from p4reduce.hostagent.window import StreamWindow
from p4reduce.protocol import (
    EPOCH_MOD,
    HEADER_LEN,
    NONE,
    AggHeader,
    ErrorCode,
    Mode,
    MsgType,
    fingerprint,
)
from p4reduce.protocol.auth import MAC_LEN

if TYPE_CHECKING:
    from p4reduce.hostagent.service import LeaseKeeper
    from p4reduce.jobapi import JobClient, Placement
    from p4reduce.transport.udp_offload import UdpOffload
from p4reduce.protocol.framing import message_limit

SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.int32))
# WorkerConfig.engine's implementations (config.ENGINES), made once per agent.
ENGINES: dict[str, Callable[[EngineIO], WorkerEngine]] = {"native": NativeEngine, "python": StreamEngine}
_T = TypeVar("_T")


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

    `udp_offload` says whether the native engine uses UDP GSO and GRO (and why not).
    Both engines (WorkerConfig.engine) run behind the interface of hostagent/engine_api.py."""

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
            # What the engine works with: the agent's sockets, and the timeout and window of
            # streams in flight, learned across allreduces (hostagent/rto.py, window.py).
            self._io = EngineIO(
                config,
                self._endpoints,
                self._group_sock,
                RtoEstimator(config.timeout, config.timeout, config.max_timeout),
                StreamWindow(config.num_slots),
            )
            # Chosen once. Before anything is received: a socket's GRO must suit the engine that reads it.
            self._engine: WorkerEngine = ENGINES[config.engine](self._io)
        except BaseException:
            self.close()
            raise
        self._rounds = [0] * config.num_slots
        self._epoch = 0
        # This process's identity towards the aggregators (their JOINs give sessions).
        self._incarnation = secrets.randbits(32)
        self._failed: str | None = None
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

    @property
    def engine(self) -> WorkerEngine:
        """The engine that runs this agent's collectives (WorkerConfig.engine), and its
        `io`: what the agent hands it (hostagent/engine_api.py)."""
        return self._engine

    @property
    def udp_offload(self) -> UdpOffload:
        """Whether the native engine uses UDP GSO and GRO (and why not)."""
        return self._engine.udp_offload

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
        while an allreduce waits too, at least every POLL_MAX_WAIT)."""
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
            lambda: self._io.rto.rto,
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
    def scan(self, array: np.ndarray) -> BlockPlan:
        """The blocks of the C-contiguous float32/int32 `array`, scanned whole now (its
        non-zero blocks and exponents): hand it to `allreduce(array, plan=...)`, which then
        does not read the array again. NaN or Inf raises ValueError (NonFiniteInput), with
        nothing sent: a caller that must agree with the other workers on what to do
        about them learns it before the allreduce, not in it."""
        array = np.asarray(array)
        if array.dtype not in SUPPORTED_DTYPES or not array.flags.c_contiguous:
            raise TypeError(f"scan takes a C-contiguous float32 or int32 array, not {array.dtype}")
        return BlockPlan.build(array.reshape(-1), self.config.block_size, self.config.num_slots)

    @_serialized
    def allreduce(self, array: np.ndarray, out: np.ndarray | None = None, plan: BlockPlan | None = None) -> np.ndarray:
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
        of docs/protocol.md section 5. `plan`: what `scan(array)` returned (the
        array's blocks, read already).
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
        if plan is None:
            plan = self._plan(flat)
        elif not _plan_of(plan, flat, cfg.block_size, cfg.num_slots):
            raise ValueError("allreduce: `plan` is not this array's (it must come from this agent's scan(array))")
        if out is None:
            out = np.zeros(array.shape, dtype=array.dtype)
        elif not in_place:
            out[...] = 0
        self._collective(plan, flat, BlockTarget(out.reshape(-1)), started)
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
        self._collective(plan, flat, BlockTarget(flat), started)  # summed in place
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
        target = BlockTarget(out.reshape(-1), cfg.worker_id * shard_blocks)
        self._collective(plan, flat, target, started, layout, shard_blocks)
        return out

    def _plan(self, flat: np.ndarray) -> BlockPlan:
        """The blocks of `flat`: the native engine scans while its first streams run (and
        finds NaN/Inf then); the Python engine's plan is scanned here, checks included."""
        return self._engine.plan(flat)

    def _collective(
        self,
        plan: BlockPlan,
        flat: np.ndarray,
        target: BlockTarget,
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
            run = self._engine.begin(plan, target, epoch, tag, self._rounds, stats, shard_blocks)
            try:
                self._drive(run)
                rounds, overflow = run.result()
            finally:
                run.close()
        except BaseException as exc:
            if isinstance(exc, NonFiniteInput) and not exc.sent:
                self._epoch = epoch  # NaN/Inf before anything left: as if the call had not been made
            else:  # (found after packets left, the other workers fail too: docs/protocol.md 5)
                self._failed = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            stats.seconds = time.perf_counter() - started
            stats.cpu_seconds = time.process_time() - cpu_started
            # (the native engine's plan is complete once its run is closed)
            stats.nonzero_blocks = int(plan.nonzero[: plan.scanned].sum())
        self._rounds[: len(rounds)] = rounds
        if overflow:
            raise OverflowError("the aggregator reported an int32 overflow in the sum")
        if target.float_overflow:
            raise FloatOverflow()

    def _drive(self, run: Collective) -> None:
        """Run the collective's streams to the end, at most the window's worth in flight.

        Streams start in order as the window allows and, once started, run every
        round to the end: a worker delays a stream but never skips or pauses
        one (in dense mode a round needs every worker, and a stream nobody has
        started cannot finish). The lowest unfinished stream is always started
        by every worker, so whatever windows the workers hold, it completes.
        Between two waits (POLL_MAX_WAIT at most) the agent looks whether the job
        service still holds the job.
        """
        self._io.window.restart()
        run.release()
        while run.unfinished:
            self._check_held()
            run.poll(POLL_MAX_WAIT)
            now = time.monotonic()
            if run.unfinished and now >= run.next_deadline():
                run.expire(now)


def _plan_of(plan: BlockPlan, flat: np.ndarray, block_size: int, num_slots: int) -> bool:
    """Is `plan` the whole scan of `flat` (the same memory) at this block size and slot count?"""
    theirs = plan.flat
    return (
        theirs is not None
        and theirs.dtype == flat.dtype
        and theirs.size == flat.size
        and theirs.ctypes.data == flat.ctypes.data
        and plan.body.shape[1] == block_size
        and plan.num_streams == min(num_slots, plan.num_blocks)
        and plan.scanned == plan.num_blocks
    )


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
