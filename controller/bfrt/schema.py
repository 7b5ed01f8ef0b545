# SPDX-License-Identifier: Apache-2.0
"""A program's BF Runtime info (the compiler's bfrt.json, and the SDE's fixed tables such
as $pre.node and $PORT) as checked builders of keys and data.

Every name the controller writes is looked up here, and every value is checked against
the field's width or type, before anything is sent: a name or width the program does not
have is a SchemaError naming it. The encoding is BF Runtime's gRPC one: integers as
big-endian bytes of the field's width rounded up to bytes; bool, string, float and
repeated fields in their own members of DataField.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.errors import P4InfoError

# Widths of BF Runtime's fixed-size integer types, in bits.
_UINT_WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "int32": 32}

# A value a caller gives: an integer, a (value, mask) pair for a ternary key, a bool, a
# string, or a list for a repeated field.
Value = int | bool | str | float | tuple[int, int] | Sequence[int] | Sequence[bool]


class SchemaError(P4InfoError):
    """A table, field, action or value the BF Runtime info does not have or allow."""


@dataclass(frozen=True)
class Field:
    """A key or data field: its id, name and type."""

    id: int
    name: str
    type: str  # "bytes", "uint8".."uint64", "int32", "bool", "string", "float"
    width: int  # bits of an integer field; 0 for the others
    mandatory: bool = False
    repeated: bool = False
    match_type: str = ""  # key fields: "Exact", "Ternary", ...
    choices: tuple[str, ...] = ()

    @property
    def octets(self) -> int:
        return (self.width + 7) // 8

    def encode_int(self, value: Any, what: str) -> bytes:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(f"{what}: {value!r} is not an integer")
        if not 0 <= value < 1 << self.width:
            raise SchemaError(f"{what}: {value} does not fit {self.width} bits")
        return value.to_bytes(self.octets, "big")

    def decode_int(self, raw: bytes, what: str) -> int:
        if len(raw) != self.octets:
            raise SchemaError(f"{what}: {len(raw)} bytes where {self.width} bits take {self.octets}")
        return int.from_bytes(raw, "big")


@dataclass(frozen=True)
class Action:
    id: int
    name: str
    scope: str  # "TableAndDefault", "TableOnly" or "DefaultOnly"
    data: Mapping[str, Field]


@dataclass(frozen=True)
class Table:
    """One BF Runtime table: a match-action table, a register, a counter or a fixed table."""

    id: int
    name: str
    table_type: str
    size: int
    key: Mapping[str, Field]
    actions: Mapping[str, Action]
    data: Mapping[str, Field]  # the fields of tables without actions (registers, counters, $pre, $PORT)

    def action(self, name: str) -> Action:
        try:
            return self.actions[name]
        except KeyError:
            raise SchemaError(
                f"table {self.name!r} has no action {name!r} (it has {sorted(self.actions) or 'none'})"
            ) from None

    # -- keys ------------------------------------------------------------------------
    def make_key(self, values: Mapping[str, Value]) -> pb.TableKey:
        """Every key field, by name: an index of a register or counter within its size."""
        _same_names(f"key of table {self.name!r}", values, self.key)
        key = pb.TableKey()
        for f in sorted(self.key.values(), key=lambda f: f.id):
            what = f"table {self.name!r} key field {f.name!r}"
            value = values[f.name]
            if f.name in ("$REGISTER_INDEX", "$COUNTER_INDEX") and isinstance(value, int) and value >= self.size:
                raise SchemaError(f"{what}: index {value} outside 0..{self.size - 1}")
            field = key.fields.add(field_id=f.id)
            if f.type == "string":  # $PORT_STR_INFO's port name: the text itself
                if not isinstance(value, str):
                    raise SchemaError(f"{what}: {value!r} is not a string")
                field.exact.value = value.encode()
            elif f.match_type == "Exact":
                field.exact.value = f.encode_int(value, what)
            elif f.match_type == "Ternary":
                if not (isinstance(value, tuple) and len(value) == 2):
                    raise SchemaError(f"{what}: a ternary field takes (value, mask), not {value!r}")
                field.ternary.value = f.encode_int(value[0], what)
                field.ternary.mask = f.encode_int(value[1], what)
            else:
                raise SchemaError(f"{what}: {f.match_type} keys are not written by the controller")
        return key

    def decode_key(self, key: pb.TableKey) -> dict[str, Any]:
        by_id = {f.id: f for f in self.key.values()}
        out: dict[str, Any] = {}
        for kf in key.fields:
            f = self._known(by_id, kf.field_id, "key field")
            what = f"table {self.name!r} key field {f.name!r}"
            if kf.HasField("exact") and f.type == "string":
                out[f.name] = kf.exact.value.decode(errors="replace")
            elif kf.HasField("exact"):
                out[f.name] = f.decode_int(kf.exact.value, what)
            elif kf.HasField("ternary"):
                out[f.name] = (f.decode_int(kf.ternary.value, what), f.decode_int(kf.ternary.mask, what))
            else:
                raise SchemaError(f"{what}: a {kf.WhichOneof('match_type')} match the controller does not read")
        return out

    # -- data ------------------------------------------------------------------------
    def data_fields(self, action: str | None) -> Mapping[str, Field]:
        if action is None:
            if self.actions and not self.data:
                raise SchemaError(f"table {self.name!r} needs an action (it has {sorted(self.actions)})")
            return self.data
        return self.action(action).data

    def make_data(self, values: Mapping[str, Value], action: str | None = None) -> pb.TableData:
        """Data of an entry: every mandatory field given, no field the table lacks."""
        fields = self.data_fields(action)
        where = f"action {action!r} of table {self.name!r}" if action else f"data of table {self.name!r}"
        unknown = sorted(set(values) - set(fields))
        missing = sorted(n for n, f in fields.items() if f.mandatory and n not in values)
        if unknown or missing:
            parts = ([f"it has no field {unknown}"] if unknown else []) + (
                [f"mandatory {missing} not given"] if missing else []
            )
            raise SchemaError(f"{where}: {'; '.join(parts)} (fields: {sorted(fields)})")
        data = pb.TableData()
        if action is not None:
            if self.actions[action].scope == "DefaultOnly":
                raise SchemaError(f"{where}: the action is for the default entry only")
            data.action_id = self.actions[action].id
        for f in sorted((fields[n] for n in values), key=lambda f: f.id):
            _put(data.fields.add(field_id=f.id), f, values[f.name], f"{where} field {f.name!r}")
        return data

    def decode_data(self, data: pb.TableData) -> tuple[str | None, dict[str, Any]]:
        """(action name or None, fields by name); a field sent once per pipe (a register's
        value read from the hardware) becomes a list in pipe order."""
        action: str | None = None
        fields = self.data
        if data.action_id:
            by_action = {a.id: a for a in self.actions.values()}
            a = by_action.get(data.action_id)
            if a is None:
                raise SchemaError(f"table {self.name!r} has no action id {data.action_id}")
            action, fields = a.name, a.data
        by_id = {f.id: f for f in fields.values()}
        out: dict[str, Any] = {}
        repeats: dict[str, list[Any]] = {}
        for df in data.fields:
            f = self._known(by_id, df.field_id, "data field")
            value = _get(df, f, f"table {self.name!r} field {f.name!r}")
            repeats.setdefault(f.name, []).append(value)
        for name, seen in repeats.items():
            out[name] = seen[0] if len(seen) == 1 else seen
        return action, out

    def _known(self, by_id: Mapping[int, Field], field_id: int, what: str) -> Field:
        try:
            return by_id[field_id]
        except KeyError:
            raise SchemaError(f"table {self.name!r} has no {what} id {field_id}") from None


class Schema:
    """The tables of one or more BF Runtime info documents, by name and by id."""

    def __init__(self, documents: Iterable[Mapping[str, Any]], program: str = "") -> None:
        self.program = program
        self.tables: dict[str, Table] = {}
        for doc in documents:
            for t in doc.get("tables", ()):
                table = _table(t)
                self.tables[table.name] = table
        self._by_id = {t.id: t for t in self.tables.values()}

    @classmethod
    def from_json(cls, *texts: bytes | str, program: str = "") -> Schema:
        docs = []
        for i, text in enumerate(texts):
            try:
                docs.append(json.loads(text))
            except ValueError as exc:
                raise SchemaError(f"BF Runtime info #{i + 1} is not JSON: {exc}") from None
        return cls(docs, program)

    def table(self, name: str) -> Table:
        try:
            return self.tables[name]
        except KeyError:
            near = sorted(n for n in self.tables if n.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1])
            hint = f" (did you mean {near}?)" if near else ""
            raise SchemaError(f"the BF Runtime info has no table {name!r}{hint}") from None

    def by_id(self, table_id: int) -> Table:
        try:
            return self._by_id[table_id]
        except KeyError:
            raise SchemaError(f"the BF Runtime info has no table id {table_id}") from None

    def entry(
        self,
        table: str,
        key: Mapping[str, Value] | None,
        data: Mapping[str, Value] | None = None,
        action: str | None = None,
    ) -> pb.Entity:
        """A checked table entry: `key` None reads or addresses the whole table."""
        t = self.table(table)
        entity = pb.Entity()
        entry = entity.table_entry
        entry.table_id = t.id
        if key is not None:
            entry.key.CopyFrom(t.make_key(key))
        if data is not None or action is not None:
            entry.data.CopyFrom(t.make_data(data or {}, action))
        return entity


# -- parsing -----------------------------------------------------------------------------


def _field(d: Mapping[str, Any], mandatory: bool, match_type: str = "") -> Field:
    t = d.get("type", {})
    kind = t.get("type", "")
    if kind == "bytes":
        width = int(t["width"])
    else:
        width = _UINT_WIDTHS.get(kind, 0)
    return Field(
        id=int(d["id"]),
        name=d["name"],
        type=kind,
        width=width,
        mandatory=mandatory,
        repeated=bool(d.get("repeated", False)),
        match_type=match_type,
        choices=tuple(t.get("choices", ())),
    )


def _table(t: Mapping[str, Any]) -> Table:
    key = {k["name"]: _field(k, True, k.get("match_type", "Exact")) for k in t.get("key", ())}
    actions = {
        a["name"]: Action(
            int(a["id"]),
            a["name"],
            a.get("action_scope", "TableAndDefault"),
            {d["name"]: _field(d, bool(d.get("mandatory", False))) for d in a.get("data", ())},
        )
        for a in t.get("action_specs", ())
    }
    data: dict[str, Field] = {}
    for d in t.get("data", ()):
        inner = d.get("singleton")
        if inner is None:  # a oneof of fields: none of the tables the controller writes
            continue
        data[inner["name"]] = _field(inner, bool(d.get("mandatory", False)))
    return Table(int(t["id"]), t["name"], t.get("table_type", ""), int(t.get("size", 0)), key, actions, data)


# -- values ------------------------------------------------------------------------------


def _put(df: pb.DataField, f: Field, value: Value, what: str) -> None:
    if f.repeated:
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise SchemaError(f"{what}: a repeated field takes a list, not {value!r}")
        if f.type == "bool":
            if not all(isinstance(v, bool) for v in value):
                raise SchemaError(f"{what}: {list(value)!r} is not a list of booleans")
            df.bool_arr_val.val.extend(value)
        else:
            for v in value:
                f.encode_int(v, what)  # range check; the array carries plain integers
            df.int_arr_val.val.extend(int(v) for v in value)
    elif f.type == "bool":
        if not isinstance(value, bool):
            raise SchemaError(f"{what}: {value!r} is not a boolean")
        df.bool_val = value
    elif f.type == "string":
        if not isinstance(value, str) or (f.choices and value not in f.choices):
            raise SchemaError(f"{what}: {value!r} is not one of {list(f.choices)}")
        df.str_val = value
    elif f.type == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SchemaError(f"{what}: {value!r} is not a number")
        df.float_val = float(value)
    elif f.width:
        df.stream = f.encode_int(value, what)
    else:
        raise SchemaError(f"{what}: the controller cannot write a field of type {f.type!r}")


def _get(df: pb.DataField, f: Field, what: str) -> Any:
    member = df.WhichOneof("value")
    if member == "stream":
        return f.decode_int(df.stream, what)
    if member == "int_arr_val":
        return list(df.int_arr_val.val)
    if member == "bool_arr_val":
        return list(df.bool_arr_val.val)
    if member == "str_arr_val":
        return list(df.str_arr_val.val)
    if member in ("bool_val", "str_val", "float_val"):
        return getattr(df, member)
    raise SchemaError(f"{what}: no value")


def _same_names(what: str, given: Mapping[str, object], expected: Mapping[str, object]) -> None:
    unset, unknown = sorted(set(expected) - set(given)), sorted(set(given) - set(expected))
    if unset or unknown:
        parts = ([f"it has no {unknown}"] if unknown else []) + ([f"{unset} not given"] if unset else [])
        raise SchemaError(f"{what}: {'; '.join(parts)} (it has {sorted(expected)})")
