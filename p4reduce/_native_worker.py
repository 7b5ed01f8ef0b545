"""The host agent's per-round state machine in C (extension `p4reduce._worker`,
source p4reduce/_worker.c): `Run`, one allreduce's streams, and `Failed`, what
it raises where the Python engine raises (p4reduce.hostagent.fastpath turns it
into the same exceptions). The readable model it is tested against is
p4reduce.hostagent.stream.Stream driven by HostAgent (tests/test_native_worker.py).

There is no pure-Python fallback: without the compiled extension this import fails.
"""

from __future__ import annotations

from p4reduce._native import load_extension

_worker = load_extension("_worker", 5)  # 5: ABI_VERSION in p4reduce/_worker.c
Failed, Run = _worker.Failed, _worker.Run

__all__ = ["Failed", "Run"]
