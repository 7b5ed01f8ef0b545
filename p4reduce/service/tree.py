# SPDX-License-Identifier: Apache-2.0
"""The tree target: leaf switches under a spine, each programmed as the switch target
programs its one switch (pipeline, L2 across the tree, the slot pool cleared at start;
at a restarted service's start the recorded jobs kept, see SwitchTarget.resume).

A job on the tree is written when its last rank registers, because ranks are placed by
where the workers sit (Job.places): each leaf gets the job of the workers under it, with
an uplink to the spine, and the spine the job whose members are those leaves
(controller.tree.job_configs); the spine first, so that no leaf's first round finds it
unprogrammed. Every switch of a job uses the job's session, slots and multicast group id.
A switch that fails a request is the tree lost: the coordinator fails the tree's jobs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from p4reduce.controller.config import JobConfig
from p4reduce.controller.tree import job_configs
from p4reduce.service.config import TreeSection
from p4reduce.service.errors import SwitchLost
from p4reduce.service.registry import Job, WorkerRecord
from p4reduce.service.switch import JoinSender, Resumed, SwitchTarget

log = logging.getLogger(__name__)
_LET_GO = "the tree lost "  # how a switch let go for another's loss says why


class TreeTarget:
    """One SwitchTarget per switch of the tree; the interface of SwitchTarget."""

    def __init__(
        self, config: TreeSection, *, reconnect_interval: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        topology = config.topology
        sections = config.switch_sections()
        # The spine first: at start and for every job, the parent is ready before its leaves.
        self.switches = {
            name: SwitchTarget(sections[name], reconnect_interval=reconnect_interval, clock=clock)
            for name in (topology.spine, *topology.leaves)
        }
        # A tree knows where every worker sits (tree.workers): a JOIN handed over is only logged.
        self.on_join: Callable[[int, JoinSender], None] | None = None
        self._written: dict[int, dict[str, JobConfig]] = {}  # job id -> what each switch holds

    @property
    def name(self) -> str:
        return "tree of switches " + ", ".join(f"{n} {s.config.connection.grpc_addr}" for n, s in self.switches.items())

    @property
    def down(self) -> str | None:
        """Why the tree is down (the switch lost first, rather than those let go after it), or None."""
        reasons = [f"{name}: {s.down}" for name, s in self.switches.items() if s.down is not None]
        return next((r for r in reasons if _LET_GO not in r), reasons[0] if reasons else None)

    def start(self) -> bool:
        for switch in self.switches.values():
            switch.start()
        return self._whole() is None

    def resume(self, jobs: Sequence[Job]) -> Resumed:
        """At the service's start: every switch keeps its part of the complete `jobs` (the
        others have nothing on the tree yet) when all of them still run this pipeline; else
        every switch is set up afresh, so that none keeps a part of a job that is gone."""
        configs = {job.job_id: self._configs(job) for job in jobs if job.complete}
        resumed = {
            name: switch.resume_configs([(c[name], True) for c in configs.values() if name in c])
            for name, switch in self.switches.items()
        }
        if self._whole() is not None:
            return Resumed(False)
        if not all(r.kept for r in resumed.values()):
            for name, switch in self.switches.items():
                if resumed[name].kept and any(name in c for c in configs.values()):
                    switch.close()
                    switch.start()
            self._whole()
            return Resumed(False)
        self._written = configs
        return Resumed(True, tuple(r for each in resumed.values() for r in each.held))

    def check(self) -> str | None:
        for switch in self.switches.values():
            switch.check()
        return self._whole()

    def poll(self) -> str | None:
        for switch in self.switches.values():
            switch.poll()
        return self._whole()

    def _whole(self) -> str | None:
        """Why the tree is down, or None. A tree is up as a whole or not at all: when one
        switch is lost, the others are let go too (the coordinator fails every job of the
        tree), so that the reconnection sets every switch up afresh and none keeps entries
        or registers of a failed job that a later job on the same slots would meet."""
        down = self.down
        if down is not None:
            for switch in self.switches.values():
                switch.let_go(f"{_LET_GO}{down}")
            self._written.clear()
        return down

    @contextlib.contextmanager
    def _as_one(self) -> Iterator[None]:
        """Requests to some of the switches: if one is lost, the whole tree is (`_whole`)."""
        try:
            yield
        except SwitchLost:
            self._whole()
            raise

    def close(self) -> None:
        for switch in self.switches.values():
            switch.close()

    def admit(self, job: Job, worker: WorkerRecord) -> None:
        """With the job's last rank, the job on every switch it spans (nothing before)."""
        if not job.complete:
            return
        configs = self._configs(job)
        self._written[job.job_id] = {}
        with self._as_one():
            for name, config in configs.items():
                self.switches[name].install_job(config)
                self._written[job.job_id][name] = config
        places = job.places(self.config.topology.leaves)
        for rank, place in sorted(places.items(), key=lambda item: item[1].rank):
            log.info(
                "job %d rank %d (registered as %d): under %s, rank %d of its %d",
                job.job_id,
                place.rank,
                rank,
                place.leaf,
                place.local_rank,
                place.local_workers,
            )
        log.info("job %d on the tree: %s", job.job_id, ", ".join(f"{n} {len(c.workers)}" for n, c in configs.items()))

    def remove(self, job: Job) -> None:
        """Take the job off every switch that holds it (leaves first)."""
        written = self._written.pop(job.job_id, {})
        with self._as_one():
            for name, config in reversed(written.items()):
                self.switches[name].uninstall_job(config)

    def counters(self) -> dict[str, int]:
        """The event counters of all the tree's switches together."""
        total: dict[str, int] = {}
        with self._as_one():
            for switch in self.switches.values():
                for name, value in switch.counters().items():
                    total[name] = total.get(name, 0) + value
        return total

    def job_counters(self, jobs: Iterable[Job]) -> dict[int, dict[str, int]]:
        """Per job, the spine's cells: one round there is one round of the whole job."""
        with self._as_one():
            return self.switches[self.config.topology.spine].job_counters(jobs)

    def _configs(self, job: Job) -> dict[str, JobConfig]:
        """The job's JobConfig per switch, spine first, over the leaves its workers sit under."""
        topology = self.config.topology
        placed = job.tree_job(topology.leaves)
        used = {w.leaf for w in placed.workers}
        tree = dataclasses.replace(topology, links=tuple(k for k in topology.links if k.leaf in used), jobs=(placed,))
        sessions = {(name, job.job_id): job.session for name in self.switches}
        configs = job_configs(tree, placed, sessions, job.mgid)
        return {name: configs[name] for name in self.switches if name in configs}


__all__ = ["TreeTarget"]
