"""One aggregator endpoint of a worker: a connected UDP socket, its batched I/O, and
what the JOIN agreed with that aggregator (session, datagram size).

A job's streams may be spread over several aggregators (sharded aggregation:
stream s goes to endpoint s mod k); each is joined separately and has its own
session.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable

from p4reduce.protocol import AggHeader, MalformedPacket
from p4reduce.protocol.auth import JobKey, authentic
from p4reduce.protocol.framing import split_datagram
from p4reduce.transport.batchio import BatchReceiver, BatchSender

SOCKET_BUFFER_BYTES = 8 << 20


class Endpoint:
    def __init__(self, address: tuple[str, int], bind: tuple[str, int], key: JobKey | None = None) -> None:
        """`key`: the job's, when it is authenticated: what is sent is sealed, and `exchange`
        takes only answers with a valid MAC."""
        self.key = key
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
                self.sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
            self.sock.bind(bind)
            # Connected: the kernel drops datagrams from anyone but this aggregator.
            self.sock.connect(address)
        except BaseException:
            self.sock.close()
            raise
        self.sock.setblocking(False)
        self.peer: tuple[str, int] = self.sock.getpeername()
        self.receiver = BatchReceiver(self.sock)
        self.sender = BatchSender(self.sock)
        self.session: int | None = None  # from the JOINED answer
        self.group_session = 0  # of the results it sends to the job's multicast group (JOINED)
        self.pack_up_to = 0  # datagram size agreed in JOIN/JOINED (0: a packet per datagram)

    def send(self, packet: bytes | bytearray) -> int:
        """Queue a packet (sealed for an authenticated job); `flush` hands the queue to the
        kernel in one call. Returns the bytes queued."""
        if self.key is not None:
            packet = self.key.seal(packet)
        self.sender.add((packet,), self.peer, self.pack_up_to)
        return len(packet)

    def flush(self) -> None:
        # Refused datagrams (full buffer, aggregator not up yet) are covered by
        # the retransmission timers.
        self.sender.flush()

    def exchange(
        self,
        request: bytes,
        accept: Callable[[AggHeader, bytes], bool],
        timeout: float,
        interval: Callable[[], float],
        on_send: Callable[[int], None],
    ) -> tuple[AggHeader, bytes] | None:
        """Send `request` every `interval()` seconds until an answer `accept`s: that answer's
        header and bytes; None on timeout."""
        deadline = time.monotonic() + timeout
        buf = bytearray(65535)
        while time.monotonic() < deadline:
            on_send(self.send(request))
            self.flush()
            until = min(deadline, time.monotonic() + interval())
            while time.monotonic() < until:
                ready, _, _ = select.select([self.sock], [], [], until - time.monotonic())
                if not ready:
                    break
                try:
                    n = self.sock.recv_into(buf)
                except (BlockingIOError, ConnectionRefusedError):
                    continue
                if (answer := _accepted(memoryview(buf)[:n], accept, self.key)) is not None:
                    return answer
        return None

    def close(self) -> None:
        self.sock.close()


def _accepted(
    buffer: memoryview, accept: Callable[[AggHeader, bytes], bool], key: JobKey | None
) -> tuple[AggHeader, bytes] | None:
    """The first packet of a received buffer that `accept`s. Every packet is looked at: with
    UDP GRO on (the native engine's sockets) one buffer may carry several datagrams, such as
    the answers to a JOIN sent twice."""
    for packet in split_datagram(buffer)[0]:
        try:
            h = AggHeader.unpack(packet)
        except MalformedPacket:
            continue
        raw = bytes(packet)
        if authentic(key, raw) and accept(h, raw):
            return h, raw
    return None
