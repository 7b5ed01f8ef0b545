# SPDX-License-Identifier: Apache-2.0
"""The service's requests, run against the registry and the targets under one lock.

The registry decides (placement, admission, leases) without I/O; this module carries
the decisions out on the switch and the software aggregators (the embedded one, or the
configured running ones), and turns a target that fails a request into failed jobs of
that target. server.py (gRPC) and metrics.py (HTTP) call it.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from p4reduce.jobapi.security import ANONYMOUS, Caller
from p4reduce.service.config import ServiceConfig
from p4reduce.service.errors import AggregatorLost, ServiceError, SwitchLost
from p4reduce.service.fallback import EmbeddedFallback
from p4reduce.service.quota import Quota
from p4reduce.service.registry import Job, JobWish, Place, Registry, Target, WorkerRecord
from p4reduce.service.remote import RefusedByAggregator, RemoteFallback
from p4reduce.service.store import State, open_state
from p4reduce.service.switch import JoinSender, SwitchTarget
from p4reduce.service.tofino import TofinoTarget
from p4reduce.service.tree import TreeTarget
from p4reduce.service.watch import JobWatch

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """What ListJobs and the metrics show, taken at one instant (`now`, the service's clock)."""

    jobs: tuple[Job, ...]  # copies
    now: float
    slots_total: int  # the switch's pool (0 without a switch)
    slots_free: int
    switch_configured: bool
    switch_up: bool
    counters: dict[Target, dict[str, int]]  # each target's packet counters, all its jobs (and aggregators) together
    job_counters: dict[int, dict[str, int]]  # per job id: packets, drops, retransmissions, rounds
    refusals: dict[tuple[str, str], int] = field(default_factory=dict)  # (tenant, status) -> requests refused


class JobCoordinator:
    """create / register / keepalive / release / close_worker / watch / expire / snapshot, thread-safe.

    `start()` starts the embedded aggregator (or asks the running ones where they serve)
    and connects to the switch (a target that does not answer leaves the service running
    on the others); `stop()` ends them.
    """

    def __init__(
        self,
        config: ServiceConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        fallback_engine: str = "native",
        state: State | None = None,
    ) -> None:
        self.config = config
        # Where every change is written before its request is answered (config `state`).
        self.state = state if state is not None else open_state(config.state, clock=clock)
        self.clock = clock
        self.registry = Registry(
            config.switches,
            config.fallback_pools(),
            config.jobs,
            clock=clock,
            rng=rng,
            authenticate=config.authenticate_jobs,
        )
        # Quotas hold for authenticated tenants (without credentials every caller is one).
        self.quotas = config.tenant_quotas()
        self._refusals: collections.Counter[tuple[str, str]] = collections.Counter()
        # A tree's switches behave as one switch target towards the registry and this module.
        self.switch: SwitchTarget | TofinoTarget | TreeTarget | None = None
        if config.switch is not None and config.switch.kind == "tofino":
            self.switch = TofinoTarget(config.switch, clock=clock)
        elif config.switch is not None:
            self.switch = SwitchTarget(config.switch, clock=clock)
        elif config.tree is not None:
            self.switch = TreeTarget(config.tree, clock=clock)
        if self.switch is not None:
            self.switch.on_join = self._learn
        self.fallback = EmbeddedFallback(config.fallback, fallback_engine) if config.fallback else None
        # The software targets in the registry's order (Job.aggregator indexes them).
        self.fallbacks: list[EmbeddedFallback | RemoteFallback] = (
            [self.fallback]
            if self.fallback
            else [RemoteFallback(a, clock=clock, credentials=config.aggregator_credentials) for a in config.aggregators]
        )
        self._lock = threading.Lock()
        self._unreconciled: set[int] = set()  # software targets not yet compared with the record
        # The watched jobs' states (WatchJob), made on the first watch; ended when a job
        # ends or fails, closed when the service stops.
        self._watches: dict[int, JobWatch] = {}
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------
    def start(self) -> JobCoordinator:
        for fallback in self.fallbacks:
            fallback.start()
        with self._changing():  # (connects the switch: what it keeps depends on the record)
            self._restore()
        return self

    def close_watches(self) -> None:
        """Send every watcher away without an ending (the service stops: workers reconnect)."""
        with self._lock:
            self._closing = True
            for watch in self._watches.values():
                watch.close()

    def stop(self) -> None:
        self.close_watches()
        with self._lock:
            if self.switch is not None:
                self.switch.close()
            for fallback in self.fallbacks:
                fallback.stop()
            self.state.close()

    # -- requests ------------------------------------------------------------------
    def quota(self, caller: Caller) -> Quota | None:
        """The caller's quota; None for the anonymous caller of a service without credentials."""
        return None if caller == ANONYMOUS else self.quotas.get(caller.tenant, self.config.quota)

    def refused(self, caller: Caller, status: str) -> None:
        """Count a request of `caller` refused with `status` (metrics, per tenant)."""
        with self._lock:
            self._refusals[(caller.tenant, status)] += 1

    def create(self, wish: JobWish, caller: Caller = ANONYMOUS) -> Job:
        with self._changing():
            down = self._switch_down()
            fallback_down = [i for i, f in enumerate(self.fallbacks) if self._fallback_down(i, self._check(i))]
            refused: dict[int, RefusedByAggregator] = {}  # aggregator index -> its refusal
            while True:  # an aggregator that refuses AddJob: the next one that has room
                try:
                    created = self.registry.create(
                        wish, down, [*fallback_down, *refused], caller=caller, quota=self.quota(caller)
                    )
                except ServiceError:
                    if refused:
                        raise [*refused.values()][-1] from None
                    raise
                if created.replaced is not None:
                    self._undo(created.replaced)
                    self._end(created.replaced)
                job = created.job
                if not created.new or job.target is not Target.SOFTWARE:
                    break
                try:
                    self.fallbacks[job.aggregator].add(job)
                    break
                except RefusedByAggregator as exc:
                    self.registry.release(job.job_id)
                    log.warning("job %r: %s; placing it on the next aggregator", job.name, exc)
                    refused[job.aggregator] = exc
                except SwitchLost:  # AggregatorLost: the next request places the job elsewhere
                    self.registry.release(job.job_id)
                    self._fallback_down(job.aggregator, self.fallbacks[job.aggregator].down)
                    raise
                except Exception:
                    self.registry.release(job.job_id)
                    raise
            if created.new:
                log.info(
                    "job %d %r: %d workers on the %s, slots %d..%d%s",
                    job.job_id,
                    job.name,
                    job.num_workers,
                    job.target.value,
                    job.slot_base,
                    job.slot_base + job.num_slots - 1,
                    f" ({job.reason})" if job.reason else "",
                )
            return _copy(job)

    def places(self, job: Job) -> dict[int, Place]:
        """Where each rank of `job` runs, once every rank registered (Job.places)."""
        return job.places(self.config.tree.topology.leaves if self.config.tree else ())

    def register(
        self, job_id: int, rank: int, ip: str, mac: str, udp_port: int, caller: Caller = ANONYMOUS
    ) -> tuple[Job, WorkerRecord]:
        with self._changing():
            self.registry.owned(caller, job_id, "register a worker of")
            job, worker, new = self.registry.register(job_id, rank, ip, mac, udp_port)
            if new and job.target is Target.SWITCH and worker.switch_port:
                assert self.switch is not None
                try:
                    self.switch.admit(job, worker)
                except SwitchLost:
                    self._fail_switch_jobs()
                    raise
            elif new and job.target is Target.SWITCH:
                log.info("job %d rank %d: switch port unknown, learned from its first JOIN", job_id, rank)
            elif new:
                target = self.fallbacks[job.aggregator]
                try:
                    target.admit(job, rank, ip, udp_port)
                except AggregatorLost:
                    self._fallback_down(job.aggregator, target.down)
                    raise
            if new:
                log.info("job %d rank %d registered from %s:%d", job_id, rank, ip, udp_port)
            self._publish(job)
            return _copy(job), worker

    def _learn(self, port: int, sender: JoinSender) -> None:
        """The switch handed over an unknown worker's JOIN (on its stream's thread): if it is
        a registered worker whose port was not known, it is admitted on that port now (its
        retransmitted JOIN is then answered by the switch)."""
        with self._changing():
            worker = self.registry.learn_port(
                sender.job_id, sender.worker_id, sender.mac, sender.ip, sender.udp_port, port
            )
            if worker is None or self.switch is None:
                return
            job = self.registry.job(sender.job_id)
            log.info("job %d rank %d: on switch port %d (learned from its JOIN)", job.job_id, worker.rank, port)
            try:
                self.switch.admit(job, worker)
            except SwitchLost:
                self._fail_switch_jobs()

    def keepalive(self, job_id: int, caller: Caller = ANONYMOUS) -> Job:
        with self._changing():
            self.registry.owned(caller, job_id, "keep alive")
            job = self.registry.keepalive(job_id)
            self._publish(job)
            return _copy(job)

    def release(self, job_id: int, caller: Caller = ANONYMOUS) -> Job:
        with self._changing():
            self.registry.owned(caller, job_id, "release")
            by = "a ReleaseJob request" if caller == ANONYMOUS else f"a ReleaseJob request of {caller.tenant}"
            return self._release(job_id, f"released by {by}")

    def close_worker(self, job_id: int, rank: int, caller: Caller = ANONYMOUS) -> tuple[int, bool]:
        """Rank `rank` of the job is done: (ranks still open, whether this released the job)."""
        with self._changing():
            self.registry.owned(caller, job_id, "close a worker of")
            job = self.registry.close_worker(job_id, rank)
            log.info("job %d rank %d closed, %d open", job_id, rank, job.open)
            if job.open:
                return job.open, False
            self._release(job_id, "released: every registered rank closed")
            return 0, True

    def watch(self, job_id: int, caller: Caller = ANONYMOUS) -> JobWatch:
        """The job's watch (UnknownJob for a job the service does not hold)."""
        with self._lock:
            job = self.registry.owned(caller, job_id, "watch")
            watch = self._watches.get(job_id)
            if watch is None:
                watch = self._watches[job_id] = JobWatch(len(job.workers), job.expires_at)
                if job.loss is not None:
                    watch.end(job.loss)
                if self._closing:
                    watch.close()
            return watch

    def expire(self) -> list[Job]:
        """Remove the jobs whose lease ran out (and notice a switch whose stream closed)."""
        with self._changing():
            if self.switch is not None and self.switch.poll() is not None:
                self._fail_switch_jobs()
            for i, fallback in enumerate(self.fallbacks):
                self._fallback_down(i, self._check(i, fallback.poll))
            expired = self.registry.expire()
            for job in expired:
                self._undo(job)
                self._end(job, f"lease lapsed: no KeepAlive for {job.lease_seconds:g} s")
                log.info("job %d %r: lease expired, its resources are free", job.job_id, job.name)
            return expired

    def snapshot(self) -> Snapshot:
        with self._changing():
            jobs = self.registry.jobs()
            counters: dict[Target, dict[str, int]] = {}
            job_counters: dict[int, dict[str, int]] = {}
            for i, fallback in enumerate(self.fallbacks):
                if fallback.down is not None:
                    continue
                on_it = [j for j in jobs if j.target is Target.SOFTWARE and j.aggregator == i and j.failed is None]
                try:
                    total = counters.setdefault(Target.SOFTWARE, {})
                    for name, value in fallback.counters().items():
                        total[name] = total.get(name, 0) + value
                    job_counters.update(fallback.job_counters(on_it))
                except AggregatorLost:
                    self._fallback_down(i, fallback.down)
            if self.switch is not None and self.switch.down is None:
                try:
                    counters[Target.SWITCH] = self.switch.counters()
                    on_switch = [j for j in jobs if j.target is Target.SWITCH and j.failed is None]
                    job_counters.update(self.switch.job_counters(on_switch))
                except SwitchLost:
                    self._fail_switch_jobs()
            pool = self.registry.switch_slots
            return Snapshot(
                jobs=tuple(_copy(j) for j in jobs),
                now=self.clock(),
                slots_total=pool.total if pool else 0,
                slots_free=pool.free if pool else 0,
                switch_configured=self.switch is not None,
                switch_up=self.switch is not None and self.switch.down is None,
                counters=counters,
                job_counters=job_counters,
                refusals=dict(self._refusals),
            )

    def placement_address(self, job: Job) -> tuple[str, int, str]:
        """(host, UDP port, MAC) the job's workers send to."""
        if job.target is Target.SWITCH:
            assert self.config.switches is not None
            a = self.config.switches.address
            return a.ip, a.udp_port, a.mac
        return (*self.fallbacks[job.aggregator].address, "")

    # -- a restart (under the lock) ---------------------------------------------------
    def _restore(self) -> None:
        """Take back the recorded jobs, connect the switch keeping its recorded jobs, then
        compare each software target with the record (those that do not answer now, when
        they do). See docs/service.md, Restarts."""
        stored = self.state.load()
        names = [f.name for f in self.fallbacks]
        forgotten = []
        for job in stored.jobs:
            if job.target is Target.SOFTWARE:
                name = stored.targets[job.aggregator] if job.aggregator < len(stored.targets) else None
                job.aggregator = names.index(name) if name in names else len(names)
            try:
                self.registry.adopt(job)
            except ValueError as exc:
                log.error("job %d %r recorded before the restart, forgotten: %s", job.job_id, job.name, exc)
                forgotten.append(job.job_id)
                continue
            log.info("job %d %r taken back (%s)", job.job_id, job.name, job.target.value)
        self.registry.job_ids.resume(stored.next_job_id)  # after the highest ever given
        self.state.commit([], forgotten, self.registry.job_ids.next, names)
        if self.switch is not None:
            self._resume_switch(self.switch)
        self._unreconciled = set(range(len(self.fallbacks)))
        for i in range(len(self.fallbacks)):
            self._fallback_down(i, self._check(i))

    def _resume_switch(self, switch: SwitchTarget | TofinoTarget | TreeTarget) -> None:
        """Connect the switch keeping the recorded live jobs on it (entries, registers: their
        workers go on) if it still runs the same pipeline; else, or unreachable, they fail."""
        recorded = [j for j in self.registry.jobs() if j.target is Target.SWITCH and j.failed is None]
        resumed = switch.resume(recorded)
        for base, count in resumed.held:
            log.error("%s: slots %d..%d stay out of placement", switch.name, base, base + count - 1)
            try:
                self.registry.reserve(None, base, count)
            except ValueError as overlap:
                log.error("%s: %s", switch.name, overlap)
        for job in recorded:
            if resumed.kept:
                log.info("job %d %r kept on the %s", job.job_id, job.name, switch.name)
                continue
            why = switch.down or "the switch ran another pipeline (or none) and was set up afresh"
            why = f"not kept on the switch at the service's restart: {why}"
            self.registry.fail(job.job_id, why)
            self._end(job)
            log.error("job %d %r failed: %s", job.job_id, job.name, why)

    def _check(self, index: int, ask: Callable[[], str | None] | None = None) -> str | None:
        """Why software target `index` cannot take a job (`ask`: its check or poll); the
        first time it answers after the start, it is reconciled first."""
        down = (ask or self.fallbacks[index].check)()
        if down is None and index in self._unreconciled:
            self._reconcile(index)
            down = self.fallbacks[index].down
        return down

    def _reconcile(self, index: int) -> None:
        """Software target `index` serves the live jobs recorded on it, as recorded, and
        nothing else: what it kept stays untouched (its workers go on), what it lost is
        added and admitted again, what the record lacks is removed (or, when it refuses,
        its slots are kept out of placement)."""
        fallback = self.fallbacks[index]
        recorded = {
            j.job_id: j
            for j in self.registry.jobs()
            if j.target is Target.SOFTWARE and j.aggregator == index and j.failed is None
        }
        try:
            served = {s.job_id: s for s in fallback.served()}
            for s in served.values():
                if s.job_id in recorded and s.is_job(recorded[s.job_id]):
                    continue
                try:
                    fallback.remove_served(s.job_id)
                except RefusedByAggregator as exc:
                    last = s.slot_base + s.num_slots - 1
                    log.error("%s; its slots %d..%d stay out of placement", exc, s.slot_base, last)
                    try:
                        self.registry.reserve(index, s.slot_base, s.num_slots)
                    except ValueError as overlap:
                        log.error("aggregator %s: %s", fallback.name, overlap)
            for job in recorded.values():
                kept = served.get(job.job_id)
                kept_workers = kept.workers if kept is not None and kept.is_job(job) else None
                try:
                    if kept_workers is None:
                        fallback.add(job)
                        kept_workers = {}
                    for w in sorted(job.workers.values(), key=lambda w: w.rank):
                        if kept_workers.get(w.rank) != w.address:
                            fallback.admit(job, w.rank, w.ip, w.udp_port)
                except RefusedByAggregator as exc:
                    self.registry.fail(job.job_id, str(exc))
                    self._end(job)
                    log.error("job %d %r failed: not restored on %s: %s", job.job_id, job.name, fallback.name, exc)
                    continue
                log.info("job %d %r on %s: %s", job.job_id, job.name, fallback.name, "kept" if kept else "added again")
        except AggregatorLost:
            return  # not answering again: the next check fails its jobs, a later one reconciles
        self._unreconciled.discard(index)

    # -- helpers (under the lock) ----------------------------------------------------
    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """The lock, and at the end every change of the registry written to the state (one
        transaction), before the request is answered."""
        with self._lock:
            try:
                yield
            finally:
                saved, removed = self.registry.take_changes()
                if saved or removed:
                    names = [f.name for f in self.fallbacks]
                    self.state.commit(saved, removed, self.registry.job_ids.next, names)

    def _switch_down(self) -> str | None:
        """Why the switch cannot take a job now (checked, and its jobs failed if it died)."""
        if self.switch is None:
            return None
        down = self.switch.check()
        if down is not None:
            self._fail_switch_jobs()
        return down

    def _fail_switch_jobs(self) -> None:
        assert self.switch is not None and self.switch.down is not None
        for job in self.registry.fail_switch_jobs(self.switch.down):
            self._end(job)
            log.error("job %d %r failed: switch lost: %s", job.job_id, job.name, job.failed)

    def _fallback_down(self, index: int, down: str | None) -> bool:
        """Fail the jobs of software aggregator `index` when it is `down` (says so)."""
        if down is None:
            return False
        for job in self.registry.fail_aggregator_jobs(index, down):
            self._end(job)
            log.error("job %d %r failed: aggregator lost: %s", job.job_id, job.name, job.failed)
        return True

    def _release(self, job_id: int, reason: str) -> Job:
        job = self.registry.release(job_id)
        self._undo(job)
        self._end(job, reason)
        log.info("job %d %r %s", job.job_id, job.name, reason)
        return job

    def _publish(self, job: Job) -> None:
        """Tell the job's watchers of its registrations and lease."""
        watch = self._watches.get(job.job_id)
        if watch is not None:
            watch.update(len(job.workers), job.expires_at)

    def _end(self, job: Job, reason: str | None = None) -> None:
        """The job ended or failed (`reason` None: its loss): its watchers are told why. A
        failed job still held gets an ended watch again from `watch`."""
        watch = self._watches.pop(job.job_id, None)
        if watch is not None:
            watch.end(reason if reason is not None else job.loss or "failed")

    def _undo(self, job: Job) -> None:
        """Take a removed job off its target. A failed switch job has nothing left there (a
        reconnection clears the pool); a software aggregator that stopped answering may only
        have been out of reach, so it is told too, now or when it answers again."""
        if job.target is Target.SOFTWARE:
            try:
                self.fallbacks[job.aggregator].remove(job)
            except AggregatorLost:
                self._fallback_down(job.aggregator, self.fallbacks[job.aggregator].down)
        elif job.failed is None:
            assert self.switch is not None
            try:
                self.switch.remove(job)
            except SwitchLost:
                self._fail_switch_jobs()  # its slots are reused only after a reconnection clears them


def _copy(job: Job) -> Job:
    """A copy for the caller, which reads it outside the lock."""
    return dataclasses.replace(job, workers=dict(job.workers), closed=set(job.closed))


__all__ = ["JobCoordinator", "Snapshot"]
