# SPDX-License-Identifier: Apache-2.0
"""The Tofino switch target: the job service's SwitchTarget, for the TNA program over BF
Runtime (p4reduce.controller.bfrt.tofino).

At start (and at a reconnection) it brings the configured ports up, empties the
controller's tables and the service's multicast groups, and zeroes the registers and
job counters of the slot pool: bf_switchd keeps the program loaded, so that is what
replaces BMv2's pipeline push. A worker's result destination and admission entry are
written when it registers, the job's multicast group when its last rank does; release
deletes them and zeroes the job's registers and counters. Any failed request counts as
the switch lost. The Tofino program hands no JOIN to the controller (it answers JOINs of
admitted workers itself), and a restarted service sets the switch up afresh: jobs
recorded before the restart are failed, not kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.tofino import TofinoClient
from p4reduce.controller.config import Config, JobConfig
from p4reduce.controller.errors import ControllerError, SwitchError
from p4reduce.service.config import SwitchSection
from p4reduce.service.registry import Job, WorkerRecord
from p4reduce.service.switch import JoinSender, Resumed, SessionTarget, job_config, written

log = logging.getLogger(__name__)


class TofinoTarget(SessionTarget[TofinoClient]):
    """One BF Runtime session with the configured Tofino (see module doc)."""

    def __init__(
        self,
        config: SwitchSection,
        *,
        reconnect_interval: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.reconnect_interval = reconnect_interval
        self.clock = clock
        self.down: str | None = "not connected yet"
        self._client: TofinoClient | None = None
        self._last_attempt = -float("inf")
        self.on_join: Callable[[int, JoinSender], None] | None = None  # never called: see module doc

    @property
    def name(self) -> str:
        return f"switch {self.config.connection.bfrt_addr}"

    # -- session -------------------------------------------------------------------
    def start(self) -> bool:
        self._last_attempt = self.clock()
        cfg, conn = self.config, self.config.connection
        try:
            client = TofinoClient.connect(
                conn.bfrt_addr,
                conn.device_id,
                conn.client_id,
                conn.program,
                cfg.timeout,
                rpc_timeout=max(cfg.timeout, 60.0),
            )
        except ControllerError as exc:
            self.down = str(exc)
            log.warning("%s unreachable: %s", self.name, exc)
            return False
        try:
            self._set_up(client)
        except ControllerError as exc:
            client.close()
            self.down = str(exc)
            log.warning("%s could not be set up: %s", self.name, exc)
            return False
        self._client, self.down = client, None
        return True

    def _set_up(self, client: TofinoClient) -> None:
        cfg = self.config
        if cfg.connection.ports:
            client.configure_ports(cfg.connection.ports)
        first, last = cfg.mgids
        mgids = list(range(first, last + 1)) + ([cfg.broadcast.mgid] if cfg.broadcast else [])
        deleted = client.clear_tables(mgids)
        client.clear_slots(range(cfg.slots[0], sum(cfg.slots)))
        client.install(Config(cfg.connection, (), cfg.l2, cfg.broadcast))
        log.info(
            "%s: %d port(s) up, %d old entries deleted, %d L2 entries, slots %d..%d cleared",
            self.name,
            len(cfg.connection.ports),
            deleted,
            len(cfg.l2),
            cfg.slots[0],
            sum(cfg.slots) - 1,
        )

    def resume(self, jobs: Sequence[Job]) -> Resumed:
        """Jobs recorded before a restart are not re-adopted on a Tofino: set up afresh."""
        if jobs:
            log.warning("%s: %d job(s) recorded before the restart are not kept (Tofino)", self.name, len(jobs))
        return Resumed(self.start() and not jobs)

    def check(self) -> str | None:
        if self._client is None:
            if self.clock() - self._last_attempt >= self.reconnect_interval:
                self.start()
            return self.down
        try:
            self._client.read_counters()
        except SwitchError as exc:
            self._lost(str(exc))
        return self.down

    def poll(self) -> str | None:
        if self._client is not None and not self._client.bound:
            self._lost("the BF Runtime stream closed (bf_switchd stopped, or the client id was taken over)")
            return self.down
        return None

    # -- jobs ----------------------------------------------------------------------
    def admit(self, job: Job, worker: WorkerRecord) -> None:
        """Let `worker`'s packets in; with the job's last rank, its multicast group first."""
        client = self._up()
        try:
            if job.complete:
                client.write(tna.job_group(client.schema, job_config(job)), update="upsert")
            client.install_job(job_config(job, [worker]), with_group=False)
        except SwitchError as exc:
            raise self._lost(str(exc)) from None

    def remove(self, job: Job) -> None:
        self.uninstall_job(written(job), with_group=job.complete)

    def install_job(self, config: JobConfig) -> None:
        client = self._up()
        try:
            client.install_job(config)
        except SwitchError as exc:
            raise self._lost(str(exc)) from None

    def uninstall_job(self, config: JobConfig, *, with_group: bool = True) -> None:
        client = self._up()
        try:
            client.uninstall_job(config, with_group=with_group)
        except SwitchError as exc:
            raise self._lost(str(exc)) from None


__all__ = ["TofinoTarget"]
