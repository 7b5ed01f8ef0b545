# SPDX-License-Identifier: Apache-2.0
"""Packet-in, packets-out core of the software aggregator (no sockets here).

Besides aggregating, the engine decides who may take part in a job
(docs/protocol.md section 6.1): a worker process JOINs and receives a session;
every later packet must carry that session and come from the address it joined
from (and, when the job declares its workers' addresses, from that address).
Whatever shows that the job cannot give a correct result fails the job: every
packet of it is then answered with an ERROR naming the cause, until a RESET.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from p4reduce.aggregator.buffers import BufferPool
from p4reduce.aggregator.config import JobSpec, WorkerAddress
from p4reduce.aggregator.counters import Counters
from p4reduce.aggregator.relay import UPSTREAM, RelaySlot
from p4reduce.aggregator.slot import IDLE_HORIZON, JobFailure, Parts, SlotState, epoch_is_newer
from p4reduce.protocol import (
    ALL_WORKERS,
    MAC_LEN,
    NONE,
    PROTOCOL_VERSION,
    AggHeader,
    ErrorCode,
    GeometryField,
    KeyMismatch,
    MalformedPacket,
    Mode,
    MsgType,
    wire_values,
)
from p4reduce.protocol.auth import authentic
from p4reduce.protocol.framing import message_limit
from p4reduce.protocol.switch import JOB_EVENT_NAMES  # the switch's cells per job: the same four

Address = tuple[str, int]
ANYWHERE: Address = ("", 0)  # source of packets handed in without one (tests, tools)
RETIRED_SESSIONS = 4  # replaced sessions remembered per worker, to tell a second process


@dataclass(frozen=True)
class Retired:
    """A rank's session that a new process replaced, and the newest epoch taken from it
    (None: none): an authenticated job drops that session's sealed packets of this epoch
    or older (replays); one of a newer epoch is the old process going on (SUPERSEDED)."""

    session: int
    newest: int | None


@dataclass(frozen=True)
class Outgoing:
    job_id: int
    worker_id: int  # a rank, ALL_WORKERS (the job's multicast group) or UPSTREAM (the parent)
    parts: Parts  # the datagram, as buffers for a gathering send
    dest: Address | None = None  # where a unicast goes; None: the worker's joined address
    plain: bool = False  # never sealed: an ERROR KEY, to a JOIN that does not have the job's key

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
    sender: tuple[int, int] | None = None  # (job_id, worker_id) of an admitted packet
    replies: list[Outgoing] = field(default_factory=list)
    stream_done: tuple[int, int, int] | None = None  # (job, slot, epoch) whose stream just ended
    allreduce_done: tuple[int, int] | None = None  # (job, epoch) whose every stream has ended
    failed: tuple[int, ErrorCode, int] | None = None  # (job, code, detail) when this packet failed it

    @property
    def dropped(self) -> bool:
        return self.event not in _ACCEPTED


@dataclass
class Member:
    """A worker process that joined a job."""

    incarnation: int
    session: int
    address: Address
    retired: deque[Retired] = field(default_factory=lambda: deque(maxlen=RETIRED_SESSIONS))
    pack_up_to: int = 0  # largest datagram to send it: the job's and its own limit (JOIN `blocks`)
    # The incarnations of the rank's replaced processes: an authenticated job drops their
    # JOINs (replays; docs/protocol.md 6.3).
    former: deque[int] = field(default_factory=lambda: deque(maxlen=RETIRED_SESSIONS))
    # The newest epoch counted from this session: an authenticated job drops its sealed
    # packets of older epochs (replays, also of slots past their idle horizon; spec 6.3).
    newest: int | None = None


class JobState:
    """What the engine holds of one job: its slots (their state machines), members, failure,
    and a leaf's session at its parent. AggregatorEngine.new_job_state makes one; the native
    engine's (p4reduce.aggregator.native) keeps part of it in its C core."""

    def __init__(self, spec: JobSpec, pool: BufferPool, group_session: int = 0) -> None:
        """`group_session`: what results sent to the job's multicast group carry (its
        members learn it in JOINED, docs/protocol.md 6.1); 0 without a group."""
        self.spec = spec
        self.pool = pool
        self.slots: dict[int, SlotState] = {}
        self.members: dict[int, Member] = {}
        self.started = False  # a DATA packet was counted since the job began (or was reset)
        self.failure: tuple[ErrorCode, int] | None = None
        self.upstream_session: int | None = None  # a leaf's session at its parent
        self.streams_done: dict[int, int] = {}  # epoch -> streams ended (a few recent epochs)
        self.upstream_incarnation = secrets.randbits(32)
        self.upstream_nonce = 0  # a keyed parent's CHALLENGE to the leaf's JOIN (spec 6.3)
        self.nonces: dict[int, int] = {}  # rank -> the CHALLENGE nonce its next new process must carry
        self.group_session = group_session
        self.pin_members()

    def pin_members(self) -> None:
        """The members that never JOIN (JobSpec.pinned: switch leaves), as configured; one
        packet per datagram, as a switch takes them."""
        for p in self.spec.pinned:
            self.members[p.rank] = Member(0, p.session, (p.ip, p.port))

    def newest_of(self, worker_id: int) -> int | None:
        """The newest epoch taken from the member's current session (None: none yet)."""
        member = self.members.get(worker_id)
        return member.newest if member is not None else None

    def session_of(self, worker_id: int) -> int:
        """The session a copy of a result addressed to `worker_id` carries."""
        if worker_id == ALL_WORKERS:
            return self.group_session
        member = self.members.get(worker_id)
        return member.session if member is not None else 0

    def slot(self, index: int) -> SlotState:
        state = self.slots.get(index)
        if state is None:
            s = self.spec
            geometry = dict(stream=index - s.slot_base, num_slots=s.num_slots, max_blocks=s.max_blocks)
            if s.upstream is None:
                state = SlotState(s.job_id, index, s.num_workers, s.mode, s.block_size, self.pool, **geometry)
            else:
                state = RelaySlot(
                    s.job_id, index, s.num_workers, s.mode, s.block_size, s.upstream, self, self.pool, **geometry
                )
            state.multicast = s.group is not None
            state.keyed = s.key is not None
            state.session_of = self.session_of
            self.slots[index] = state
        return state

    def stream_ended(self, epoch: int, blocks: int) -> bool:
        """Count an ended stream; True when it was the last one of the allreduce that this
        aggregator (or shard) serves."""
        done = self.streams_done[epoch] = self.streams_done.get(epoch, 0) + 1
        if done < self.spec.shard_streams(blocks):
            while len(self.streams_done) > 4:  # epochs whose streams never all ended
                del self.streams_done[next(iter(self.streams_done))]
            return False
        del self.streams_done[epoch]
        return True

    def header(self, msg_type: MsgType, h: AggHeader, **fields: int) -> AggHeader:
        """An answer to `h` about this job (JOINED, ERROR): addressed to h's worker."""
        base = dict(
            msg_type=msg_type,
            job_id=self.spec.job_id,
            worker_id=h.worker_id,
            slot=h.slot,
            shadow=h.shadow,
            epoch=h.epoch,
            block=h.block,
            next_block=h.next_block,
            exp=h.exp,
            next_exp=h.next_exp,
            session=h.session,
            blocks=h.blocks,
            fingerprint=h.fingerprint,
        )
        return AggHeader(**(base | fields))

    def join_header(self) -> AggHeader:
        """A leaf's JOIN to its parent (num_workers 0: a leaf does not know the parent's)."""
        s, up = self.spec, self.spec.upstream
        assert up is not None
        return AggHeader(
            MsgType.JOIN,
            up.job_id,
            up.rank,
            s.slot_base,
            0,
            self.upstream_incarnation,
            s.block_size,
            s.num_slots,
            s.mode.code,
            0,
            fingerprint=self.upstream_nonce,
        )  # blocks 0: one packet per datagram


