# SPDX-License-Identifier: Apache-2.0
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
from collections.abc import Sequence
from typing import Any

import numpy as np

from p4reduce.protocol.framing import IOV_PARTS

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
HAVE_MMSG = hasattr(_libc, "recvmmsg") and hasattr(_libc, "sendmmsg")
MSG_DONTWAIT = 0x40
ADDRESS_CACHE_LIMIT = 4096  # distinct peers remembered; spoofed sources must not grow it forever


class _IoVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


class _SockAddrIn(ctypes.Structure):
    _fields_ = [
        ("sin_family", ctypes.c_ushort),
        ("sin_port", ctypes.c_ubyte * 2),
        ("sin_addr", ctypes.c_ubyte * 4),
        ("sin_zero", ctypes.c_ubyte * 8),
    ]


class _MsgHdr(ctypes.Structure):
    _fields_ = [
        ("msg_name", ctypes.c_void_p),
        ("msg_namelen", ctypes.c_uint32),
        ("msg_iov", ctypes.c_void_p),
        ("msg_iovlen", ctypes.c_size_t),
        ("msg_control", ctypes.c_void_p),
        ("msg_controllen", ctypes.c_size_t),
        ("msg_flags", ctypes.c_int),
    ]


class _MMsgHdr(ctypes.Structure):
    _fields_ = [("msg_hdr", _MsgHdr), ("msg_len", ctypes.c_uint)]


def _numpy_view(struct: type[ctypes.Structure], fields: dict[str, tuple[object, str]]) -> np.dtype:
    """A numpy dtype over an array of `struct`, naming some of its fields
    (name -> (ctypes field descriptor, numpy format)). Reading and writing a
    whole array's column is one numpy operation instead of one ctypes access
    per element: with small datagrams that Python work, not the system call,
    is what batching has to beat."""
    layout: Any = {  # numpy's stubs do not describe a dtype given as such a dict
        "names": list(fields),
        "formats": [fmt for _, fmt in fields.values()],
        "offsets": [field.offset for field, _ in fields.values()],  # type: ignore[attr-defined]
        "itemsize": ctypes.sizeof(struct),
    }
    return np.dtype(layout)


def _array_view(array: ctypes.Array[Any], dtype: np.dtype) -> np.ndarray:
    """`array`'s memory as a numpy array of `dtype`, shared, not copied."""
    return np.frombuffer(array, dtype)  # type: ignore[call-overload]  # stubs miss ctypes' buffer protocol


# msg_hdr is the first member of mmsghdr, so its fields keep their offsets there.
_MMSG_DTYPE = _numpy_view(
    _MMsgHdr,
    {
        "name": (_MsgHdr.msg_name, "u8"),
        "namelen": (_MsgHdr.msg_namelen, "u4"),
        "iov": (_MsgHdr.msg_iov, "u8"),
        "iovlen": (_MsgHdr.msg_iovlen, "u8"),
        "msg_len": (_MMsgHdr.msg_len, "u4"),
    },
)
_IOV_DTYPE = _numpy_view(_IoVec, {"base": (_IoVec.iov_base, "u8"), "len": (_IoVec.iov_len, "u8")})
_SOCKADDR_DTYPE = _numpy_view(
    _SockAddrIn, {"port": (_SockAddrIn.sin_port, ">u2"), "addr": (_SockAddrIn.sin_addr, ">u4")}
)
_IOV_SIZE = ctypes.sizeof(_IoVec)
_MMSG_SIZE = ctypes.sizeof(_MMsgHdr)


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
            hdr.msg_iov = ctypes.addressof(self._iovs[i])
            hdr.msg_iovlen = 1
        self._batch = batch
        self._msg_view = _array_view(self._msgs, _MMSG_DTYPE)
        self._name_view = _array_view(self._names, _SOCKADDR_DTYPE)
        self._ip_strings: dict[int, str] = {}

    def recv(self) -> list[tuple[memoryview, tuple[str, int]]]:
        """Datagrams queued now (possibly none); views are valid until the next call."""
        if not HAVE_MMSG:
            try:
                data, addr = self._sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return []
            return [(memoryview(data), addr)]
        self._msg_view["namelen"] = ctypes.sizeof(_SockAddrIn)
        n = _libc.recvmmsg(self._fd, self._msgs, self._batch, MSG_DONTWAIT, None)
        if n < 0:
            err = ctypes.get_errno()
            if err in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR, errno.ECONNREFUSED):
                return []
            raise OSError(err, os.strerror(err))
        names = self._name_view[:n]
        lengths = self._msg_view["msg_len"][:n].tolist()
        out = []
        for i, (ip, port) in enumerate(zip(names["addr"].tolist(), names["port"].tolist(), strict=True)):
            host = self._ip_strings.get(ip)
            if host is None:
                if len(self._ip_strings) >= ADDRESS_CACHE_LIMIT:
                    self._ip_strings.clear()
                host = self._ip_strings[ip] = socket.inet_ntoa(ip.to_bytes(4, "big"))
            out.append((self._views[i][: lengths[i]], (host, port)))
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
        return ctypes.c_void_p.from_buffer(ptr).value
    if not len(part):
        return None
    first = ctypes.c_char.from_buffer(part)  # pins the buffer; its address is the start
    keep.append(first)
    return ctypes.addressof(first)


