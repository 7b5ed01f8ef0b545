# SPDX-License-Identifier: Apache-2.0
"""The host agent's two worker engines behind one interface.

HostAgent runs each collective (allreduce, reduce-scatter) through a `WorkerEngine`,
chosen once from WorkerConfig.engine: the Python stream engine
(p4reduce.hostagent.stream_engine: a Stream per slot, driven packet by packet; the readable
reference) or the native one (p4reduce.hostagent.fastpath: p4reduce._worker's Run, in C).
The agent hands its engine an `EngineIO`, what it owns and the engine works with (the
aggregator endpoints, the multicast group's socket, the retransmission timeout and the
window learned across collectives), and drives every collective the engine begins with
the same calls (HostAgent._drive):

    run = engine.begin(plan, target, epoch, fingerprint, rounds, stats, shard_blocks)
    try:
        io.window.restart()
        run.release()
        while run.unfinished:
            ...  # is the job still held (the job service)?
            run.poll(POLL_MAX_WAIT)  # the native engine waits on its sockets in C
            now = time.monotonic()
            if run.unfinished and now >= run.next_deadline():
                run.expire(now)
        rounds, overflow = run.result()
    finally:
        run.close()

Both engines raise the exceptions of p4reduce.hostagent.errors (JobFailed, ProtocolError,
AllreduceTimeout, NonFiniteInput), and count into AllreduceStats.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

if TYPE_CHECKING:
    from p4reduce.hostagent.blocks import BlockPlan
    from p4reduce.hostagent.config import WorkerConfig
    from p4reduce.hostagent.endpoint import Endpoint
    from p4reduce.hostagent.rto import RtoEstimator
    from p4reduce.hostagent.window import StreamWindow
    from p4reduce.transport.udp_offload import UdpOffload

WIRE_OVERHEAD = 14 + 20 + 8  # Ethernet + IPv4 + UDP headers per datagram
# Seconds a wait for results may block at most (timers bound it too): between two waits
# the agent looks whether the job service still holds the job (HostAgent._check_held).
POLL_MAX_WAIT = 0.1


@dataclass
class AllreduceStats:
    """What one allreduce cost this worker."""

    elements: int = 0
    blocks: int = 0
    nonzero_blocks: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    payload_bytes_sent: int = 0
    payload_bytes_received: int = 0  # UDP payloads of the aggregation packets received
    retransmissions: int = 0
    queries: int = 0
    ignored_packets: int = 0
    unauthenticated: int = 0  # of those, packets without a valid MAC (an authenticated job)
    # UDP offload (native engine): UDP_SEGMENT buffers sent and the datagrams they carried,
    # UDP_GRO buffers received and the datagrams they carried
    gso_sends: int = 0
    gso_segments: int = 0
    gro_buffers: int = 0
    gro_segments: int = 0
    # Bytes a device tensor's blocks crossed PCIe (p4reduce.torch.device): to the host
    # (the non-zero blocks and their indices) and back (the sum's non-zero blocks)
    device_to_host_bytes: int = 0
    host_to_device_bytes: int = 0
    # Blocks of the tensor scanned when its first packet left (the native engine scans while
    # its first streams run; the Python engine scans every block first)
    scanned_at_send: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time during the call (all its threads)
    per_slot_retries: dict[int, int] = field(default_factory=dict)

    @property
    def wire_bytes_sent(self) -> int:
        return self.payload_bytes_sent + WIRE_OVERHEAD * self.packets_sent

    @property
    def density(self) -> float:
        return self.nonzero_blocks / self.blocks if self.blocks else 0.0

    def accumulate(self, other: AllreduceStats) -> None:
        """Add `other`'s counts and time to these (totals over many allreduces)."""
        for name in (
            "elements",
            "blocks",
            "nonzero_blocks",
            "packets_sent",
            "packets_received",
            "payload_bytes_sent",
            "payload_bytes_received",
            "retransmissions",
            "queries",
            "ignored_packets",
            "unauthenticated",
            "gso_sends",
            "gso_segments",
            "gro_buffers",
            "gro_segments",
            "device_to_host_bytes",
            "host_to_device_bytes",
            "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for slot, retries in other.per_slot_retries.items():
            self.per_slot_retries[slot] = self.per_slot_retries.get(slot, 0) + retries


class BlockTarget:
    """Where aggregated blocks land: the flat output (the kernels write a cut last
    block's own values only), from block `first_block` on (a reduce-scatter's shard),
    and whether a float32 sum overflowed."""

    def __init__(self, flat: np.ndarray, first_block: int = 0) -> None:
        self.flat = flat
        self.first_block = first_block
        self.float_overflow = False  # a delivered float32 block summed to inf


@dataclass
class EngineIO:
    """What HostAgent hands its engine, and owns: the job's configuration, the aggregator
    endpoints (stream s goes to endpoint s mod their number; each holds its socket or raw
    transport's ring and what its JOIN agreed: session, group session, datagram size), the
    multicast group's socket (None: no group), and the retransmission timeout and window of
    streams in flight, learned across collectives."""

    config: WorkerConfig
    endpoints: Sequence[Endpoint]
    group_sock: socket.socket | None
    rto: RtoEstimator
    window: StreamWindow

    def endpoint_of(self, slot: int) -> Endpoint:
        """The aggregator that serves `slot`'s stream."""
        return self.endpoints[(slot - self.config.slot_base) % len(self.endpoints)]


class Outcome(NamedTuple):
    """How a collective ended (Collective.result)."""

    rounds: list[int]  # each stream's slot round counter, for the next collective
    overflow: bool  # the aggregator flagged an int32 overflow in the sum


class Collective(Protocol):
    """One collective's streams in an engine (WorkerEngine.begin), driven by HostAgent.

    Streams start in order as the window allows and, once started, run every round to
    the end. Every method raises what ends the collective: the exceptions of
    p4reduce.hostagent.errors (NonFiniteInput: the native engine finds NaN/Inf as it
    scans), OSError."""

    @property
    def unfinished(self) -> int:
        """Streams not finished yet."""
        ...

    def release(self) -> None:
        """Start waiting streams, in order, as far as the window allows, and send."""
        ...

    def poll(self, max_wait: float) -> None:
        """Wait for results until the next retransmission deadline, `max_wait` seconds at
        most; handle what arrived (replies sent, clean rounds' latencies fed to the RTO
        estimator and the window) and release the streams that makes room for."""
        ...

    def next_deadline(self) -> float:
        """When expire() is due (inf: no timer runs)."""
        ...

    def expire(self, now: float) -> None:
        """Resend (or QUERY) for every stream whose round timer ran out, a loss for the
        window, then release and send; AllreduceTimeout for a round that waited
        `failure_timeout`."""
        ...

    def result(self) -> Outcome:
        """Once every stream has finished: the rounds and the aggregator's overflow flag
        (a float32 sum beyond range: the target's float_overflow); raises what the end
        finds (the native engine's NaN/Inf found after packets left)."""
        ...

    def close(self) -> None:
        """At the end, whatever happened: the counts into the stats, the plan's scan."""
        ...


class WorkerEngine(Protocol):
    """The host agent's worker engine (WorkerConfig.engine): made once per agent from the
    agent's EngineIO, it plans tensors and begins each collective."""

    io: EngineIO
    # Whether it sends with UDP GSO and receives with GRO (the native engine), and why not.
    udp_offload: UdpOffload

    def plan(self, flat: np.ndarray) -> BlockPlan:
        """The blocks of `flat`: scanned here, NaN/Inf included (the Python engine), or as
        the first streams run (the native one)."""
        ...

    def begin(
        self,
        plan: BlockPlan,
        target: BlockTarget,
        epoch: int,
        tag: int,
        rounds: Sequence[int],
        stats: AllreduceStats,
        shard_blocks: int = 0,
    ) -> Collective:
        """A collective of `plan` into `target` (`shard_blocks` > 0: a reduce-scatter of
        that many blocks per rank): allreduce `epoch`, its fingerprint `tag`, each stream's
        slot round from `rounds`; counted into `stats`. Nothing is sent before release()."""
        ...
