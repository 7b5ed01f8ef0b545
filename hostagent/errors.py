# SPDX-License-Identifier: Apache-2.0
"""Errors an allreduce ends with when it cannot end with the right result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from p4reduce.protocol import NONE, ErrorCode, GeometryField, KeyMismatch

if TYPE_CHECKING:
    from p4reduce.hostagent.config import WorkerConfig

_RECOVERY = "Stop all workers, reset the job (reset_job() on one worker), then reset() the others."


class AgentFailed(RuntimeError):
    """A previous allreduce failed; slot state must be reset on both sides."""


class JobKeyMismatch(AgentFailed):
    """The aggregator cannot check this worker's MAC, or this worker the aggregator's: the
    worker and the aggregator's job do not have the same key (or one of them has none)."""


class JobFailed(RuntimeError):
    """The aggregator failed the job, or the workers disagree: every worker of the job
    gets this error (and no result). `code` says why; `detail` is the worker or field."""

    def __init__(
        self, job_id: int, worker_id: int, code: ErrorCode | int, detail: int, epoch: int | None = None
    ) -> None:
        self.job_id, self.code, self.detail = job_id, code, detail
        super().__init__(f"job {job_id} worker {worker_id}: {describe(code, detail, epoch)}. {_RECOVERY}")


class ProtocolError(RuntimeError):
    """The aggregator's answers contradict the protocol (a bug, or someone else's packets
    carrying this worker's session): the allreduce fails rather than return a wrong sum."""


class StalledStream(Protocol):
    """What AllreduceTimeout reads of the stream whose round timed out: a Stream (the Python
    engine), or the native engine's view of one (fastpath.StreamView)."""

    @property
    def slot(self) -> int: ...
    @property
    def block(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def missing_workers(self) -> int | None: ...  # bitmap from the aggregator's last PENDING
    @property
    def opening(self) -> bool: ...


class AllreduceTimeout(TimeoutError):
    """A round waited `failure_timeout` while no other round started; names the missing workers when known."""

    def __init__(self, cfg: WorkerConfig, stream: StalledStream, waited: float) -> None:
        self.slot, self.block, self.round = stream.slot, stream.block, stream.round
        bitmap = stream.missing_workers
        self.missing_workers = None if bitmap is None else [w for w in range(cfg.num_workers) if bitmap >> w & 1]
        opening = stream.opening or stream.block == NONE
        what = "the opening round" if opening else f"block {stream.block}"
        if self.missing_workers is not None:
            why = f"the aggregator is still waiting for worker(s) {self.missing_workers}"
        else:
            why = (
                "the aggregator gave no status (a switch never does; a software aggregator "
                "that restarted or lost the job's state does not know the round)"
            )
        super().__init__(
            f"job {cfg.job_id} worker {cfg.worker_id}: no result for slot "
            f"{stream.slot} {what} (round {stream.round}) in {waited:.1f} s; {why}. "
            "Stop all workers, reset the job, then call reset() on every worker."
        )


class NonFiniteInput(ValueError):
    """A float32 tensor holds NaN or Inf. `sent`: it was found after the allreduce's first
    packets had left (the native engine scans while its first streams run), so the
    allreduce failed on every worker (docs/protocol.md 5); else nothing was sent."""

    def __init__(self, index: int, sent: bool = False) -> None:
        after = (
            "; found after the first packets had left: the allreduce fails on every worker (JobFailed TENSOR)"
            if sent
            else ""
        )
        super().__init__(
            f"tensor holds NaN or Inf (first at flat index {index}); fixed-point aggregation needs finite values"
            + after
        )
        self.index, self.sent = index, sent


class FloatOverflow(OverflowError):
    """The float32 sum of some element exceeds float32's range. The allreduce completed:
    the output holds every sum, +-Inf where it overflowed (what float32 arithmetic gives),
    and every worker that received such a block raises this."""

    def __init__(self) -> None:
        super().__init__("the float32 sum of some block exceeds float32's range (inf)")


class GeometryMismatch(ValueError):
    """This worker's configuration differs from the job's at the aggregator or switch
    (found when the JOINED answer came back; nothing was sent for the allreduce)."""


def error_code(value: int) -> ErrorCode | int:
    """An ERROR's code as an ErrorCode, or the number when it names none (a newer peer's)."""
    try:
        return ErrorCode(value)
    except ValueError:
        return value


def describe(code: ErrorCode | int, detail: int, epoch: int | None = None) -> str:
    """One sentence for an ERROR's code and detail (docs/protocol.md section 6.1)."""
    at = f" in allreduce {epoch}" if epoch is not None else ""
    if code == ErrorCode.NOT_JOINED:
        return (
            "the aggregator does not know this worker's session: it restarted, or the job "
            "was reset while this worker kept going"
        )
    if code == ErrorCode.GEOMETRY:
        field = GeometryField(detail).name.lower() if detail in set(GeometryField) else str(detail)
        return f"a worker's {field} differs from the job's"
    if code == ErrorCode.REJOINED:
        return f"worker {detail} joined again with a new process while the job was running (restarted?)"
    if code == ErrorCode.SUPERSEDED:
        return f"two processes claim worker {detail} (or it restarted and the old one still sends)"
    if code == ErrorCode.TENSOR and detail < 0:  # a MISMATCH-flagged RESULT: no culprit named
        which = f"allreduce {epoch}" if epoch is not None else "an allreduce"
        return (
            f"the workers disagree about {which}: their tensors (length, dtype), fixed-point "
            "scale or numbers of allreduces differ"
        )
    if code == ErrorCode.TENSOR:
        return (
            f"the workers' tensors differ{at} (length, dtype or fixed-point scale; worker "
            f"{detail} differs from the first)"
        )
    if code == ErrorCode.SEQUENCE:
        return (
            f"the workers are at different allreduces{at} (worker {detail} is ahead: a "
            "worker skipped or repeated an allreduce, or restarted)"
        )
    if code == ErrorCode.BAD_BLOCKS:
        return f"worker {detail} sent a block outside the tensor or its stream"
    if code == ErrorCode.UPSTREAM:
        return (
            f"the parent aggregator failed the job ({describe(ErrorCode(detail), 0)})"
            if detail in set(ErrorCode)
            else "the parent aggregator failed the job"
        )
    if code == ErrorCode.UNKNOWN_JOB:
        return f"the aggregator serves no job {detail}"
    if code == ErrorCode.UNKNOWN_RANK:
        return f"the job has {detail} workers: this worker's rank is not one of them"
    if code == ErrorCode.KEY:
        mismatches: dict[int, str] = {
            KeyMismatch.UNSEALED: "the aggregator's job has a key and this worker has none",
            KeyMismatch.UNKEYED: "this worker has a key and the aggregator's job has none",
            KeyMismatch.BAD_MAC: "the aggregator's job has another key than this worker",
        }
        return mismatches.get(detail, f"the aggregator cannot check this worker's key (detail {detail})")
    if code == ErrorCode.TOO_LARGE:
        return f"worker {detail} sent a tensor of more blocks than the job's max_blocks"
    return f"the aggregator failed the job (code {int(code)}, detail {detail})"
