"""Cutting a tensor into blocks and streams (docs/protocol.md section 3)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hostagent import fixedpoint
from p4reduce.protocol import EXP_BIAS, NONE


@dataclass
class BlockPlan:
    """The blocks of one worker's tensor, padded to (nblocks, block_size)."""

    blocks: np.ndarray  # (nblocks, B), float32 or int32
    nonzero: np.ndarray  # (nblocks,) bool
    exps: np.ndarray  # (nblocks,) uint8 biased exponents (EXP_BIAS for int32)
    num_streams: int

    @classmethod
    def build(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        nblocks = -(-flat.size // block_size)
        padded = np.zeros(nblocks * block_size, dtype=flat.dtype)
        padded[: flat.size] = flat
        blocks = padded.reshape(nblocks, block_size)
        nonzero = blocks.any(axis=1)
        if flat.dtype == np.float32:
            exps = fixedpoint.block_exponents(blocks)
        else:
            exps = np.full(nblocks, EXP_BIAS, dtype=np.uint8)
        return cls(blocks, nonzero, exps, min(num_slots, nblocks))

    @property
    def num_blocks(self) -> int:
        return self.blocks.shape[0]

    def stream_blocks(self, stream: int, num_slots: int) -> list[int]:
        """This worker's non-zero blocks of `stream`, ascending, then NONE."""
        return [int(b) for b in np.flatnonzero(self.nonzero[stream::num_slots]) * num_slots + stream] + [NONE]
