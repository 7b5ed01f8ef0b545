#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How many blocks per second one core of the software aggregator sums, next to what
loopback UDP carries on the same machine, in one run.

    python3 benchmarks/aggregator_throughput.py                  # 256-element blocks
    python3 benchmarks/aggregator_throughput.py --block-size 1024 --workers 4
    python3 benchmarks/aggregator_throughput.py --markdown   # a Markdown table with its provenance

Every worker holds every block (the heaviest case per block), packets pre-built:

* python engine: the reference model's packet handling without sockets
  (AggregatorEngine.handle per packet);
* native engine: the C data path (p4reduce._engine) without sockets: batches of 64
  datagrams copied in (as recvmmsg would), handled, replies packed (not sent); one
  packet per datagram, and packed into 64 KB datagrams both ways (message_size 65000);
  with --threads 2 also two cores at once, each on its own job and shard (the GIL is
  released while a batch runs);
* native server: AggregatorServer end to end on loopback (recvmmsg, the core, sendmmsg),
  packed datagrams, fed round by round by the workers' sockets in another thread; per
  second of wall time and per second of the server thread's CPU time; 64 KB datagrams and
  MTU-sized ones (message_size 1472, as on a 1500-byte link: one 1060-byte packet each),
  with UDP GSO/GRO on (the server's default where the kernel has them; the benchmark's
  workers then send UDP_SEGMENT buffers and read with UDP_GRO too) and forced off;
* loopback UDP: the same packets sent and received on 127.0.0.1 by one thread with
  the project's batched I/O (sendmmsg/recvmmsg), one packet per datagram and packed
  into 64 KB datagrams: what the kernel allows one core before any aggregation.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time

import numpy as np
from _report import MarkdownReport, add_markdown_option

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.aggregator.native import NativeEngine
from p4reduce.aggregator.server import Datapath
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, encode
from p4reduce.transport.batchio import BatchReceiver, BatchSender
from p4reduce.transport.udp_offload import SOL_UDP, UDP_GRO, send_datagrams

SESSION = 1


def build_packets(workers: int, slots: int, rounds: int, block_size: int) -> tuple[JobSpec, list[bytes], list[bytes]]:
    """JOINs, then every stream's `rounds` rounds (the first its opening round), in arrival order."""
    spec = JobSpec(1, workers, num_slots=slots, block_size=block_size, message_size=0)
    blocks = slots * rounds
    joins = [AggHeader(MsgType.JOIN, 1, w, 0, 0, w + 1, block_size, slots, 0, workers).pack() for w in range(workers)]
    rng = np.random.default_rng(0)
    values = rng.integers(-1000, 1000, size=(workers, block_size), dtype=np.int32)
    packets = []
    for r in range(rounds):
        for s in range(slots):
            block = s + r * slots
            nxt = s + (r + 1) * slots if r + 1 < rounds else NONE
            for w in range(workers):
                h = AggHeader(
                    MsgType.DATA,
                    1,
                    w,
                    s,
                    r & 1,
                    0,
                    block,
                    nxt,
                    127,
                    127,
                    block_size,
                    Flags.OPENING if r == 0 else 0,
                    session=SESSION,
                    blocks=blocks,
                )
                packets.append(encode(h, values[w]))
    return spec, joins, packets


