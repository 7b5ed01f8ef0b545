# SPDX-License-Identifier: Apache-2.0
"""A client of the job service: typed answers, and one error type naming the service,
the gRPC status and the service's cause.

Needs the 'controller' extra (grpcio, protobuf): imported only by those who talk to a
service, so a worker that does not stays free of both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

try:
    import grpc

    from p4reduce.jobapi import jobs_pb2, jobs_pb2_grpc
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "talking to the job service needs the 'controller' extra: pip install 'p4reduce[controller]'"
    ) from exc

from p4reduce.jobapi.security import ClientCredentials, channel
from p4reduce.protocol import Mode

_T = TypeVar("_T")

# How an UNAVAILABLE answer begins when the job's switch is gone (the job failed; a new
# CreateJob of its name lands on the fallback), as opposed to the service being unreachable.
SWITCH_LOST = "switch lost"
AGGREGATOR_LOST = "aggregator lost"  # a running software aggregator the service used

# A Mode as jobs.proto's enum, and back (MODE_UNSPECIFIED is no Mode: a request's "any").
MODE_CODES = {Mode.SPARSE: jobs_pb2.SPARSE, Mode.DENSE: jobs_pb2.DENSE}
MODES = {code: mode for mode, code in MODE_CODES.items()}
_TARGETS = {jobs_pb2.SWITCH: "switch", jobs_pb2.SOFTWARE: "software"}


class JobServiceError(RuntimeError):
    """The job service refused a call or could not be reached. `code` is the gRPC status
    name (NOT_FOUND, RESOURCE_EXHAUSTED, UNAVAILABLE, ...); `cause` the service's words."""

    def __init__(self, address: str, call: str, code: str, cause: str) -> None:
        self.address, self.call, self.code, self.cause = address, call, code, cause
        super().__init__(f"job service at {address}: {call}: {code}: {cause}")


@dataclass(frozen=True)
class Placement:
    """Where a job aggregates and with which geometry (JobPlacement in jobs.proto)."""

    job_id: int
    name: str
    target: str  # "switch" or "software"
    host: str
    port: int
    mac: str
    mode: Mode
    block_size: int
    slot_base: int
    num_slots: int
    num_workers: int
    message_size: int
    session: int
    lease_seconds: float
    reason: str  # why a job is on a software aggregator; "" on the switch
    key: bytes = b""  # a software job's key (an authenticated job); shown to its tenant only
    tenant: str = ""  # who created it

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    @classmethod
    def from_proto(cls, msg: Any) -> Placement:
        if msg.target not in _TARGETS or msg.mode not in MODES:
            raise ValueError(f"job service answered job {msg.job_id} with target {msg.target} and mode {msg.mode}")
        return cls(
            job_id=msg.job_id,
            name=msg.name,
            target=_TARGETS[msg.target],
            host=msg.host,
            port=msg.port,
            mac=msg.mac,
            mode=MODES[msg.mode],
            block_size=msg.block_size,
            slot_base=msg.slot_base,
            num_slots=msg.num_slots,
            num_workers=msg.num_workers,
            message_size=msg.message_size,
            session=msg.session,
            lease_seconds=msg.lease_seconds,
            reason=msg.reason,
            key=msg.key,
            tenant=msg.tenant,
        )


@dataclass(frozen=True)
class Registration:
    job: Placement
    registered: int  # workers registered so far
    switch_port: int  # the worker's switch port; 0 on a software aggregator
    # Where the worker runs (jobs.proto's Registration), known once `placed`: a tree job is
    # placed when its last rank registers; a worker asks again until then.
    placed: bool = True
    rank: int = 0  # as placed (on a tree, each leaf's workers hold consecutive ranks)
    leaf: str = ""  # the leaf switch it sits under; "" off a tree
    local_rank: int = 0  # its rank in its leaf's job: what its packets carry
    local_workers: int = 0  # the workers of its leaf's job


@dataclass(frozen=True)
class JobStatus:
    job: Placement
    registered: int
    expires_in: float
    counters: dict[str, int] = field(default_factory=dict)  # the target's, all its jobs together
    job_counters: dict[str, int] = field(default_factory=dict)  # packets, drops, retransmissions, rounds


@dataclass(frozen=True)
class JobList:
    jobs: list[JobStatus]
    slots_total: int
    slots_free: int
    switch_up: bool


@dataclass(frozen=True)
class JobEvent:
    """The job's state as WatchJob streams it; the last one is `ended`, naming why."""

    job_id: int
    registered: int
    expires_in: float
    ended: bool
    reason: str


class JobEvents:
    """A WatchJob stream: iterate for its events (JobServiceError when it breaks);
    `cancel()` ends it from another thread."""

    def __init__(self, client: JobClient, call: Any) -> None:
        self._client, self._call = client, call

    def __iter__(self) -> Iterator[JobEvent]:
        try:
            for e in self._call:
                yield JobEvent(e.job_id, e.registered, e.expires_in, e.ended, e.reason)
        except grpc.RpcError as exc:
            raise self._client.error("WatchJob", exc) from None

    def cancel(self) -> None:
        self._call.cancel()


