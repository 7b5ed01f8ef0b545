# SPDX-License-Identifier: Apache-2.0
"""The control-plane contract with p4src/ (docs/protocol.md section 8) and the
P4Runtime entities that implement a configuration.

Pure functions of (P4Info, config): no I/O, so the exact protos can be tested
without a switch. All names live in `PipelineNames`; if the P4 program renames
something, pass another `PipelineNames` instead of editing the builders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from p4reduce.controller.config import BROADCAST_MAC, Config, JobConfig
from p4reduce.controller.encoding import encode_value, ip_to_int, mac_to_int
from p4reduce.controller.errors import P4InfoError
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.proto import p4r
from p4reduce.protocol.switch import EVENT_NAMES, JOB_EVENT_NAMES, NUM_EVENTS, NUM_JOB_EVENTS, SWITCH_SLOTS


@dataclass(frozen=True)
class PipelineNames:
    """Fully qualified P4Info names the controller uses (v1model already has
    controls named Ingress/Egress, hence the P4Reduce prefix)."""

    workers_table: str = "P4ReduceIngress.admission.workers"
    set_worker: str = "P4ReduceIngress.admission.set_worker"
    l2_table: str = "P4ReduceIngress.forwarding.l2"
    to_port: str = "P4ReduceIngress.forwarding.to_port"
    flood: str = "P4ReduceIngress.forwarding.flood"
    result_dest_table: str = "P4ReduceEgress.result_dest"
    set_result_dest: str = "P4ReduceEgress.set_result_dest"
    uplinks_table: str = "P4ReduceIngress.uplink.uplinks"
    set_uplink: str = "P4ReduceIngress.uplink.set_uplink"
    parents_table: str = "P4ReduceIngress.admission.parents"
    from_parent: str = "P4ReduceIngress.admission.from_parent"
    events_counter: str = "P4ReduceIngress.events"
    job_events_counter: str = "P4ReduceIngress.job_events"


NAMES = PipelineNames()

# Match fields and action parameters, as the P4 source spells them.
WORKER_KEYS = ("standard_metadata.ingress_port", "hdr.ethernet.src_addr", "hdr.ipv4.src_addr", "hdr.udp.src_port")
SET_WORKER_PARAMS = ("job_id", "worker_id", "num_workers", "mgid", "slot_base", "num_slots", "session")
RESULT_DEST_KEYS = ("hdr.agg.job_id", "meta.dest_worker")
SET_RESULT_DEST_PARAMS = ("mac", "ip", "udp_port")
L2_KEYS = ("hdr.ethernet.dst_addr",)
UPLINK_KEYS = ("meta.job_id",)
SET_UPLINK_PARAMS = ("up_job", "up_rank", "up_session", "port", "mac", "ip", "udp_port")
PARENT_KEYS = (*WORKER_KEYS, "hdr.agg.job_id", "hdr.agg.worker_id")
FROM_PARENT_PARAMS = ("job_id", "num_workers", "mgid", "slot_base", "num_slots", "session", "up_session")


class LabeledEntity(NamedTuple):
    """An entity and what it is for, so a refused update can be named."""

    label: str
    entity: p4r.Entity


# -- entity builders -----------------------------------------------------------------


def table_entry(
    info: P4Info, table: str, match: Mapping[str, int], action: str, params: Mapping[str, int] | None = None
) -> p4r.Entity:
    """An exact-match table entry; every key field and parameter must be given."""
    t, a = info.check_table_action(table, action)
    params = params or {}
    _same_names(f"match of table {t.name!r}", match, t.match)
    _same_names(f"parameters of action {a.name!r}", params, a.params)
    entity = p4r.Entity()
    entry = entity.table_entry
    entry.table_id = t.id
    for f in sorted(t.match.values(), key=lambda f: f.id):  # P4Info order: deterministic protos
        if f.match_type != "EXACT":
            raise P4InfoError(
                f"table {t.name!r}: match field {f.name!r} is {f.match_type}, the controller only installs EXACT keys"
            )
        entry.match.add(field_id=f.id).exact.value = _encode(match[f.name], f.bitwidth, f"{t.name} key {f.name}")
    entry.action.action.action_id = a.id
    for p in sorted(a.params.values(), key=lambda p: p.id):
        entry.action.action.params.add(
            param_id=p.id, value=_encode(params[p.name], p.bitwidth, f"{a.name} param {p.name}")
        )
    return entity


def multicast_group(mgid: int, replicas: Iterable[tuple[int, int]]) -> p4r.Entity:
    """A PRE multicast group: one copy per (egress port, replica id = egress_rid)."""
    entity = p4r.Entity()
    group = entity.packet_replication_engine_entry.multicast_group_entry
    group.multicast_group_id = mgid
    for port, rid in replicas:
        # egress_port (int32), not the bytes `port` of P4Runtime >= 1.4: every
        # PI version in BMv2 accepts it (checked against simple_switch_grpc).
        group.replicas.add(egress_port=port, instance=rid)
    return entity


def worker_entities(info: P4Info, job: JobConfig, session: int, names: PipelineNames = NAMES) -> list[LabeledEntity]:
    """The worker-table entries of one job, carrying `session` (what a job reset modifies);
    a leaf job's entry admitting its parent's RESULTs carries it too."""
    return parent_entities(info, job, session, names) + [
        LabeledEntity(
            f"{names.workers_table} entry of job {job.job_id} worker {w.worker_id} "
            f"(port {w.port}, {w.mac}, {w.ip}, udp {w.udp_port})",
            table_entry(
                info,
                names.workers_table,
                dict(zip(WORKER_KEYS, (w.port, mac_to_int(w.mac), ip_to_int(w.ip), w.udp_port), strict=True)),
                names.set_worker,
                dict(
                    zip(
                        SET_WORKER_PARAMS,
                        (job.job_id, w.worker_id, job.num_workers, job.mgid, job.slot_base, job.num_slots, session),
                        strict=True,
                    )
                ),
            ),
        )
        for w in job.workers
    ]


def parent_entities(info: P4Info, job: JobConfig, session: int, names: PipelineNames = NAMES) -> list[LabeledEntity]:
    """A leaf job's entry admitting the parent's RESULTs for its rank (none for other jobs)."""
    up = job.uplink
    if up is None:
        return []
    return [
        LabeledEntity(
            f"{names.parents_table} entry of job {job.job_id} (parent job {up.parent_job} rank {up.rank} "
            f"at port {up.port}, {up.mac}, {up.ip}, udp {up.udp_port})",
            table_entry(
                info,
                names.parents_table,
                dict(
                    zip(
                        PARENT_KEYS,
                        (up.port, mac_to_int(up.mac), ip_to_int(up.ip), up.udp_port, up.parent_job, up.rank),
                        strict=True,
                    )
                ),
                names.from_parent,
                dict(
                    zip(
                        FROM_PARENT_PARAMS,
                        (job.job_id, job.num_workers, job.mgid, job.slot_base, job.num_slots, session, up.session),
                        strict=True,
                    )
                ),
            ),
        )
    ]


def uplink_entities(info: P4Info, job: JobConfig, names: PipelineNames = NAMES) -> list[LabeledEntity]:
    """A leaf job's uplink: where its rounds go (none for other jobs)."""
    up = job.uplink
    if up is None:
        return []
    params = (up.parent_job, up.rank, up.session, up.port, mac_to_int(up.mac), ip_to_int(up.ip), up.udp_port)
    return [
        LabeledEntity(
            f"{names.uplinks_table} entry of job {job.job_id} (to parent job {up.parent_job} as rank {up.rank})",
            table_entry(
                info,
                names.uplinks_table,
                {UPLINK_KEYS[0]: job.job_id},
                names.set_uplink,
                dict(zip(SET_UPLINK_PARAMS, params, strict=True)),
            ),
        )
    ]


