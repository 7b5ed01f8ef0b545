# SPDX-License-Identifier: Apache-2.0
"""The host agent's per-round state machine in C (extension `p4reduce._worker`,
sources p4reduce/_worker*.c and p4reduce/_packet_ring.c): `Run`, one allreduce's
streams, made from a `RunSpec`, and `Failed`, what it raises where the Python engine
raises (p4reduce.hostagent.fastpath turns it into the same exceptions). The readable
model it is tested against is the Python engine, p4reduce.hostagent.stream_engine
(tests/test_native_worker.py).

`PacketRing` is WorkerConfig(transport="packet")'s flow on AF_PACKET rings (opened by
p4reduce.transport.packet.open_ring); `build_frame` and `parse_frame` are its frame
code on its own (tests), `drop_all` the filter that keeps the worker's UDP socket empty.

There is no pure-Python fallback: without the compiled extension this import fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from p4reduce._native import load_extension

_worker = load_extension("_worker", 10)  # 10: ABI_VERSION in p4reduce/_worker_py.c
Failed, Run, PacketRing = _worker.Failed, _worker.Run, _worker.PacketRing
build_frame, parse_frame, drop_all = _worker.build_frame, _worker.parse_frame, _worker.drop_all


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """What `Run(spec)` is made from. The C side reads these attributes by name, once
    (read_spec in p4reduce/_worker_py.c, one line per field, into its run_spec_t): a new
    field is one here, its member there and its line in read_spec."""

    tensor: np.ndarray  # flat float32 or int32
    out: np.ndarray  # the same dtype, flat (may be `tensor`): the blocks from first_block on
    nonzero: np.ndarray  # BlockPlan's per-block flags (filled by the Run from `scanned` on)
    exps: np.ndarray  # BlockPlan's per-block exponents (likewise)
    job_id: int
    worker_id: int
    num_workers: int  # what fixed point scales by (WorkerConfig.scale_workers)
    block_size: int
    num_slots: int
    slot_base: int
    dense: bool
    epoch: int
    fingerprint: int
    rounds: Sequence[int]  # each used stream's slot round
    # Per aggregator endpoint (stream s goes to s mod their number): its session, the agreed
    # datagram payload size (0: a packet per datagram), and its connected socket's fd or its
    # raw transport's ring (-1: datagrams stay queued for Run.take_output()).
    sessions: Sequence[int]
    limits: Sequence[int]
    send_fds: Sequence[object]
    # (fd or ring, [(IPv4 as int, port), ...]) per socket results arrive on, with the sources
    # it accepts: the endpoints' in their order, then the multicast group's (fd -1: feed() only).
    receivers: Sequence[tuple[object, Sequence[tuple[int, int]]]]
    first_block: int = 0  # a reduce-scatter's: `out` holds the blocks from this one on
    shard_blocks: int = 0  # > 0: a reduce-scatter, blocks per rank
    gso: bool = False  # UDP_SEGMENT sends of equal-size datagrams
    group_sessions: Sequence[int] | None = None  # per endpoint, what its results to the group carry
    key: bytes | None = None  # an authenticated job's 16-byte key
    spin_us: int = 0  # how long a poll spins before it blocks (a ring may ask for more)
    scanned: int = -1  # blocks `nonzero` and `exps` already hold (-1: all)
    scan_chunk: int = 0  # elements the scan takes at a time (0: the Run's default)


__all__ = ["Failed", "PacketRing", "Run", "RunSpec", "build_frame", "drop_all", "parse_frame"]
