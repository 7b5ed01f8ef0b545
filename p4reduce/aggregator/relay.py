# SPDX-License-Identifier: Apache-2.0
"""Hierarchical aggregation: a leaf aggregator that is one worker of a parent job.

A leaf sums its local workers' blocks and sends the partial sum upstream as a
DATA packet of the parent job, announcing the minimum of its workers'
look-ahead keys; the parent's RESULT comes back and the leaf fans it out to its
workers. Look-ahead composes: a leaf is expected by its parent in a round
exactly when one of its workers announced that block. The leaf keeps no
timers: its workers' retransmissions and queries are forwarded upstream while
the parent has not answered. An opening round goes up as the leaf's opening DATA
(its workers' smallest block; header-only when they disagreed on its exponent,
which lets the parent call a REPEAT), and the parent's answer decides the block
for every local worker (docs/protocol.md, Hierarchical aggregation).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from p4reduce.aggregator.buffers import BufferPool
from p4reduce.aggregator.slot import END_KEY, JobFailure, Parts, SlotState
from p4reduce.protocol import (
    AGG_UDP_PORT,
    MAX_JOB_ID,
    MAX_WORKERS,
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    Mode,
    MsgType,
    is_repeat,
    split_key,
)
from p4reduce.protocol._wire_gen import HDR_OFF_JOB_ID, HDR_OFF_SESSION

UPSTREAM = -1  # pseudo worker id of packets for the parent aggregator
_JOB_ID = struct.Struct("!H")
_SESSION = struct.Struct("!I")


@dataclass(frozen=True)
class Upstream:
    """Where a leaf job's partial sums go: the parent aggregator, its job and our rank there."""

    host: str
    port: int = AGG_UDP_PORT
    job_id: int = 0
    rank: int = 0

    def __post_init__(self) -> None:
        if not self.host:
            raise ValueError("upstream host is empty")
        if not 1 <= self.port <= 0xFFFF:
            raise ValueError(f"upstream port {self.port} outside 1..65535")
        if not 0 <= self.job_id <= MAX_JOB_ID:
            raise ValueError(f"up_job {self.job_id} outside 0..{MAX_JOB_ID}")
        if not 0 <= self.rank < MAX_WORKERS:
            raise ValueError(f"up_rank {self.rank} outside 0..{MAX_WORKERS - 1}")


class UpstreamMembership(Protocol):
    """What a leaf slot needs of its job's membership at the parent."""

    upstream_session: int | None

    def join_header(self) -> AggHeader: ...