def job_entities(
    info: P4Info, job: JobConfig, names: PipelineNames = NAMES, *, session: int | None = None
) -> list[LabeledEntity]:
    """Multicast group, result destinations and worker entries of one job.

    `session` defaults to the job's configured one; a job without one needs it
    given (the client draws it). Order matters on a live switch: the worker
    entries, which make the switch start aggregating the job's packets, go
    last, so the first completed round already finds its multicast group and
    result destinations.
    """
    session = job.session if session is None else session
    if session is None:
        raise ValueError(f"job {job.job_id} has no session: give one")
    out = [
        LabeledEntity(
            f"multicast group {job.mgid} of job {job.job_id}",
            multicast_group(job.mgid, [(w.port, w.worker_id) for w in job.workers]),
        )
    ]
    for w in job.workers:
        out.append(
            LabeledEntity(
                f"{names.result_dest_table} entry of job {job.job_id} worker {w.worker_id}",
                table_entry(
                    info,
                    names.result_dest_table,
                    dict(zip(RESULT_DEST_KEYS, (job.job_id, w.worker_id), strict=True)),
                    names.set_result_dest,
                    dict(zip(SET_RESULT_DEST_PARAMS, (mac_to_int(w.mac), ip_to_int(w.ip), w.udp_port), strict=True)),
                ),
            )
        )
    return out + uplink_entities(info, job, names) + worker_entities(info, job, session, names)


