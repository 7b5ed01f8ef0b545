# SPDX-License-Identifier: Apache-2.0
"""The TNA program's (p4src/tna) BF Runtime entries for a configuration: the same
JobConfig / Config the P4Runtime path installs on BMv2, written as Tofino tables.

Pure functions of (Schema, config): no I/O. Table, field and action names are those of
the compiler's bfrt.json (p4src/tna/README.md lists them); `TnaNames` holds them, and
every one is looked up in the schema of the running program, so a renamed table or a
changed width is a SchemaError naming it before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt.client import Labeled
from p4reduce.controller.bfrt.schema import Schema, SchemaError, Value
from p4reduce.controller.config import BROADCAST_MAC, Config, JobConfig, PortSetting
from p4reduce.controller.encoding import ip_to_int, mac_to_int
from p4reduce.controller.pipeline import job_counter_cells
from p4reduce.protocol.switch import (
    EVENT_NAMES,
    JOB_EVENT_NAMES,
    NUM_JOB_EVENTS,
    SWITCH_MAX_PORT,
    SWITCH_MAX_WORKERS,
    TNA_SLOTS,
)


@dataclass(frozen=True)
class TnaNames:
    """BF Runtime names of the TNA program's control-plane tables (program p4reduce_tna)."""

    workers: str = "pipe.Ingress.admission.workers"
    set_worker: str = "Ingress.admission.set_worker"
    parents: str = "pipe.Ingress.admission.parents"
    from_parent: str = "Ingress.admission.from_parent"
    uplinks: str = "pipe.Ingress.uplink.uplinks"
    to_parent: str = "Ingress.uplink.to_parent"
    result_dest: str = "pipe.Egress.result_dest"
    set_result_dest: str = "Egress.set_result_dest"
    l2: str = "pipe.Ingress.forwarding.l2"
    to_port: str = "Ingress.forwarding.to_port"
    flood: str = "Ingress.forwarding.flood"
    events: str = "pipe.Ingress.events"
    job_events: str = "pipe.Ingress.job_events"
    register_prefix: str = "pipe.Ingress."  # every register of the program holds slot state
    mgid: str = "$pre.mgid"
    node: str = "$pre.node"
    port: str = "$PORT"
    port_names: str = "$PORT_STR_INFO"


NAMES = TnaNames()

# Multicast node ids (32 bits): a job's rank r is node (job_id << 8) | r; the broadcast
# group's copy to port p is node BROADCAST_NODES + p. Disjoint: job ids are 16 bits.
BROADCAST_NODES = 1 << 24
# $PORT's string values from the configuration's short forms.
SPEEDS = {s: f"BF_SPEED_{s}" for s in ("1G", "10G", "25G", "40G", "50G", "100G", "200G", "400G")}
FECS = {"none": "BF_FEC_TYP_NONE", "fc": "BF_FEC_TYP_FIRECODE", "rs": "BF_FEC_TYP_REED_SOLOMON"}
AUTONEG = {"default": "PM_AN_DEFAULT", "on": "PM_AN_FORCE_ENABLE", "off": "PM_AN_FORCE_DISABLE"}


def node_id(job_id: int, rank: int) -> int:
    return (job_id << 8) | rank


# -- entries -----------------------------------------------------------------------------


def _entry(
    schema: Schema, label: str, table: str, key: Mapping[str, Value], action: str | None, data: Mapping[str, Value]
) -> Labeled:
    return Labeled(label, schema.entry(table, key, data, action))


def worker_entries(schema: Schema, job: JobConfig, session: int, names: TnaNames = NAMES) -> list[Labeled]:
    """The job's admission entries carrying `session` (what a job reset modifies); a leaf
    job's entry admitting its parent's answers carries it too."""
    out = parent_entries(schema, job, session, names)
    for w in job.workers:
        out.append(
            _entry(
                schema,
                f"{names.workers} entry of job {job.job_id} worker {w.worker_id} "
                f"(port {w.port}, {w.mac}, {w.ip}, udp {w.udp_port})",
                names.workers,
                {
                    "ig_intr_md.ingress_port": w.port,
                    "hdr.ethernet.src_addr": mac_to_int(w.mac),
                    "hdr.ipv4.src_addr": ip_to_int(w.ip),
                    "hdr.udp.src_port": w.udp_port,
                },
                names.set_worker,
                {
                    "job_id": job.job_id,
                    "worker_id": w.worker_id,
                    "worker_bit": 1 << w.worker_id,
                    "num_workers": job.num_workers,
                    "mgid": job.mgid,
                    "slot_base": job.slot_base,
                    "slot_end": job.slot_base + job.num_slots,
                    "num_slots": job.num_slots,
                    "session": session,
                },
            )
        )
    return out


