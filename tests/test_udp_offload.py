# SPDX-License-Identifier: Apache-2.0
"""UDP GSO (send) and GRO (receive) on the native aggregator: the same results and counters
as without them.

* the core's GSO grouping on a real socket: whatever it merges, every receiver gets the
  same datagrams in the same order as without GSO;
* the GRO split: a buffer of equal-size datagrams and a shorter last one (as recvmmsg hands
  it over with a UDP_GRO cmsg) gives the same replies and counters as the datagrams one by
  one (and as the Python engine);
* end to end on loopback: lockstep allreduces through AggregatorServer with GSO/GRO on
  (the workers send with UDP_SEGMENT too, so the server's socket gets coalesced buffers)
  and forced off: the same result packets, the same counters.
"""

from __future__ import annotations

import os
import socket

import numpy as np
import pytest

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.aggregator.native import NativeEngine
from p4reduce.aggregator.server import Datapath
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, encode
from p4reduce.protocol.framing import split_datagram
from p4reduce.transport.udp_offload import probe_udp_offload, send_datagrams

GROUP = ("239.77.2.1", 42000 + os.getpid() % 10000)
B = 256  # values per block: a 1060-byte packet


def _kernel_offload() -> tuple[bool, str]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        probe = probe_udp_offload(s)
    return probe.gso and probe.gro, probe.describe()


HAVE_OFFLOAD, OFFLOAD_STATE = _kernel_offload()
needs_offload = pytest.mark.skipif(not HAVE_OFFLOAD, reason=f"this kernel: {OFFLOAD_STATE}")


def _udp(bind=("127.0.0.1", 0)) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(bind)
    return s


def _drain(sock: socket.socket, expect: int) -> list[bytes]:
    sock.settimeout(10)
    return [sock.recv(65536) for _ in range(expect)]


# -- send side: the core's grouping into UDP_SEGMENT messages -----------------------------


def _queue_and_send(gso: bool, plan, receivers) -> dict:
    """Queues `plan` (packet, receiver, pack_up_to) in a core and flushes it to a socket."""
    core = NativeEngine([]).core
    core.set_gso(gso)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
        for packet, r, pack in plan:
            core.queue(packet, "127.0.0.1", receivers[r].getsockname()[1], pack)
        core.flush(tx.fileno())
    return core.io_stats()


@needs_offload
def test_gso_grouping_delivers_the_same_datagrams_in_order():
    rng = np.random.default_rng(1)
    # Two receivers, interleaved: runs of equal sizes, a shorter one (ends a run), a
    # longer one (starts a new one), more than 64 equal ones (segment limit), 20 KB ones
    # (byte limit), packed pairs (pack_up_to) and 1-byte-different sizes.
    plan = []
    for i in range(300):
        r = i % 2
        kind = i % 37
        size = 1060 if kind < 30 else (1000 if kind < 32 else (1200 if kind < 34 else 20000))
        if i % 53 == 0:
            size = 1061
        packet = bytes([i & 0xFF]) + rng.integers(0, 256, size - 1, dtype=np.uint8).tobytes()
        plan.append((packet, r, 2200 if 100 <= i < 140 else 0))
    got = {}
    for gso in (False, True):
        rx = [_udp(), _udp()]
        try:
            stats = _queue_and_send(gso, plan, rx)
            # What each receiver must see: the core's own packing, datagram by datagram.
            expected = [[], []]
            engine = NativeEngine([])
            for packet, r, pack in plan:
                engine.core.queue(packet, "127.0.0.1", rx[r].getsockname()[1], pack)
            engine.core.flush(-1)
            for datagram, (_, port) in engine.core.take_output():
                expected[[s.getsockname()[1] for s in rx].index(port)].append(datagram)
            got[gso] = [_drain(s, len(expected[i])) for i, s in enumerate(rx)]
            assert got[gso] == expected
            for s in rx:  # and nothing more
                s.setblocking(False)
                with pytest.raises(BlockingIOError):
                    s.recv(65536)
        finally:
            for s in rx:
                s.close()
        if gso:
            assert stats["gso_sends"] > 0 and stats["gso_fallbacks"] == 0
            assert stats["gso_segments"] > stats["gso_sends"]
            assert stats["send_calls"] >= 1
        else:
            assert stats["gso_sends"] == 0 and stats["gso_segments"] == 0
    assert got[False] == got[True]


# -- receive side: the GRO split -----------------------------------------------------------


