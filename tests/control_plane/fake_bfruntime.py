# SPDX-License-Identifier: Apache-2.0
"""An in-process BF Runtime (Tofino) gRPC server that checks what a controller sends.

It serves the part of bf_switchd's BF Runtime service that p4reduce's controller speaks
(controller/bfrt/bfruntime.proto) against two BF Runtime info files, the TNA program's
bfrt.json and the SDE's fixed tables ($pre.mgid, $pre.node, $PORT), and refuses what the
real server refuses: a client must subscribe on StreamChannel, then BIND to the program,
before it may Write or Read; every key and data field is checked against its table (ids,
match kind, width of the big-endian stream, mandatory fields, action scope, register and
counter index ranges, the PRE's node/group references, $PORT's string choices).

A refused request is aborted with a gRPC status code and a one-line message that names
the culprit, "update 3: table pipe.Ingress.admission.workers: key field hdr.udp.src_port:
value 70000 does not fit 16 bits". A Write is all or nothing whatever its atomicity:
updates apply in order (a later one may use what an earlier one made, as on the switch),
and a refused update undoes the ones before it. (The real server's CONTINUE_ON_ERROR would
keep them and try the rest: a test of a batch that half fails sees none of it here.)

Tests import the `fake_bfrt` fixture (a started FakeBfRuntime, .addr "127.0.0.1:PORT"),
look at the state (entries, registers, counters; table_entries, register, groups, nodes,
ports) and the requests (writes, reads, pipelines), simulate traffic (set_register,
set_counter) and inject a refusal of one update (refuse).

Not modelled (refused as UNIMPLEMENTED): default entries of tables whose default is not
const, entry handles, the PortMetadata and TblDbgCnt tables, ECMP members of a group.
Counters hold one packet count per cell (not one per pipe).
"""

from __future__ import annotations

import contextlib
import functools
import json
import pathlib
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
import pytest

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt import bfruntime_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAM_JSON = ROOT / "p4src" / "tna" / "build" / "bfrt.json"
FIXED_JSON = ROOT / "controller" / "bfrt" / "fixed_tofino.json"
PROGRAM = "p4reduce_tna"
ALL_PIPES = 0xFFFF
DEV_PORTS = 512  # a Tofino's device ports are 9-bit numbers
READ_CHUNK = 4096  # entities per ReadResponse: a whole register comes back in several answers

MGID, NODE, PORT = "$pre.mgid", "$pre.node", "$PORT"
Code = grpc.StatusCode
Update = pb.Update

KeyValue = (
    int | str | tuple[int, int]
)  # Exact (a string: a port name); (value, mask) Ternary, (value, prefix) LPM, (low, high) Range, ...
Key = tuple[tuple[str, KeyValue], ...]  # (field name, value) in the table's key order
DataValue = int | bool | str | float | list[int] | list[bool] | list[str]
Data = dict[str, DataValue]
Row = tuple[str | None, Data]  # (action name, or None in a table without actions; data by field name)
# Refusal of one update: (status code, message), or None to let the fake judge it.
Refusal = Callable[[pb.Update], "tuple[grpc.StatusCode, str] | None"]


