# SPDX-License-Identifier: Apache-2.0
"""The fallback target: a software aggregator (native engine) in the service's process,
one UDP server for every job the switch cannot take. Jobs are added and removed as
they come and go; the server keeps running between them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.aggregator.config import WorkerAddress
from p4reduce.protocol.auth import JobKey
from p4reduce.service.config import FallbackSection
from p4reduce.service.registry import Job
from p4reduce.service.served import Served

log = logging.getLogger(__name__)


class EmbeddedFallback:
    """`start()` binds and serves; `add`/`remove` a registry Job; `stop()`."""

    def __init__(self, config: FallbackSection, engine: str = "native") -> None:
        self.config = config
        self._engine = engine
        self._server: AggregatorServer | None = None

    def start(self) -> EmbeddedFallback:
        self._server = AggregatorServer([], host=self.config.host, port=self.config.port, engine=self._engine).start()
        log.info("fallback software aggregator on %s:%d (workers told %s)", *self._server.address, self.address[0])
        return self

    @property
    def address(self) -> tuple[str, int]:
        """Where workers send: the advertised host and the port the server is bound to."""
        return self.config.advertise, self._running().address[1]

    def add(self, job: Job) -> None:
        # Every rank undeclared: admitted from nowhere until it registers (admit), so the
        # job's packets come only from the addresses its workers registered, as on the switch.
        spec = JobSpec(
            job.job_id,
            job.num_workers,
            mode=job.mode,
            slot_base=job.slot_base,
            num_slots=job.num_slots,
            block_size=job.block_size,
            message_size=job.message_size,
            workers=(None,) * job.num_workers,
            key=JobKey(job.key) if job.key else None,
        )
        self._running().add_job(spec)  # applied by the server's thread, between batches
        log.info("fallback: serving %s for job %r", spec.describe(), job.name)

    def admit(self, job: Job, rank: int, ip: str, udp_port: int) -> None:
        """Rank `rank` of `job` sends from ip:udp_port (what it registered), and only from there."""
        self._running().declare_worker(job.job_id, rank, WorkerAddress(ip, udp_port))

    def remove(self, job: Job) -> None:
        self._running().remove_job(job.job_id)
        log.info("fallback: job %d (%r) removed", job.job_id, job.name)

    def served(self) -> list[Served]:
        """What it serves (nothing just after start: it restarts with the service)."""
        return [Served.of_spec(spec) for spec in self._running().engine.jobs()]

    def remove_served(self, job_id: int) -> None:
        self._running().remove_job(job_id)

    def counters(self) -> dict[str, int]:
        """The aggregator's packet counters (all its jobs together)."""
        return self._running().counters()

    def job_counters(self, jobs: Iterable[Job]) -> dict[int, dict[str, int]]:
        """Per job id, the job's own packets, drops, retransmissions and rounds."""
        server = self._running()
        return {job.job_id: server.job_counters(job.job_id) for job in jobs}

    # It runs in this process: it is up while started (the same answers as RemoteFallback).
    name = "embedded"

    @property
    def down(self) -> str | None:
        return None if self._server is not None else "not started"

    def check(self) -> str | None:
        return self.down

    poll = check

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def _running(self) -> AggregatorServer:
        if self._server is None:
            raise RuntimeError("the fallback aggregator is not started")
        return self._server


__all__ = ["EmbeddedFallback"]
