# SPDX-License-Identifier: Apache-2.0
"""Batched UDP I/O: what goes in as gathered buffers comes out as whole datagrams."""

import socket
import time

import pytest

from p4reduce.transport import batchio
from p4reduce.transport.batchio import BatchReceiver, BatchSender


@pytest.fixture
def pair():
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)  # room for three 60 KB datagrams
    rx.bind(("127.0.0.1", 0))
    rx.setblocking(False)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.bind(("127.0.0.1", 0))
    yield tx, rx
    tx.close()
    rx.close()


def _receive(rx, count, timeout=2.0):
    receiver, got = BatchReceiver(rx), []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        got += [(bytes(view), addr) for view, addr in receiver.recv()]
    return got


@pytest.mark.parametrize("mmsg", [True, False])
def test_every_buffer_kind_is_gathered_without_reordering(pair, monkeypatch, mmsg):
    monkeypatch.setattr(batchio, "HAVE_MMSG", batchio.HAVE_MMSG and mmsg)
    tx, rx = pair
    store = bytearray(b"HEADER" + bytes(range(200)))
    datagrams = [
        (b"plain bytes",),
        (bytearray(b"a bytearray"),),
        (memoryview(b"read-only view"),),
        (bytearray(b"hdr:"), memoryview(store)[6:]),  # a header plus a view into another buffer
        (b"", bytearray(b"empty first part")),
    ]
    sender = BatchSender(tx)
    for parts in datagrams:
        sender.add(parts, rx.getsockname())
    assert sender.queued_bytes == sum(len(p) for parts in datagrams for p in parts)
    assert sender.flush() == 0 and sender.queued_bytes == 0
    got = _receive(rx, len(datagrams))
    assert [g[0] for g in got] == [b"".join(bytes(p) for p in parts) for parts in datagrams]
    assert {g[1] for g in got} == {tx.getsockname()}


def test_full_reports_a_large_queue(pair):
    tx, rx = pair
    sender = BatchSender(tx)
    size = 60000  # under the 65,507-byte UDP limit; two stay under FLUSH_BYTES, three do not
    for _ in range(2):
        sender.add((bytearray(size),), rx.getsockname())
    assert not sender.full
    sender.add((bytearray(size),), rx.getsockname())
    assert sender.full
    assert sender.flush() == 0
    assert not sender.full
    assert [len(g[0]) for g in _receive(rx, 3)] == [size] * 3