def _address_text(address: tuple[str, int] | str) -> str:
    if isinstance(address, str):
        return address
    host, port = address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _handshake_hint(credentials: ClientCredentials | None) -> str:
    """What a connection that the service closed at once most likely lacked: a service with
    credentials ends the TLS handshake of a client without TLS or without a certificate
    (before any answer, so no UNAUTHENTICATED can name it)."""
    if credentials is None or not credentials.tls:
        return " (does the service require TLS? give its CA: --tls-ca, P4REDUCE_TLS_CA)"
    if credentials.cert is None:
        return " (does the service require a client certificate? --tls-cert/--tls-key, P4REDUCE_TLS_CERT/_KEY)"
    return " (does the service accept this certificate and CA?)"


class JobClient:
    """Calls to one job service, each bounded by `timeout` seconds, with `credentials`
    (None: a plain channel, for a service without credentials)."""

    def __init__(
        self, address: tuple[str, int] | str, timeout: float = 10.0, credentials: ClientCredentials | None = None
    ) -> None:
        if not (timeout > 0 and math.isfinite(timeout)):
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.address = _address_text(address)
        self.timeout = timeout
        self.credentials = credentials
        self._channel = channel(self.address, credentials)
        self._stub = jobs_pb2_grpc.JobServiceStub(self._channel)

    def _call(
        self,
        name: str,
        method: Callable[..., _T],
        request: Any,
        timeout: float | None = None,
        *,
        riding_out_restarts: bool = False,
    ) -> _T:
        """`riding_out_restarts`: a call of a running worker, which waits (up to its timeout)
        for a service that is away, e.g. restarting, instead of failing at once."""
        try:
            return method(request, timeout=timeout or self.timeout, wait_for_ready=riding_out_restarts)
        except grpc.RpcError as exc:
            raise self.error(name, exc) from None

    def error(self, call: str, exc: grpc.RpcError) -> JobServiceError:
        """`exc`, a failed `call`, as the JobServiceError naming its status and cause."""
        code = exc.code().name if hasattr(exc, "code") else "UNKNOWN"
        details = (exc.details() if hasattr(exc, "details") else str(exc)) or "no details"
        if code == "UNAVAILABLE" and "Socket closed" in details:
            details += _handshake_hint(self.credentials)
        return JobServiceError(self.address, call, code, details)

    def create_job(
        self,
        name: str,
        num_workers: int,
        *,
        mode: Mode | str | None = None,
        block_size: int = 0,
        num_slots: int = 0,
        lease_seconds: float = 0.0,
    ) -> Placement:
        """The job called `name`: created by the first caller, the same answer for the others."""
        request = jobs_pb2.CreateJobRequest(
            name=name,
            num_workers=num_workers,
            mode=jobs_pb2.MODE_UNSPECIFIED if mode is None else MODE_CODES[Mode(mode)],
            block_size=block_size,
            num_slots=num_slots,
            lease_seconds=lease_seconds,
        )
        return Placement.from_proto(self._call("CreateJob", self._stub.CreateJob, request))

    def register_worker(self, job_id: int, rank: int, ip: str, mac: str, udp_port: int) -> Registration:
        """Tell the service where worker `rank` sends from; its target admits it then."""
        request = jobs_pb2.RegisterWorkerRequest(job_id=job_id, rank=rank, ip=ip, mac=mac, udp_port=udp_port)
        answer = self._call("RegisterWorker", self._stub.RegisterWorker, request)
        return Registration(
            Placement.from_proto(answer.job),
            answer.registered,
            answer.switch_port,
            answer.placed,
            answer.rank,
            answer.leaf,
            answer.local_rank,
            answer.local_workers,
        )

    def keep_alive(self, job_id: int) -> float:
        """Extend the job's lease; returns the seconds it now has."""
        request = jobs_pb2.KeepAliveRequest(job_id=job_id)
        answer = self._call("KeepAlive", self._stub.KeepAlive, request, riding_out_restarts=True)
        return float(answer.expires_in)

    def release_job(self, job_id: int) -> None:
        """Free the job's resources now (the lease would, when it expires)."""
        self._call("ReleaseJob", self._stub.ReleaseJob, jobs_pb2.ReleaseJobRequest(job_id=job_id))

    def close_worker(self, job_id: int, rank: int, timeout: float | None = None) -> tuple[int, bool]:
        """Rank `rank` of the job is done: (registered ranks still open, whether this released
        the job); the last rank to close releases it. `timeout`: this call's, if not the client's."""
        request = jobs_pb2.CloseWorkerRequest(job_id=job_id, rank=rank)
        answer = self._call("CloseWorker", self._stub.CloseWorker, request, timeout, riding_out_restarts=True)
        return answer.open, answer.released

    def watch_job(self, job_id: int) -> JobEvents:
        """The job's events: one at once, one on each change, the last `ended` (no timeout)."""
        return JobEvents(self, self._stub.WatchJob(jobs_pb2.WatchJobRequest(job_id=job_id)))

    def list_jobs(self) -> JobList:
        answer = self._call("ListJobs", self._stub.ListJobs, jobs_pb2.ListJobsRequest())
        jobs = [
            JobStatus(Placement.from_proto(j.job), j.registered, j.expires_in, dict(j.counters), dict(j.job_counters))
            for j in answer.jobs
        ]
        return JobList(jobs, answer.slots_total, answer.slots_free, answer.switch_up)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> JobClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
