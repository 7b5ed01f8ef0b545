# SPDX-License-Identifier: Apache-2.0
"""The host agent's native engine: one collective's streams run by p4reduce._worker (C).

What the Python engine (hostagent/stream_engine.py) does per packet (StreamRun's
_process_packets with one Stream per slot: split datagrams, validate, dequantize results,
quantize the next DATA, queue and send) happens in C, with the GIL released, a batch of
datagrams per call, and so does the wait for them (Run.poll). What stays here is the
control flow, per batch: the window of streams in flight (hostagent/window.py), the RTO
estimator fed with the latencies of clean rounds (hostagent/rto.py), timer expiry
(retransmission, QUERY, AllreduceTimeout) and the exceptions, the same as the Python
engine's. `NativeEngine` is a WorkerEngine (hostagent/engine_api.py), `NativeRun` its
Collective; `NativeEngine.make_run` fills the RunSpec a Run is made from, in one place.

Where the kernel has them (and WorkerConfig(udp_offload) leaves them on), the C side
uses UDP GSO and GRO: each aggregator's run of equal-size datagrams goes as one
UDP_SEGMENT buffer, and a coalesced buffer of results is split back into its datagrams
(NativeEngine turns GRO on for the agent's sockets; AllreduceStats counts both).

Select the engine with WorkerConfig(engine="native" | "python") or the
environment variable P4REDUCE_WORKER_ENGINE; the Python engine is the readable
reference the native one is tested against (tests/test_native_worker.py).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import time
from collections.abc import Sequence

import numpy as np

from p4reduce._native_worker import Failed, Run, RunSpec
from p4reduce.hostagent import fixedpoint
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.hostagent.config import WorkerConfig
from p4reduce.hostagent.engine_api import AllreduceStats, BlockTarget, EngineIO, Outcome
from p4reduce.hostagent.errors import AllreduceTimeout, JobFailed, ProtocolError, error_code
from p4reduce.protocol import Mode
from p4reduce.transport.udp_offload import UdpOffload, probe_udp_offload

log = logging.getLogger(__name__)

_COUNTS = (
    "packets_received",
    "payload_bytes_received",
    "ignored_packets",
    "packets_sent",
    "payload_bytes_sent",
    "retransmissions",
    "queries",
    "gso_sends",
    "gso_segments",
    "gro_buffers",
    "gro_segments",
    "unauthenticated",
)


def _peer(address: tuple[str, int]) -> tuple[int, int]:
    return int.from_bytes(socket.inet_aton(address[0]), "big"), address[1]


def probe_offload(cfg: WorkerConfig, sockets: list[socket.socket]) -> UdpOffload:
    """UDP GSO and GRO where the kernel has them, GRO turned on for each of the receiving
    `sockets`; off with WorkerConfig(udp_offload=False) and on a raw transport."""
    if cfg.transport != "udp":
        return UdpOffload.off(f"transport {cfg.transport!r}: a datagram per frame")
    probes = [probe_udp_offload(s, cfg.udp_offload) for s in sockets]
    return UdpOffload(
        all(p.gso for p in probes), all(p.gro for p in probes), {k: v for p in probes for k, v in p.why_not.items()}
    )


class NativeEngine:
    """The native engine of an agent whose EngineIO is `io`. Made before anything is
    received: it turns GRO on for the sockets it reads (where it may)."""

    def __init__(self, io: EngineIO) -> None:
        self.io = io
        receiving = [e.sock for e in io.endpoints] + ([io.group_sock] if io.group_sock is not None else [])
        self.udp_offload = probe_offload(io.config, receiving)
        self._oversize_noted = False  # transports "packet", "xdp": note_oversize's warning given

    def plan(self, flat: np.ndarray) -> BlockPlan:
        cfg = self.io.config
        return BlockPlan.unscanned(flat, cfg.block_size, cfg.num_slots)  # scanned as the streams run

    def begin(
        self,
        plan: BlockPlan,
        target: BlockTarget,
        epoch: int,
        tag: int,
        rounds: Sequence[int],
        stats: AllreduceStats,
        shard_blocks: int = 0,
    ) -> NativeRun:
        run = self.make_run(
            plan, target.flat, epoch, tag, rounds, first_block=target.first_block, shard_blocks=shard_blocks
        )
        return NativeRun(self, run, plan, target, stats)

    def make_run(
        self,
        plan: BlockPlan,
        out: np.ndarray,
        epoch: int,
        tag: int,
        rounds: Sequence[int],
        *,
        first_block: int = 0,
        shard_blocks: int = 0,
        sockets: bool = True,
        scan_chunk: int = 0,
    ) -> Run:
        """The native state of one collective (`out`: the flat output, holding the blocks
        from `first_block` on; `shard_blocks` > 0: a reduce-scatter, as in
        WorkerEngine.begin). `sockets=False`: packets go nowhere until take_output(),
        results come by feed() (receiver i: endpoint i's socket, then the multicast group's).
        `scan_chunk`: elements an unscanned plan's scan takes at a time (0: the Run's default)."""
        io = self.io
        cfg, endpoints = io.config, io.endpoints
        # Each endpoint's socket, or its PacketRing / XskSocket (transports "packet", "xdp"): the Run sends and
        # receives on it.
        socks: list[object] = [
            (e.ring if e.ring is not None else e.sock.fileno()) if sockets else -1 for e in endpoints
        ]
        receivers: list[tuple[object, Sequence[tuple[int, int]]]] = [
            (sock, [_peer(e.peer)]) for sock, e in zip(socks, endpoints, strict=True)
        ]
        if io.group_sock is not None:
            receivers.append((io.group_sock.fileno() if sockets else -1, [_peer(e.peer) for e in endpoints]))
        # GSO only towards software aggregators (they announced a datagram size in JOINED): a
        # switch takes one packet per frame, and on a virtual link (veth into BMv2's AF_PACKET
        # ports) a segmented send can reach it as one unsegmented super-frame.
        gso = self.udp_offload.gso and all(e.pack_up_to > 0 for e in endpoints)
        assert plan.flat is not None, "a plan of a tensor (BlockPlan.build, unscanned, from_blocks)"
        return Run(
            RunSpec(
                tensor=plan.flat,
                out=out,
                nonzero=plan.nonzero,
                exps=plan.exps,
                job_id=cfg.job_id,
                worker_id=cfg.worker_id,
                num_workers=cfg.scale_workers,
                block_size=cfg.block_size,
                num_slots=cfg.num_slots,
                slot_base=cfg.slot_base,
                dense=cfg.mode is Mode.DENSE,
                epoch=epoch,
                fingerprint=tag,
                rounds=rounds[: plan.num_streams],
                sessions=[e.session or 0 for e in endpoints],
                group_sessions=[e.group_session for e in endpoints],
                key=None if cfg.key is None else cfg.key.raw,
                limits=[e.pack_up_to for e in endpoints],
                send_fds=socks,
                receivers=receivers,
                first_block=first_block,
                shard_blocks=shard_blocks,
                gso=gso,
                spin_us=cfg.spin_us,
                scanned=plan.scanned,  # an unscanned plan: the Run scans while its first streams run
                scan_chunk=scan_chunk,
            )
        )

    def note_gso_refused(self, run: Run) -> None:
        """The kernel refused a UDP_SEGMENT send during `run` (which then sent the datagrams one
        by one): GSO stays off for the agent's later collectives, which would fail the same way."""
        if run.gso_errno and self.udp_offload.gso:
            why = f"the kernel refused a segmented send: {os.strerror(run.gso_errno)}"
            self.udp_offload = dataclasses.replace(
                self.udp_offload, gso=False, why_not={**self.udp_offload.why_not, "gso": why}
            )
            cfg = self.io.config
            log.info(
                "job %d worker %d: UDP GSO turned off (%s); the datagrams go one by one", cfg.job_id, cfg.worker_id, why
            )

    def note_oversize(self) -> None:
        """Transports "packet" and "xdp": say once why frames larger than the interface's MTU were dropped."""
        if self._oversize_noted:
            return
        for e in self.io.endpoints:
            if e.ring is not None and e.ring.rx_oversize:
                self._oversize_noted = True
                log.warning(
                    "job %d worker %d: %d frame(s) from %s:%d larger than the MTU were dropped: a sender's UDP GSO "
                    "buffer that a virtual link (veth) carried unsegmented; turn GSO off on the sender's side "
                    "(p4reduce aggregator --no-udp-offload, or `ip link set DEV gso_max_segs 1` on its interface)",
                    self.io.config.job_id,
                    self.io.config.worker_id,
                    e.ring.rx_oversize,
                    *e.peer,
                )


