"""The P4 program on real simple_switch_grpc, driven with scapy frames."""
from __future__ import annotations

import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import AGG_IP, AGG_MAC, Tap, Worker, job_dict
from hostagent.stream import Stream
from p4reduce.protocol import AGG_UDP_PORT, NONE, AggHeader, Mode, MsgType, decode_values, encode


def frame(w: Worker, payload: bytes, *, src_mac: str | None = None) -> bytes:
    return bytes(Ether(src=src_mac or w.mac, dst=AGG_MAC) / IP(src=w.ip, dst=AGG_IP)
                 / UDP(sport=w.udp_port, dport=AGG_UDP_PORT) / Raw(payload))


def results(got: list[tuple[str, bytes]], workers: list[Worker]) -> list[tuple[Worker, bytes]]:
    """(receiving worker, UDP payload) of every RESULT frame, checking its addressing."""
    by_if = {w.host_if: w for w in workers}
    out = []
    for iface, raw in got:
        pkt = Ether(raw)
        if UDP not in pkt or pkt[UDP].sport != AGG_UDP_PORT:
            continue
        w = by_if[iface]
        assert (pkt[Ether].dst, pkt[Ether].src) == (w.mac, AGG_MAC)
        assert (pkt[IP].dst, pkt[IP].src) == (w.ip, AGG_IP)
        assert (pkt[UDP].dport, pkt[UDP].chksum) == (w.udp_port, 0)
        payload = bytes(pkt[UDP].payload)
        assert pkt[IP].len == 20 + 8 + len(payload) and pkt[UDP].len == 8 + len(payload)
        recomputed = IP(bytes(pkt[IP]))
        del recomputed.chksum
        assert IP(bytes(recomputed)).chksum == pkt[IP].chksum, "IPv4 checksum not updated"
        out.append((w, payload))
    return out


def test_golden_packets(switch, tap, golden):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, slot_base=0, num_slots=32)]})
    for step in golden["steps"]:
        if "dense" not in step["modes"]:
            continue
        w = workers[step["from_worker"]]
        tap.send(w.host_if, frame(w, bytes.fromhex(step["payload"])))
        got = results(tap.collect(timeout=2.0 if step["expect"] else 0.3,
                                  expect=len(step["expect"]) or None), workers)
        assert sorted((w.worker_id, p.hex()) for w, p in got) == \
            sorted((e["to_worker"], e["payload"]) for e in step["expect"]), step["note"]
    counters = switch.client.read_counters()
    assert counters["result_unicast"] == 1 and counters["retransmit_dropped"] == 1
    assert counters["result_multicast"] == 5


def drive_streams(tap: Tap, workers: list[Worker], streams: list[Stream], rounds_cap: int = 10000):
    """Plays host agents over raw frames until every stream is done."""
    by_worker = {}
    for w, s in zip(workers, streams):
        by_worker.setdefault(w.worker_id, []).append(s)
        tap.send(w.host_if, frame(w, s.start()))
    for _ in range(rounds_cap):
        if all(s.done for s in streams):
            return
        got = results(tap.collect(timeout=3.0, expect=1), workers)
        assert got, "the switch stopped answering"
        for w, payload in got:
            h = AggHeader.unpack(payload)
            assert h.msg_type == MsgType.RESULT and h.worker_id == w.worker_id
            for s in by_worker[w.worker_id]:
                if s.slot == h.slot and s.job_id == h.job_id:
                    reply = s.on_result(h, payload)
                    if reply is not None:
                        tap.send(w.host_if, frame(w, reply))
    raise AssertionError("streams did not finish")


def make_stream(job: int, w: Worker, slot: int, blocks: dict[int, np.ndarray], sums: dict) -> Stream:
    mine = sorted(blocks) + [NONE]
    return Stream(job_id=job, worker_id=w.worker_id, slot=slot, round_=0, epoch=0,
                  mode=Mode.DENSE, my_blocks=mine, my_exps={b: 127 for b in blocks},
                  block_size=32, quantize=lambda b, e: blocks[b],
                  deliver=lambda b, e, v: sums.setdefault((slot, b), []).append(v.copy()))


