# SPDX-License-Identifier: Apache-2.0
"""How tensors of each dtype travel through p4reduce's float32/int32 allreduce.

Two kinds of collective, two encodings:

* **Sums** (all_reduce, reduce_scatter): `SumCodec` turns a tensor into the float32
  or int32 array the host agent sums, and the summed array back.

  - float32, int32: as they are (float32 through the fixed point of docs/protocol.md
    section 5, so within its bound, not bit-exact; int32 exact where each element satisfies
    ``|x| <= (2^31-1) // n``; the backend sends a sum with a larger element on any rank to
    gloo instead: p4reduce.torch.policy).
  - float16, bfloat16: widened to float32 (exact), summed, rounded once back to the
    dtype; a sum beyond the dtype's range is +-Inf, as in gloo's sum.
  - bool, uint8, int8, int16, int64: **exact, with the wrap-around of the dtype** (what
    gloo's native sum does): each element's unsigned bit pattern is cut into L-bit lanes
    (L = the largest width whose n-fold sum cannot overflow int32: 30 bits for 2 workers,
    26 for 32), one lane plane after the other (so the high planes of small values stay
    zero and cost nothing); the lane sums are put back together modulo 2^bits. One lane
    for the 8- and 16-bit types (4 bytes per element on the wire), three for int64
    (12 bytes). bool sums are logical OR, like gloo's.
  - anything else (float64, complex128 which torch hands over as float64, uint16/32/64,
    float8 ...) is refused with a TypeError naming the dtype: float64 would silently
    lose precision in float32 fixed point.

* **Placement** (broadcast, all_gather): only one rank holds each element, the others
  hold zeros, so the sum *is* the value, for any bits. `encode_bytes` packs the raw
  bytes of any dtype three to an int32 lane (values below 2^24, far inside the int32
  input bound for any n <= 32) and `decode_bytes` unpacks them: bit-exact for every
  dtype (-0.0, NaN payloads, float64, int64 ...), 4/3 of the tensor's bytes, and zero
  bytes stay zero lanes, i.e. skipped blocks.
"""

from __future__ import annotations

import math

import numpy as np
import torch

INT32_MAX = (1 << 31) - 1
LANE_BYTES = 3  # bytes per int32 lane in the placement encoding

SUPPORTED_SUM_DTYPES = (
    torch.float32,
    torch.int32,
    torch.float16,
    torch.bfloat16,
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int64,
)
_WIDENED_FLOATS = (torch.float16, torch.bfloat16)
_LANE_INTS = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int64)
_NUMPY_INTS = {torch.bool: "<u1", torch.uint8: "<u1", torch.int8: "<i1", torch.int16: "<i2", torch.int64: "<i8"}