class BatchSender:
    """Queues datagrams (each a sequence of buffers, gathered by the kernel) and
    sends them with one sendmmsg per flush.

    The message and iovec arrays are allocated once (grown when needed) and
    filled through numpy views.
    """

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._fd = sock.fileno()
        self._queue: list[tuple[list[Buffer], tuple[str, int]]] = []
        self._sizes: list[int] = []  # bytes of each queued datagram
        self._open: dict[tuple[str, int], int] = {}  # addr -> index of its datagram still filling
        self.queued_bytes = 0
        self._addr_cache: dict[tuple[str, int], _SockAddrIn] = {}
        self._msg_view = np.zeros(0, _MMSG_DTYPE)
        self._iov_view = np.zeros(0, _IOV_DTYPE)
        self._reserve(64, 128)

    def add(self, parts: Sequence[Buffer], addr: tuple[str, int], pack_up_to: int = 0) -> None:
        """Queue one packet (its bytes gathered from `parts`) for `addr`. With `pack_up_to`,
        it joins the datagram being filled for `addr` while that stays within so many bytes
        (several packets back to back: docs/protocol.md section 1)."""
        size = sum(len(p) for p in parts)
        self.queued_bytes += size
        i = self._open.get(addr) if pack_up_to else None
        if i is not None and self._sizes[i] + size <= pack_up_to and len(self._queue[i][0]) + len(parts) <= IOV_PARTS:
            self._queue[i][0].extend(parts)
            self._sizes[i] += size
            return
        if pack_up_to:
            self._open[addr] = len(self._queue)
        self._queue.append((list(parts), addr))
        self._sizes.append(size)

    @property
    def full(self) -> bool:
        """Enough is queued that holding it longer adds latency without saving
        anything: a system call costs about what copying a few KB does, while a
        peer waits for each result until the batch is handed to the kernel."""
        return self.queued_bytes >= FLUSH_BYTES

    def _sockaddr_address(self, addr: tuple[str, int]) -> int:
        sa = self._addr_cache.get(addr)
        if sa is None:
            sa = self._addr_cache[addr] = _sockaddr(addr)
        return ctypes.addressof(sa)

    def _reserve(self, datagrams: int, parts: int) -> None:
        """Grows the arrays (at least doubling) to hold a flush of this size."""
        if len(self._msg_view) < datagrams:
            self._msgs = (_MMsgHdr * max(datagrams, 2 * len(self._msg_view)))()
            self._msg_view = _array_view(self._msgs, _MMSG_DTYPE)
            self._msg_view["namelen"] = ctypes.sizeof(_SockAddrIn)
        if len(self._iov_view) < parts:
            self._iovs = (_IoVec * max(parts, 2 * len(self._iov_view)))()
            self._iov_view = _array_view(self._iovs, _IOV_DTYPE)

    def take(self) -> list[tuple[list[Buffer], tuple[str, int]]]:
        """Empties the queue: its datagrams (each a list of buffers) and their addresses, in
        the order a flush sends them (tests compare them with what the native core sends)."""
        queue, self._queue = self._queue, []
        self._sizes, self._open = [], {}
        self.queued_bytes = 0
        return queue

    def flush(self) -> int:
        """Sends everything queued; returns how many datagrams the kernel refused."""
        queue = self.take()
        if not queue:
            return 0
        if not HAVE_MMSG:
            failed = 0
            for datagram, addr in queue:
                try:
                    self._sock.sendto(b"".join(bytes(p) for p in datagram), addr)
                except OSError:
                    failed += 1
            return failed
        if len(self._addr_cache) > ADDRESS_CACHE_LIMIT:
            # Safe here: no sendmmsg is using the cached sockaddrs between flushes.
            self._addr_cache.clear()
        parts = [part for datagram, _ in queue for part in datagram]
        counts = [len(datagram) for datagram, _ in queue]
        n = len(queue)
        self._reserve(n, len(parts))
        keep: list[object] = []  # pins every buffer until sendmmsg returns
        iov = self._iov_view[: len(parts)]
        iov["base"] = [_address(p, keep) or 0 for p in parts]
        iov["len"] = [len(p) for p in parts]
        msg = self._msg_view[:n]
        msg["name"] = [self._sockaddr_address(addr) for _, addr in queue]
        msg["iovlen"] = counts
        starts = np.zeros(n, dtype=np.uint64)
        np.cumsum(counts[:-1], out=starts[1:])
        msg["iov"] = ctypes.addressof(self._iovs) + starts * _IOV_SIZE
        done = failed = 0
        while done < n:
            sent = _libc.sendmmsg(self._fd, ctypes.byref(self._msgs, done * _MMSG_SIZE), n - done, 0)
            if sent <= 0:  # the datagram at `done` was refused (full buffer, unreachable): skip it
                done += 1
                failed += 1
            else:
                done += sent
        return failed
