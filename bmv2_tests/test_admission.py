# SPDX-License-Identifier: Apache-2.0
"""What the switch refuses to aggregate (dropped, counted by reason) and how it
forwards ordinary traffic."""

from __future__ import annotations

import numpy as np
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import (
    AGG_IP,
    AGG_MAC,
    SESSION,
    Worker,
    data,
    frame,
    job_dict,
    join,
    opening,
    results,
    wait_for_counters,
)
from p4reduce.protocol import AGG_UDP_PORT, NONE, AggHeader, MsgType, decode_values


def test_bad_packets_are_dropped_and_counted(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0 = workers[0]
    stranger = Worker(0, 4, "02:00:00:00:00:44", "10.0.0.44", 40044, switch.host_if(4))
    empty = opening(w0, 0, NONE, NONE)  # an acceptable packet, spoiled below
    h0, h3, h4 = w0.host_if, switch.host_if(3), stranger.host_if
    cases = {  # reason -> (host interface, frame)
        "unknown_worker": [
            (h4, frame(stranger, opening(stranger, 0, NONE, NONE))),
            (h4, frame(stranger, join(stranger, 7))),  # not admitted: no JOINED either
            (h0, frame(w0, empty, src_mac="02:00:00:00:00:99")),  # wrong MAC
            (h0, frame(Worker(0, 1, w0.mac, w0.ip, 40999, h0), empty)),  # wrong UDP source port
            (h3, frame(w0, empty)),  # worker 0's addresses, but on another switch port
        ],
        "identity_mismatch": [
            (h0, frame(w0, opening(w0, 0, NONE, NONE, worker_id=1))),  # speaks for worker 1
            (h0, frame(w0, opening(w0, 0, NONE, NONE, job=2))),
            (h0, frame(w0, join(w0, 7, worker_id=1))),  # joins as worker 1
        ],
        "bad_session": [
            (h0, frame(w0, opening(w0, 0, NONE, NONE, session=0))),  # never joined
            (h0, frame(w0, opening(w0, 0, 0, NONE, np.zeros(32), session=SESSION ^ 1))),  # another session
            (h0, frame(w0, data(w0, 1, 0, NONE, session=SESSION ^ 1, slot=9))),  # checked before the slot
        ],
        "bad_slot": [
            (h0, frame(w0, opening(w0, 0, NONE, NONE, slot=4))),  # the job owns slots 0..3
            (h0, frame(w0, opening(w0, 1, 0, NONE, np.zeros(32), slot=1024 + 2))),  # beyond the registers
        ],
        "malformed": [
            (h0, frame(w0, data(w0, 1, 0, 0, np.zeros(32))[:40])),  # truncated values
            (h0, frame(w0, data(w0, 1, 0, 0, np.zeros(5)))),  # count not in {0, 32}
            (h0, frame(w0, opening(w0, 0, NONE, NONE, np.zeros(32)))),  # values of no block
            (h0, frame(w0, empty + b"\0\0\0\0")),  # UDP payload longer than 36 + 4 * count
            (h0, frame(w0, empty + empty)),  # two packets in one datagram: software path only
            (h0, frame(w0, b"\x01" + empty[1:])),  # protocol version 1
            (h0, frame(w0, b"\x02" + empty[1:])),  # version 2 (a worker with bootstrap rounds)
            (h0, frame(w0, b"\x04" + empty[1:])),  # a later version
            *[
                (h0, frame(w0, AggHeader(t, 1, 0, 0, 0, 0, NONE, 0, session=SESSION).pack()))
                for t in (
                    MsgType.RESULT,
                    MsgType.QUERY,
                    MsgType.PENDING,
                    MsgType.RESET,
                    MsgType.JOINED,
                    MsgType.ERROR,
                    9,
                )
            ],  # nothing a switch takes but DATA and JOIN
            (h0, frame(w0, empty, ip_checksum=0x1234)),  # bad IPv4 header checksum
            (h0, frame(w0, empty[:10])),  # shorter than the aggregation header
            (h0, frame(w0, empty[:22])),  # as long as a version 1 header
            (h0, frame(w0, join(w0, 7) + b"\0" * 4)),  # JOIN with trailing bytes
            (h0, frame(w0, _with_count(join(w0, 7), 32) + bytes(128))),  # JOIN with values
            (h0, frame(w0, data(w0, 1, 10, 11, np.zeros(32), blocks=10))),  # block beyond the tensor
            (h0, frame(w0, opening(w0, 0, 10, NONE, np.zeros(32), blocks=10))),  # own block beyond it
            (h0, frame(w0, opening(w0, 0, 9, 10, np.zeros(32), blocks=10))),  # look-ahead beyond the tensor
            (h0, frame(w0, opening(w0, 0, 0, NONE, np.zeros(32), blocks=0))),  # a tensor without blocks
        ],
    }
    # One at a time: BMv2 loses frames of a long burst on a busy host.
    expected = dict.fromkeys(cases, 0)
    for reason, sends in cases.items():
        for iface, f in sends:
            tap.send(iface, f)
            expected[reason] += 1
            c = wait_for_counters(switch, **expected)
    assert results(tap.collect(timeout=0.3), workers) == []
    assert {k: c[k] for k in expected} == expected
    assert c["data_counted"] == c["forwarded"] == 0
    # None of it disturbed slot 0: a clean opening round still completes normally.
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, 0, NONE, np.full(32, 1 + w.worker_id))))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert len(got) == 2
    for _, payload in got:
        h = AggHeader.unpack(payload)
        assert (h.block, h.next_block, h.count) == (0, NONE, 32)
        np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 3))