def lane_bits(num_workers: int) -> int:
    """Widest unsigned lane whose values all satisfy the int32 input bound |x| <= (2^31-1)//n."""
    return (INT32_MAX // num_workers + 1).bit_length() - 1


def check_sum_dtype(dtype: torch.dtype, collective: str) -> None:
    if dtype not in SUPPORTED_SUM_DTYPES:
        why = (
            " (a float64 sum would go through float32 fixed point and silently lose precision;"
            " convert to float32 first. complex128 arrives here as float64)"
            if dtype == torch.float64
            else ""
        )
        names = ", ".join(str(d).removeprefix("torch.") for d in SUPPORTED_SUM_DTYPES)
        raise TypeError(f"p4reduce {collective}: dtype {dtype} is not supported{why}; supported: {names}")


def check_average_dtype(dtype: torch.dtype, collective: str) -> None:
    if not dtype.is_floating_point:
        raise TypeError(
            f"p4reduce {collective}: ReduceOp.AVG needs a floating-point tensor, not {dtype} (gloo refuses it too)"
        )


class SumCodec:
    """Encoding of one dtype for a sum over `num_workers` ranks."""

    def __init__(self, dtype: torch.dtype, num_workers: int) -> None:
        check_sum_dtype(dtype, "sum")
        self.dtype = dtype
        self.num_workers = num_workers
        self.direct = dtype in (torch.float32, torch.int32)
        if dtype in _LANE_INTS:
            self.bits = torch.empty(0, dtype=dtype).element_size() * 8
            self.lane = min(lane_bits(num_workers), self.bits)
            self.lanes = math.ceil(self.bits / self.lane)
            self._unsigned = np.dtype(f"<u{self.bits // 8}")
            self._native = np.dtype(_NUMPY_INTS[dtype])
        else:
            self.lanes = 1

    @property
    def wire_dtype(self) -> np.dtype:
        return np.dtype(np.int32 if self.dtype in _LANE_INTS or self.dtype == torch.int32 else np.float32)

    def encode(self, flat: torch.Tensor) -> np.ndarray:
        """A new float32/int32 array (length numel * lanes) from a contiguous 1-D CPU tensor."""
        if self.direct:
            return flat.detach().numpy().copy()
        if self.dtype in _WIDENED_FLOATS:
            return flat.detach().to(torch.float32).numpy()
        u = flat.detach().numpy().view(self._unsigned)
        out = np.empty((self.lanes, u.size), dtype=np.int32)
        for i in range(self.lanes):
            shift = i * self.lane
            mask = (1 << min(self.lane, self.bits - shift)) - 1
            np.bitwise_and(u >> self._unsigned.type(shift), self._unsigned.type(mask), out=out[i], casting="unsafe")
        return out.reshape(-1)

    def decode(self, summed: np.ndarray, numel: int) -> torch.Tensor:
        """The summed array back as a 1-D tensor of the dtype (numel elements)."""
        if self.direct:
            return torch.from_numpy(summed)
        if self.dtype in _WIDENED_FLOATS:
            wide = torch.from_numpy(summed)
            return wide.to(self.dtype)  # a sum beyond the dtype's range is +-Inf, as in gloo's
        planes = summed.reshape(self.lanes, numel)
        if self.dtype == torch.bool:
            return torch.from_numpy(planes[0] != 0)
        acc = np.zeros(numel, dtype=np.uint64)
        for i in range(self.lanes):  # lane sums are >= 0; uint64 arithmetic wraps mod 2^64
            acc += planes[i].astype(np.uint64) << np.uint64(i * self.lane)
        if self.bits < 64:
            acc &= np.uint64((1 << self.bits) - 1)
        return torch.from_numpy(acc.astype(self._unsigned).view(self._native))


def byte_lanes(nbytes: int) -> int:
    return -(-nbytes // LANE_BYTES)


def tensor_bytes(flat: torch.Tensor) -> np.ndarray:
    """The raw bytes of a contiguous 1-D CPU tensor (a view, no copy)."""
    flat = flat.detach()
    if flat.dtype == torch.bool:
        flat = flat.view(torch.uint8)
    return flat.view(torch.uint8).numpy()


def _lane_bytes(lanes: np.ndarray) -> np.ndarray:
    """(lanes, 4) uint8 view of little-endian int32 lanes: columns 0..2 carry the bytes."""
    return lanes.view(np.uint8).reshape(lanes.size, 4)


def _write_into_lanes(quads: np.ndarray, offset: int, raw: np.ndarray) -> None:
    """Write `raw` at byte `offset` of the byte stream the lanes carry (three per lane)."""
    lane, head = divmod(offset, LANE_BYTES)
    done = 0
    if head and raw.size:
        done = min(LANE_BYTES - head, raw.size)
        quads[lane, head : head + done] = raw[:done]
        lane += 1
    whole = (raw.size - done) // LANE_BYTES
    body = raw[done : done + whole * LANE_BYTES].reshape(whole, LANE_BYTES)
    if raw.flags.writeable:  # torch's strided copy is about twice numpy's for 3-of-4-byte rows
        torch.from_numpy(quads[lane : lane + whole, :LANE_BYTES]).copy_(torch.from_numpy(body))
    else:  # torch.from_numpy warns about read-only arrays
        quads[lane : lane + whole, :LANE_BYTES] = body
    done += whole * LANE_BYTES
    if done < raw.size:
        quads[lane + whole, : raw.size - done] = raw[done:]


def read_from_lanes(lanes: np.ndarray, offset: int, dest: np.ndarray) -> None:
    """Copy the bytes at `offset`.. of the byte stream `lanes` carry into `dest` (uint8)."""
    quads = _lane_bytes(lanes.astype("<i4", copy=False))
    lane, head = divmod(offset, LANE_BYTES)
    done = 0
    if head and dest.size:
        done = min(LANE_BYTES - head, dest.size)
        dest[:done] = quads[lane, head : head + done]
        lane += 1
    whole = (dest.size - done) // LANE_BYTES
    torch.from_numpy(dest[done : done + whole * LANE_BYTES].reshape(whole, LANE_BYTES)).copy_(
        torch.from_numpy(quads[lane : lane + whole, :LANE_BYTES])
    )
    done += whole * LANE_BYTES
    if done < dest.size:
        dest[done:] = quads[lane + whole, : dest.size - done]


def encode_bytes(raw: np.ndarray) -> np.ndarray:
    """uint8 bytes -> int32 lanes of three bytes each (little-endian within a lane)."""
    return placement_array(raw.size, [(0, raw)])


def decode_bytes(lanes: np.ndarray, nbytes: int) -> np.ndarray:
    """int32 lanes -> the first `nbytes` bytes they carry."""
    return _lane_bytes(lanes.astype("<i4", copy=False))[:, :LANE_BYTES].reshape(-1)[:nbytes]


def placement_array(total_bytes: int, pieces: list[tuple[int, np.ndarray]]) -> np.ndarray:
    """The int32 lanes of a `total_bytes`-byte zero buffer with `pieces` (byte offset, bytes)
    written into it: what one rank contributes to a broadcast or all_gather."""
    lanes = np.zeros(byte_lanes(total_bytes), dtype="<i4")
    quads = _lane_bytes(lanes)
    for offset, raw in pieces:
        if offset < 0 or offset + raw.size > total_bytes:
            raise ValueError(f"bytes {offset}..{offset + raw.size} outside a {total_bytes}-byte buffer")
        _write_into_lanes(quads, offset, raw)
    return lanes