def parent_entries(schema: Schema, job: JobConfig, session: int, names: TnaNames = NAMES) -> list[Labeled]:
    up = job.uplink
    if up is None:
        return []
    return [
        _entry(
            schema,
            f"{names.parents} entry of job {job.job_id} (parent job {up.parent_job} rank {up.rank} "
            f"at port {up.port}, {up.mac}, {up.ip}, udp {up.udp_port})",
            names.parents,
            {
                "ig_intr_md.ingress_port": up.port,
                "hdr.ethernet.src_addr": mac_to_int(up.mac),
                "hdr.ipv4.src_addr": ip_to_int(up.ip),
                "hdr.udp.src_port": up.udp_port,
                "hdr.agg.job_id": up.parent_job,
                "hdr.agg.worker_id": up.rank,
            },
            names.from_parent,
            {
                "job_id": job.job_id,
                "mgid": job.mgid,
                "slot_base": job.slot_base,
                "slot_end": job.slot_base + job.num_slots,
                "session": session,
                "up_session": up.session,
            },
        )
    ]


def uplink_entries(schema: Schema, job: JobConfig, names: TnaNames = NAMES) -> list[Labeled]:
    up = job.uplink
    if up is None:
        return []
    return [
        _entry(
            schema,
            f"{names.uplinks} entry of job {job.job_id} (to parent job {up.parent_job} as rank {up.rank})",
            names.uplinks,
            {"hdr.agg.job_id": job.job_id},
            names.to_parent,
            {
                "up_job": up.parent_job,
                "up_rank": up.rank,
                "up_session": up.session,
                "port": up.port,
                "mac": mac_to_int(up.mac),
                "ip": ip_to_int(up.ip),
                "udp_port": up.udp_port,
            },
        )
    ]


def result_dest_entries(schema: Schema, job: JobConfig, names: TnaNames = NAMES) -> list[Labeled]:
    return [
        _entry(
            schema,
            f"{names.result_dest} entry of job {job.job_id} worker {w.worker_id}",
            names.result_dest,
            {"hdr.agg.job_id": job.job_id, "eg_md.dest_worker": w.worker_id},
            names.set_result_dest,
            {"mac": mac_to_int(w.mac), "ip": ip_to_int(w.ip), "udp_port": w.udp_port},
        )
        for w in job.workers
    ]


def group_entries(schema: Schema, mgid: int, nodes: Iterable[tuple[int, int, int]], what: str) -> list[Labeled]:
    """A multicast group of the packet replication engine: one node per (node id,
    replication id, port), then the group listing them (nodes must exist first)."""
    listed = list(nodes)
    out = [
        _entry(
            schema,
            f"{NAMES.node} {node} (rid {rid}, port {port}) of {what}",
            NAMES.node,
            {"$MULTICAST_NODE_ID": node},
            None,
            {"$MULTICAST_RID": rid, "$MULTICAST_LAG_ID": [], "$DEV_PORT": [port]},
        )
        for node, rid, port in listed
    ]
    out.append(
        _entry(
            schema,
            f"{NAMES.mgid} {mgid} of {what}",
            NAMES.mgid,
            {"$MGID": mgid},
            None,
            {
                "$MULTICAST_NODE_ID": [n for n, _, _ in listed],
                "$MULTICAST_NODE_L1_XID_VALID": [False] * len(listed),
                "$MULTICAST_NODE_L1_XID": [0] * len(listed),
            },
        )
    )
    return out


