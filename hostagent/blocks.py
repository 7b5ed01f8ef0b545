"""Cutting a tensor into blocks and streams (docs/protocol.md section 3).

Only the non-zero blocks are ever touched after one `any` pass over the tensor:
exponents and finiteness checks run on those rows alone, and the tensor is not
copied except for a zero-padded last block.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from p4reduce.hostagent import fixedpoint
from p4reduce.protocol import EXP_BIAS, NONE


@dataclass
class BlockPlan:
    """The blocks of one worker's flat tensor."""

    body: np.ndarray  # (full_blocks, B) view of the tensor
    tail: np.ndarray | None  # the zero-padded last block when B does not divide the length
    nonzero: np.ndarray  # (nblocks,) bool
    exps: np.ndarray  # (nblocks,) uint8 biased exponents (EXP_BIAS for int32 and zero blocks)
    num_streams: int

    @classmethod
    def build(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        nfull = flat.size // block_size
        body = flat[: nfull * block_size].reshape(nfull, block_size)
        tail = None
        if flat.size % block_size:
            tail = np.zeros(block_size, dtype=flat.dtype)
            tail[: flat.size % block_size] = flat[nfull * block_size:]
        nblocks = nfull + (tail is not None)
        nonzero = np.empty(nblocks, dtype=bool)
        nonzero[:nfull] = body.any(axis=1)
        if tail is not None:
            nonzero[-1] = tail.any()
        exps = np.full(nblocks, EXP_BIAS, dtype=np.uint8)
        plan = cls(body, tail, nonzero, exps, min(num_slots, nblocks))
        if flat.dtype == np.float32:
            idx = np.flatnonzero(nonzero)  # ascending: the tail, if non-zero, is last
            nz_rows = body[idx[idx < nfull]]
            if tail is not None and nonzero[-1]:
                nz_rows = np.concatenate([nz_rows, tail[None, :]])
            hi = np.maximum(nz_rows.max(axis=1, initial=0), -nz_rows.min(axis=1, initial=0))
            if not np.isfinite(hi).all():
                fixedpoint.check_float_input(flat)  # raises, naming the first bad element
            exps[idx] = fixedpoint.exponent_bytes(hi)
        return plan

    @property
    def num_blocks(self) -> int:
        return self.nonzero.size

    @property
    def dtype(self) -> np.dtype:
        return self.body.dtype

    def block(self, b: int) -> np.ndarray:
        return self.tail if b == self.body.shape[0] else self.body[b]  # type: ignore[return-value]

    def stream_blocks(self, stream: int, num_slots: int) -> list[int]:
        """This worker's non-zero blocks of `stream`, ascending, then NONE."""
        return [int(b) for b in np.flatnonzero(self.nonzero[stream::num_slots]) * num_slots + stream] + [NONE]
