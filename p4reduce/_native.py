"""The native per-block kernels (C extension `p4reduce._kernels`, source p4reduce/_kernels.c).

    scan(values, block_size, nonzero, exps) -> -1 | flat index of the first NaN/Inf
    quantize(values, exp, num_workers, out) -> None
    dequantize(values, exp, num_workers, out) -> bool (some float32 result is Inf)
    accumulate(values, acc, first) -> None
    write_sums(acc, out) -> bool (some sum is outside int32)

Buffers go through the buffer protocol, C-contiguous: float32 in native byte
order; int32 arrays in either byte order (a '>i4' view is big-endian); raw byte
buffers (bytearray, memoryview of a datagram) hold big-endian int32 wire values.
See each function's docstring. The numpy code in p4reduce.hostagent.fixedpoint
(`reference_*`) and BlockPlan.build_reference is the readable model these match
bit for bit (tests/test_native.py).

There is no pure-Python fallback: without the compiled extension this import fails.
"""
from __future__ import annotations

_ABI_VERSION = 1  # must match ABI_VERSION in p4reduce/_kernels.c

_REBUILD = ("Reinstall p4reduce where a C compiler and the Python headers are present "
            "(`pip install -e .` in a checkout, `pip install p4reduce` otherwise); "
            "there is no pure-Python fallback.")

try:
    from p4reduce._kernels import (ABI_VERSION, GIL_THRESHOLD, accumulate, dequantize, quantize, scan,
                                   write_sums)
except ImportError as exc:
    raise ImportError(f"p4reduce's C extension p4reduce._kernels is missing or does not load ({exc}). "
                      + _REBUILD, name=__name__) from exc

if ABI_VERSION != _ABI_VERSION:
    raise ImportError(f"p4reduce._kernels was built from another version of p4reduce/_kernels.c "
                      f"(ABI {ABI_VERSION}, this checkout expects {_ABI_VERSION}). " + _REBUILD,
                      name=__name__)

__all__ = ["GIL_THRESHOLD", "accumulate", "dequantize", "quantize", "scan", "write_sums"]
