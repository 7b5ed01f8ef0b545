# SPDX-License-Identifier: Apache-2.0
"""The switch target: programs the P4 switch through p4reduce.controller as jobs come
and go, so that the service alone sets the switch up.

At start (and at a reconnection) it pushes the pipeline, installs the L2 (and broadcast)
entries and zeroes the registers of the whole slot pool: no job meets state left by
another controller or an earlier run. The exception is a restarted service with jobs
recorded on the switch (`resume`): when the switch still runs the same pipeline, those
jobs keep their entries and registers (their workers go on) and only the rest is cleared.
A worker's result destination and worker-table entry are written when it registers, the
job's multicast group when its last rank does (before that rank's entries: no round can
complete without it). Release deletes them and zeroes the job's registers. Any failed
request counts as the switch lost: `down` says why and the coordinator fails the
switch's jobs.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from p4reduce.controller.client import SwitchClient, load_pipeline_files
from p4reduce.controller.config import Config, JobConfig, WorkerEntry
from p4reduce.controller.errors import SwitchError, WriteError
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import LabeledEntity, install_entities, job_entities
from p4reduce.controller.proto import p4r
from p4reduce.controller.readback import compare, slot_range
from p4reduce.jobapi import SWITCH_LOST
from p4reduce.protocol import HEADER_LEN, AggHeader, MsgType
from p4reduce.service.allocator import RangeAllocator
from p4reduce.service.config import SwitchSection
from p4reduce.service.errors import SwitchLost
from p4reduce.service.registry import Job, WorkerRecord

log = logging.getLogger(__name__)


class _Session(Protocol):
    def read_counters(self) -> dict[str, int]: ...

    def read_job_counters(self, slot_bases: Iterable[int]) -> dict[int, dict[str, int]]: ...

    def close(self) -> None: ...


C = TypeVar("C", bound=_Session)


@dataclass(frozen=True)
class _JobOnSwitch(JobConfig):
    """The workers registered so far, with the job's own worker count: JobConfig counts
    its workers, and every worker entry must carry the job's num_workers."""

    size: int = 0

    @property
    def num_workers(self) -> int:
        return self.size


def written(job: Job) -> JobConfig:
    """What the switch holds of `job`: the entries of its ranks whose port is known."""
    return job_config(job, [w for w in job.workers.values() if w.switch_port])


def job_config(job: Job, workers: Iterable[WorkerRecord] | None = None) -> JobConfig:
    """`job` (with `workers`, default: the registered ones) as the controller describes it."""
    chosen = job.workers.values() if workers is None else workers
    entries = tuple(WorkerEntry(w.rank, w.switch_port, w.mac, w.ip, w.udp_port) for w in chosen)
    return _JobOnSwitch(
        job.job_id, job.slot_base, job.num_slots, entries, job.mgid, "dense", job.session, size=job.num_workers
    )


@dataclass(frozen=True)
class Resumed:
    """How a switch came back at the service's start: `kept` (the jobs it was asked to keep
    are on it as recorded) and the slot ranges of entries it would not delete."""

    kept: bool
    held: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class JoinSender:
    """Who sent a JOIN the switch handed over: its frame's addresses and claimed identity."""

    mac: str
    ip: str
    udp_port: int
    job_id: int
    worker_id: int


def join_sender(frame: bytes) -> JoinSender | None:
    """The sender of an Ethernet frame carrying a p4reduce JOIN, or None for anything else."""
    if len(frame) < 14 + 20 + 8 + HEADER_LEN or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 0x0F) * 4
    # The switch hands a JOIN over before it checks anything (docs/protocol.md section 8):
    # an IPv4 header that is not one, or whose checksum fails, names no worker.
    if frame[14] >> 4 != 4 or ihl < 20 or len(frame) < 14 + ihl + 8 + HEADER_LEN or _ones_sum(frame[14 : 14 + ihl]):
        return None
    udp = 14 + ihl
    try:
        header = AggHeader.unpack(frame[udp + 8 :])
    except ValueError:
        return None
    if header.msg_type != MsgType.JOIN:
        return None
    return JoinSender(
        ":".join(f"{b:02x}" for b in frame[6:12]),
        socket.inet_ntoa(frame[26:30]),
        int.from_bytes(frame[udp : udp + 2], "big"),
        header.job_id,
        header.worker_id,
    )


