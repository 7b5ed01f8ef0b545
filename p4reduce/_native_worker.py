# SPDX-License-Identifier: Apache-2.0
"""The host agent's per-round state machine in C (extension `p4reduce._worker`,
sources p4reduce/_worker*.c and p4reduce/_packet_ring.c): `Run`, one allreduce's
streams, and `Failed`, what it raises where the Python engine raises
(p4reduce.hostagent.fastpath turns it into the same exceptions). The readable
model it is tested against is p4reduce.hostagent.stream.Stream driven by
HostAgent (tests/test_native_worker.py).

`PacketRing` is WorkerConfig(transport="packet")'s flow on AF_PACKET rings (opened by
p4reduce.transport.packet.open_ring); `build_frame` and `parse_frame` are its frame
code on its own (tests), `drop_all` the filter that keeps the worker's UDP socket empty.

There is no pure-Python fallback: without the compiled extension this import fails.
"""

from __future__ import annotations

from p4reduce._native import load_extension

_worker = load_extension("_worker", 9)  # 9: ABI_VERSION in p4reduce/_worker_py.c
Failed, Run, PacketRing = _worker.Failed, _worker.Run, _worker.PacketRing
build_frame, parse_frame, drop_all = _worker.build_frame, _worker.parse_frame, _worker.drop_all

__all__ = ["Failed", "PacketRing", "Run", "build_frame", "drop_all", "parse_frame"]