def job_group(schema: Schema, job: JobConfig) -> list[Labeled]:
    """The job's group: the replication id of a copy is the rank it goes to (egress
    reads it as the destination worker)."""
    nodes = [(node_id(job.job_id, w.worker_id), w.worker_id, w.port) for w in job.workers]
    return group_entries(schema, job.mgid, nodes, f"job {job.job_id}")


def job_entries(
    schema: Schema, job: JobConfig, session: int | None = None, names: TnaNames = NAMES, *, with_group: bool = True
) -> list[Labeled]:
    """Group, result destinations, uplink and admission entries of one job, in the order
    a live switch needs: the admission entries, which let its packets in, last."""
    session = job.session if session is None else session
    if session is None:
        raise ValueError(f"job {job.job_id} has no session: give one")
    out = job_group(schema, job) if with_group else []
    return (
        out
        + result_dest_entries(schema, job, names)
        + uplink_entries(schema, job, names)
        + worker_entries(schema, job, session, names)
    )


def l2_entries(schema: Schema, config: Config, names: TnaNames = NAMES) -> list[Labeled]:
    """L2 forwarding and the broadcast group (rid 0 for every copy)."""
    out = [
        _entry(
            schema,
            f"{names.l2} entry {e.mac} -> port {e.port}",
            names.l2,
            {"hdr.ethernet.dst_addr": mac_to_int(e.mac)},
            names.to_port,
            {"port": e.port},
        )
        for e in config.l2
    ]
    b = config.broadcast
    if b is not None:
        nodes = [(BROADCAST_NODES + p, 0, p) for p in b.ports]
        out += group_entries(schema, b.mgid, nodes, "the broadcast group")
        out.append(
            _entry(
                schema,
                f"{names.l2} broadcast entry -> group {b.mgid}",
                names.l2,
                {"hdr.ethernet.dst_addr": mac_to_int(BROADCAST_MAC)},
                names.flood,
                {"mgid": b.mgid},
            )
        )
    return out


def port_entries(schema: Schema, ports: Iterable[tuple[int, PortSetting]], names: TnaNames = NAMES) -> list[Labeled]:
    """$PORT entries bringing up each (device port, setting)."""
    out = []
    for dev_port, p in ports:
        try:
            data: dict[str, Value] = {
                "$SPEED": SPEEDS[p.speed],
                "$FEC": FECS[p.fec],
                "$AUTO_NEGOTIATION": AUTONEG[p.autoneg],
                "$PORT_ENABLE": p.enable,
            }
        except KeyError as exc:  # config.py checks these: a PortSetting made in code
            raise SchemaError(f"port {p.port}: {exc.args[0]!r} is not a speed, FEC or autoneg setting") from None
        out.append(
            _entry(
                schema,
                f"{names.port} {dev_port} ({p.port}: {p.speed}, FEC {p.fec})",
                names.port,
                {"$DEV_PORT": dev_port},
                None,
                data,
            )
        )
    return out


# -- registers and counters --------------------------------------------------------------


def slot_registers(schema: Schema, names: TnaNames = NAMES) -> list[str]:
    """The program's registers holding per-slot state: every register table under
    `register_prefix`, of TNA_SLOTS cells (one per slot) or a multiple (the shadow copies)."""
    out = []
    for t in schema.tables.values():
        if t.table_type != "Register" or not t.name.startswith(names.register_prefix):
            continue
        if t.size % TNA_SLOTS:
            raise SchemaError(f"register {t.name!r} has {t.size} cells, not a multiple of the {TNA_SLOTS} slots")
        out.append(t.name)
    if not out:
        raise SchemaError(f"the BF Runtime info has no register under {names.register_prefix!r}")
    return sorted(out)


