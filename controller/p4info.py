"""Name -> id resolution over a P4Info, with errors that say what exists."""
from __future__ import annotations

import pathlib
from dataclasses import dataclass

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2


class P4InfoError(ValueError):
    """The P4Info does not have what the controller needs."""


@dataclass(frozen=True)
class TableInfo:
    id: int
    match: dict[str, tuple[int, int]]  # match field name -> (id, bitwidth)
    actions: frozenset[int]


@dataclass(frozen=True)
class ActionInfo:
    id: int
    params: dict[str, tuple[int, int]]  # param name -> (id, bitwidth)


class P4Info:
    def __init__(self, info: p4info_pb2.P4Info) -> None:
        self.proto = info
        self._tables = {t.preamble.name: TableInfo(
            t.preamble.id, {m.name: (m.id, m.bitwidth) for m in t.match_fields},
            frozenset(a.id for a in t.action_refs)) for t in info.tables}
        self._actions = {a.preamble.name: ActionInfo(
            a.preamble.id, {p.name: (p.id, p.bitwidth) for p in a.params}) for a in info.actions}
        self._counters = {c.preamble.name: c for c in info.counters}

    @classmethod
    def load(cls, path: str | pathlib.Path) -> P4Info:
        info = p4info_pb2.P4Info()
        try:
            text_format.Parse(pathlib.Path(path).read_text(), info)
        except OSError as exc:
            raise P4InfoError(f"cannot read P4Info {path}: {exc}") from None
        except text_format.ParseError as exc:
            raise P4InfoError(f"{path} is not a P4Info text protobuf: {exc}") from None
        return cls(info)

    def table(self, name: str) -> TableInfo:
        return _lookup("table", name, self._tables)

    def action(self, name: str) -> ActionInfo:
        return _lookup("action", name, self._actions)

    def counter_id(self, name: str) -> int:
        return _lookup("counter", name, self._counters).preamble.id

    def counter_size(self, name: str) -> int:
        return _lookup("counter", name, self._counters).size

    def match_field(self, table: str, field: str) -> tuple[int, int]:
        return _lookup(f"match field of {table}", field, self.table(table).match)

    def param(self, action: str, param: str) -> tuple[int, int]:
        return _lookup(f"parameter of {action}", param, self.action(action).params)


def _lookup(kind: str, name: str, items: dict):
    try:
        return items[name]
    except KeyError:
        raise P4InfoError(f"{kind} {name!r} not in P4Info (have: {', '.join(sorted(items))})") from None


def encode_value(value: int, bitwidth: int) -> bytes:
    """P4Runtime canonical bytestring: big-endian, no leading zero bytes (0 -> b'\\x00')."""
    if value < 0 or value >= 1 << bitwidth:
        raise ValueError(f"{value} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def mac_to_int(mac: str) -> int:
    return int(mac.replace(":", ""), 16)


def ip_to_int(ip: str) -> int:
    a, b, c, d = (int(x) for x in ip.split("."))
    return a << 24 | b << 16 | c << 8 | d
