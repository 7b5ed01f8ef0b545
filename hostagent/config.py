# SPDX-License-Identifier: Apache-2.0
"""Configuration of one worker of a job."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p4reduce.protocol import AGG_UDP_PORT, Mode
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.geometry import check_job_geometry, check_message_size

if TYPE_CHECKING:  # the job service's client needs grpc: only a worker with a controller imports it
    from p4reduce.jobapi.security import ClientCredentials

ENGINES = ("native", "python")
# How the worker's datagrams travel (docs/library.md, "Transports"): "udp", a UDP socket per
# aggregator; "packet", AF_PACKET rings on the interface towards it (p4reduce.transport.packet);
# "xdp", an AF_XDP socket and XDP program there (p4reduce.transport.xdp; an optional build).
TRANSPORTS = ("udp", "packet", "xdp")


def check_transport(transport: str, engine: str, interface: str | None, gateway_mac: str | None) -> str | None:
    """ValueError (one line) unless the transport options go together; returns gateway_mac
    normalized (aa:bb:cc:dd:ee:ff)."""
    if transport not in TRANSPORTS:
        raise ValueError(f"transport {transport!r}: use one of {', '.join(TRANSPORTS)}")
    if transport == "udp" and (interface is not None or gateway_mac is not None):
        raise ValueError("interface and gateway_mac are options of transports 'packet' and 'xdp'")
    if transport != "udp" and engine != "native":
        raise ValueError(f"transport {transport!r} needs engine 'native' (engine {engine!r} reads UDP sockets)")
    if transport == "xdp":
        from p4reduce.transport.xdp import available

        if (why := available()) is not None:  # built without AF_XDP: said, never another transport instead
            raise ValueError(why)
    if interface is not None and not 0 < len(interface) < 16:
        raise ValueError(f"interface {interface!r}: an interface name is 1 to 15 characters")
    if gateway_mac is None:
        return None
    from p4reduce.transport.packet import format_mac, parse_mac

    try:
        return format_mac(parse_mac(gateway_mac))
    except ValueError as exc:
        raise ValueError(f"gateway_mac: {exc}") from None


@dataclass(frozen=True)
class WorkerConfig:
    job_id: int
    worker_id: int
    num_workers: int
    aggregator: tuple[str, int] = ("127.0.0.1", AGG_UDP_PORT)
    mode: Mode = Mode.SPARSE
    slot_base: int = 0
    num_slots: int = 256  # streams in flight = window of outstanding packets
    block_size: int = 256  # values per packet; 32 for the P4 switch
    bind: tuple[str, int] = ("0.0.0.0", 0)
    timeout: float = 0.05  # initial and minimum retransmission timeout, seconds
    max_timeout: float = 0.5  # cap for the adaptive timeout and its backoff
    failure_timeout: float = 10.0  # a round waiting this long fails the allreduce, once no round started for as long
    # Workers summed in the end when this job is a leaf of a hierarchy (for
    # fixed-point scaling and the int32 bound); default num_workers.
    total_workers: int | None = None
    # IP multicast group (address, port) the aggregator sends this job's results
    # to (software aggregator jobs configured with group=...).
    group: tuple[str, int] | None = None
    # Largest datagram payload this worker sends and accepts, in bytes: several packets
    # travel in one datagram up to it (and up to what the aggregator accepts; a switch
    # takes one per datagram). 0: one packet per datagram. An MTU-sized value (1472 on
    # a 1500-byte link) avoids IP fragmentation on a real network.
    message_size: int = 65000
    # Sharded aggregation: the job's streams spread over these aggregators (stream s,
    # i.e. slot slot_base + s, goes to aggregators[s mod k]); each is joined on its own.
    # Empty: `aggregator` serves every stream.
    aggregators: tuple[tuple[str, int], ...] = ()
    # Who runs the rounds: "native" (p4reduce._worker, C, the GIL released) or "python"
    # (hostagent/stream.py, the readable reference it is tested against). Default: the
    # environment variable P4REDUCE_WORKER_ENGINE, else "native".
    engine: str = field(default_factory=lambda: os.environ.get("P4REDUCE_WORKER_ENGINE", "native"))
    # UDP GSO and GRO on the native engine where the kernel has them: each aggregator's run
    # of equal-size datagrams goes to the kernel as one buffer, and the agent's sockets may
    # hand over several results as one (split in C). Fewer system calls with MTU-sized
    # datagrams; False turns both off (the Python engine never uses them).
    udp_offload: bool = True
    # An authenticated job (docs/protocol.md 6.3): every packet both ways carries a MAC
    # under the job's key (JobKey.from_file); without a valid one a packet is dropped and
    # counted (AllreduceStats.unauthenticated). The aggregator's job needs the same key.
    key: JobKey | None = None
    # A job placed by the job service (`p4reduce controller serve`, docs/service.md) at this
    # address ("host:port" or (host, port)): the agent creates or joins the job called
    # `job_name` there, registers its address, and takes the target, the geometry and the
    # job id from the answer (job_id must then be 0; the service's geometry replaces this
    # config's). It keeps the job's lease (`lease` seconds; 0: the service's default) while open.
    controller: tuple[str, int] | str | None = None
    job_name: str = ""
    lease: float = 0.0
    # How the agent proves itself to a service with credentials (docs/service.md, "Securing
    # the service"): a CA, a client certificate and key, a token file. A job the service
    # gives a key to (an authenticated software job) runs with that key.
    credentials: ClientCredentials | None = None
    # How datagrams travel: "udp" (a UDP socket per aggregator), "packet" (memory-mapped
    # AF_PACKET rings: the native engine builds and parses the Ethernet/IPv4/UDP frames
    # itself, bypassing the kernel's UDP/IP stack and qdisc; needs CAP_NET_RAW) or "xdp"
    # (an AF_XDP socket with a UMEM, and an XDP program on the interface that hands it the
    # worker's flow; needs root and p4reduce built with libxdp/libbpf). For "packet" and
    # "xdp": `interface` (default: that of the route to the
    # aggregator), `gateway_mac` (default: the next hop's in the neighbour table, else
    # asked by ARP). Every transport: `spin_us`, how long the native engine polls its
    # sockets or RX rings without sleeping before it blocks (0: at once; measured on a
    # 2-core VM, spinning only took CPU from the aggregator and the other workers and made
    # rounds slower, docs/library.md; it may pay on dedicated cores towards a hardware
    # switch, whose round trip is shorter than the spin).
    transport: str = "udp"
    interface: str | None = None
    gateway_mac: str | None = None
    spin_us: int = 0

    @property
    def endpoints(self) -> tuple[tuple[str, int], ...]:
        return self.aggregators or (self.aggregator,)

    @property
    def scale_workers(self) -> int:
        return self.total_workers or self.num_workers

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        check_job_geometry(self.job_id, self.num_workers, self.slot_base, self.num_slots, self.block_size)
        check_message_size(self.message_size)
        object.__setattr__(self, "aggregators", tuple(tuple(a) for a in self.aggregators))
        if len(self.aggregators) > self.num_slots:
            raise ValueError(
                f"{len(self.aggregators)} aggregators for {self.num_slots} slots: each needs at least one stream"
            )
        if len(self.aggregators) > 1 and self.bind[1]:
            raise ValueError("several aggregators need several local ports: bind to port 0")
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r}: use one of {', '.join(ENGINES)}")
        if not 0 <= self.worker_id < self.num_workers:
            raise ValueError(f"worker_id {self.worker_id} outside 0..{self.num_workers - 1}")
        if not 0 < self.timeout <= self.max_timeout:
            raise ValueError("need 0 < timeout <= max_timeout")
        if self.total_workers is not None and not self.num_workers <= self.total_workers <= 1 << 16:
            raise ValueError(f"total_workers {self.total_workers} must be >= num_workers")
        if self.key is not None and not isinstance(self.key, JobKey):
            raise TypeError(f"key must be a JobKey (JobKey.from_file(path)), not {type(self.key).__name__}")
        if self.failure_timeout < self.timeout:
            raise ValueError("failure_timeout must be >= timeout")
        if self.controller is not None:
            self._check_service_fields()
        self._check_transport()

    def _check_transport(self) -> None:
        gateway_mac = check_transport(self.transport, self.engine, self.interface, self.gateway_mac)
        object.__setattr__(self, "gateway_mac", gateway_mac)
        if not 0 <= self.spin_us <= 10_000:
            raise ValueError(f"spin_us {self.spin_us}: 0..10000 microseconds")
        if self.spin_us and self.engine != "native":
            raise ValueError("spin_us needs engine 'native' (the Python engine blocks in select)")

    def _check_service_fields(self) -> None:
        controller = self.controller
        if isinstance(controller, str):
            host, sep, port = controller.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"controller {controller!r}: expected HOST:PORT")
            object.__setattr__(self, "controller", (host.strip("[]"), int(port)))
        if self.job_id != 0:
            raise ValueError(f"job_id {self.job_id} with a controller: the job service assigns it (give 0)")
        if not self.job_name:
            raise ValueError("a job placed by a controller needs a job_name (the same on every worker)")
        if self.aggregators or self.group is not None:
            raise ValueError("with a controller the job service says where to aggregate: no aggregators or group")
        if self.credentials is not None and not hasattr(self.credentials, "channel"):
            raise TypeError(f"credentials must be a ClientCredentials, not {type(self.credentials).__name__}")
        if not (0 <= self.lease < float("inf")):
            raise ValueError(f"lease {self.lease!r}: a number of seconds >= 0")
