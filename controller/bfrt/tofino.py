# SPDX-License-Identifier: Apache-2.0
"""The controller's Tofino target: what SwitchClient does for BMv2 over P4Runtime and
thrift, done for the TNA program over one BF Runtime session.

Same job model (controller.config's JobConfig and Config), same operations and names as
SwitchClient: install, install_session, reset_job, clear_job_registers, read_counters,
read_job_counters, clear_job_counters; plus the ports ($PORT) and the clean start a
service needs (there is no pipeline push: bf_switchd loads the program).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.client import DEFAULT_PROGRAM, BfrtSession, Labeled
from p4reduce.controller.bfrt.schema import Schema, SchemaError
from p4reduce.controller.client import JobReset, new_session
from p4reduce.controller.config import MAX_SESSION, Config, JobConfig, PortSetting
from p4reduce.controller.errors import SwitchError
from p4reduce.controller.pipeline import job_counter_cells
from p4reduce.protocol.switch import NUM_JOB_EVENTS, TNA_SLOTS

log = logging.getLogger(__name__)


class TofinoClient:
    """A BF Runtime session programming the TNA program (see module doc)."""

    def __init__(self, session: BfrtSession, names: tna.TnaNames = tna.NAMES) -> None:
        self.session = session
        self.names = names
        self.sessions: dict[int, int] = {}  # job id -> the session this client installed last
        tna.check_contract(self.schema, names)

    @classmethod
    def connect(
        cls,
        addr: str,
        device_id: int = 0,
        client_id: int = 0,
        program: str = DEFAULT_PROGRAM,
        timeout: float = 5.0,
        **kwargs: Any,
    ) -> TofinoClient:
        session = BfrtSession.connect(addr, device_id, client_id, program, timeout, **kwargs)
        try:
            return cls(session)
        except BaseException:
            session.close()
            raise

    @property
    def schema(self) -> Schema:
        assert self.session.schema is not None, "bound at connect"
        return self.session.schema

    @property
    def addr(self) -> str:
        return self.session.addr

    @property
    def bound(self) -> bool:
        return self.session.bound

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> TofinoClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ----------------------------------------------------------------------
    def write(self, items: Sequence[Labeled], update: str = "insert") -> None:
        """insert, modify, delete, or upsert: insert what the switch lacks, modify what it
        holds (registers and counters always exist: modified)."""
        if update == "delete":  # a DELETE names the entry by its key alone
            self.session.write([Labeled(i.label, _keyed(i.entity)) for i in items], update)
            return
        if update != "upsert":
            self.session.write(items, update)
            return
        held = self._held_keys({e.entity.table_entry.table_id for e in items})
        inserts: list[Labeled] = []
        modifies: list[Labeled] = []
        for item in items:
            entry = item.entity.table_entry
            table = self.schema.by_id(entry.table_id)
            always = table.table_type in ("Register", "Counter")
            (modifies if always or _key(entry) in held else inserts).append(item)
        self.session.write(inserts, "insert")
        self.session.write(modifies, "modify")

    def _held_keys(self, table_ids: Iterable[int]) -> set[tuple[int, bytes]]:
        wanted = [
            pb.Entity(table_entry=pb.TableEntry(table_id=t))
            for t in sorted(table_ids)
            if self.schema.by_id(t).table_type not in ("Register", "Counter")
        ]
        return {_key(e.table_entry) for e in self.session.read(wanted)} if wanted else set()

    def configure_ports(self, ports: Sequence[PortSetting]) -> dict[str, int]:
        """Bring up `ports` through $PORT (added, or modified if present); a port given by
        name ("1/0") is resolved through $PORT_STR_INFO. The device port of each."""
        resolved = self.device_ports([p.port for p in ports])
        pairs = [(resolved[str(p.port)], p) for p in ports]
        self.write(tna.port_entries(self.schema, pairs, self.names), update="upsert")
        log.info("%s: %d port(s) configured: %s", self.addr, len(pairs), resolved)
        return resolved

    def device_ports(self, ports: Iterable[int | str]) -> dict[str, int]:
        """Each port's device port: an integer is one already, a name ("1/0") is looked up."""
        out: dict[str, int] = {}
        names = [p for p in ports if isinstance(p, str)]
        for p in ports:
            if isinstance(p, int):
                out[str(p)] = p
        if names:
            table = self.schema.table(self.names.port_names)
            answers = self.session.read([self.schema.entry(table.name, {"$PORT_NAME": n}) for n in names])
            for e in answers:
                name = table.decode_key(e.table_entry.key)["$PORT_NAME"]
                _, data = table.decode_data(e.table_entry.data)
                out[str(name)] = int(data["$DEV_PORT"])
            unknown = sorted(set(names) - set(out))
            if unknown:
                raise SwitchError(f"{self.addr}: the switch has no front-panel port {unknown}")
        return out

    def install(self, config: Config) -> dict[int, int]:
        """Every job of `config`, its L2 entries and broadcast group (upsert); each job's
        session by job id (a job without one gets a new random one)."""
        sessions = {job.job_id: job.session if job.session is not None else new_session() for job in config.jobs}
        items = [e for job in config.jobs for e in tna.job_entries(self.schema, job, sessions[job.job_id], self.names)]
        items += tna.l2_entries(self.schema, config, self.names)
        self.write(items, update="upsert")
        self.sessions.update(sessions)
        log.info(
            "%s: installed %d entries (%d job(s), %d L2 entries)",
            self.addr,
            len(items),
            len(config.jobs),
            len(config.l2),
        )
        return sessions

    def install_job(self, job: JobConfig, *, with_group: bool = True) -> None:
        self.write(tna.job_entries(self.schema, job, names=self.names, with_group=with_group), update="insert")

    def uninstall_job(self, job: JobConfig, *, with_group: bool = True) -> int:
        """Delete the job's entries (admission first, group last), then zero its registers
        and job counter cells: the next job on these slots starts afresh. Cells zeroed."""
        entries = tna.job_entries(self.schema, job, session=0, names=self.names, with_group=with_group)
        self.write(entries[::-1], update="delete")
        cells = self.clear_job_registers(job)
        self.clear_job_counters(job.slot_base)
        return cells

    def install_session(self, job: JobConfig, session: int | None = None) -> int:
        """Give `job` a new session: MODIFY its admission entries (see SwitchClient)."""
        if session is None:
            session = new_session(self.read_sessions(job))
        elif not 1 <= session <= MAX_SESSION:
            raise ValueError(f"session {session} outside 1..{MAX_SESSION}")
        self.write(tna.worker_entries(self.schema, job, session, self.names), update="modify")
        self.sessions[job.job_id] = session
        log.info("%s: job %d: new session in its %d admission entries", self.addr, job.job_id, job.num_workers)
        return session

    def reset_job(self, job: JobConfig, *, session: int | None = None) -> JobReset:
        """A job reset (docs/protocol.md sections 7 and 8): a new session first (packets of
        processes that joined before are dropped from then on), then its registers zeroed."""
        new = self.install_session(job, session)
        return JobReset(new, self.clear_job_registers(job))

    def clear_job_registers(self, job: JobConfig) -> int:
        """Zero the cells of `job`'s slots (both shadow copies) in every slot register; the
        number of cells zeroed."""
        items = tna.zero_registers(self.schema, job.slots, self.names)
        self.session.write(items, "modify")
        log.info(
            "%s: job %d: zeroed %d register cells (slots %d..%d)",
            self.addr,
            job.job_id,
            len(items),
            job.slot_base,
            job.slots.stop - 1,
        )
        return len(items)

    def clear_job_counters(self, slot_base: int) -> None:
        cells = job_counter_cells(slot_base)
        self.session.write(tna.zero_counter_cells(self.schema, self.names.job_events, cells), "modify")

    def clear_slots(self, slots: range) -> int:
        """Zero the registers and job counter cells of `slots` (a job's, or a service's
        pool); the whole switch's by one table clear each. The updates written."""
        if slots == range(TNA_SLOTS):
            tables = [*tna.slot_registers(self.schema, self.names), self.names.job_events]
            self.session.write([Labeled(f"every cell of {t}", self.schema.entry(t, None)) for t in tables], "delete")
            return len(tables)
        items = tna.zero_registers(self.schema, slots, self.names)
        cells = range(slots.start * NUM_JOB_EVENTS, slots.stop * NUM_JOB_EVENTS)
        items += tna.zero_counter_cells(self.schema, self.names.job_events, cells)
        self.session.write(items, "modify")
        return len(items)

    def clear_tables(self, mgids: Iterable[int] = ()) -> int:
        """Delete every entry of the controller's tables, the groups `mgids` and the nodes
        of the controller's scheme no other group lists: a switch as bf_switchd loaded it.
        The number of entries deleted."""
        n = self.names
        tables = [n.workers, n.parents, n.uplinks, n.result_dest, n.l2]
        held = len(self.session.read([self.schema.entry(t, None) for t in tables]))
        # A DELETE without a key is BF Runtime's table clear.
        deletes = [Labeled(f"every entry of {t}", self.schema.entry(t, None)) for t in tables]
        mine = set(mgids)
        groups = self.groups()
        for mgid in sorted(set(groups) & mine):
            deletes.append(Labeled(f"{n.mgid} {mgid}", self.schema.entry(n.mgid, {"$MGID": mgid})))
        still = {node for mgid, nodes in groups.items() if mgid not in mine for node in nodes}
        for node in sorted(self.nodes()):
            if node not in still and node < tna.BROADCAST_NODES + 512:
                deletes.append(Labeled(f"{n.node} {node}", self.schema.entry(n.node, {"$MULTICAST_NODE_ID": node})))
        self.session.write(deletes, "delete")
        return held + len(deletes) - len(tables)

    def reconcile(self, meant: Sequence[Labeled], mgids: Iterable[int]) -> Reconciled:
        """Make the controller's tables, the groups `mgids` and the nodes of the
        controller's scheme hold `meant` exactly: what differs or is missing is written,
        what is not meant is deleted (admission entries first, groups before their
        nodes); registers and counters are not touched."""
        n = self.names
        tables = [n.workers, n.parents, n.uplinks, n.result_dest, n.l2, n.mgid, n.node]
        wanted = {_key(e.entity.table_entry): e for e in meant}
        mine = set(mgids)
        stale: list[Labeled] = []
        same: set[tuple[int, bytes]] = set()
        for entity in self.session.read([self.schema.entry(t, None) for t in tables]):
            entry = entity.table_entry
            table = self.schema.by_id(entry.table_id)
            ident = _key(entry)
            item = wanted.get(ident)
            if item is None:
                if _ours(table.name, table.decode_key(entry.key), mine, n):
                    stale.append(Labeled(f"{table.name} entry {table.decode_key(entry.key)} not meant", entity))
            elif _same_data(table.decode_data(entry.data), table.decode_data(item.entity.table_entry.data)):
                same.add(ident)
        order = [n.workers, n.parents, n.uplinks, n.result_dest, n.l2, n.mgid, n.node]
        stale.sort(key=lambda s: order.index(self.schema.by_id(s.entity.table_entry.table_id).name))
        self.write(stale, update="delete")
        to_write = [e for e in meant if _key(e.entity.table_entry) not in same]
        self.write(to_write, update="upsert")
        return Reconciled(len(stale), len(to_write), len(same))

    # -- reads -----------------------------------------------------------------------
    def read_counters(self) -> dict[str, int]:
        """Packet counts of the events counter by name, all pipes together."""
        table = self.schema.table(self.names.events)
        values = self._counter_values(table.name, range(table.size))
        return tna.decode_events(values, table.size)

    def read_job_counters(self, slot_bases: Iterable[int]) -> dict[int, dict[str, int]]:
        bases = list(slot_bases)
        if not bases:
            return {}
        cells = [i for base in bases for i in job_counter_cells(base)]
        return tna.decode_job_events(self._counter_values(self.names.job_events, cells), bases)

    def _counter_values(self, table: str, cells: Iterable[int]) -> dict[int, int]:
        answers = self.session.read(tna.counter_cells(self.schema, table, cells), from_hw=True)
        return tna.counter_values(self.schema, answers)

    def read_sessions(self, job: JobConfig) -> set[int]:
        """The sessions the switch's admission entries of `job` hold."""
        table = self.schema.table(self.names.workers)
        out = set()
        for e in self.session.read([self.schema.entry(table.name, None)]):
            action, data = table.decode_data(e.table_entry.data)
            if action == self.names.set_worker and data.get("job_id") == job.job_id:
                out.add(int(data["session"]))
        return out

    def read_register(self, name: str, index: int) -> list[dict[str, int]]:
        """One register cell, per pipe: {field: value} (the program's data field names
        without the register's prefix)."""
        table = self.schema.table(name)
        answers = self.session.read([self.schema.entry(name, {"$REGISTER_INDEX": index})], from_hw=True)
        _, data = table.decode_data(answers[0].table_entry.data)
        per_field = {f.rsplit(".", 1)[-1]: v if isinstance(v, list) else [v] for f, v in data.items()}
        pipes = max(len(v) for v in per_field.values())
        return [{f: v[p] for f, v in per_field.items()} for p in range(pipes)]

    def entries(self, table: str) -> list[tuple[dict[str, Any], str | None, dict[str, Any]]]:
        """Every entry of a match table: (key, action, data) by name."""
        t = self.schema.table(table)
        out = []
        for e in self.session.read([self.schema.entry(table, None)]):
            action, data = t.decode_data(e.table_entry.data)
            out.append((dict(t.decode_key(e.table_entry.key)), action, data))
        return out

    def groups(self) -> dict[int, list[int]]:
        """Multicast groups of the PRE: node ids by mgid."""
        return {int(k["$MGID"]): list(d.get("$MULTICAST_NODE_ID", [])) for k, _, d in self.entries(self.names.mgid)}

    def nodes(self) -> dict[int, tuple[int, list[int]]]:
        """PRE nodes: (replication id, ports) by node id."""
        return {
            int(k["$MULTICAST_NODE_ID"]): (int(d["$MULTICAST_RID"]), list(d.get("$DEV_PORT", [])))
            for k, _, d in self.entries(self.names.node)
        }

    def ports(self) -> dict[int, dict[str, Any]]:
        """The ports added through $PORT, with their settings and state ($PORT_UP)."""
        return {int(k["$DEV_PORT"]): d for k, _, d in self.entries(self.names.port)}


