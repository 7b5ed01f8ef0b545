# SPDX-License-Identifier: Apache-2.0
"""The native per-block kernels (C extension `p4reduce._kernels`, source p4reduce/_kernels.c).

    scan(values, block_size, nonzero, exps) -> -1 | flat index of the first NaN/Inf
    quantize(values, exp, num_workers, out) -> None
    dequantize(values, exp, num_workers, out) -> bool (some float32 result is Inf)
    accumulate(values, acc, first) -> None
    write_sums(acc, out) -> bool (some sum is outside int32)
    rto_feed(srtt, rttvar, latencies) -> (srtt, rttvar)
    window_feed(smoothed, base, cwnd, limit, grows, queue_factor, epoch_low, epoch_rounds, base_epoch,
                latencies) -> (smoothed, base, cwnd, epoch_low, epoch_rounds)
    siphash(key, data) -> int: SipHash-2-4 (the MAC of authenticated jobs)

Buffers go through the buffer protocol, C-contiguous: float32 in native byte
order; int32 arrays in either byte order (a '>i4' view is big-endian); raw byte
buffers (bytearray, memoryview of a datagram) hold big-endian int32 wire values.
See each function's docstring. The numpy code in p4reduce.hostagent.fixedpoint
(`reference_*`) and BlockPlan.build_reference is the readable model these match
bit for bit (tests/test_native.py). The last two run the round-latency recurrences of
hostagent/rto.py and hostagent/window.py over a float64 buffer of latencies (what
the native worker returns per batch), bit for bit like one Python call per round.

There is no pure-Python fallback: without the compiled extension this import fails.
"""

from __future__ import annotations

import array
import importlib
from collections.abc import Sequence
from types import ModuleType

# Round latencies in seconds: the native worker's float64 buffer, or any sequence of floats.
Latencies = bytes | bytearray | memoryview | Sequence[float]

_REBUILD = (
    "Reinstall p4reduce where a C compiler and the Python headers are present "
    "(`pip install -e .` in a checkout, `pip install p4reduce` otherwise); "
    "there is no pure-Python fallback."
)


def load_extension(name: str, abi: int, note: str = "") -> ModuleType:
    """Import the C extension `p4reduce.<name>` (source p4reduce/<name>.c), or raise an
    ImportError that says how to rebuild it: when it is missing, and when it was built
    from another version of its source (its ABI_VERSION is not `abi`)."""
    rebuild = _REBUILD + (f" {note}" if note else "")
    try:
        module = importlib.import_module(f"p4reduce.{name}")
    except ImportError as exc:
        raise ImportError(
            f"p4reduce's C extension p4reduce.{name} is missing or does not load ({exc}). " + rebuild,
            name=f"p4reduce.{name}",
        ) from exc
    if getattr(module, "ABI_VERSION", None) != abi:
        raise ImportError(
            f"p4reduce.{name} was built from another version of p4reduce/{name}.c "
            f"(ABI {getattr(module, 'ABI_VERSION', None)}, this checkout expects {abi}). " + rebuild,
            name=f"p4reduce.{name}",
        )
    return module


def float64_buffer(values: Latencies) -> bytes | bytearray | memoryview | array.array[float]:
    """`values` as a float64 buffer for rto_feed/window_feed: a buffer (the native
    worker's latencies) as it is, a sequence of floats packed."""
    if isinstance(values, (bytes, bytearray, memoryview)):
        return values
    return array.array("d", values)


_kernels = load_extension("_kernels", 4)  # 4: ABI_VERSION in p4reduce/_kernels.c
GIL_THRESHOLD = _kernels.GIL_THRESHOLD
accumulate, dequantize, quantize = _kernels.accumulate, _kernels.dequantize, _kernels.quantize
scan, write_sums = _kernels.scan, _kernels.write_sums
rto_feed, window_feed = _kernels.rto_feed, _kernels.window_feed
siphash = _kernels.siphash

__all__ = [
    "load_extension",
    "GIL_THRESHOLD",
    "accumulate",
    "dequantize",
    "float64_buffer",
    "quantize",
    "rto_feed",
    "scan",
    "window_feed",
    "write_sums",
]
