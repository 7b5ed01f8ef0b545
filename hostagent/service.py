# SPDX-License-Identifier: Apache-2.0
"""A worker of a job placed by the job service (WorkerConfig.controller, docs/service.md):
the job's placement, the worker's registration, the lease kept and the job watched while
the agent is open, and the rank's close.

Imports the job service's client (grpc) only here, so an agent without a controller needs
neither grpc nor protobuf.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

from p4reduce.hostagent.config import WorkerConfig
from p4reduce.jobapi import AGGREGATOR_LOST, SWITCH_LOST, JobClient, JobEvents, JobServiceError, Placement
from p4reduce.protocol.auth import JobKey
from p4reduce.transport.interfaces import local_ip_towards, mac_of

log = logging.getLogger(__name__)


def placed(config: WorkerConfig) -> tuple[WorkerConfig, Placement, JobClient]:
    """Create or join the job `config.job_name`; `config` with the service's target,
    geometry, job id and key (an authenticated job's) in place of its own."""
    assert config.controller is not None and not isinstance(config.controller, str)  # __post_init__
    client = JobClient(config.controller, timeout=max(config.failure_timeout, 1.0), credentials=config.credentials)
    try:
        job = client.create_job(config.job_name, config.num_workers, lease_seconds=config.lease)
        if job.num_workers != config.num_workers:
            raise JobServiceError(
                client.address,
                "CreateJob",
                "FAILED_PRECONDITION",
                f"job {config.job_name!r} has {job.num_workers} workers, this worker {config.num_workers}",
            )
    except BaseException:
        client.close()
        raise
    resolved = dataclasses.replace(
        config,
        job_id=job.job_id,
        aggregator=job.address,
        mode=job.mode,
        block_size=job.block_size,
        slot_base=job.slot_base,
        num_slots=job.num_slots,
        message_size=job.message_size,
        key=JobKey(job.key) if job.key else config.key,  # the service's key for an authenticated job
        controller=None,  # resolved: the copy is an ordinary config
    )
    return resolved, job, client


def register(
    client: JobClient, job: Placement, config: WorkerConfig, udp_port: int, *, ip: str = "", mac: str = ""
) -> WorkerConfig:
    """Register this worker's address (`ip` and `mac` default to those of its route to the
    target); returns `config` as the worker runs. On a tree of switches the job is placed
    when its last rank registers (asked again every 50 ms, for up to `failure_timeout`):
    the worker then runs as its leaf's job's rank `local_rank` of `local_workers`, scaling
    for all the job's workers."""
    ip = ip or local_ip_towards(job.address)
    mac = mac or mac_of(ip)
    deadline = time.monotonic() + config.failure_timeout
    while not (registration := client.register_worker(job.job_id, config.worker_id, ip, mac, udp_port)).placed:
        if time.monotonic() >= deadline:
            raise JobServiceError(
                client.address,
                "RegisterWorker",
                "DEADLINE_EXCEEDED",
                f"job {job.job_id}: {registration.registered} of {job.num_workers} workers registered after "
                f"{config.failure_timeout:g} s (a job on a tree of switches starts when every rank has)",
            )
        time.sleep(0.05)
    if not registration.leaf:
        return config
    log.info(
        "job %d rank %d: placed as rank %d, under leaf %s (rank %d of its %d)",
        job.job_id,
        config.worker_id,
        registration.rank,
        registration.leaf,
        registration.local_rank,
        registration.local_workers,
    )
    return dataclasses.replace(
        config,
        worker_id=registration.local_rank,
        num_workers=registration.local_workers,
        total_workers=job.num_workers,
    )


# A watch stream that broke (the service unreachable, restarting) is opened again after
# these seconds, doubling up to the cap; a stream that delivered an event starts again low.
WATCH_RETRY = (0.1, 2.0)
CLOSE_TIMEOUT = 2.0  # seconds close() waits for CloseWorker: a silent service never hangs it


class LeaseKeeper:
    """Keeps the job's lease from a daemon thread, at a third of its length, and watches
    the job (WatchJob) from another. `lost` says why the service no longer holds the job
    (released, closed by all ranks, expired, its switch or aggregator gone): set within a
    moment of the service's word, which the agent checks while it waits for results. A
    service that is unreachable (restarting) loses nothing: both threads try again.
    `rank` is the rank the worker registered with (`close` tells the service it is done)."""

    def __init__(self, client: JobClient, job: Placement, rank: int) -> None:
        self._client, self._job, self._rank = client, job, rank
        self._period = max(job.lease_seconds / 3, 0.05)
        self._stop = threading.Event()
        self._stream_lock = threading.Lock()
        self._stream: JobEvents | None = None
        self.lost: str | None = None
        self.breaks = 0  # watch streams that broke without the job ending (and were opened again)
        self._threads = [
            threading.Thread(target=self._keep, name=f"p4reduce-lease-{job.job_id}", daemon=True),
            threading.Thread(target=self._watch, name=f"p4reduce-watch-{job.job_id}", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _lose(self, why: str) -> None:
        if self.lost is None:  # the first word stays (both threads may tell)
            self.lost = why

    def _keep(self) -> None:
        while not self._stop.wait(self._period):
            try:
                self._client.keep_alive(self._job.job_id)
            except JobServiceError as exc:
                if exc.code == "UNAVAILABLE" and not exc.cause.startswith((SWITCH_LOST, AGGREGATOR_LOST)):
                    continue  # the service itself is unreachable for now: try again
                self._lose(str(exc))
                return

    def _watch(self) -> None:
        delay = WATCH_RETRY[0]
        while not self._stop.is_set():
            with self._stream_lock:
                if self._stop.is_set():
                    return
                self._stream = self._client.watch_job(self._job.job_id)
            try:
                for event in self._stream:
                    delay = WATCH_RETRY[0]
                    if event.ended:
                        self._lose(event.reason)
                        return
            except JobServiceError as exc:
                if exc.code == "NOT_FOUND":
                    self._lose(str(exc))
                    return
                if self._stop.is_set():
                    return  # (cancelled by stop)
                if exc.code == "UNIMPLEMENTED":  # an older service: the lease alone tells
                    log.warning("%s: the worker learns of the job's end from its lease only", exc)
                    return
                log.debug("job %d: watch broke (%s); again in %g s", self._job.job_id, exc, delay)
            self.breaks += 1  # (a stream that ends without `ended`: the service stopping)
            self._stop.wait(delay)
            delay = min(delay * 2, WATCH_RETRY[1])

    def stop(self) -> None:
        self._stop.set()
        with self._stream_lock:
            if self._stream is not None:
                self._stream.cancel()
        for thread in self._threads:
            thread.join(timeout=self._client.timeout + 1)

    def close(self) -> None:
        """Stop, then tell the service this rank is done (CloseWorker: the last rank's close
        releases the job). Best effort, within CLOSE_TIMEOUT: a failure is logged."""
        if self._stop.is_set():
            return  # closed (or stopped) already
        self.stop()
        if self.lost is not None:
            return  # nothing left to close
        try:
            still_open, released = self._client.close_worker(self._job.job_id, self._rank, CLOSE_TIMEOUT)
        except JobServiceError as exc:
            log.warning(
                "job %d rank %d: could not tell the job service it closed: %s", self._job.job_id, self._rank, exc
            )
            return
        log.info(
            "job %d rank %d closed: %s",
            self._job.job_id,
            self._rank,
            "the job is released" if released else f"{still_open} registered rank(s) still open",
        )
