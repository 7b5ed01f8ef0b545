# SPDX-License-Identifier: Apache-2.0
"""Wire constants and the aggregation-header codec (docs/protocol.md).

The constants, the enums and the header's layout are described once, in
p4reduce/protocol/wire.toml; tools/wire.py writes them into `_wire_gen` (and into the
C, Lua and P4 sides), and this module exports them. The codec here is the only Python
that packs and unpacks the header; the host agent, the software aggregator, the scapy
layer and the tests all go through it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from p4reduce.protocol._wire_gen import (
    AGG_UDP_PORT,
    ALL_WORKERS,
    EXP_BIAS,
    HEADER_FORMAT,
    HEADER_LEN,
    MAC_LEN,
    MAX_BLOCK_SIZE,
    MAX_JOB_ID,
    MAX_SLOTS,
    MAX_UDP_PAYLOAD,
    MAX_WORKERS,
    NONE,
    OWNER_SHIFT,
    POISON,
    PROTOCOL_VERSION,
    SCATTER_MASK,
    SHADOW_MASK,
    SHADOW_SHIFT,
    SLOT_MASK,
    VERSION_AUTH,
    ErrorCode,
    Flags,
    GeometryField,
    KeyMismatch,
    Mode,
    MsgType,
)

# What the description's names mean: their comments in _wire_gen.py (and wire.toml). A
# SCATTER round's RESULT carries values only to the rank owning the block's shard
# (docs/protocol.md 3.1); the owner travels in flags bits 3..7 (OWNER_SHIFT, SCATTER_MASK).
INT_EXP = EXP_BIAS  # exponent byte used for int32 tensors (ignored by receivers)
HEADER = struct.Struct(HEADER_FORMAT)
EPOCH_MOD = 1 << 32
VALUE_DTYPE = np.dtype(">i4")

# The description's names are exported from here (mypy --strict re-exports only what __all__ names).
__all__ = [
    "AGG_UDP_PORT",
    "ALL_WORKERS",
    "DTYPE_CODES",
    "EPOCH_MOD",
    "EXP_BIAS",
    "HEADER",
    "HEADER_LEN",
    "INT_EXP",
    "MAC_LEN",
    "MAX_BLOCK_SIZE",
    "MAX_JOB_ID",
    "MAX_SLOTS",
    "MAX_UDP_PAYLOAD",
    "MAX_WORKERS",
    "NONE",
    "OWNER_SHIFT",
    "POISON",
    "PROTOCOL_VERSION",
    "SCATTER_MASK",
    "VALUE_DTYPE",
    "VERSION_AUTH",
    "AggHeader",
    "ErrorCode",
    "Flags",
    "GeometryField",
    "KeyMismatch",
    "MalformedPacket",
    "Mode",
    "MsgType",
    "decode_values",
    "encode",
    "fingerprint",
    "is_repeat",
    "lookahead_key",
    "packet_buffer",
    "scatter_bits",
    "scatter_flags",
    "scatter_owner",
    "split_key",
    "wire_values",
]


def scatter_flags(owner: int) -> int:
    """`flags` of a DATA of a reduce-scatter whose round's block belongs to `owner`."""
    if not 0 <= owner < MAX_WORKERS:
        raise ValueError(f"owner {owner} outside 0..{MAX_WORKERS - 1}")
    return Flags.SCATTER | owner << OWNER_SHIFT


def scatter_bits(flags: int) -> int:
    """A packet's SCATTER and owner bits (0 without SCATTER: the owner bits are then reserved)."""
    return flags & SCATTER_MASK if flags & Flags.SCATTER else 0


def scatter_owner(flags: int) -> int | None:
    """The owner a packet's flags name, or None when it is not a SCATTER packet."""
    return flags >> OWNER_SHIFT if flags & Flags.SCATTER else None


