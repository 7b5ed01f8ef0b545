# SPDX-License-Identifier: Apache-2.0
"""Wire constants and the aggregation-header codec (docs/protocol.md).

This is the only place that knows the byte layout; the host agent, the
software aggregator, the scapy layer and the tests all go through it.
"""

from __future__ import annotations

import enum
import struct
import zlib
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

PROTOCOL_VERSION = 3
AGG_UDP_PORT = 0xBEE0  # 48864
NONE = 0xFFFFFFFF  # "no block": an empty opening DATA's block, end-of-stream look-ahead
# XORed into the fingerprint of the rounds that must fail every worker (docs/protocol.md 5):
# a worker's after a late NaN/Inf, a leaf switch's round whose local packets disagreed.
POISON = 0xFFFFFFFF
ALL_WORKERS = 0xFF  # worker_id of a RESULT sent once to a job's IP multicast group
MAX_WORKERS = 32
MAX_SLOTS = 1 << 15  # 15 bits of slot index in `pool`
EXP_BIAS = 127
INT_EXP = EXP_BIAS  # exponent byte used for int32 tensors (ignored by receivers)

HEADER = struct.Struct("!BBHBBHIIIBBHIII")
HEADER_LEN = HEADER.size  # 36
MAX_UDP_PAYLOAD = 65507  # IPv4: 65535 - 20 (IP) - 8 (UDP)
MAX_BLOCK_SIZE = (MAX_UDP_PAYLOAD - HEADER_LEN) // 4  # 16367 values: one block fits one datagram
MAX_JOB_ID = 0xFFFF
EPOCH_MOD = 1 << 32
VALUE_DTYPE = np.dtype(">i4")
# An authenticated job's packets (docs/protocol.md 6.3): this flag in the version byte,
# and a MAC of MAC_LEN bytes after the values (p4reduce.protocol.auth seals and checks).
VERSION_AUTH = 0x80
MAC_LEN = 8


class MsgType(enum.IntEnum):
    DATA = 1
    RESULT = 2
    QUERY = 3
    PENDING = 4  # software aggregator: round still incomplete; next_block = missing-worker bitmap
    RESET = 5  # forget all state of a job; the aggregator echoes it as the acknowledgement
    JOIN = 6  # worker -> aggregator: a new process announces itself and its job geometry
    JOINED = 7  # aggregator -> worker: the job's geometry as the aggregator has it, and a session
    ERROR = 8  # software aggregator -> worker: the job failed; block = ErrorCode, next_block = detail
    # software aggregator -> worker, authenticated jobs: prove a new process; fingerprint = nonce
    # that the worker's next JOIN carries under its MAC (docs/protocol.md 6.3)
    CHALLENGE = 9


class Flags(enum.IntFlag):
    NONE = 0
    OVERFLOW = 1  # RESULT: an int32 sum of this block overflowed
    OPENING = 1  # DATA (the same bit): the opening round of its stream (docs/protocol.md 3)
    MISMATCH = 2  # RESULT: the round's packets disagree on epoch, blocks, fingerprint or owner
    SCATTER = 4  # DATA (echoed in RESULT): a reduce-scatter; bits 3..7 are the block's owner


# A SCATTER round's RESULT carries values only to the rank owning the block's shard
# (docs/protocol.md section 3.1); the owner travels in flags bits 3..7 (MAX_WORKERS = 32).
OWNER_SHIFT = 3
SCATTER_MASK = 0xFC  # SCATTER and the owner: every DATA of a round carries the same bits


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


class ErrorCode(enum.IntEnum):
    """Why a software aggregator failed a job (ERROR's `block`); `next_block` is the detail."""

    NOT_JOINED = 1  # unknown session: the aggregator restarted or the job was reset (detail: worker)
    GEOMETRY = 2  # a JOIN disagrees with the job (detail: GeometryField)
    REJOINED = 3  # a new process joined as a worker of a running job (detail: worker)
    SUPERSEDED = 4  # a process sent with a session that another process's JOIN replaced (detail: worker)
    TENSOR = 5  # workers disagree on the tensor (length, dtype) or fixed-point scale (detail: worker)
    SEQUENCE = 6  # workers are at different allreduces (detail: worker)
    BAD_BLOCKS = 7  # a block or look-ahead outside the tensor or its stream (detail: worker)
    UPSTREAM = 8  # the parent aggregator of a leaf failed the job (detail: the parent's code)
    UNKNOWN_JOB = 9  # a JOIN for a job this aggregator does not serve (detail: the job; not a failure)
    UNKNOWN_RANK = 10  # a JOIN for a rank >= num_workers (detail: the job's num_workers; not a failure)
    TOO_LARGE = 11  # a tensor of more blocks than the job's max_blocks (detail: worker)
    KEY = 12  # a JOIN without the job's key (detail: KeyMismatch; unsealed, not a failure)


class KeyMismatch(enum.IntEnum):
    """How a JOIN disagreed with the job's key (detail of ErrorCode.KEY)."""

    UNSEALED = 1  # the job has a key, the JOIN carries no MAC
    UNKEYED = 2  # the JOIN is sealed, the job has no key
    BAD_MAC = 3  # the JOIN's MAC is not the job key's: another key


class GeometryField(enum.IntEnum):
    """What a JOIN disagreed on (detail of ErrorCode.GEOMETRY)."""

    NUM_WORKERS = 1
    SLOT_BASE = 2
    NUM_SLOTS = 3
    BLOCK_SIZE = 4
    MODE = 5


class Mode(enum.StrEnum):
    """Who sends in a data round (docs/protocol.md section 4)."""

    SPARSE = "sparse"
    DENSE = "dense"

    @property
    def code(self) -> int:
        """How a JOIN/JOINED carries the mode (`exp`)."""
        return _MODE_CODES[self]

    @classmethod
    def from_code(cls, code: int) -> Mode:
        for mode, value in _MODE_CODES.items():
            if value == code:
                return mode
        raise ValueError(f"unknown mode code {code}")


_MODE_CODES = {Mode.SPARSE: 0, Mode.DENSE: 1}


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
        return (self.shadow & 1) << 15 | self.slot

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
                pool & 0x7FFF,
                pool >> 15,
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