@pytest.mark.parametrize("n", [3, 4])
def test_sparse_lookahead_rounds_and_shadow_reuse(switch, tap, n):
    """n workers, two slots, each worker holding a random subset of 60 blocks per
    stream: every block anyone holds becomes a round (many reuses of both shadow
    sets); every worker receives every sum."""
    rng = np.random.default_rng(n)
    workers = make_workers(switch, n)
    switch.install({"jobs": [job_dict(1, workers, slot_base=8, num_slots=2)]})
    streams, held, sums = [], {}, {}
    for w in workers:
        for slot in (8, 9):
            stream_blocks = [slot - 8 + 2 * k for k in range(60)]
            mine = {b: rng.integers(-2**20, 2**20, 32).astype(np.int32)
                    for b in stream_blocks if rng.random() < 0.4}
            for b, v in mine.items():
                held.setdefault((slot, b), []).append(v)
            streams.append(make_stream(1, w, slot, mine, sums))
    drive_streams(tap, [w for w in workers for _ in (8, 9)], streams)
    assert set(sums) == set(held)
    for key, vals in held.items():
        expected = np.sum(vals, axis=0)
        assert len(sums[key]) == n, key
        for got in sums[key]:
            np.testing.assert_array_equal(got, expected)
    counters = switch.client.read_counters()
    assert counters["result_multicast"] == len(held) + 2  # + the two bootstrap rounds


def data(w: Worker, version: int, block: int, nxt: int, values=None, *, slot: int = 0,
         job: int = 1, worker_id: int | None = None, count: int | None = None) -> bytes:
    h = AggHeader(MsgType.DATA, job, w.worker_id if worker_id is None else worker_id, slot,
                  version, 0, block, nxt, 127, 127,
                  (0 if values is None else 32) if count is None else count)
    if values is None:
        return h.pack()
    return h.pack() + np.asarray(values, ">i4").tobytes()


def test_retransmissions_are_not_added_twice(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0, w1 = workers
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 0, NONE, 0)))
    assert len(results(tap.collect(expect=2, timeout=2), workers)) == 2
    v = np.arange(32)
    tap.send(w0.host_if, frame(w0, data(w0, 1, 0, NONE, v)))
    tap.send(w0.host_if, frame(w0, data(w0, 1, 0, NONE, v)))  # duplicate while open
    assert results(tap.collect(timeout=0.5), workers) == []
    tap.send(w1.host_if, frame(w1, data(w1, 1, 0, NONE, 10 * v)))
    got = results(tap.collect(expect=2, timeout=2), workers)
    assert len(got) == 2
    for _, payload in got:
        np.testing.assert_array_equal(decode_values(payload, 32), 11 * v)
    tap.send(w1.host_if, frame(w1, data(w1, 1, 0, NONE, 10 * v)))  # lost result: re-send
    again = results(tap.collect(expect=1, timeout=2), workers)
    assert [w.worker_id for w, _ in again] == [1]
    np.testing.assert_array_equal(decode_values(again[0][1], 32), 11 * v)
    c = switch.client.read_counters()
    assert (c["retransmit_dropped"], c["result_unicast"], c["data_counted"]) == (1, 1, 4)


def test_header_only_packet_completes_a_round_with_values(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0, w1 = workers
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 0, NONE, 2)))
    results(tap.collect(expect=2, timeout=2), workers)
    tap.send(w0.host_if, frame(w0, data(w0, 1, 2, NONE, np.full(32, 7))))
    tap.send(w1.host_if, frame(w1, data(w1, 1, 2, NONE)))  # header only, completes the round
    got = results(tap.collect(expect=2, timeout=2), workers)
    assert len(got) == 2
    for _, payload in got:
        h = AggHeader.unpack(payload)
        assert h.count == 32
        np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 7))