def install_entities(
    info: P4Info, config: Config, names: PipelineNames = NAMES, sessions: Mapping[int, int] | None = None
) -> list[LabeledEntity]:
    """Everything `config` asks for: jobs, then L2 entries, then broadcast.

    `sessions` (by job id) overrides or supplies the jobs' sessions."""
    sessions = sessions or {}
    out = [e for job in config.jobs for e in job_entities(info, job, names, session=sessions.get(job.job_id))]
    for e in config.l2:
        out.append(
            LabeledEntity(
                f"{names.l2_table} entry {e.mac} -> port {e.port}",
                table_entry(info, names.l2_table, {L2_KEYS[0]: mac_to_int(e.mac)}, names.to_port, {"port": e.port}),
            )
        )
    if config.broadcast is not None:
        b = config.broadcast
        # rid 0 for every copy: egress only looks at the rid of RESULT copies.
        out.append(
            LabeledEntity(f"broadcast multicast group {b.mgid}", multicast_group(b.mgid, [(p, 0) for p in b.ports]))
        )
        out.append(
            LabeledEntity(
                f"{names.l2_table} broadcast entry -> group {b.mgid}",
                table_entry(
                    info, names.l2_table, {L2_KEYS[0]: mac_to_int(BROADCAST_MAC)}, names.flood, {"mgid": b.mgid}
                ),
            )
        )
    return out


# -- contract check and counter decoding -------------------------------------------------