# Events that mean the packet was accepted; every other event is a drop reason.
_ACCEPTED = frozenset(
    {
        "counted",
        "completed",
        "resent",
        "reset",
        "reforwarded",
        "query_forwarded",
        "joined",
        "failed",
        "upstream_joined",
        "challenged",
        "upstream_challenged",
    }
)
# A DATA sent again, and whatever a QUERY that reaches a slot ends in (slot.py's and
# relay.py's on_query give nothing else): a worker asking again for a result it missed.
_RETRANSMISSIONS = frozenset({"resent", "duplicate", "pending", "stale", "reforwarded", "query_forwarded"})


def _job_cells(handled: Handled) -> dict[str, int]:
    """What a packet that reached a job adds to its counters (the core's job_cell in C)."""
    cells = {"packets": 1}
    if handled.event in _RETRANSMISSIONS:
        cells["retransmissions"] = 1
    elif handled.dropped or handled.event == "failed":  # "failed": refused with an ERROR
        cells["drops"] = 1
    elif handled.event == "completed":
        cells["rounds"] = 1
    return cells


class JobConflict(ValueError):
    """A job that cannot go beside the engine's jobs: its id, or one of its slots, is taken
    (a ValueError, as any job the engine refuses)."""


class AggregatorEngine:
    """Validates datagrams, dispatches them to slots and counts everything.

    `handle` never raises on bad input: every rejected datagram is counted as
    `drop_<reason>` and nothing else changes. `new_session` makes sessions
    (random by default; tests pass a deterministic one).
    """

    def __init__(
        self,
        jobs: Iterable[JobSpec] = (),
        *,
        new_session: Callable[[int, int], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.counters = Counters()
        self._job_counters: dict[int, Counters] = {}  # job_counters(): outlive reset_job, not remove_job
        self.clock = clock  # when packets arrive (an idle slot forgets its allreduces: slot.py)
        self.idle_horizon = IDLE_HORIZON
        self.buffers = BufferPool()  # call `buffers.flushed()` after each flush of the replies
        self._jobs: dict[int, JobState] = {}
        self._new_session = new_session or (lambda job, worker: secrets.randbits(32) | 1)
        for spec in jobs:
            self.add_job(spec)

    # -- job management -------------------------------------------------------
    def add_job(self, spec: JobSpec) -> None:
        if spec.job_id in self._jobs:
            raise JobConflict(f"job {spec.job_id} already exists")
        for other in self._jobs.values():
            if set(other.spec.slot_range()) & set(spec.slot_range()):
                raise JobConflict(f"job {spec.job_id}: slots overlap job {other.spec.job_id}")
        self._jobs[spec.job_id] = self.new_job_state(spec, self._group_session(spec))
        self._job_counters[spec.job_id] = Counters()

    def reset_job(self, job_id: int) -> None:
        """Forget all state of a job: slots, members, failure (e.g. after a worker crashed)."""
        spec = self.job(job_id)
        self._jobs[job_id] = self.new_job_state(spec, self._group_session(spec), reset=True)

    def new_job_state(self, spec: JobSpec, group_session: int, *, reset: bool = False) -> JobState:
        """The state a job starts from, when it is added or (`reset`) reset: what a subclass
        overrides to keep a job's state elsewhere (the native engine's core). `group_session`:
        the session of the results it sends to its multicast group (0: no group)."""
        return JobState(spec, self.buffers, group_session)

    def _group_session(self, spec: JobSpec) -> int:
        """A new session for the results a job sends to its multicast group (0: no group)."""
        return self._new_session(spec.job_id, ALL_WORKERS) if spec.group is not None else 0

    def remove_job(self, job_id: int) -> None:
        self.job(job_id)
        del self._jobs[job_id]
        del self._job_counters[job_id]

    def job_counters(self, job_id: int) -> dict[str, int]:
        """A job's packet counters (JOB_EVENT_NAMES, zeros included), from any thread.

        Every packet from a worker side whose header parses and names the job counts once
        in `packets` -- JOIN, DATA, QUERY, RESET, ..., from anyone, admitted or not -- and
        at most once in one of:

        - `retransmissions`: a DATA sent again or a QUERY that reached a slot: answered
          from the kept result (resent), PENDING (drop_duplicate, drop_pending), stale
          (drop_stale: another allreduce's), or on a leaf sent on to its parent
          (reforwarded, query_forwarded);
        - `drops`: refused for any other reason: every other drop_* event (bad_mac,
          bad_type, bad_worker, bad_count, bad_exp, bad_slot, not_admitted, not_joined,
          wrong_source, unexpected, ...) and `failed` (answered with an ERROR: the job has
          failed, or this packet failed it);
        - `rounds`: the packet completed a round (`completed`; one whose MISMATCH then
          fails the job too). A leaf's round completes when its partial sum goes up.

        Counted in no cell: `counted`, `joined`, `reset`. Packets from a parent aggregator
        (they carry the parent's job id) count in no job, nor do unparsable ones.
        """
        try:
            counters = self._job_counters[job_id]
        except KeyError:
            raise KeyError(f"unknown job {job_id}") from None
        values = counters.snapshot()
        return {name: values.get(name, 0) for name in JOB_EVENT_NAMES}

    def job(self, job_id: int) -> JobSpec:
        try:
            return self._jobs[job_id].spec
        except KeyError:
            raise KeyError(f"unknown job {job_id}") from None

    def declare_worker(self, job_id: int, worker_id: int, address: WorkerAddress) -> None:
        """Admit rank `worker_id` of a job with declared workers from `address` only (its
        JOINs from anywhere else are dropped, as from a stranger)."""
        job = self._jobs.get(job_id)
        if job is None:
            raise KeyError(f"unknown job {job_id}")
        spec = job.spec
        if spec.workers is None:
            raise ValueError(f"job {job_id} admits any address: it declares no workers")
        if not 0 <= worker_id < spec.num_workers:
            raise ValueError(f"job {job_id} has {spec.num_workers} workers: no rank {worker_id}")
        workers = list(spec.workers)
        workers[worker_id] = address
        job.spec = dataclasses.replace(spec, workers=tuple(workers))

    def jobs(self) -> list[JobSpec]:
        return [j.spec for j in self._jobs.values()]

    def failure(self, job_id: int) -> tuple[ErrorCode, int] | None:
        """Why the job failed, or None while it is healthy."""
        return self._jobs[job_id].failure

    def destination(self, job_id: int, worker_id: int) -> tuple[Address, int] | None:
        """Where a member's packets go, and the datagram size to pack them up to."""
        member = self._jobs[job_id].members.get(worker_id)
        return (member.address, member.pack_up_to) if member else None

    def group_pack_up_to(self, job_id: int) -> int:
        """Datagram size for the job's multicast group: what every member accepts."""
        job = self._jobs[job_id]
        return min((m.pack_up_to for m in job.members.values()), default=0)

    def upstream_joins(self) -> list[Outgoing]:
        """JOINs of the leaf jobs that have no session at their parent yet (send at start)."""
        joins = Handled(
            "upstream_join",
            None,
            [
                Outgoing(j.spec.job_id, UPSTREAM, (j.join_header().pack(),))
                for j in self._jobs.values()
                if j.spec.upstream and j.upstream_session is None
            ],
        )
        self._seal(joins)
        return joins.replies

    # -- packets --------------------------------------------------------------
    def handle(self, payload: bytes | memoryview, source: Address = ANYWHERE, from_upstream: bool = False) -> Handled:
        """`from_upstream`: the datagram came from a parent aggregator of a leaf job."""
        try:
            h = AggHeader.unpack(payload)
        except MalformedPacket as exc:
            result = Handled(exc.reason)
        else:
            result = self._from_parent(h, payload) if from_upstream else self._dispatch(h, payload, source)
            self._seal(result)
            job_counters = None if from_upstream else self._job_counters.get(h.job_id)
            if job_counters is not None:
                job_counters.add_many(_job_cells(result))
        event = f"drop_{result.event}" if result.dropped else result.event
        counts = {"packets_in": 1, "bytes_in": len(payload), event: 1}
        if result.replies:
            counts["packets_out"] = len(result.replies)
            counts["bytes_out"] = sum(out.nbytes for out in result.replies)
        if result.stream_done is not None:
            counts["streams_completed"] = 1
        if result.allreduce_done is not None:
            counts["allreduces_completed"] = 1
        if result.failed is not None:
            counts["jobs_failed"] = 1
        self.counters.add_many(counts)
        return result

    def _from_parent(self, h: AggHeader, payload: bytes | memoryview) -> Handled:
        for job in self._jobs.values():
            up = job.spec.upstream
            if up is None or up.job_id != h.job_id or up.rank != h.worker_id:
                continue
            if not authentic(job.spec.key, payload):  # one key for a leaf's job and its parent's
                return Handled("upstream_bad_mac")
            if h.msg_type == MsgType.JOINED:
                if h.epoch != job.upstream_incarnation:
                    return Handled("upstream_stale")
                job.upstream_session = h.session
                return Handled("upstream_joined")
            if h.msg_type == MsgType.CHALLENGE:  # the parent asks the leaf to prove its JOIN fresh
                if h.epoch != job.upstream_incarnation:
                    return Handled("upstream_stale")
                job.upstream_nonce = h.fingerprint
                return Handled(
                    "upstream_challenged", None, [Outgoing(job.spec.job_id, UPSTREAM, (job.join_header().pack(),))]
                )
            # The parent's answers carry the leaf's session there (an ERROR to a JOIN: our
            # incarnation); anything else is forged or stale (docs/protocol.md 6.1).
            answers_join = h.msg_type == MsgType.ERROR and h.epoch == job.upstream_incarnation
            if job.upstream_session is None or h.session != job.upstream_session:
                if not answers_join:
                    return Handled("upstream_forged")
            if h.msg_type == MsgType.ERROR:
                return self._fail(job, ErrorCode.UPSTREAM, h.block, h)
            if h.slot in job.spec.slot_range() and job.failure is None:
                slot = job.slot(h.slot)
                assert isinstance(slot, RelaySlot)
                round_before = slot.round
                try:
                    event, packets = slot.on_upstream(h, payload)
                except JobFailure as exc:  # the parent's RESULT contradicts the protocol
                    return self._fail(job, exc.code, exc.detail, h)
                handled = Handled(event, None, [Outgoing(job.spec.job_id, w, p) for w, p in packets])
                if event == "completed" and slot.round != round_before and slot.block == NONE:
                    self._stream_ended(job, handled, h.slot, h.epoch, slot.blocks)
                return handled
        return Handled("upstream_unknown")

    def _dispatch(self, h: AggHeader, payload: bytes | memoryview, source: Address) -> Handled:
        if h.msg_type in (MsgType.RESULT, MsgType.PENDING, MsgType.JOINED, MsgType.ERROR, MsgType.CHALLENGE):
            return Handled("bad_type")
        job = self._jobs.get(h.job_id)
        if job is None:  # a JOIN is told (the worker would wait for nothing); the rest dropped
            return self._refuse(h, source, ErrorCode.UNKNOWN_JOB, h.job_id, "unknown_job")
        spec = job.spec
        if not authentic(spec.key, payload):  # an authenticated job's packets are sealed, others not
            # A JOIN is told, unsealed: its worker has no key or another one (spec 6.3).
            event = "key_mismatch" if h.msg_type == MsgType.JOIN else "bad_mac"
            return self._refuse(h, source, ErrorCode.KEY, key_mismatch(spec.key is not None, h), event)
        if h.worker_id >= spec.num_workers:
            return self._refuse(h, source, ErrorCode.UNKNOWN_RANK, spec.num_workers, "bad_worker")
        if h.count not in (0, spec.block_size) or (h.msg_type != MsgType.DATA and h.count):
            return Handled("bad_count")
        if not spec.admits(h.worker_id, source):
            return Handled("not_admitted")
        if h.msg_type == MsgType.JOIN:  # its slot is the worker's slot_base: compared, not checked
            return self._join(job, h, source)
        if h.slot not in spec.slot_range():
            return Handled("bad_slot")
        member = job.members.get(h.worker_id)
        if member is None or h.session != member.session or source != member.address:
            return self._stranger(job, member, h, source)
        if h.msg_type == MsgType.RESET:  # about the whole job: any slot (every shard gets one)
            self.reset_job(h.job_id)
            echo = bytes(payload[:-MAC_LEN] if h.sealed else payload)  # _seal seals it again
            return Handled("reset", (h.job_id, h.worker_id), [Outgoing(h.job_id, h.worker_id, (echo,), source)])
        if not spec.serves(h.slot):  # another shard's stream
            return Handled("bad_slot")
        if job.failure is not None:
            return self._error(job, h, source, *job.failure)
        if spec.key is not None and member.newest is not None and epoch_is_newer(member.newest, h.epoch):
            return Handled("replay")  # sealed, but of an allreduce this session has left behind
        slot = job.slot(h.slot)
        slot.heard(self.clock(), self.idle_horizon)
        round_before = slot.round
        try:
            if h.msg_type == MsgType.QUERY:
                event, packets = slot.on_query(h)
            else:
                # A view of the receive buffer: the slot adds it before the buffer is reused.
                values = wire_values(payload, h.count) if h.count else None
                event, packets = slot.on_data(h, values)
        except JobFailure as exc:
            return self._fail(job, exc.code, exc.detail, h, source)
        if event in ("counted", "completed"):
            job.started = True
            if member.newest is None or epoch_is_newer(h.epoch, member.newest):
                member.newest = h.epoch
        replies = [Outgoing(h.job_id, w, p) for w, p in packets]
        if slot.failure is not None:  # the round completed with MISMATCH: fail after telling all
            failure, slot.failure = slot.failure, None
            failed = self._fail(job, failure.code, failure.detail, h)
            return Handled(event, (h.job_id, h.worker_id), replies, failed=failed.failed)
        handled = Handled(event, (h.job_id, h.worker_id), replies)
        # A round that moved the slot on to NONE ended the stream. (A leaf's local round
        # completes without moving on: its partial sum went up, and the parent's RESULT ends
        # the stream, in _from_parent.)
        if event == "completed" and slot.round != round_before and slot.block == NONE:
            self._stream_ended(job, handled, h.slot, h.epoch, slot.blocks)
        return handled

    @staticmethod
    def _stream_ended(job: JobState, handled: Handled, slot: int, epoch: int, blocks: int) -> None:
        handled.stream_done = (job.spec.job_id, slot, epoch)
        if job.stream_ended(epoch, blocks):
            handled.allreduce_done = (job.spec.job_id, epoch)

    def _seal(self, handled: Handled) -> None:
        """Every packet an authenticated job sends carries its MAC (docs/protocol.md 6.3)."""
        for i, out in enumerate(handled.replies):
            job = self._jobs.get(out.job_id)
            if job is not None and job.spec.key is not None and not out.plain:
                handled.replies[i] = Outgoing(out.job_id, out.worker_id, job.spec.key.seal_parts(out.parts), out.dest)

    # -- membership -------------------------------------------------------------
    def _join(self, job: JobState, h: AggHeader, source: Address) -> Handled:
        spec = job.spec
        if spec.pinned_member(h.worker_id) is not None:  # a switch leaf's: nobody JOINs for it
            return self._refuse(h, source, ErrorCode.UNKNOWN_RANK, spec.num_workers, "pinned_rank")
        member = job.members.get(h.worker_id)
        if member is not None and (member.incarnation, member.address) == (h.epoch, source):
            return self._joined(job, h, member, source)  # our JOINED was lost: same answer
        if spec.key is not None and member is not None:
            # A sealed JOIN may be a replay: a new process for a held rank must prove itself
            # by carrying the rank's current nonce under its MAC (docs/protocol.md 6.3).
            if h.epoch in member.former:
                return Handled("replay")
            nonce = job.nonces.get(h.worker_id)
            if nonce is None or h.fingerprint != nonce:
                return self._challenge(job, h, source)
            del job.nonces[h.worker_id]  # one new process per nonce: its JOIN's replays are challenged
        mismatch = _geometry_mismatch(spec, h)
        if mismatch is not None:
            return self._fail(job, ErrorCode.GEOMETRY, mismatch, h, source)
        if job.failure is not None:
            return self._error(job, h, source, *job.failure)
        retired: deque[Retired] = deque(maxlen=RETIRED_SESSIONS)
        former: deque[int] = deque(maxlen=RETIRED_SESSIONS)
        if member is not None:
            retired, former = member.retired, member.former
            retired.append(Retired(member.session, job.newest_of(h.worker_id)))
            if member.incarnation != h.epoch:
                former.append(member.incarnation)
        member = Member(
            h.epoch,
            self._new_session(spec.job_id, h.worker_id),
            source,
            retired,
            message_limit(spec.message_size, h.blocks),
            former,
        )
        job.members[h.worker_id] = member
        if job.started and retired:
            # A second process, or a restarted one, cannot pick up a running job. It is a
            # member all the same (the ERROR carries its session), so it can RESET the job.
            return self._fail(job, ErrorCode.REJOINED, h.worker_id, h._replace(session=member.session), source)
        return self._joined(job, h, member, source)

    def _joined(self, job: JobState, h: AggHeader, member: Member, source: Address) -> Handled:
        s = job.spec
        reply = job.header(
            MsgType.JOINED,
            h,
            slot=s.slot_base,
            shadow=0,
            block=s.block_size,
            next_block=s.num_slots,
            exp=s.mode.code,
            next_exp=s.num_workers,
            session=member.session,
            blocks=s.message_size,
            # Its share of the streams when sharded; 0 (all of them) as a switch says.
            fingerprint=s.shard[0] << 16 | s.shard[1] if s.shard[1] > 1 else 0,
            count=1 if s.group is not None else 0,
        )
        # A job with a multicast group: its results' session as the one value (spec 6.1).
        packet = reply.pack() + (job.group_session.to_bytes(4, "big") if s.group is not None else b"")
        return Handled("joined", (s.job_id, h.worker_id), [Outgoing(s.job_id, h.worker_id, (packet,), source)])

    def _challenge(self, job: JobState, h: AggHeader, source: Address) -> Handled:
        """Ask the sender of a JOIN for a held rank to repeat it with the rank's nonce (the
        same until a process proves itself with it: a replay cannot make it change)."""
        nonce = job.nonces.setdefault(h.worker_id, self._new_session(job.spec.job_id, h.worker_id))
        reply = job.header(MsgType.CHALLENGE, h, session=0, fingerprint=nonce, count=0)
        return Handled("challenged", None, [Outgoing(job.spec.job_id, h.worker_id, (reply.pack(),), source)])

    def _stranger(self, job: JobState, member: Member | None, h: AggHeader, source: Address) -> Handled:
        """A packet whose session or source is not the worker's current one."""
        old = next((r for r in member.retired if r.session == h.session), None) if member is not None else None
        if old is not None:
            if job.spec.key is not None and old.newest is not None and not epoch_is_newer(h.epoch, old.newest):
                # Sealed, of an allreduce the replaced process had already sent: a replay
                # (docs/protocol.md 6.3), not proof that the old process goes on.
                return Handled("replay")
            # The process this session was given to is alive, and another one joined as
            # the same worker: two processes claim one rank (or one restarted).
            return self._fail(job, ErrorCode.SUPERSEDED, h.worker_id, h, source)
        if member is not None and h.session == member.session:
            return Handled("wrong_source")  # someone else using the worker's session
        # Not a session of this job's current life: the aggregator restarted, or the job
        # was reset while this process kept going. Only the sender is told.
        return self._error(job, h, source, ErrorCode.NOT_JOINED, h.worker_id, event="not_joined")

    def _refuse(self, h: AggHeader, source: Address, code: ErrorCode, detail: int, event: str) -> Handled:
        """Drop a packet for no job or rank of ours; a JOIN gets an ERROR saying which (the
        job, if any, is not failed)."""
        if h.msg_type != MsgType.JOIN:
            return Handled(event)
        reply = h._replace(
            msg_type=MsgType.ERROR, block=int(code), next_block=detail, count=0, version=PROTOCOL_VERSION
        )
        return Handled(event, None, [Outgoing(h.job_id, h.worker_id, (reply.pack(),), source, plain=True)])

    # -- failure ---------------------------------------------------------------------
    def _fail(
        self, job: JobState, code: ErrorCode, detail: int, h: AggHeader, source: Address | None = None
    ) -> Handled:
        """Fail the job (first cause wins); tell the sender, if there is one to tell."""
        if job.failure is None:
            job.failure = (code, detail)
        handled = self._error(job, h, source, *job.failure, event="failed") if source else Handled("failed")
        handled.failed = (job.spec.job_id, *job.failure)
        return handled

    def _error(
        self, job: JobState, h: AggHeader, source: Address | None, code: ErrorCode, detail: int, event: str = "failed"
    ) -> Handled:
        reply = job.header(MsgType.ERROR, h, block=int(code), next_block=detail, count=0)
        return Handled(event, None, [Outgoing(job.spec.job_id, h.worker_id, (reply.pack(),), source)])


def key_mismatch(keyed: bool, h: AggHeader) -> KeyMismatch:
    """How a packet that is not authentic for its job (keyed or not) misses the job's key."""
    if not keyed:
        return KeyMismatch.UNKEYED
    return KeyMismatch.BAD_MAC if h.sealed else KeyMismatch.UNSEALED


def _geometry_mismatch(spec: JobSpec, h: AggHeader) -> GeometryField | None:
    """The first field of a JOIN that disagrees with the job (num_workers 0: not given)."""
    if h.next_exp not in (0, spec.num_workers):
        return GeometryField.NUM_WORKERS
    if h.slot != spec.slot_base:
        return GeometryField.SLOT_BASE
    if h.next_block != spec.num_slots:
        return GeometryField.NUM_SLOTS
    if h.block != spec.block_size:
        return GeometryField.BLOCK_SIZE
    if h.exp != spec.mode.code:
        return GeometryField.MODE
    return None


__all__ = ["ANYWHERE", "AggregatorEngine", "Handled", "JobConflict", "Member", "Mode", "Outgoing", "Retired"]