class NativeRun:
    """One collective in the native engine (NativeEngine.begin): `run`, the C state of its
    streams, which waits, receives, handles and sends; here, per batch, what the window and
    the RTO estimator need, and the Python engine's exceptions for Failed."""

    def __init__(
        self, engine: NativeEngine, run: Run, plan: BlockPlan, target: BlockTarget, stats: AllreduceStats
    ) -> None:
        self.run = run
        self._engine, self._plan, self._target, self._stats = engine, plan, target, stats
        self._cfg, self._rto, self._window = engine.io.config, engine.io.rto, engine.io.window

    @property
    def unfinished(self) -> int:
        return self.run.unfinished

    def release(self) -> None:
        run = self.run
        free = self._window.size - run.active
        if free > 0 and run.waiting:
            try:
                run.start(free, time.monotonic(), self._rto.rto)
                run.flush()
            except Failed as failed:
                raise python_error(self._cfg, run, failed) from None

    def poll(self, max_wait: float) -> None:
        try:
            finished, samples = self.run.poll(self._rto.rto, max_wait)
        except Failed as failed:
            raise python_error(self._cfg, self.run, failed) from None
        if samples:  # rounds without retransmission only (Karn)
            self._rto.sample_all(samples)
            self._window.on_rounds(samples)
        if finished or samples:
            self.release()  # finished streams and clean rounds make room for more

    def next_deadline(self) -> float:
        return self.run.next_deadline()

    def expire(self, now: float) -> None:
        cfg, run = self._cfg, self.run
        try:
            lost = run.expire(now, cfg.max_timeout, cfg.failure_timeout)
        except Failed as failed:
            raise python_error(cfg, run, failed) from None
        for started in lost:
            self._window.on_loss(started, now)
        self.release()
        try:
            run.flush()
        except Failed as failed:
            raise python_error(cfg, run, failed) from None

    def result(self) -> Outcome:
        run = self.run
        if run.nonfinite >= 0:  # (its poisoned round always fails first: never a sum with it)
            raise fixedpoint.nonfinite_input(run.nonfinite, True)
        self._target.float_overflow = run.float_overflow
        return Outcome(run.rounds(), run.overflow)

    def close(self) -> None:
        self._plan.scanned = self.run.scanned  # (the native engine's plan is complete once its run is)
        add_counters(self.run, self._stats)
        self._engine.note_gso_refused(self.run)
        self._engine.note_oversize()