def check_contract(info: P4Info, names: PipelineNames = NAMES) -> None:
    """Raise one P4InfoError listing every way `info` differs from what the controller uses."""
    needs = [
        (names.workers_table, WORKER_KEYS, names.set_worker, SET_WORKER_PARAMS),
        (names.result_dest_table, RESULT_DEST_KEYS, names.set_result_dest, SET_RESULT_DEST_PARAMS),
        (names.l2_table, L2_KEYS, names.to_port, ("port",)),
        (names.l2_table, L2_KEYS, names.flood, ("mgid",)),
    ]
    # The leaf role's tables: a program without them serves jobs of one switch (installing
    # a leaf job there names the missing table); one with them must have them right.
    for leaf in (
        (names.uplinks_table, UPLINK_KEYS, names.set_uplink, SET_UPLINK_PARAMS),
        (names.parents_table, PARENT_KEYS, names.from_parent, FROM_PARENT_PARAMS),
    ):
        try:
            info.table(leaf[0])
        except P4InfoError:
            continue
        needs.append(leaf)
    problems: list[str] = []
    for table, keys, action, params in needs:
        try:
            t, a = info.check_table_action(table, action)
            _same_names(f"match of table {t.name!r}", dict.fromkeys(keys, 0), t.match)
            _same_names(f"parameters of action {a.name!r}", dict.fromkeys(params, 0), a.params)
            for f in t.match.values():
                if f.match_type != "EXACT":
                    raise P4InfoError(f"table {t.name!r}: match field {f.name!r} is {f.match_type}, not EXACT")
        except P4InfoError as exc:
            if str(exc) not in problems:
                problems.append(str(exc))
    try:
        c = info.counter(names.events_counter)
        if c.size < len(EVENT_NAMES) or c.unit not in ("PACKETS", "BOTH"):
            problems.append(
                f"counter {c.name!r} must count PACKETS in at least {len(EVENT_NAMES)} cells "
                f"(has {c.size} cells of {c.unit})"
            )
    except P4InfoError as exc:
        problems.append(str(exc))
    try:
        c = info.counter(names.job_events_counter)
        if c.size < SWITCH_SLOTS * NUM_JOB_EVENTS or c.unit not in ("PACKETS", "BOTH"):
            problems.append(
                f"counter {c.name!r} must count PACKETS in at least {SWITCH_SLOTS * NUM_JOB_EVENTS} cells "
                f"({NUM_JOB_EVENTS} per slot; has {c.size} cells of {c.unit})"
            )
    except P4InfoError as exc:
        problems.append(str(exc))
    if problems:
        raise P4InfoError(
            "P4Info does not match the controller's contract (docs/protocol.md section 8):\n  " + "\n  ".join(problems)
        )


def decode_counters(entries: Iterable[p4r.CounterEntry], size: int = NUM_EVENTS) -> dict[str, int]:
    """Packet counts by event name; unnamed cells appear as event_<i> only when non-zero."""
    counts = dict.fromkeys(EVENT_NAMES, 0)
    for e in entries:
        i = e.index.index
        if i < len(EVENT_NAMES):
            counts[EVENT_NAMES[i]] = e.data.packet_count
        elif i < size and e.data.packet_count:
            counts[f"event_{i}"] = e.data.packet_count
    return counts


def job_counter_cells(slot_base: int) -> range:
    """Indexes of the job_events cells of the job whose slots start at `slot_base`."""
    first = slot_base * NUM_JOB_EVENTS
    return range(first, first + NUM_JOB_EVENTS)


def decode_job_counters(entries: Iterable[p4r.CounterEntry], slot_bases: Iterable[int]) -> dict[int, dict[str, int]]:
    """Per slot_base, packet counts by JOB_EVENT_NAMES (zero for cells not read)."""
    out = {base: dict.fromkeys(JOB_EVENT_NAMES, 0) for base in slot_bases}
    for e in entries:
        base, cell = divmod(e.index.index, NUM_JOB_EVENTS)
        if base in out:
            out[base][JOB_EVENT_NAMES[cell]] = e.data.packet_count
    return out


def _same_names(what: str, given: Mapping[str, object], expected: Mapping[str, object]) -> None:
    unset, unknown = sorted(set(expected) - set(given)), sorted(set(given) - set(expected))
    if unset or unknown:
        parts = ([f"P4Info lacks {unknown}"] if unknown else []) + (
            [f"the controller does not set {unset}"] if unset else []
        )
        raise P4InfoError(f"{what}: {'; '.join(parts)} (P4Info has {sorted(expected)})")


def _encode(value: int, bitwidth: int, what: str) -> bytes:
    try:
        return encode_value(value, bitwidth, what)
    except ValueError as exc:
        raise P4InfoError(f"{exc} (bit width from P4Info)") from None


__all__ = [
    "EVENT_NAMES",
    "LabeledEntity",
    "NAMES",
    "PipelineNames",
    "check_contract",
    "decode_counters",
    "decode_job_counters",
    "job_counter_cells",
    "install_entities",
    "job_entities",
    "multicast_group",
    "table_entry",
    "worker_entities",
]