def register_cells(size: int, slots: range) -> list[int]:
    """A register's cells of `slots`: copy * TNA_SLOTS + slot for each of its copies."""
    return [copy * TNA_SLOTS + s for copy in range(size // TNA_SLOTS) for s in slots]


def zero_registers(schema: Schema, slots: range, names: TnaNames = NAMES) -> list[Labeled]:
    """Zero every slot register's cells of `slots` (both shadow copies): a job's reset."""
    out = []
    for name in slot_registers(schema, names):
        table = schema.table(name)
        zero = dict.fromkeys(table.data, 0)
        for cell in register_cells(table.size, slots):
            out.append(_entry(schema, f"{name}[{cell}]", name, {"$REGISTER_INDEX": cell}, None, zero))
    return out


def counter_cells(schema: Schema, table: str, cells: Iterable[int]) -> list[pb.Entity]:
    return [schema.entry(table, {"$COUNTER_INDEX": i}) for i in cells]


def zero_counter_cells(schema: Schema, table: str, cells: Iterable[int]) -> list[Labeled]:
    return [
        _entry(schema, f"{table}[{i}]", table, {"$COUNTER_INDEX": i}, None, {"$COUNTER_SPEC_PKTS": 0}) for i in cells
    ]


def counter_values(schema: Schema, entities: Iterable[pb.Entity]) -> dict[int, int]:
    """Packets by counter index, from a Read's answer."""
    out = {}
    for e in entities:
        table = schema.by_id(e.table_entry.table_id)
        index = table.decode_key(e.table_entry.key)["$COUNTER_INDEX"]
        _, data = table.decode_data(e.table_entry.data)
        packets = data.get("$COUNTER_SPEC_PKTS", 0)
        out[int(index)] = int(sum(packets) if isinstance(packets, list) else packets)  # pipes added up
    return out


def decode_events(values: Mapping[int, int], size: int) -> dict[str, int]:
    counts = dict.fromkeys(EVENT_NAMES, 0)
    for i, packets in values.items():
        if i < len(EVENT_NAMES):
            counts[EVENT_NAMES[i]] = packets
        elif i < size and packets:
            counts[f"event_{i}"] = packets
    return counts


def decode_job_events(values: Mapping[int, int], slot_bases: Iterable[int]) -> dict[int, dict[str, int]]:
    out = {base: dict.fromkeys(JOB_EVENT_NAMES, 0) for base in slot_bases}
    for i, packets in values.items():
        base, cell = divmod(i, NUM_JOB_EVENTS)
        if base in out:
            out[base][JOB_EVENT_NAMES[cell]] = packets
    return out


def check_contract(schema: Schema, names: TnaNames = NAMES) -> None:
    """Raise one SchemaError listing every table, action and field the controller uses
    that the running program lacks (or types otherwise)."""
    from p4reduce.controller.config import (
        MAX_SESSION,
        BroadcastConfig,
        L2Entry,
        SwitchConfig,
        UplinkConfig,
        WorkerEntry,
    )

    # The largest value of every field the controller writes: a narrower field is refused.
    top = SWITCH_MAX_PORT + 2  # 511: Tofino device ports are 9 bits, all usable
    w = WorkerEntry(SWITCH_MAX_WORKERS - 1, top, "fe:ff:ff:ff:ff:ff", "255.255.255.255", 65535)
    up = UplinkConfig(65535, SWITCH_MAX_WORKERS - 1, MAX_SESSION, top, "fe:ff:ff:ff:ff:ff", "255.255.255.255", 65535)
    job = JobConfig(65535, TNA_SLOTS - 1, 1, (w,), 65535, session=MAX_SESSION, uplink=up)
    config = Config(SwitchConfig(), (job,), (L2Entry(w.mac, top),), BroadcastConfig(65535, (top,)))
    checks: list[Callable[[], object]] = [
        lambda: job_entries(schema, job, names=names),
        lambda: l2_entries(schema, config, names),
        lambda: port_entries(schema, [(top, PortSetting(top))], names),
        lambda: zero_registers(schema, range(0, 1), names),
        lambda: counter_cells(schema, names.events, [len(EVENT_NAMES) - 1]),
        lambda: counter_cells(schema, names.job_events, job_counter_cells(TNA_SLOTS - 1)),
    ]
    problems = []
    for check in checks:
        try:
            check()
        except SchemaError as exc:
            problems.append(str(exc))
    if problems:
        raise SchemaError(
            "the program's BF Runtime info does not match the controller's contract:\n  " + "\n  ".join(problems)
        )
