# SPDX-License-Identifier: Apache-2.0
"""Record every UDP datagram to or from this process's sockets into a pcap file (what
`p4reduce worker --pcap` does), with a Linux packet socket read by a background thread.

Why a packet socket: the native engine sends and receives in C (p4reduce/_worker.c), so no
Python code sees its datagrams, while the kernel hands a packet socket a copy of each, both
ways, with nothing changed in the agent. It needs root (CAP_NET_RAW). What the kernel's tap
sees is not always one datagram per packet, so this turns it back into datagrams:

* UDP GSO/GRO batches (the native engine's and the aggregator's offload): split at the
  segment size the kernel reports in a virtio-net header (PACKET_VNET_HDR).
* IPv4 fragments (datagrams above the link's MTU): joined.
* Loopback: each packet is seen leaving and arriving; only the arrival is kept.

A kernel filter (classic BPF) lets through only UDP with one of the sockets' ports (and
fragments, whose ports are in the first one), so other traffic never reaches Python.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import socket
import struct
import threading
import time
from collections.abc import Iterable, Iterator, Sequence

from p4reduce.testbed.pcap import IPV4_HEADER, UDP_HEADER, Address, PcapWriter

ETH_P_ALL = 0x0003  # not ETH_P_IP: only a socket for every protocol sees what this host sends
ETH_P_IP = 0x0800
SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_VNET_HDR = 15
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
SO_RCVBUFFORCE = 33  # Linux's numbers (the socket module does not export these two)
SO_TIMESTAMPNS = 35
SKF_NET_OFF = -0x100000  # BPF loads relative to the IP header, whatever the link layer
SKF_AD_PROTOCOL = -0x1000  # BPF load of the packet's protocol (its ethertype)
RCVBUF_BYTES = 32 << 20
# After the run: how long the tap may still hand over a copy of what was sent last.
GRACE_SECONDS = 0.2
ANY = "0.0.0.0"
# Bytes before the IP header, per link type (sll_hatype); other link types are skipped.
_LINK_HEADER = {
    1: 14,
    772: 14,  # Ethernet, loopback (an Ethernet header of zeros)
    0xFFFE: 0,
    519: 0,
    768: 0,
}  # none (tun), raw IP, IPIP tunnel
_LOOPBACK = 772
_VNET = struct.Struct("=BBHHHH")  # virtio_net_hdr, host byte order
_GSO_UDP_L4 = 5
_TIMESPEC = struct.Struct("=qq")
_STATS = struct.Struct("=II")  # tpacket_stats: packets, drops (reset by each read)
_MAX_FRAGMENTED = 64  # datagrams being reassembled at once; the oldest is given up


# What a packet socket says a frame came with: interface, protocol, packet type, link type, address.
PacketAddress = tuple[str, int, int, int, bytes]
FragmentKey = tuple[bytes, bytes, int]  # IPv4 source, destination and identification


class CaptureUnavailable(OSError):
    """No packet socket here (not root, not Linux)."""


def own_udp_sockets() -> set[Address]:
    """The local (IPv4 address, port) of every UDP socket this process has open: found by
    its socket inodes in /proc/net/udp, so that no agent needs to list its sockets."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own fd)
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    sockets = set()
    with open("/proc/net/udp") as table:
        next(table)  # the column names
        for line in table:
            columns = line.split()
            if columns[9] in inodes:
                ip, port = columns[1].split(":")
                sockets.add((socket.inet_ntoa(struct.pack("=I", int(ip, 16))), int(port, 16)))
    return sockets


