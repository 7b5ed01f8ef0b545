"""UDP front end of the software aggregator."""
from __future__ import annotations

import logging
import selectors
import socket
import threading
from typing import Iterable

from p4reduce.protocol import AGG_UDP_PORT
from software_aggregator.config import JobSpec
from software_aggregator.engine import AggregatorEngine

log = logging.getLogger(__name__)
SOCKET_BUFFER_BYTES = 8 << 20
MAX_DATAGRAM = 65535


class AggregatorServer:
    """Serves an AggregatorEngine on a UDP socket.

    Worker addresses are learned from their well-formed packets (a restarted
    worker may come back on another port), so results go to wherever each
    worker last sent from.
    """

    def __init__(self, jobs: Iterable[JobSpec] = (), host: str = "127.0.0.1",
                 port: int = AGG_UDP_PORT) -> None:
        self.engine = AggregatorEngine(jobs)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            self._sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
        self._sock.bind((host, port))
        self._sock.setblocking(False)
        self._addresses: dict[tuple[int, int], tuple[str, int]] = {}
        self._stop = threading.Event()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self._sock.getsockname()

    def counters(self) -> dict[str, int]:
        return self.engine.counters.snapshot()

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> AggregatorServer:
        self._thread = threading.Thread(target=self.serve_forever, name="p4reduce-aggregator",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wakeup_w.send(b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        for s in (self._sock, self._wakeup_r, self._wakeup_w):
            s.close()

    def __enter__(self) -> AggregatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- loop -----------------------------------------------------------------
    def serve_forever(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        sel.register(self._wakeup_r, selectors.EVENT_READ)
        buf = bytearray(MAX_DATAGRAM)
        view = memoryview(buf)
        try:
            while not self._stop.is_set():
                sel.select()
                self._drain(buf, view)
        finally:
            sel.close()

    def _drain(self, buf: bytearray, view: memoryview) -> None:
        while True:
            try:
                n, addr = self._sock.recvfrom_into(buf)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. ICMP port unreachable reported on a later recv
                log.debug("recv error ignored: %s", exc)
                continue
            self.handle_datagram(view[:n], addr)

    def handle_datagram(self, payload: memoryview | bytes, addr: tuple[str, int]) -> None:
        handled = self.engine.handle(payload)
        if handled.sender is not None:
            self._addresses[handled.sender] = addr
        for out in handled.replies:
            dest = self._addresses.get((out.job_id, out.worker_id))
            if dest is None:
                self.engine.counters.add("drop_no_address")
                continue
            try:
                self._sock.sendto(out.payload, dest)
            except OSError as exc:  # full buffer or unreachable: the worker will retransmit
                self.engine.counters.add("send_errors")
                log.debug("send to %s failed: %s", dest, exc)
