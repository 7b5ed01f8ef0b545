# SPDX-License-Identifier: Apache-2.0
"""Several packets per datagram: splitting, packing on send, the scapy layer, end to end."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from conftest import allreduce_all, block_sparse

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.protocol import HEADER_LEN, NONE, AggHeader, MsgType, encode
from p4reduce.protocol.framing import IOV_PARTS, message_limit, split_datagram
from p4reduce.protocol.scapy_layer import P4Reduce
from p4reduce.transport.batchio import BatchSender


def _packet(block: int, count: int) -> bytes:
    return encode(
        AggHeader(MsgType.DATA, 1, 0, 0, 0, 0, block, NONE, count=count, blocks=9), np.arange(count) if count else None
    )


def test_split_datagram_yields_each_packet_and_the_unparsed_tail():
    packets = [_packet(1, 4), _packet(2, 0), _packet(3, 8)]
    views, leftover = split_datagram(memoryview(b"".join(packets)))
    assert [bytes(v) for v in views] == packets and leftover == 0
    views, leftover = split_datagram(memoryview(b"".join(packets) + packets[0][:30]))
    assert len(views) == 3 and leftover == 30
    truncated = packets[2][:-4]  # its count claims 4 bytes more than are there
    views, leftover = split_datagram(memoryview(packets[0] + truncated))
    assert [bytes(v) for v in views] == [packets[0]] and leftover == len(truncated)
    assert split_datagram(memoryview(b"")) == ([], 0)


@pytest.mark.parametrize(
    "ours, theirs, agreed", [(65000, 1472, 1472), (0, 65000, 0), (1472, 0, 0), (70000, 70000, 65507)]
)
def test_message_limit(ours, theirs, agreed):
    assert message_limit(ours, theirs) == agreed


def test_sender_packs_per_destination_up_to_the_limit():
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx1,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx2,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx,
    ):
        for s in (rx1, rx2):
            s.bind(("127.0.0.1", 0))
            s.settimeout(2)
        sender = BatchSender(tx)
        small = [_packet(b, 4) for b in range(5)]  # 52 bytes each
        for p in small[:3]:
            sender.add((p,), rx1.getsockname(), pack_up_to=2 * len(p))
        sender.add((small[3],), rx2.getsockname(), pack_up_to=1000)
        sender.add((small[4][:HEADER_LEN], small[4][HEADER_LEN:]), rx2.getsockname(), pack_up_to=1000)
        sender.add((small[0],), rx1.getsockname())  # no packing: a datagram of its own
        assert sender.flush() == 0
        got1 = [rx1.recv(65536) for _ in range(3)]
        assert got1 == [small[0] + small[1], small[2], small[0]]
        assert rx2.recv(65536) == small[3] + small[4]


def test_sender_keeps_a_datagram_within_the_kernels_gather_limit():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(2)
        sender = BatchSender(tx)
        header = _packet(7, 0)
        for _ in range(IOV_PARTS + 1):
            sender.add((header,), rx.getsockname(), pack_up_to=65000)
        assert sender.flush() == 0
        sizes = sorted(len(rx.recv(65536)) for _ in range(2))
        assert sizes == [HEADER_LEN, IOV_PARTS * HEADER_LEN]


def test_scapy_parses_packets_back_to_back():
    packets = [_packet(1, 4), _packet(2, 0)]
    pkt = P4Reduce(b"".join(packets))
    assert pkt.block == 1 and pkt.values == [0, 1, 2, 3]
    assert pkt.payload.block == 2 and isinstance(pkt.payload, P4Reduce)


@pytest.mark.parametrize("message_size", [0, 1472, 65000])
def test_small_blocks_travel_many_per_datagram(message_size):
    rng = np.random.default_rng(4)
    arrays = [block_sparse(rng, 64 * 500, 64, 0.5, np.int32) for _ in range(2)]
    spec = JobSpec(1, 2, num_slots=64, block_size=64, message_size=message_size)
    with AggregatorServer([spec], port=0) as srv:
        results, agents, counters = allreduce_all(
            arrays, server=srv, block_size=64, num_slots=64, message_size=message_size
        )
    np.testing.assert_array_equal(results[0], arrays[0] + arrays[1])
    np.testing.assert_array_equal(results[1], results[0])
    if message_size:
        # Packed, not one by one. How many share a datagram later depends on how results
        # arrive (timing), but each worker starts its window of streams in one burst: 64
        # bootstrap headers, 36 bytes each, that must travel several to a datagram.
        assert counters["datagrams_in"] <= counters["packets_in"] - 2 * (64 - -(-64 // (message_size // 36)))
    else:
        assert counters["datagrams_in"] == counters["packets_in"]