def test_bad_packets_dropped_and_counted(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=4)]})
    w0 = workers[0]
    stranger = Worker(0, 4, "02:00:00:00:00:44", "10.0.0.44", 40044, switch.host_if(4))
    tap.send(stranger.host_if, frame(stranger, data(stranger, 0, NONE, 0)))
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, 0, worker_id=1)))  # speaks for worker 1
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, 0, job=2)))
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, 0, slot=4)))  # outside the job's slots
    tap.send(w0.host_if, frame(w0, data(w0, 1, 0, 0, np.zeros(32))[:40]))  # truncated values
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, 0, np.zeros(32))))  # values in bootstrap
    result_hdr = AggHeader(MsgType.RESULT, 1, 0, 0, 0, 0, NONE, 0).pack()
    tap.send(w0.host_if, frame(w0, result_hdr))
    assert results(tap.collect(timeout=0.7), workers) == []
    c = switch.client.read_counters()
    assert c["unknown_worker"] == 1
    assert c["identity_mismatch"] == 2
    assert c["bad_slot"] == 1
    assert c["malformed"] == 3
    assert c["data_counted"] == 0


def test_ordinary_traffic_is_forwarded(switch, tap):
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(1, workers[:2], num_slots=4)],
                    "l2": [{"mac": w.mac, "port": w.port} for w in workers]})
    w0, _, w2 = workers
    pkt = bytes(Ether(src=w0.mac, dst=w2.mac) / IP(src=w0.ip, dst=w2.ip)
                / UDP(sport=5000, dport=6000) / Raw(b"hello p4reduce"))
    tap.send(w0.host_if, pkt)
    got = [(i, f) for i, f in tap.collect(timeout=1.0, expect=1)]
    assert [(i, f) for i, f in got] == [(w2.host_if, pkt)]
    assert switch.client.read_counters()["forwarded"] == 1


def test_two_jobs_are_isolated(switch, tap):
    a = make_workers(switch, 2, first_port=1)
    b = make_workers(switch, 2, first_port=3)
    b = [Worker(i, w.port, w.mac, w.ip, w.udp_port, w.host_if) for i, w in enumerate(b)]
    switch.install({"jobs": [job_dict(1, a, slot_base=0, num_slots=1),
                             job_dict(2, b, slot_base=1, num_slots=1)]})
    rng = np.random.default_rng(3)
    sums_a, sums_b, streams = {}, {}, []
    held = {}
    for job, ws, slot, sums in ((1, a, 0, sums_a), (2, b, 1, sums_b)):
        for w in ws:
            mine = {blk: rng.integers(-1000, 1000, 32).astype(np.int32) for blk in range(0, 20)
                    if rng.random() < 0.5}
            for blk, v in mine.items():
                held.setdefault((job, blk), []).append(v)
            streams.append(make_stream(job, w, slot, mine, sums))
    drive_streams(tap, a + b, streams)
    for job, sums in ((1, sums_a), (2, sums_b)):
        for (slot, blk), got in sums.items():
            for g in got:
                np.testing.assert_array_equal(g, np.sum(held[(job, blk)], axis=0))


def test_reset_job_forgets_a_half_finished_round(switch, tap):
    import shutil
    if shutil.which("simple_switch_CLI") is None:
        pytest.skip("simple_switch_CLI (thrift) is not installed")
    workers = make_workers(switch, 2)
    cfg = switch.install({"jobs": [job_dict(1, workers, num_slots=2)]})
    w0, w1 = workers
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, 0)))  # worker 1 never answers
    tap.collect(timeout=0.3)
    switch.client.reset_job(cfg.job(1), switch.thrift_port)
    # After the reset worker 0's bootstrap counts again as the round's first packet.
    tap.send(w1.host_if, frame(w1, data(w1, 0, NONE, NONE)))
    assert results(tap.collect(timeout=0.5), workers) == []
    tap.send(w0.host_if, frame(w0, data(w0, 0, NONE, NONE)))
    assert len(results(tap.collect(expect=2, timeout=2), workers)) == 2
