# SPDX-License-Identifier: Apache-2.0
"""The job service's API (`p4reduce controller serve`, docs/service.md): jobs.proto, its
generated stubs, and `JobClient`, what workers and the command line call it with."""

from p4reduce.jobapi.client import (
    AGGREGATOR_LOST,
    SWITCH_LOST,
    JobClient,
    JobEvent,
    JobEvents,
    JobList,
    JobServiceError,
    JobStatus,
    Placement,
    Registration,
)

__all__ = [
    "AGGREGATOR_LOST",
    "SWITCH_LOST",
    "JobClient",
    "JobEvent",
    "JobEvents",
    "JobList",
    "JobServiceError",
    "JobStatus",
    "Placement",
    "Registration",
]