def _ones_sum(header: bytes) -> int:
    """The IPv4 header checksum test: 0 when the header's one's-complement sum is all ones."""
    total = sum(int.from_bytes(header[i : i + 2], "big") for i in range(0, len(header), 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total ^ 0xFFFF


class SessionTarget(Generic[C]):
    """What both switch targets do alike with their session (`_client`, a SwitchClient or a
    TofinoClient): read counters, and forget the session when the switch is lost."""

    down: str | None
    _client: C | None
    clock: Callable[[], float]
    reconnect_interval: float
    _last_attempt: float

    @property
    def name(self) -> str:
        raise NotImplementedError

    def start(self) -> bool:
        raise NotImplementedError

    def check(self) -> str | None:
        """Why the switch cannot take a job now, or None: a read when it is up (it may
        have died quietly), a reconnection when it is down and the last try is old."""
        if self._client is None:
            if self.clock() - self._last_attempt >= self.reconnect_interval:
                self.start()
            return self.down
        try:
            self._client.read_counters()
        except SwitchError as exc:
            self._lost(str(exc))
        return self.down

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def let_go(self, reason: str) -> None:
        """Close the session as if the switch were lost (`down` says why): the next `check`
        sets it up afresh, its pool cleared."""
        if self._client is not None:
            self._lost(reason)

    def counters(self) -> dict[str, int]:
        """The switch's event counters (all its jobs together)."""
        client = self._up()
        try:
            return client.read_counters()
        except SwitchError as exc:
            raise self._lost(str(exc)) from None

    def job_counters(self, jobs: Iterable[Job]) -> dict[int, dict[str, int]]:
        """Per job id, the job's own cells of the switch's job_events counter."""
        by_base = {job.slot_base: job.job_id for job in jobs}
        client = self._up()
        try:
            cells = client.read_job_counters(by_base)
        except SwitchError as exc:
            raise self._lost(str(exc)) from None
        return {by_base[base]: counts for base, counts in cells.items()}

    # -- helpers -------------------------------------------------------------------
    def _up(self) -> C:
        if self._client is None:
            raise SwitchLost(f"{SWITCH_LOST}: {self.down}")
        return self._client

    def _lost(self, reason: str) -> SwitchLost:
        """Forget the session; the error for the request at hand."""
        self.down = reason
        log.error("%s lost: %s", self.name, reason)
        self.close()
        return SwitchLost(f"{SWITCH_LOST}: {reason}")


class SwitchTarget(SessionTarget[SwitchClient]):
    """One P4Runtime session (primary) with the configured switch."""

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
        self._client: SwitchClient | None = None
        self._last_attempt = -float("inf")
        self._pipeline = self._pipeline_files()
        # Told of each JOIN the switch hands over (an unknown worker's): (port, sender).
        self.on_join: Callable[[int, JoinSender], None] | None = None

    @property
    def name(self) -> str:
        return f"switch {self.config.connection.grpc_addr}"

    def _pipeline_files(self) -> tuple[str, str]:
        """The pipeline pushed at start, checked now: a bad file is a configuration error."""
        from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact

        p4info = str(self.config.p4info or build_artifact(P4INFO))
        bmv2_json = str(self.config.bmv2_json or build_artifact(BMV2_JSON))
        load_pipeline_files(p4info, bmv2_json)  # P4InfoError naming the file
        return p4info, bmv2_json

    # -- session -------------------------------------------------------------------
    def start(self) -> bool:
        """Connect, push the pipeline, install L2 and clear the pool; False (and `down`
        says why) when the switch cannot be reached or refuses."""
        return self._connect(()).kept

    def resume(self, jobs: Sequence[Job]) -> Resumed:
        """At the service's start: connect, keeping `jobs` (recorded before the restart,
        live) as the switch holds them, if it still runs this pipeline (see `resume_configs`)."""
        return self.resume_configs([(written(job), job.complete) for job in jobs])

    def resume_configs(self, keep: Sequence[tuple[JobConfig, bool]]) -> Resumed:
        """Connect without a push when the switch runs this very pipeline (same cookie) and
        there are jobs to `keep` (each with its multicast group or not): their entries stay
        as they are (those missing or different are written again), their registers and
        counters untouched; every other job entry and group is deleted, the rest of the
        pool and the removed jobs' counter cells zeroed. Another pipeline, or none: set up
        afresh as `start` does (`kept` False: the jobs are gone)."""
        return self._connect(keep)

    def _connect(self, keep: Sequence[tuple[JobConfig, bool]]) -> Resumed:
        self._last_attempt = self.clock()
        cfg = self.config
        try:
            client = SwitchClient.from_config(cfg.connection, cfg.timeout, rpc_timeout=cfg.timeout)
        except SwitchError as exc:
            self.down = str(exc)
            log.warning("switch %s unreachable: %s", cfg.connection.grpc_addr, exc)
            return Resumed(False)
        try:
            if keep and client.adopt_pipeline(*self._pipeline):
                resumed = Resumed(True, self._keep(client, keep))
            else:
                if keep:
                    log.warning("switch %s runs another pipeline (or none): set up afresh", cfg.connection.grpc_addr)
                self._set_up(client)
                resumed = Resumed(not keep)
        except SwitchError as exc:
            client.close()
            self.down = str(exc)
            log.warning("switch %s could not be set up: %s", cfg.connection.grpc_addr, exc)
            return Resumed(False)
        client.on_packet_in = self._packet_in
        self._client, self.down = client, None
        return resumed

    def _set_up(self, client: SwitchClient) -> None:
        cfg = self.config
        client.push_pipeline(*self._pipeline)
        client.install(Config(cfg.connection, (), cfg.l2, cfg.broadcast))
        client.clear_job_registers(JobConfig(0, cfg.slots[0], cfg.slots[1], (), 1))
        log.info(
            "switch %s: pipeline pushed, %d L2 entries, slots %d..%d cleared",
            cfg.connection.grpc_addr,
            len(cfg.l2),
            cfg.slots[0],
            sum(cfg.slots) - 1,
        )

    def _keep(self, client: SwitchClient, keep: Sequence[tuple[JobConfig, bool]]) -> tuple[tuple[int, int], ...]:
        """Make the switch hold L2, broadcast and the kept jobs exactly; the slot ranges of
        entries it would not delete (they stay out of placement)."""
        cfg, info = self.config, _p4info(client)
        meant = install_entities(info, Config(cfg.connection, (), cfg.l2, cfg.broadcast))
        for config, with_group in keep:
            entities = job_entities(info, config)
            meant += entities if with_group else [e for e in entities if _is_table_entry(e)]
        diff = compare(meant, client.read_entities())
        kept = RangeAllocator(*cfg.slots)
        for config, _ in keep:
            kept.hold(config.slot_base, config.num_slots)
        held = self._delete(client, diff.stale)
        client.write(diff.to_write, update="upsert")
        free = kept.free_ranges()  # what no kept job holds: zeroed, as a push would leave it
        for start, count in free:
            client.clear_job_registers(JobConfig(0, start, count, (), 1))
        removed = {r[0] for e in diff.stale if (r := slot_range(info, e)) is not None}
        for base in sorted(b for b in removed if any(s <= b < s + n for s, n in free)):
            client.clear_job_counters(base)  # (the pool's registers are zeroed above)
        log.info(
            "switch %s: pipeline kept with %d job(s); %d entities written again (%d missing), %d left "
            "from before deleted; the slots of %d..%d no kept job holds zeroed",
            cfg.connection.grpc_addr,
            len(keep),
            len(diff.to_write),
            len(diff.missing),
            len(diff.stale),
            cfg.slots[0],
            sum(cfg.slots) - 1,
        )
        return held

    def _delete(self, client: SwitchClient, stale: Sequence[p4r.Entity]) -> tuple[tuple[int, int], ...]:
        """Delete `stale` entities, those that let packets into the registers first, groups
        last; the slot ranges of those the switch refused to delete."""
        info = _p4info(client)
        ordered = sorted(stale, key=lambda e: (slot_range(info, e) is None, not e.HasField("table_entry")))
        labeled = [LabeledEntity(f"{_describe(info, e)} left from before (#{n})", e) for n, e in enumerate(ordered)]
        try:
            client.write(labeled, update="delete")
        except WriteError as exc:
            log.error("switch %s: %s", self.config.connection.grpc_addr, exc)
            refused = {label for label, _, _ in exc.failures}
            ranges = (slot_range(info, e.entity) if e.label in refused else None for e in labeled)
            return tuple(r for r in ranges if r is not None)
        return ()

    def poll(self) -> str | None:
        """The reason, when the P4Runtime stream has closed since the last look (no RPC)."""
        if self._client is not None and not self._client.primary:
            self._lost("the P4Runtime stream closed (switch stopped, or another controller took over)")
            return self.down
        return None

    def _packet_in(self, port: int, frame: bytes) -> None:
        sender = join_sender(frame)
        if sender is None:
            log.warning("switch: a PacketIn from port %d that is no p4reduce JOIN, ignored", port)
        elif self.on_join is not None:
            self.on_join(port, sender)

    # -- jobs ----------------------------------------------------------------------
    def admit(self, job: Job, worker: WorkerRecord) -> None:
        """Let `worker`'s packets in; with the job's last rank, its multicast group first."""
        client = self._up()
        entities = [e for e in job_entities(_p4info(client), job_config(job, [worker])) if _is_table_entry(e)]
        try:
            if job.complete:
                replicas = [(w.switch_port, w.rank) for w in sorted(job.workers.values(), key=lambda w: w.rank)]
                client.write_multicast_group(job.mgid, replicas)
            client.write(entities, update="insert")
        except SwitchError as exc:
            raise self._lost(str(exc)) from None

    def remove(self, job: Job) -> None:
        """Delete the job's entries (workers first) and group, then zero its registers and
        its job counter cells."""
        self.uninstall_job(written(job), with_group=job.complete)  # (the group comes with the last rank)

    def install_job(self, config: JobConfig) -> None:
        """Write a whole job at once (group, result destinations, uplink, workers last)."""
        client = self._up()
        try:
            client.write(job_entities(_p4info(client), config), update="insert")
        except SwitchError as exc:
            raise self._lost(str(exc)) from None

    def uninstall_job(self, config: JobConfig, *, with_group: bool = True) -> None:
        """Delete what `install_job` (or the admissions) wrote, in reverse, then zero the
        job's registers and job counter cells: the next job on these slots starts afresh."""
        client = self._up()
        entities = job_entities(_p4info(client), config)
        if not with_group:
            entities = [e for e in entities if _is_table_entry(e)]
        try:
            client.write(entities[::-1], update="delete")
            client.clear_job_registers(config)
            client.clear_job_counters(config.slot_base)
        except SwitchError as exc:
            raise self._lost(str(exc)) from None


def _p4info(client: SwitchClient) -> P4Info:
    assert client.p4info is not None, "pushed at start"
    return client.p4info


def _describe(info: P4Info, entity: p4r.Entity) -> str:
    if entity.HasField("table_entry"):
        return f"{info.name_of(entity.table_entry.table_id)} entry"
    return f"multicast group {entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id}"


def _is_table_entry(entity: LabeledEntity) -> bool:
    return entity.entity.HasField("table_entry")


__all__ = ["Resumed", "SessionTarget", "SwitchTarget", "job_config", "written"]