class DatagramCapture:
    """Opened before anything is sent (so a missing permission fails first, before the file
    is created), started once the sockets to watch exist, stopped when the run is done."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        try:
            self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        except (PermissionError, AttributeError) as exc:
            raise CaptureUnavailable(
                errno.EPERM, f"capturing needs root (CAP_NET_RAW) on Linux for a packet socket ({exc})"
            ) from None
        # Nothing is queued until start() names the ports; what came before the filter goes.
        self._attach_filter(_bpf_program(()))
        self._discard_queued()
        self._sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        self._sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        try:  # a burst of GSO batches must not overflow it while the thread writes
            self._sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF_BYTES)
        except PermissionError:  # CAP_NET_RAW without CAP_NET_ADMIN: up to rmem_max
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF_BYTES)
        try:
            self._writer = PcapWriter.create(path)
        except BaseException:
            self._sock.close()
            raise
        self._fragments = Reassembly()
        self._locals: frozenset[Address] = frozenset()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.datagrams = 0
        self.unreadable = 0  # packets the kernel could not hand over with a virtio-net header
        self.dropped = 0  # packets the kernel dropped because the socket's queue was full

    def start(self, sockets: Iterable[Address]) -> None:
        """Record what is sent from or received on these (IPv4 address, port) pairs
        (address 0.0.0.0: any local address with that port)."""
        self._locals = frozenset(sockets)
        self._attach_filter(_bpf_program(sorted({port for _, port in self._locals})))
        self._thread = threading.Thread(target=self._loop, name="p4reduce-pcap", daemon=True)
        self._thread.start()

    def stop(self) -> int:
        """Record what the kernel still hands over, close the file; the datagrams written."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.dropped += _STATS.unpack(self._sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, _STATS.size))[1]
        self._sock.close()
        self._writer.close()
        if self._error is not None:
            raise self._error
        return self.datagrams

    def _attach_filter(self, program: bytes) -> None:
        code = ctypes.create_string_buffer(program)
        fprog = struct.pack("HL", len(program) // 8, ctypes.addressof(code))
        self._sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)

    def _discard_queued(self) -> None:
        while True:
            try:
                self._sock.recv(1, socket.MSG_DONTWAIT | socket.MSG_TRUNC)
            except BlockingIOError:
                return

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                select.select([self._sock], [], [], 0.05)
                self._drain()
            # Copies of the last datagrams sent may reach the tap after the run returned (a
            # loopback packet's arrival runs in a softirq): read until the tap is quiet.
            while select.select([self._sock], [], [], GRACE_SECONDS)[0]:
                self._drain()
        except BaseException as exc:  # noqa: BLE001 - raised by stop()
            self._error = exc

    def _drain(self) -> None:
        while True:
            try:
                data, ancillary, _, address = self._sock.recvmsg(1 << 18, 64, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError as exc:  # EINVAL: a GSO type this kernel cannot describe
                if exc.errno != errno.EINVAL:
                    raise
                self.unreadable += 1
                continue
            stamp = next(
                (
                    _TIMESPEC.unpack_from(d)
                    for level, kind, d in ancillary
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS
                ),
                None,
            )
            seconds = stamp[0] + stamp[1] / 1e9 if stamp else time.time()
            for source, dest, payload in frame_datagrams(data, address, self._fragments):
                if self._is_local(source) or self._is_local(dest):
                    self._writer.write_udp(source, dest, payload, seconds)
                    self.datagrams += 1

    def _is_local(self, address: Address) -> bool:
        return address in self._locals or (ANY, address[1]) in self._locals


def frame_datagrams(
    frame: bytes, address: PacketAddress, fragments: Reassembly
) -> Iterator[tuple[Address, Address, bytes]]:
    """The UDP datagrams of one frame a packet socket read with PACKET_VNET_HDR (several for
    a GSO batch, none for a loopback packet leaving or a fragment before the last), from
    the (interface, protocol, packet type, link type, address) the socket gave with it."""
    _, _, pkttype, hatype, _ = address
    link = _LINK_HEADER.get(hatype)
    if link is None or (hatype == _LOOPBACK and pkttype == PACKET_OUTGOING):
        return
    _, gso_type, _, gso_size, _, _ = _VNET.unpack_from(frame)
    if link and frame[_VNET.size + link - 2 : _VNET.size + link] != b"\x08\x00":
        return  # not IPv4 (a VLAN tag left in the frame)
    ip = frame[_VNET.size + link :]
    if len(ip) < IPV4_HEADER.size or ip[0] >> 4 != 4:
        return
    ihl = (ip[0] & 0xF) * 4
    _, _, total, ident, frag, _, proto, _, src, dst = IPV4_HEADER.unpack_from(ip)
    if proto != socket.IPPROTO_UDP:
        return
    batch = gso_type & 0x7F == _GSO_UDP_L4 and gso_size > 0
    # A batch's IP length may describe one segment or none; a frame's may include padding.
    body = ip[ihl:] if batch else ip[ihl:total]
    if frag & 0x3FFF:
        whole = fragments.add((src, dst, ident), (frag & 0x1FFF) * 8, bool(frag & 0x2000), body)
        if whole is None:
            return
        body = whole
    if len(body) < UDP_HEADER.size:
        return
    sport, dport, length, _ = UDP_HEADER.unpack_from(body)
    payload = body[UDP_HEADER.size :] if batch else body[UDP_HEADER.size : length]
    source, dest = (socket.inet_ntoa(src), sport), (socket.inet_ntoa(dst), dport)
    step = gso_size if batch else len(payload) or 1
    for offset in range(0, max(len(payload), 1), step):
        yield source, dest, payload[offset : offset + step]


class Reassembly:
    """IPv4 fragments of the datagrams in flight, by (source, destination, id)."""

    def __init__(self) -> None:
        self._parts: dict[FragmentKey, dict[int, bytes]] = {}
        self._ends: dict[FragmentKey, int] = {}

    def add(self, key: FragmentKey, offset: int, more: bool, data: bytes) -> bytes | None:
        """The whole IP payload once every fragment of `key` is in, else None."""
        parts = self._parts.setdefault(key, {})
        parts[offset] = data
        if not more:
            self._ends[key] = offset + len(data)
        if len(self._parts) > _MAX_FRAGMENTED:
            oldest = next(iter(self._parts))
            self._parts.pop(oldest)
            self._ends.pop(oldest, None)
        end, covered = self._ends.get(key), 0
        for start in sorted(parts):
            if start > covered:
                return None
            covered = max(covered, start + len(parts[start]))
        if end is None or covered < end:
            return None
        self._parts.pop(key)
        self._ends.pop(key)
        whole = bytearray(end)
        for start, piece in parts.items():
            whole[start : start + len(piece)] = piece
        return bytes(whole)


def _bpf_program(ports: Sequence[int]) -> bytes:
    """Classic BPF: accept IPv4 UDP fragments and UDP datagrams from or to one of `ports`
    (none: accept nothing). Loads are relative to the IP header (SKF_NET_OFF)."""
    accept, drop = (0x06, 0, 0, 0xFFFFFFFF), (0x06, 0, 0, 0)
    if not ports:
        return _assemble([drop])
    n = len(ports)
    if 2 * n + 10 > 255:  # a classic BPF jump reaches 255 instructions ahead
        raise ValueError(f"{n} ports: a capture filter takes at most 122")
    body: list[tuple[int, int, int, int]] = [
        (0x28, 0, 0, SKF_AD_PROTOCOL),  # ldh ethertype
        (0x15, 0, 0, ETH_P_IP),  # jeq IPv4 (jf patched: drop)
        (0x30, 0, 0, SKF_NET_OFF + 9),  # ldb [net + 9]: IP protocol
        (0x15, 0, 0, socket.IPPROTO_UDP),  # jeq UDP (jf patched: drop)
        (0x28, 0, 0, SKF_NET_OFF + 6),  # ldh [net + 6]: flags, fragment offset
        (0x45, 0, 0, 0x3FFF),  # jset MF|offset: a fragment (jt patched: accept)
        (0xB1, 0, 0, SKF_NET_OFF),  # ldxb 4 * ([net] & 0xf): X = IP header length
        (0x48, 0, 0, SKF_NET_OFF),  # ldh [x + net]: source port
        *[(0x15, 0, 0, p) for p in ports],  # jeq port (jt patched: accept)
        (0x48, 0, 0, SKF_NET_OFF + 2),  # ldh [x + net + 2]: destination port
        *[(0x15, 0, 0, p) for p in ports],
        drop,
        accept,
    ]
    drop_at, accept_at = len(body) - 2, len(body) - 1

    def jump(i: int, jt: int | None = None, jf: int | None = None) -> None:
        op, _, _, k = body[i]
        body[i] = (op, 0 if jt is None else jt - i - 1, 0 if jf is None else jf - i - 1, k)

    jump(1, jf=drop_at)
    jump(3, jf=drop_at)
    jump(5, jt=accept_at)
    for i in [*range(8, 8 + n), *range(9 + n, 9 + 2 * n)]:
        jump(i, jt=accept_at)
    return _assemble(body)


def _assemble(program: list[tuple[int, int, int, int]]) -> bytes:
    return b"".join(struct.pack("HBBI", op, jt, jf, k & 0xFFFFFFFF) for op, jt, jf, k in program)
