"""Worker side of one stream: the round-by-round state machine of docs/protocol.md section 7."""
from __future__ import annotations

from typing import Callable

import numpy as np

from p4reduce.hostagent.errors import JobFailed
from p4reduce.protocol import (EXP_BIAS, HEADER_LEN, NONE, AggHeader, ErrorCode, Flags, Mode, MsgType,
                               encode, packet_buffer, scatter_flags, wire_values)

# Plain ints: IntFlag arithmetic is slow on the per-result path.
_OVERFLOW = int(Flags.OVERFLOW)
_MISMATCH = int(Flags.MISMATCH)


class ProtocolError(RuntimeError):
    """The aggregator's answers contradict the protocol."""


class Stream:
    """One stream (slot) of one allreduce.

    `quantize(block, exp)` turns a block index into int32 values at the agreed
    exponent; or, when given, `encode(block, exp, wire)` writes them straight into
    the outgoing datagram (`wire`: a writable memoryview of its values, big-endian).
    `deliver(block, exp, values)` stores an aggregated block (`values` is a
    big-endian view of the received datagram, valid during the call only).

    `shard_blocks` > 0 makes it a stream of a reduce-scatter (docs/protocol.md 3.1):
    block b belongs to rank b // shard_blocks, every DATA says so in its flags, and
    only the owner's RESULTs must carry values; `deliver` is called for this
    worker's blocks only.
    """

    def __init__(self, *, job_id: int, worker_id: int, slot: int, round_: int, epoch: int,
                 mode: Mode, my_blocks: list[int], my_exps: dict[int, int], block_size: int,
                 quantize: Callable[[int, int], np.ndarray],
                 deliver: Callable[[int, int, np.ndarray], None],
                 session: int = 0, blocks: int = 0, fingerprint: int = 0,
                 encode: Callable[[int, int, memoryview], None] | None = None,
                 shard_blocks: int = 0) -> None:
        self.job_id, self.worker_id, self.slot = job_id, worker_id, slot
        self.round = round_
        self.epoch = epoch
        # Carried by every packet: which session, and which allreduce (docs/protocol.md 2).
        self.session, self.blocks, self.fingerprint = session, blocks, fingerprint
        self.mode = mode
        self.shard_blocks = shard_blocks
        self._mine = my_blocks  # ascending, NONE-terminated
        self._exps = my_exps
        self._pos = 0
        self._block_size = block_size
        self._quantize = quantize
        self._encode = encode
        self._deliver = deliver
        self.block = NONE  # current round; NONE = bootstrap
        self.exp = EXP_BIAS
        self.done = False
        self.overflow = False
        self.pending: bytes | bytearray | None = None  # what to (re)send on timeout
        self.pending_is_query = False
        self.retries = 0
        self.missing_workers: int | None = None  # bitmap from the aggregator's last PENDING

    def owner(self, block: int) -> int | None:
        """The rank whose shard holds `block` (None: not a reduce-scatter; 0 for NONE)."""
        if not self.shard_blocks:
            return None
        return 0 if block == NONE else block // self.shard_blocks

    def _header(self, msg_type: MsgType, count: int) -> AggHeader:
        nxt = self._mine[self._pos]
        owner = self.owner(self.block)
        flags = 0 if owner is None or msg_type != MsgType.DATA else scatter_flags(owner)
        return AggHeader(msg_type, self.job_id, self.worker_id, self.slot, self.round & 1,
                         self.epoch, self.block, nxt, self.exp,
                         self._exps.get(nxt, 0), count, flags, self.session, self.blocks,
                         self.fingerprint)

    def start(self) -> bytes:
        """The bootstrap DATA packet announcing this worker's first block."""
        self.pending = encode(self._header(MsgType.DATA, 0))
        return self.pending

    def on_pending(self, h: AggHeader) -> None:
        """The aggregator says the current round still waits for some workers."""
        if h.shadow == self.round & 1 and h.epoch == self.epoch and h.block == self.block:
            self.missing_workers = h.next_block

    def on_result(self, h: AggHeader, payload: bytes | memoryview) -> bytes | bytearray | None:
        """Handle a RESULT; returns the next packet to send now, if any.

        Results of other rounds (duplicates, re-sends of rounds already done)
        are ignored.
        """
        if self.done or h.shadow != self.round & 1 or h.block != self.block:
            return None
        if h.flags & _MISMATCH:
            # The round's packets disagreed (the RESULT repeats whichever packet came last,
            # so its epoch may not be ours): no worker of the job may use this round.
            raise JobFailed(self.job_id, self.worker_id, ErrorCode.TENSOR, -1, self.epoch)
        if h.epoch != self.epoch or h.fingerprint != self.fingerprint:
            return None
        if h.block != NONE:
            owner = self.owner(h.block)
            if owner is not None and owner != self.worker_id:
                # Another rank's block of a reduce-scatter: a header-only RESULT from an
                # aggregator that implements SCATTER, the full one from one that does not.
                if h.count not in (0, self._block_size):
                    raise ProtocolError(f"slot {self.slot}: result for block {h.block} has {h.count} values")
            elif h.count != self._block_size:
                if owner is not None and h.count == 0:
                    # Our own block: the values come in our copy (this is the header-only
                    # copy a multicast group gets); wait for it, or re-ask on timeout.
                    return None
                raise ProtocolError(f"slot {self.slot}: result for block {h.block} has {h.count} values")
            else:
                self._deliver(h.block, self.exp, wire_values(payload, h.count))
            # Every worker raises on an int32 overflow, whoever holds the block.
            self.overflow |= bool(h.flags & _OVERFLOW)
        self.round += 1
        self.retries = 0
        self.missing_workers = None
        self.block, self.exp = h.next_block, h.next_exp
        if self.block == NONE:
            self.done = True
            self.pending = None
            return None
        mine = self._mine[self._pos]
        if mine < self.block:
            raise ProtocolError(f"slot {self.slot}: aggregator moved to block {self.block} "
                                f"but this worker's block {mine} was never aggregated")
        if mine == self.block:
            self._pos += 1
            header = self._header(MsgType.DATA, self._block_size)
            if self._encode is not None:  # the native kernels write the datagram in place
                self.pending = buf = bytearray(HEADER_LEN + 4 * self._block_size)
                header.pack_into(buf)
                self._encode(mine, self.exp, memoryview(buf)[HEADER_LEN:])
            else:
                self.pending, wire = packet_buffer(header)
                wire[:] = self._quantize(mine, self.exp)
            self.pending_is_query = False
            return self.pending
        if self.mode is Mode.DENSE:
            self.pending = encode(self._header(MsgType.DATA, 0))
            self.pending_is_query = False
            return self.pending
        # Sparse mode: stay silent; on timeout ask for the result instead.
        self.pending = encode(self._header(MsgType.QUERY, 0))
        self.pending_is_query = True
        return None
