"""The host agent: block-sparse allreduce of numpy arrays over the p4reduce protocol."""
from __future__ import annotations

import math
import select
import selectors
import socket
import time
from dataclasses import dataclass, field

import numpy as np

from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.hostagent.config import WorkerConfig
from p4reduce.hostagent.rto import RtoEstimator
from p4reduce.hostagent.stream import Stream
from p4reduce.transport.batchio import BatchReceiver, BatchSender
from p4reduce.protocol import ALL_WORKERS, EPOCH_MOD, NONE, AggHeader, MalformedPacket, MsgType

SOCKET_BUFFER_BYTES = 8 << 20
WIRE_OVERHEAD = 14 + 20 + 8  # Ethernet + IPv4 + UDP headers per datagram
SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.int32))


@dataclass
class AllreduceStats:
    """What one allreduce cost this worker."""

    elements: int = 0
    blocks: int = 0
    nonzero_blocks: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    payload_bytes_sent: int = 0
    retransmissions: int = 0
    queries: int = 0
    ignored_packets: int = 0
    seconds: float = 0.0
    per_slot_retries: dict[int, int] = field(default_factory=dict)

    @property
    def wire_bytes_sent(self) -> int:
        return self.payload_bytes_sent + WIRE_OVERHEAD * self.packets_sent

    @property
    def density(self) -> float:
        return self.nonzero_blocks / self.blocks if self.blocks else 0.0

    def accumulate(self, other: AllreduceStats) -> None:
        """Add `other`'s counts and time to these (totals over many allreduces)."""
        for name in ("elements", "blocks", "nonzero_blocks", "packets_sent", "packets_received",
                     "payload_bytes_sent", "retransmissions", "queries", "ignored_packets", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for slot, retries in other.per_slot_retries.items():
            self.per_slot_retries[slot] = self.per_slot_retries.get(slot, 0) + retries


class AgentFailed(RuntimeError):
    """A previous allreduce failed; slot state must be reset on both sides."""


class HostAgent:
    """One worker's endpoint. Call `allreduce` the same number of times, with
    tensors of the same shape, on every worker of the job."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            self._sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
        self._sock.bind(config.bind)
        # Connected: the kernel drops datagrams from anyone but the aggregator.
        self._sock.connect(config.aggregator)
        self._sock.setblocking(False)
        self._peer = self._sock.getpeername()
        self._receivers = [BatchReceiver(self._sock)]
        self._sender = BatchSender(self._sock)
        self._group_sock = self._join_group(config.group) if config.group else None
        if self._group_sock is not None:
            self._receivers.append(BatchReceiver(self._group_sock))
        self._rounds = [0] * config.num_slots
        self._epoch = 0
        self._failed: str | None = None
        self._rto = RtoEstimator(config.timeout, config.timeout, config.max_timeout)
        self.last_stats = AllreduceStats()

    @property
    def address(self) -> tuple[str, int]:
        return self._sock.getsockname()

    def _join_group(self, group: tuple[str, int]) -> socket.socket:
        """A socket receiving the job's multicast results on the interface that
        reaches the aggregator; several workers of one host can share the port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
        sock.bind(group)  # bound to the group address: nothing else reaches this socket
        local_ip = self._sock.getsockname()[0]
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                        socket.inet_aton(group[0]) + socket.inet_aton(local_ip))
        sock.setblocking(False)
        return sock

    def close(self) -> None:
        self._sock.close()
        if self._group_sock is not None:
            self._group_sock.close()

    def __enter__(self) -> HostAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self) -> None:
        """Forget round/epoch state, to pair with a reset of the job on the aggregator."""
        self._rounds = [0] * self.config.num_slots
        self._epoch = 0
        self._failed = None

    def reset_job(self, timeout: float = 5.0) -> None:
        """Ask a software aggregator to forget the job's slot state, then reset() locally.

        Call it from one worker (or use the controller for a switch) once every
        worker has stopped sending; then call reset() on the others.
        """
        cfg = self.config
        request = AggHeader(MsgType.RESET, cfg.job_id, cfg.worker_id, cfg.slot_base, 0, 0,
                            NONE).pack()
        deadline = time.monotonic() + timeout
        buf = bytearray(65535)
        while time.monotonic() < deadline:
            self._send(request, self.last_stats)
            self._flush()
            until = min(deadline, time.monotonic() + self._rto.rto)
            while time.monotonic() < until:
                ready, _, _ = select.select([self._sock], [], [], until - time.monotonic())
                if not ready:
                    break
                try:
                    n = self._sock.recv_into(buf)
                except (BlockingIOError, ConnectionRefusedError):
                    continue
                if bytes(buf[:n]) == request:
                    self.reset()
                    return
        raise TimeoutError(f"job {cfg.job_id}: the aggregator did not acknowledge RESET "
                           f"within {timeout} s")

    # -- public API -------------------------------------------------------------
    def allreduce(self, array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Sum of `array` over all workers of the job, same shape and dtype.

        The sum goes to a new array, or to `out` (same shape and dtype,
        C-contiguous). `out=array` reduces in place like
        torch.distributed.all_reduce: nothing is allocated and the blocks that
        are zero on every worker are not touched. Bad input raises before
        anything is written; if the allreduce itself fails, `out` holds a
        partial sum.

        int32 sums are exact; float32 sums are exact up to the fixed-point bound
        of docs/protocol.md section 5.
        """
        if self._failed is not None:
            raise AgentFailed(f"an earlier allreduce failed ({self._failed}); reset the job on "
                              "the aggregator and call reset() on every worker")
        started = time.perf_counter()
        array = np.asarray(array)
        if array.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"allreduce supports float32 and int32 arrays, not {array.dtype}")
        in_place = out is not None and _check_out(array, out)
        cfg = self.config
        flat = np.ascontiguousarray(array).reshape(-1)
        if array.dtype == np.int32:
            fixedpoint.check_int_input(flat, cfg.scale_workers)
        plan = BlockPlan.build(flat, cfg.block_size, cfg.num_slots)  # float checks happen here
        if out is None:
            out = np.zeros(array.shape, dtype=array.dtype)
        elif not in_place:
            out[...] = 0
        epoch = self._epoch
        self._epoch = (self._epoch + 1) % EPOCH_MOD
        stats = self.last_stats = AllreduceStats(
            elements=flat.size, blocks=plan.num_blocks, nonzero_blocks=int(plan.nonzero.sum()))
        target = _BlockTarget(out.reshape(-1), cfg.block_size)
        try:
            streams = self._make_streams(plan, target, epoch)
            self._run(streams, stats)
        except BaseException as exc:
            self._failed = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            target.finish()
            stats.seconds = time.perf_counter() - started
        for s in streams:
            self._rounds[s.slot - cfg.slot_base] = s.round
        if any(s.overflow for s in streams):
            raise OverflowError("the aggregator reported an int32 overflow in the sum")
        return out

    # -- internals --------------------------------------------------------------
    def _make_streams(self, plan: BlockPlan, out: _BlockTarget, epoch: int) -> list[Stream]:
        cfg = self.config
        is_float = plan.dtype == np.float32
        n = cfg.scale_workers

        def quantize(block: int, exp: int) -> np.ndarray:
            values = plan.block(block)
            return fixedpoint.quantize(values, exp, n) if is_float else values

        def deliver(block: int, exp: int, values: np.ndarray) -> None:
            if is_float:
                fixedpoint.dequantize_into(values, exp, n, out.block(block))
            else:
                out.block(block)[:] = values

        streams = []
        for s in range(plan.num_streams):
            mine = plan.stream_blocks(s, cfg.num_slots)
            streams.append(Stream(
                job_id=cfg.job_id, worker_id=cfg.worker_id, slot=cfg.slot_base + s,
                round_=self._rounds[s], epoch=epoch, mode=cfg.mode, my_blocks=mine,
                my_exps={b: int(plan.exps[b]) for b in mine[:-1]},
                block_size=cfg.block_size, quantize=quantize, deliver=deliver))
        return streams

    def _send(self, packet: bytes | bytearray, stats: AllreduceStats) -> None:
        """Queue a packet; `_flush` hands the queue to the kernel in one call."""
        self._sender.add((packet,), self._peer)
        stats.packets_sent += 1
        stats.payload_bytes_sent += len(packet)

    def _flush(self) -> None:
        # Refused datagrams (full buffer, aggregator not up yet) are covered by
        # the retransmission timer.
        self._sender.flush()

    def _run(self, streams: list[Stream], stats: AllreduceStats) -> None:
        cfg = self.config
        by_slot = {s.slot: s for s in streams}
        timers = {s.slot: _RoundTimer(self._rto.rto, time.monotonic()) for s in streams}
        for s in streams:
            self._send(s.start(), stats)
        self._flush()
        remaining = len(streams)
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        if self._group_sock is not None:
            sel.register(self._group_sock, selectors.EVENT_READ)
        next_check = time.monotonic() + self._rto.rto
        try:
            while remaining:
                if sel.select(max(0.0, next_check - time.monotonic())):
                    for receiver in self._receivers:
                        while batch := receiver.recv():
                            remaining -= self._process(batch, by_slot, timers, stats)
                            self._flush()
                now = time.monotonic()
                if remaining and now >= next_check:
                    next_check = self._expire(streams, timers, now, stats)
                    self._flush()
        finally:
            sel.close()

    def _process(self, batch: list[tuple[memoryview, tuple[str, int]]], by_slot: dict[int, Stream],
                 timers: dict[int, _RoundTimer], stats: AllreduceStats) -> int:
        """Handle received datagrams; returns how many streams finished."""
        cfg = self.config
        finished = 0
        for payload, source in batch:
            stats.packets_received += 1
            if source != self._peer:  # only the group socket can hear others
                stats.ignored_packets += 1
                continue
            try:
                h = AggHeader.unpack(payload)
            except MalformedPacket:
                stats.ignored_packets += 1
                continue
            stream = by_slot.get(h.slot)
            if (stream is None or h.job_id != cfg.job_id
                    or h.worker_id not in (cfg.worker_id, ALL_WORKERS)):
                stats.ignored_packets += 1
                continue
            if h.msg_type == MsgType.PENDING:
                stream.on_pending(h)
                continue
            if h.msg_type != MsgType.RESULT:
                stats.ignored_packets += 1
                continue
            before, retried = stream.round, stream.retries
            reply = stream.on_result(h, payload)
            if stream.round == before:
                stats.ignored_packets += 1
                continue
            now = time.monotonic()
            if not retried:  # Karn: a retransmitted round's latency is ambiguous
                self._rto.sample(now - timers[h.slot].started)
            if stream.done:
                finished += 1
                continue
            if reply is not None:
                self._send(reply, stats)
                if self._sender.full:
                    self._flush()
            timers[h.slot] = _RoundTimer(self._rto.rto, now)
        return finished

    def _expire(self, streams: list[Stream], timers: dict[int, _RoundTimer], now: float,
                stats: AllreduceStats) -> float:
        """Retransmit for every stream whose timer ran out; returns the next check time."""
        cfg = self.config
        earliest = math.inf
        for s in streams:
            if s.done:
                continue
            timer = timers[s.slot]
            if timer.deadline <= now:
                if now - timer.started >= cfg.failure_timeout:
                    raise AllreduceTimeout(cfg, s, now - timer.started)
                s.retries += 1
                assert s.pending is not None
                self._send(s.pending, stats)
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
        raise ValueError(f"out is {out.dtype}{list(out.shape)}, the tensor is "
                         f"{array.dtype}{list(array.shape)}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writable C-contiguous array")
    same = (out.__array_interface__["data"][0] == array.__array_interface__["data"][0]
            and array.flags.c_contiguous)
    if not same and np.may_share_memory(out, array):
        raise ValueError("out overlaps the tensor without being it")
    return same


class _BlockTarget:
    """Where aggregated blocks land: rows of the flat output, and a scratch row
    for a last block that is cut short (copied over by `finish`)."""

    def __init__(self, flat: np.ndarray, block_size: int) -> None:
        self._flat = flat
        self._nfull = flat.size // block_size
        self._body = flat[: self._nfull * block_size].reshape(self._nfull, block_size)
        self._tail = np.zeros(block_size, dtype=flat.dtype) if flat.size % block_size else None
        self._tail_written = False

    def block(self, b: int) -> np.ndarray:
        if b < self._nfull:
            return self._body[b]
        assert self._tail is not None and b == self._nfull
        self._tail_written = True
        return self._tail

    def finish(self) -> None:
        if self._tail is not None and self._tail_written:
            start = self._nfull * self._tail.size
            self._flat[start:] = self._tail[: self._flat.size - start]


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


class AllreduceTimeout(TimeoutError):
    """A round made no progress within `failure_timeout`; names the missing workers when known."""

    def __init__(self, cfg: WorkerConfig, stream: Stream, waited: float) -> None:
        self.slot, self.block, self.round = stream.slot, stream.block, stream.round
        bitmap = stream.missing_workers
        self.missing_workers = (None if bitmap is None else
                                [w for w in range(cfg.num_workers) if bitmap >> w & 1])
        what = "bootstrap" if stream.block == NONE else f"block {stream.block}"
        if self.missing_workers is not None:
            why = f"the aggregator is still waiting for worker(s) {self.missing_workers}"
        else:
            why = ("the aggregator gave no status (a switch never does; a software aggregator "
                   "that restarted or lost the job's state does not know the round)")
        super().__init__(f"job {cfg.job_id} worker {cfg.worker_id}: no result for slot "
                         f"{stream.slot} {what} (round {stream.round}) in {waited:.1f} s; {why}. "
                         "Stop all workers, reset the job, then call reset() on every worker.")
