# SPDX-License-Identifier: Apache-2.0
"""Host agent: block-sparse allreduce of numpy arrays through a p4reduce aggregator."""

from p4reduce.hostagent.agent import HostAgent
from p4reduce.hostagent.config import WorkerConfig
from p4reduce.hostagent.engine_api import AllreduceStats
from p4reduce.hostagent.errors import AgentFailed, AllreduceTimeout, GeometryMismatch, JobFailed, JobKeyMismatch

__all__ = [
    "AgentFailed",
    "AllreduceStats",
    "AllreduceTimeout",
    "GeometryMismatch",
    "HostAgent",
    "JobFailed",
    "JobKeyMismatch",
    "WorkerConfig",
]