class MalformedPacket(ValueError):
    """A datagram that does not follow the wire format; `reason` names why."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class AggHeader(NamedTuple):
    """One aggregation header, immutable. A NamedTuple: built once per packet on every
    side's hot path, where a frozen dataclass costs several times as much."""

    msg_type: int
    job_id: int
    worker_id: int
    slot: int
    shadow: int  # shadow copy of the slot used by this round (round mod 2)
    epoch: int  # allreduce sequence number of the worker's session, mod 2^32 (JOIN: incarnation)
    block: int
    next_block: int = NONE
    exp: int = INT_EXP
    next_exp: int = INT_EXP
    count: int = 0  # type: ignore[assignment]  # the spec's field name; hides tuple.count
    flags: int = 0
    session: int = 0  # from the JOINED answer; 0 in a JOIN
    blocks: int = 0  # blocks of the allreduce's tensor, ceil(length / block_size)
    fingerprint: int = 0  # CRC-32 of the allreduce's epoch, tensor and scaling (see fingerprint())
    version: int = PROTOCOL_VERSION  # protocol version; | VERSION_AUTH: a MAC follows (sealed)

    @property
    def sealed(self) -> bool:
        """An authenticated job's packet: a MAC follows the values (docs/protocol.md 6.3)."""
        return bool(self.version & VERSION_AUTH)

    @property
    def pool(self) -> int:
        return (self.shadow & SHADOW_MASK) << SHADOW_SHIFT | self.slot

    @property
    def lookahead_key(self) -> int:
        return lookahead_key(self.next_block, self.next_exp)

    def _wire(self) -> tuple[int, ...]:
        if not 0 <= self.slot < MAX_SLOTS:
            raise ValueError(f"slot {self.slot} outside 0..{MAX_SLOTS - 1}")
        return (
            self.version,
            self.msg_type,
            self.job_id,
            self.worker_id,
            self.flags,
            self.pool,
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

    def pack(self) -> bytes:
        return HEADER.pack(*self._wire())

    def pack_into(self, buf: bytearray) -> None:
        HEADER.pack_into(buf, 0, *self._wire())

    @classmethod
    def unpack(cls, buf: bytes | memoryview) -> AggHeader:
        """Decode and check the header and the payload length (not semantics)."""
        if len(buf) < HEADER_LEN:
            raise MalformedPacket("truncated", f"{len(buf)} < {HEADER_LEN} bytes")
        (ver, mtype, job, worker, flags, pool, epoch, block, nxt, exp, nexp, count, session, blocks, fingerprint) = (
            HEADER.unpack_from(buf)
        )
        if ver & ~VERSION_AUTH != PROTOCOL_VERSION:
            raise MalformedPacket(
                "bad_version", f"protocol version {ver & ~VERSION_AUTH}, this side speaks version {PROTOCOL_VERSION}"
            )
        if mtype not in _MSG_TYPES:
            raise MalformedPacket("bad_type", str(mtype))
        if len(buf) != HEADER_LEN + 4 * count + (MAC_LEN if ver & VERSION_AUTH else 0):
            raise MalformedPacket("bad_length", f"{len(buf)} bytes for count={count}")
        return cls._make(
            (
                mtype,
                job,
                worker,
                pool & SLOT_MASK,
                pool >> SHADOW_SHIFT,
                epoch,
                block,
                nxt,
                exp,
                nexp,
                count,
                flags,
                session,
                blocks,
                fingerprint,
                ver,
            )
        )


_MSG_TYPES = frozenset(int(t) for t in MsgType)


def lookahead_key(next_block: int, next_exp: int) -> int:
    """Min over keys = smallest next block, ties -> largest exponent."""
    return next_block << 8 | (255 - next_exp)


def is_repeat(header: AggHeader) -> bool:
    """A RESULT that asks the holders of its block to send it again at `next_exp`
    (the holders' exponents disagreed in the opening round, docs/protocol.md 3)."""
    return header.block == header.next_block != NONE


def split_key(key: int) -> tuple[int, int]:
    return key >> 8, 255 - (key & 0xFF)


def encode(header: AggHeader, values: np.ndarray | None = None) -> bytes:
    """UDP payload: header plus `header.count` big-endian int32 values."""
    if values is None:
        if header.count:
            raise ValueError("count > 0 but no values given")
        return header.pack()
    if len(values) != header.count:
        raise ValueError(f"{len(values)} values for count={header.count}")
    return header.pack() + np.asarray(values).astype(VALUE_DTYPE, copy=False).tobytes()


def packet_buffer(header: AggHeader, buf: bytearray | None = None) -> tuple[bytearray, np.ndarray]:
    """A datagram holding `header`, and a writable view of its `header.count`
    values to fill in place (saves the copies of `encode` on the fast path).
    `buf`, if given, is reused: it must have exactly the datagram's size."""
    size = HEADER_LEN + 4 * header.count
    if buf is None:
        buf = bytearray(size)
    elif len(buf) != size:
        raise ValueError(f"buffer of {len(buf)} bytes for a {size}-byte datagram")
    header.pack_into(buf)
    return buf, wire_values(buf, header.count)


def wire_values(buf: bytes | bytearray | memoryview, count: int) -> np.ndarray:
    """The values behind the header as a big-endian view of `buf` (no copy):
    numpy's ufuncs and `copyto` read and write it directly."""
    return np.frombuffer(buf, VALUE_DTYPE, count, HEADER_LEN)


def decode_values(buf: bytes | bytearray | memoryview, count: int) -> np.ndarray:
    """The int32 values behind the header, as a native-endian int32 copy."""
    return wire_values(buf, count).astype(np.int32)


DTYPE_CODES = {np.dtype(np.float32): 1, np.dtype(np.int32): 2}
_FINGERPRINT = struct.Struct("!IQBIII")


def fingerprint(
    epoch: int,
    length: int,
    dtype: np.dtype,
    block_size: int,
    num_slots: int,
    scale_workers: int,
    shards: Sequence[int] | None = None,
) -> int:
    """What every packet of one allreduce carries so that the aggregator (and the switch,
    which compares it within each round) can tell workers that disagree: the allreduce's
    sequence number, the tensor's length and dtype, and what fixed point scales by.

    A reduce-scatter also covers its shard layout: `shards` are the elements of each
    rank's shard, in rank order (summing to `length`), packed after the rest as
    big-endian uint64s; a plain allreduce's fingerprint has no such tail."""
    head = _FINGERPRINT.pack(epoch, length, DTYPE_CODES[np.dtype(dtype)], block_size, num_slots, scale_workers)
    if shards is None:
        return zlib.crc32(head)
    return zlib.crc32(head + struct.pack(f"!{len(shards)}Q", *shards))
