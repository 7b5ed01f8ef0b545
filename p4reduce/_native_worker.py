"""The host agent's per-round state machine in C (extension `p4reduce._worker`,
source p4reduce/_worker.c): `Run`, one allreduce's streams, and `Failed`, what
it raises where the Python engine raises (p4reduce.hostagent.fastpath turns it
into the same exceptions). The readable model it is tested against is
p4reduce.hostagent.stream.Stream driven by HostAgent (tests/test_native_worker.py).

There is no pure-Python fallback: without the compiled extension this import fails.
"""
from __future__ import annotations

from p4reduce._native import _REBUILD

_ABI_VERSION = 1  # must match ABI_VERSION in p4reduce/_worker.c

try:
    from p4reduce._worker import ABI_VERSION, Failed, Run
except ImportError as exc:
    raise ImportError(f"p4reduce's C extension p4reduce._worker is missing or does not load ({exc}). "
                      + _REBUILD, name=__name__) from exc

if ABI_VERSION != _ABI_VERSION:
    raise ImportError(f"p4reduce._worker was built from another version of p4reduce/_worker.c "
                      f"(ABI {ABI_VERSION}, this checkout expects {_ABI_VERSION}). " + _REBUILD,
                      name=__name__)

__all__ = ["Failed", "Run"]
