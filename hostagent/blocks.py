# SPDX-License-Identifier: Apache-2.0
"""Cutting a tensor into blocks and streams (docs/protocol.md section 3).

`BlockPlan.build` finds the non-zero blocks, their exponents and any NaN/Inf in
one native pass over the tensor (p4reduce._native.scan, C, without the GIL on
large tensors); `BlockPlan.build_reference` is the numpy model it matches, kept
readable and used by the tests only. The tensor is not copied except for a
zero-padded last block.

`BlockList` is a tensor given by its non-zero blocks alone (indices and packed
values, as a GPU's block scan hands them over): `BlockPlan.from_blocks` plans it
without scanning the tensor, and the sum comes back as a BlockList too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from p4reduce import _native
from p4reduce.hostagent import fixedpoint
from p4reduce.protocol import EXP_BIAS, NONE

# Elements BlockPlan.unscanned scans before anything is sent: the native Run's first chunk
# (SCAN_CHUNK in p4reduce/_worker.h), so that a NaN there costs nothing on the wire.
FIRST_SCAN = 64 << 10


@dataclass
class BlockPlan:
    """The blocks of one worker's flat tensor."""

    body: np.ndarray  # (full_blocks, B) view of the tensor
    tail: np.ndarray | None  # the zero-padded last block when B does not divide the length
    nonzero: np.ndarray  # (nblocks,) bool
    exps: np.ndarray  # (nblocks,) uint8 biased exponents (EXP_BIAS for int32 and zero blocks)
    num_streams: int
    flat: np.ndarray | None = None  # the flat tensor (C-contiguous)
    scanned: int = -1  # blocks `nonzero` and `exps` hold (-1 given: all); the native worker scans the rest

    def __post_init__(self) -> None:
        if self.scanned < 0:
            self.scanned = self.nonzero.size

    @classmethod
    def build(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        """Raises ValueError, naming the first bad element, if a float32 tensor holds NaN or Inf."""
        nblocks = -(-flat.size // block_size)
        nonzero = np.empty(nblocks, dtype=bool)
        exps = np.empty(nblocks, dtype=np.uint8)
        bad = _native.scan(flat, block_size, nonzero, exps)
        if bad >= 0:
            raise fixedpoint.nonfinite_input(bad)
        body, tail = _body_and_tail(flat, block_size)
        return cls(body, tail, nonzero, exps, min(num_slots, nblocks), flat)

    @classmethod
    def unscanned(
        cls, flat: np.ndarray, block_size: int, num_slots: int, first_elements: int = FIRST_SCAN
    ) -> BlockPlan:
        """The plan with only the blocks in its first `first_elements` scanned (ValueError for
        NaN or Inf there, before anything is sent): the native worker's Run scans the rest
        chunk by chunk while its first streams run (p4reduce/_worker_scan.c), NaN and Inf
        included. Only for that Run; anything else wants `build`."""
        nblocks = -(-flat.size // block_size)
        first = min(nblocks, first_elements // block_size)
        nonzero = np.zeros(nblocks, dtype=bool)
        exps = np.full(nblocks, EXP_BIAS, dtype=np.uint8)
        bad = _native.scan(flat[: first * block_size], block_size, nonzero[:first], exps[:first])
        if bad >= 0:
            raise fixedpoint.nonfinite_input(bad)
        body, tail = _body_and_tail(flat, block_size)
        return cls(body, tail, nonzero, exps, min(num_slots, nblocks), flat, scanned=first)

    @classmethod
    def build_reference(cls, flat: np.ndarray, block_size: int, num_slots: int) -> BlockPlan:
        """`build` in numpy: only the non-zero blocks are touched after one `any` pass,
        exponents and finiteness checks run on those rows alone."""
        body, tail = _body_and_tail(flat, block_size)
        nfull = body.shape[0]
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

    @classmethod
    def from_blocks(cls, blocks: BlockList, num_slots: int, flat: np.ndarray) -> BlockPlan:
        """The plan of `blocks`, whose dense tensor `flat` (blocks.numel elements, zeros but
        at blocks.indices) the caller has filled: nothing is scanned; the exponents are the
        list's, or those of its packed rows."""
        body, tail = _body_and_tail(flat, blocks.block_size)
        nonzero = np.zeros(blocks.num_blocks, dtype=bool)
        nonzero[blocks.indices] = True
        exps = np.full(blocks.num_blocks, EXP_BIAS, dtype=np.uint8)
        if flat.dtype == np.float32:
            exps[blocks.indices] = blocks.exponents()
        return cls(body, tail, nonzero, exps, min(num_slots, blocks.num_blocks), flat)

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


def _body_and_tail(flat: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The whole blocks of a flat tensor as a (n, B) view, and a zero-padded copy of its cut
    last block (None when B divides the length)."""
    nfull = flat.size // block_size
    body = flat[: nfull * block_size].reshape(nfull, block_size)
    if flat.size % block_size == 0:
        return body, None
    tail = np.zeros(block_size, dtype=flat.dtype)
    tail[: flat.size - nfull * block_size] = flat[nfull * block_size :]
    return body, tail


@dataclass
class BlockList:
    """A flat tensor of `numel` elements given by its non-zero blocks: `indices` (int64,
    strictly ascending, each below ceil(numel / block_size)) and `values` (k, block_size)
    packed in that order, a cut last block zero-padded; every other block is zero.
    `exps`: float32 blocks' biased exponents when already known (computed where the
    values were, e.g. on a GPU); None: computed from `values` when needed."""

    numel: int
    block_size: int
    indices: np.ndarray
    values: np.ndarray
    exps: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.block_size < 1 or self.numel < 0:
            raise ValueError(f"BlockList: block_size {self.block_size} and numel {self.numel} must be >= 1 and >= 0")
        self.indices = np.asarray(self.indices)
        self.values = np.asarray(self.values)
        k = self.indices.shape[0] if self.indices.ndim == 1 else -1
        if k < 0 or self.indices.dtype.kind not in "iu":
            raise ValueError(
                f"BlockList: indices must be a 1-D integer array, got {self.indices.dtype} {self.indices.shape}"
            )
        if self.values.shape != (k, self.block_size):
            raise ValueError(
                f"BlockList: values must be ({k}, {self.block_size}) for {k} indices, got {self.values.shape}"
            )
        if k and (self.indices[0] < 0 or self.indices[-1] >= self.num_blocks or (np.diff(self.indices) <= 0).any()):
            raise ValueError(f"BlockList: indices must be strictly ascending block numbers in 0..{self.num_blocks - 1}")
        if self.exps is not None:
            self.exps = np.asarray(self.exps, dtype=np.uint8)
            if self.exps.shape != (k,):
                raise ValueError(f"BlockList: exps must be ({k},), got {self.exps.shape}")

    @property
    def num_blocks(self) -> int:
        return -(-self.numel // self.block_size)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @classmethod
    def of(cls, flat: np.ndarray, block_size: int) -> BlockList:
        """The non-zero blocks of a flat float32/int32 array (one native scan, as
        BlockPlan.build; what a device scan computes on a GPU); the values are copies."""
        flat = np.ascontiguousarray(flat).reshape(-1)
        nblocks = -(-flat.size // block_size)
        nonzero = np.empty(nblocks, dtype=bool)
        exps = np.empty(nblocks, dtype=np.uint8)
        body, tail = _body_and_tail(flat, block_size)
        scanned = _native.scan(flat, block_size, nonzero, exps) < 0
        if not scanned:
            # The scan stops at the first NaN/Inf (what a plan needs); a sum that overflowed
            # holds Inf, so such an array is read here instead (its exponents left to exponents()).
            nonzero[: body.shape[0]] = (body != 0).any(axis=1)
            if tail is not None:
                nonzero[-1] = bool((tail != 0).any())
        indices = np.flatnonzero(nonzero).astype(np.int64)
        values = body[indices[indices < body.shape[0]]]  # (fancy indexing copies)
        if tail is not None and nonzero[-1]:  # the cut last block, zero-padded, is last
            values = np.concatenate([values, tail[None, :]])
        given = exps[indices] if scanned and flat.dtype == np.float32 else None
        return cls(flat.size, block_size, indices, values, given)

    def exponents(self) -> np.ndarray:
        """float32: each block's biased exponent (given, or from its values)."""
        if self.exps is not None:
            return self.exps
        return fixedpoint.block_exponents(self.values)

    def dense(self, out: np.ndarray | None = None) -> np.ndarray:
        """The flat tensor: zeros, and the blocks at their places (into `out`, numel long)."""
        if out is None:
            out = np.zeros(self.numel, dtype=self.values.dtype)
        else:
            out[...] = 0
        nfull = self.numel // self.block_size
        whole = self.indices < nfull
        out[: nfull * self.block_size].reshape(nfull, self.block_size)[self.indices[whole]] = self.values[whole]
        if not whole.all():  # the cut last block: its own elements only
            out[nfull * self.block_size :] = self.values[-1, : self.numel - nfull * self.block_size]
        return out
