# SPDX-License-Identifier: Apache-2.0
"""Per-tenant quotas of the job service: jobs, slots, workers per job, longest lease.

The service configuration's `quota` section is every tenant's; a tenants file entry's
`quota` overrides keys of it for that tenant. A CreateJob beyond a quota is refused
RESOURCE_EXHAUSTED naming the quota and the tenant's current use.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from p4reduce.controller.errors import ConfigError
from p4reduce.protocol import MAX_WORKERS
from p4reduce.service.errors import ServiceError


@dataclass(frozen=True)
class Quota:
    jobs: int = 8  # live jobs at once
    slots: int = 0  # slots held by its live jobs together; 0: half the largest pool (parse_service_config)
    workers: int = MAX_WORKERS  # workers of one job
    lease_seconds: float = 600.0  # the longest lease a job may ask


class QuotaExceeded(ServiceError):
    status = "RESOURCE_EXHAUSTED"


def parse_quota(where: str, data: Any, base: Quota) -> Quota:
    """`base` with the keys of the mapping `data` (ConfigError naming the field)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of {', '.join(f.name for f in dataclasses.fields(Quota))}")
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in ("jobs", "slots", "workers", "lease_seconds"):
            raise ConfigError(f"{where}.{key}: unknown (jobs, slots, workers, lease_seconds)")
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or value <= 0 or (key != "lease_seconds" and not isinstance(value, int)):
            raise ConfigError(
                f"{where}.{key}: {value!r} is not a positive {'number' if key == 'lease_seconds' else 'integer'}"
            )
        changes[key] = float(value) if key == "lease_seconds" else value
    return dataclasses.replace(base, **changes)


def check_quota(
    tenant: str, quota: Quota, jobs: int, slots: int, wish_workers: int, wish_slots: int, wish_lease: float
) -> None:
    """QuotaExceeded unless a tenant holding `jobs` jobs and `slots` slots may create a job
    of `wish_workers` workers, `wish_slots` slots and a lease of `wish_lease` s."""
    if jobs + 1 > quota.jobs:
        raise QuotaExceeded(f"tenant {tenant}: {jobs} jobs of a quota of {quota.jobs}")
    if slots + wish_slots > quota.slots:
        raise QuotaExceeded(
            f"tenant {tenant}: {slots} slots in use of a quota of {quota.slots}; this job asks {wish_slots}"
        )
    if wish_workers > quota.workers:
        raise QuotaExceeded(f"tenant {tenant}: {wish_workers} workers asked, a quota of {quota.workers} per job")
    if wish_lease > quota.lease_seconds:
        raise QuotaExceeded(f"tenant {tenant}: a lease of {wish_lease:g} s asked, a quota of {quota.lease_seconds:g} s")


__all__ = ["Quota", "QuotaExceeded", "check_quota", "parse_quota"]