def _packets(spec: JobSpec, rnd: int, rounds: int, worker: int, rng) -> list[bytes]:
    """Worker `worker`'s DATA of round `rnd` of every stream: the stream's block `rnd`, which
    every worker holds (round 0: the opening round, about the stream's first block)."""
    out = []
    for s in range(spec.num_slots):
        block = s + rnd * spec.num_slots
        nxt = s + (rnd + 1) * spec.num_slots if rnd + 1 < rounds else NONE
        values = rng.integers(-1000, 1000, spec.block_size, dtype=np.int32)
        h = AggHeader(
            MsgType.DATA,
            spec.job_id,
            worker,
            s,
            rnd & 1,
            0,
            block,
            nxt,
            127,
            127,
            len(values),
            Flags.OPENING if rnd == 0 else 0,
            session=0,
            blocks=spec.num_slots * rounds,
        )
        out.append(encode(h, values))
    return out


def _with_session(packet: bytes, session: bytes) -> bytes:
    return packet[:24] + session + packet[28:]


def _pack(packets: list[bytes], limit: int) -> list[bytes]:
    out: list[bytes] = []
    for p in packets:
        if out and len(out[-1]) + len(p) <= limit:
            out[-1] += p
        else:
            out.append(p)
    return out


def _join(spec: JobSpec, w: int, accept: int) -> bytes:
    return AggHeader(
        MsgType.JOIN, spec.job_id, w, 0, 0, w + 1, spec.block_size, spec.num_slots, 0, spec.num_workers, 0, 0, 0, accept
    ).pack()


def _joined(engine_cls, spec, addrs, accept):
    engine = engine_cls([spec], new_session=lambda job, worker: 1000 + worker)
    path = Datapath(engine, {})
    path.process([(_join(spec, w, accept), a) for w, a in enumerate(addrs)])
    return engine, path


def test_gro_buffer_is_split_into_the_datagrams_it_carries():
    spec = JobSpec(1, 2, num_slots=16, block_size=B, message_size=3200)
    addrs = [("127.0.0.1", 20000), ("127.0.0.1", 20001)]
    rng = np.random.default_rng(7)
    rounds = 3
    # Per worker and round: datagrams of 3 packets (3180 bytes), a shorter last one, and
    # torn tails (a packet cut short): after worker 0's last whole packet in round 1, and a
    # whole segment of one in worker 1's round 2.
    batches = []
    for rnd in range(rounds):
        for w in range(2):
            session = (1000 + w).to_bytes(4, "big")
            dgrams = _pack([_with_session(p, session) for p in _packets(spec, rnd, rounds, w, rng)], 3200)
            if rnd == 1 and w == 0:
                dgrams[-1] += dgrams[0][:50]  # still shorter than the segment size
            if rnd == 2 and w == 1:  # a segment that is only a torn packet: a header whose
                # count runs into the next segment, which must still be read on its own
                torn = bytearray(dgrams[0])
                torn[22:24] = (1000).to_bytes(2, "big")
                dgrams.insert(1, bytes(torn))
            batches.append((dgrams, addrs[w]))
    outputs, counters = {}, {}
    for how in ("python", "native, datagrams", "native, GRO buffers"):
        engine, path = _joined(AggregatorEngine if how == "python" else NativeEngine, spec, addrs, 3200)
        sent = []
        for dgrams, addr in batches:
            seg = len(dgrams[0])
            assert all(len(d) == seg for d in dgrams[:-1]) and len(dgrams[-1]) <= seg
            if how == "native, GRO buffers":  # one buffer, as recvmmsg gives it with UDP_GRO
                engine.core.load([(b"".join(dgrams), addr, seg)])
                path.native_batch(-1)
                sent += engine.core.take_output()
            else:
                sent += path.process([(d, addr) for d in dgrams])
        outputs[how], counters[how] = sent, engine.counters.snapshot()
        if how == "native, GRO buffers":
            stats = engine.core.io_stats()
            assert stats["gro_buffers"] == sum(len(d) > 1 for d, _ in batches)
            assert stats["gro_segments"] == sum(len(d) for d, _ in batches if len(d) > 1)
    assert counters["python"]["allreduces_completed"] == 1
    assert counters["python"]["datagrams_in"] == sum(len(d) for d, _ in batches) + 2  # + JOINs
    assert sum(v for k, v in counters["python"].items() if k.startswith("drop")) == 2  # the torn tails
    assert outputs["native, GRO buffers"] == outputs["native, datagrams"] == outputs["python"]
    assert counters["native, GRO buffers"] == counters["native, datagrams"] == counters["python"]


def test_gro_segment_size_edge_cases():
    """A segment size at or above the buffer's length is one datagram; an empty buffer too."""
    spec = JobSpec(1, 2, num_slots=4, block_size=B, message_size=0)
    addrs = [("127.0.0.1", 20000), ("127.0.0.1", 20001)]
    packet = _with_session(_packets(spec, 0, 1, 0, np.random.default_rng(0))[0], (1000).to_bytes(4, "big"))
    results = []
    for seg in (None, len(packet), 65535):
        engine, path = _joined(NativeEngine, spec, addrs, 0)
        engine.core.load([(packet, addrs[0]) if seg is None else (packet, addrs[0], seg)])
        path.native_batch(-1)
        results.append((engine.core.take_output(), engine.counters.snapshot()))
        assert engine.core.io_stats()["gro_buffers"] == 0
    assert results[0] == results[1] == results[2]
    engine, path = _joined(NativeEngine, spec, addrs, 0)
    engine.core.load([(b"", addrs[0], 100)])
    path.native_batch(-1)
    assert engine.counters.snapshot()["datagrams_in"] == 3  # two JOINs and the empty one


