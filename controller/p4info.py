# SPDX-License-Identifier: Apache-2.0
"""Name -> id resolution over a P4Info, with errors that say what does exist.

A P4Info that lacks a name the controller uses, or has it with another shape
(match kind, missing parameter), is how a mismatch between p4src/ and the
controller shows up; `P4InfoError` names the culprit and lists the candidates.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf import text_format

from p4reduce.controller.errors import P4InfoError
from p4reduce.controller.proto import p4info_pb2

__all__ = ["ActionInfo", "CounterInfo", "FieldInfo", "P4Info", "P4InfoError", "TableInfo"]

T = TypeVar("T")


@dataclass(frozen=True)
class FieldInfo:
    """A match field or action parameter."""

    id: int
    name: str
    bitwidth: int
    match_type: str = ""  # match fields only: "EXACT", "LPM", "TERNARY", ...


@dataclass(frozen=True)
class TableInfo:
    id: int
    name: str
    match: Mapping[str, FieldInfo]
    action_ids: frozenset[int]


@dataclass(frozen=True)
class ActionInfo:
    id: int
    name: str
    params: Mapping[str, FieldInfo]


@dataclass(frozen=True)
class CounterInfo:
    id: int
    name: str
    size: int
    unit: str  # "PACKETS", "BYTES", "BOTH"


class P4Info:
    """Read-only view of a P4Info with lookups by fully qualified name.

    A name may also be given as a unique dot-separated suffix of the full name
    ("admission.workers" for "P4ReduceIngress.admission.workers"), as the
    BMv2 CLI allows; ambiguous suffixes are refused.
    """

    def __init__(self, proto: p4info_pb2.P4Info) -> None:
        self.proto = proto
        self._tables = {
            t.preamble.name: TableInfo(
                t.preamble.id,
                t.preamble.name,
                {
                    m.name: FieldInfo(m.id, m.name, m.bitwidth, p4info_pb2.MatchField.MatchType.Name(m.match_type))
                    for m in t.match_fields
                },
                frozenset(a.id for a in t.action_refs),
            )
            for t in proto.tables
        }
        self._actions = {
            a.preamble.name: ActionInfo(
                a.preamble.id, a.preamble.name, {p.name: FieldInfo(p.id, p.name, p.bitwidth) for p in a.params}
            )
            for a in proto.actions
        }
        self._counters = {
            c.preamble.name: CounterInfo(
                c.preamble.id, c.preamble.name, c.size, p4info_pb2.CounterSpec.Unit.Name(c.spec.unit)
            )
            for c in proto.counters
        }
        self._names_by_id = {t.id: name for name, t in self._tables.items()}
        self._names_by_id.update({a.id: name for name, a in self._actions.items()})
        self._names_by_id.update({c.id: name for name, c in self._counters.items()})

    @classmethod
    def load(cls, path: str | pathlib.Path) -> P4Info:
        """Parse a P4Info text protobuf (what `p4c --p4runtime-files x.txtpb` writes)."""
        try:
            text = pathlib.Path(path).read_text()
        except OSError as exc:
            raise P4InfoError(f"cannot read P4Info {path}: {exc.strerror or exc}") from None
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, source: str = "P4Info") -> P4Info:
        info = p4info_pb2.P4Info()
        try:
            text_format.Parse(text, info)
        except text_format.ParseError as exc:
            raise P4InfoError(f"{source} is not a P4Info text protobuf: {exc}") from None
        if not info.tables and not info.actions:
            raise P4InfoError(f"{source} is not a P4Info of a program: it has no tables or actions")
        return cls(info)

    # -- lookups -------------------------------------------------------------------
    def table(self, name: str) -> TableInfo:
        return _lookup("table", name, self._tables)

    def action(self, name: str) -> ActionInfo:
        return _lookup("action", name, self._actions)

    def counter(self, name: str) -> CounterInfo:
        return _lookup("counter", name, self._counters)

    def counter_id(self, name: str) -> int:
        return self.counter(name).id

    def match_field(self, table: str, field: str) -> FieldInfo:
        t = self.table(table)
        return _member(f"table {t.name!r}", "match field", field, t.match)

    def param(self, action: str, param: str) -> FieldInfo:
        a = self.action(action)
        return _member(f"action {a.name!r}", "parameter", param, a.params)

    def name_of(self, object_id: int) -> str:
        """Name of a table, action or counter id (for messages); the id if unknown."""
        return self._names_by_id.get(object_id, str(object_id))

    def check_table_action(self, table: str, action: str) -> tuple[TableInfo, ActionInfo]:
        """The table and action, after checking the action may be used in the table."""
        t, a = self.table(table), self.action(action)
        if a.id not in t.action_ids:
            allowed = sorted(self.name_of(i) for i in t.action_ids)
            raise P4InfoError(f"action {a.name!r} is not an action of table {t.name!r} (have: {', '.join(allowed)})")
        return t, a


def _lookup(kind: str, name: str, items: Mapping[str, T]) -> T:
    if name in items:
        return items[name]
    hits = [k for k in items if k.endswith("." + name)]
    if len(hits) == 1:
        return items[hits[0]]
    if len(hits) > 1:
        raise P4InfoError(f"{kind} {name!r} is ambiguous in P4Info (could be: {', '.join(sorted(hits))})")
    raise P4InfoError(f"{kind} {name!r} not in P4Info (have: {', '.join(sorted(items)) or 'none'})")


def _member(owner: str, kind: str, name: str, items: Mapping[str, T]) -> T:
    try:
        return items[name]
    except KeyError:
        raise P4InfoError(f"{owner} has no {kind} {name!r} in P4Info (have: {', '.join(items) or 'none'})") from None