class Refused(Exception):
    """What the real server would refuse: a gRPC status code and a one-line reason."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def within(self, context: str) -> Refused:
        return Refused(self.code, f"{context}: {self.message}")


# -- BF Runtime info -------------------------------------------------------------------------

_INT_WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "int32": 32}
# The DataField member that carries each (kind, repeated) field.
_ONEOF = {
    ("int", False): "stream",
    ("int", True): "int_arr_val",
    ("bool", False): "bool_val",
    ("bool", True): "bool_arr_val",
    ("string", False): "str_val",
    ("string", True): "str_arr_val",
    ("float", False): "float_val",
}
_MATCH_KINDS = {"exact": "Exact", "ternary": "Ternary", "lpm": "LPM", "range": "Range", "optional": "Optional"}


@dataclass(frozen=True)
class Field:
    """A key or data field of BF Runtime info, with what its wire encoding needs."""

    id: int
    name: str
    kind: str  # "int" (a big-endian stream, int_arr_val when repeated), "bool", "string", "float"
    width: int = 0  # bits of an "int" field
    repeated: bool = False
    mandatory: bool = False
    read_only: bool = False
    match_type: str = ""  # key fields: Exact, Ternary, LPM, Range, Optional
    choices: tuple[str, ...] = ()
    default: object = None

    @property
    def size(self) -> int:
        """Bytes of its stream: the width rounded up."""
        return (self.width + 7) // 8


@dataclass(frozen=True)
class Action:
    id: int
    name: str
    scope: str  # TableAndDefault, TableOnly, DefaultOnly
    fields: dict[int, Field]


@dataclass(frozen=True)
class Table:
    id: int
    name: str
    type: str  # MatchAction_Direct, Register, Counter, PreMgid, PreNode, PortConfigure, ...
    size: int
    keys: tuple[Field, ...]
    actions: dict[int, Action]
    data: dict[int, Field]  # a table's own data fields (registers, counters, fixed tables)
    const_entries: bool  # the program's const entries are all it may hold
    const_default: bool

    def action_named(self, name: str) -> Action:
        return next(a for a in self.actions.values() if a.name == name)


def _field(spec: dict, *, mandatory: bool, read_only: bool = False, match_type: str = "") -> Field:
    type_ = spec["type"]
    if type_["type"] == "bytes":
        kind, width = "int", type_["width"]
    elif type_["type"] in _INT_WIDTHS:
        kind, width = "int", _INT_WIDTHS[type_["type"]]
    else:
        kind, width = type_["type"], 0
    return Field(
        id=spec["id"],
        name=spec["name"],
        kind=kind,
        width=width,
        repeated=spec.get("repeated", False),
        mandatory=mandatory,
        read_only=read_only,
        match_type=match_type,
        choices=tuple(type_.get("choices", ())),
        default=type_.get("default_value"),
    )


def _table(spec: dict) -> Table:
    actions = {
        a["id"]: Action(
            a["id"], a["name"], a["action_scope"], {d["id"]: _field(d, mandatory=d["mandatory"]) for d in a["data"]}
        )
        for a in spec.get("action_specs", [])
    }
    data = {
        d["singleton"]["id"]: _field(d["singleton"], mandatory=d["mandatory"], read_only=d["read_only"])
        for d in spec.get("data", [])
    }
    return Table(
        id=spec["id"],
        name=spec["name"],
        type=spec["table_type"],
        size=spec.get("size", 0),
        keys=tuple(_field(k, mandatory=k["mandatory"], match_type=k["match_type"]) for k in spec["key"]),
        actions=actions,
        data=data,
        const_entries="ConstTable" in spec.get("attributes", []),
        const_default=spec.get("has_const_default_action", False),
    )


@functools.cache
def load_tables(path: pathlib.Path) -> tuple[Table, ...]:
    """The tables of one BF Runtime info file (parsed once per path)."""
    return tuple(_table(spec) for spec in json.loads(path.read_bytes())["tables"])


def _default(field: Field) -> DataValue:
    """A field's default_value as the type it is read back as (the JSON spells some as strings)."""
    if field.kind == "int":
        return int(field.default)
    return {"bool": bool, "string": str, "float": float}[field.kind](field.default)


# -- the wire encoding -------------------------------------------------------------------------


def _fits(field: Field, value: int, what: str) -> int:
    if value < 0 or value >> field.width:
        raise Refused(Code.INVALID_ARGUMENT, f"{what} {field.name}: value {value} does not fit {field.width} bits")
    return value


def _uint(field: Field, raw: bytes, what: str) -> int:
    """An integer from its big-endian stream, which must be exactly the field's width in bytes."""
    if len(raw) != field.size:
        raise Refused(
            Code.INVALID_ARGUMENT,
            f"{what} {field.name}: {len(raw)} bytes given, its width {field.width} takes {field.size}",
        )
    return _fits(field, int.from_bytes(raw, "big"), what)


def _stream(field: Field, value: int) -> bytes:
    return value.to_bytes(field.size, "big")


def _key_value(field: Field, kf: pb.KeyField) -> KeyValue:
    given = kf.WhichOneof("match_type")
    if _MATCH_KINDS.get(given or "") != field.match_type:
        raise Refused(
            Code.INVALID_ARGUMENT, f"key field {field.name} is {field.match_type}: given {given or 'no match'}"
        )
    if field.kind == "string" and given == "exact":  # $PORT_STR_INFO's name: the text as bytes
        return kf.exact.value.decode(errors="replace")
    if field.kind != "int":
        raise Refused(Code.UNIMPLEMENTED, f"key field {field.name}: {field.kind} keys are not modelled by the fake")
    what = "key field"
    if given == "exact":
        return _uint(field, kf.exact.value, what)
    if given == "ternary":
        return _uint(field, kf.ternary.value, what), _uint(field, kf.ternary.mask, what)
    if given == "lpm":
        if not 0 <= kf.lpm.prefix_len <= field.width:
            raise Refused(Code.INVALID_ARGUMENT, f"{what} {field.name}: prefix length {kf.lpm.prefix_len} out of range")
        return _uint(field, kf.lpm.value, what), kf.lpm.prefix_len
    if given == "range":
        low, high = _uint(field, kf.range.low, what), _uint(field, kf.range.high, what)
        if low > high:
            raise Refused(Code.INVALID_ARGUMENT, f"{what} {field.name}: range {low}..{high} is empty")
        return low, high
    return _uint(field, kf.optional.value, what), int(kf.optional.is_valid)


def _key_field(field: Field, value: KeyValue) -> pb.KeyField:
    kf = pb.KeyField(field_id=field.id)
    if isinstance(value, str):
        kf.exact.value = value.encode()
        return kf
    if isinstance(value, int):
        kf.exact.value = _stream(field, value)
    elif field.match_type == "Ternary":
        kf.ternary.value, kf.ternary.mask = (_stream(field, v) for v in value)
    elif field.match_type == "LPM":
        kf.lpm.value, kf.lpm.prefix_len = _stream(field, value[0]), value[1]
    elif field.match_type == "Range":
        kf.range.low, kf.range.high = (_stream(field, v) for v in value)
    else:
        kf.optional.value, kf.optional.is_valid = _stream(field, value[0]), bool(value[1])
    return kf