def time_engine(spec: JobSpec, joins: list[bytes], packets: list[bytes], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        engine = AggregatorEngine([spec], new_session=lambda job, worker: SESSION)
        for j in joins:
            engine.handle(j)
        views = [memoryview(p) for p in packets]
        start = time.perf_counter()
        for v in views:
            engine.handle(v)
        best = min(best, time.perf_counter() - start)
        engine.buffers.flushed()
        assert engine.counters.snapshot().get("completed", 0) > 0
    return best


def worker_addr(w: int) -> tuple[str, int]:
    return ("127.0.0.1", 20000 + w)


def packed(packets: list[bytes], workers: int, slots: int, limit: int) -> list[tuple[bytes, tuple[str, int]]]:
    """The packets as datagrams from each worker's address: one per datagram (limit 0) or
    each worker's packets of a round back to back up to `limit` bytes (rounds stay in order)."""
    per_round = workers * slots  # packets of one round of every slot, all workers
    out: list[tuple[bytes, tuple[str, int]]] = []
    for r in range(0, len(packets), per_round):
        rnd = packets[r : r + per_round]
        for w in range(workers):
            mine = rnd[w::workers]
            if not limit:
                out += [(p, worker_addr(w)) for p in mine]
                continue
            buf = b""
            for p in mine:
                if buf and len(buf) + len(p) > limit:
                    out.append((buf, worker_addr(w)))
                    buf = b""
                buf += p
            out.append((buf, worker_addr(w)))
    return out


def native_engine(spec: JobSpec, joins: list[bytes]) -> tuple[NativeEngine, Datapath]:
    engine = NativeEngine([spec], new_session=lambda job, worker: SESSION)
    path = Datapath(engine, {})
    path.process([(j, worker_addr(w)) for w, j in enumerate(joins)])
    return engine, path


def run_native(engine: NativeEngine, datagrams: list[tuple[bytes, tuple[str, int]]]) -> None:
    core = engine.core
    for i in range(0, len(datagrams), 64):
        core.load(datagrams[i : i + 64])
        if core.run(-2) is not None:  # -2: replies packed, then dropped (no socket)
            raise RuntimeError("a benchmark packet left the fast path")


def time_native(spec: JobSpec, joins: list[bytes], datagrams, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        engine, _ = native_engine(spec, joins)
        start = time.perf_counter()
        run_native(engine, datagrams)
        best = min(best, time.perf_counter() - start)
        assert engine.counters.snapshot().get("allreduces_completed", 0) == 1
    return best


def time_native_threads(specs: list[JobSpec], joins: list[list[bytes]], datagrams, repeat: int) -> float:
    """Seconds for len(specs) cores, one per thread, each running its job's whole batch."""
    best = float("inf")
    for _ in range(repeat):
        engines = [native_engine(spec, j)[0] for spec, j in zip(specs, joins, strict=True)]
        threads = [threading.Thread(target=run_native, args=(e, d)) for e, d in zip(engines, datagrams, strict=True)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        best = min(best, time.perf_counter() - start)
    return best


def _thread_cpu(native_id: int) -> float:
    """CPU seconds a thread of this process has run (scheduler statistics, in ns)."""
    with open(f"/proc/self/task/{native_id}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def time_server(
    spec: JobSpec, joins: list[bytes], datagrams, workers: int, slots: int, repeat: int, offload: bool = True
) -> tuple[float, float, dict]:
    """(wall seconds, server-thread CPU seconds, the server's I/O statistics) for every round
    through a native AggregatorServer on loopback; the workers send a round, then wait for
    its RESULTs. `offload`: UDP GSO/GRO on the server and the workers (where the kernel has
    them), else off on both."""
    best = (float("inf"), float("inf"), {})
    for _ in range(repeat):
        with AggregatorServer([spec], port=0, udp_offload=offload) as server:
            gso = server.udp_offload.gso
            socks = []
            for _w in range(workers):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
                if server.udp_offload.gro:  # a coalesced buffer of results: the packets still delimit
                    s.setsockopt(SOL_UDP, UDP_GRO, 1)
                s.bind(("127.0.0.1", 0))
                s.connect(server.address)
                socks.append(s)
            sessions = []
            for w, s in enumerate(socks):
                s.send(joins[w])
                sessions.append(s.recv(65536)[24:28])
            by_worker: list[list[bytes]] = [[] for _ in range(workers)]
            for d, (_, port) in datagrams:
                by_worker[port - 20000].append(_with_session(d, sessions[port - 20000]))
            # Results per round: every slot's RESULT to every worker (packed 64 KB datagrams).
            server_tid = server._thread.native_id
            cpu0, start = _thread_cpu(server_tid), time.perf_counter()
            # Send round by round: a worker's datagrams of a round are those until its share
            # of the round's packets is reached.
            per_worker_round = [_split_rounds(by_worker[w], slots) for w in range(workers)]
            for r in range(len(per_worker_round[0])):
                for w, s in enumerate(socks):
                    send_datagrams(s, per_worker_round[w][r], gso)
                for s in socks:
                    got = 0
                    while got < slots:
                        got += _packets_in(s.recv(65536))
            wall, cpu = time.perf_counter() - start, _thread_cpu(server_tid) - cpu0
            for s in socks:
                s.close()
            assert server.counters().get("allreduces_completed", 0) == 1
            io = server.io_stats()
        if (wall, cpu) < best[:2]:
            best = (wall, cpu, io)
    return best


def _with_session(datagram: bytes, session: bytes) -> bytes:
    """Every packet of the datagram with the session the server gave its worker."""
    out, off = bytearray(datagram), 0
    while len(out) - off >= 36:
        out[off + 24 : off + 28] = session
        off += 36 + 4 * int.from_bytes(out[off + 22 : off + 24], "big")
    return bytes(out)


def _packets_in(datagram: bytes) -> int:
    n, off = 0, 0
    while len(datagram) - off >= 36:
        off += 36 + 4 * int.from_bytes(datagram[off + 22 : off + 24], "big")
        n += 1
    return n


def _split_rounds(datagrams: list[bytes], slots: int) -> list[list[bytes]]:
    """A worker's datagrams grouped by round (each round: one packet per slot)."""
    out: list[list[bytes]] = [[]]
    count = 0
    for d in datagrams:
        if count == slots:
            out.append([])
            count = 0
        out[-1].append(d)
        count += _packets_in(d)
    return out


def time_loopback(packets: list[bytes], pack_up_to: int, repeat: int) -> float:
    """Seconds to push every packet through a loopback socket pair and read it back."""
    best = float("inf")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        for s in (rx, tx):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
        rx.bind(("127.0.0.1", 0))
        rx.setblocking(False)
        sender, receiver, dest = BatchSender(tx), BatchReceiver(rx), rx.getsockname()
        total = sum(len(p) for p in packets)
        for _ in range(repeat):
            start, got, i = time.perf_counter(), 0, 0
            while got < total:
                # Send a window, then drain: never more in flight than the socket buffer holds.
                for p in packets[i : i + 256]:
                    sender.add((p,), dest, pack_up_to)
                i += 256
                sender.flush()
                while batch := receiver.recv():
                    got += sum(len(d) for d, _ in batch)
                if i >= len(packets) and got < total:
                    time.sleep(0)  # (lost datagrams would hang: loopback with 8 MB buffers drops none)
                    if time.perf_counter() - start > 30:
                        raise RuntimeError(f"loopback lost {total - got} bytes")
            best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2, metavar="N", help="workers per job (default: %(default)s)")
    ap.add_argument("--block-size", type=int, default=256, metavar="N", help="values per block (default: %(default)s)")
    ap.add_argument("--slots", type=int, default=256, metavar="N", help="streams (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=40, metavar="N", help="data rounds per stream (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=5, metavar="N", help="runs, best kept (default: %(default)s)")
    ap.add_argument(
        "--threads",
        type=int,
        default=2,
        metavar="N",
        help="also run N native cores at once, one job each (default: %(default)s; 1: skip)",
    )
    add_markdown_option(ap)
    args = ap.parse_args()
    W, B, S = args.workers, args.block_size, args.slots
    spec, joins, packets = build_packets(W, S, args.rounds, B)
    data_packets = W * S * args.rounds
    value_bytes = data_packets * B * 4
    intro = (
        f"{W} workers, {B}-value blocks, {S} streams x {args.rounds} rounds: "
        f"{data_packets:,} data packets ({value_bytes / 1e6:.1f} MB of values)"
    )
    report = (
        MarkdownReport(
            ["what", "packets/s", "blocks/s", "GB/s of values"], intro=[intro + f"; best of {args.repeat} runs."]
        )
        if args.markdown
        else None
    )
    if report is None:
        print(intro)
    rows = [("python engine, one core", time_engine(spec, joins, packets, args.repeat))]
    single = packed(packets, W, S, 0)
    rows.append(("native engine, one core", time_native(spec, joins, single, args.repeat)))
    packed_spec = JobSpec(1, W, num_slots=S, block_size=B, message_size=65000)
    packed_joins = [j[:28] + (65000).to_bytes(4, "big") + j[32:] for j in joins]  # JOIN blocks: 65000
    many = packed(packets, W, S, 65000)
    rows.append(("native engine, one core, 64 KB datagrams", time_native(packed_spec, packed_joins, many, args.repeat)))
    if args.threads > 1:
        k = args.threads
        shards = packed_spec.sharded(k)
        streams = [[p for p in packets if int.from_bytes(p[6:8], "big") & 0x7FFF in range(i, S, k)] for i in range(k)]
        seconds = time_native_threads(
            shards, [packed_joins] * k, [packed(p, W, S // k, 65000) for p in streams], args.repeat
        )
        rows.append((f"native engine, {k} threads (x{k} shards)", seconds))
    mtu_spec = JobSpec(1, W, num_slots=S, block_size=B, message_size=1472)
    mtu_joins = [j[:28] + (1472).to_bytes(4, "big") + j[32:] for j in joins]
    mtu = packed(packets, W, S, 1472)
    io_notes = []
    for size, (srv_spec, srv_joins, srv_datagrams) in (
        ("64 KB", (packed_spec, packed_joins, many)),
        ("1472 B", (mtu_spec, mtu_joins, mtu)),
    ):
        for offload in (False, True):
            wall, cpu, io = time_server(srv_spec, srv_joins, srv_datagrams, W, S, args.repeat, offload)
            what = "GSO/GRO on" if offload else "GSO/GRO off"
            rows.append((f"native server, loopback, {size} datagrams, {what}", wall))
            rows.append(("  the same per server-thread CPU second", cpu))
            io_notes.append(
                f"{size}, {what}: {io['recv_calls']:,} recvmmsg, {io['send_calls']:,} sendmmsg/sendmsg, "
                f"{io['gro_segments']:,} datagrams in {io['gro_buffers']:,} GRO buffers, "
                f"{io['gso_segments']:,} in {io['gso_sends']:,} GSO sends"
            )
    for label, pack in (("loopback UDP, one packet per datagram", 0), ("loopback UDP, packed 64 KB datagrams", 65000)):
        rows.append((label, time_loopback(packets, pack, args.repeat)))
    if report is not None:
        for label, seconds in rows:
            report.row(
                label.strip(),
                f"{len(packets) / seconds:,.0f}",
                f"{data_packets / seconds:,.0f}",
                f"{value_bytes / seconds / 1e9:.3f}",
            )
        report.end(["Server I/O of the best run:\n\n" + "\n".join(f"- {note}" for note in io_notes)])
        return 0
    print(f"{'':44} {'packets/s':>12} {'blocks/s':>12} {'GB/s of values':>15}")
    for label, seconds in rows:
        print(
            f"{label:44} {len(packets) / seconds:12,.0f} {data_packets / seconds:12,.0f} "
            f"{value_bytes / seconds / 1e9:15.3f}"
        )
    print("server I/O of the best run:")
    for note in io_notes:
        print("  " + note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
