# SPDX-License-Identifier: Apache-2.0
"""The AggregatorAdmin gRPC service (p4reduce/jobapi/jobs.proto): a running software
aggregator whose jobs a job service adds, admits workers to, counts and removes
(`p4reduce aggregator --admin HOST:PORT`, config `fallback: {aggregators: [...]}`).

It takes the job service's server credentials (jobapi/security.py: TLS with client
certificates and/or a tenants file's tokens); every call needs role admin. Without
credentials it binds loopback only (or, knowingly, anywhere with `insecure`).
Needs the 'controller' extra (grpcio, protobuf).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any, TypeVar

import grpc

from p4reduce.aggregator.config import JobSpec, WorkerAddress
from p4reduce.aggregator.engine import JobConflict
from p4reduce.aggregator.server import AggregatorServer
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.jobapi.client import MODE_CODES, MODES
from p4reduce.jobapi.listen import SERVER_OPTIONS
from p4reduce.jobapi.security import AccessError, PermissionDenied, ServerSecurity
from p4reduce.protocol.auth import JobKey

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class AdminServicer(pb_grpc.AggregatorAdminServicer):  # type: ignore[misc]  # generated, untyped
    """Each call applied to `server` (its serving thread applies job changes between batches).
    The jobs added here are tracked here, under a lock: the engine's own job table belongs
    to the serving thread."""

    def __init__(self, server: AggregatorServer, security: ServerSecurity | None = None) -> None:
        self.server = server
        self.security = security or ServerSecurity()
        self._lock = threading.Lock()
        self._jobs = {spec.job_id for spec in server.engine.jobs()}  # before it serves

    def Describe(self, request: Any, context: grpc.ServicerContext) -> Any:
        return _answer(context, self._info, self.security)

    def AddJob(self, request: Any, context: grpc.ServicerContext) -> Any:
        def add() -> Any:
            if request.mode not in MODES:  # proto3 enums are open: any number arrives
                raise ValueError(f"mode: {request.mode} is neither SPARSE nor DENSE")
            spec = JobSpec(  # JobSpec checks every field, naming the bad one (ValueError)
                request.job_id,
                request.num_workers,
                mode=MODES[request.mode],
                slot_base=request.slot_base,
                num_slots=request.num_slots,
                block_size=request.block_size,
                message_size=request.message_size,
                workers=(None,) * request.num_workers,  # admitted one by one (AdmitWorker)
                key=JobKey(request.key) if request.key else None,  # ValueError naming a bad length
            )
            with self._lock:
                if spec.job_id in self._jobs:
                    raise _Refused(grpc.StatusCode.ALREADY_EXISTS, f"job {spec.job_id} is served already")
                self.server.add_job(spec)  # ValueError for slots overlapping another job's
                self._jobs.add(spec.job_id)
            log.info("admin: job %d added (%s)", spec.job_id, spec.describe())
            return self._info()

        return _answer(context, add, self.security)

    def AdmitWorker(self, request: Any, context: grpc.ServicerContext) -> Any:
        def admit() -> Any:
            address = WorkerAddress(request.ip, request.udp_port)
            self.server.declare_worker(request.job_id, request.rank, address)
            return pb.Admitted()

        return _answer(context, admit, self.security)

    def RemoveJob(self, request: Any, context: grpc.ServicerContext) -> Any:
        def remove() -> Any:
            with self._lock:
                self.server.remove_job(request.job_id)  # KeyError: not served
                self._jobs.discard(request.job_id)
            log.info("admin: job %d removed", request.job_id)
            return pb.Removed()

        return _answer(context, remove, self.security)

    def Counters(self, request: Any, context: grpc.ServicerContext) -> Any:
        def counters() -> Any:
            with self._lock:
                served = set(self._jobs)
            jobs = {
                job_id: pb.JobCounters(counters=self.server.job_counters(job_id))
                for job_id in request.job_ids
                if job_id in served
            }
            return pb.AggregatorCounters(counters=self.server.counters(), jobs=jobs)

        return _answer(context, counters, self.security)

    def ListServed(self, request: Any, context: grpc.ServicerContext) -> Any:
        """Every job served, as AddJob would add it (without its key), and its admitted
        ranks: what a restarted job service reconciles with what it recorded."""

        def served() -> Any:
            with self._lock:  # (job changes go through it: the table holds still meanwhile)
                specs = [self.server.engine.job(job_id) for job_id in sorted(self._jobs)]
            return pb.ServedJobs(jobs=[_served(spec) for spec in specs])

        return _answer(context, served, self.security)

    def _info(self) -> Any:
        host, port = self.server.address
        with self._lock:
            return pb.AggregatorInfo(host=host, port=port, jobs=len(self._jobs))


def _served(spec: JobSpec) -> Any:
    job = pb.AddJobRequest(
        job_id=spec.job_id,
        num_workers=spec.num_workers,
        mode=MODE_CODES[spec.mode],
        block_size=spec.block_size,
        slot_base=spec.slot_base,
        num_slots=spec.num_slots,
        message_size=spec.message_size,
    )
    workers = [
        pb.AdmitWorkerRequest(job_id=spec.job_id, rank=rank, ip=w.ip, udp_port=w.port or 0)
        for rank, w in enumerate(spec.workers or ())
        if w is not None
    ]
    return pb.ServedJob(job=job, workers=workers)


class _Refused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _answer(context: grpc.ServicerContext, call: Callable[[], _T], security: ServerSecurity) -> _T:
    """The call's answer, for an admin caller; its error as the status code that names the cause."""
    try:
        caller = security.authenticate(context)
        if not caller.admin:
            raise PermissionDenied(f"{caller} may not use the aggregator's admin API (it needs role admin)")
        return call()
    except AccessError as exc:
        code, message = grpc.StatusCode[exc.status], str(exc)
    except _Refused as exc:
        code, message = exc.code, str(exc)
    except KeyError as exc:  # the engine's "unknown job N"
        code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0] if exc.args else exc)
    except JobConflict as exc:  # slots that overlap another job's (the id is checked before)
        code, message = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
    except ValueError as exc:  # a bad field
        code, message = grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    except Exception as exc:  # a bug: answered, logged, and the aggregator goes on
        log.exception("internal error in an admin request")
        code, message = grpc.StatusCode.INTERNAL, f"internal error {type(exc).__name__}: {exc}"
    context.abort(code, message)
    raise AssertionError("context.abort returned")


class AdminServer:
    """AggregatorAdmin for `aggregator` on `bind` (host, port; port 0: any) with `security`'s
    credentials (ValueError for a non-loopback bind without any). `.address` is what it
    listens on once started."""

    def __init__(
        self, aggregator: AggregatorServer, bind: tuple[str, int], security: ServerSecurity | None = None
    ) -> None:
        security = security or ServerSecurity()
        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=SERVER_OPTIONS)
        pb_grpc.add_AggregatorAdminServicer_to_server(AdminServicer(aggregator, security), self._grpc)
        host, port = bind
        self.address = (host, security.listen(self._grpc, host, port, "aggregator admin API"))

    def start(self) -> AdminServer:
        self._grpc.start()
        log.info("aggregator admin on %s:%d", *self.address)
        return self

    def stop(self) -> None:
        self._grpc.stop(grace=1).wait(5)


__all__ = ["AdminServer", "AdminServicer"]
