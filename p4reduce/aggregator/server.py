"""UDP front end of the software aggregator."""
from __future__ import annotations

import logging
import selectors
import socket
import threading
from typing import Iterable

from p4reduce.transport.batchio import BatchReceiver, BatchSender
from p4reduce.protocol import AGG_UDP_PORT, ALL_WORKERS
from p4reduce.protocol.framing import split_datagram
from p4reduce.aggregator.config import JobSpec
from p4reduce.aggregator.engine import AggregatorEngine
from p4reduce.aggregator.relay import UPSTREAM

log = logging.getLogger(__name__)
SOCKET_BUFFER_BYTES = 8 << 20
MAX_DATAGRAM = 65535


class AggregatorServer:
    """Serves an AggregatorEngine on a UDP socket.

    A worker's results go to the address it joined from (the engine binds it,
    and admits only what the job declares); a job's results go once to its
    multicast group when it has one.
    """

    def __init__(self, jobs: Iterable[JobSpec] = (), host: str = "127.0.0.1",
                 port: int = AGG_UDP_PORT) -> None:
        self.engine = AggregatorEngine(jobs)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            self._sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
        self._sock.bind((host, port))
        if any(j.group for j in self.engine.jobs()):
            # Multicast results leave through the interface we serve on (loopback in tests).
            if host not in ("", "0.0.0.0"):
                self._sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(host))
            self._sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        self._sock.setblocking(False)
        # Parents of leaf jobs, resolved once (only they may send RESULTs to this server).
        self._upstream_of = {j.job_id: (socket.gethostbyname(j.upstream.host), j.upstream.port)
                             for j in self.engine.jobs() if j.upstream is not None}
        self._upstreams = set(self._upstream_of.values())
        self._stop = threading.Event()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._thread: threading.Thread | None = None
        self._debug = False

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
        for spec in self.engine.jobs():
            log.info("serving %s on %s:%d", spec.describe(), *self.address)
        self._debug = log.isEnabledFor(logging.DEBUG)  # checked once: the loop is per packet
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        sel.register(self._wakeup_r, selectors.EVENT_READ)
        receiver = BatchReceiver(self._sock)
        sender = BatchSender(self._sock)
        for out in self.engine.upstream_joins():  # leaves join their parents right away
            sender.add(out.parts, self._upstream_of[out.job_id])
        self._flush(sender)
        try:
            while not self._stop.is_set():
                sel.select()
                while batch := receiver.recv():
                    self.engine.counters.add("datagrams_in", len(batch))
                    for datagram, addr in batch:
                        packets, leftover = split_datagram(datagram)
                        if leftover or not packets:  # a tail that is no whole packet (or
                            # an empty datagram): counted like one, as a drop
                            self._handle(datagram[len(datagram) - leftover:], addr, sender)
                        for payload in packets:
                            self._handle(payload, addr, sender)
                        if sender.full:
                            self._flush(sender)
                    self._flush(sender)
        finally:
            sel.close()

    def _flush(self, sender: BatchSender) -> None:
        failed = sender.flush()
        self.engine.buffers.flushed()
        if failed:  # full buffer or unreachable: the worker will retransmit
            self.engine.counters.add("send_errors", failed)

    def _handle(self, payload: memoryview | bytes, addr: tuple[str, int], sender: BatchSender) -> None:
        handled = self.engine.handle(payload, addr, from_upstream=addr in self._upstreams)
        if handled.event == "joined" and handled.replies:
            log.info("job %d worker %d joined from %s:%d", *handled.sender, *addr)
        elif handled.event == "reset":
            log.info("job %d reset by worker %d", *handled.sender)
        if handled.failed is not None:
            job, code, detail = handled.failed
            log.warning("job %d failed: %s (detail %d); every worker is told until it is reset",
                        job, code.name, detail)
        if self._debug:
            if handled.dropped:
                log.debug("dropped a datagram from %s:%d: %s", *addr, handled.event)
            if handled.stream_done is not None:
                log.debug("job %d slot %d: stream of allreduce %d complete", *handled.stream_done)
        if handled.allreduce_done is not None:
            log.info("job %d: allreduce %d complete", *handled.allreduce_done)
        for out in handled.replies:
            if out.worker_id == UPSTREAM:
                sender.add(out.parts, self._upstream_of[out.job_id])
                continue
            if out.worker_id == ALL_WORKERS:
                group = self.engine.job(out.job_id).group
                assert group is not None
                sender.add(out.parts, group, self.engine.group_pack_up_to(out.job_id))
                continue
            if out.dest is not None:  # JOINED and ERROR: to whoever asked, one per datagram
                sender.add(out.parts, out.dest)
                continue
            dest = self.engine.destination(out.job_id, out.worker_id)
            if dest is None:
                self.engine.counters.add("drop_no_address")
                continue
            sender.add(out.parts, *dest)


def sharded_servers(jobs: Iterable[JobSpec], threads: int, host: str = "127.0.0.1",
                    port: int = AGG_UDP_PORT) -> list[AggregatorServer]:
    """`threads` servers that split every job's streams between them (shard i serves the
    streams s with s mod threads == i), on ports port, port+1, ... (all ephemeral for 0).
    Workers list their addresses in this order (WorkerConfig.aggregators)."""
    jobs = list(jobs)
    servers: list[AggregatorServer] = []
    try:
        for i in range(threads):
            shard = [j.sharded(threads)[i] if threads > 1 else j for j in jobs]
            servers.append(AggregatorServer(shard, host=host, port=port + i if port else 0))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers
