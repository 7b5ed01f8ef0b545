#!/usr/bin/env python3
"""How many blocks per second one core of the software aggregator sums, next to what
loopback UDP carries on the same machine, in one run.

    python3 benchmarks/aggregator_throughput.py                  # 256-element blocks
    python3 benchmarks/aggregator_throughput.py --block-size 1024 --workers 4

* engine: the aggregator's packet handling without sockets (AggregatorEngine.handle):
  every worker holds every block (the heaviest case per block), packets pre-built;
* loopback UDP: the same packets sent and received on 127.0.0.1 by one thread with
  the project's batched I/O (sendmmsg/recvmmsg), one packet per datagram and packed
  into 64 KB datagrams: what the kernel allows one core before any aggregation.
"""
from __future__ import annotations

import argparse
import socket
import time

import numpy as np

from p4reduce.aggregator import AggregatorEngine, JobSpec
from p4reduce.protocol import NONE, AggHeader, MsgType, encode
from p4reduce.transport.batchio import BatchReceiver, BatchSender

SESSION = 1


def build_packets(workers: int, slots: int, rounds: int, block_size: int) -> tuple[JobSpec, list[bytes], list[bytes]]:
    """JOINs, then every stream's bootstrap and `rounds` data rounds, in arrival order."""
    spec = JobSpec(1, workers, num_slots=slots, block_size=block_size, message_size=0)
    blocks = slots * rounds
    joins = [AggHeader(MsgType.JOIN, 1, w, 0, 0, w + 1, block_size, slots, 0, workers).pack()
             for w in range(workers)]
    rng = np.random.default_rng(0)
    values = rng.integers(-1000, 1000, size=(workers, block_size), dtype=np.int32)
    packets = []
    for r in range(rounds + 1):  # round 0: bootstrap
        for s in range(slots):
            block = NONE if r == 0 else s + (r - 1) * slots
            nxt = s + r * slots if r < rounds else NONE
            for w in range(workers):
                h = AggHeader(MsgType.DATA, 1, w, s, r & 1, 0, block, nxt, 127, 127,
                              0 if r == 0 else block_size, session=SESSION, blocks=blocks)
                packets.append(encode(h, None if r == 0 else values[w]))
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


def time_loopback(packets: list[bytes], pack_up_to: int, repeat: int) -> float:
    """Seconds to push every packet through a loopback socket pair and read it back."""
    best = float("inf")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
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
                for p in packets[i:i + 256]:
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
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="runs, best kept (default: %(default)s)")
    args = ap.parse_args()
    spec, joins, packets = build_packets(args.workers, args.slots, args.rounds, args.block_size)
    data_packets = args.workers * args.slots * args.rounds
    value_bytes = data_packets * args.block_size * 4
    print(f"{args.workers} workers, {args.block_size}-value blocks, {args.slots} streams x {args.rounds} rounds: "
          f"{data_packets:,} data packets ({value_bytes / 1e6:.1f} MB of values) + bootstraps")
    rows = [("aggregator engine, one core", time_engine(spec, joins, packets, args.repeat))]
    for label, pack in (("loopback UDP, one packet per datagram", 0), ("loopback UDP, packed 64 KB datagrams", 65000)):
        rows.append((label, time_loopback(packets, pack, args.repeat)))
    print(f"{'':42} {'packets/s':>12} {'blocks/s':>12} {'GB/s of values':>15}")
    for label, seconds in rows:
        print(f"{label:42} {len(packets) / seconds:12,.0f} {data_packets / seconds:12,.0f} "
              f"{value_bytes / seconds / 1e9:15.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
