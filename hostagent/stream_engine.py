# SPDX-License-Identifier: Apache-2.0
"""The host agent's Python engine: one Stream per slot (hostagent/stream.py), driven packet
by packet here. The readable reference the native engine (hostagent/fastpath.py) is tested
against (tests/test_native_worker.py); WorkerConfig(engine="python") runs it.

`StreamEngine` is a WorkerEngine (hostagent/engine_api.py) and `StreamRun` its Collective.
The agent's loop calls `release`, `poll`, `expire`; `start`, `feed` and `expire_timers` are
the steps they are made of, as the native Run has them (the differential tests drive both
engines step by step).
"""

from __future__ import annotations

import collections
import math
import selectors
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.hostagent.engine_api import AllreduceStats, BlockTarget, EngineIO, Outcome
from p4reduce.hostagent.errors import AllreduceTimeout, JobFailed, ProtocolError, error_code
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import ALL_WORKERS, AggHeader, MalformedPacket, MsgType
from p4reduce.protocol.auth import authentic
from p4reduce.protocol.framing import split_datagram
from p4reduce.transport.batchio import BatchReceiver
from p4reduce.transport.udp_offload import UdpOffload

Address = tuple[str, int]


class Receiver(NamedTuple):
    """A socket results arrive on: its batch receiver, the peers whose datagrams it may
    carry, and the endpoint it belongs to (None: the multicast group's, which hears every
    aggregator)."""

    batch: BatchReceiver
    peers: set[Address]
    endpoint: int | None


@dataclass
class RoundTimer:
    """Retransmission timer of one stream's current round."""

    timeout: float
    started: float
    deadline: float = 0.0

    def __post_init__(self) -> None:
        self.deadline = self.started + self.timeout

    def backoff(self, now: float, cap: float) -> None:
        self.timeout = min(self.timeout * 2, cap)
        self.deadline = now + self.timeout