def _data_value(field: Field, df: pb.DataField) -> DataValue:
    want = _ONEOF.get((field.kind, field.repeated))
    given = df.WhichOneof("value")
    if want is None:
        raise Refused(Code.UNIMPLEMENTED, f"data field {field.name}: its type is not modelled by the fake")
    if given != want:
        raise Refused(Code.INVALID_ARGUMENT, f"data field {field.name} takes {want}: given {given or 'nothing'}")
    if field.read_only:
        raise Refused(Code.INVALID_ARGUMENT, f"data field {field.name} is read-only")
    what = "data field"
    if want == "stream":
        return _uint(field, df.stream, what)
    if want == "int_arr_val":
        return [_fits(field, v, what) for v in df.int_arr_val.val]
    if want in ("str_val", "str_arr_val"):
        strings = [df.str_val] if want == "str_val" else list(df.str_arr_val.val)
        for s in strings:
            if field.choices and s not in field.choices:
                raise Refused(
                    Code.INVALID_ARGUMENT, f"{what} {field.name}: {s!r} is none of {', '.join(field.choices)}"
                )
        return strings[0] if want == "str_val" else strings
    if want == "bool_arr_val":
        return list(df.bool_arr_val.val)
    return getattr(df, want)  # bool_val, float_val


def _data_field(field: Field, value: DataValue) -> pb.DataField:
    df = pb.DataField(field_id=field.id)
    member = _ONEOF[field.kind, field.repeated]
    if member == "stream":
        df.stream = _stream(field, value)
    elif member.endswith("_arr_val"):
        getattr(df, member).val.extend(value)
    else:
        setattr(df, member, value)
    return df


def _key(table: Table, entry: pb.TableEntry) -> Key:
    """An entry's key, every field of the table's key given once, in the table's key order."""
    if not entry.HasField("key"):
        raise Refused(Code.UNIMPLEMENTED, "an entry without a key (by handle) is not modelled by the fake")
    by_id = {f.id: f for f in table.keys}
    values: dict[int, KeyValue] = {}
    for kf in entry.key.fields:
        field = by_id.get(kf.field_id)
        if field is None:
            raise Refused(Code.INVALID_ARGUMENT, f"no key field id {kf.field_id}")
        if field.id in values:
            raise Refused(Code.INVALID_ARGUMENT, f"key field {field.name} given twice")
        values[field.id] = _key_value(field, kf)
    for field in table.keys:
        if field.id not in values:
            raise Refused(Code.INVALID_ARGUMENT, f"key field {field.name} missing")
    return tuple((f.name, values[f.id]) for f in table.keys)


def _index(table: Table, entry: pb.TableEntry) -> int:
    """The cell a register or counter entry names: its one key field, below the table's size."""
    ((name, index),) = _key(table, entry)
    assert isinstance(index, int)
    if index >= table.size:
        raise Refused(
            Code.INVALID_ARGUMENT, f"key field {name}: index {index} is outside its range (size {table.size})"
        )
    return index


def _data(fields: dict[int, Field], given: Iterable[pb.DataField]) -> Data:
    values: Data = {}
    for df in given:
        field = fields.get(df.field_id)
        if field is None:
            raise Refused(Code.INVALID_ARGUMENT, f"no data field id {df.field_id}")
        if field.name in values:
            raise Refused(Code.INVALID_ARGUMENT, f"data field {field.name} given twice")
        values[field.name] = _data_value(field, df)
    return values


def _require(names: Iterable[str], values: Data, why: str = "") -> None:
    for name in names:
        if name not in values:
            raise Refused(Code.INVALID_ARGUMENT, f"data field {name} missing{why}")


def _table_data(table: Table, data: pb.TableData) -> Data:
    """The data of an entry of a table without actions (register, counter, fixed table)."""
    if data.action_id:
        raise Refused(Code.INVALID_ARGUMENT, f"no action id {data.action_id} (a {table.type} table has no actions)")
    return _data(table.data, data.fields)


def _action_data(table: Table, data: pb.TableData) -> Row:
    """The action and data of a match table's (non-default) entry."""
    action = table.actions.get(data.action_id)
    if action is None:
        raise Refused(Code.INVALID_ARGUMENT, f"no action id {data.action_id}")
    try:
        if action.scope == "DefaultOnly":
            raise Refused(Code.INVALID_ARGUMENT, "DefaultOnly: not for an entry of the table")
        values = _data(action.fields, data.fields)
        _require((f.name for f in action.fields.values() if f.mandatory), values)
    except Refused as e:
        raise e.within(f"action {action.name}") from None
    return action.name, values


def _show(key: Key) -> str:
    return ", ".join(f"{name}={value}" for name, value in key)


class _Journal:
    """The undo log of one Write: what each dict slot it changed held before."""

    _MISSING = object()

    def __init__(self) -> None:
        self._undo: list[tuple[dict, Hashable, object]] = []

    def set(self, where: dict, key: Hashable, value: object) -> None:
        self._undo.append((where, key, where.get(key, self._MISSING)))
        where[key] = value

    def pop(self, where: dict, key: Hashable) -> None:
        self._undo.append((where, key, where[key]))
        del where[key]

    def rollback(self) -> None:
        for where, key, old in reversed(self._undo):
            if old is self._MISSING:
                where.pop(key, None)
            else:
                where[key] = old
        self._undo.clear()


