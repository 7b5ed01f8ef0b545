"""Cutting a tensor into blocks and streams (docs/protocol.md section 3).

`BlockPlan.build` finds the non-zero blocks, their exponents and any NaN/Inf in
one native pass over the tensor (p4reduce._native.scan, C, without the GIL on
large tensors); `BlockPlan.build_reference` is the numpy model it matches, kept
readable and used by the tests only. The tensor is not copied except for a
zero-padded last block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from p4reduce import _native
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
    flat: np.ndarray | None = None  # the flat tensor (C-contiguous)

    @classmethod
    def build(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        """Raises ValueError, naming the first bad element, if a float32 tensor holds NaN or Inf."""
        nfull = flat.size // block_size
        nblocks = -(-flat.size // block_size)
        nonzero = np.empty(nblocks, dtype=bool)
        exps = np.empty(nblocks, dtype=np.uint8)
        bad = _native.scan(flat, block_size, nonzero, exps)
        if bad >= 0:
            raise fixedpoint.nonfinite_input(bad)
        body = flat[: nfull * block_size].reshape(nfull, block_size)
        tail = None
        if flat.size % block_size:
            tail = np.zeros(block_size, dtype=flat.dtype)
            tail[: flat.size % block_size] = flat[nfull * block_size :]
        return cls(body, tail, nonzero, exps, min(num_slots, nblocks), flat)

    @classmethod
    def build_reference(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        """`build` in numpy: only the non-zero blocks are touched after one `any` pass,
        exponents and finiteness checks run on those rows alone."""
        nfull = flat.size // block_size
        body = flat[: nfull * block_size].reshape(nfull, block_size)
        tail = None
        if flat.size % block_size:
            tail = np.zeros(block_size, dtype=flat.dtype)
            tail[: flat.size % block_size] = flat[nfull * block_size :]
        nblocks = nfull + (tail is not None)
        nonzero = np.empty(nblocks, dtype=bool)
        nonzero[:nfull] = body.any(axis=1)
        if tail is not None:
            nonzero[-1] = tail.any()
        exps = np.full(nblocks, EXP_BIAS, dtype=np.uint8)
        plan = cls(body, tail, nonzero, exps, min(num_slots, nblocks), flat)
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
        """Block `b`'s values, zero-padded to the block size."""
        return self.tail if b == self.body.shape[0] else self.body[b]  # type: ignore[return-value]

    def values(self, b: int) -> np.ndarray:
        """Block `b`'s elements of the tensor (no copy): fewer than the block size for a
        cut last block."""
        assert self.flat is not None
        size = self.body.shape[1]
        return self.flat[b * size : (b + 1) * size]

    def encode(self, b: int, exp: int, num_workers: int, out: object) -> None:
        """Block `b` as wire values at the agreed exponent `exp` (int32 tensors: as they
        are), written into `out` (a datagram's values: raw bytes or a '>i4' view);
        a cut last block is zero-padded."""
        _native.quantize(self.values(b), exp, num_workers, out)

    def stream_blocks(self, stream: int, num_slots: int) -> list[int]:
        """This worker's non-zero blocks of `stream`, ascending, then NONE."""
        return [int(b) for b in np.flatnonzero(self.nonzero[stream::num_slots]) * num_slots + stream] + [NONE]
