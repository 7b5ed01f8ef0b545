"""A worker of a job placed by the job service (WorkerConfig.controller, docs/service.md):
the job's placement, the worker's registration, and the lease kept while the agent is open.

Imports the job service's client (grpc) only here, so an agent without a controller needs
neither grpc nor protobuf.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

from p4reduce.hostagent.config import WorkerConfig
from p4reduce.jobapi import AGGREGATOR_LOST, SWITCH_LOST, JobClient, JobServiceError, Placement
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


class LeaseKeeper:
    """Keeps the job's lease from a daemon thread, at a third of its length. `lost` says
    why the service no longer holds the job (expired, released, its switch or aggregator gone)."""

    def __init__(self, client: JobClient, job: Placement) -> None:
        self._client, self._job = client, job
        self._period = max(job.lease_seconds / 3, 0.05)
        self._stop = threading.Event()
        self.lost: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"p4reduce-lease-{job.job_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            try:
                self._client.keep_alive(self._job.job_id)
            except JobServiceError as exc:
                if exc.code == "UNAVAILABLE" and not exc.cause.startswith((SWITCH_LOST, AGGREGATOR_LOST)):
                    continue  # the service itself is unreachable for now: try again
                self.lost = str(exc)
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self._client.timeout + 1)
