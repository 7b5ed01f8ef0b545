# SPDX-License-Identifier: Apache-2.0
"""Register access on BMv2 over its thrift RPC port, in pure Python.

simple_switch_grpc answers P4Runtime register reads/writes with UNIMPLEMENTED,
so a job's slot state is cleared through BMv2's thrift server, the one
simple_switch_CLI talks to. The CLI is not used: it needs the `thrift` Python
module in whatever `python3` comes first on PATH. The few calls needed here
are encoded directly in thrift's binary protocol with `struct` (no new
dependency), as BMv2's server expects them (src/bm_runtime/server.cpp):
buffered (unframed) transport over TCP, strict binary protocol, and a
multiplexed processor, so method names are "standard:<method>".

Method signatures, field ids and error codes are those of
thrift_src/standard.thrift (p4lang/behavioral-model 1.15):

    void bm_register_write_range(1:i32 cxt_id, 2:string register_array_name,
        3:i32 start_index, 4:i32 end_index, 5:i64 value)    # end exclusive
      throws (1:InvalidRegisterOperation ouch)
    i64 bm_register_read(1:i32 cxt_id, 2:string register_array_name, 3:i32 idx)
      throws (1:InvalidRegisterOperation ouch)
    exception InvalidRegisterOperation { 1:RegisterOperationErrorCode code }

Register names come from the BMv2 JSON, so this works whatever the P4 program
calls its registers.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from p4reduce.controller.config import SWITCH_SLOTS, JobConfig
from p4reduce.controller.errors import ResetError

__all__ = ["Bmv2Thrift", "RegisterRange", "reset_ranges", "slot_register_arrays"]

SERVICE = "standard"  # name of BMv2's Standard service in its multiplexed processor

# Thrift binary protocol: strict message header = version | message type.
_VERSION_1 = 0x80010000
_CALL, _REPLY, _EXCEPTION = 1, 2, 3
# Field type ids.
_STOP, _BOOL, _BYTE, _DOUBLE, _I16, _I32, _I64, _STRING, _STRUCT, _MAP, _SET, _LIST = (
    0,
    2,
    3,
    4,
    6,
    8,
    10,
    11,
    12,
    13,
    14,
    15,
)
_FIXED = {_BOOL: ">?", _BYTE: ">b", _DOUBLE: ">d", _I16: ">h", _I32: ">i", _I64: ">q"}
_MAX_STRING = 16 << 20  # a longer length prefix means we are not reading thrift

# standard.thrift RegisterOperationErrorCode
REGISTER_ERRORS = {1: "INVALID_REGISTER_NAME", 2: "INVALID_INDEX", 3: "ERROR"}
# TApplicationException.type (thrift's TApplicationException.h)
_APPLICATION_ERRORS = {
    0: "UNKNOWN",
    1: "UNKNOWN_METHOD",
    2: "INVALID_MESSAGE_TYPE",
    3: "WRONG_METHOD_NAME",
    4: "BAD_SEQUENCE_ID",
    5: "MISSING_RESULT",
    6: "INTERNAL_ERROR",
    7: "PROTOCOL_ERROR",
    8: "INVALID_TRANSFORM",
    9: "INVALID_PROTOCOL",
    10: "UNSUPPORTED_CLIENT_TYPE",
}


class RegisterRange(NamedTuple):
    """Cells [start, stop) of one register array (stop exclusive, like bm_register_write_range)."""

    register: str
    start: int
    stop: int

    def __str__(self) -> str:
        return f"{self.register}[{self.start}:{self.stop}]"


def slot_register_arrays(bmv2_json: Mapping[str, Any], slots: int = SWITCH_SLOTS) -> list[str]:
    """Names of the register arrays indexed by shadow * slots + slot (2 * slots cells).

    Arrays of other sizes are not per-slot state and are left alone.
    """
    arrays = bmv2_json.get("register_arrays")
    if arrays is None:
        raise ResetError("the BMv2 JSON has no 'register_arrays': is it a BMv2 JSON?")
    names = [r["name"] for r in arrays if r.get("size") == 2 * slots]
    if not names:
        have = ", ".join(f"{r['name']}[{r.get('size')}]" for r in arrays) or "none"
        raise ResetError(
            f"no register array of {2 * slots} cells (2 versions x {slots} slots) in the BMv2 JSON (have: {have})"
        )
    return names


def reset_ranges(job: JobConfig, registers: Iterable[str], slots: int = SWITCH_SLOTS) -> list[RegisterRange]:
    """The cell ranges holding `job`'s slots: one per register and shadow copy
    (a job's slots are contiguous, so each shadow copy is one range)."""
    return [
        RegisterRange(name, shadow * slots + job.slot_base, shadow * slots + job.slots.stop)
        for name in registers
        for shadow in (0, 1)
    ]


class Bmv2Thrift:
    """A connection to BMv2's thrift server for register reads and writes.

    Connects on the first call; `close()` or use it as a context manager.
    Every failure (connection, timeout, short read, an error the switch
    reports) is a ResetError whose message names host:port and the register.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 9090, timeout: float = 10.0, cxt_id: int = 0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.cxt_id = cxt_id  # BMv2 context; simple_switch has only context 0
        self._sock: socket.socket | None = None
        self._seqid = 0

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __enter__(self) -> Bmv2Thrift:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def register_write_range(self, register: str, start: int, stop: int, value: int = 0) -> None:
        """Set cells [start, stop) of `register` to `value`."""
        self._call(
            "bm_register_write_range",
            [(_I32, 1, self.cxt_id), (_STRING, 2, register), (_I32, 3, start), (_I32, 4, stop), (_I64, 5, value)],
            f"register {RegisterRange(register, start, stop)}",
        )

    def register_read(self, register: str, index: int) -> int:
        """Value of cell `index` of `register`."""
        value = self._call(
            "bm_register_read",
            [(_I32, 1, self.cxt_id), (_STRING, 2, register), (_I32, 3, index)],
            f"register {register}[{index}]",
        )
        if not isinstance(value, int):
            raise ResetError(f"BMv2 thrift {self.address}: bm_register_read of {register}[{index}] returned no value")
        return value

    # -- one call ---------------------------------------------------------------------
    def _call(self, method: str, args: list[tuple[int, int, Any]], what: str) -> Any:
        """Send one CALL and read its REPLY; return the result (field 0) or None for void."""
        where = f"BMv2 thrift {self.address}, {method} on {what}"
        self._seqid += 1
        try:
            sock = self._connect()
            sock.sendall(_message(f"{SERVICE}:{method}", self._seqid, args))
            kind, seqid, result = _read_message(_Reader(sock))
        except (OSError, _ProtocolError) as exc:
            self.close()  # the stream is out of step (or gone): never reuse it
            raise ResetError(f"{where}: {_describe(exc, self.timeout)}") from None
        if kind == _EXCEPTION:
            # TApplicationException { 1: string message, 2: i32 type }
            name = _APPLICATION_ERRORS.get(result.get(2, 0), f"type {result.get(2)}")
            message = result.get(1, b"").decode(errors="replace")
            raise ResetError(f"{where}: the switch answered {name}: {message}")
        if kind != _REPLY or seqid != self._seqid:
            self.close()
            raise ResetError(f"{where}: unexpected answer (message type {kind}, seqid {seqid})")
        if 1 in result:  # the declared exception, InvalidRegisterOperation { 1: code }
            code = result[1].get(1) if isinstance(result[1], dict) else None
            reason = REGISTER_ERRORS.get(code, str(code)) if isinstance(code, int) else code
            raise ResetError(f"{where}: InvalidRegisterOperation {reason}")
        return result.get(0)

    def _connect(self) -> socket.socket:
        if self._sock is None:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            # One small request per round trip: do not let Nagle hold it back.
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._sock


class _ProtocolError(Exception):
    """The bytes read are not a thrift binary-protocol message."""


def _describe(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is BMv2 running with this --thrift-port?)"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


# -- encoding ------------------------------------------------------------------------


def _string(value: str | bytes) -> bytes:
    raw = value.encode() if isinstance(value, str) else value
    return struct.pack(">i", len(raw)) + raw


def _message(name: str, seqid: int, args: list[tuple[int, int, Any]]) -> bytes:
    """A CALL message: header, name, seqid, then the args struct (field type, id, value; STOP)."""
    out = [struct.pack(">I", _VERSION_1 | _CALL), _string(name), struct.pack(">i", seqid)]
    for ftype, fid, value in args:
        out.append(struct.pack(">bh", ftype, fid))
        out.append(_string(value) if ftype == _STRING else struct.pack(_FIXED[ftype], value))
    out.append(struct.pack(">b", _STOP))
    return b"".join(out)


# -- decoding ------------------------------------------------------------------------


class _Reader:
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                raise _ProtocolError(f"connection closed after {len(data)} of {n} bytes (short read)")
            data += chunk
        return bytes(data)

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]


def _read_message(r: _Reader) -> tuple[int, int, dict[int, Any]]:
    """(message type, seqid, fields of the result struct by id)."""
    header = r.unpack(">I")
    if header & 0xFFFF0000 != _VERSION_1:
        raise _ProtocolError(f"bad thrift message header {header:#010x}")
    _read_string(r)  # method name; the seqid identifies the call
    seqid = r.unpack(">i")
    return header & 0xFF, seqid, _read_struct(r)


def _read_string(r: _Reader) -> bytes:
    n = r.unpack(">i")
    if not 0 <= n <= _MAX_STRING:
        raise _ProtocolError(f"bad thrift string length {n}")
    return r.read(n)


def _read_struct(r: _Reader) -> dict[int, Any]:
    fields: dict[int, Any] = {}
    while (ftype := r.unpack(">b")) != _STOP:
        fid = r.unpack(">h")
        fields[fid] = _read_value(r, ftype)
    return fields


def _read_value(r: _Reader, ftype: int) -> Any:
    """Any thrift value, so fields this module does not know are skipped correctly."""
    if ftype in _FIXED:
        return r.unpack(_FIXED[ftype])
    if ftype == _STRING:
        return _read_string(r)
    if ftype == _STRUCT:
        return _read_struct(r)
    if ftype in (_LIST, _SET):
        etype, n = r.unpack(">b"), r.unpack(">i")
        return [_read_value(r, etype) for _ in range(_count(n))]
    if ftype == _MAP:
        ktype, vtype, n = r.unpack(">b"), r.unpack(">b"), r.unpack(">i")
        return [(_read_value(r, ktype), _read_value(r, vtype)) for _ in range(_count(n))]
    raise _ProtocolError(f"unknown thrift field type {ftype}")


def _count(n: int) -> int:
    if not 0 <= n <= _MAX_STRING:
        raise _ProtocolError(f"bad thrift container size {n}")
    return n
