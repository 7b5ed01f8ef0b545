"""Batched UDP I/O with recvmmsg(2)/sendmmsg(2) through ctypes (Linux).

One system call moves a whole batch of datagrams; for the aggregator, whose
every completed round is one datagram per worker, this halves the per-packet
cost. Falls back to plain recvfrom/sendto where the calls are missing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import socket
import struct
from typing import Sequence

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
HAVE_MMSG = hasattr(_libc, "recvmmsg") and hasattr(_libc, "sendmmsg")
MSG_DONTWAIT = 0x40


class _IoVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


class _SockAddrIn(ctypes.Structure):
    _fields_ = [("sin_family", ctypes.c_ushort), ("sin_port", ctypes.c_ubyte * 2),
                ("sin_addr", ctypes.c_ubyte * 4), ("sin_zero", ctypes.c_ubyte * 8)]


class _MsgHdr(ctypes.Structure):
    _fields_ = [("msg_name", ctypes.c_void_p), ("msg_namelen", ctypes.c_uint32),
                ("msg_iov", ctypes.POINTER(_IoVec)), ("msg_iovlen", ctypes.c_size_t),
                ("msg_control", ctypes.c_void_p), ("msg_controllen", ctypes.c_size_t),
                ("msg_flags", ctypes.c_int)]


class _MMsgHdr(ctypes.Structure):
    _fields_ = [("msg_hdr", _MsgHdr), ("msg_len", ctypes.c_uint)]


def _sockaddr(addr: tuple[str, int]) -> _SockAddrIn:
    sa = _SockAddrIn()
    sa.sin_family = socket.AF_INET
    sa.sin_port[:] = struct.pack("!H", addr[1])
    sa.sin_addr[:] = socket.inet_aton(addr[0])
    return sa


class BatchReceiver:
    """Receives up to `batch` datagrams per call into preallocated buffers."""

    def __init__(self, sock: socket.socket, batch: int = 64, bufsize: int = 65536) -> None:
        self._sock = sock
        self._fd = sock.fileno()
        self._bufs = [ctypes.create_string_buffer(bufsize) for _ in range(batch)]
        self._views = [memoryview(b).cast("B") for b in self._bufs]
        self._names = (_SockAddrIn * batch)()
        self._iovs = (_IoVec * batch)()
        self._msgs = (_MMsgHdr * batch)()
        for i in range(batch):
            self._iovs[i].iov_base = ctypes.addressof(self._bufs[i])
            self._iovs[i].iov_len = bufsize
            hdr = self._msgs[i].msg_hdr
            hdr.msg_name = ctypes.addressof(self._names[i])
            hdr.msg_iov = ctypes.pointer(self._iovs[i])
            hdr.msg_iovlen = 1
        self._batch = batch

    def recv(self) -> list[tuple[memoryview, tuple[str, int]]]:
        """Datagrams queued now (possibly none); views are valid until the next call."""
        if not HAVE_MMSG:
            try:
                data, addr = self._sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return []
            return [(memoryview(data), addr)]
        for i in range(self._batch):
            self._msgs[i].msg_hdr.msg_namelen = ctypes.sizeof(_SockAddrIn)
        n = _libc.recvmmsg(self._fd, self._msgs, self._batch, MSG_DONTWAIT, None)
        if n < 0:
            err = ctypes.get_errno()
            if err in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR, errno.ECONNREFUSED):
                return []
            raise OSError(err, os.strerror(err))
        out = []
        for i in range(n):
            name = self._names[i]
            addr = (socket.inet_ntoa(bytes(name.sin_addr)), name.sin_port[0] << 8 | name.sin_port[1])
            out.append((self._views[i][: self._msgs[i].msg_len], addr))
        return out


Buffer = bytes | bytearray | memoryview
FLUSH_BYTES = 128 << 10


def _address(part: Buffer, keep: list[object]) -> int | None:
    """Address of a buffer's bytes for an iovec; `keep` holds what must outlive the call.
    Writable buffers (bytearray, views of one) are sent from their own memory."""
    if isinstance(part, memoryview) and part.readonly:
        part = part.tobytes()
    if isinstance(part, bytes):
        ptr = ctypes.c_char_p(part)
        keep.append(ptr)
        return ctypes.cast(ptr, ctypes.c_void_p).value
    if not len(part):
        return None
    arr = (ctypes.c_char * len(part)).from_buffer(part)
    keep.append(arr)
    return ctypes.addressof(arr)


class BatchSender:
    """Queues datagrams (each a sequence of buffers, gathered by the kernel) and
    sends them with one sendmmsg per flush."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._fd = sock.fileno()
        self._queue: list[tuple[Sequence[Buffer], tuple[str, int]]] = []
        self.queued_bytes = 0
        self._addr_cache: dict[tuple[str, int], _SockAddrIn] = {}

    def add(self, parts: Sequence[Buffer], addr: tuple[str, int]) -> None:
        self._queue.append((parts, addr))
        self.queued_bytes += sum(len(p) for p in parts)

    @property
    def full(self) -> bool:
        """Enough is queued that holding it longer adds latency without saving
        anything: a system call costs about what copying a few KB does, while a
        peer waits for each result until the batch is handed to the kernel."""
        return self.queued_bytes >= FLUSH_BYTES

    def flush(self) -> int:
        """Sends everything queued; returns how many datagrams the kernel refused."""
        queue, self._queue = self._queue, []
        self.queued_bytes = 0
        if not queue:
            return 0
        if not HAVE_MMSG:
            failed = 0
            for parts, addr in queue:
                try:
                    self._sock.sendto(b"".join(bytes(p) for p in parts), addr)
                except OSError:
                    failed += 1
            return failed
        msgs = (_MMsgHdr * len(queue))()
        keep = []  # buffers must outlive the call
        for i, (parts, addr) in enumerate(queue):
            iovs = (_IoVec * len(parts))()
            for j, part in enumerate(parts):
                iovs[j].iov_base = _address(part, keep)
                iovs[j].iov_len = len(part)
            sa = self._addr_cache.get(addr)
            if sa is None:
                sa = self._addr_cache[addr] = _sockaddr(addr)
            hdr = msgs[i].msg_hdr
            hdr.msg_name = ctypes.addressof(sa)
            hdr.msg_namelen = ctypes.sizeof(_SockAddrIn)
            hdr.msg_iov = iovs
            hdr.msg_iovlen = len(parts)
            keep.append(iovs)
        done = failed = 0
        while done < len(queue):
            n = _libc.sendmmsg(self._fd, ctypes.byref(msgs, done * ctypes.sizeof(_MMsgHdr)),
                               len(queue) - done, 0)
            if n <= 0:  # the datagram at `done` was refused (full buffer, unreachable): skip it
                done += 1
                failed += 1
            else:
                done += n
        return failed
