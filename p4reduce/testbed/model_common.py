# SPDX-License-Identifier: Apache-2.0
"""What the executable models of the two switch programs share: the wire layout of the
headers both programs parse (Ethernet, IPv4, UDP and the 36-byte aggregation header, with
the same field names in both), the IPv4 header checksum, and the control-plane
bookkeeping (a name resolved by its suffix, an action with its parameters).

`p4reduce.testbed.switch_model` models the v1model program (p4src/), and
`p4reduce.testbed.tna_model` the TNA one (p4src/tna/). Both programs name their Ethernet,
IPv4 and UDP headers and fields alike (ethernet_h, ipv4_h, udp_h: `src_addr`, `dst_port` ...),
so both models use the classes here, whose field names are what tables' keys are written with.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from p4reduce.protocol.codec import HEADER

ETHERTYPE_IPV4 = 0x0800
IPPROTO_UDP = 17
ETHERNET_LEN = 14
IPV4_HDR_LEN = 20
UDP_HDR_LEN = 8
AGG_HDR_LEN = HEADER.size

# version/ihl, diffserv, total length, identification, flags/fragment offset, ttl, protocol,
# header checksum, source, destination.
IPV4 = struct.Struct("!BBHHHBBHII")
UDP = struct.Struct("!HHHH")


def mask(bits: int) -> int:
    return (1 << bits) - 1


def resolve_name(name: str, candidates: Iterable[str], what: str) -> str:
    """`name` itself or the one candidate it ends (at a '.'), as BMv2's STF runner resolves
    table and action names (`workers` for P4ReduceIngress.admission.workers)."""
    names = list(candidates)
    if name in names:
        return name
    found = [c for c in names if c.endswith("." + name)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise KeyError(f"no {what} named {name!r} (known: {', '.join(names)})")
    raise KeyError(f"{what} name {name!r} is ambiguous: {', '.join(found)}")


@dataclass(frozen=True)
class ActionCall:
    """An action with its parameters, as a table entry or a default holds it."""

    action: str
    params: tuple[tuple[str, int], ...] = ()

    def param(self, name: str) -> int:
        return dict(self.params)[name]


def ones_complement_sum(data: bytes) -> int:
    """The 16-bit ones'-complement sum of `data`'s big-endian words (end-around carry)."""
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def ipv4_checksum(header: bytes) -> int:
    """HashAlgorithm.csum16 / Tofino's Checksum.update over an IPv4 header's fields but its
    checksum (`header`: the 20 bytes, whatever their checksum field holds)."""
    return ~ones_complement_sum(header[:10] + b"\0\0" + header[12:20]) & 0xFFFF


def ipv4_checksum_verifies(header: bytes) -> bool:
    """Tofino's Checksum.verify(): the ones'-complement sum of the whole header, checksum
    included, is 0xFFFF. (It also takes 0xFFFF where the computed checksum is 0x0000:
    ones'-complement arithmetic has two zeros.)"""
    return ones_complement_sum(header[:20]) == 0xFFFF


# -- the Ethernet, IPv4 and UDP headers (both programs' ethernet_h, ipv4_h, udp_h) ----------


@dataclass
class Ethernet:
    valid: bool = False
    dst_addr: int = 0
    src_addr: int = 0
    ether_type: int = 0

    SIZE = ETHERNET_LEN

    def unpack(self, buf: bytes) -> None:
        self.valid = True
        self.dst_addr = int.from_bytes(buf[0:6], "big")
        self.src_addr = int.from_bytes(buf[6:12], "big")
        (self.ether_type,) = struct.unpack_from("!H", buf, 12)

    def pack(self) -> bytes:
        return self.dst_addr.to_bytes(6, "big") + self.src_addr.to_bytes(6, "big") + struct.pack("!H", self.ether_type)


@dataclass
class IPv4:
    valid: bool = False
    version: int = 0
    ihl: int = 0
    diffserv: int = 0
    total_len: int = 0
    identification: int = 0
    flags: int = 0  # 3 bits: reserved, DF, MF (bit 0, `flags[0:0]` in the parsers)
    frag_offset: int = 0
    ttl: int = 0
    protocol: int = 0
    hdr_checksum: int = 0
    src_addr: int = 0
    dst_addr: int = 0

    SIZE = IPV4_HDR_LEN

    def unpack(self, buf: bytes) -> None:
        vi, self.diffserv, self.total_len, self.identification, ff, self.ttl, self.protocol, csum, src, dst = (
            IPV4.unpack_from(buf)
        )
        self.valid = True
        self.version, self.ihl = vi >> 4, vi & 0xF
        self.flags, self.frag_offset = ff >> 13, ff & 0x1FFF
        self.hdr_checksum, self.src_addr, self.dst_addr = csum, src, dst

    def pack(self, checksum: int | None = None) -> bytes:
        return IPV4.pack(
            self.version << 4 | self.ihl,
            self.diffserv,
            self.total_len,
            self.identification,
            self.flags << 13 | self.frag_offset,
            self.ttl,
            self.protocol,
            self.hdr_checksum if checksum is None else checksum,
            self.src_addr,
            self.dst_addr,
        )

    def csum16(self) -> int:
        """The checksum over every field but hdr_checksum (v1model's HashAlgorithm.csum16 over
        parser.p4's field list, TNA's Checksum.update): the ones' complement of the
        ones'-complement sum."""
        return ipv4_checksum(self.pack())


@dataclass
class Udp:
    valid: bool = False
    src_port: int = 0
    dst_port: int = 0
    length: int = 0
    checksum: int = 0

    SIZE = UDP_HDR_LEN

    def unpack(self, buf: bytes) -> None:
        self.valid = True
        self.src_port, self.dst_port, self.length, self.checksum = UDP.unpack_from(buf)

    def pack(self) -> bytes:
        return UDP.pack(self.src_port, self.dst_port, self.length, self.checksum)


@dataclass
class Agg:
    """The aggregation header (headers.p4's agg_h, p4src/tna/headers.p4's agg_h: the same
    36 bytes and field names, docs/protocol.md section 2)."""

    valid: bool = False
    version: int = 0
    msg_type: int = 0
    job_id: int = 0
    worker_id: int = 0
    flags: int = 0
    shadow: int = 0
    slot: int = 0
    epoch: int = 0
    block: int = 0
    next_block: int = 0
    exp: int = 0
    next_exp: int = 0
    count: int = 0
    session: int = 0
    blocks: int = 0
    fingerprint: int = 0

    SIZE = AGG_HDR_LEN

    def unpack(self, buf: bytes) -> None:
        (v, t, job, worker, flags, pool, epoch, block, nxt, exp, nexp, count, session, blocks, fp) = HEADER.unpack_from(
            buf
        )
        self.valid = True
        self.version, self.msg_type, self.job_id, self.worker_id, self.flags = v, t, job, worker, flags
        self.shadow, self.slot = pool >> 15, pool & 0x7FFF
        self.epoch, self.block, self.next_block, self.exp, self.next_exp = epoch, block, nxt, exp, nexp
        self.count, self.session, self.blocks, self.fingerprint = count, session, blocks, fp

    def pack(self) -> bytes:
        return HEADER.pack(
            self.version,
            self.msg_type,
            self.job_id,
            self.worker_id,
            self.flags,
            self.shadow << 15 | self.slot,
            self.epoch,
            self.block,
            self.next_block,
            self.exp,
            self.next_exp,
            self.count,
            self.session,
            self.blocks,
            self.fingerprint,
        )
