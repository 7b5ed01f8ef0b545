# SPDX-License-Identifier: Apache-2.0
"""Lossy mode with error feedback (OmniReduce's block threshold), opt-in.

A block (``block_size`` consecutive elements of the flat tensor handed to the allreduce,
the same blocks p4reduce sends or skips) whose largest magnitude is under ``threshold``
is treated as zero: it is not sent. What was dropped is not lost: it is kept as this
rank's residual and added to the same gradient at the next step, before thresholding
again (error feedback), so small but persistent gradients still reach the model, late
and in one piece.

    feedback = ErrorFeedback(threshold=1e-4, block_size=256)
    feedback.apply(key, flat)   # in place: flat += residual[key]; small blocks -> 0, kept as residual[key]
    allreduce(flat)

Exact algebra, element by element: (what is sent) + (new residual) == flat + (previous
residual), because every element goes to exactly one of the two. threshold 0 drops
nothing and never touches the tensor (bit-identical to the lossless path). Entry points:
``P4ReduceHookState(agent, lossy_threshold=T)`` (the DDP comm hook, residuals per
parameter) and ``Options(lossy_threshold=T)`` / ``P4REDUCE_LOSSY_THRESHOLD`` (the
backend's float32 all_reduce, residuals per tensor).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import torch


def check_threshold(value: object, what: str = "lossy threshold") -> float:
    """`value` as a float, or ValueError in one line unless it is finite and >= 0."""
    try:
        threshold = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{what} {value!r}: expected a number >= 0 (0 disables lossy mode)") from None
    if not math.isfinite(threshold) or threshold < 0:
        raise ValueError(f"{what} {value!r}: must be finite and >= 0 (0 disables lossy mode)")
    return threshold


def block_maxima(flat: torch.Tensor, block_size: int) -> torch.Tensor:
    """Largest |x| of each block of a 1-D tensor (the last block may be cut short)."""
    n = flat.numel()
    nfull = n // block_size
    nblocks = -(-n // block_size)
    out = torch.zeros(nblocks, dtype=flat.dtype, device=flat.device)
    if nfull:
        torch.amax(flat[: nfull * block_size].view(nfull, block_size).abs(), dim=1, out=out[:nfull])
    if nblocks > nfull:
        out[nfull] = flat[nfull * block_size :].abs().max()
    return out


def threshold_blocks(flat: torch.Tensor, block_size: int, threshold: float) -> tuple[torch.Tensor | None, int, int]:
    """Zero, in place, the non-zero blocks of the 1-D tensor `flat` whose largest |x| is
    under `threshold`; return (what was zeroed, as a tensor like `flat` that is 0 in the
    kept blocks, or None if nothing was; blocks zeroed; non-zero blocks before). NaN/Inf
    blocks are kept (the allreduce refuses them, naming the element)."""
    if threshold == 0 or flat.numel() == 0:
        return None, 0, 0
    maxima = block_maxima(flat, block_size)
    nonzero = maxima != 0  # NaN included
    drop = (maxima < threshold) & nonzero
    dropped = int(drop.sum())
    if not dropped:
        return None, 0, int(nonzero.sum())
    mask = drop.repeat_interleave(block_size)[: flat.numel()]
    residual = torch.where(mask, flat, torch.zeros((), dtype=flat.dtype, device=flat.device))
    flat.masked_fill_(mask, 0)
    return residual, dropped, int(nonzero.sum())


class ErrorFeedback:
    """Residuals of the blocks dropped by lossy mode, kept across steps.

    ``apply(key, flat)`` adds the residual stored under `key` (a tensor of the same
    length: the same gradient at the previous step), zeroes the blocks under the
    threshold and stores them as the new residual. ``apply_pieces`` does the same for a
    flat tensor made of several gradients (a DDP bucket), with one residual per piece, so
    that a bucket whose layout changes (DDP rebuilds its buckets after the first step)
    still gets each parameter's own residual back. Counters: ``blocks_dropped`` and
    ``blocks_seen`` (non-zero blocks offered, dropped or not), summed over calls.
    """

    def __init__(self, threshold: float, block_size: int) -> None:
        self.threshold = check_threshold(threshold)
        if block_size < 1:
            raise ValueError(f"block_size {block_size}: must be >= 1")
        self.block_size = block_size
        self.blocks_dropped = 0
        self.blocks_seen = 0
        self.calls = 0
        self._residuals: dict[Hashable, torch.Tensor] = {}

    @property
    def enabled(self) -> bool:
        return self.threshold > 0

    def residual(self, key: Hashable) -> torch.Tensor | None:
        """The residual stored under `key` (None: nothing dropped there last time)."""
        return self._residuals.get(key)

    def residual_norm(self) -> float:
        """L2 norm of every residual held (what the model has not received yet)."""
        return math.sqrt(sum(float(r.double().square().sum()) for r in self._residuals.values()))

    def apply(self, key: Hashable, flat: torch.Tensor) -> torch.Tensor | None:
        """In place on the contiguous 1-D tensor `flat`; returns the new residual (None:
        nothing dropped, and nothing is stored under `key`)."""
        return self.apply_pieces([(key, flat.numel())], flat)[0]

    def apply_pieces(self, pieces: Sequence[tuple[Hashable, int]], flat: torch.Tensor) -> list[torch.Tensor | None]:
        """`flat` is the concatenation of pieces of (key, length), in order: each piece's
        residual is added to its part, the blocks (of the whole of `flat`) are thresholded,
        and what was dropped is stored per piece. Returns the new residual of each piece."""
        if sum(n for _, n in pieces) != flat.numel():
            raise ValueError(f"pieces of {sum(n for _, n in pieces)} elements for a tensor of {flat.numel()}")
        if not self.enabled:
            return [None] * len(pieces)
        offset = 0
        for key, n in pieces:
            previous = self._residuals.pop(key, None)
            if previous is not None:
                if previous.numel() != n:
                    raise ValueError(
                        f"lossy residual of {key!r} has {previous.numel()} elements, the tensor "
                        f"{n}: the same key must name the same tensor at every step"
                    )
                flat[offset : offset + n] += previous
            offset += n
        residual, dropped, nonzero = threshold_blocks(flat, self.block_size, self.threshold)
        self.calls += 1
        self.blocks_dropped += dropped
        self.blocks_seen += nonzero
        out: list[torch.Tensor | None] = []
        offset = 0
        for key, n in pieces:
            part = None
            if residual is not None:
                part = residual[offset : offset + n]
                if bool(part.any()):
                    self._residuals[key] = part
                else:
                    part = None
            out.append(part)
            offset += n
        return out
