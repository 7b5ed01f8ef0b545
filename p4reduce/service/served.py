# SPDX-License-Identifier: Apache-2.0
"""What a software aggregator serves, as the service compares it with what it recorded
when it starts again (AggregatorAdmin.ListServed; the embedded aggregator's own table)."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4reduce.aggregator.config import JobSpec
from p4reduce.protocol import Mode
from p4reduce.service.registry import Job


@dataclass(frozen=True)
class Served:
    job_id: int
    num_workers: int
    mode: Mode
    block_size: int
    slot_base: int
    num_slots: int
    message_size: int
    workers: dict[int, tuple[str, int]] = field(default_factory=dict)  # the admitted ranks' addresses

    @classmethod
    def of_spec(cls, spec: JobSpec) -> Served:
        workers = {rank: (w.ip, w.port or 0) for rank, w in enumerate(spec.workers or ()) if w is not None}
        return cls(
            spec.job_id,
            spec.num_workers,
            spec.mode,
            spec.block_size,
            spec.slot_base,
            spec.num_slots,
            spec.message_size,
            workers,
        )

    def is_job(self, job: Job) -> bool:
        """Whether this is `job` as the service placed it (the same id and geometry)."""
        ours = (job.job_id, job.num_workers, job.mode, job.block_size, job.slot_base, job.num_slots, job.message_size)
        theirs = (self.job_id, self.num_workers, self.mode, self.block_size, self.slot_base, self.num_slots)
        return ours == (*theirs, self.message_size)


__all__ = ["Served"]
