# SPDX-License-Identifier: Apache-2.0
"""One aggregator endpoint of a worker: a connected UDP socket, its batched I/O, and
what the JOIN agreed with that aggregator (session, datagram size).

A job's streams may be spread over several aggregators (sharded aggregation:
stream s goes to endpoint s mod k); each is joined separately and has its own
session.

With WorkerConfig(transport="packet") the endpoint's datagrams travel on an AF_PACKET
ring (`ring`, p4reduce.transport.packet) instead: the UDP socket only keeps the port
(a drop-all filter empties it), and everything this module sends and receives for the
agent (JOIN, RESET) goes through the ring, as the native engine's rounds do. With
transport="xdp" the same happens on an AF_XDP socket (p4reduce.transport.xdp), which
offers the ring's methods (send, recv, fileno, max_payload, close).
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from p4reduce.protocol import AggHeader, MalformedPacket
from p4reduce.protocol.auth import JobKey, authentic
from p4reduce.protocol.framing import split_datagram
from p4reduce.transport.batchio import BatchReceiver, BatchSender

if TYPE_CHECKING:
    from p4reduce.transport.packet import Route

SOCKET_BUFFER_BYTES = 8 << 20


class Endpoint:
    def __init__(
        self,
        address: tuple[str, int],
        bind: tuple[str, int],
        key: JobKey | None = None,
        transport: str = "udp",
        interface: str | None = None,
        gateway_mac: str | None = None,
        spin_us: int = 0,
    ) -> None:
        """`key`: the job's, when it is authenticated: what is sent is sealed, and `exchange`
        takes only answers with a valid MAC. `transport` "packet": the datagrams go on an
        AF_PACKET ring on `interface` to `gateway_mac` (defaults: WorkerConfig's)."""
        self.key = key
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # a p4reduce._native_worker.PacketRing with transport "packet", a p4reduce._xdp.XskSocket with "xdp"
        self.ring: Any = None
        self.route: Route | None = None  # where the ring's frames go
        try:
            for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
                self.sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
            self.sock.bind(bind)
            # Connected: the kernel drops datagrams from anyone but this aggregator.
            self.sock.connect(address)
            if transport == "packet":
                from p4reduce.transport.packet import open_ring

                self.ring, self.route = open_ring(self.sock, interface, gateway_mac, spin_us)
            elif transport == "xdp":
                from p4reduce.transport.xdp import open_xsk

                self.ring, self.route = open_xsk(self.sock, interface, gateway_mac, spin_us)
        except BaseException:
            self.sock.close()
            raise
        self.sock.setblocking(False)
        self.peer: tuple[str, int] = self.sock.getpeername()
        self.receiver = BatchReceiver(self.sock)
        self.sender = BatchSender(self.sock)
        self._queued: list[bytes | bytearray] = []  # transport "packet": what flush() sends
        self.session: int | None = None  # from the JOINED answer
        self.group_session = 0  # of the results it sends to the job's multicast group (JOINED)
        self.pack_up_to = 0  # datagram size agreed in JOIN/JOINED (0: a packet per datagram)
        # Answers to `exchange` without a valid MAC (an authenticated job): a key mismatch?
        self.unauthenticated = 0

    @property
    def max_datagram(self) -> int | None:
        """The largest datagram the transport carries (an interface's MTU less 28 bytes
        with transport "packet"); None: the UDP socket's (IP fragments beyond the MTU)."""
        return None if self.ring is None else int(self.ring.max_payload)

    def send(self, packet: bytes | bytearray) -> int:
        """Queue a packet (sealed for an authenticated job); `flush` hands the queue to the
        kernel in one call. Returns the bytes queued."""
        if self.key is not None:
            packet = self.key.seal(packet)
        if self.ring is not None:
            self._queued.append(packet)
        else:
            self.sender.add((packet,), self.peer, self.pack_up_to)
        return len(packet)

    def flush(self) -> None:
        # Refused datagrams (full buffer, aggregator not up yet) are covered by
        # the retransmission timers.
        if self.ring is not None:
            for packet in self._queued:
                self.ring.send(packet)
            self._queued.clear()
        else:
            self.sender.flush()

    def _recv(self, buf: bytearray) -> memoryview | None:
        """One datagram received from the aggregator, or None."""
        if self.ring is not None:
            got = self.ring.recv()
            if got is None or tuple(got[1]) != self.peer:  # the ring is not connected: check the source
                return None
            return memoryview(got[0])
        try:
            n = self.sock.recv_into(buf)
        except (BlockingIOError, ConnectionRefusedError):
            return None
        return memoryview(buf)[:n]

    def exchange(
        self,
        request: bytes,
        accept: Callable[[AggHeader, bytes], bool],
        timeout: float,
        interval: Callable[[], float],
        on_send: Callable[[int], None],
        unsealed: Callable[[AggHeader], bool] = lambda h: False,
    ) -> tuple[AggHeader, bytes] | None:
        """Send `request` every `interval()` seconds until an answer `accept`s: that answer's
        header and bytes; None on timeout. `unsealed`: the answers `accept` may take without
        the MAC an authenticated job's need (others are counted in `unauthenticated`)."""
        deadline = time.monotonic() + timeout
        buf = bytearray(65535)
        readable = self.ring if self.ring is not None else self.sock
        while time.monotonic() < deadline:
            on_send(self.send(request))
            self.flush()
            until = min(deadline, time.monotonic() + interval())
            # The time left is read once: checked and then read again, it could be
            # negative by the second read on a loaded machine (select refuses that).
            while (left := until - time.monotonic()) > 0:
                ready, _, _ = select.select([readable], [], [], left)
                if not ready:
                    break
                while (datagram := self._recv(buf)) is not None:
                    if (answer := self._accepted(datagram, accept, unsealed)) is not None:
                        return answer
                    if self.ring is None:
                        break  # one recv per select, as before
        return None

    def close(self) -> None:
        if self.ring is not None:
            self.ring.close()
        self.sock.close()

    def _accepted(
        self, buffer: memoryview, accept: Callable[[AggHeader, bytes], bool], unsealed: Callable[[AggHeader], bool]
    ) -> tuple[AggHeader, bytes] | None:
        """The first packet of a received buffer that `accept`s. Every packet is looked at:
        with UDP GRO on (the native engine's sockets) one buffer may carry several
        datagrams, such as the answers to a JOIN sent twice."""
        for packet in split_datagram(buffer)[0]:
            try:
                h = AggHeader.unpack(packet)
            except MalformedPacket:
                continue
            raw = bytes(packet)
            if not authentic(self.key, raw) and not (not h.sealed and unsealed(h)):
                self.unauthenticated += 1
                continue
            if accept(h, raw):
                return h, raw
        return None
