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
admitted workers itself). A restarted service keeps the jobs it recorded when the switch
still holds them (see `resume`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.tofino import TofinoClient
from p4reduce.controller.config import Config, JobConfig
from p4reduce.controller.encoding import ip_to_int, mac_to_int
from p4reduce.controller.errors import ControllerError, SwitchError
from p4reduce.service.allocator import RangeAllocator
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
        client = self._connect()
        if client is None:
            return False
        return self._serve(client, self._set_up)

    def _connect(self) -> TofinoClient | None:
        self._last_attempt = self.clock()
        cfg, conn = self.config, self.config.connection
        try:
            return TofinoClient.connect(
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
            return None

    def _serve(self, client: TofinoClient, prepare: Callable[[TofinoClient], None]) -> bool:
        """`prepare` the switch, then hold the session (or say why not in `down`)."""
        try:
            prepare(client)
        except ControllerError as exc:
            client.close()
            self.down = str(exc)
            log.warning("%s could not be set up: %s", self.name, exc)
            return False
        self._client, self.down = client, None
        return True

    def _mgids(self) -> list[int]:
        first, last = self.config.mgids
        return list(range(first, last + 1)) + ([self.config.broadcast.mgid] if self.config.broadcast else [])

    def _set_up(self, client: TofinoClient) -> None:
        cfg = self.config
        if cfg.connection.ports:
            client.configure_ports(cfg.connection.ports)
        deleted = client.clear_tables(self._mgids())
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
        """At the service's start: keep `jobs` (recorded before the restart, live) as the
        switch holds them, when it still holds them: their entries are made exactly what
        the record says, their registers and counters untouched, everything else of the
        controller's deleted and the rest of the pool zeroed. A switch that holds none of
        their admission entries (bf_switchd restarted: its registers are gone too) is set
        up afresh and the jobs are not kept."""
        return self.resume_configs([(written(job), job.complete) for job in jobs])

    def resume_configs(self, keep: Sequence[tuple[JobConfig, bool]]) -> Resumed:
        client = self._connect()
        if client is None:
            return Resumed(False)
        if not keep:
            return Resumed(self._serve(client, self._set_up))
        try:
            held = {tuple(sorted(k.items())) for k, _, _ in client.entries(tna.NAMES.workers)}
        except ControllerError as exc:
            client.close()
            self.down = str(exc)
            return Resumed(False)
        still = any(_admission_keys(config) & held for config, _ in keep)
        if not still:
            log.warning("%s holds none of the %d recorded job(s): set up afresh", self.name, len(keep))
            self._serve(client, self._set_up)
            return Resumed(False)
        return Resumed(self._serve(client, lambda c: self._keep(c, keep)))

    def _keep(self, client: TofinoClient, keep: Sequence[tuple[JobConfig, bool]]) -> None:
        cfg = self.config
        meant = tna.l2_entries(client.schema, Config(cfg.connection, (), cfg.l2, cfg.broadcast))
        for config, with_group in keep:
            meant += tna.job_entries(client.schema, config, with_group=with_group)
        done = client.reconcile(meant, self._mgids())
        pool = RangeAllocator(*cfg.slots)
        for config, _ in keep:
            pool.hold(config.slot_base, config.num_slots)
        for start, count in pool.free_ranges():
            client.clear_slots(range(start, start + count))
        log.info(
            "%s: %d job(s) kept; %d entries as they were, %d written again, %d deleted; the rest of the pool zeroed",
            self.name,
            len(keep),
            done.kept,
            done.written,
            done.deleted,
        )

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


def _admission_keys(config: JobConfig) -> set[tuple[tuple[str, int], ...]]:
    """The admission table keys of a job's workers, as TofinoClient.entries reads them."""
    return {
        tuple(
            sorted(
                {
                    "ig_intr_md.ingress_port": w.port,
                    "hdr.ethernet.src_addr": mac_to_int(w.mac),
                    "hdr.ipv4.src_addr": ip_to_int(w.ip),
                    "hdr.udp.src_port": w.udp_port,
                }.items()
            )
        )
        for w in config.workers
    }


__all__ = ["TofinoTarget"]