@dataclasses.dataclass(frozen=True)
class StreamView:
    """A native stream's state under the Python Stream's attribute names (Run.stream)."""

    slot: int
    round: int
    block: int
    exp: int
    done: bool
    started: bool  # not waiting: started, finished or not
    pending_kind: str  # what a timeout resends: "none", "data", "header" or "query"
    retries: int
    missing_workers: int | None
    overflow: bool
    timer_started: float
    deadline: float
    opening: bool


def stream_view(run: Run, index: int) -> StreamView:
    """Stream `index`'s state under the Python Stream's attribute names."""
    slot, round_, block, exp, state, pending, retries, missing, overflow, started, deadline, opening = run.stream(index)
    return StreamView(
        slot=slot,
        round=round_,
        block=block,
        exp=exp,
        done=state == "done",
        started=state != "waiting",
        pending_kind=pending,
        retries=retries,
        missing_workers=missing,
        overflow=overflow,
        timer_started=started,
        deadline=deadline,
        opening=opening,
    )


def python_error(cfg: WorkerConfig, run: Run, failed: Failed) -> BaseException:
    """The exception the Python engine raises where the native one raised `failed`."""
    kind, *args = failed.args
    if kind == "nonfinite":
        index, sent = args
        return fixedpoint.nonfinite_input(index, sent)
    if run.nonfinite >= 0:  # NaN/Inf found after packets left: whatever ended it, that is why
        return fixedpoint.nonfinite_input(run.nonfinite, True)
    if kind == "job":
        code, detail, epoch = args
        return JobFailed(cfg.job_id, cfg.worker_id, error_code(code), detail, epoch)
    if kind == "protocol":
        return ProtocolError(args[0])
    if kind == "timeout":
        index, waited = args
        return AllreduceTimeout(cfg, stream_view(run, index), waited)
    return RuntimeError(f"p4reduce._worker failed: {failed.args}")  # pragma: no cover


def add_counters(run: Run, stats: AllreduceStats) -> None:
    counts = run.counters()
    for name in _COUNTS:
        setattr(stats, name, getattr(stats, name) + counts[name])
    stats.scanned_at_send = counts["scanned_at_send"]
    for slot, retries in counts["per_slot_retries"].items():
        stats.per_slot_retries[slot] = stats.per_slot_retries.get(slot, 0) + retries