class StreamEngine:
    """The Python engine of an agent whose EngineIO is `io`."""

    def __init__(self, io: EngineIO) -> None:
        self.io = io
        # Its receivers take a buffer as one datagram: GRO must stay off on its sockets.
        self.udp_offload = UdpOffload.off("Python engine")
        # The endpoints' sockets in their order, then the multicast group's.
        self.receivers = [Receiver(e.receiver, {e.peer}, i) for i, e in enumerate(io.endpoints)]
        if io.group_sock is not None:
            self.receivers.append(Receiver(BatchReceiver(io.group_sock), {e.peer for e in io.endpoints}, None))

    def plan(self, flat: np.ndarray) -> BlockPlan:
        cfg = self.io.config
        return BlockPlan.build(flat, cfg.block_size, cfg.num_slots)  # float checks happen here

    def begin(
        self,
        plan: BlockPlan,
        target: BlockTarget,
        epoch: int,
        tag: int,
        rounds: Sequence[int],
        stats: AllreduceStats,
        shard_blocks: int = 0,
    ) -> StreamRun:
        return StreamRun(self, self._streams(plan, target, epoch, tag, rounds, shard_blocks), plan, stats)

    def _streams(
        self, plan: BlockPlan, out: BlockTarget, epoch: int, tag: int, rounds: Sequence[int], shard_blocks: int
    ) -> list[Stream]:
        cfg = self.io.config
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
            endpoint = self.io.endpoint_of(cfg.slot_base + s)
            streams.append(
                Stream(
                    job_id=cfg.job_id,
                    worker_id=cfg.worker_id,
                    slot=cfg.slot_base + s,
                    round_=rounds[s],
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


class StreamRun:
    """One collective in the Python engine (StreamEngine.begin): its streams, those not
    started yet (`waiting`), those in flight by slot (`active`) and their round timers
    (`timers`); `stats` counts packets as they go and come."""

    def __init__(self, engine: StreamEngine, streams: list[Stream], plan: BlockPlan, stats: AllreduceStats) -> None:
        io = engine.io
        self.streams = streams
        self.waiting = collections.deque(streams)
        self.active: dict[int, Stream] = {}  # started and not finished, by slot: the packets in flight
        self.timers: dict[int, RoundTimer] = {}
        self.last_round_start = -math.inf  # the latest round any stream started: the run's progress
        self.stats = stats
        self._plan = plan
        self._cfg, self._endpoints, self._endpoint = io.config, io.endpoints, io.endpoint_of
        self._group_sock = io.group_sock
        self._rto, self._window = io.rto, io.window
        self._receivers = engine.receivers
        self._unfinished = len(streams)
        self._next_check = math.inf  # when expire() is due: at or before the earliest deadline
        self._selector: selectors.BaseSelector | None = None  # (the first poll's)

    # -- the Collective ---------------------------------------------------------
    @property
    def unfinished(self) -> int:
        return self._unfinished

    def release(self) -> None:
        self._next_check = min(self._next_check, self._release())

    def poll(self, max_wait: float) -> None:
        if self._selector is None:
            self._selector = selectors.DefaultSelector()
            for e in self._endpoints:
                self._selector.register(e.sock, selectors.EVENT_READ)
            if self._group_sock is not None:
                self._selector.register(self._group_sock, selectors.EVENT_READ)
        if self._selector.select(min(max_wait, max(0.0, self._next_check - time.monotonic()))):
            for receiver, peers, endpoint in self._receivers:
                while batch := receiver.recv():
                    self._unfinished -= self._process(batch, peers, endpoint)
                    # Finished streams and clean rounds make room for more.
                    self._next_check = min(self._next_check, self._release())

    def next_deadline(self) -> float:
        return self._next_check

    def expire(self, now: float) -> None:
        self._next_check = min(self.expire_timers(now), self._release())
        self._flush()

    def result(self) -> Outcome:
        stats = self.stats
        stats.scanned_at_send = self._plan.num_blocks if stats.packets_sent else 0  # scanned first
        return Outcome([s.round for s in self.streams], any(s.overflow for s in self.streams))

    def close(self) -> None:
        if self._selector is not None:
            self._selector.close()

    # -- the steps (the native Run's start, feed and expire) ---------------------
    def start(self, count: int, now: float) -> float:
        """Start up to `count` waiting streams, in order: queue their opening DATA and set
        their round timers. Returns the earliest new deadline (inf: none started)."""
        earliest = math.inf
        while self.waiting and count > 0:
            s = self.waiting.popleft()
            self.active[s.slot] = s
            timer = self._start_round(s.slot, now)
            earliest = min(earliest, timer.deadline)
            self._send(s.slot, s.start())
            count -= 1
        return earliest

    def feed(self, receiver: int, datagrams: list[tuple[memoryview, Address]]) -> int:
        """Handle `datagrams` as if receiver number `receiver` (StreamEngine.receivers) had
        received them; returns how many streams finished."""
        _, peers, endpoint = self._receivers[receiver]
        finished = self._process(datagrams, peers, endpoint)
        self._unfinished -= finished
        return finished

    def expire_timers(self, now: float) -> float:
        """Retransmit for every stream in flight whose timer ran out (and shrink the
        window); returns the next check time. Nothing is sent before a flush."""
        cfg, stats = self._cfg, self.stats
        earliest = math.inf
        for s in self.active.values():
            timer = self.timers[s.slot]
            if timer.deadline <= now:
                # A round that waits long is not yet a failure while other rounds start: in
                # dense mode a worker whose window is larger than a peer's waits in the opening
                # round of streams that peer has not started, which can take longer than any
                # one round should (a busy machine shrinks windows unevenly).
                stalled = now - self.last_round_start >= cfg.failure_timeout
                if stalled and now - timer.started >= cfg.failure_timeout:
                    raise AllreduceTimeout(cfg, s, now - timer.started)
                self._window.on_loss(timer.started, now)
                s.retries += 1
                assert s.pending is not None
                self._send(s.slot, s.pending)
                stats.per_slot_retries[s.slot] = stats.per_slot_retries.get(s.slot, 0) + 1
                if s.pending_is_query:
                    stats.queries += 1
                else:
                    stats.retransmissions += 1
                timer.backoff(now, cfg.max_timeout)
            earliest = min(earliest, timer.deadline)
        return earliest

    # -- internals --------------------------------------------------------------
    def _start_round(self, slot: int, now: float) -> RoundTimer:
        """A new round's timer for the stream in `slot` (the native Run's set_timer), and the
        run's progress: the latest round any stream started."""
        timer = self.timers[slot] = RoundTimer(self._rto.rto, now)
        self.last_round_start = now
        return timer

    def _release(self) -> float:
        """Start waiting streams up to the window and send; returns the earliest new deadline."""
        earliest = self.start(self._window.size - len(self.active), time.monotonic())
        self._flush()
        return earliest

    def _send(self, slot: int, packet: bytes | bytearray) -> None:
        """Queue a packet of `slot`'s stream; `_flush` hands the queues to the kernel."""
        self.stats.payload_bytes_sent += self._endpoint(slot).send(packet)
        self.stats.packets_sent += 1

    def _flush(self) -> None:
        for e in self._endpoints:
            e.flush()

    def _process(self, batch: list[tuple[memoryview, Address]], peers: set[Address], endpoint: int | None) -> int:
        """Handle datagrams received on endpoint `endpoint`'s socket (None: the multicast
        group's); returns how many streams finished."""
        stats = self.stats
        finished = 0
        for datagram, source in batch:
            if source not in peers:  # only the group socket can hear others
                stats.ignored_packets += 1
                continue
            packets, leftover = split_datagram(datagram)
            stats.ignored_packets += bool(leftover)
            finished += self._process_packets(packets, source, endpoint)
        return finished

    def _process_packets(self, packets: list[memoryview], source: Address, endpoint: int | None) -> int:
        """The packets of one datagram from `source` (docs/protocol.md 7: what a worker takes)."""
        cfg, stats, by_slot, timers = self._cfg, self.stats, self.active, self.timers
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
            # Karn: a retransmitted round's latency is ambiguous; and a silent round (sparse:
            # nothing of ours sent) is no round trip of ours: its RESULT can come in the batch
            # that started it, a latency near 0 that would pin the window's base latency there.
            before, sample = stream.round, stream.retries == 0 and not stream.pending_is_query
            reply = stream.on_result(h, payload, source)
            if stream.round == before:
                stats.ignored_packets += 1
                continue
            now = time.monotonic()
            if sample:
                latency = now - timers[h.slot].started
                self._rto.sample(latency)
                self._window.on_round(latency)
            if stream.done:
                finished += 1
                del by_slot[h.slot], timers[h.slot]  # no longer in flight
                continue
            if reply is not None:
                self._send(h.slot, reply)
                if self._endpoint(h.slot).sender.full:
                    self._flush()
            self._start_round(h.slot, now)
        return finished
