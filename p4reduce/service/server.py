# SPDX-License-Identifier: Apache-2.0
"""The gRPC front of the job service (p4reduce/jobapi/jobs.proto): `JobServer`.

Each RPC authenticates its caller (ServerSecurity, jobapi/security.py) and becomes one
JobCoordinator call on its behalf; a ServiceError (or AccessError) becomes its status
code with the error's message (which names the cause or the field), anything else
INTERNAL, so a bad request never stops the service. A job's session and key are shown
to its tenant (and admins) only. A thread expires leases every `tick` seconds.

A WatchJob stream holds a thread of the pool while it is open: the pool has `threads`
for the other requests plus `watchers` for streams, and a watch beyond `watchers` is
refused RESOURCE_EXHAUSTED, so watchers never starve the other requests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any, TypeVar

import grpc

from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.jobapi.client import MODE_CODES, MODES
from p4reduce.jobapi.listen import SERVER_OPTIONS
from p4reduce.jobapi.security import AccessError, Caller, Role, ServerSecurity
from p4reduce.service.config import ServiceConfig
from p4reduce.service.coordinator import JobCoordinator
from p4reduce.service.errors import InvalidArgument, NoSlots, ServiceError
from p4reduce.service.metrics import MetricsServer
from p4reduce.service.registry import Job, JobWish, Target
from p4reduce.service.watch import JobState, JobWatch

log = logging.getLogger(__name__)
_T = TypeVar("_T")

_TARGETS = {Target.SWITCH: pb.SWITCH, Target.SOFTWARE: pb.SOFTWARE}


def parse_bind(text: str | tuple[str, int]) -> tuple[str, int]:
    """`HOST:PORT` or (host, port) (port 0: one the system chooses); ValueError naming what is wrong."""
    if isinstance(text, tuple):
        return text
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT with a port in 0..65535")
    return host, int(port)


class JobServicer(pb_grpc.JobServiceServicer):  # type: ignore[misc]  # generated, untyped
    def __init__(
        self, coordinator: JobCoordinator, security: ServerSecurity | None = None, watchers: int = 256
    ) -> None:
        self.coordinator = coordinator
        self.security = security or coordinator.config.security
        self.watchers = watchers
        self._watching = threading.BoundedSemaphore(watchers)  # a pool thread each

    def _answer(self, context: grpc.ServicerContext, call: Callable[[Caller], _T]) -> _T:
        """`call(caller)`'s answer; refusals counted per tenant (UNAUTHENTICATED ones under "")."""
        caller = Caller("", Role.TENANT)

        def run() -> _T:
            nonlocal caller
            caller = self.security.authenticate(context)
            return call(caller)

        def refused(status: str) -> None:
            if status in _REFUSALS:
                self.coordinator.refused(caller, status)

        return _answer(context, run, refused)

    def CreateJob(self, request: Any, context: grpc.ServicerContext) -> Any:
        def create(caller: Caller) -> Any:
            unspecified = request.mode == pb.MODE_UNSPECIFIED
            if not unspecified and request.mode not in MODES:  # proto3 enums are open: any number arrives
                raise InvalidArgument("mode", f"{request.mode} is neither SPARSE nor DENSE")
            wish = JobWish(
                request.name,
                request.num_workers,
                None if unspecified else MODES[request.mode],
                request.block_size,
                request.num_slots,
                request.lease_seconds,
            )
            return self._placement(self.coordinator.create(wish, caller), caller)

        return self._answer(context, create)

    def RegisterWorker(self, request: Any, context: grpc.ServicerContext) -> Any:
        def register(caller: Caller) -> Any:
            job, worker = self.coordinator.register(
                request.job_id, request.rank, request.ip, request.mac, request.udp_port, caller
            )
            place = self.coordinator.places(job).get(worker.rank)
            answer = pb.Registration(
                job=self._placement(job, caller), registered=len(job.workers), switch_port=worker.switch_port
            )
            if place is not None:  # (a tree job's ranks are placed when its last one registers)
                answer.placed, answer.rank, answer.leaf = True, place.rank, place.leaf
                answer.local_rank, answer.local_workers = place.local_rank, place.local_workers
            return answer

        return self._answer(context, register)

    def KeepAlive(self, request: Any, context: grpc.ServicerContext) -> Any:
        def keepalive(caller: Caller) -> Any:
            job = self.coordinator.keepalive(request.job_id, caller)
            return pb.Lease(job_id=job.job_id, expires_in=job.expires_in(self.coordinator.clock()))

        return self._answer(context, keepalive)

    def ReleaseJob(self, request: Any, context: grpc.ServicerContext) -> Any:
        def release(caller: Caller) -> Any:
            return pb.Released(job_id=self.coordinator.release(request.job_id, caller).job_id)

        return self._answer(context, release)

    def CloseWorker(self, request: Any, context: grpc.ServicerContext) -> Any:
        def close(caller: Caller) -> Any:
            still_open, released = self.coordinator.close_worker(request.job_id, request.rank, caller)
            return pb.Closed(job_id=request.job_id, open=still_open, released=released)

        return self._answer(context, close)

    def WatchJob(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        def watch(caller: Caller) -> JobWatch:
            if not self._watching.acquire(blocking=False):
                raise NoSlots(f"{self.watchers} WatchJob streams are open already (the service's limit)")
            try:
                return self.coordinator.watch(request.job_id, caller)
            except BaseException:
                self._watching.release()
                raise

        job = self._answer(context, watch)
        try:
            context.add_callback(job.wake)  # the stream ended (cancelled, or the server stopping)
            seen = -1
            while (state := job.next(seen, lambda: not context.is_active())) is not None:
                seen = state.version
                yield self._event(request.job_id, state)
                if state.ended is not None:
                    return
        finally:
            self._watching.release()

    def _event(self, job_id: int, state: JobState) -> Any:
        return pb.JobEvent(
            job_id=job_id,
            registered=state.registered,
            expires_in=0.0 if state.ended is not None else max(0.0, state.expires_at - self.coordinator.clock()),
            ended=state.ended is not None,
            reason=state.ended or "",
        )

    def ListJobs(self, request: Any, context: grpc.ServicerContext) -> Any:
        def list_jobs(caller: Caller) -> Any:
            snap = self.coordinator.snapshot()
            shown = self.coordinator.registry.visible(caller)
            ids = {j.job_id for j in shown}
            return pb.JobList(
                jobs=[
                    pb.JobStatus(
                        job=self._placement(job, caller),
                        registered=len(job.workers),
                        expires_in=job.expires_in(snap.now),
                        counters=snap.counters.get(job.target, {}),
                        job_counters=snap.job_counters.get(job.job_id, {}),
                    )
                    for job in snap.jobs
                    if job.job_id in ids
                ],
                slots_total=snap.slots_total,
                slots_free=snap.slots_free,
                switch_up=snap.switch_up,
            )

        return self._answer(context, list_jobs)

    def _placement(self, job: Job, caller: Caller) -> Any:
        """The job's placement as `caller` may see it: its session and key for its tenant only."""
        host, port, mac = self.coordinator.placement_address(job)
        secrets = self.coordinator.registry.sees_secrets(caller, job)
        return pb.JobPlacement(
            job_id=job.job_id,
            name=job.name,
            target=_TARGETS[job.target],
            host=host,
            port=port,
            mac=mac,
            mode=MODE_CODES[job.mode],
            block_size=job.block_size,
            slot_base=job.slot_base,
            num_slots=job.num_slots,
            num_workers=job.num_workers,
            message_size=job.message_size,
            session=job.session if secrets else 0,
            lease_seconds=job.lease_seconds,
            reason=job.reason,
            key=job.key if secrets else b"",
            tenant=job.tenant,
        )


# Refusals of who calls or how much it holds, counted per tenant (metrics).
_REFUSALS = frozenset({"UNAUTHENTICATED", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED"})


def _answer(
    context: grpc.ServicerContext, call: Callable[[], _T], refused: Callable[[str], None] = lambda status: None
) -> _T:
    try:
        return call()
    except (ServiceError, AccessError) as exc:
        status, message = grpc.StatusCode[exc.status], str(exc)
        refused(exc.status)
    except Exception as exc:  # a bug: answered, logged, and the service goes on
        log.exception("internal error in a request")
        status, message = grpc.StatusCode.INTERNAL, f"internal error {type(exc).__name__}: {exc}"
    context.abort(status, message)
    raise AssertionError("context.abort returned")


class JobServer:
    """The job service on `bind` (gRPC) and, with `metrics`, Prometheus text on HTTP.

    A context manager; `.address` and `.metrics_address` are (host, port) once started.
    """

    def __init__(
        self,
        config: ServiceConfig,
        bind: str | tuple[str, int] = "127.0.0.1:0",
        *,
        metrics: str | tuple[str, int] | None = None,
        tick: float = 0.5,
        coordinator: JobCoordinator | None = None,
        threads: int = 8,
        watchers: int = 256,
    ) -> None:
        # Credentials: config.security (the CLI's flags are merged into it).
        self.bind = parse_bind(bind)
        self.metrics_bind = parse_bind(metrics) if metrics is not None else None
        self.coordinator = coordinator or JobCoordinator(config)
        self.tick = tick
        self._threads, self._watchers = threads, watchers
        self._server: grpc.Server | None = None
        self._metrics: MetricsServer | None = None
        self._stop = threading.Event()
        self._expiry: threading.Thread | None = None
        self.address: tuple[str, int] = self.bind
        self.metrics_address: tuple[str, int] | None = None

    def start(self) -> JobServer:
        try:
            self.coordinator.start()
            pool = futures.ThreadPoolExecutor(max_workers=self._threads + self._watchers)
            self._server = grpc.server(pool, options=SERVER_OPTIONS)
            security = self.coordinator.config.security
            servicer = JobServicer(self.coordinator, security, self._watchers)
            pb_grpc.add_JobServiceServicer_to_server(servicer, self._server)
            host, port = self.bind
            self.address = (host, security.listen(self._server, host, port))
            self._server.start()
            if self.metrics_bind is not None:
                self._metrics = MetricsServer(self.coordinator.snapshot, self.metrics_bind).start()
                self.metrics_address = self._metrics.address
            self._expiry = threading.Thread(target=self._expire_leases, name="p4reduce-leases", daemon=True)
            self._expiry.start()
        except BaseException:
            self.stop()
            raise
        log.info("job service on %s:%d", *self.address)
        return self

    def _expire_leases(self) -> None:
        while not self._stop.wait(self.tick):
            try:
                self.coordinator.expire()
            except Exception:  # never let the lease thread die: log and go on
                log.exception("lease expiry failed")

    def wait(self, timeout: float | None = None) -> None:
        """Block until stop() (or `timeout` seconds)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.wait(1.0 if deadline is None else max(0.0, deadline - time.monotonic())):
            if deadline is not None and time.monotonic() >= deadline:
                return

    def stop(self) -> None:
        self._stop.set()
        if self._expiry is not None:
            self._expiry.join(timeout=5)
        if self._metrics is not None:
            self._metrics.stop()
        self.coordinator.close_watches()  # the streams end at once, without an ending
        if self._server is not None:
            self._server.stop(grace=1).wait(5)
        self.coordinator.stop()

    def __enter__(self) -> JobServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["JobServer", "JobServicer", "parse_bind"]