# -- end to end ------------------------------------------------------------------------------


def _group_socket() -> socket.socket:
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    rx.bind(GROUP)
    rx.setsockopt(
        socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP[0]) + socket.inet_aton("127.0.0.1")
    )
    return rx


def _lockstep(message_size: int, offload: bool, multicast: bool, rounds: int = 4, slots: int = 64):
    """Two workers run one allreduce of `slots` streams x `rounds` blocks, round by round:
    each sends its round, then both wait for every result (no timers, so no
    retransmissions: the counters are the protocol's). Returns the result packets each
    worker got, in order, the server's counters and its I/O statistics."""
    W = 2
    spec = JobSpec(1, W, num_slots=slots, block_size=B, message_size=message_size, group=GROUP if multicast else None)
    rng = np.random.default_rng(3)
    with AggregatorServer([spec], port=0, udp_offload=offload) as server:
        socks = [_udp() for _ in range(W)]
        groups = [_group_socket() for _ in range(W)] if multicast else []
        try:
            for s in socks:
                s.settimeout(10)
            sessions = []
            for w, s in enumerate(socks):
                s.sendto(_join(spec, w, message_size), server.address)
                sessions.append(s.recv(65536)[24:28])
            results = [[] for _ in range(W)]
            for rnd in range(rounds):
                for w, s in enumerate(socks):
                    dgrams = _pack(
                        [_with_session(p, sessions[w]) for p in _packets(spec, rnd, rounds, w, rng)], message_size
                    )
                    if rnd == 1 and w == 0:
                        dgrams.append(b"\x02" * 20)  # junk: dropped as before (the last, shorter segment)
                    send_datagrams(s, dgrams, offload, server.address)
                for w in range(W):
                    rx = groups[w] if multicast else socks[w]
                    rx.settimeout(10)
                    got = 0
                    while got < slots:
                        packets, leftover = split_datagram(rx.recv(65536))
                        assert not leftover
                        # (the session is the server's random choice: compared without it)
                        results[w] += [bytes(p[:24]) + bytes(p[28:]) for p in packets]
                        got += len(packets)
            counters, io = server.counters(), server.io_stats()
        finally:
            for s in socks + groups:
                s.close()
    return results, counters, io


def _multicast_on_loopback() -> bool:
    try:
        _group_socket().close()
        return True
    except OSError:
        return False


@pytest.mark.parametrize("message_size,multicast", [(1472, False), (4000, False), (65000, False), (1472, True)])
def test_allreduce_same_with_and_without_gso_gro(message_size, multicast):
    if multicast and not _multicast_on_loopback():
        pytest.skip("this host cannot join multicast groups on loopback")
    off_results, off_counters, off_io = _lockstep(message_size, offload=False, multicast=multicast)
    on_results, on_counters, on_io = _lockstep(message_size, offload=True, multicast=multicast)
    assert off_counters["allreduces_completed"] == 1
    assert off_io["gso_sends"] == off_io["gro_buffers"] == 0 and not off_io["gso"]
    assert on_results == off_results
    assert on_counters == off_counters
    if not HAVE_OFFLOAD:
        pytest.skip(f"compared without GSO/GRO only (this kernel: {OFFLOAD_STATE})")
    assert on_io["gso"] and on_io["gso_fallbacks"] == 0
    if message_size < 30000:  # two datagrams fit one UDP_SEGMENT buffer both ways
        assert on_io["gro_buffers"] > 0 and on_io["gro_segments"] > on_io["gro_buffers"]
        assert on_io["gso_sends"] > 0 and on_io["gso_segments"] > on_io["gso_sends"]
        assert on_io["send_calls"] <= off_io["send_calls"]


def test_python_names_equal_the_c_header():
    """p4reduce.transport.udp_offload repeats p4reduce/_udp.h's constants for Python (the
    native cores use the header): read the header and compare, so neither drifts."""
    import pathlib
    import re

    from p4reduce.transport import udp_offload

    header = (pathlib.Path(udp_offload.__file__).resolve().parents[1] / "_udp.h").read_text()
    defined = {m[1]: int(m[2]) for m in re.finditer(r"#define (\w+)\s+(\d+)\b", header)}
    for name in ("SOL_UDP", "UDP_SEGMENT", "UDP_GRO", "GSO_MAX_SEGS", "GSO_MAX_BYTES"):
        assert getattr(udp_offload, name) == defined[name], name
