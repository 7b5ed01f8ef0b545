"""The service's requests, run against the registry and the targets under one lock.

The registry decides (placement, admission, leases) without I/O; this module carries
the decisions out on the switch and the fallback aggregator, and turns a switch that
fails a request into failed switch jobs. server.py (gRPC) and metrics.py (HTTP) call it.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from p4reduce.service.config import ServiceConfig
from p4reduce.service.errors import SwitchLost
from p4reduce.service.fallback import EmbeddedFallback
from p4reduce.service.registry import Job, JobWish, Registry, Target, WorkerRecord
from p4reduce.service.switch import JoinSender, SwitchTarget

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
    counters: dict[Target, dict[str, int]]  # each target's packet counters, all its jobs together


class JobCoordinator:
    """create / register / keepalive / release / expire / snapshot, thread-safe.

    `start()` starts the fallback aggregator and connects to the switch (a switch that
    does not answer leaves the service running on the fallback); `stop()` ends both.
    """

    def __init__(
        self,
        config: ServiceConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        fallback_engine: str = "native",
    ) -> None:
        self.config = config
        self.clock = clock
        self.registry = Registry(config.switch, config.fallback, config.jobs, clock=clock, rng=rng)
        self.switch = SwitchTarget(config.switch, clock=clock) if config.switch else None
        if self.switch is not None:
            self.switch.on_join = self._learn
        self.fallback = EmbeddedFallback(config.fallback, fallback_engine) if config.fallback else None
        self._lock = threading.Lock()

    # -- lifecycle -----------------------------------------------------------------
    def start(self) -> JobCoordinator:
        if self.fallback is not None:
            self.fallback.start()
        if self.switch is not None:
            self.switch.start()
        return self

    def stop(self) -> None:
        with self._lock:
            if self.switch is not None:
                self.switch.close()
            if self.fallback is not None:
                self.fallback.stop()

    # -- requests ------------------------------------------------------------------
    def create(self, wish: JobWish) -> Job:
        with self._lock:
            down = self._switch_down()
            created = self.registry.create(wish, down)
            if created.replaced is not None:
                self._undo(created.replaced)
            job = created.job
            if created.new:
                if job.target is Target.SOFTWARE:
                    assert self.fallback is not None
                    self.fallback.add(job)
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

    def register(self, job_id: int, rank: int, ip: str, mac: str, udp_port: int) -> tuple[Job, WorkerRecord]:
        with self._lock:
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
                assert self.fallback is not None
                self.fallback.admit(job, rank, ip, udp_port)
            if new:
                log.info("job %d rank %d registered from %s:%d", job_id, rank, ip, udp_port)
            return _copy(job), worker

    def _learn(self, port: int, sender: JoinSender) -> None:
        """The switch handed over an unknown worker's JOIN (on its stream's thread): if it is
        a registered worker whose port was not known, it is admitted on that port now (its
        retransmitted JOIN is then answered by the switch)."""
        with self._lock:
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

    def keepalive(self, job_id: int) -> Job:
        with self._lock:
            return _copy(self.registry.keepalive(job_id))

    def release(self, job_id: int) -> Job:
        with self._lock:
            job = self.registry.release(job_id)
            self._undo(job)
            log.info("job %d %r released", job.job_id, job.name)
            return job

    def expire(self) -> list[Job]:
        """Remove the jobs whose lease ran out (and notice a switch whose stream closed)."""
        with self._lock:
            if self.switch is not None and self.switch.poll() is not None:
                self._fail_switch_jobs()
            expired = self.registry.expire()
            for job in expired:
                self._undo(job)
                log.info("job %d %r: lease expired, its resources are free", job.job_id, job.name)
            return expired

    def snapshot(self) -> Snapshot:
        with self._lock:
            counters: dict[Target, dict[str, int]] = {}
            if self.fallback is not None:
                counters[Target.SOFTWARE] = self.fallback.counters()
            if self.switch is not None and self.switch.down is None:
                try:
                    counters[Target.SWITCH] = self.switch.counters()
                except SwitchLost:
                    self._fail_switch_jobs()
            pool = self.registry.switch_slots
            return Snapshot(
                jobs=tuple(_copy(j) for j in self.registry.jobs()),
                now=self.clock(),
                slots_total=pool.total if pool else 0,
                slots_free=pool.free if pool else 0,
                switch_configured=self.switch is not None,
                switch_up=self.switch is not None and self.switch.down is None,
                counters=counters,
            )

    def placement_address(self, job: Job) -> tuple[str, int, str]:
        """(host, UDP port, MAC) the job's workers send to."""
        if job.target is Target.SWITCH:
            assert self.config.switch is not None
            a = self.config.switch.address
            return a.ip, a.udp_port, a.mac
        assert self.fallback is not None
        return (*self.fallback.address, "")

    # -- helpers (under the lock) ----------------------------------------------------
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
            log.error("job %d %r failed: switch lost: %s", job.job_id, job.name, job.failed)

    def _undo(self, job: Job) -> None:
        """Take a removed job off its target (a failed switch job has nothing left there)."""
        if job.target is Target.SOFTWARE:
            assert self.fallback is not None
            self.fallback.remove(job)
        elif job.failed is None:
            assert self.switch is not None
            try:
                self.switch.remove(job)
            except SwitchLost:
                self._fail_switch_jobs()  # its slots are reused only after a reconnection clears them


def _copy(job: Job) -> Job:
    """A copy for the caller, which reads it outside the lock."""
    return dataclasses.replace(job, workers=dict(job.workers))


__all__ = ["JobCoordinator", "Snapshot"]
