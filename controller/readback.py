# SPDX-License-Identifier: Apache-2.0
"""What a switch holds against what the controller means it to hold (a controller that
restarts and keeps the switch's jobs instead of setting it up afresh).

Entities are compared by what identifies them on the switch (table and match key, or
multicast group id) and by what they do (action and parameters, or replicas), in the
integers behind P4Runtime's bytestrings: a read entry and a built one compare equal
whatever padding the server used. Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from p4reduce.controller.encoding import decode_value
from p4reduce.controller.errors import P4InfoError
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import NAMES, LabeledEntity, PipelineNames
from p4reduce.controller.proto import p4r


def identity(entity: p4r.Entity) -> Hashable:
    """What names `entity` on the switch: two entities with one identity cannot coexist."""
    if entity.HasField("table_entry"):
        entry = entity.table_entry
        return ("table", entry.table_id, tuple(sorted((m.field_id, _match_value(m)) for m in entry.match)))
    if entity.HasField("packet_replication_engine_entry"):
        return ("group", entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id)
    raise ValueError(f"cannot compare a {entity.WhichOneof('entity')} entity")


def content(entity: p4r.Entity) -> Hashable:
    """What `entity` does: a table entry's action, a multicast group's replicas."""
    if entity.HasField("table_entry"):
        action = entity.table_entry.action.action
        return action.action_id, tuple(sorted((p.param_id, decode_value(p.value)) for p in action.params))
    group = entity.packet_replication_engine_entry.multicast_group_entry
    # egress_port (int32) or, from P4Runtime 1.4 servers, the bytes `port`.
    return tuple(sorted((r.egress_port or decode_value(r.port), r.instance) for r in group.replicas))


@dataclass(frozen=True)
class Difference:
    """How the switch differs from what is meant: `stale` entities to delete (held, not
    meant); `wrong` ones (held otherwise) and `missing` ones to write, both of them in
    `to_write` in the meant order (groups before the worker entries that need them)."""

    stale: list[p4r.Entity]
    wrong: list[LabeledEntity]
    missing: list[LabeledEntity]
    to_write: list[LabeledEntity]


def compare(meant: Sequence[LabeledEntity], held: Iterable[p4r.Entity]) -> Difference:
    """How `held` (read from the switch) differs from `meant`."""
    wanted = {identity(e.entity): e for e in meant}
    found: dict[Hashable, p4r.Entity] = {}
    stale = []
    for entity in held:
        key = identity(entity)
        if key in wanted:
            found[key] = entity
        else:
            stale.append(entity)
    wrong = {k for k, e in wanted.items() if k in found and content(found[k]) != content(e.entity)}
    missing = wanted.keys() - found.keys()
    in_order = list(wanted.items())
    return Difference(
        stale,
        [e for k, e in in_order if k in wrong],
        [e for k, e in in_order if k in missing],
        [e for k, e in in_order if k in wrong or k in missing],
    )


def slot_range(info: P4Info, entity: p4r.Entity, names: PipelineNames = NAMES) -> tuple[int, int] | None:
    """(slot_base, num_slots) of an entry that lets a job's packets into the registers (a
    worker entry, or a leaf's entry for its parent's RESULTs); None for anything else."""
    if not entity.HasField("table_entry"):
        return None
    action = entity.table_entry.action.action
    for name in (names.set_worker, names.from_parent):
        try:
            if action.action_id != info.action(name).id:
                continue
            ids = info.param(name, "slot_base").id, info.param(name, "num_slots").id
        except P4InfoError:  # a program without the leaf role's tables
            continue
        params = {p.param_id: decode_value(p.value) for p in action.params}
        if all(i in params for i in ids):
            return params[ids[0]], params[ids[1]]
    return None


def _match_value(match: p4r.FieldMatch) -> Hashable:
    if match.HasField("exact"):
        return decode_value(match.exact.value)
    return match.SerializeToString()  # other kinds: compared as the server wrote them


__all__ = ["Difference", "compare", "content", "identity", "slot_range"]
