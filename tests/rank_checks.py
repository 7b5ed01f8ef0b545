# SPDX-License-Identifier: Apache-2.0
"""Checks that spawned ranks run once per device kind, for the tests that read their outcomes.

A scenario returns, per rank, {what: True, or why not}; keys starting with "_" carry data
(stats) rather than a check. The outcomes of one spawn are cached per kind, so that several
tests read one run.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from p4reduce.torch.launch import run_ranks

Check = Callable[[int, int, Any, Any], dict[str, object]]  # (rank, world, gloo group, device) -> {what: ok}


class RankChecks:
    def __init__(self, scenario: Callable[..., dict], world: int, env: Mapping[str, str]) -> None:
        self._scenario, self._world, self._env = scenario, world, dict(env)
        self._cache: dict[str, list[dict]] = {}

    def outcomes(self, kind: str) -> list[dict]:
        """Each rank's outcome of `scenario(rank, world, kind)` (one spawn per kind)."""
        if kind not in self._cache:
            self._cache[kind] = run_ranks(self._scenario, self._world, args=(kind,), env=self._env, timeout=300)
        return self._cache[kind]

    def failures(self, kind: str) -> list[str]:
        """Every check that did not hold, as "rank R: what: why"."""
        return [
            f"rank {r}: {what}: {ok}"
            for r, outcome in enumerate(self.outcomes(kind))
            for what, ok in outcome.items()
            if not what.startswith("_") and ok is not True
        ]


def run_checks(rank: int, world: int, device_kind: str, checks: Sequence[Check]) -> dict[str, object]:
    """On one rank: a p4reduce default group and a gloo group of the same ranks (the
    reference), then each of `checks`(rank, world, gloo, device) in turn (one that raises
    reports its traceback), and the group's stats under "_report"."""
    import torch.distributed as dist

    import p4reduce.torch
    from p4reduce.torch.launch import rank_device

    device = rank_device(rank, device_kind)
    dist.init_process_group("p4reduce", rank=rank, world_size=world)
    gloo = dist.new_group(backend="gloo")
    outcome: dict[str, object] = {}
    for check in checks:
        try:
            outcome.update(check(rank, world, gloo, device))
        except BaseException:  # noqa: BLE001 - reported per check
            outcome[check.__name__] = traceback.format_exc()
        dist.barrier(group=gloo)
    outcome["_report"] = p4reduce.torch.stats().report()
    dist.destroy_process_group()
    return outcome