class RelaySlot(SlotState):
    def __init__(
        self,
        job_id: int,
        slot: int,
        num_workers: int,
        mode: Mode,
        block_size: int,
        upstream: Upstream,
        membership: UpstreamMembership,
        pool: BufferPool | None = None,
        **geometry: int,
    ) -> None:
        super().__init__(job_id, slot, num_workers, mode, block_size, pool, **geometry)
        self.upstream = upstream
        self.membership = membership
        self.forwarded: bytearray | None = None  # this round's partial sum, sent upstream
        self.announced: int | None = None  # the look-ahead of the last partial sum sent up
        self.opened = END_KEY  # an opening round's (block, exp) sent up, as a key

    def _to_parent(self, packet: bytearray) -> list[tuple[int, Parts]]:
        """`packet` with the leaf's session at the parent; a JOIN first if it has none
        (local retransmissions bring the round back here until the parent answers)."""
        session = self.membership.upstream_session
        if session is None:
            return [(UPSTREAM, (self.membership.join_header().pack(),))]
        _SESSION.pack_into(packet, HDR_OFF_SESSION, session)
        return [(UPSTREAM, (packet,))]

    def _complete(self, last: AggHeader) -> list[tuple[int, Parts]]:
        """All local holders are in: send the partial sum up instead of a RESULT."""
        assert self.epoch is not None
        if self.mismatch is not None:
            # Local workers disagree: they get the flagged RESULT here, and the leaf's job fails.
            return super()._complete(last)
        block, exp, flags = self.block, self.exp, 0
        if block == NONE:  # the opening round: our smallest block, and the look-ahead after it
            self.opened = self.first_key
            block, exp = split_key(self.first_key)
            flags = Flags.OPENING
            # K2 whether or not our holders disagree: the parent decides on a REPEAT.
            next_block, next_exp = self.opening_decision(repeat=False)
            count = 0 if block == NONE or self.repeat else self.block_size
        else:
            next_block, next_exp = split_key(min(self.keys))
            # No local worker brought values (the round after an opening round expects them
            # all): nothing to add upstream either.
            count = 0 if self._acc_empty else self.block_size
        up = self.upstream
        header = AggHeader(
            MsgType.DATA,
            up.job_id,
            up.rank,
            self.slot,
            self.round & 1,
            self.epoch,
            block,
            next_block,
            exp,
            next_exp,
            count,
            flags,
            0,
            self.blocks,
            self.fingerprint,
        )
        self.forwarded = self._round_packet(header)
        self.announced = next_block
        return self._to_parent(self.forwarded)

    def on_data(self, h: AggHeader, values: np.ndarray | None) -> tuple[str, list[tuple[int, Parts]]]:
        if self.forwarded is not None and self._is_current(h) and self.seen >> h.worker_id & 1:
            return "reforwarded", self._to_parent(self.forwarded)  # the parent's answer was lost
        return super().on_data(h, values)

    def on_query(self, h: AggHeader) -> tuple[str, list[tuple[int, Parts]]]:
        if not self._is_current(h):
            return self._resend(h)
        if self.forwarded is not None:
            return "reforwarded", self._to_parent(self.forwarded)
        if self.expected & ~self.seen:
            return self._pending(h, "pending")
        # No local worker holds this block: only the parent knows the result.
        up = self.upstream
        query = AggHeader(
            MsgType.QUERY,
            up.job_id,
            up.rank,
            self.slot,
            h.shadow,
            h.epoch,
            h.block,
            NONE,
            blocks=h.blocks,
            fingerprint=h.fingerprint,
        )
        return "query_forwarded", self._to_parent(bytearray(query.pack()))

    def _check_parent_result(self, h: AggHeader) -> None:
        """The checks a worker makes of its aggregator's RESULT (hostagent/stream.py): the
        values the round needs, and a next block in this stream, after this one and not past
        the one this leaf announced; of an opening round's, a block not past the leaf's own
        and, at the leaf's own, its exponent or a REPEAT. The leaf's job fails with UPSTREAM
        otherwise."""
        block, nxt = h.block, h.next_block
        limit = self.announced
        repeat = self.block == NONE and is_repeat(h)  # a data round's RESULT never repeats its block
        if self.block == NONE:
            own_block, own_exp = split_key(self.opened)
            bad = block > own_block or (block == own_block != NONE and not repeat and h.exp != own_exp)
            if repeat:
                bad = bad or h.count != 0 or (block == own_block and h.next_exp < own_exp)
                nxt, limit = NONE, None  # the next round is the block itself
            elif block != own_block:
                limit = own_block  # our workers still hold their blocks: the stream cannot pass them
        else:
            bad = block != self.block
        wanted = 0 if block == NONE or repeat else self.block_size
        bad = bad or h.count != wanted
        if nxt != NONE and (not self._in_stream(nxt, self.blocks) or nxt <= block):
            bad = True
        if bad or (limit is not None and nxt > limit):
            raise JobFailure(ErrorCode.UPSTREAM, ErrorCode.BAD_BLOCKS)

    def on_upstream(self, h: AggHeader, payload: bytes | memoryview) -> tuple[str, list[tuple[int, Parts]]]:
        """The parent's RESULT for this slot: fan it out if it is the current round's."""
        if h.msg_type != MsgType.RESULT:
            return "upstream_ignored", []  # PENDING names the parent's ranks, not ours
        if (
            h.shadow != self.round & 1
            or (h.block != self.block and self.block != NONE)  # an opening round's: any block
            or self.epoch is None
            or h.epoch != self.epoch
            or h.fingerprint != self.fingerprint
            or (self.block == NONE and self.forwarded is None)  # ours has not gone up yet
        ):
            return "upstream_stale", []
        self._check_parent_result(h)
        if self.block == NONE:  # what each local worker announced for the round the parent chose
            self.announced = self.opening_decision(h.block, is_repeat(h))[0]
        result = bytearray(payload)
        _JOB_ID.pack_into(result, HDR_OFF_JOB_ID, self.job_id)
        self.forwarded = None
        return "completed", self._publish(result, h.next_block, h.next_exp)