def test_entry_with_worker_id_beyond_num_workers_is_refused(switch, tap):
    """Defence against a bad table entry (the controller's config check normally
    prevents it): a worker id that is no rank of the job has no bitmap bit."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    rogue = Worker(2, 3, "02:00:00:00:00:03", "10.0.0.3", 40003, switch.host_if(3))
    switch.client.write_table_entry(
        "P4ReduceIngress.admission.workers",
        {
            "standard_metadata.ingress_port": rogue.port,
            "hdr.ethernet.src_addr": 0x020000000003,
            "hdr.ipv4.src_addr": 0x0A000003,
            "hdr.udp.src_port": rogue.udp_port,
        },
        "P4ReduceIngress.admission.set_worker",
        {"job_id": 1, "worker_id": 2, "num_workers": 2, "mgid": 2, "slot_base": 0, "num_slots": 4, "session": SESSION},
    )
    tap.send(rogue.host_if, frame(rogue, opening(rogue, 0, NONE, NONE)))
    tap.send(rogue.host_if, frame(rogue, join(rogue, 7)))  # nor does it get the session
    c = wait_for_counters(switch, identity_mismatch=2)
    assert c["data_counted"] == c["joined"] == 0
    assert results(tap.collect(timeout=0.3), workers + [rogue]) == []


def test_ordinary_traffic_is_forwarded_by_l2(switch, tap):
    workers = make_workers(switch, 3)
    cfg_l2 = [{"mac": w.mac, "port": w.port} for w in workers]
    switch.install(
        {
            "jobs": [job_dict(1, workers[:2], num_slots=4)],
            "l2": cfg_l2,
            "broadcast": {"mgid": 100, "ports": [1, 2, 3, 4, 5]},
        }
    )
    w0, w1, w2 = workers
    udp = bytes(
        Ether(src=w0.mac, dst=w2.mac) / IP(src=w0.ip, dst=w2.ip) / UDP(sport=5000, dport=6000) / Raw(b"hello p4reduce")
    )
    tap.send(w0.host_if, udp)
    assert tap.collect(timeout=10, expect=1) == [(w2.host_if, udp)]
    # The first fragment of a fragmented datagram (More Fragments set) to the
    # aggregation port is no aggregation packet: forwarded like any other.
    frag = bytes(
        Ether(src=w1.mac, dst=w0.mac)
        / IP(src=w1.ip, dst=w0.ip, flags="MF", frag=0)
        / UDP(sport=w1.udp_port, dport=AGG_UDP_PORT)
        / Raw(opening(w1, 0, NONE, NONE))
    )
    tap.send(w1.host_if, frag)
    assert tap.collect(timeout=10, expect=1) == [(w0.host_if, frag)]
    # Broadcast is flooded to every port of the group except the one it came in on.
    arp = bytes(Ether(src=w1.mac, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=w1.ip, pdst=AGG_IP))
    tap.send(w1.host_if, arp)
    got = tap.collect(timeout=10, expect=4)  # a copy to port 2 as well would show below
    assert sorted(i for i, _ in got) == sorted(switch.host_if(p) for p in (1, 3, 4, 5))
    assert all(f == arp for _, f in got)
    # No entry for the destination: dropped (and not counted as forwarded).
    tap.send(w0.host_if, bytes(Ether(src=w0.mac, dst="02:00:00:00:00:77") / IP() / Raw(b"x")))
    assert tap.collect(timeout=0.3) == []
    c = switch.counters()
    assert c["forwarded"] == 3 and c["data_counted"] == c["malformed"] == 0
    # Aggregation works next to it: the aggregator address needs no L2 entry.
    assert AGG_MAC not in {e["mac"] for e in cfg_l2}
    for w in workers[:2]:
        tap.send(w.host_if, frame(w, opening(w, 0, NONE, NONE)))
    assert len(results(tap.collect(expect=2, timeout=10), workers)) == 2


def _with_count(header: bytes, count: int) -> bytes:
    """`header` (packed) with another `count` field (bytes 22..23), nothing else changed."""
    return header[:22] + count.to_bytes(2, "big") + header[24:]
