# SPDX-License-Identifier: Apache-2.0
"""The job service's state: jobs by id and name, their workers, leases, and what each
holds (slots, multicast group, job id, session). No I/O and an injected clock: the
coordinator runs the targets and the lease thread calls `expire`.

Placement: a job goes to the switch when one is configured and up and the job fits it
(dense, 32 values per packet, workers within the switch's bitmap, a free slot range
and multicast group); otherwise to the first software aggregator (the embedded one, or
one of the configured running ones) that is up and has the slots, with `reason` saying
why not the switch. Without one the refusal is the request's error.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import ipaddress
import math
import random
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from p4reduce.aggregator.config import JobSpec
from p4reduce.controller.config import WorkerEntry, check_unicast_mac, tofino_pipe
from p4reduce.controller.errors import ConfigError
from p4reduce.controller.tree import TreeJob, place_job
from p4reduce.jobapi import AGGREGATOR_LOST, SWITCH_LOST
from p4reduce.jobapi.security import ANONYMOUS, Caller, PermissionDenied, Role
from p4reduce.protocol import MAX_BLOCK_SIZE, MAX_JOB_ID, MAX_SLOTS, MAX_WORKERS, Mode
from p4reduce.protocol.auth import KEY_LEN
from p4reduce.protocol.switch import SWITCH_MAX_PORT
from p4reduce.service.allocator import IdAllocator, RangeAllocator, SessionSource
from p4reduce.service.config import JobDefaults, SwitchSection, TreeSection
from p4reduce.service.errors import (
    AggregatorLost,
    AlreadyRegistered,
    InvalidArgument,
    NoSlots,
    ServiceError,
    SwitchLost,
    TooManyWorkers,
    UnknownJob,
    WishMismatch,
)
from p4reduce.service.quota import Quota, check_quota

MAX_NAME = 64


class Target(enum.StrEnum):
    SWITCH = "switch"
    SOFTWARE = "software"


@dataclass(frozen=True)
class JobWish:
    """What a CreateJob asks for; 0 / None: the target's or the service's default."""

    name: str
    num_workers: int
    mode: Mode | None = None
    block_size: int = 0
    num_slots: int = 0
    lease_seconds: float = 0.0


@dataclass(frozen=True)
class WorkerRecord:
    rank: int
    ip: str
    mac: str  # "" allowed on a software target
    udp_port: int
    switch_port: int = 0  # 0 on a software target
    leaf: str = ""  # the leaf switch it sits under, on a tree

    @property
    def address(self) -> tuple[str, int]:
        return self.ip, self.udp_port


@dataclass(frozen=True)
class Place:
    """Where a registered worker runs in its job: its rank in the job as placed (the
    workers under one leaf hold consecutive ranks), and its rank and worker count in the
    job of its leaf (on a single switch or a software aggregator: the rank it registered
    with, and the job's size)."""

    rank: int
    leaf: str
    local_rank: int
    local_workers: int


@dataclass
class Job:
    job_id: int
    name: str
    target: Target
    mode: Mode
    block_size: int
    slot_base: int
    num_slots: int
    num_workers: int
    message_size: int  # largest datagram payload the target takes; 0: one packet each
    session: int  # what the switch's JOINED carries; 0 on software (it draws one per JOIN)
    lease_seconds: float
    expires_at: float
    wish: JobWish
    reason: str = ""  # why not on the switch
    mgid: int = 0  # the switch's multicast group; 0 on software
    workers: dict[int, WorkerRecord] = field(default_factory=dict)
    failed: str | None = None  # set when the switch (or the job's aggregator) was lost under the job
    aggregator: int = 0  # on software: which one (its index in the configured order)
    tenant: str = ""  # who created it (security.Caller.tenant); "" when the service runs without credentials
    key: bytes = b""  # a software job's key (every packet sealed, spec 6.3); b"": unauthenticated
    closed: set[int] = field(default_factory=set)  # registered ranks that have closed (CloseWorker)

    @property
    def complete(self) -> bool:
        """Every rank registered, and on a switch every rank's port known."""
        return len(self.workers) == self.num_workers and (
            self.target is not Target.SWITCH or all(w.switch_port for w in self.workers.values())
        )

    def expires_in(self, now: float) -> float:
        return max(0.0, self.expires_at - now)

    @property
    def open(self) -> int:
        """Registered ranks that have not closed."""
        return len(self.workers.keys() - self.closed)

    @property
    def loss(self) -> str | None:
        """Why the job failed, as its requests are told ("switch lost: ..."); None while it lives."""
        if self.failed is None:
            return None
        lost = SWITCH_LOST if self.target is Target.SWITCH else AGGREGATOR_LOST
        return f"{lost}: {self.failed} (job {self.job_id} failed; create it again)"

    def places(self, leaves: Sequence[str]) -> dict[int, Place]:
        """Per registered rank, its place: off a tree its own rank, at once; on a tree
        `tree_job`'s, once the job is complete (empty before)."""
        workers = sorted(self.workers.values(), key=lambda w: w.rank)
        if not any(w.leaf for w in workers):
            return {w.rank: Place(w.rank, "", w.rank, self.num_workers) for w in workers}
        if not self.complete:
            return {}
        counts = collections.Counter(w.leaf for w in workers)
        return {
            w.rank: Place(t.rank, t.leaf, t.entry.worker_id, counts[t.leaf])
            for w, t in zip(self._by_seat(leaves), self.tree_job(leaves).workers, strict=True)
        }

    def tree_job(self, leaves: Sequence[str]) -> TreeJob:
        """The complete job of a tree with its ranks placed by where the workers sit
        (Cloud Collectives' rank reordering): leaves in `leaves` order, each leaf's workers
        in the order of the ranks they registered with, so every leaf's ranks are
        consecutive; local ranks under each leaf in that order."""
        sitting = [(w.leaf, WorkerEntry(0, w.switch_port, w.mac, w.ip, w.udp_port)) for w in self._by_seat(leaves)]
        return place_job(self.job_id, self.slot_base, self.num_slots, sitting)

    def _by_seat(self, leaves: Sequence[str]) -> list[WorkerRecord]:
        order = {leaf: i for i, leaf in enumerate(leaves)}
        return sorted(self.workers.values(), key=lambda w: (order[w.leaf], w.rank))


@dataclass(frozen=True)
class Created:
    job: Job
    new: bool  # False: the job of this name existed with the same wishes
    replaced: Job | None = None  # a failed job of the same name, released to make room


class Registry:
    """Jobs, workers and leases. Not thread-safe: the coordinator serializes calls."""

    def __init__(
        self,
        switch: SwitchSection | TreeSection | None,
        fallback_pools: Sequence[tuple[int, int]],
        defaults: JobDefaults | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        authenticate: bool = False,
    ) -> None:
        self.switch, self.clock = switch, clock
        self.authenticate = authenticate  # software jobs get a key
        self.defaults = defaults or JobDefaults()
        self.switch_slots = RangeAllocator(*switch.slots, what="slots on the switch") if switch else None
        self.mgids = IdAllocator(*switch.mgids, what="multicast groups on the switch") if switch else None
        # One slot pool per software aggregator (ServiceConfig.fallback_pools).
        self.fallback_slots = [RangeAllocator(*p, what="slots on the software aggregator") for p in fallback_pools]
        self.job_ids = IdAllocator(1, MAX_JOB_ID, what="job ids")
        self.sessions = SessionSource(rng)
        self._jobs: dict[int, Job] = {}
        self._by_name: dict[str, int] = {}
        self._addresses: dict[tuple[str, int], tuple[int, int]] = {}  # live worker address -> (job, rank)
        self._touched: set[int] = set()  # ids of the jobs changed (or removed) since take_changes

    # -- queries -------------------------------------------------------------------
    def jobs(self) -> list[Job]:
        return sorted(self._jobs.values(), key=lambda j: j.job_id)

    def job(self, job_id: int) -> Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise UnknownJob(f"no job {job_id} (never created, released, or its lease expired)") from None

    def owned(self, caller: Caller, job_id: int, action: str) -> Job:
        """The job, if `caller` may `action` it (its tenant, or an admin); PermissionDenied
        naming the action, the job and its owner. The one check of every request on a job."""
        job = self.job(job_id)
        if caller.admin or job.tenant == caller.tenant:
            return job
        raise PermissionDenied(f"{caller} may not {action} job {job_id} (owned by {job.tenant or 'nobody'})")

    def sees_secrets(self, caller: Caller, job: Job) -> bool:
        """Whether `caller` is shown `job`'s session and key."""
        return caller.admin or job.tenant == caller.tenant

    def visible(self, caller: Caller) -> list[Job]:
        """The jobs `caller` is shown (an isolated tenant sees its own only)."""
        return [j for j in self.jobs() if caller.role is not Role.ISOLATED or j.tenant == caller.tenant]

    def held(self, tenant: str) -> tuple[int, int]:
        """(jobs, slots) the tenant's live jobs hold."""
        jobs = [j for j in self._jobs.values() if j.tenant == tenant]
        return len(jobs), sum(j.num_slots for j in jobs)

    def live(self, job_id: int) -> Job:
        """The job, if it has not failed; SwitchLost (AggregatorLost) naming why it did."""
        job = self.job(job_id)
        if job.loss is not None:
            raise (SwitchLost if job.target is Target.SWITCH else AggregatorLost)(job.loss)
        return job

    def take_changes(self) -> tuple[list[Job], list[int]]:
        """What changed since the last call: the jobs to record again, the ids removed
        (the coordinator writes them to the state store)."""
        touched, self._touched = self._touched, set()
        return [self._jobs[i] for i in sorted(touched) if i in self._jobs], sorted(touched - self._jobs.keys())

    # -- a restart -------------------------------------------------------------------
    def adopt(self, job: Job) -> None:
        """Take back a job recorded before a restart, with its id, session, slots, group,
        lease and workers; ValueError naming why not (its target is not configured now, or
        what it held is taken)."""
        if job.target is Target.SWITCH:
            if self.switch_slots is None or self.mgids is None:
                raise ValueError("no switch is configured now")
            pool = self.switch_slots
        elif 0 <= job.aggregator < len(self.fallback_slots):
            pool = self.fallback_slots[job.aggregator]
        else:
            raise ValueError("its software aggregator is not configured now")
        if job.name in self._by_name:
            raise ValueError(f"another job is called {job.name!r}")
        if any(w.address in self._addresses for w in job.workers.values()):
            raise ValueError("a worker's address belongs to another job")
        self.job_ids.hold(job.job_id)
        try:
            pool.hold(job.slot_base, job.num_slots)
        except ValueError:
            self.job_ids.release(job.job_id)
            raise
        if job.target is Target.SWITCH:
            assert self.mgids is not None
            try:
                self.mgids.hold(job.mgid)
            except ValueError:
                self.job_ids.release(job.job_id)
                pool.release(job.slot_base)
                raise
            self.sessions.adopt(job.session)
        self._jobs[job.job_id] = job
        self._by_name[job.name] = job.job_id
        for worker in job.workers.values():
            self._addresses[worker.address] = (job.job_id, worker.rank)
        self._touched.add(job.job_id)

    def reserve(self, aggregator: int | None, slot_base: int, num_slots: int) -> None:
        """Keep what software aggregator `aggregator` (None: the switch) holds for a job the
        service cannot remove out of placement (the part of it inside the pool, if free)."""
        pool = self.switch_slots if aggregator is None else self.fallback_slots[aggregator]
        assert pool is not None, "a switch is configured"
        start, end = max(slot_base, pool.base), min(slot_base + num_slots, pool.base + pool.total)
        if start < end:
            pool.hold(start, end - start)

    def fail(self, job_id: int, reason: str) -> Job:
        """Mark one job failed (what it held on its target could not be restored)."""
        job = self._jobs[job_id]
        job.failed = reason
        self._touched.add(job_id)
        return job

    # -- requests ------------------------------------------------------------------
    def create(
        self,
        wish: JobWish,
        switch_down: str | None = None,
        fallback_down: Collection[int] = (),
        *,
        caller: Caller = ANONYMOUS,
        quota: Quota | None = None,
    ) -> Created:
        """The job of `wish.name`: the existing one (same wishes), or a new one placed on
        the switch or a software aggregator, owned by `caller`. `switch_down`: why the
        switch cannot be used now; `fallback_down`: the software aggregators (indexes)
        that cannot either; `quota`: the caller's, None: none."""
        self._check_wish(wish)
        replaced = None
        if wish.name in self._by_name:
            existing = self._jobs[self._by_name[wish.name]]
            if not (caller.admin or existing.tenant == caller.tenant):  # nothing of it shown
                raise PermissionDenied(f"{caller} may not use job name {wish.name!r}: another tenant's job has it")
            if existing.failed is None:
                differs = _differing_wish(existing, wish)
                if differs is not None:
                    raise WishMismatch(
                        f"job {wish.name!r} exists with {differs} {_shown_wish(existing, differs)}, "
                        f"this request asks {_shown_wish(wish, differs)}"
                    )
                return Created(existing, False)
            replaced = self._remove(existing)  # its switch is gone: the name starts afresh
        if quota is not None:
            lease = wish.lease_seconds or min(self.defaults.lease_seconds, quota.lease_seconds)
            check_quota(
                caller.tenant,
                quota,
                *self.held(caller.tenant),
                wish.num_workers,
                wish.num_slots or self.defaults.num_slots,
                lease,
            )
            wish = dataclasses.replace(wish, lease_seconds=lease)
        job = self._place(wish, switch_down, fallback_down)
        job.tenant = caller.tenant
        if job.target is Target.SOFTWARE and self.authenticate:
            job.key = secrets.token_bytes(KEY_LEN)
        self._jobs[job.job_id] = job
        self._touched.add(job.job_id)
        self._by_name[job.name] = job.job_id
        return Created(job, True, replaced)

    def register(self, job_id: int, rank: int, ip: str, mac: str, udp_port: int) -> tuple[Job, WorkerRecord, bool]:
        """Record a worker's address; (job, worker, new). The same address again is the
        same registration (new False); another one for a registered rank is refused."""
        job = self.live(job_id)
        if not 0 <= rank < job.num_workers:
            raise InvalidArgument("rank", f"{rank} outside 0..{job.num_workers - 1} (job {job_id}'s workers)")
        ip = _worker_ip(ip)
        if not 1 <= udp_port <= 65535:
            raise InvalidArgument("udp_port", f"{udp_port} outside 1..65535")
        switch_port, leaf = 0, ""
        if job.target is Target.SWITCH or mac:
            try:
                mac = check_unicast_mac("mac", mac)
            except ConfigError as exc:
                raise InvalidArgument("mac", str(exc).removeprefix("mac: ")) from None
        if job.target is Target.SWITCH and isinstance(self.switch, TreeSection):
            seat = self.switch.seat(mac)
            if seat is None:  # a tree places ranks by leaf: it must know where each worker sits
                raise InvalidArgument("mac", f"{mac} sits under no leaf of the tree (the service's tree.workers)")
            switch_port, leaf = seat.port, seat.leaf
        elif job.target is Target.SWITCH:
            assert self.switch is not None
            # Not in the L2 table: 0 until the switch hands the worker's first JOIN to the
            # service, which learns the port from it (learn_port).
            switch_port = self.switch.port_of(mac) or 0
            if self.switch.kind == "tofino":
                self._check_tofino_port(job, rank, mac, switch_port)
        worker = WorkerRecord(rank, ip, mac, udp_port, switch_port, leaf)
        previous = job.workers.get(rank)
        if previous is not None:
            if previous == worker:  # (a rank that closed is open again)
                job.closed.discard(rank)
                job.expires_at = self.clock() + job.lease_seconds
                self._touched.add(job_id)
                return job, previous, False
            raise AlreadyRegistered(
                f"job {job_id} rank {rank} is registered already, from {previous.ip}:{previous.udp_port}"
            )
        owner = self._addresses.get(worker.address)
        if owner is not None:
            raise AlreadyRegistered(f"{ip}:{udp_port} is the address of job {owner[0]} rank {owner[1]}")
        job.workers[rank] = worker
        self._addresses[worker.address] = (job_id, rank)
        job.expires_at = self.clock() + job.lease_seconds
        self._touched.add(job_id)
        return job, worker, True

    @staticmethod
    def _check_tofino_port(job: Job, rank: int, mac: str, port: int) -> None:
        """A Tofino hands no JOIN to the service (it cannot learn a port), and keeps a job's
        registers per pipe (every worker of a job must enter through the same one)."""
        if not port:
            raise InvalidArgument(
                "mac", f"{mac} is not in the switch's l2 table: list every worker's MAC there for a Tofino"
            )
        others = {w.switch_port for w in job.workers.values() if w.rank != rank and w.switch_port}
        pipes = {tofino_pipe(p) for p in others}
        if pipes and tofino_pipe(port) not in pipes:
            raise InvalidArgument(
                "mac",
                f"{mac} is on port {port} (pipe {tofino_pipe(port)}) and job {job.job_id}'s other workers on pipe "
                f"{min(pipes)}: a Tofino keeps a job's registers per pipe",
            )

    def learn_port(self, job_id: int, rank: int, mac: str, ip: str, udp_port: int, port: int) -> WorkerRecord | None:
        """A JOIN of job `job_id` rank `rank` came in on switch port `port` from this address:
        the registered worker whose port was not known has it now (returned); None when the
        JOIN is not such a worker's (unregistered, another address, or its port known)."""
        job = self._jobs.get(job_id)
        if job is None or job.target is not Target.SWITCH or job.failed is not None:
            return None
        worker = job.workers.get(rank)
        if worker is None or worker.switch_port or (worker.mac, worker.ip, worker.udp_port) != (mac, ip, udp_port):
            return None
        if not 0 < port <= SWITCH_MAX_PORT:
            return None
        learned = dataclasses.replace(worker, switch_port=port)
        job.workers[rank] = learned
        self._touched.add(job_id)
        return learned

    def keepalive(self, job_id: int) -> Job:
        job = self.live(job_id)
        job.expires_at = self.clock() + job.lease_seconds
        self._touched.add(job_id)
        return job

    def close_worker(self, job_id: int, rank: int) -> Job:
        """Registered rank `rank` of the job is done; returns the job (its `open` ranks: none
        left means the caller releases it)."""
        job = self.job(job_id)
        if rank not in job.workers:
            raise InvalidArgument("rank", f"{rank} is not a registered rank of job {job_id}")
        job.closed.add(rank)
        return job

    def release(self, job_id: int) -> Job:
        """Remove the job (failed or not) and free what it held; returns it for the undo."""
        return self._remove(self.job(job_id))

    def expire(self) -> list[Job]:
        """Remove the jobs whose lease has run out; returns them for the undo."""
        now = self.clock()
        return [self._remove(j) for j in self.jobs() if j.expires_at <= now]

    def fail_aggregator_jobs(self, aggregator: int, reason: str) -> list[Job]:
        """Mark every live job of software aggregator `aggregator` failed; returns them."""
        failed = [
            j
            for j in self._jobs.values()
            if j.target is Target.SOFTWARE and j.aggregator == aggregator and j.failed is None
        ]
        for job in failed:
            job.failed = reason
            self._touched.add(job.job_id)
        return failed

    def fail_switch_jobs(self, reason: str) -> list[Job]:
        """Mark every live switch job failed (the switch was lost); returns them."""
        failed = [j for j in self._jobs.values() if j.target is Target.SWITCH and j.failed is None]
        for job in failed:
            job.failed = reason
            self._touched.add(job.job_id)
        return failed

    # -- placement -----------------------------------------------------------------
    def _place(self, wish: JobWish, switch_down: str | None, fallback_down: Collection[int]) -> Job:
        num_slots = wish.num_slots or self.defaults.num_slots
        refusal = self._switch_refusal(wish, num_slots, switch_down)
        if refusal is None:
            assert self.switch is not None and self.switch_slots is not None and self.mgids is not None
            base = self.switch_slots.allocate(num_slots)
            return self._new_job(
                wish,
                Target.SWITCH,
                Mode.DENSE,
                self.switch.values_per_packet,
                base,
                num_slots,
                message_size=0,  # the switch takes one packet per datagram
                session=self.sessions.new(),
                mgid=self.mgids.allocate(),
            )
        if not self.fallback_slots:
            raise refusal
        pools = [(i, p) for i, p in enumerate(self.fallback_slots) if i not in fallback_down]
        if not pools:
            raise NoSlots(f"{refusal}; and no software aggregator is reachable")
        index, pool = next(((i, p) for i, p in pools if p.fits(num_slots)), pools[0])
        base = pool.allocate(num_slots)  # NoSlots naming the largest free range when none fits
        job = self._new_job(
            wish,
            Target.SOFTWARE,
            wish.mode or Mode.SPARSE,
            wish.block_size or JobSpec.block_size,
            base,
            num_slots,
            message_size=JobSpec.message_size,
            session=0,
            reason=str(refusal),
        )
        job.aggregator = index
        return job

    def _switch_refusal(self, wish: JobWish, num_slots: int, switch_down: str | None) -> ServiceError | None:
        """Why the switch cannot take the job (as the error a request gets without a fallback)."""
        if self.switch is None or self.switch_slots is None or self.mgids is None:
            return NoSlots("no switch configured")
        if switch_down is not None:
            return SwitchLost(f"switch unreachable: {switch_down}")
        if wish.mode is Mode.SPARSE:
            return InvalidArgument("mode", "sparse: the switch aggregates dense mode only")
        if wish.block_size not in (0, self.switch.values_per_packet):
            return InvalidArgument(
                "block_size", f"{wish.block_size}: the switch takes {self.switch.values_per_packet} values per packet"
            )
        if wish.num_workers > self.switch.max_workers:
            return TooManyWorkers(
                "num_workers", f"{wish.num_workers} workers: the switch admits at most {self.switch.max_workers}"
            )
        if not self.switch_slots.fits(num_slots):
            return NoSlots(
                f"no free slots on the switch (asked {num_slots}, largest free range {self.switch_slots.largest_free})"
            )
        if self.mgids.free == 0:
            return NoSlots(f"no free multicast group on the switch ({self.mgids.first}..{self.mgids.last} all in use)")
        return None

    def _new_job(
        self,
        wish: JobWish,
        target: Target,
        mode: Mode,
        block_size: int,
        slot_base: int,
        num_slots: int,
        *,
        message_size: int,
        session: int,
        mgid: int = 0,
        reason: str = "",
    ) -> Job:
        lease = wish.lease_seconds or self.defaults.lease_seconds
        return Job(
            job_id=self.job_ids.allocate(),
            name=wish.name,
            target=target,
            mode=mode,
            block_size=block_size,
            slot_base=slot_base,
            num_slots=num_slots,
            num_workers=wish.num_workers,
            message_size=message_size,
            session=session,
            lease_seconds=lease,
            expires_at=self.clock() + lease,
            wish=wish,
            reason=reason,
            mgid=mgid,
        )

    def _remove(self, job: Job) -> Job:
        del self._jobs[job.job_id]
        self._touched.add(job.job_id)
        del self._by_name[job.name]
        for worker in job.workers.values():
            del self._addresses[worker.address]
        if job.target is Target.SWITCH:
            assert self.switch_slots is not None and self.mgids is not None
            self.switch_slots.release(job.slot_base)
            self.mgids.release(job.mgid)
            self.sessions.retire(job.session)
        else:
            self.fallback_slots[job.aggregator].release(job.slot_base)
        self.job_ids.release(job.job_id)
        return job

    # -- checks --------------------------------------------------------------------
    def _check_wish(self, wish: JobWish) -> None:
        if not isinstance(wish.name, str) or not 1 <= len(wish.name) <= MAX_NAME:
            raise InvalidArgument("name", f"needs 1..{MAX_NAME} characters, got {len(wish.name)}")
        if not wish.name.isprintable() or wish.name != wish.name.strip():
            raise InvalidArgument("name", f"{wish.name!r}: printable characters only, no surrounding blanks")
        if wish.num_workers < 1:
            raise InvalidArgument("num_workers", f"{wish.num_workers}: a job needs at least one worker")
        if wish.num_workers > MAX_WORKERS:
            raise TooManyWorkers(
                "num_workers", f"{wish.num_workers}: at most {MAX_WORKERS} (one bit per worker in the protocol)"
            )
        if not 0 <= wish.block_size <= MAX_BLOCK_SIZE:
            raise InvalidArgument("block_size", f"{wish.block_size} outside 1..{MAX_BLOCK_SIZE} (0: the target's)")
        pools = [p.total for p in self.fallback_slots] + ([self.switch.slots[1]] if self.switch else [])
        largest = max(pools)
        if not 0 <= wish.num_slots <= min(largest, MAX_SLOTS):
            raise InvalidArgument("num_slots", f"{wish.num_slots} outside 1..{largest} (0: {self.defaults.num_slots})")
        lease = wish.lease_seconds
        if not math.isfinite(lease) or not 0 <= lease <= self.defaults.max_lease_seconds:
            raise InvalidArgument(
                "lease_seconds",
                f"{lease} outside (0, {self.defaults.max_lease_seconds:g}] (0: {self.defaults.lease_seconds:g})",
            )


def _differing_wish(job: Job, wish: JobWish) -> str | None:
    """The first wish of `wish` that `job` does not satisfy (0 / None wish anything)."""
    if wish.num_workers != job.num_workers:
        return "num_workers"
    if wish.mode is not None and wish.mode is not job.mode:
        return "mode"
    if wish.block_size and wish.block_size != job.block_size:
        return "block_size"
    if wish.num_slots and wish.num_slots != job.num_slots:
        return "num_slots"
    if wish.lease_seconds and wish.lease_seconds != job.lease_seconds:
        return "lease_seconds"
    return None


def _shown_wish(source: Job | JobWish, name: str) -> str:
    value = getattr(source, name)
    return value.value if isinstance(value, Mode) else f"{value:g}" if isinstance(value, float) else str(value)


def _worker_ip(ip: str) -> str:
    try:
        address = ipaddress.IPv4Address(ip)
    except ValueError:
        shown = ip if len(ip) <= 40 else ip[:37] + "..."
        raise InvalidArgument("ip", f"{shown!r} is not an IPv4 address like 10.0.0.1") from None
    if address.is_unspecified or address.is_multicast or address == ipaddress.IPv4Address("255.255.255.255"):
        raise InvalidArgument("ip", f"{address} is not a host's address")
    return str(address)


__all__ = ["Created", "Job", "JobWish", "Place", "Registry", "Target", "WorkerRecord"]
