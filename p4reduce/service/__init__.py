# SPDX-License-Identifier: Apache-2.0
"""The job service of `p4reduce controller serve` (p4reduce/jobapi/jobs.proto).

Workers ask one address where their job aggregates: the switch, programmed by the
service as jobs come and go, or a software aggregator in the service's process when
the switch cannot take the job. Modules, bottom up: errors, allocator (slot ranges,
ids, sessions), config (the YAML file), registry (the state machine, no I/O), switch
and fallback (the targets), coordinator (requests against both, one lock), metrics
(Prometheus text over HTTP), server (gRPC: JobServer).
"""

from p4reduce.service.config import ServiceConfig, load_service_config, parse_service_config
from p4reduce.service.coordinator import JobCoordinator, Snapshot
from p4reduce.service.registry import Job, JobWish, Registry, Target, WorkerRecord
from p4reduce.service.server import JobServer

__all__ = [
    "Job",
    "JobCoordinator",
    "JobServer",
    "JobWish",
    "Registry",
    "ServiceConfig",
    "Snapshot",
    "Target",
    "WorkerRecord",
    "load_service_config",
    "parse_service_config",
]
