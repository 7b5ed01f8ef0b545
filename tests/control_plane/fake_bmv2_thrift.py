# SPDX-License-Identifier: Apache-2.0
"""A fake of BMv2's thrift server (register calls of the "standard" service) that
records what a controller sends.

It decodes thrift's binary protocol on its own (not with the controller's
code), so an encoding mistake in the client shows up as a wrong recorded call
or an error. Registers behave like BMv2's (src/bm_sim/context.cpp): an unknown
name is INVALID_REGISTER_NAME, a range outside the array INVALID_INDEX, and an
unknown method a TApplicationException UNKNOWN_METHOD. `mode` makes it
misbehave: "silent" (reads the call, never answers), "hangup" (closes the
connection instead of answering), "half" (sends half an answer, then closes),
"garbage" (answers like an HTTP server). Methods named in `answer_unknown`
get UNKNOWN_METHOD, as from a BMv2 that lacks them.
"""

from __future__ import annotations

import contextlib
import pathlib
import shutil
import socket
import socketserver
import struct
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

CALL, REPLY, EXCEPTION = 1, 2, 3
I32, I64, STRING, STRUCT = 8, 10, 11, 12
INVALID_REGISTER_NAME, INVALID_INDEX = 1, 2
UNKNOWN_METHOD = 1


@dataclass
class Call:
    name: str  # as sent, e.g. "standard:bm_register_write_range"
    seqid: int
    args: dict[int, Any]  # field id -> value (strings decoded)
    raw: bytes = field(default=b"", compare=False, repr=False)  # the message as received


@dataclass
class FakeBmv2Thrift:
    registers: dict[str, list[int]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    connections: int = 0
    mode: str = "normal"
    answer_unknown: set[str] = field(default_factory=set)
    port: int = 0

    def add_register(self, name: str, size: int, fill: int = 0) -> None:
        self.registers[name] = [fill] * size

    # -- behaviour of the two methods the controller uses --------------------------------
    def answer(self, call: Call) -> bytes:
        service, _, method = call.name.partition(":")
        known = {"bm_register_write_range", "bm_register_read"} - self.answer_unknown
        if service != "standard" or method not in known:
            return application_exception(method, call.seqid, UNKNOWN_METHOD, f"Invalid method name: '{method}'")
        cxt, name = call.args[1], call.args[2]
        assert cxt == 0, f"context {cxt}"
        cells = self.registers.get(name)
        if cells is None:
            return register_error(method, call.seqid, INVALID_REGISTER_NAME)
        if method == "bm_register_read":
            index = call.args[3]
            if not 0 <= index < len(cells):
                return register_error(method, call.seqid, INVALID_INDEX)
            return reply(method, call.seqid, struct.pack(">bhq", I64, 0, cells[index]))
        start, end, value = call.args[3], call.args[4], call.args[5]
        if end > len(cells) or start > end or start < 0:  # BMv2's check (end exclusive)
            return register_error(method, call.seqid, INVALID_INDEX)
        cells[start:end] = [value] * (end - start)
        return reply(method, call.seqid, b"")


# -- encoding of answers -----------------------------------------------------------------


def _header(kind: int, method: str, seqid: int) -> bytes:
    name = method.encode()
    return struct.pack(">Ii", 0x80010000 | kind, len(name)) + name + struct.pack(">i", seqid)


def reply(method: str, seqid: int, fields: bytes) -> bytes:
    return _header(REPLY, method, seqid) + fields + b"\x00"


def register_error(method: str, seqid: int, code: int) -> bytes:
    # result struct field 1 = InvalidRegisterOperation { 1: i32 code }
    return reply(method, seqid, struct.pack(">bhbhi", STRUCT, 1, I32, 1, code) + b"\x00")


def application_exception(method: str, seqid: int, kind: int, message: str) -> bytes:
    text = message.encode()
    body = struct.pack(">bhi", STRING, 1, len(text)) + text + struct.pack(">bhi", I32, 2, kind) + b"\x00"
    return _header(EXCEPTION, method, seqid) + body


# -- decoding of calls -------------------------------------------------------------------


class _Recorder:
    """Reads from a stream and keeps every byte read."""

    def __init__(self, f: Any) -> None:
        self.f, self.data = f, bytearray()

    def read(self, n: int) -> bytes:
        chunk = self.f.read(n)
        self.data += chunk
        return chunk


def _read(f: Any, n: int) -> bytes:
    data = f.read(n)
    if len(data) < n:
        raise EOFError
    return data


def read_call(stream: Any) -> Call:
    f = _Recorder(stream)
    (header,) = struct.unpack(">I", _read(f, 4))
    assert header == 0x80010000 | CALL, f"not a strict CALL header: {header:#x}"
    (n,) = struct.unpack(">i", _read(f, 4))
    name = _read(f, n).decode()
    (seqid,) = struct.unpack(">i", _read(f, 4))
    args: dict[int, Any] = {}
    while (ftype := _read(f, 1)[0]) != 0:
        (fid,) = struct.unpack(">h", _read(f, 2))
        if ftype == I32:
            args[fid] = struct.unpack(">i", _read(f, 4))[0]
        elif ftype == I64:
            args[fid] = struct.unpack(">q", _read(f, 8))[0]
        elif ftype == STRING:
            (n,) = struct.unpack(">i", _read(f, 4))
            args[fid] = _read(f, n).decode()
        else:
            raise AssertionError(f"unexpected field type {ftype} (field {fid})")
    return Call(name, seqid, args, bytes(f.data))


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        fake = self.server.fake
        fake.connections += 1
        while True:
            try:
                call = read_call(self.rfile)
            except (EOFError, ConnectionError):  # the client closed (a reset if it left bytes unread)
                return
            fake.calls.append(call)
            if fake.mode == "silent":
                self.server.stopping.wait()
                return
            if fake.mode == "hangup":
                return
            answer = b"HTTP/1.1 400 Bad Request\r\n\r\n" if fake.mode == "garbage" else fake.answer(call)
            if fake.mode == "half":
                self.wfile.write(answer[: len(answer) // 2])
                return
            self.wfile.write(answer)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeBmv2Thrift) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake
        self.stopping = threading.Event()


@contextlib.contextmanager
def serve() -> Iterator[FakeBmv2Thrift]:
    """A FakeBmv2Thrift on 127.0.0.1 (port chosen by the OS) for the `with` body."""
    fake = FakeBmv2Thrift()
    server = _Server(fake)
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True, name="fake-bmv2-thrift")
    thread.start()
    try:
        yield fake
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A local port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_with_thrift() -> str | None:
    """A python3 on this machine that has Apache Thrift's module (e.g. Debian's
    python3-thrift), to compare with or to run simple_switch_CLI; None if none has."""
    for exe in {shutil.which("python3"), "/usr/bin/python3"} - {None}:
        if (
            pathlib.Path(exe).exists()
            and subprocess.run([exe, "-c", "import thrift"], capture_output=True).returncode == 0
        ):
            return exe
    return None