class Reconciled(NamedTuple):
    """What `reconcile` did: entries deleted, written (missing or different), kept."""

    deleted: int
    written: int
    kept: int


def _ours(table: str, key: dict[str, Any], mgids: set[int], names: tna.TnaNames) -> bool:
    """Whether the controller owns an entry it finds: all of its own tables', the groups
    it was given and the nodes of its numbering."""
    if table == names.mgid:
        return int(key["$MGID"]) in mgids
    if table == names.node:
        return int(key["$MULTICAST_NODE_ID"]) < tna.BROADCAST_NODES + 512
    return True


def _same_data(held: tuple[str | None, dict[str, Any]], meant: tuple[str | None, dict[str, Any]]) -> bool:
    """Whether a read entry does what a built one means: the same action and the meant
    fields' values (a switch may answer with more fields than were written)."""
    return held[0] == meant[0] and all(held[1].get(k) == v for k, v in meant[1].items())


def _key(entry: pb.TableEntry) -> tuple[int, bytes]:
    return entry.table_id, entry.key.SerializeToString(deterministic=True)


def _keyed(entity: pb.Entity) -> pb.Entity:
    """The entity addressed by its key only (what a DELETE carries)."""
    out = pb.Entity()
    out.table_entry.table_id = entity.table_entry.table_id
    if entity.table_entry.HasField("key"):  # none: the whole table (a table clear)
        out.table_entry.key.CopyFrom(entity.table_entry.key)
    return out


__all__ = ["SchemaError", "TofinoClient"]