# -- the server ------------------------------------------------------------------------------

_ENTRY_KINDS = (Update.INSERT, Update.MODIFY, Update.DELETE, Update.INSERT_OR_MODIFY)
# $PORT's MODIFY changes the fields given, and an INSERT must say how to bring the port up;
# the PRE's MODIFY replaces the entry.
_MERGE_ON_MODIFY = {PORT}
_REQUIRED_ON_INSERT = {PORT: ("$SPEED", "$FEC")}
_GROUP_LISTS = (
    ("$MULTICAST_NODE_ID", "$MULTICAST_NODE_L1_XID_VALID", "$MULTICAST_NODE_L1_XID"),
    ("$MULTICAST_ECMP_ID", "$MULTICAST_ECMP_L1_XID_VALID", "$MULTICAST_ECMP_L1_XID"),
)


class FakeBfRuntime(bfruntime_pb2_grpc.BfRuntimeServicer):
    """bf_switchd's BF Runtime service for one device running one program, state in plain dicts."""

    def __init__(
        self,
        program_json: pathlib.Path = PROGRAM_JSON,
        fixed_json: pathlib.Path = FIXED_JSON,
        *,
        p4_name: str = PROGRAM,
        device_id: int = 0,
        pipes: int = 4,  # a 64-port Tofino
        valid_ports: set[int] | None = None,  # dev ports that exist; None: every one below 512
        port_names: dict[str, int] | None = None,  # $PORT_STR_INFO; None: "N/L" is dev port 4 * (N - 1) + L
    ) -> None:
        self.p4_name = p4_name
        self.device_id = device_id
        self.pipes = pipes
        self.valid_ports = valid_ports
        self.program_info = program_json.read_bytes()
        self.fixed_info = fixed_json.read_bytes()
        self.tables: dict[int, Table] = {t.id: t for t in load_tables(program_json) + load_tables(fixed_json)}
        self._by_name = {t.name: t for t in self.tables.values()}

        self.writes: list[pb.WriteRequest] = []
        self.reads: list[pb.ReadRequest] = []
        self.pipelines: list[pb.SetForwardingPipelineConfigRequest] = []
        self.refuse: Refusal = lambda update: None
        self.subscribed: set[int] = set()  # client ids with a live StreamChannel
        self.bound: dict[str, int] = {}  # program -> client id bound to it
        # State. Registers and counters are sparse: a cell never written reads as zero.
        self.entries: dict[str, dict[Key, Row]] = {}
        self.registers: dict[str, dict[int, list[dict[str, int]]]] = {}  # cell -> one {field: value} per pipe
        self.counters: dict[str, dict[int, int]] = {}  # cell -> packets
        for t in self.tables.values():
            store = {"Register": self.registers, "Counter": self.counters}.get(t.type, self.entries)
            store[t.name] = {}
        # A board's front-panel names: this fake's own numbering (a real board has its own).
        self.port_names = port_names or {f"{n}/{lane}": 4 * (n - 1) + lane for n in range(1, 33) for lane in range(4)}

        self.addr = ""
        self._server: grpc.Server | None = None
        self._lock = threading.Condition()  # the state, and subscriptions (notified on change)

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> str:
        """Serve on 127.0.0.1 at a port the OS picks; returns (and sets) addr."""
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        bfruntime_pb2_grpc.add_BfRuntimeServicer_to_server(self, server)
        self.addr = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        server.start()
        self._server = server
        return self.addr

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(0)
            self._server = None

    # -- what tests read and set -------------------------------------------------------------
    def table(self, name: str) -> Table:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no table named {name!r}") from None

    def table_entries(self, name: str) -> dict[Key, Row]:
        with self._lock:
            return {key: (action, dict(data)) for key, (action, data) in self.entries[self.table(name).name].items()}

    def _cell(self, name: str, index: int) -> Table:
        """The register or counter a test names, checked to have cell `index`."""
        table = self.table(name)
        if not 0 <= index < table.size:
            raise IndexError(f"{name} has {table.size} cells: no {index}")
        return table

    def register(self, name: str, index: int) -> list[dict[str, int]]:
        """One {field: value} per pipe."""
        table = self._cell(name, index)
        with self._lock:
            return self._cells(table, index)

    def set_register(self, name: str, index: int, values: dict[str, int], pipe: int | None = None) -> None:
        """Set a cell's fields on one pipe, or on every pipe (None), as traffic would."""
        table = self._cell(name, index)
        unknown = set(values) - {f.name for f in table.data.values()}
        if unknown:
            raise KeyError(f"register {name} has no field {sorted(unknown)[0]}")
        with self._lock:
            cells = self._cells(table, index)
            for p in range(self.pipes) if pipe is None else [pipe]:
                cells[p].update(values)
            self.registers[name][index] = cells

    def counter(self, name: str, index: int) -> int:
        self._cell(name, index)
        with self._lock:
            return self.counters[name].get(index, 0)

    def set_counter(self, name: str, index: int, packets: int) -> None:
        self._cell(name, index)
        with self._lock:
            self.counters[name][index] = packets

    def groups(self) -> dict[int, list[int]]:
        """Multicast groups: mgid -> node ids."""
        return {
            key[0][1]: list(data.get("$MULTICAST_NODE_ID", [])) for key, (_, data) in self.table_entries(MGID).items()
        }

    def nodes(self) -> dict[int, tuple[int, list[int]]]:
        """PRE nodes: node id -> (rid, dev ports)."""
        return {
            key[0][1]: (data["$MULTICAST_RID"], data["$DEV_PORT"])
            for key, (_, data) in self.table_entries(NODE).items()
        }

    def ports(self) -> dict[int, Data]:
        """Added ports: dev port -> {field: value} (given fields and the defaults of the others)."""
        return {key[0][1]: data for key, (_, data) in self.table_entries(PORT).items()}

    def wait_unsubscribed(self, client_id: int, timeout: float = 5.0) -> bool:
        """Wait until the server has seen the client's StreamChannel end (the stream's end is asynchronous)."""
        with self._lock:
            return self._lock.wait_for(lambda: client_id not in self.subscribed, timeout)

    # -- StreamChannel -------------------------------------------------------------------------
    def StreamChannel(self, request_iterator, context):
        client_id: int | None = None  # the client this stream subscribed
        try:
            for request in request_iterator:
                if not request.HasField("subscribe"):
                    continue
                answer = pb.StreamMessageResponse()
                answer.subscribe.CopyFrom(request.subscribe)
                try:
                    self._subscribe(request.client_id, request.subscribe.device_id, client_id)
                except Refused as e:
                    answer.subscribe.status.code, answer.subscribe.status.message = e.code.value[0], e.message
                    yield answer
                    return  # the refused client's stream ends here
                client_id = request.client_id
                answer.subscribe.status.code = Code.OK.value[0]
                yield answer
        finally:
            if client_id is not None:
                self._unsubscribe(client_id)

    def _subscribe(self, client_id: int, device_id: int, own: int | None) -> None:
        """Subscribe a client on the stream that has subscribed `own` (None: none yet)."""
        with self._lock:
            self._check_device(device_id)
            if client_id in self.subscribed and client_id != own:
                raise Refused(Code.ALREADY_EXISTS, f"client {client_id} is already subscribed")
            self.subscribed.add(client_id)
            self._lock.notify_all()

    def _unsubscribe(self, client_id: int) -> None:
        # As on the switch, a client's programs are free for another once its stream is gone.
        with self._lock:
            self.subscribed.discard(client_id)
            self.bound = {name: owner for name, owner in self.bound.items() if owner != client_id}
            self._lock.notify_all()

    # -- pipeline ---------------------------------------------------------------------------
    def SetForwardingPipelineConfig(self, request, context):
        self.pipelines.append(request)
        try:
            if request.action != pb.SetForwardingPipelineConfigRequest.BIND:
                name = pb.SetForwardingPipelineConfigRequest.Action.Name(request.action)
                raise Refused(Code.UNIMPLEMENTED, f"action {name} is not modelled by the fake (BIND only)")
            with self._lock:
                self._check_device(request.device_id)
                self._check_subscribed(request.client_id)
                if not request.config:
                    raise Refused(Code.INVALID_ARGUMENT, "BIND names no program (config is empty)")
                for config in request.config:
                    self._bind(request.client_id, config.p4_name)
        except Refused as e:
            _abort(context, e)
        return pb.SetForwardingPipelineConfigResponse()

    def _bind(self, client_id: int, p4_name: str) -> None:
        if p4_name != self.p4_name:
            raise Refused(Code.INVALID_ARGUMENT, f"no program {p4_name!r} on device {self.device_id}")
        owner = self.bound.get(p4_name, client_id)
        if owner != client_id:
            raise Refused(Code.ALREADY_EXISTS, f"program {p4_name} is bound to client {owner}")
        self.bound[p4_name] = client_id

    def GetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
        except Refused as e:
            _abort(context, e)
        answer = pb.GetForwardingPipelineConfigResponse()
        answer.config.add(p4_name=self.p4_name, bfruntime_info=self.program_info)
        answer.non_p4_config.bfruntime_info = self.fixed_info
        return answer

    def _check_device(self, device_id: int) -> None:
        if device_id != self.device_id:
            raise Refused(Code.NOT_FOUND, f"no device {device_id} (this switch is device {self.device_id})")

    def _check_subscribed(self, client_id: int) -> None:
        if client_id not in self.subscribed:
            raise Refused(Code.FAILED_PRECONDITION, f"client {client_id} has not subscribed (StreamChannel)")

    def _check_bound(self, client_id: int, p4_name: str) -> None:
        self._check_subscribed(client_id)
        if self.bound.get(p4_name) != client_id:
            raise Refused(Code.FAILED_PRECONDITION, f"client {client_id} is not bound to program {p4_name!r}")

    def _pipes(self, target: pb.TargetDevice) -> list[int]:
        if target.pipe_id == ALL_PIPES:
            return list(range(self.pipes))
        if target.pipe_id >= self.pipes:
            raise Refused(Code.INVALID_ARGUMENT, f"no pipe {target.pipe_id} (the switch has {self.pipes})")
        return [target.pipe_id]

    def _dispatch(
        self, handlers: dict[str, Callable], entity: pb.Entity, target: pb.TargetDevice, *args: object
    ) -> Any:
        """Run the handler for the entity's table type on (table, pipes, *args); its refusals name the table."""
        if not entity.HasField("table_entry"):
            raise Refused(Code.INVALID_ARGUMENT, "entity is not a table_entry")
        entry = entity.table_entry
        table = self.tables.get(entry.table_id)
        if table is None:
            raise Refused(Code.NOT_FOUND, f"unknown table id {entry.table_id}")
        try:
            handler = handlers.get(table.type)
            if handler is None:
                raise Refused(Code.UNIMPLEMENTED, f"{table.type} tables are not modelled by the fake")
            pipes = self._pipes(entry.entry_tgt if entry.HasField("entry_tgt") else target)
            return handler(self, table, pipes, *args)
        except Refused as e:
            raise e.within(f"table {table.name}") from None

    # -- Write ----------------------------------------------------------------------------------
    def Write(self, request, context):
        self.writes.append(request)
        try:
            with self._lock:
                self._check_device(request.target.device_id)
                self._check_bound(request.client_id, request.p4_name)
                self._apply_all(request)
        except Refused as e:
            _abort(context, e)
        return pb.WriteResponse()

    def _apply_all(self, request: pb.WriteRequest) -> None:
        journal = _Journal()
        for i, update in enumerate(request.updates):
            try:
                injected = self.refuse(update)
                if injected:
                    raise Refused(*injected)
                self._apply(update, request.target, journal)
            except Refused as e:
                journal.rollback()
                raise e.within(f"update {i}") from None

    def _apply(self, update: pb.Update, target: pb.TargetDevice, journal: _Journal) -> None:
        if update.type not in _ENTRY_KINDS:
            raise Refused(Code.UNIMPLEMENTED, f"{Update.Type.Name(update.type)} is not modelled by the fake")
        entry = update.entity.table_entry
        if update.type == Update.DELETE and not entry.HasField("key") and not entry.is_default_entry:
            self._dispatch(self._CLEARERS, update.entity, target, journal)  # the server's tableClear
            return
        self._dispatch(self._WRITERS, update.entity, target, update, journal)

    def _clear_rows(self, table: Table, pipes: list[int], journal: _Journal) -> None:
        """A DELETE without a key: every entry of the table (a group still listing a node
        keeps that node: the PRE refuses, as it does one by one)."""
        if table.const_entries:
            raise Refused(Code.PERMISSION_DENIED, "its entries are const in the program")
        rows = self.entries[table.name]
        for key in list(rows):
            if table.type == "PreNode":
                self._check_node(key, None)
            journal.pop(rows, key)

    def _clear_cells(self, table: Table, pipes: list[int], journal: _Journal) -> None:
        """A DELETE without a key on a register or counter: every cell back to zero."""
        store = self.registers if table.type == "Register" else self.counters
        for index in list(store[table.name]):
            journal.pop(store[table.name], index)

    def _write_match(self, table: Table, pipes: list[int], update: pb.Update, journal: _Journal) -> None:
        entry = update.entity.table_entry
        if entry.is_default_entry:
            raise _default_entry_refusal(table)
        key = _key(table, entry)
        row = None if update.type == Update.DELETE else _action_data(table, entry.data)
        if table.const_entries:  # after parsing, as the switch parses before it tries to add
            raise Refused(Code.PERMISSION_DENIED, "its entries are const in the program")
        self._put(table, key, row, update.type, journal)

    def _write_fixed(self, table: Table, pipes: list[int], update: pb.Update, journal: _Journal) -> None:
        entry = update.entity.table_entry
        if entry.is_default_entry:
            raise _default_entry_refusal(table)
        key = _key(table, entry)
        row = None if update.type == Update.DELETE else (None, self._fixed_data(table, key, update))
        self._FIXED_CHECKS[table.type](self, key, row)
        self._put(table, key, row, update.type, journal)

    def _fixed_data(self, table: Table, key: Key, update: pb.Update) -> Data:
        """What an INSERT or MODIFY of a fixed table's entry leaves it holding."""
        values = _table_data(table, update.entity.table_entry.data)
        old = self.entries[table.name].get(key)
        inserting = update.type == Update.INSERT or (update.type == Update.INSERT_OR_MODIFY and old is None)
        if table.name in _MERGE_ON_MODIFY and old is not None and not inserting:
            values = {**old[1], **values}
        required = [f.name for f in table.data.values() if f.mandatory]
        _require([*required, *(_REQUIRED_ON_INSERT.get(table.name, ()) if inserting else ())], values)
        if inserting:  # the fields not given take their defaults
            values = {f.name: _default(f) for f in table.data.values() if f.default is not None} | values
        return values

    def _put(self, table: Table, key: Key, row: Row | None, kind: int, journal: _Journal) -> None:
        """Insert, modify or delete (row None) one entry of a table keyed by match fields."""
        rows = self.entries[table.name]
        exists = key in rows
        if kind == Update.INSERT and exists:
            raise Refused(Code.ALREADY_EXISTS, f"entry {_show(key)} already exists")
        if kind in (Update.MODIFY, Update.DELETE) and not exists:
            raise Refused(Code.NOT_FOUND, f"no entry {_show(key)}")
        if row is None:
            journal.pop(rows, key)
        elif not exists and len(rows) >= table.size:
            raise Refused(Code.RESOURCE_EXHAUSTED, f"table is full ({table.size} entries)")
        else:
            journal.set(rows, key, row)

    def _write_register(self, table: Table, pipes: list[int], update: pb.Update, journal: _Journal) -> None:
        if update.type != Update.MODIFY:
            raise Refused(
                Code.INVALID_ARGUMENT, f"{Update.Type.Name(update.type)} refused: register cells always exist (MODIFY)"
            )
        entry = update.entity.table_entry
        index = _index(table, entry)
        values = _table_data(table, entry.data)
        _require((f.name for f in table.data.values()), values, " (a register write sets every field)")
        cells = self._cells(table, index)
        for p in pipes:
            cells[p] = dict(values)
        journal.set(self.registers[table.name], index, cells)

    def _write_counter(self, table: Table, pipes: list[int], update: pb.Update, journal: _Journal) -> None:
        if update.type != Update.MODIFY:
            raise Refused(
                Code.INVALID_ARGUMENT, f"{Update.Type.Name(update.type)} refused: counter cells always exist (MODIFY)"
            )
        entry = update.entity.table_entry
        index = _index(table, entry)
        packets = _table_data(table, entry.data).get("$COUNTER_SPEC_PKTS", 0)
        journal.set(self.counters[table.name], index, packets)

    def _cells(self, table: Table, index: int) -> list[dict[str, int]]:
        """A copy of a register cell's values, one dict per pipe (zeros where never written)."""
        stored = self.registers[table.name].get(index)
        if stored is not None:
            return [dict(cell) for cell in stored]
        return [{f.name: 0 for f in table.data.values()} for _ in range(self.pipes)]

    # -- the fixed tables' own rules ---------------------------------------------------------------
    def _check_port(self, port: int, what: str) -> None:
        if port >= DEV_PORTS or (self.valid_ports is not None and port not in self.valid_ports):
            raise Refused(Code.INVALID_ARGUMENT, f"{what}: dev port {port} does not exist on this switch")

    def _check_node(self, key: Key, row: Row | None) -> None:
        node = key[0][1]
        if row is None:
            for group_key, (_, data) in self.entries[MGID].items():
                if node in data.get("$MULTICAST_NODE_ID", []):
                    raise Refused(
                        Code.FAILED_PRECONDITION, f"node {node} is still a member of group $MGID={group_key[0][1]}"
                    )
            return
        for port in row[1]["$DEV_PORT"]:
            self._check_port(port, "data field $DEV_PORT")

    def _check_group(self, key: Key, row: Row | None) -> None:
        if row is None:
            return
        data = row[1]
        for names in _GROUP_LISTS:
            lengths = {name: len(data.get(name, [])) for name in names}
            if len(set(lengths.values())) > 1:
                listed = ", ".join(f"{name} {n}" for name, n in lengths.items())
                raise Refused(Code.INVALID_ARGUMENT, f"data field lists of different lengths: {listed}")
        if data.get("$MULTICAST_ECMP_ID"):
            raise Refused(Code.UNIMPLEMENTED, "ECMP members of a group are not modelled by the fake")
        for node in data.get("$MULTICAST_NODE_ID", []):
            if (("$MULTICAST_NODE_ID", node),) not in self.entries[NODE]:
                raise Refused(Code.NOT_FOUND, f"data field $MULTICAST_NODE_ID: node {node} does not exist ($pre.node)")

    def _check_port_entry(self, key: Key, row: Row | None) -> None:
        self._check_port(key[0][1], "key field $DEV_PORT")

    _WRITERS = {
        "MatchAction_Direct": _write_match,
        "Register": _write_register,
        "Counter": _write_counter,
        "PreMgid": _write_fixed,
        "PreNode": _write_fixed,
        "PortConfigure": _write_fixed,
    }
    _FIXED_CHECKS = {"PreMgid": _check_group, "PreNode": _check_node, "PortConfigure": _check_port_entry}
    _CLEARERS = {
        "MatchAction_Direct": _clear_rows,
        "Register": _clear_cells,
        "Counter": _clear_cells,
        "PreMgid": _clear_rows,
        "PreNode": _clear_rows,
        "PortConfigure": _clear_rows,
    }

    # -- Read -----------------------------------------------------------------------------------
    def Read(self, request, context):
        self.reads.append(request)
        try:
            with self._lock:
                self._check_device(request.target.device_id)
                self._check_bound(request.client_id, request.p4_name)
                entities = [
                    e for i, entity in enumerate(request.entities) for e in self._read(i, entity, request.target)
                ]
        except Refused as e:
            _abort(context, e)
        for start in range(0, max(len(entities), 1), READ_CHUNK):
            yield pb.ReadResponse(entities=entities[start : start + READ_CHUNK])

    def _read(self, i: int, entity: pb.Entity, target: pb.TargetDevice) -> list[pb.Entity]:
        """The entities one requested entity names: one entry (by key), or the whole table.

        table_flags (from_hw) change nothing: the fake's software state is its hardware."""
        try:
            return self._dispatch(self._READERS, entity, target, entity.table_entry)
        except Refused as e:
            raise e.within(f"entity {i}") from None

    def _read_rows(self, table: Table, pipes: list[int], entry: pb.TableEntry) -> list[pb.Entity]:
        if entry.is_default_entry:
            raise _default_entry_refusal(table)
        rows = self.entries[table.name]
        if not entry.HasField("key"):
            return [self._row_entity(table, key, row) for key, row in rows.items()]
        key = _key(table, entry)
        if key not in rows:
            raise Refused(Code.NOT_FOUND, f"no entry {_show(key)}")
        return [self._row_entity(table, key, rows[key])]

    def _row_entity(self, table: Table, key: Key, row: Row) -> pb.Entity:
        action_name, values = row
        fields = table.data
        action_id = 0
        if action_name is not None:
            action = table.action_named(action_name)
            fields, action_id = action.fields, action.id
        data = [_data_field(f, values[f.name]) for f in fields.values() if f.name in values]
        return _entity(table, key, action_id, data)

    def _read_register(self, table: Table, pipes: list[int], entry: pb.TableEntry) -> list[pb.Entity]:
        # As the switch answers: each field once per pipe read, in pipe order.
        entities = []
        for index in self._indices(table, entry):
            cells = self._cells(table, index)
            data = [_data_field(f, cells[p][f.name]) for f in table.data.values() for p in pipes]
            entities.append(_entity(table, ((table.keys[0].name, index),), 0, data))
        return entities

    def _read_counter(self, table: Table, pipes: list[int], entry: pb.TableEntry) -> list[pb.Entity]:
        packets = self.counters[table.name]
        field = next(f for f in table.data.values() if f.name == "$COUNTER_SPEC_PKTS")
        return [
            _entity(table, ((table.keys[0].name, index),), 0, [_data_field(field, packets.get(index, 0))])
            for index in self._indices(table, entry)
        ]

    @staticmethod
    def _indices(table: Table, entry: pb.TableEntry) -> Iterable[int]:
        return [_index(table, entry)] if entry.HasField("key") else range(table.size)

    def _read_port_names(self, table: Table, pipes: list[int], entry: pb.TableEntry) -> list[pb.Entity]:
        """$PORT_STR_INFO: a front-panel name's device port."""
        key = _key(table, entry)
        name = key[0][1]
        if name not in self.port_names:
            raise Refused(Code.NOT_FOUND, f"no front-panel port {name!r}")
        field = next(iter(table.data.values()))
        return [_entity(table, key, 0, [_data_field(field, self.port_names[name])])]

    def _read_ports(self, table: Table, pipes: list[int], entry: pb.TableEntry) -> list[pb.Entity]:
        """$PORT entries, with the read-only $PORT_UP a real switch reports: here a port is
        up when it is enabled (the fake's links are always plugged in)."""
        up = next(f for f in table.data.values() if f.name == "$PORT_UP")
        out = self._read_rows(table, pipes, entry)
        for e in out:
            values = self._port_row(table, e)
            e.table_entry.data.fields.append(_data_field(up, bool(values.get("$PORT_ENABLE", False))))
        return out

    def _port_row(self, table: Table, entity: pb.Entity) -> Data:
        key = _key(table, entity.table_entry)
        return self.entries[table.name][key][1]

    _READERS = {
        "PortStrInfo": _read_port_names,
        "PortConfigure": _read_ports,
        "MatchAction_Direct": _read_rows,
        "Register": _read_register,
        "Counter": _read_counter,
        "PreMgid": _read_rows,
        "PreNode": _read_rows,
    }


def _entity(table: Table, key: Key, action_id: int, data: list[pb.DataField]) -> pb.Entity:
    entity = pb.Entity()
    entry = entity.table_entry
    entry.table_id = table.id
    entry.key.fields.extend(_key_field(f, value) for f, (_, value) in zip(table.keys, key, strict=True))
    entry.data.action_id = action_id
    entry.data.fields.extend(data)
    return entity


def _default_entry_refusal(table: Table) -> Refused:
    if table.const_default:
        return Refused(Code.PERMISSION_DENIED, "its default action is const in the program")
    return Refused(Code.UNIMPLEMENTED, "default entries are not modelled by the fake")


def _abort(context: grpc.ServicerContext, refused: Refused) -> NoReturn:
    context.abort(refused.code, refused.message)
    raise AssertionError("context.abort returned")  # it raises


@contextlib.contextmanager
def serve(**kwargs: object) -> Iterator[FakeBfRuntime]:
    """A FakeBfRuntime (constructor arguments: kwargs) serving for the `with` body."""
    fake = FakeBfRuntime(**kwargs)
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def fake_bfrt() -> Iterator[FakeBfRuntime]:
    """A FakeBfRuntime serving for one test (import this fixture into a test module)."""
    with serve() as fake:
        yield fake
