# SPDX-License-Identifier: Apache-2.0
"""Classic libpcap files of UDP datagrams, pure Python (no scapy): what `p4reduce worker
--pcap` writes and the tests read back.

Records are bare IPv4 packets (LINKTYPE_IPV4) whose IPv4 and UDP headers are made up
here from the datagram's real addresses: a capture hands over datagrams (GSO batches
split, fragments joined), not the frames that carried them, and Wireshark needs
nothing else to dissect them (docs/wireshark.md).
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from p4reduce.protocol.codec import MAX_UDP_PAYLOAD
from p4reduce.testbed.model_common import ipv4_checksum

LINKTYPE_IPV4 = 228
SNAPLEN = 0x40000  # larger than any IPv4 packet: records are never cut

_MAGIC = 0xA1B2C3D4  # microsecond timestamps
_SWAPPED_MAGIC = 0xD4C3B2A1  # as it reads from a file written on a big-endian machine
_FILE_HEADER = struct.Struct("<IHHiIII")
IPV4_HEADER = struct.Struct("!BBHHHBBH4s4s")  # without options
UDP_HEADER = struct.Struct("!HHHH")

Address = tuple[str, int]


class UdpRecord(NamedTuple):
    timestamp: float
    source: Address
    dest: Address
    payload: bytes


def ipv4_udp(source: Address, dest: Address, payload: bytes, ident: int = 0) -> bytes:
    """An IPv4 packet carrying `payload` in one UDP datagram from `source` to `dest`. The UDP
    checksum is 0 (none, which IPv4 permits): the bytes were checked where they were received."""
    if len(payload) > MAX_UDP_PAYLOAD:
        raise ValueError(f"a UDP payload of {len(payload)} bytes does not fit an IPv4 packet")
    total = IPV4_HEADER.size + UDP_HEADER.size + len(payload)
    src, dst = socket.inet_aton(source[0]), socket.inet_aton(dest[0])
    header = IPV4_HEADER.pack(0x45, 0, total, ident & 0xFFFF, 0, 64, socket.IPPROTO_UDP, 0, src, dst)
    header = header[:10] + ipv4_checksum(header).to_bytes(2, "big") + header[12:]
    return header + UDP_HEADER.pack(source[1], dest[1], UDP_HEADER.size + len(payload), 0) + payload


def parse_ipv4_udp(packet: bytes) -> tuple[Address, Address, bytes] | None:
    """(source, destination, payload) of an unfragmented IPv4 UDP packet, else None."""
    if len(packet) < IPV4_HEADER.size or packet[0] >> 4 != 4:
        return None
    ihl = (packet[0] & 0xF) * 4
    _, _, total, _, frag, _, proto, _, src, dst = IPV4_HEADER.unpack_from(packet)
    if proto != socket.IPPROTO_UDP or frag & 0x3FFF or len(packet) < max(total, ihl + UDP_HEADER.size):
        return None
    sport, dport, length, _ = UDP_HEADER.unpack_from(packet, ihl)
    payload = packet[ihl + UDP_HEADER.size : min(total, ihl + length)]
    return (socket.inet_ntoa(src), sport), (socket.inet_ntoa(dst), dport), payload


class PcapWriter:
    """Appends UDP datagrams to a classic pcap file, one IPv4 packet per record."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._ident = 0
        file.write(_FILE_HEADER.pack(_MAGIC, 2, 4, 0, 0, SNAPLEN, LINKTYPE_IPV4))

    @classmethod
    def create(cls, path: str | os.PathLike[str]) -> PcapWriter:
        return cls(open(path, "wb"))

    def write_udp(self, source: Address, dest: Address, payload: bytes, timestamp: float | None = None) -> None:
        packet = ipv4_udp(source, dest, payload, self._ident)
        self._ident += 1
        usec = round((time.time() if timestamp is None else timestamp) * 1e6)
        self._file.write(struct.pack("<IIII", usec // 1_000_000, usec % 1_000_000, len(packet), len(packet)))
        self._file.write(packet)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_udp(path: str | os.PathLike[str]) -> Iterator[UdpRecord]:
    """The UDP datagrams of a LINKTYPE_IPV4 pcap file (what PcapWriter writes, either byte
    order); records that are not IPv4 UDP are skipped. A file that is not such a pcap, or
    ends inside a record, is a ValueError naming it."""
    with open(path, "rb") as f:
        head = f.read(_FILE_HEADER.size)
        if len(head) < _FILE_HEADER.size:
            raise ValueError(f"{path}: not a pcap file ({len(head)} bytes)")
        order = {_MAGIC: "<", _SWAPPED_MAGIC: ">"}.get(struct.unpack_from("<I", head)[0])
        if order is None:
            raise ValueError(f"{path}: not a classic microsecond pcap file")
        linktype = struct.unpack_from(order + "I", head, 20)[0]
        if linktype != LINKTYPE_IPV4:
            raise ValueError(f"{path}: link type {linktype}, expected LINKTYPE_IPV4 ({LINKTYPE_IPV4})")
        record = struct.Struct(order + "IIII")
        index = 0
        while raw := f.read(record.size):
            if len(raw) < record.size:
                raise ValueError(f"{path}: ends inside the header of record {index}")
            sec, usec, caplen, _ = record.unpack(raw)
            packet = f.read(caplen)
            if len(packet) < caplen:
                raise ValueError(f"{path}: record {index} is cut short ({len(packet)} of {caplen} bytes)")
            parsed = parse_ipv4_udp(packet)
            if parsed is not None:
                yield UdpRecord(sec + usec / 1e6, *parsed)
            index += 1
