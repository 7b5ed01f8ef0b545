# SPDX-License-Identifier: Apache-2.0
"""State machine of one aggregation slot (one stream of a job).

Mirrors docs/protocol.md sections 3, 4 and 6: every allreduce starts a stream
with its opening round (each worker brings its own first block; the smallest
wins, and holders that disagree on its exponent make the RESULT a REPEAT),
then data rounds follow the look-ahead. Software has memory to spare, so
a slot keeps every result of the running allreduce instead of only the shadow
copy: that is what lets silent (sparse-mode) workers recover lost results. The
history is bounded by the tensor: a stream has at most ceil(blocks / slots)
data rounds, because every look-ahead must move forward within the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from p4reduce import _native
from p4reduce.aggregator.buffers import BufferPool
from p4reduce.protocol import (
    ALL_WORKERS,
    EXP_BIAS,
    HEADER_LEN,
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    Mode,
    MsgType,
    lookahead_key,
    scatter_bits,
    scatter_owner,
    split_key,
)
from p4reduce.protocol._wire_gen import (
    HDR_OFF_COUNT,
    HDR_OFF_FLAGS,
    HDR_OFF_SESSION,
    HDR_OFF_WORKER_ID,
    HDR_SIZE_COUNT,
    HDR_SIZE_SESSION,
)
from p4reduce.transport.batchio import Buffer

END_KEY = lookahead_key(NONE, 0)
# A stored RESULT's copy rewrites in place `worker_id` (its receiving worker), `session` (its
# receiver's, the group's for ALL_WORKERS) and `count` (0 in the header-only copies of a
# SCATTER round's RESULT); `flags` names the owner of such a round's values.
_OPENING = int(Flags.OPENING)
_SCATTER = int(Flags.SCATTER)

# A datagram as the pieces the kernel gathers (sendmmsg iovecs): per-worker
# copies of a result share its values and differ only in the header.
Parts = tuple[Buffer, ...]


# A slot between allreduces that hears nothing for this long forgets their epochs and
# kept results, so its next opening round is new whatever its epoch says: fewer than 2^31
# allreduces fit in a minute, so a slot is never idle long enough for the 32-bit epoch
# to come round (docs/protocol.md 6).
IDLE_HORIZON = 60.0


def epoch_is_newer(candidate: int, current: int) -> bool:
    """Serial-number comparison mod 2^32 (RFC 1982 style)."""
    return 0 < (candidate - current) % (1 << 32) < 1 << 31


class JobFailure(Exception):
    """A packet shows the job cannot produce a correct result: every worker must be told."""

    def __init__(self, code: ErrorCode, detail: int) -> None:
        super().__init__(f"{code.name} ({detail})")
        self.code, self.detail = code, detail


@dataclass
class StoredResult:
    shadow: int
    fingerprint: int  # of the allreduce: a re-send goes only to a packet of the same one
    payload: bytearray  # RESULT; worker_id is set per copy
    owner: int | None = None  # a SCATTER data round's: only this worker's copy has the values

    def for_worker(self, worker_id: int, session: int) -> Parts:
        """The copy for `worker_id`: its rank and its session (docs/protocol.md 6.1) in the
        header, the values shared unless the copy is header-only."""
        head = bytearray(self.payload[:HEADER_LEN])
        head[HDR_OFF_WORKER_ID] = worker_id
        head[HDR_OFF_SESSION : HDR_OFF_SESSION + HDR_SIZE_SESSION] = session.to_bytes(4, "big")
        if self.owner is not None and worker_id != self.owner:
            head[HDR_OFF_COUNT : HDR_OFF_COUNT + HDR_SIZE_COUNT] = b"\0\0"  # header-only (docs/protocol.md 3.1)
            return (head,)
        if len(self.payload) == HEADER_LEN:
            return (head,)
        return head, memoryview(self.payload)[HEADER_LEN:]


def no_sessions(worker_id: int) -> int:
    """Sessions of a slot used without a job (tests): none known."""
    return 0


class SlotState:
    """Aggregation of one slot; `on_data`/`on_query` return (worker_id, parts) pairs to send."""

    def __init__(
        self,
        job_id: int,
        slot: int,
        num_workers: int,
        mode: Mode,
        block_size: int,
        pool: BufferPool | None = None,
        *,
        stream: int = 0,
        num_slots: int = 1,
        max_blocks: int = 0xFFFFFFFE,
    ) -> None:
        self.job_id = job_id
        self.slot = slot
        self.stream = stream  # slot - slot_base: the blocks b with b mod num_slots == stream
        self.num_slots = num_slots
        self.max_blocks = max_blocks  # the job's cap on a tensor's blocks (JobSpec.max_blocks)
        self.num_workers = num_workers
        self.mode = mode
        self.block_size = block_size
        self.all_workers = (1 << num_workers) - 1
        self.round = 0
        self.epoch: int | None = None  # epoch of the latest started allreduce
        self.previous_epoch: int | None = None  # the one before it (whose results are kept)
        # An authenticated job's slot remembers the epoch it forgot at its idle horizon: a
        # replay of that allreduce's opening DATA is stale, not a new round (spec 6.3).
        self.keyed = False
        self.forgotten: int | None = None
        self.blocks = 0  # its tensor's blocks and fingerprint, as its first packet gave them
        self.fingerprint = 0
        self.mismatch: JobFailure | None = None  # the round's packets disagree (flagged RESULT)
        self.scatter = 0  # the SCATTER/owner bits of the round's first counted DATA (scatter_bits)
        self.failure: JobFailure | None = None  # set when a completed round failed the job
        self.block = NONE  # block of the current round; NONE = the opening round
        self.exp = EXP_BIAS  # agreed exponent of the current round
        self.expected = self.all_workers
        self.seen = 0
        self.acc = np.zeros(block_size, dtype=np.int64)
        self._acc_empty = True  # no values this round yet: the first ones are copied, not added
        self.keys = [END_KEY] * num_workers  # each worker's last announced look-ahead
        # The opening round (docs/protocol.md 3): each worker's own key(block, exp), the
        # smallest so far (K1) with the SCATTER/owner bits of its packet, and whether the
        # holders of K1's block disagree (or one sent no values): a REPEAT.
        self.own_keys = [END_KEY] * num_workers
        self.first_key = END_KEY
        self.first_flags = 0
        self.repeat = False
        self.history: dict[tuple[int, int], StoredResult] = {}
        self.pool = pool or BufferPool()
        # Results go out once, to the job's IP multicast group, instead of once per worker.
        self.multicast = False
        self.heard_at: float | None = None  # monotonic time of its last packet
        # The session each copy of a result carries: the receiving member's, the group's
        # for ALL_WORKERS (set by the job; a worker takes no result without its session).
        self.session_of: Callable[[int], int] = no_sessions

    def heard(self, now: float, horizon: float = IDLE_HORIZON) -> None:
        """A packet for this slot at `now`; idle for longer than `horizon` between
        allreduces, it first forgets them (their epochs and kept results)."""
        if self.heard_at is not None and now - self.heard_at > horizon and self.block == NONE and self.seen == 0:
            self.pool.retire(old.payload for old in self.history.values())
            self.history.clear()
            self.forgotten = self.epoch if self.keyed else None
            self.epoch = self.previous_epoch = None
        self.heard_at = now

    # -- round identification -------------------------------------------------
    @staticmethod
    def _opening(h: AggHeader) -> bool:
        """A DATA of an opening round (every worker's names its own block)."""
        return h.msg_type == MsgType.DATA and bool(h.flags & _OPENING)

    def _is_current(self, h: AggHeader) -> bool:
        if h.shadow != self.round & 1:
            return False
        if self.block != NONE:
            return not self._opening(h) and h.block == self.block and h.epoch == self.epoch
        if not self._opening(h):
            return False
        if self.seen == 0:
            # An opening round adopts the epoch of its first counted packet,
            # provided it is newer than the allreduce the slot last served.
            if self.epoch is None:
                return self.forgotten is None or h.epoch != self.forgotten
            return epoch_is_newer(h.epoch, self.epoch)
        if h.epoch != self.epoch:
            # Newer than the allreduce this slot served before: this worker is at another
            # allreduce than the opening round in progress. Counted, and the RESULT says so.
            # (Older ones are late retransmissions, answered from the kept results.)
            return self.previous_epoch is None or epoch_is_newer(h.epoch, self.previous_epoch)
        return True

    def _in_stream(self, block: int, blocks: int) -> bool:
        return block < blocks and block % self.num_slots == self.stream

    def _check_lookahead(self, h: AggHeader) -> None:
        """A block and its look-ahead must stay in this stream, inside the tensor, and
        the look-ahead must move forward (from the packet's own block in an opening round)."""
        base = h.block if self.block == NONE else self.block
        if base != NONE and not self._in_stream(base, h.blocks):
            raise JobFailure(ErrorCode.BAD_BLOCKS, h.worker_id)
        nxt = h.next_block
        if nxt == NONE:
            return
        if not self._in_stream(nxt, h.blocks) or base == NONE or nxt <= base:
            raise JobFailure(ErrorCode.BAD_BLOCKS, h.worker_id)

    def _check_allreduce(self, h: AggHeader) -> None:
        """Adopt (first packet) or compare the allreduce's epoch, tensor and fingerprint."""
        if self.seen == 0 and self.block == NONE:
            self.blocks, self.fingerprint, self.mismatch = h.blocks, h.fingerprint, None
            if h.blocks > self.max_blocks:  # the results kept for re-sends follow `blocks`
                raise JobFailure(ErrorCode.TOO_LARGE, h.worker_id)
            if self.stream >= h.blocks:  # this stream has no block of the tensor
                raise JobFailure(ErrorCode.BAD_BLOCKS, h.worker_id)
            return
        if h.epoch != self.epoch:
            problem = JobFailure(ErrorCode.SEQUENCE, h.worker_id)
        elif (h.blocks, h.fingerprint) != (self.blocks, self.fingerprint):
            problem = JobFailure(ErrorCode.TENSOR, h.worker_id)
        else:
            return
        if self.block != NONE:  # everyone agreed in the opening round: a worker changed mid-way
            raise problem
        self.mismatch = self.mismatch or problem

    def _check_scatter(self, h: AggHeader) -> None:
        """Every DATA of a data round names the same owner (or none): a later one whose bits
        differ from the first one's flags the RESULT MISMATCH, like a fingerprint. In an
        opening round each packet names its own block's owner: only SCATTER must agree."""
        bits = scatter_bits(h.flags)
        owner = scatter_owner(bits)
        if owner is not None and owner >= self.num_workers:
            raise JobFailure(ErrorCode.BAD_BLOCKS, h.worker_id)
        if self.block == NONE:
            bits &= _SCATTER
        if self.seen == 0:
            self.scatter = bits
        elif bits != self.scatter:
            self.mismatch = self.mismatch or JobFailure(ErrorCode.TENSOR, h.worker_id)

    def _resend(self, h: AggHeader) -> tuple[str, list[tuple[int, Parts]]]:
        # An opening round's result is kept under NONE: each worker's DATA names its own block.
        stored = self.history.get((h.epoch, NONE if self._opening(h) else h.block))
        if stored is None or stored.shadow != h.shadow or stored.fingerprint != h.fingerprint:
            return "stale", []
        return "resent", [(h.worker_id, stored.for_worker(h.worker_id, h.session))]

    # -- packet handlers ------------------------------------------------------
    def _pending(self, h: AggHeader, event: str) -> tuple[str, list[tuple[int, Parts]]]:
        """Tell a retransmitting or querying worker whom the round still waits for."""
        missing = self.expected & ~self.seen
        reply = AggHeader(
            MsgType.PENDING,
            self.job_id,
            h.worker_id,
            self.slot,
            h.shadow,
            h.epoch,
            h.block,
            missing,
            h.exp,
            0,
            0,
            0,
            h.session,
            h.blocks,
            h.fingerprint,
        )
        return event, [(h.worker_id, (reply.pack(),))]

    def on_query(self, h: AggHeader) -> tuple[str, list[tuple[int, Parts]]]:
        if self._is_current(h):
            return self._pending(h, "pending")
        return self._resend(h)

    def on_data(self, h: AggHeader, values: np.ndarray | None) -> tuple[str, list[tuple[int, Parts]]]:
        """Returns (event, packets); event names what happened, for counters."""
        if not self._is_current(h):
            return self._resend(h)
        bit = 1 << h.worker_id
        if not self.expected & bit:
            return "unexpected", []
        if self.seen & bit:
            return self._pending(h, "duplicate")
        opening = self.block == NONE
        if opening:
            if h.block == NONE and h.count:
                return "bad_count", []
        elif h.exp != self.exp:
            return "bad_exp", []
        self._check_allreduce(h)
        self._check_lookahead(h)
        self._check_scatter(h)
        if self.seen == 0:
            if opening:
                self.previous_epoch = self.epoch
            self.epoch = h.epoch
        if opening:
            self._count_opening(h, values)
        else:  # the first packet of the round with values overwrites the sums, later ones add
            self._add_values(values, overwrite=False)
        self.keys[h.worker_id] = h.lookahead_key
        self.seen |= bit
        if self.seen != self.expected:
            return "counted", []
        return "completed", self._complete(h)

    def _count_opening(self, h: AggHeader, values: np.ndarray | None) -> None:
        """One packet of the opening round (docs/protocol.md 3, the table): the smallest
        key(block, exp) so far (K1) decides whether its values overwrite the sums, add to
        them or are left out; holders of K1's block at another exponent, or without
        values, make the round a REPEAT. (K2 follows from the keys at the end.)"""
        own = lookahead_key(h.block, h.exp)
        self.own_keys[h.worker_id] = own
        first, smallest = self.seen == 0, self.first_key
        no_values = values is None and h.block != NONE
        if first or own >> 8 < smallest >> 8:
            self.first_key, self.first_flags, self.repeat = own, scatter_bits(h.flags), no_values
            self._add_values(values, overwrite=True)
        elif own >> 8 == smallest >> 8:
            self.repeat = self.repeat or own != smallest or no_values
            if own < smallest:
                self.first_key, self.first_flags = own, scatter_bits(h.flags)
                self._add_values(values, overwrite=True)
            elif own == smallest:
                self._add_values(values, overwrite=False)

    def _add_values(self, values: np.ndarray | None, *, overwrite: bool) -> None:
        """Add `values` to the sums (int64), or make them the sums if `overwrite` or none
        came yet this round; `overwrite` without values empties them."""
        if overwrite:
            self._acc_empty = True
        if values is not None:
            _native.accumulate(values, self.acc, self._acc_empty)
            self._acc_empty = False

    def opening_decision(self, chosen: int | None = None, repeat: bool | None = None) -> tuple[int, int]:
        """The look-ahead after an opening round whose block is `chosen` (this slot's K1
        block unless a parent decided), and set what each worker announced for it: its own
        block for a REPEAT or when it does not hold `chosen`, else its next block (K2)."""
        if chosen is None:
            chosen = self.first_key >> 8
        if repeat is None:
            repeat = self.repeat
        for w in range(self.num_workers):
            own = self.own_keys[w]
            if repeat or own >> 8 != chosen:
                self.keys[w] = own
        return split_key(min(self.keys))

    def _round_packet(self, header: AggHeader) -> bytearray:
        """`header` followed by the round's sums (none when `count` is 0).

        Sums wrap to int32 like the switch's; the OVERFLOW flag tells the workers.
        """
        if header.count == 0:
            return bytearray(header.pack())
        if self._acc_empty:
            self.acc[:] = 0
        buf = self.pool.take(HEADER_LEN + 4 * header.count)
        outside = _native.write_sums(self.acc, memoryview(buf)[HEADER_LEN:])  # wrapped to int32
        if outside and header.msg_type == MsgType.RESULT:  # the flag exists on RESULTs only
            header = header._replace(flags=header.flags | Flags.OVERFLOW)
        header.pack_into(buf)
        return buf

    def _complete(self, last: AggHeader) -> list[tuple[int, Parts]]:
        """The round's RESULT. Like the switch's, it repeats the epoch, blocks, fingerprint
        and SCATTER/owner bits of the packet that completed the round (each copy carries
        its receiver's session); MISMATCH if packets disagreed. An opening round's is about
        its smallest block (and carries that block's owner): the data round of that block,
        a REPEAT of it, or the end of an empty stream."""
        assert self.epoch is not None
        block, exp, flags = self.block, self.exp, scatter_bits(last.flags)
        if block == NONE:
            block, exp = split_key(self.first_key)
            flags = self.first_flags
            next_block, next_exp = self.opening_decision()
            if self.repeat and block != NONE:
                next_block, next_exp = block, exp
        else:
            next_block, next_exp = split_key(min(self.keys))
        if self.mismatch is not None:
            flags, self.failure = flags | Flags.MISMATCH, self.mismatch
        header = AggHeader(
            MsgType.RESULT,
            self.job_id,
            ALL_WORKERS if self.multicast else 0,
            self.slot,
            self.round & 1,
            last.epoch,
            block,
            next_block,
            exp,
            next_exp,
            0 if block == NONE or next_block == block else self.block_size,
            flags,
            last.session,
            last.blocks,
            last.fingerprint,
        )
        return self._publish(self._round_packet(header), next_block, next_exp)

    def _publish(self, result: bytearray, next_block: int, next_exp: int) -> list[tuple[int, Parts]]:
        """Keep the round's RESULT for re-sends, address a copy to every worker, advance."""
        assert self.epoch is not None
        owner = scatter_owner(result[HDR_OFF_FLAGS]) if len(result) > HEADER_LEN else None
        stored = StoredResult(self.round & 1, self.fingerprint, result, owner)
        if self.block == NONE:
            # Every worker has started this allreduce, so no one can still
            # need results of the previous one.
            self.pool.retire(old.payload for old in self.history.values())
            self.history.clear()
        self.history[(self.epoch, self.block)] = stored
        if self.multicast and owner is not None:
            # The values by unicast to their owner, one header-only copy to the group.
            out = [(w, stored.for_worker(w, self.session_of(w))) for w in (owner, ALL_WORKERS)]
        elif self.multicast:
            out = [(ALL_WORKERS, stored.for_worker(ALL_WORKERS, self.session_of(ALL_WORKERS)))]
        else:
            out = [(w, stored.for_worker(w, self.session_of(w))) for w in range(self.num_workers)]
        self._advance(next_block, next_exp)
        return out

    def _advance(self, next_block: int, next_exp: int) -> None:
        # The round after an opening round expects every worker, in sparse mode too: a
        # worker takes an opening round's RESULT whatever block it names, so the stream must
        # not reach this shadow copy again before every worker has left the opening round
        # (docs/protocol.md 4).
        after_opening = self.block == NONE
        self.round += 1
        self.seen = 0
        self.scatter = 0
        self._acc_empty = True
        self.block = next_block
        if next_block == NONE:  # stream finished: the next round opens the next allreduce
            self.exp = EXP_BIAS
            self.expected = self.all_workers
            return
        self.exp = next_exp
        if self.mode is Mode.DENSE or after_opening:
            self.expected = self.all_workers
        else:
            self.expected = sum(1 << w for w, key in enumerate(self.keys) if key >> 8 == next_block)
