"""The job service's API (`p4reduce controller serve`, docs/service.md): jobs.proto, its
generated stubs, and `JobClient`, what workers and the command line call it with."""

from p4reduce.jobapi.client import (
    SWITCH_LOST,
    JobClient,
    JobList,
    JobServiceError,
    JobStatus,
    Placement,
    Registration,
)

__all__ = ["SWITCH_LOST", "JobClient", "JobList", "JobServiceError", "JobStatus", "Placement", "Registration"]
