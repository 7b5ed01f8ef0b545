# SPDX-License-Identifier: Apache-2.0
"""UDP front end of the software aggregator."""

from __future__ import annotations

import logging
import os
import queue
import selectors
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol

from p4reduce.aggregator.config import JobSpec, WorkerAddress
from p4reduce.aggregator.engine import AggregatorEngine, key_mismatch
from p4reduce.aggregator.native import NativeEngine
from p4reduce.aggregator.relay import UPSTREAM
from p4reduce.aggregator.replies import TRACKED_SOURCES, AnswerLimiter
from p4reduce.protocol import AGG_UDP_PORT, ALL_WORKERS, AggHeader, ErrorCode
from p4reduce.protocol.framing import split_datagram
from p4reduce.transport.batchio import BatchReceiver, BatchSender, Buffer
from p4reduce.transport.udp_offload import UdpOffload, probe_udp_offload

if TYPE_CHECKING:
    from p4reduce._engine import Core  # compiled: typed Any

log = logging.getLogger(__name__)
SOCKET_BUFFER_BYTES = 8 << 20
MAX_DATAGRAM = 65535


class AggregatorServer:
    """Serves an AggregatorEngine on a UDP socket: by default the native one (`engine=
    "native"`: the C data path, p4reduce._engine), or the pure-Python reference model
    (`engine="python"`).

    A worker's results go to the address it joined from (the engine binds it,
    and admits only what the job declares); a job's results go once to its
    multicast group when it has one.

    The native engine uses UDP GSO and GRO where the kernel has them (`udp_offload=False`
    turns them off); `self.udp_offload` says which, `io_stats()` what they did.
    """

    def __init__(
        self,
        jobs: Iterable[JobSpec] = (),
        host: str = "127.0.0.1",
        port: int = AGG_UDP_PORT,
        engine: str = "native",
        udp_offload: bool = True,
    ) -> None:
        self.engine = make_engine(jobs, engine)
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
        if isinstance(self.engine, NativeEngine):
            self.udp_offload = probe_udp_offload(self._sock, udp_offload)
            self.engine.core.set_gso(self.udp_offload.gso)
        else:  # BatchReceiver/BatchSender move datagram by datagram
            self.udp_offload = UdpOffload.off("Python engine")
        log.debug("aggregator on %s:%d: %s", *self.address, self.udp_offload.describe())
        # Parents of leaf jobs, resolved once (only they may send RESULTs to this server).
        self._upstream_of = {
            j.job_id: (socket.gethostbyname(j.upstream.host), j.upstream.port)
            for j in self.engine.jobs()
            if j.upstream is not None
        }
        self.datapath = Datapath(self.engine, self._upstream_of)
        self._stop = threading.Event()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        # Jobs added or removed while serving, applied by the serving thread (add_job).
        self._changes: queue.SimpleQueue[tuple[Callable[[], None], Future[None]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self._sock.getsockname()

    def counters(self) -> dict[str, int]:
        return self.engine.counters.snapshot()

    def cpu_seconds(self) -> float:
        """CPU time the serving thread has used so far (its POSIX thread CPU clock); 0.0
        before start() or where the platform has no such clock."""
        if self._thread is None or self._thread.ident is None or not hasattr(time, "pthread_getcpuclockid"):
            return 0.0
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(self._thread.ident))
        except OSError:  # the thread has ended
            return 0.0

    def job_counters(self, job_id: int) -> dict[str, int]:
        """One job's packets, drops, retransmissions and rounds (AggregatorEngine.job_counters);
        safe from any thread, like counters(). KeyError for a job not served."""
        return self.engine.job_counters(job_id)

    def io_stats(self) -> dict[str, int]:
        """The native core's system calls and GSO/GRO use (recv_calls, send_calls,
        gro_buffers/gro_segments, gso_sends/gso_segments, gso_fallbacks; gso: still on);
        empty for the Python engine."""
        if isinstance(self.engine, NativeEngine):
            return self.engine.core.io_stats()
        return {}

    # -- jobs while serving ------------------------------------------------------
    def add_job(self, spec: JobSpec, timeout: float = 10.0) -> None:
        """Serve one more job; safe from any thread while the server runs. The serving
        thread applies it between batches: the native core runs a batch over the job
        tables with the GIL released, so no other thread may change them meanwhile."""
        if spec.upstream is not None:
            raise ValueError(f"job {spec.job_id}: a leaf of a hierarchy is given when the server is made")
        self._change(lambda: self.engine.add_job(spec), timeout)
        log.info("serving %s on %s:%d", spec.describe(), *self.address)

    def remove_job(self, job_id: int, timeout: float = 10.0) -> None:
        """Stop serving a job (its state is forgotten); safe from any thread, like add_job."""
        self._change(lambda: self.engine.remove_job(job_id), timeout)
        log.info("job %d removed", job_id)

    def declare_worker(self, job_id: int, worker_id: int, address: WorkerAddress, timeout: float = 10.0) -> None:
        """Admit a rank of a job with declared workers from `address` only (engine.declare_worker);
        safe from any thread, like add_job."""
        self._change(lambda: self.engine.declare_worker(job_id, worker_id, address), timeout)

    def _change(self, apply: Callable[[], None], timeout: float) -> None:
        if self._thread is None or not self._thread.is_alive():
            apply()  # nobody serves: nothing runs concurrently
            return
        done: Future[None] = Future()
        self._changes.put((apply, done))
        self._wakeup_w.send(b"c")
        done.result(timeout)  # the engine's own error (an unknown or duplicate job), raised here

    def _apply_changes(self) -> None:
        """On the serving thread: the job changes other threads asked for."""
        try:
            self._wakeup_r.recv(4096)
        except BlockingIOError:
            pass
        while True:
            try:
                apply, done = self._changes.get_nowait()
            except queue.Empty:
                return
            try:
                apply()
            except BaseException as exc:  # handed to the caller
                done.set_exception(exc)
            else:
                done.set_result(None)

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> AggregatorServer:
        if self._thread is not None:  # two loops on one socket and core would interleave batches
            raise RuntimeError("this AggregatorServer is already started (`with` starts it; do not call start() too)")
        self._thread = threading.Thread(target=self.serve_forever, name="p4reduce-aggregator", daemon=True)
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
        self.datapath.debug = log.isEnabledFor(logging.DEBUG)  # checked once: the loop is per packet
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        sel.register(self._wakeup_r, selectors.EVENT_READ)
        try:
            if isinstance(self.engine, NativeEngine):
                self._serve_native(sel)
            else:
                self._serve_python(sel)
        finally:
            sel.close()

    def _serve_python(self, sel: selectors.BaseSelector) -> None:
        receiver = BatchReceiver(self._sock)
        sender = BatchSender(self._sock)
        self.datapath.upstream_joins(sender)
        self.datapath.flush(sender)
        while not self._stop.is_set():
            sel.select()
            self._apply_changes()
            while batch := receiver.recv():
                self.datapath.python_batch(batch, sender)
                if not self._changes.empty():  # not held back by a steady stream of datagrams
                    self._apply_changes()

    def _serve_native(self, sel: selectors.BaseSelector) -> None:
        assert isinstance(self.engine, NativeEngine)
        core, fd = self.engine.core, self._sock.fileno()
        self.datapath.upstream_joins(self.datapath.core_sender)
        core.flush(fd)
        while not self._stop.is_set():
            sel.select()
            self._apply_changes()
            while core.recv(fd):  # recvmmsg, the batch and sendmmsg run with the GIL released
                self.datapath.native_batch(fd)
                if not self._changes.empty():  # not held back by a steady stream of datagrams
                    self._apply_changes()


Address = tuple[str, int]


def make_engine(
    jobs: Iterable[JobSpec], engine: str = "native", *, new_session: Callable[[int, int], int] | None = None
) -> AggregatorEngine:
    """`native`: the C data path (p4reduce._engine); `python`: the reference model.
    `new_session(job, worker)`: the sessions JOINs get (tests; random otherwise)."""
    if engine == "native":
        return NativeEngine(jobs, new_session=new_session)
    if engine == "python":
        return AggregatorEngine(jobs, new_session=new_session)
    raise ValueError(f"engine {engine!r}: expected 'native' or 'python'")


class Sender(Protocol):
    """Where a Datapath puts the packets it sends: a BatchSender (sendmmsg), or the native
    core's output queue."""

    def add(self, parts: Sequence[Buffer], addr: Address, pack_up_to: int = 0) -> None: ...


class _CoreSender:
    """Queues the Python engine's replies in the native core, in order with its own."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def add(self, parts: Sequence[Buffer], addr: Address, pack_up_to: int = 0) -> None:
        packet = parts[0] if len(parts) == 1 else b"".join(bytes(p) for p in parts)
        self._core.queue(packet, addr[0], addr[1], pack_up_to)


class _Recorder(BatchSender):
    """A BatchSender that keeps the datagrams it would send (tests): the same packing."""

    class _NoSocket:
        def fileno(self) -> int:
            return -1

    def __init__(self) -> None:
        super().__init__(self._NoSocket())  # type: ignore[arg-type]
        self.sent: list[tuple[bytes, Address]] = []

    def flush(self) -> int:
        self.sent += [(b"".join(bytes(p) for p in parts), addr) for parts, addr in self.take()]
        return 0


class Datapath:
    """The server's loop body without the socket: datagrams in, packets to a sender,
    logging. The Python engine handles every packet (`python_batch`); a NativeEngine's
    core handles the batch and hands the rest to the Python engine (`native_batch`).
    `process` runs one batch either way and returns what would be sent (tests)."""

    def __init__(
        self, engine: AggregatorEngine, upstream_of: dict[int, Address], answers: AnswerLimiter | None = None
    ) -> None:
        """`answers`: how many JOINED/ERROR answers unauthenticated requests get (replies.py)."""
        self.engine = engine
        self.answers = answers or AnswerLimiter()
        self._datagrams = 0  # datagrams the Python batches took (each answered at most once)
        self.upstream_of = upstream_of  # a leaf job's parent, resolved
        self._key_mismatches: OrderedDict[Address, None] = OrderedDict()  # sources told, logged once
        self._upstreams = set(upstream_of.values())
        # The native engine's core, None for the Python engine.
        self.core: Core | None = engine.core if isinstance(engine, NativeEngine) else None
        if self.core is not None:
            self.core.set_upstreams(sorted(self._upstreams))
            self.core_sender = _CoreSender(self.core)
        self.debug = False

    @property
    def native(self) -> bool:
        """Whether the native core handles the batches."""
        return self.core is not None

    @property
    def debug(self) -> bool:
        return self._debug

    @debug.setter
    def debug(self, value: bool) -> None:
        self._debug = value
        if self.core is not None:
            self.core.set_debug(value)

    def upstream_joins(self, sender: Sender) -> None:
        for out in self.engine.upstream_joins():  # leaves join their parents right away
            sender.add(out.parts, self.upstream_of[out.job_id])

    def flush(self, sender: BatchSender) -> None:
        failed = sender.flush()
        self.engine.buffers.flushed()
        if failed:  # full buffer or unreachable: the worker will retransmit
            self.engine.counters.add("send_errors", failed)

    def python_batch(self, batch: list[tuple[memoryview, Address]], sender: BatchSender) -> None:
        self.engine.counters.add("datagrams_in", len(batch))
        for datagram, addr in batch:
            self._datagrams += 1
            packets, leftover = split_datagram(datagram)
            if leftover or not packets:  # a tail that is no whole packet (or
                # an empty datagram): counted like one, as a drop
                self.handle(datagram[len(datagram) - leftover :], addr, sender, self._datagrams)
            for payload in packets:
                self.handle(payload, addr, sender, self._datagrams)
            if sender.full:
                self.flush(sender)
        self.flush(sender)

    def native_batch(self, fd: int) -> None:
        """Run the core's current batch to its end (fd -1: keep the output, see process)."""
        core = self.core
        assert core is not None, "native_batch needs the native engine"
        while (slow := core.run(fd)) is not None:
            payload, addr, datagram = slow
            self.handle(payload, addr, self.core_sender, datagram)
        self.engine.buffers.flushed()
        self.log_core_events()

    def process(self, batch: list[tuple[bytes, Address]]) -> list[tuple[bytes, Address]]:
        """One batch (at most 64 datagrams) without sockets: the datagrams that would be
        sent, in order, with their destinations."""
        if self.core is not None:
            self.core.load(batch)
            self.native_batch(-1)
            return self.core.take_output()
        recorder = _Recorder()
        self.python_batch([(memoryview(d), a) for d, a in batch], recorder)
        return recorder.sent

    def log_core_events(self) -> None:
        assert self.core is not None
        for event in self.core.events():
            kind = event[0]
            if kind == "allreduce":
                log.info("job %d: allreduce %d complete", event[1], event[2])
            elif kind == "failed":
                log.warning(
                    "job %d failed: %s (detail %d); every worker is told until it is reset",
                    event[1],
                    ErrorCode(event[2]).name,
                    event[3],
                )
            elif kind == "stream":
                log.debug("job %d slot %d: stream of allreduce %d complete", *event[1:4])
            elif kind == "drop":
                log.debug("dropped a datagram from %s:%d: %s", *event[1], event[2])
            elif kind == "gso_off":
                log.info(
                    "UDP GSO turned off: the kernel refused a segmented send (%s); the datagrams go one by one",
                    os.strerror(event[2]),
                )

    def _log_key_mismatch(self, payload: memoryview | bytes, addr: Address) -> None:
        """Warn once per source (of the last TRACKED_SOURCES) about JOINs without the job's
        key; every one is counted (drop_key_mismatch)."""
        if addr in self._key_mismatches:
            self._key_mismatches.move_to_end(addr)
            return
        self._key_mismatches[addr] = None
        while len(self._key_mismatches) > TRACKED_SOURCES:
            self._key_mismatches.popitem(last=False)
        h = AggHeader.unpack(payload)  # handled: it parsed
        keyed = self.engine.job(h.job_id).key is not None
        log.warning(
            "job %d worker %d: JOIN from %s:%d refused, key mismatch %s (the job has %s): do the keys match? "
            "(logged once per source, counted in drop_key_mismatch)",
            h.job_id,
            h.worker_id,
            *addr,
            key_mismatch(keyed, h).name,
            "a key" if keyed else "no key",
        )

    def handle(self, payload: memoryview | bytes, addr: Address, sender: Sender, datagram: int | None = None) -> None:
        """One packet of datagram number `datagram` (None: unknown) from `addr`; its replies
        go to `sender`."""
        handled = self.engine.handle(payload, addr, from_upstream=addr in self._upstreams)
        if handled.event == "joined" and handled.replies and handled.sender is not None:
            log.info("job %d worker %d joined from %s:%d", *handled.sender, *addr)
        elif handled.event == "reset" and handled.sender is not None:
            log.info("job %d reset by worker %d", *handled.sender)
        if handled.event == "key_mismatch":
            self._log_key_mismatch(payload, addr)
        if handled.failed is not None:
            job, code, detail = handled.failed
            log.warning("job %d failed: %s (detail %d); every worker is told until it is reset", job, code.name, detail)
        if self._debug:
            if handled.dropped:
                log.debug("dropped a datagram from %s:%d: %s", *addr, handled.event)
            if handled.stream_done is not None:
                log.debug("job %d slot %d: stream of allreduce %d complete", *handled.stream_done)
        if handled.allreduce_done is not None:
            log.info("job %d: allreduce %d complete", *handled.allreduce_done)
        for out in handled.replies:
            if out.worker_id == UPSTREAM:
                sender.add(out.parts, self.upstream_of[out.job_id])
                continue
            if out.dest is None and out.worker_id == ALL_WORKERS:
                group = self.engine.job(out.job_id).group
                assert group is not None
                sender.add(out.parts, group, self.engine.group_pack_up_to(out.job_id))
                continue
            if out.dest is not None:  # JOINED and ERROR: to whoever asked (worker_id as it claimed), one per datagram
                # (the core may have answered this datagram already: one ERROR per datagram)
                core = self.core
                answered = core is not None and datagram is not None and datagram == core.answered()
                if not answered and self.answers.allow(out.dest, datagram):
                    sender.add(out.parts, out.dest)
                    if core is not None and datagram is not None:
                        core.set_answered(datagram)
                else:  # no reflector: replies.py
                    self.engine.counters.add("answers_limited")
                continue
            dest = self.engine.destination(out.job_id, out.worker_id)
            if dest is None:
                self.engine.counters.add("drop_no_address")
                continue
            sender.add(out.parts, *dest)


def sharded_servers(
    jobs: Iterable[JobSpec],
    threads: int,
    host: str = "127.0.0.1",
    port: int = AGG_UDP_PORT,
    engine: str = "native",
    udp_offload: bool = True,
) -> list[AggregatorServer]:
    """`threads` servers that split every job's streams between them (shard i serves the
    streams s with s mod threads == i), on ports port, port+1, ... (all ephemeral for 0).
    Workers list their addresses in this order (WorkerConfig.aggregators)."""
    jobs = list(jobs)
    servers: list[AggregatorServer] = []
    try:
        for i in range(threads):
            shard = [j.sharded(threads)[i] if threads > 1 else j for j in jobs]
            servers.append(
                AggregatorServer(shard, host=host, port=port + i if port else 0, engine=engine, udp_offload=udp_offload)
            )
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers
