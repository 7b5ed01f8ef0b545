#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Packet rates of the compiled P4 program on simple_switch_grpc: aggregation next to
plain L2 forwarding through the same switch process, in one run.

    sudo python3 benchmarks/bmv2_rates.py
    sudo python3 benchmarks/bmv2_rates.py --pipeline /tmp/old-build --seconds 5 --repeats 5
    sudo python3 benchmarks/bmv2_rates.py --repeats 5 --threads --markdown

The switch runs the package's p4src/build (or `--pipeline DIR` holding p4reduce.json
and p4reduce.p4info.txtpb: compare two builds on the same machine in one session).
BMv2 ports 1..4 are veth pairs (p4reduce.testbed.veth); this process sends and
receives raw frames on their other ends. Four workers of one job, 64 slots.

* l2: ordinary UDP frames forwarded by `forwarding.l2` from port i to port i+1,
  10% of them 206 bytes and 90% 78 bytes (the sizes of a DATA packet with the 32
  values and of a header-only one);
* agg <d>: data rounds of the four workers (each a DATA packet per worker, the
  round's RESULT multicast back to all four), a fraction d of the DATA packets
  carrying the 32 values (206-byte frames) and the rest header-only (78 bytes), as
  in dense mode where a worker without the block sends count = 0. `agg 10%` is the
  mix the switch should sustain at half the L2 rate or more.

Both kinds keep a fixed number of frames in flight (`--window`, default 32): a
frame is done when it comes out (L2) or when its round's RESULT reaches its port
(aggregation). With at most 64 frames in flight no BMv2 queue (64 packets per
egress port) can overflow, so the rate is what the switch's threads sustain, not
what a queue drops. Rates are input frames per second, so both kinds count
the same thing: one frame in, one frame out. A round not answered within a second
is sent again (the switch answers a finished round by unicast), and reported.

Measurements alternate (l2, agg..., l2, agg...) `--repeats` times and the median
of each is printed with the ratio to l2, next to the CPU time the switch's threads
spent per frame (from /proc/<pid>/task/*/schedstat; `--threads` splits it by
thread: receive, ingress, 4 egress, transmit). The CPU figure is less sensitive
to other load than the rate. BMv2 here is built with -O3 and without logging
macros (see the toolchain notes); its threads and this script share the
machine's cores, so the load average is printed with the results. `--markdown` prints
them as Markdown tables headed by the command, the machine, the date and the git commit.
Exits 0 with the reason when simple_switch_grpc, root or the controller's
dependencies are missing.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import select
import statistics
import struct
import sys
import time
from dataclasses import dataclass

from _report import MarkdownReport, add_markdown_option, table

ROOT = pathlib.Path(__file__).resolve().parents[1]
NUM_WORKERS = 4
NUM_SLOTS = 64
SESSION = 0xB16B00B5
JOB = 1
BLOCKS = 1 << 20  # the tensor the DATA packets claim: every block and slot is inside it
AGG_HDR = 36
VALUES = 32
RESULT = 2
NONE = 0xFFFFFFFF
DISCARD_PORT = 9  # L2 frames: UDP to a port that is not the aggregation port


def _skip(reason: str) -> int:
    print(f"bmv2_rates skipped: {reason}")
    return 0


def ipv4_checksum(header: bytes) -> int:
    total = sum(struct.unpack("!10H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def udp_frame(
    src_mac: bytes, dst_mac: bytes, src_ip: bytes, dst_ip: bytes, sport: int, dport: int, payload: bytes
) -> bytes:
    """Ethernet / IPv4 (checksum set: the switch drops aggregation packets without it) / UDP
    (checksum 0, allowed for IPv4) / payload."""
    udp_len = 8 + len(payload)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0, 64, 17, 0, src_ip, dst_ip))
    struct.pack_into("!H", ip, 10, ipv4_checksum(bytes(ip)))
    return dst_mac + src_mac + b"\x08\x00" + bytes(ip) + struct.pack("!HHHH", sport, dport, udp_len, 0) + payload


@dataclass(frozen=True)
class Host:
    port: int  # switch port (1..4); worker id port - 1
    iface: str

    @property
    def worker_id(self) -> int:
        return self.port - 1

    @property
    def mac(self) -> bytes:
        return bytes([2, 0, 0, 0, 0, self.port])

    @property
    def ip(self) -> bytes:
        return bytes([10, 0, 0, self.port])

    @property
    def udp_port(self) -> int:
        return 40000 + self.port


def mac_str(mac: bytes) -> str:
    return ":".join(f"{b:02x}" for b in mac)


def agg_frames(hosts: list[Host], fp: int) -> dict[tuple[int, int, int, bool], bytes]:
    """DATA frames by (worker, slot, shadow, with values): slot s's rounds are about block s."""
    from p4reduce.protocol import AGG_UDP_PORT, AggHeader, MsgType
    from p4reduce.testbed.bmv2 import AGG_IP, AGG_MAC

    agg_mac = bytes.fromhex(AGG_MAC.replace(":", ""))
    agg_ip = bytes(int(x) for x in AGG_IP.split("."))
    rng = random.Random(1)
    frames = {}
    for h in hosts:
        values = struct.pack(f"!{VALUES}i", *(rng.randint(-1000, 1000) for _ in range(VALUES)))
        for slot in range(NUM_SLOTS):
            for shadow in (0, 1):
                for full in (False, True):
                    payload = AggHeader(
                        MsgType.DATA,
                        JOB,
                        h.worker_id,
                        slot,
                        shadow,
                        0,
                        slot,
                        NONE,
                        127,
                        127,
                        VALUES if full else 0,
                        session=SESSION,
                        blocks=BLOCKS,
                        fingerprint=fp,
                    ).pack() + (values if full else b"")
                    frames[h.worker_id, slot, shadow, full] = udp_frame(
                        h.mac, agg_mac, h.ip, agg_ip, h.udp_port, AGG_UDP_PORT, payload
                    )
    return frames


def pattern(fraction: float, length: int = 1000) -> list[bool]:
    """Which DATA packets carry values: exactly round(fraction * length) of `length`, shuffled."""
    full = round(fraction * length)
    marks = [True] * full + [False] * (length - full)
    random.Random(7).shuffle(marks)
    return marks


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds each thread of process `pid` has run so far (the scheduler's ns counters)."""
    times = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            times[int(task.name)] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that just ended
    return times


class _Clock:
    """`warmup` seconds, then `seconds` counted: frames done and the switch's CPU time
    from the end of the warm-up on."""

    def __init__(self, rig, warmup: float, seconds: float) -> None:
        self.rig = rig
        self.start = time.monotonic()
        self.count_at, self.end = self.start + warmup, self.start + warmup + seconds
        self.counted_from: float | None = None
        self.done_at_start = 0
        self.cpu_at_start: dict[int, float] = {}

    def tick(self, done: int) -> float | None:
        """The time now, or None when the run is over; starts counting after the warm-up."""
        now = time.monotonic()
        if self.counted_from is None and now >= self.count_at:
            self.counted_from, self.done_at_start = now, done
            self.cpu_at_start = thread_cpu(self.rig.switch_pid)
        return None if now >= self.end else now

    def stop(self, done: int) -> tuple[int, float, dict[int, float]]:
        """Frames done, seconds and the switch threads' CPU seconds since counting began."""
        assert self.counted_from is not None
        return (done - self.done_at_start, time.monotonic() - self.counted_from, self.rig._cpu_since(self.cpu_at_start))


@dataclass
class Measurement:
    frames: int
    seconds: float
    resent: int
    threads: dict[int, float]  # CPU seconds each of the switch's threads used meanwhile

    @property
    def switch_cpu(self) -> float:
        return sum(self.threads.values())

    @property
    def rate(self) -> float:
        return self.frames / self.seconds

    @property
    def cpu_us(self) -> float:
        """Switch CPU per frame, microseconds: less sensitive to other load than the rate."""
        return self.switch_cpu / self.frames * 1e6


class Driver:
    """Keeps `window` frames in flight through the switch and counts what completes."""

    def __init__(self, ports, hosts: list[Host], window: int, switch_pid: int) -> None:
        self.ports, self.hosts, self.window = ports, hosts, window
        self.switch_pid = switch_pid
        self.socks = [ports.socks[h.iface] for h in hosts]
        self.by_fd = {s.fileno(): i for i, s in enumerate(self.socks)}

    def _drain_all(self) -> None:
        for h in self.hosts:
            self.ports.drain(h.iface)

    def l2(self, seconds: float, warmup: float, full_fraction: float) -> Measurement:
        """Frames from port i to port i+1 (mod 4); a frame is done when it leaves the switch.
        A frame's sequence number rides in its payload; one not seen within a second is
        counted as lost and its place in the window reused."""
        n = len(self.hosts)
        marks = pattern(full_fraction)
        templates = []
        for i, h in enumerate(self.hosts):
            dst = self.hosts[(i + 1) % n]
            templates.append(
                {
                    full: udp_frame(
                        h.mac,
                        dst.mac,
                        h.ip,
                        dst.ip,
                        h.udp_port,
                        DISCARD_PORT,
                        bytes(AGG_HDR + (4 * VALUES if full else 0)),
                    )
                    for full in (False, True)
                }
            )
        seq_at = 14 + 20 + 8  # the payload's first bytes
        outstanding: dict[int, float] = {}
        seq = 0
        done = lost = 0
        clock = _Clock(self, warmup, seconds)
        while (now := clock.tick(done)) is not None:
            while len(outstanding) < self.window:
                src = seq % n
                t = templates[src][marks[seq % len(marks)]]
                frame = t[:seq_at] + struct.pack("!Q", seq) + t[seq_at + 8 :]
                self.socks[src].send(frame)
                outstanding[seq] = now
                seq += 1
            ready, _, _ = select.select(self.socks, [], [], 0.05)
            for s in ready:
                for frame in self.ports.drain(self.hosts[self.by_fd[s.fileno()]].iface):
                    if (
                        len(frame) >= seq_at + 8
                        and outstanding.pop(struct.unpack_from("!Q", frame, seq_at)[0], None) is not None
                    ):
                        done += 1
            for k in [k for k, sent in outstanding.items() if now - sent > 1.0]:
                del outstanding[k]
                lost += 1
        frames, elapsed, cpu = clock.stop(done)
        self._settle()
        return Measurement(frames, elapsed, lost, cpu)

    def aggregate(
        self, seconds: float, warmup: float, frames: dict, full_fraction: float, rounds_of: list[int]
    ) -> Measurement:
        """Data rounds of all workers on the job's slots, `window // 4` rounds in flight. A
        round is done when its RESULT has reached every worker's port. `rounds_of[slot]`
        is the slot's round number (its shadow bit), kept across calls."""
        n = len(self.hosts)
        marks = pattern(full_fraction)
        in_flight = max(1, self.window // n)
        # slot -> [sent at, ports its RESULT has reached (bitmap), the round's frames]
        open_rounds: dict[int, list] = {}
        free = list(range(NUM_SLOTS))
        k = 0  # DATA packets built so far (position in the full/header-only pattern)
        done = resent = 0
        clock = _Clock(self, warmup, seconds)
        while (now := clock.tick(done)) is not None:
            while len(open_rounds) < in_flight:
                slot = free.pop(0)
                shadow = rounds_of[slot] & 1
                batch = [frames[w, slot, shadow, marks[(k + w) % len(marks)]] for w in range(n)]
                k += n
                for w, f in enumerate(batch):
                    self.socks[w].send(f)
                open_rounds[slot] = [now, 0, batch]
            for slot in self._results(open_rounds, rounds_of, 0.05):
                free.append(slot)
                done += n
            for entry in open_rounds.values():
                if now - entry[0] > 1.0:  # lost on the way in or out: the switch sorts it out
                    for w, f in enumerate(entry[2]):
                        self.socks[w].send(f)
                    resent += 1
                    entry[0] = now
        frames, elapsed, cpu = clock.stop(done)
        # Finish the open rounds so the next measurement starts with every slot free.
        deadline = time.monotonic() + 5.0
        while open_rounds and time.monotonic() < deadline:
            self._results(open_rounds, rounds_of, 0.1)
        if open_rounds:
            raise RuntimeError(
                f"{len(open_rounds)} rounds never completed: the switch lost packets beyond what re-sending repairs"
            )
        self._settle()
        return Measurement(frames, elapsed, resent, cpu)

    def _results(self, open_rounds: dict[int, list], rounds_of: list[int], timeout: float) -> list[int]:
        """Takes the RESULT copies that arrive within `timeout`; returns the slots whose
        round is now done (its RESULT reached every port), closed and advanced."""
        at = 14 + 20 + 8  # the aggregation header in a frame
        everyone = (1 << len(self.hosts)) - 1
        finished = []
        ready, _, _ = select.select(self.socks, [], [], timeout)
        for s in ready:
            w = self.by_fd[s.fileno()]
            for frame in self.ports.drain(self.hosts[w].iface):
                if len(frame) < at + AGG_HDR or frame[at + 1] != RESULT:
                    continue
                slot = struct.unpack_from("!H", frame, at + 6)[0] & 0x7FFF
                entry = open_rounds.get(slot)
                if entry is None or frame[at + 6] >> 7 != rounds_of[slot] & 1:
                    continue  # a late copy of a round already done
                entry[1] |= 1 << w
                if entry[1] == everyone:
                    del open_rounds[slot]
                    rounds_of[slot] += 1
                    finished.append(slot)
        return finished

    def _cpu_since(self, start: dict[int, float]) -> dict[int, float]:
        return {tid: t - start.get(tid, 0.0) for tid, t in thread_cpu(self.switch_pid).items()}

    def _settle(self) -> None:
        time.sleep(0.2)
        self._drain_all()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--pipeline",
        type=pathlib.Path,
        default=None,
        help="directory with p4reduce.json and p4reduce.p4info.txtpb (default: the package's p4src/build)",
    )
    ap.add_argument("--seconds", type=float, default=4.0, help="measured time of each run")
    ap.add_argument("--warmup", type=float, default=0.5, help="unmeasured start of each run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--window", type=int, default=32, help="frames in flight (<= 64: no queue overflows)")
    ap.add_argument("--threads", action="store_true", help="also print the switch's CPU per frame by thread")
    ap.add_argument(
        "--mixes",
        type=float,
        nargs="+",
        default=[0.1, 0.0, 1.0],
        help="fractions of aggregation DATA packets that carry values",
    )
    add_markdown_option(ap)
    args = ap.parse_args()
    if not 1 <= args.window <= 64:
        ap.error("--window must be 1..64")

    try:  # the controller's client: grpcio, protobuf, finsy's stubs
        from p4reduce.testbed.bmv2 import Pipeline
        from p4reduce.testbed.veth import RawPorts, VethSwitch, veth_switch_missing
    except ImportError as exc:
        return _skip(f"the controller's dependencies are missing ({exc}): pip install 'p4reduce[controller]'")
    reason = veth_switch_missing()
    if reason is not None:
        return _skip(reason)
    if args.pipeline is not None:
        pipeline = Pipeline(args.pipeline / "p4reduce.p4info.txtpb", args.pipeline / "p4reduce.json")
    else:
        try:
            pipeline = Pipeline.installed()
        except FileNotFoundError as exc:
            return _skip(str(exc))

    import numpy as np

    from p4reduce.protocol import fingerprint

    fp = fingerprint(0, BLOCKS * VALUES, np.dtype(np.int32), VALUES, NUM_SLOTS, NUM_WORKERS)

    switch = VethSwitch(num_ports=NUM_WORKERS).start(pipeline)
    ports = None
    try:
        hosts = [Host(p, switch.host_if(p)) for p in range(1, NUM_WORKERS + 1)]
        switch.install(
            {
                "jobs": [
                    {
                        "job_id": JOB,
                        "slot_base": 0,
                        "num_slots": NUM_SLOTS,
                        "session": SESSION,
                        "workers": [
                            {
                                "worker_id": h.worker_id,
                                "port": h.port,
                                "mac": mac_str(h.mac),
                                "ip": ".".join(map(str, h.ip)),
                                "udp_port": h.udp_port,
                            }
                            for h in hosts
                        ],
                    }
                ],
                "l2": [{"mac": mac_str(h.mac), "port": h.port} for h in hosts],
            }
        )
        ports = RawPorts([h.iface for h in hosts], rcvbuf=4 << 20)
        driver = Driver(ports, hosts, args.window, switch.process.proc.pid)
        frames = agg_frames(hosts, fp)
        rounds_of = [0] * NUM_SLOTS
        load_before = os.getloadavg()
        kinds = ["l2"] + [f"agg {m:.0%}" for m in args.mixes]
        runs: dict[str, list[Measurement]] = {k: [] for k in kinds}
        before = switch.counters()
        for _ in range(args.repeats):
            runs["l2"].append(driver.l2(args.seconds, args.warmup, 0.1))
            for m in args.mixes:
                runs[f"agg {m:.0%}"].append(driver.aggregate(args.seconds, args.warmup, frames, m, rounds_of))
        after = switch.counters()
        load_after = os.getloadavg()
    finally:
        if ports is not None:
            ports.close()
        switch.stop()

    delta = {k: after[k] - before[k] for k in after}
    bad = {
        k: v
        for k, v in delta.items()
        if v and k not in ("data_counted", "result_multicast", "result_unicast", "retransmit_dropped", "forwarded")
    }
    if bad:
        print(f"the switch rejected benchmark packets: {bad}", file=sys.stderr)
        return 1
    l2_rate = statistics.median(m.rate for m in runs["l2"])
    l2_cpu = statistics.median(m.cpu_us for m in runs["l2"])
    if args.markdown:
        _print_markdown(args, pipeline, kinds, runs, l2_rate, l2_cpu, load_before, delta)
        return 0
    print(
        f"BMv2 {pipeline.bmv2_json}: {NUM_WORKERS} ports, window {args.window} frames, "
        f"{args.repeats} x {args.seconds:g} s per kind; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} cores)"
    )
    print(
        f"{'kind':<9} {'frames/s':>9} {'vs l2':>6} {'switch CPU us/frame':>20} {'vs l2':>6} "
        f"{'re-sent':>7}  frames/s of each run"
    )
    for kind in kinds:
        rate = statistics.median(m.rate for m in runs[kind])
        cpu = statistics.median(m.cpu_us for m in runs[kind])
        print(
            f"{kind:<9} {rate:>9,.0f} {rate / l2_rate:>5.2f}x {cpu:>20.1f} {cpu / l2_cpu:>5.2f}x "
            f"{sum(m.resent for m in runs[kind]):>7}  {' '.join(f'{m.rate:,.0f}' for m in runs[kind])}"
        )
    if args.threads:
        # BMv2 starts its packet threads in this order (simple_switch); gRPC and
        # thrift threads come and go, so only busy threads are shown.
        busy = _busy_threads(runs)
        print("switch CPU per frame by thread id, us (receive, ingress, 4 x egress, transmit when sorted by id):")
        for kind in kinds:
            print(
                f"  {kind:<9}"
                + " ".join(
                    f"{tid}:{statistics.median(m.threads.get(tid, 0.0) / m.frames * 1e6 for m in runs[kind]):.1f}"
                    for tid in busy
                )
            )
    print(f"switch counters over the run: {delta}")
    return 0


def _busy_threads(runs: dict[str, list[Measurement]]) -> list[int]:
    """The switch's threads that ran for more than 1% of some measurement."""
    return sorted({tid for ms in runs.values() for m in ms for tid, t in m.threads.items() if t > 0.01 * m.seconds})


def _print_markdown(
    args: argparse.Namespace,
    pipeline,
    kinds: list[str],
    runs: dict[str, list[Measurement]],
    l2_rate: float,
    l2_cpu: float,
    load_before: tuple[float, float, float],
    delta: dict,
) -> None:
    """The same results as Markdown (benchmarks/_report.py), once the switch has stopped."""
    report = MarkdownReport(
        ["kind", "frames/s", "vs l2", "switch CPU us/frame", "vs l2", "re-sent", "frames/s of each run"],
        intro=[
            (
                f"BMv2 `{pipeline.bmv2_json}`: {NUM_WORKERS} ports, window {args.window} frames, {args.repeats} x "
                f"{args.seconds:g} s per kind, medians; load average {load_before[0]:.1f} when the runs started."
            )
        ],
    )
    for kind in kinds:
        rate = statistics.median(m.rate for m in runs[kind])
        cpu = statistics.median(m.cpu_us for m in runs[kind])
        report.row(
            kind,
            f"{rate:,.0f}",
            f"{rate / l2_rate:.2f}x",
            f"{cpu:.1f}",
            f"{cpu / l2_cpu:.2f}x",
            sum(m.resent for m in runs[kind]),
            " ".join(f"{m.rate:,.0f}" for m in runs[kind]),
        )
    notes = []
    if args.threads:
        busy = _busy_threads(runs)
        rows = [
            [
                kind,
                *(
                    f"{statistics.median(m.threads.get(tid, 0.0) / m.frames * 1e6 for m in runs[kind]):.1f}"
                    for tid in busy
                ),
            ]
            for kind in kinds
        ]
        notes.append(
            "Switch CPU per frame by thread, us (thread ids sorted: receive, ingress, 4 x egress, "
            "transmit):\n\n" + table(["kind", *(str(tid) for tid in busy)], rows)
        )
    notes.append(f"Switch counters over the run: `{delta}`")
    report.end(notes)


if __name__ == "__main__":
    sys.exit(main())
