"""Packet-in, packets-out core of the software aggregator (no sockets here)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from p4reduce.protocol import NONE, AggHeader, MalformedPacket, MsgType, wire_values
from p4reduce.aggregator.buffers import BufferPool
from p4reduce.aggregator.config import JobSpec
from p4reduce.aggregator.counters import Counters
from p4reduce.aggregator.relay import UPSTREAM, RelaySlot
from p4reduce.aggregator.slot import Parts, SlotState


@dataclass(frozen=True)
class Outgoing:
    job_id: int
    worker_id: int
    parts: Parts  # the datagram, as buffers for a gathering send

    @property
    def payload(self) -> bytes:
        return b"".join(bytes(p) for p in self.parts)

    @property
    def nbytes(self) -> int:
        return sum(len(p) for p in self.parts)


@dataclass
class Handled:
    """What one datagram caused: the validated sender (if any) and the replies."""

    event: str
    sender: tuple[int, int] | None = None  # (job_id, worker_id) of a well-formed packet
    replies: list[Outgoing] = field(default_factory=list)
    stream_done: tuple[int, int, int] | None = None  # (job, slot, epoch) whose stream just ended

    @property
    def dropped(self) -> bool:
        return self.event not in _ACCEPTED


class _Job:
    def __init__(self, spec: JobSpec, pool: BufferPool) -> None:
        self.spec = spec
        self.pool = pool
        self.slots: dict[int, SlotState] = {}

    def slot(self, index: int) -> SlotState:
        state = self.slots.get(index)
        if state is None:
            s = self.spec
            if s.upstream is None:
                state = SlotState(s.job_id, index, s.num_workers, s.mode, s.block_size, self.pool)
            else:
                state = RelaySlot(s.job_id, index, s.num_workers, s.mode, s.block_size, s.upstream,
                                  self.pool)
            state.multicast = s.group is not None
            self.slots[index] = state
        return state


# Events that mean the packet was accepted; every other event is a drop reason.
_ACCEPTED = frozenset({"counted", "completed", "resent", "reset", "reforwarded",
                       "query_forwarded"})


class AggregatorEngine:
    """Validates datagrams, dispatches them to slots and counts everything.

    `handle` never raises on bad input: every rejected datagram is counted as
    `drop_<reason>` and nothing else changes.
    """

    def __init__(self, jobs: Iterable[JobSpec] = ()) -> None:
        self.counters = Counters()
        self.buffers = BufferPool()  # call `buffers.flushed()` after each flush of the replies
        self._jobs: dict[int, _Job] = {}
        for spec in jobs:
            self.add_job(spec)

    # -- job management -------------------------------------------------------
    def add_job(self, spec: JobSpec) -> None:
        if spec.job_id in self._jobs:
            raise ValueError(f"job {spec.job_id} already exists")
        for other in self._jobs.values():
            if set(other.spec.slot_range()) & set(spec.slot_range()):
                raise ValueError(f"job {spec.job_id}: slots overlap job {other.spec.job_id}")
        self._jobs[spec.job_id] = _Job(spec, self.buffers)

    def reset_job(self, job_id: int) -> None:
        """Forget all slot state of a job (e.g. after a worker crashed)."""
        self._jobs[job_id] = _Job(self.job(job_id), self.buffers)

    def remove_job(self, job_id: int) -> None:
        self.job(job_id)
        del self._jobs[job_id]

    def job(self, job_id: int) -> JobSpec:
        try:
            return self._jobs[job_id].spec
        except KeyError:
            raise KeyError(f"unknown job {job_id}") from None

    def jobs(self) -> list[JobSpec]:
        return [j.spec for j in self._jobs.values()]

    # -- packets --------------------------------------------------------------
    def handle(self, payload: bytes | memoryview, from_upstream: bool = False) -> Handled:
        """`from_upstream`: the datagram came from a parent aggregator of a leaf job."""
        result = self._from_parent(payload) if from_upstream else self._dispatch(payload)
        event = f"drop_{result.event}" if result.dropped else result.event
        counts = {"packets_in": 1, "bytes_in": len(payload), event: 1}
        if result.stream_done is not None:
            counts["streams_completed"] = 1
        if result.replies:
            counts["packets_out"] = len(result.replies)
            counts["bytes_out"] = sum(out.nbytes for out in result.replies)
        self.counters.add_many(counts)
        return result

    def _from_parent(self, payload: bytes | memoryview) -> Handled:
        try:
            h = AggHeader.unpack(payload)
        except MalformedPacket as exc:
            return Handled(exc.reason)
        for job in self._jobs.values():
            up = job.spec.upstream
            if up is not None and up.job_id == h.job_id and h.slot in job.spec.slot_range():
                slot = job.slot(h.slot)
                assert isinstance(slot, RelaySlot)
                event, packets = slot.on_upstream(h, payload)
                return Handled(event, None, [Outgoing(job.spec.job_id, w, p) for w, p in packets])
        return Handled("upstream_unknown")

    def _dispatch(self, payload: bytes | memoryview) -> Handled:
        try:
            h = AggHeader.unpack(payload)
        except MalformedPacket as exc:
            return Handled(exc.reason)
        if h.msg_type in (MsgType.RESULT, MsgType.PENDING):
            return Handled("bad_type")
        job = self._jobs.get(h.job_id)
        if job is None:
            return Handled("unknown_job")
        spec = job.spec
        if h.worker_id >= spec.num_workers:
            return Handled("bad_worker")
        if not spec.slot_base <= h.slot < spec.slot_base + spec.num_slots:
            return Handled("bad_slot")
        if h.count not in (0, spec.block_size) or (h.msg_type != MsgType.DATA and h.count):
            return Handled("bad_count")
        if h.msg_type == MsgType.RESET:
            self.reset_job(h.job_id)
            return Handled("reset", (h.job_id, h.worker_id),
                           [Outgoing(h.job_id, h.worker_id, (bytes(payload),))])
        slot = job.slot(h.slot)
        if h.msg_type == MsgType.QUERY:
            event, packets = slot.on_query(h)
        else:
            # A view of the receive buffer: the slot adds it before the buffer is reused.
            values = wire_values(payload, h.count) if h.count else None
            event, packets = slot.on_data(h, values)
        # A completed round that leaves the slot at a bootstrap ended the stream.
        done = (h.job_id, h.slot, h.epoch) if event == "completed" and slot.block == NONE else None
        return Handled(event, (h.job_id, h.worker_id),
                       [Outgoing(h.job_id, w, p) for w, p in packets], done)
