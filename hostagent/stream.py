# SPDX-License-Identifier: Apache-2.0
"""Worker side of one stream: the round-by-round state machine of docs/protocol.md section 7."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from p4reduce.hostagent.errors import JobFailed, ProtocolError
from p4reduce.protocol import (
    EXP_BIAS,
    HEADER_LEN,
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    Mode,
    MsgType,
    encode,
    is_repeat,
    packet_buffer,
    scatter_flags,
    wire_values,
)

# Plain ints: IntFlag arithmetic is slow on the per-result path.
_OVERFLOW = int(Flags.OVERFLOW)
_MISMATCH = int(Flags.MISMATCH)
_OPENING = int(Flags.OPENING)


class _Accepted:
    """What a stream took from the RESULT of its previous round, to tell a duplicate that
    differs from it (a forged or corrupted copy)."""

    __slots__ = ("shadow", "block", "exp", "next_block", "next_exp", "overflow", "delivered")

    def __init__(
        self, shadow: int, block: int, exp: int, next_block: int, next_exp: int, overflow: bool, delivered: bool
    ) -> None:
        self.shadow, self.block, self.exp = shadow, block, exp
        self.next_block, self.next_exp = next_block, next_exp
        self.overflow, self.delivered = overflow, delivered


class Stream:
    """One stream (slot) of one allreduce.

    `quantize(block, exp)` turns a block index into int32 values at the agreed
    exponent; or, when given, `encode(block, exp, wire)` writes them straight into
    the outgoing datagram (`wire`: a writable memoryview of its values, big-endian).
    `deliver(block, exp, values)` stores an aggregated block (`values` is a
    big-endian view of the received datagram, valid during the call only), and
    `delivered(block, exp, values)` says whether those values are what it stored.

    What a RESULT of the current round must say (docs/protocol.md 7), else ProtocolError
    naming the aggregator and the field: the values the round needs; a next block in this
    stream (`slot - slot_base` mod `num_slots`), inside the tensor, after the round's
    block and not past the worker's own next block (which it announced, so the minimum
    cannot be larger); at that block, an agreed exponent at least the worker's. A copy of
    the previous round's RESULT that differs from the one taken is an error too.

    `shard_blocks` > 0 makes it a stream of a reduce-scatter (docs/protocol.md 3.1):
    block b belongs to rank b // shard_blocks, every DATA says so in its flags, and
    only the owner's RESULTs must carry values; `deliver` is called for this
    worker's blocks only.
    """

    def __init__(
        self,
        *,
        job_id: int,
        worker_id: int,
        slot: int,
        round_: int,
        epoch: int,
        mode: Mode,
        my_blocks: list[int],
        my_exps: dict[int, int],
        block_size: int,
        quantize: Callable[[int, int], np.ndarray] | None,
        deliver: Callable[[int, int, np.ndarray], None],
        delivered: Callable[[int, int, np.ndarray], bool] | None = None,
        session: int = 0,
        group_session: int = 0,
        blocks: int = 0,
        fingerprint: int = 0,
        encode: Callable[[int, int, memoryview], None] | None = None,
        shard_blocks: int = 0,
        stream: int = 0,
        num_slots: int = 1,
    ) -> None:
        self.job_id, self.worker_id, self.slot = job_id, worker_id, slot
        self.round = round_
        self.epoch = epoch
        # Carried by every packet: which session, and which allreduce (docs/protocol.md 2).
        self.session, self.blocks, self.fingerprint = session, blocks, fingerprint
        self.group_session = group_session  # what the job's multicast results carry instead
        self.stream, self.num_slots = stream, num_slots  # its blocks b: b mod num_slots == stream
        self.mode = mode
        self.shard_blocks = shard_blocks
        self._mine = my_blocks  # ascending, NONE-terminated
        self._exps = my_exps
        self._pos = 0
        self._block_size = block_size
        self._quantize = quantize
        self._encode = encode
        self._deliver = deliver
        self._delivered = delivered
        self._previous: _Accepted | None = None  # the previous round of this allreduce
        # The current round's block and exponent; in the opening round this worker's own
        # first block and its exponent (the aggregator's RESULT names the round's block).
        self.block = NONE
        self.exp = EXP_BIAS
        self.opening = True
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
        if self.opening:
            flags |= _OPENING
        return AggHeader(
            msg_type,
            self.job_id,
            self.worker_id,
            self.slot,
            self.round & 1,
            self.epoch,
            self.block,
            nxt,
            self.exp,
            self._exps.get(nxt, 0),
            count,
            flags,
            self.session,
            self.blocks,
            self.fingerprint,
        )

    def start(self) -> bytes | bytearray:
        """The opening DATA: this worker's first block of the stream at its own exponent,
        with the look-ahead after it (header-only with block NONE if it holds none)."""
        first = self._mine[0]
        if first == NONE:
            self.pending = encode(self._header(MsgType.DATA, 0))
            return self.pending
        self.block, self.exp = first, self._exps[first]
        self._pos = 1
        return self._send_values(first)

    def _send_values(self, block: int) -> bytes | bytearray:
        """DATA with this worker's values of `block` at the round's exponent."""
        header = self._header(MsgType.DATA, self._block_size)
        if self._encode is not None:  # the native kernels write the datagram in place
            self.pending = buf = bytearray(HEADER_LEN + 4 * self._block_size)
            header.pack_into(buf)
            self._encode(block, self.exp, memoryview(buf)[HEADER_LEN:])
        else:
            assert self._quantize is not None, "a Stream that sends DATA needs quantize or encode"
            self.pending, wire = packet_buffer(header)
            wire[:] = self._quantize(block, self.exp)
        self.pending_is_query = False
        return self.pending

    def on_pending(self, h: AggHeader) -> None:
        """The aggregator says the current round still waits for some workers."""
        if h.shadow == self.round & 1 and h.epoch == self.epoch and h.block == self.block:
            self.missing_workers = h.next_block

    def on_result(
        self, h: AggHeader, payload: bytes | memoryview, source: tuple[str, int] = ("", 0)
    ) -> bytes | bytearray | None:
        """Handle a RESULT from `source` (the caller checked its session); returns the next
        packet to send now, if any.

        Results of other rounds (duplicates, re-sends of rounds already done) are ignored,
        unless one repeats the previous round with other contents. Three steps, the same
        as on_result's in p4reduce/_worker.c: check, deliver, advance.
        """
        taken = self._check_result(h, payload, source)
        if taken is None:
            return None
        exp, pos, repeat = taken
        delivered = self._deliver_result(h, payload, exp, repeat)
        return self._advance_stream(h, exp, pos, delivered)

    def _check_result(
        self, h: AggHeader, payload: bytes | memoryview, source: tuple[str, int]
    ) -> tuple[int, int, bool] | None:
        """Whether the RESULT is the current round's and says what docs/protocol.md 7
        requires: None when it is not this round's, or a copy to wait past; else the
        round's exponent, this worker's position once it is taken, and whether it is a
        REPEAT. Raises on a RESULT that fails the job or breaks the protocol.

        Nothing is stored here, so a refused RESULT leaves the stream as it was (the
        header-only copy of its own block, too): an opening round's RESULT sets the round's
        block, exponent and this worker's position only once it is taken."""
        if self.done or h.shadow != self.round & 1 or (h.block != self.block and not self.opening):
            self._check_duplicate(h, payload, source)
            return None
        if h.flags & _MISMATCH:
            # The round's packets disagreed (the RESULT repeats whichever packet came last,
            # so its epoch may not be ours): no worker of the job may use this round.
            raise JobFailed(self.job_id, self.worker_id, ErrorCode.TENSOR, -1, self.epoch)
        if h.epoch != self.epoch:
            return None
        if h.fingerprint != self.fingerprint:
            # This allreduce, another tensor: a worker's layout differs, or it found NaN/Inf
            # after its first packets left and poisoned its rounds (docs/protocol.md 5).
            raise JobFailed(self.job_id, self.worker_id, ErrorCode.TENSOR, -1, self.epoch)
        repeat = self.opening and is_repeat(h)  # a data round's RESULT never repeats its block
        block, exp, pos = self.block, self.exp, self._pos
        if self.opening:
            block, exp, pos = self._check_opening(h, repeat, source)
        nxt, mine = h.next_block, self._mine[pos]
        if nxt != NONE and self._outside(nxt):
            raise self._bad(
                h, source, f"next_block {nxt} is outside stream {self.stream} of a {self.blocks}-block tensor"
            )
        if nxt != NONE and block != NONE and nxt <= block and not repeat:
            raise self._bad(h, source, f"next_block {nxt} goes back from block {block}")
        if nxt > mine:
            raise self._bad(
                h, source, f"next_block {_name(nxt)} skips block {mine}, which this worker announced and never sent"
            )
        if nxt == mine != NONE and h.next_exp < self._exps[mine]:
            raise self._bad(
                h, source, f"next_exp {h.next_exp} is below this worker's {self._exps[mine]} for block {mine}"
            )
        if repeat:
            if h.count:
                raise self._bad(h, source, f"count {h.count} in a REPEAT")
        elif h.block != NONE:
            owner = self.owner(h.block)
            if owner is not None and owner != self.worker_id:
                # Another rank's block of a reduce-scatter: a header-only RESULT from an
                # aggregator that implements SCATTER, the full one from one that does not.
                if h.count not in (0, self._block_size):
                    raise self._bad(h, source, f"count {h.count} for block {h.block}")
            elif h.count != self._block_size:
                if owner is not None and h.count == 0:
                    # Our own block: the values come in our copy (this is the header-only
                    # copy a multicast group gets); wait for it, or re-ask on timeout.
                    return None
                raise self._bad(h, source, f"count {h.count} for block {h.block}")
        return exp, pos, repeat

    def _deliver_result(self, h: AggHeader, payload: bytes | memoryview, exp: int, repeat: bool) -> bool:
        """A checked RESULT's values to `deliver`, when they are this worker's (not a REPEAT,
        not the end of the stream, not another rank's block of a reduce-scatter). Returns
        whether it delivered them."""
        if repeat or h.block == NONE:
            return False
        delivered = False
        owner = self.owner(h.block)
        if owner is None or owner == self.worker_id:  # _check_result saw a full count
            self._deliver(h.block, exp, wire_values(payload, h.count))
            delivered = True
        # Every worker raises on an int32 overflow, whoever holds the block.
        self.overflow |= bool(h.flags & _OVERFLOW)
        return delivered

    def _advance_stream(self, h: AggHeader, exp: int, pos: int, delivered: bool) -> bytes | bytearray | None:
        """The RESULT taken: move to the round it names, keep what a copy of it must repeat
        (_check_duplicate), and return the next round's DATA (or, sparse, stay silent);
        or the stream is done."""
        opened, mine = self.opening, self._mine[pos]
        self.opening, self._pos = False, pos
        self._previous = _Accepted(
            h.shadow, h.block, exp, h.next_block, h.next_exp, bool(h.flags & _OVERFLOW), delivered
        )
        self.round += 1
        self.retries = 0
        self.missing_workers = None
        self.block, self.exp = h.next_block, h.next_exp
        if self.block == NONE:
            self.done = True
            self.pending = None
            return None
        if mine == self.block:
            self._pos += 1
            return self._send_values(mine)
        if self.mode is Mode.DENSE or opened:
            # Sparse mode too after the opening round: its next round expects every worker.
            self.pending = encode(self._header(MsgType.DATA, 0))
            self.pending_is_query = False
            return self.pending
        # Sparse mode: stay silent; on timeout ask for the result instead.
        self.pending = encode(self._header(MsgType.QUERY, 0))
        self.pending_is_query = True
        return None

    def _check_opening(self, h: AggHeader, repeat: bool, source: tuple[str, int]) -> tuple[int, int, int]:
        """The RESULT of the opening round names the round's block: the smallest any worker
        holds (so not past this worker's own), at this worker's exponent if it is its own
        (else its values were not summed), unless it is a REPEAT of it. Returns the round's
        block and exponent as the RESULT says, and this worker's position once it is taken:
        its first block is still to send unless it was that block and not repeated."""
        first = self._mine[0]
        if h.block > first:
            raise self._bad(h, source, f"block {_name(h.block)} past this worker's first block {_name(first)}")
        if h.block == first != NONE and not repeat and h.exp != self.exp:
            raise self._bad(h, source, f"exp {h.exp} for block {first}, which this worker sent at {self.exp}")
        if h.block != NONE and self._outside(h.block):
            raise self._bad(h, source, f"block {h.block} outside stream {self.stream} of a {self.blocks}-block tensor")
        if h.block == NONE and h.next_block != NONE:
            raise self._bad(h, source, f"next_block {h.next_block} after an empty opening round")
        return h.block, h.exp, 0 if repeat or h.block != first else self._pos

    def _outside(self, block: int) -> bool:
        """`block` is not one of this stream's blocks of the tensor."""
        return block >= self.blocks or block % self.num_slots != self.stream

    def _check_duplicate(self, h: AggHeader, payload: bytes | memoryview, source: tuple[str, int]) -> None:
        """A RESULT of the previous round again (a lost-and-re-sent copy) must be the same."""
        prev = self._previous
        if (
            prev is None
            or h.shadow != prev.shadow
            or h.block != prev.block
            or h.epoch != self.epoch
            or h.fingerprint != self.fingerprint
            or h.flags & _MISMATCH
        ):
            return
        if (h.next_block, h.next_exp, bool(h.flags & _OVERFLOW)) != (prev.next_block, prev.next_exp, prev.overflow):
            raise self._bad(
                h,
                source,
                f"a second RESULT for block {_name(h.block)} names next_block "
                f"{_name(h.next_block)} (next_exp {h.next_exp}), the first "
                f"{_name(prev.next_block)} (next_exp {prev.next_exp})",
            )
        if (
            prev.delivered
            and h.count == self._block_size
            and self._delivered is not None
            and not self._delivered(h.block, prev.exp, wire_values(payload, h.count))
        ):
            raise self._bad(h, source, f"a second RESULT for block {h.block} has other values")

    def _bad(self, h: AggHeader, source: tuple[str, int], what: str) -> ProtocolError:
        return ProtocolError(
            f"job {self.job_id} worker {self.worker_id}: the RESULT from {source[0]}:"
            f"{source[1]} for slot {self.slot} block {_name(h.block)} has {what}"
        )


def _name(block: int) -> str:
    return "NONE" if block == NONE else str(block)
