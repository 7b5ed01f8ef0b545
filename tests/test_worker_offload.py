# SPDX-License-Identifier: Apache-2.0
"""UDP GSO (send) and GRO (receive) on the host agent's native engine (p4reduce/_worker.c).

* end to end on loopback with MTU-sized datagrams (several per endpoint per flush): the
  exact sum with offload on (and the agent's counters show it was used) and turned off
  (WorkerConfig(udp_offload=False): counters 0, GRO off on the sockets);
* the GRO split: a buffer of datagrams (one with a torn packet, which must not swallow the
  datagrams after it) is handled datagram by datagram, from a socket and through feed();
* the GSO grouping: at most 64 segments per message, a shorter datagram ends a run;
* the fallback: a socket the kernel will not segment for (SO_NO_CHECK: EINVAL) still gets
  every datagram, and GSO stays off for the endpoint and then for the agent;
* JOIN answers coalesced into one buffer are each looked at.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import struct
import threading
import time

import numpy as np
import pytest
from conftest import allreduce_all

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.protocol import EXP_BIAS, HEADER_LEN, NONE, AggHeader, MsgType
from p4reduce.transport.udp_offload import SOL_UDP, UDP_GRO, UDP_SEGMENT, probe_udp_offload

SO_NO_CHECK = getattr(socket, "SO_NO_CHECK", 11)  # <asm-generic/socket.h>
TAG = 99  # the fingerprint of the hand-made allreduces below
RTO = 0.05


def _kernel_offload():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        return probe_udp_offload(s)


KERNEL = _kernel_offload()
needs_offload = pytest.mark.skipif(not (KERNEL.gso and KERNEL.gro), reason=f"this kernel: {KERNEL.describe()}")


def _gro(sock: socket.socket) -> int:
    return sock.getsockopt(SOL_UDP, UDP_GRO) if KERNEL.gro else 0


def _send_segmented(sock: socket.socket, datagrams: list[bytes], dest) -> None:
    """`datagrams` (all of the first one's size but a shorter last) as one UDP_SEGMENT buffer."""
    sock.sendmsg([b"".join(datagrams)], [(SOL_UDP, UDP_SEGMENT, struct.pack("=H", len(datagrams[0])))], 0, dest)


# -- end to end --------------------------------------------------------------------------------


def _mtu_allreduce(block_size: int, udp_offload: bool):
    rng = np.random.default_rng(block_size)
    arrays = [rng.integers(-1000, 1000, 100_000).astype(np.int32) for _ in range(2)]
    arrays[1][:20_000] = 0  # some blocks only one worker holds
    spec = JobSpec(1, 2, num_slots=64, block_size=block_size, message_size=1472)
    with AggregatorServer([spec], port=0) as server:
        outs, agents, _ = allreduce_all(
            arrays,
            server=server,
            num_slots=64,
            block_size=block_size,
            message_size=1472,
            engine="native",
            udp_offload=udp_offload,
        )
    for out in outs:
        np.testing.assert_array_equal(out, arrays[0] + arrays[1])
    return agents


# 64 values: 292-byte packets, 5 to a datagram (the 64-segment limit binds); 256: 1060-byte
# packets, one to a datagram (the 65507-byte limit binds at 61 segments).
@pytest.mark.parametrize("block_size", [64, 256])
def test_mtu_sized_allreduce_is_exact_and_uses_gso_and_gro(block_size):
    agents = _mtu_allreduce(block_size, udp_offload=True)
    if not (KERNEL.gso and KERNEL.gro):
        pytest.skip(f"exact without offload only (this kernel: {KERNEL.describe()})")
    for agent in agents:
        stats = agent.last_stats
        assert agent.udp_offload.gso and agent.udp_offload.gro  # never refused: no fallback
        assert stats.gso_sends > 0 and stats.gso_segments > stats.gso_sends
        assert stats.gro_buffers > 0 and stats.gro_segments > stats.gro_buffers


def test_udp_offload_off_is_exact_and_unused():
    for agent in _mtu_allreduce(256, udp_offload=False):
        stats = agent.last_stats
        assert (stats.gso_sends, stats.gso_segments, stats.gro_buffers, stats.gro_segments) == (0, 0, 0, 0)
        assert not agent.udp_offload.gso and not agent.udp_offload.gro
        assert agent.udp_offload.why_not == {"gso": "turned off", "gro": "turned off"}


@needs_offload
def test_no_gso_towards_a_peer_that_takes_one_packet_per_datagram():
    """A switch answers JOIN with datagram size 0 (one packet per frame); on a virtual link a
    segmented send can reach BMv2's AF_PACKET port as one super-frame it cannot parse, so the
    worker does not segment towards such a peer, though every datagram has the same size."""
    rng = np.random.default_rng(3)
    arrays = [rng.integers(-1000, 1000, 20_000).astype(np.int32) for _ in range(2)]
    outs, agents, _ = allreduce_all(arrays, num_slots=64, block_size=64, message_size=0, engine="native")
    for out in outs:
        np.testing.assert_array_equal(out, arrays[0] + arrays[1])
    for agent in agents:
        assert agent.udp_offload.gso  # available, not used
        assert agent.last_stats.packets_sent > 64 and agent.last_stats.gso_sends == 0


@pytest.mark.parametrize(
    "engine,udp_offload,why_off",
    [("native", True, None), ("native", False, "turned off"), ("python", True, "Python engine")],
)
def test_gro_is_on_only_for_the_native_engine_with_offload(engine, udp_offload, why_off):
    """The Python engine's receivers take a buffer as one datagram: a coalesced one must
    never reach them."""
    cfg = WorkerConfig(
        1, 0, 1, aggregators=(("127.0.0.1", 9), ("127.0.0.1", 10)), engine=engine, udp_offload=udp_offload
    )
    with HostAgent(cfg) as agent:
        on = why_off is None and KERNEL.gro
        assert agent.udp_offload.gro == on
        if why_off:
            assert agent.udp_offload.why_not == {"gso": why_off, "gro": why_off}
        assert [_gro(e.sock) for e in agent._endpoints] == [int(on)] * 2


# -- a native Run against a plain socket standing in for the aggregator --------------------------


@contextlib.contextmanager
def _fake_aggregator(num_slots: int, message_size: int = 0, **cfg):
    """(agent, aggregator socket): a native-engine agent as if joined (session 77, datagrams
    packed up to `message_size`) to a plain UDP socket."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as agg:
        agg.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        agg.bind(("127.0.0.1", 0))
        agg.settimeout(10)
        config = WorkerConfig(
            1,
            0,
            1,
            aggregator=agg.getsockname(),
            num_slots=num_slots,
            block_size=4,
            message_size=message_size,
            engine="native",
            **cfg,
        )
        with HostAgent(config) as agent:
            agent._endpoints[0].session = 77
            agent._endpoints[0].pack_up_to = message_size
            yield agent, agg


def _zero_run(agent: HostAgent, streams: int, sockets: bool = True):
    """A Run of `streams` streams over an all-zero tensor: a header-only opening round each, then done."""
    B = agent.config.block_size
    plan = BlockPlan.build(np.zeros(streams * B, dtype=np.int32), B, agent.config.num_slots)
    return agent.engine.make_run(plan, np.zeros(streams * B, dtype=np.int32), 0, TAG, [0] * streams, sockets=sockets)


def _empty_stream_result(slot: int) -> bytes:
    """The RESULT of stream `slot`'s opening round when nobody holds anything: block NONE, the end."""
    return AggHeader(MsgType.RESULT, 1, 0, slot, 0, 0, NONE, NONE, EXP_BIAS, 0, 0, 0, 77, 1, TAG).pack()


def _gro_buffer() -> tuple[list[bytes], int]:
    """Datagrams of two RESULTs (72 bytes), one of them a RESULT and a torn packet whose
    count runs far past its datagram, and a shorter last: handled datagram by datagram,
    the torn packet costs only its own datagram's tail; read as one datagram it would hide
    streams 3..5. Returns (datagrams, streams they finish)."""
    torn = bytearray(_empty_stream_result(9))
    torn[22:24] = (1000).to_bytes(2, "big")
    return [
        _empty_stream_result(0) + _empty_stream_result(1),
        _empty_stream_result(2) + bytes(torn),
        _empty_stream_result(3) + _empty_stream_result(4),
        _empty_stream_result(5),
    ], 6


def _poll_until_done(run, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while run.unfinished and time.monotonic() < deadline:
        run.poll(30.0, 0.1)


@pytest.mark.parametrize("how", ["socket", "feed"])
def test_gro_buffer_is_split_into_its_datagrams(how):
    if how == "socket" and not (KERNEL.gso and KERNEL.gro):
        pytest.skip(f"this kernel: {KERNEL.describe()}")
    datagrams, streams = _gro_buffer()
    with _fake_aggregator(streams) as (agent, agg):
        run = _zero_run(agent, streams, sockets=how == "socket")
        run.start(streams, time.monotonic(), 30.0)
        if how == "socket":
            run.flush()
        if how == "socket":
            _send_segmented(agg, datagrams, agent.address)
            _poll_until_done(run)
        else:  # a segment size: split as the UDP_GRO cmsg's would be
            run.feed(0, [(b"".join(datagrams), agg.getsockname(), len(datagrams[0]))], time.monotonic(), RTO)
        counts = run.counters()
        assert run.unfinished == 0
        assert counts["packets_received"] == streams and counts["ignored_packets"] == 1  # the torn tail
        assert (counts["gro_buffers"], counts["gro_segments"]) == (1, len(datagrams))


def _received(agg: socket.socket, count: int) -> list[bytes]:
    return [agg.recv(65536) for _ in range(count)]


@needs_offload
def test_gso_groups_runs_of_equal_datagrams():
    """150 header-only DATA packed up to one header per datagram: runs of 64, 64 and 22 (the
    segment limit); packed up to 1000 bytes: five 972-byte datagrams and a shorter last, one
    run. The aggregator's plain socket gets every datagram, in order."""
    for limit, messages, datagrams in ((HEADER_LEN, 3, 150), (1000, 1, 6)):
        with _fake_aggregator(150, message_size=limit) as (agent, agg):
            run = _zero_run(agent, 150)
            run.start(150, time.monotonic(), 30.0)
            run.flush()
            got = _received(agg, datagrams)
            slots = [
                AggHeader.unpack(d[off : off + HEADER_LEN]).slot for d in got for off in range(0, len(d), HEADER_LEN)
            ]
            assert slots == list(range(150))
            counts = run.counters()
            assert (counts["gso_sends"], counts["gso_segments"], counts["gso_fallbacks"]) == (messages, datagrams, 0)


@needs_offload
def test_refused_gso_falls_back_to_datagrams_and_stays_off():
    """SO_NO_CHECK: the kernel refuses a segmented send (EINVAL) but sends datagrams. The
    flush sends the message's datagrams one by one and turns GSO off for the endpoint (the
    resends of the next flush go without trying), then the agent keeps it off."""
    with _fake_aggregator(8, message_size=HEADER_LEN) as (agent, agg):  # a datagram per packet
        agent._endpoints[0].sock.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
        run = _zero_run(agent, 8)
        run.start(8, time.monotonic(), RTO)
        run.flush()
        assert [AggHeader.unpack(d).slot for d in _received(agg, 8)] == list(range(8))
        assert run.gso_errno == errno.EINVAL
        run.expire(time.monotonic() + 1.0, 0.5, 30.0)  # every stream resends its opening DATA
        run.flush()
        assert [AggHeader.unpack(d).slot for d in _received(agg, 8)] == list(range(8))
        counts = run.counters()
        assert (counts["gso_sends"], counts["gso_segments"], counts["gso_fallbacks"]) == (0, 0, 1)
        agent.engine.note_gso_refused(run)
        assert not agent.udp_offload.gso and "refused" in agent.udp_offload.why_not["gso"]
        assert agent.udp_offload.gro  # receiving is not affected


# -- JOIN answers in one coalesced buffer ----------------------------------------------------------


@needs_offload
def test_join_answer_found_in_a_coalesced_buffer():
    """Another job's JOINED and then ours, as one GRO buffer: the agent takes ours."""
    with _fake_aggregator(4, failure_timeout=2.0) as (agent, agg):
        agent._endpoints[0].session = None

        def answer() -> None:
            request, worker = agg.recvfrom(65536)
            joined = AggHeader.unpack(request)._replace(msg_type=MsgType.JOINED, session=5)
            _send_segmented(agg, [joined._replace(job_id=2).pack(), joined.pack()], worker)

        thread = threading.Thread(target=answer)
        thread.start()
        agent._join()
        thread.join(10)
        assert agent._endpoints[0].session == 5
