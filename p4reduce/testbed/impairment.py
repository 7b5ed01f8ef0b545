# SPDX-License-Identifier: Apache-2.0
"""What a lossy link does to datagrams; applied by tc netem / nftables in network
namespaces (p4reduce.netns) or by the user-space relay (p4reduce.lossy_relay)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Impairment:
    loss: float = 0.0  # probability a datagram is dropped, per direction
    duplicate: float = 0.0  # probability it is sent twice
    delay_ms: float = 0.0  # extra delay ...
    jitter_ms: float = 0.0  # ... plus or minus this, uniformly; > 0 reorders
    rate_mbit: float | None = None  # bandwidth limit (network namespaces only)

    def __post_init__(self) -> None:
        for name in ("loss", "duplicate"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be in [0, 1)")
        if self.delay_ms < 0 or self.jitter_ms < 0:
            raise ValueError("delay_ms and jitter_ms must be >= 0")

    def needs_netem(self) -> bool:
        """Delay and jitter need sch_netem in a network namespace."""
        return bool(self.delay_ms or self.jitter_ms)

    def delay_range(self) -> tuple[float, float]:
        """(min, max) extra delay in seconds."""
        return max(0.0, self.delay_ms - self.jitter_ms) / 1e3, (self.delay_ms + self.jitter_ms) / 1e3
