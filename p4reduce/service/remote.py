# SPDX-License-Identifier: Apache-2.0
"""A software target the service does not run: a `p4reduce aggregator --admin HOST:PORT`
process, driven over its AggregatorAdmin gRPC API (p4reduce/jobapi/jobs.proto) the way
EmbeddedFallback drives the aggregator in the service's process.

A request it does not answer (unreachable, timed out) makes it `down`: the coordinator
fails its jobs, as for a lost switch, and places new ones elsewhere until a later check
reaches it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import grpc

from p4reduce.jobapi import AGGREGATOR_LOST
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.jobapi.client import MODE_CODES, MODES
from p4reduce.jobapi.security import ClientCredentials, channel
from p4reduce.service.config import RemoteAggregator
from p4reduce.service.errors import AggregatorLost, ServiceError
from p4reduce.service.registry import Job
from p4reduce.service.served import Served

log = logging.getLogger(__name__)
# Answers that mean the aggregator is not there (any other is its verdict on the request).
_GONE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED)


class RefusedByAggregator(ServiceError):
    """The aggregator answered, and refused (a job id or slots it already serves...)."""

    status = "FAILED_PRECONDITION"

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class RemoteFallback:
    """`start()`, `check()`/`poll()`, then `add`/`admit`/`remove` a registry Job, counters; `stop()`."""

    def __init__(
        self,
        config: RemoteAggregator,
        *,
        poll_interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        credentials: ClientCredentials | None = None,
    ) -> None:
        self.config = config
        self.poll_interval = poll_interval
        self.clock = clock
        self.down: str | None = "not connected yet"
        self._port = 0  # the UDP port it serves on (Describe)
        self._channel = channel(config.name, credentials)  # its admin API needs role admin
        self._stub = pb_grpc.AggregatorAdminStub(self._channel)
        self._last_check = -float("inf")
        # Jobs removed while it did not answer: removed from it when it answers again (it may
        # only have been out of reach, and would keep their slots).
        self._orphans: set[int] = set()

    @property
    def name(self) -> str:
        return self.config.name

    # -- session -------------------------------------------------------------------
    def start(self) -> RemoteFallback:
        """Ask where it serves; a failure only leaves it `down` (the service runs on)."""
        self._describe()
        return self

    def check(self) -> str | None:
        """Why it cannot take a job now, or None (asks it: a Describe)."""
        self._describe()
        return self.down

    def poll(self) -> str | None:
        """Like check, at most every poll_interval seconds (the lease thread calls it)."""
        if self.clock() - self._last_check < self.poll_interval:
            return self.down
        return self.check()

    def stop(self) -> None:
        self._channel.close()

    @property
    def address(self) -> tuple[str, int]:
        """Where workers send: the advertised host and the port it serves on."""
        return self.config.advertise, self._port

    # -- jobs ----------------------------------------------------------------------
    def add(self, job: Job) -> None:
        request = pb.AddJobRequest(
            job_id=job.job_id,
            num_workers=job.num_workers,
            mode=MODE_CODES[job.mode],
            block_size=job.block_size,
            slot_base=job.slot_base,
            num_slots=job.num_slots,
            message_size=job.message_size,
            key=job.key,
        )
        self._call("AddJob", request)
        log.info("aggregator %s: serving job %d (%r)", self.name, job.job_id, job.name)

    def admit(self, job: Job, rank: int, ip: str, udp_port: int) -> None:
        """Rank `rank` of `job` sends from ip:udp_port (what it registered), and only from there."""
        self._call("AdmitWorker", pb.AdmitWorkerRequest(job_id=job.job_id, rank=rank, ip=ip, udp_port=udp_port))

    def remove(self, job: Job) -> None:
        """Stop serving `job` there; while it does not answer, as soon as it answers again."""
        if self.down is not None:
            self._orphans.add(job.job_id)
            log.info("aggregator %s: job %d (%r) removed once it answers again", self.name, job.job_id, job.name)
            return
        self._remove(job.job_id)
        log.info("aggregator %s: job %d (%r) removed", self.name, job.job_id, job.name)

    def served(self) -> list[Served]:
        """What it serves now (ListServed), to reconcile with what the service recorded."""
        answer = self._call("ListServed", pb.ListServedRequest())
        return [
            Served(
                s.job.job_id,
                s.job.num_workers,
                MODES[s.job.mode],
                s.job.block_size,
                s.job.slot_base,
                s.job.num_slots,
                s.job.message_size,
                {w.rank: (w.ip, w.udp_port) for w in s.workers},
            )
            for s in answer.jobs
        ]

    def remove_served(self, job_id: int) -> None:
        """Stop serving a job the service did not record; RefusedByAggregator when it will not."""
        try:
            self._call("RemoveJob", pb.RemoveJobRequest(job_id=job_id))
        except RefusedByAggregator as exc:
            if exc.code is not grpc.StatusCode.NOT_FOUND:  # NOT_FOUND: gone meanwhile
                raise
        log.info("aggregator %s: job %d removed (the service did not record it)", self.name, job_id)

    def _remove(self, job_id: int) -> None:
        try:
            self._call("RemoveJob", pb.RemoveJobRequest(job_id=job_id))
        except RefusedByAggregator as exc:  # NOT_FOUND: it restarted since; nothing to remove
            log.info("aggregator %s: job %d: %s", self.name, job_id, exc)

    def counters(self) -> dict[str, int]:
        """Its packet counters (all its jobs together)."""
        return dict(self._call("Counters", pb.CountersRequest()).counters)

    def job_counters(self, jobs: Iterable[Job]) -> dict[int, dict[str, int]]:
        """Per job id, the job's own packets, drops, retransmissions and rounds."""
        answer = self._call("Counters", pb.CountersRequest(job_ids=[j.job_id for j in jobs]))
        return {job_id: dict(c.counters) for job_id, c in answer.jobs.items()}

    # -- helpers -------------------------------------------------------------------
    def _describe(self) -> None:
        self._last_check = self.clock()
        try:
            info = self._stub.Describe(pb.DescribeRequest(), timeout=self.config.timeout)
        except grpc.RpcError as exc:
            reason = f"{self.name}: {_details(exc)}"
            if self.down is None:
                log.error("aggregator %s lost: %s", self.name, reason)
            self.down = reason
            return
        if self.down is not None:
            log.info("aggregator %s: serves on port %d (%d jobs)", self.name, info.port, info.jobs)
        self._port, self.down = info.port, None
        for job_id in sorted(self._orphans):
            try:
                self._remove(job_id)
            except AggregatorLost:
                return  # gone again: the rest next time
            self._orphans.discard(job_id)

    def _call(self, method: str, request: Any) -> Any:
        if self.down is not None:
            raise AggregatorLost(f"{AGGREGATOR_LOST}: {self.down}")
        try:
            return getattr(self._stub, method)(request, timeout=self.config.timeout)
        except grpc.RpcError as exc:
            if exc.code() in _GONE:
                self.down = f"{self.name}: {_details(exc)}"
                log.error("aggregator %s lost: %s", self.name, self.down)
                raise AggregatorLost(f"{AGGREGATOR_LOST}: {self.down}") from None
            raise RefusedByAggregator(f"aggregator {self.name} refused {method}: {_details(exc)}", exc.code()) from None


def _details(exc: grpc.RpcError) -> str:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return f"{code.name if code else 'error'}: {details}"


__all__ = ["RefusedByAggregator", "RemoteFallback"]
