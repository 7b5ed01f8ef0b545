# SPDX-License-Identifier: Apache-2.0
"""The switch model (p4reduce.testbed.switch_model) against the spec, and the STF replay.

Every expected frame here is built from p4reduce.protocol's codec and scapy, as
docs/protocol.md says the switch must answer, never by running the model; the STF files
under tests/data/stf are shaped as p4testgen writes them (test_stf_files_say_what_the_codec_says
rebuilds their packets and expectations from the codec). The golden packets
(docs/golden_packets.json) are the spec's hand-checked bytes.
"""

from __future__ import annotations

import json
import pathlib
from typing import NamedTuple

import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4reduce.protocol import (
    AGG_UDP_PORT,
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    MsgType,
    decode_values,
    fingerprint,
    scatter_flags,
)
from p4reduce.testbed.stf import KeyMatch, StfError, load_stf, parse_stf
from p4reduce.testbed.stf_replay import ReplayError, compare, field_at, replay
from p4reduce.testbed.switch_model import (
    FINGERPRINT,
    FIRST_KEY,
    HELD,
    MIN_KEY,
    REMAINING,
    SEEN,
    VALUE_REGISTERS,
    SwitchModel,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
STF_DIR = ROOT / "tests" / "data" / "stf"
GOLDEN = json.loads((ROOT / "docs" / "golden_packets.json").read_text())
SESSION = 0x5E551015
CPU_PORT = 510


class Host(NamedTuple):
    port: int
    mac: str
    ip: str
    udp_port: int

    @property
    def mac_int(self) -> int:
        return int(self.mac.replace(":", ""), 16)

    @property
    def ip_int(self) -> int:
        return int.from_bytes(bytes(int(b) for b in self.ip.split(".")), "big")


# The aggregation address the workers send to (p4reduce.testbed.bmv2), and the worker
# behind switch port p, as bmv2_tests' make_workers lays them out.
AGG = Host(0, "02:00:00:00:00:fe", "10.0.0.254", AGG_UDP_PORT)
PARENT = Host(5, "02:00:00:00:00:99", "10.0.0.99", AGG_UDP_PORT)


def host(port: int) -> Host:
    return Host(port, f"02:00:00:00:00:{port:02x}", f"10.0.0.{port}", 40000 + port)


def frame(src: Host, payload: bytes, dst: Host = AGG) -> bytes:
    """A datagram from `src` to `dst` (the aggregator), checksums filled in by scapy."""
    return bytes(
        Ether(src=src.mac, dst=dst.mac)
        / IP(src=src.ip, dst=dst.ip)
        / UDP(sport=src.udp_port, dport=dst.udp_port)
        / Raw(payload)
    )


def answer(to: Host, payload: bytes, src: Host = AGG) -> bytes:
    """What docs/protocol.md says a switch answer looks like: from the aggregation address,
    to the worker's, UDP checksum 0, IPv4 checksum right (the IPv4 header otherwise as the
    packet's that made it: scapy's defaults here)."""
    return bytes(
        Ether(src=src.mac, dst=to.mac)
        / IP(src=src.ip, dst=to.ip)
        / UDP(sport=AGG_UDP_PORT, dport=to.udp_port, chksum=0)
        / Raw(payload)
    )


def values(payload_values: np.ndarray | list[int]) -> bytes:
    return np.asarray(payload_values, ">i4").tobytes()


def int32_sum(*arrays: np.ndarray) -> np.ndarray:
    """Sums that wrap at 32 bits, as the switch's registers do."""
    total = sum(a.astype(np.int64) for a in arrays)
    return ((np.asarray(total) + 2**31) % 2**32 - 2**31).astype(np.int32)


def install_job(
    model: SwitchModel,
    hosts: list[Host],
    *,
    job: int = 1,
    num_workers: int | None = None,
    slot_base: int = 0,
    num_slots: int = 4,
    mgid: int = 2,
    session: int = SESSION,
) -> None:
    """The entries the controller installs for a job (controller/pipeline.py): a worker
    entry, a result destination and a replica (rid = worker id) per worker."""
    n = len(hosts) if num_workers is None else num_workers
    for w, h in enumerate(hosts):
        model.add_entry(
            "P4ReduceIngress.admission.workers",
            {
                "standard_metadata.ingress_port": h.port,
                "hdr.ethernet.src_addr": h.mac_int,
                "hdr.ipv4.src_addr": h.ip_int,
                "hdr.udp.src_port": h.udp_port,
            },
            "P4ReduceIngress.admission.set_worker",
            dict(
                job_id=job,
                worker_id=w,
                num_workers=n,
                mgid=mgid,
                slot_base=slot_base,
                num_slots=num_slots,
                session=session,
            ),
        )
        model.add_entry(
            "P4ReduceEgress.result_dest",
            {"hdr.agg.job_id": job, "meta.dest_worker": w},
            "P4ReduceEgress.set_result_dest",
            {"mac": h.mac_int, "ip": h.ip_int, "udp_port": h.udp_port},
        )
    model.add_multicast_group(mgid, [(h.port, w) for w, h in enumerate(hosts)])


def data(
    worker: int,
    shadow: int,
    block: int,
    nxt: int,
    vals: np.ndarray | None = None,
    *,
    slot: int = 0,
    blocks: int = 8,
    fp: int = 0xF1F2F3F4,
    flags: int = 0,
    exp: int = 127,
    next_exp: int = 127,
    epoch: int = 0,
) -> bytes:
    h = AggHeader(
        MsgType.DATA,
        1,
        worker,
        slot,
        shadow,
        epoch,
        block,
        nxt,
        exp,
        next_exp,
        0 if vals is None else 32,
        flags,
        session=SESSION,
        blocks=blocks,
        fingerprint=fp,
    )
    return h.pack() + (b"" if vals is None else values(vals))


def result(worker: int, shadow: int, block: int, nxt: int, vals: np.ndarray | None, **kw: int) -> bytes:
    """The RESULT the spec says the switch sends for a round of `data` packets."""
    fields = {"blocks": 8, "fingerprint": 0xF1F2F3F4, "exp": 127, "next_exp": 127, "slot": 0, "flags": 0, "epoch": 0}
    fields.update(kw)
    h = AggHeader(
        MsgType.RESULT,
        1,
        worker,
        fields["slot"],
        shadow,
        fields["epoch"],
        block,
        nxt,
        fields["exp"],
        fields["next_exp"],
        0 if vals is None else 32,
        fields["flags"],
        session=SESSION,
        blocks=fields["blocks"],
        fingerprint=fields["fingerprint"],
    )
    return h.pack() + (b"" if vals is None else values(vals))


# -- the STF files ---------------------------------------------------------------------------

JOIN_INCARNATION = 0x0C0FFEE0
ONE_WORKER_VALUES = np.array([(-1) ** i * (i * 1_000_003 + 7) for i in range(32)], np.int32)
TWO_WORKER_VALUES = np.arange(100, 132, dtype=np.int32)
ONE_WORKER_FP = fingerprint(0, 32, np.dtype(np.int32), 32, 4, 1)
TWO_WORKER_FP = fingerprint(0, 8 * 32, np.dtype(np.int32), 32, 4, 2)


def _udp_frame(src: Host, dst_mac: str, dst_ip: str) -> bytes:
    return bytes(
        Ether(src=src.mac, dst=dst_mac)
        / IP(src=src.ip, dst=dst_ip)
        / UDP(sport=5000, dport=6000)
        / Raw(b"hello p4reduce")
    )


def _join(worker: int) -> bytes:
    return AggHeader(MsgType.JOIN, 1, worker, 0, 0, JOIN_INCARNATION, 32, 8, 1, 0).pack()


def stf_cases() -> dict[str, tuple[tuple[int, bytes], list[tuple[int, bytes]]]]:
    """Per file of tests/data/stf: the packet it sends (port, frame) and the frames it
    expects, built from the codec and scapy (what docs/protocol.md says)."""
    w1, w3 = host(1), host(3)
    udp = _udp_frame(w1, w3.mac, w3.ip)
    stranger = _udp_frame(w1, "02:00:00:00:00:77", "10.0.0.77")
    join = frame(w1, _join(0))
    joined = AggHeader(MsgType.JOINED, 1, 0, 4, 0, JOIN_INCARNATION, 32, 8, 1, 2, session=SESSION).pack()
    bad_version = frame(w1, b"\x02" + data(0, 0, 0, NONE, ONE_WORKER_VALUES, flags=Flags.OPENING)[1:])
    one = data(0, 0, 0, NONE, ONE_WORKER_VALUES, flags=Flags.OPENING, blocks=1, fp=ONE_WORKER_FP)
    one_result = result(0, 0, 0, NONE, ONE_WORKER_VALUES, blocks=1, fingerprint=ONE_WORKER_FP)
    two = data(0, 0, 0, 4, TWO_WORKER_VALUES, flags=Flags.OPENING, fp=TWO_WORKER_FP)
    unknown_join = frame(w3, _join(0))
    return {
        "l2_to_port.stf": ((1, udp), [(3, udp)]),
        "l2_unknown_destination.stf": ((1, stranger), []),
        "join_joined.stf": ((1, join), [(1, answer(w1, joined))]),
        "join_unknown_worker.stf": ((3, unknown_join), [(CPU_PORT, (3 << 7).to_bytes(2, "big") + unknown_join)]),
        "malformed_version.stf": ((1, bad_version), []),
        "data_one_worker.stf": ((1, frame(w1, one)), [(1, answer(w1, one_result))]),
        "data_two_workers_first.stf": ((1, frame(w1, two)), []),
    }


STF_FILES = sorted(p.name for p in STF_DIR.glob("*.stf"))


def test_every_stf_file_has_a_case() -> None:
    assert STF_FILES == sorted(stf_cases())


@pytest.mark.parametrize("name", STF_FILES)
def test_stf_files_say_what_the_codec_says(name: str) -> None:
    """The files' packets and expectations are the spec's bytes (wildcards aside)."""
    (port, sent), expected = stf_cases()[name]
    test = load_stf(STF_DIR / name)
    assert (test.packet.port, test.packet.data) == (port, sent)
    assert len(test.expects) == len(expected)
    for e, (out_port, out) in zip(test.expects, expected, strict=True):
        assert e.port == out_port
        assert e.exact_length and e.pattern is not None and len(e.pattern) == 2 * len(out)
        assert e.matches(out), f"{name}: line {e.line} does not match {out.hex()}"
    assert test.seed is not None and test.coverage is not None


@pytest.mark.parametrize("name", STF_FILES)
def test_model_passes_the_stf_files(name: str) -> None:
    outcome = replay(load_stf(STF_DIR / name))
    assert outcome.passed, outcome.report()


def test_stf_join_and_packet_in_are_counted() -> None:
    joined = replay(load_stf(STF_DIR / "join_joined.stf")).model
    assert joined.events()["joined"] == 1 and joined.job_counters(4)["packets"] == 1
    unknown = replay(load_stf(STF_DIR / "join_unknown_worker.stf")).model
    assert unknown.events()["unknown_worker"] == 1
    assert sum(unknown.counters["P4ReduceIngress.job_events"]) == 0  # an unknown worker counts for no job


def test_stf_malformed_is_counted_for_its_job() -> None:
    model = replay(load_stf(STF_DIR / "malformed_version.stf")).model
    assert model.events()["malformed"] == 1
    assert model.job_counters(0) == {"packets": 1, "drops": 1, "retransmissions": 0, "rounds": 0}


def test_stf_first_of_two_workers_only_fills_the_registers() -> None:
    model = replay(load_stf(STF_DIR / "data_two_workers_first.stf")).model
    cell = 0  # shadow 0, slot 0
    assert model.registers[SEEN][cell] == 0b01
    assert model.registers[REMAINING][cell] == 1
    assert model.registers[HELD][cell] == 1
    assert [model.registers[r][cell] for r in VALUE_REGISTERS] == TWO_WORKER_VALUES.tolist()
    # An opening round's fingerprint register holds fingerprint XOR its OPENING/SCATTER bits.
    assert model.registers[FINGERPRINT][cell] == TWO_WORKER_FP ^ Flags.OPENING
    assert model.registers[FIRST_KEY][cell] == (0 << 8 | 128) << 8  # K1 = key(0, 127), no owner bits
    assert model.registers[MIN_KEY][cell] == 4 << 8 | 128  # K2 = key(4, 127)
    assert model.events()["data_counted"] == 1 and model.events()["result_multicast"] == 0
    assert sum(model.registers[SEEN]) == 0b01  # nothing else touched


# -- multi-packet scenarios through the model ---------------------------------------------------


def test_two_workers_one_stream_three_rounds() -> None:
    """Stream 0 of a 2-slot job: worker 0 holds blocks 0 and 4, worker 1 blocks 0 and 2.
    The opening round sums block 0 and decides block 2 next; block 2's round takes worker
    1's values (worker 0 header-only) and decides 4; block 4's ends the stream."""
    w = [host(1), host(2)]
    model = SwitchModel()
    install_job(model, w, num_slots=2)
    rng = np.random.default_rng(7)
    a0, a4, b0, b2 = (rng.integers(-(2**31), 2**31, 32, dtype=np.int64).astype(np.int32) for _ in range(4))
    a0[0], b0[0] = 2**31 - 1, 1  # the switch's sums wrap at 32 bits

    def send(worker: int, payload: bytes) -> list[tuple[int, bytes]]:
        return model.process(w[worker].port, frame(w[worker], payload))

    def both(shadow: int, block: int, nxt: int, vals: np.ndarray) -> list[tuple[int, bytes]]:
        return [(h.port, answer(h, result(i, shadow, block, nxt, vals))) for i, h in enumerate(w)]

    assert send(0, data(0, 0, 0, 4, a0, flags=Flags.OPENING)) == []
    out = send(1, data(1, 0, 0, 2, b0, flags=Flags.OPENING))
    assert out == both(0, 0, 2, int32_sum(a0, b0))
    assert decode_values(bytes(Ether(out[0][1])[UDP].payload), 32)[0] == -(2**31)

    assert send(1, data(1, 1, 2, NONE, b2)) == []
    assert send(0, data(0, 1, 2, 4)) == both(1, 2, 4, b2)  # header-only completes: the stored sums

    assert send(0, data(0, 0, 4, NONE, a4)) == []
    assert send(1, data(1, 0, 4, NONE)) == both(0, 4, NONE, a4)

    assert model.events()["data_counted"] == 6 and model.events()["result_multicast"] == 3
    assert model.job_counters(0) == {"packets": 6, "drops": 0, "retransmissions": 0, "rounds": 3}


def test_retransmissions() -> None:
    """Into an open round: dropped (3). Into a complete one: the stored RESULT to the
    sender alone (2). With another allreduce's fingerprint: dropped, stale (11)."""
    w = [host(1), host(2)]
    model = SwitchModel()
    install_job(model, w)
    x = np.arange(32, dtype=np.int32)
    first = data(0, 0, 0, NONE, x, flags=Flags.OPENING)
    assert model.process(1, frame(w[0], first)) == []
    assert model.process(1, frame(w[0], first)) == []
    assert model.events()["retransmit_dropped"] == 1
    copies = model.process(2, frame(w[1], data(1, 0, 0, NONE, x, flags=Flags.OPENING)))
    assert len(copies) == 2
    # A header-only retransmission is answered with the stored sums too.
    again = model.process(1, frame(w[0], data(0, 0, 0, NONE, flags=Flags.OPENING)))
    assert again == [(1, answer(w[0], result(0, 0, 0, NONE, 2 * x)))] == copies[:1]
    stale = model.process(1, frame(w[0], data(0, 0, 0, NONE, x, flags=Flags.OPENING, fp=1234)))
    assert stale == []
    ev = model.events()
    assert (ev["result_unicast"], ev["stale"], ev["data_counted"], ev["result_multicast"]) == (1, 1, 2, 1)
    assert model.job_counters(0)["retransmissions"] == 3


def test_disagreeing_fingerprints_make_a_mismatch_round() -> None:
    w = [host(1), host(2)]
    model = SwitchModel()
    install_job(model, w)
    x = np.ones(32, np.int32)
    model.process(1, frame(w[0], data(0, 0, 0, NONE, x, flags=Flags.OPENING, fp=1)))
    out = model.process(2, frame(w[1], data(1, 0, 0, NONE, x, flags=Flags.OPENING, fp=2)))
    assert [AggHeader.unpack(bytes(Ether(f)[UDP].payload)).flags for _, f in out] == [Flags.MISMATCH] * 2


def test_reduce_scatter_values_reach_the_owner_only() -> None:
    """docs/protocol.md 3.1: egress cuts the values from every copy but the owner's."""
    w = [host(1), host(2)]
    model = SwitchModel()
    install_job(model, w)
    x = np.full(32, 3, np.int32)
    flags = scatter_flags(1)
    model.process(1, frame(w[0], data(0, 1, 5, NONE, x, flags=flags)))
    out = model.process(2, frame(w[1], data(1, 1, 5, NONE, x, flags=flags)))
    assert out == [
        (1, answer(w[0], result(0, 1, 5, NONE, None, flags=flags))),
        (2, answer(w[1], result(1, 1, 5, NONE, 2 * x, flags=flags))),
    ]


def test_l2_flood_skips_the_ingress_port_and_a_hairpin_is_counted_but_dropped() -> None:
    model = SwitchModel()
    model.add_entry("l2", {"dst_addr": 0xFFFFFFFFFFFF}, "flood", {"mgid": 100})
    model.add_entry("l2", {"dst_addr": host(1).mac_int}, "to_port", {"port": 1})
    model.add_multicast_group(100, [(1, 0), (2, 0), (3, 0)])
    broadcast = _udp_frame(host(2), "ff:ff:ff:ff:ff:ff", "10.0.0.255")
    assert model.process(2, broadcast) == [(1, broadcast), (3, broadcast)]
    hairpin = _udp_frame(host(2), host(1).mac, host(1).ip)
    assert model.process(1, hairpin) == []  # to_port(1) for a frame from port 1
    assert model.events()["forwarded"] == 2  # ... counted as forwarded all the same


def test_trailing_bytes_behind_the_udp_datagram_are_taken_and_echoed() -> None:
    """The switch checks the UDP and IPv4 length FIELDS, not the frame: bytes behind the
    IPv4 datagram (Ethernet padding, or anything) pass, and the deparser emits them after
    the RESULT's values (docs/protocol.md section 2 calls such a packet malformed only
    when its UDP length disagrees)."""
    w = [host(1)]
    model = SwitchModel()
    install_job(model, w)
    x = np.arange(32, dtype=np.int32)
    out = model.process(1, frame(w[0], data(0, 0, 0, NONE, x, flags=Flags.OPENING)) + b"TAIL")
    assert out == [(1, answer(w[0], result(0, 0, 0, NONE, x)) + b"TAIL")]


def test_join_of_an_unknown_worker_goes_to_the_cpu_port_even_malformed() -> None:
    """admission decides 'unknown worker' before any check of the packet itself."""
    model = SwitchModel()
    bad = frame(host(4), b"\x02" + _join(0)[1:])
    assert model.process(4, bad) == [(CPU_PORT, (4 << 7).to_bytes(2, "big") + bad)]


def test_a_default_action_runs_on_a_miss_without_making_it_a_hit() -> None:
    """`table.apply().hit` is false on a miss whatever the default action does: a default
    `to_port` forwards without counting (8), a default `set_worker` admits nobody (4)."""
    model = SwitchModel()
    model.set_default("l2", "to_port", {"port": 2})
    anyone = dict(job_id=1, worker_id=0, num_workers=1, mgid=2, slot_base=0, num_slots=4, session=SESSION)
    model.set_default("workers", "set_worker", anyone)
    plain = _udp_frame(host(1), "02:00:00:00:00:77", "10.0.0.77")
    assert model.process(1, plain) == [(2, plain)]
    assert model.process(1, frame(host(1), data(0, 0, 0, NONE, flags=Flags.OPENING))) == []
    assert model.events()["forwarded"] == 0 and model.events()["unknown_worker"] == 1


def test_a_parents_error_goes_to_every_local_worker_as_upstream() -> None:
    """docs/protocol.md, Hierarchical aggregation: ERROR UPSTREAM (8), the parent's code as
    the detail, the leaf job's id and session, one copy per local worker."""
    w = [host(1), host(2)]
    model = SwitchModel()
    install_job(model, w)
    model.add_entry(
        "parents",
        {
            "ingress_port": PARENT.port,
            "ethernet.src_addr": PARENT.mac_int,
            "ipv4.src_addr": PARENT.ip_int,
            "udp.src_port": AGG_UDP_PORT,
            "agg.job_id": 9,
            "agg.worker_id": 3,
        },
        "from_parent",
        dict(job_id=1, num_workers=2, mgid=2, slot_base=0, num_slots=4, session=SESSION, up_session=0xAB),
    )
    up = AggHeader(MsgType.ERROR, 9, 3, 1, 1, 5, ErrorCode.TENSOR, 3, session=0xAB, blocks=8, fingerprint=0xF1F2F3F4)
    out = model.process(PARENT.port, frame(PARENT, up.pack()))
    code = ErrorCode.UPSTREAM
    down = [
        up._replace(job_id=1, worker_id=i, session=SESSION, block=code, next_block=ErrorCode.TENSOR) for i in (0, 1)
    ]
    assert out == [(h.port, answer(h, d.pack())) for h, d in zip(w, down, strict=True)]
    assert model.events()["from_parent"] == 1 and model.job_counters(0)["packets"] == 1
    # With another session than the leaf's there, it is refused (10), nothing leaves.
    assert model.process(PARENT.port, frame(PARENT, up._replace(session=0xAC).pack())) == []
    assert model.events()["bad_session"] == 1


# -- the golden packets (docs/golden_packets.json) -------------------------------------------


def _golden_model(job: dict, workers: list[Host]) -> SwitchModel:
    model = SwitchModel()
    install_job(model, workers, slot_base=job["slot_base"], num_slots=job["num_slots"], session=job["session"])
    return model


def _answers(out: list[tuple[int, bytes]], workers: list[Host]) -> list[tuple[object, str]]:
    """(worker id or 'parent', UDP payload hex) of what left, checking each frame's addressing."""
    by_port = {h.port: (i, h) for i, h in enumerate(workers)}
    got: list[tuple[object, str]] = []
    for port, raw in out:
        pkt = Ether(raw)
        payload = bytes(pkt[UDP].payload)
        if port == PARENT.port:  # a leaf's DATA upstream: addressed as an answer to the parent
            assert raw == answer(PARENT, payload), "upstream frame not addressed as the spec says"
            got.append(("parent", payload.hex()))
            continue
        worker, h = by_port[port]
        assert raw == answer(h, payload), f"frame to worker {worker} not addressed as the spec says"
        got.append((worker, payload.hex()))
    return got


def test_golden_packets_dense_steps() -> None:
    job = GOLDEN["job"]
    workers = [host(1 + i) for i in range(job["num_workers"])]
    model = _golden_model(job, workers)
    steps = [s for s in GOLDEN["steps"] if "dense" in s["modes"] and "switch" in s.get("targets", ["switch"])]
    for step in steps:
        w = workers[step["from_worker"]]
        out = model.process(w.port, frame(w, bytes.fromhex(step["payload"])))
        expected = sorted((e["to_worker"], e["payload"]) for e in step["expect"])
        assert sorted(_answers(out, workers), key=str) == sorted(expected, key=str), step["note"]


def test_golden_scatter_steps() -> None:
    job = GOLDEN["job"]
    workers = [host(1 + i) for i in range(job["num_workers"])]
    model = _golden_model(job, workers)
    for step in GOLDEN["scatter"]["steps"]:
        w = workers[step["from_worker"]]
        out = model.process(w.port, frame(w, bytes.fromhex(step["payload"])))
        expected = sorted((e["to_worker"], e["payload"]) for e in step["expect"])
        assert sorted(_answers(out, workers), key=str) == sorted(expected, key=str), step["note"]
    assert (model.events()["result_multicast"], model.events()["result_unicast"]) == (5, 1)


def test_golden_hierarchy_steps() -> None:
    """The leaf role (uplink.p4): one DATA of the parent job per local round, byte for byte."""
    job, tree = GOLDEN["job"], GOLDEN["hierarchy"]
    workers = [host(1 + i) for i in range(job["num_workers"])]
    model = _golden_model(job, workers)
    model.add_entry(
        "uplinks",
        {"meta.job_id": job["job_id"]},
        "set_uplink",
        dict(
            up_job=tree["up_job"],
            up_rank=tree["up_rank"],
            up_session=tree["up_session"],
            port=PARENT.port,
            mac=PARENT.mac_int,
            ip=PARENT.ip_int,
            udp_port=AGG_UDP_PORT,
        ),
    )
    model.add_entry(
        "parents",
        {
            "ingress_port": PARENT.port,
            "ethernet.src_addr": PARENT.mac_int,
            "ipv4.src_addr": PARENT.ip_int,
            "udp.src_port": AGG_UDP_PORT,
            "agg.job_id": tree["up_job"],
            "agg.worker_id": tree["up_rank"],
        },
        "from_parent",
        dict(
            job_id=job["job_id"],
            num_workers=job["num_workers"],
            mgid=2,
            slot_base=job["slot_base"],
            num_slots=job["num_slots"],
            session=job["session"],
            up_session=tree["up_session"],
        ),
    )
    for step in tree["steps"]:
        payload = bytes.fromhex(step["payload"])
        if step.get("from_parent"):
            out = model.process(PARENT.port, frame(PARENT, payload))
        else:
            w = workers[step["from_worker"]]
            out = model.process(w.port, frame(w, payload))
        expected = [("parent" if e.get("to_parent") else e["to_worker"], e["payload"]) for e in step["expect"]]
        assert sorted(_answers(out, workers), key=str) == sorted(expected, key=str), step["note"]
    ev = model.events()
    assert (ev["upstream"], ev["from_parent"], ev["parent_dropped"], ev["result_unicast"]) == (3, 2, 1, 1)


# -- the STF parser -------------------------------------------------------------------------------


L2_ADD = (
    'add "P4ReduceIngress.forwarding.l2" "hdr.ethernet.dst_addr":0x020000000003 '
    '"P4ReduceIngress.forwarding.to_port"("port":0x003)'
)
P4TESTGEN_STYLE = f"""\
# p4testgen seed: 42
# Date generated: 2025-01-01-00:00:00.000
    # 3,1
# Current node coverage: 0.37
# Traces
# [Parser] P4ReduceParser: start
# Table P4ReduceIngress.forwarding.l2
{L2_ADD}
setdefault "P4ReduceEgress.result_dest" "P4ReduceEgress.drop"()
add "some.ternary" 7 "hdr.a":0b10**0*11 "hdr.b":0x10&&&0xF0 "x.act"("p":12,"q":0x0F)
add some.lpm hdr.ipv4.dst_addr:0x0A000000/8 act()

packet 1 00 01 02 03
expect 3 0001****04$
"""


def test_parse_p4testgen_style_file() -> None:
    t = parse_stf(P4TESTGEN_STYLE, "x.stf")
    assert (t.seed, t.coverage) == (42, 0.37)
    l2, ternary, lpm = t.entries
    assert l2.table == "P4ReduceIngress.forwarding.l2" and l2.priority is None
    assert l2.match == (("hdr.ethernet.dst_addr", KeyMatch(0x020000000003)),)
    assert (l2.action, l2.params) == ("P4ReduceIngress.forwarding.to_port", (("port", 3),))
    assert ternary.priority == 7
    assert dict(ternary.match) == {
        "hdr.a": KeyMatch(0b10000011, mask=0b11001011),
        "hdr.b": KeyMatch(0x10, mask=0xF0),
    }
    assert dict(ternary.match)["hdr.a"].kind == "ternary" and ternary.params == (("p", 12), ("q", 15))
    assert lpm.match == (("hdr.ipv4.dst_addr", KeyMatch(0x0A000000, prefix_len=8)),) and lpm.params == ()
    assert [(d.table, d.action, d.params) for d in t.defaults] == [
        ("P4ReduceEgress.result_dest", "P4ReduceEgress.drop", ())
    ]
    assert (t.packet.port, t.packet.data) == (1, bytes([0, 1, 2, 3]))
    e = t.expected
    assert e is not None and (e.port, e.pattern, e.exact_length) == (3, "0001****04", True)


def test_wildcards_and_length_in_expect() -> None:
    e = parse_stf("packet 0 00\nexpect 2 AB*D$\n").expected
    assert e is not None
    assert e.matches(bytes.fromhex("ABCD")) and e.matches(bytes.fromhex("AB0D"))
    assert not e.matches(bytes.fromhex("ABCE")) and not e.matches(bytes.fromhex("ABCD00"))
    prefix = parse_stf("packet 0 00\nexpect 2 ab*d\n").expected  # no $: longer frames match
    assert prefix is not None and prefix.matches(bytes.fromhex("ABCD00")) and not prefix.matches(b"\xab")


def test_no_expect_means_dropped_and_seed_none() -> None:
    t = parse_stf("# p4testgen seed: none\n# Current statement coverage: 1\npacket 4 FFFF\n")
    assert t.expected is None and t.seed is None and t.coverage == 1.0


def test_unknown_command_is_refused_naming_the_line() -> None:
    with pytest.raises(StfError, match=r"line 3: .*unknown STF command 'check_counter'"):
        parse_stf("packet 0 00\n\ncheck_counter c(0) == 1\n", "t.stf")
    with pytest.raises(StfError, match=r"line 1: .*bad add command"):
        parse_stf("add t k:0xZZ a()\n")
    with pytest.raises(StfError, match=r"line 1: .*bad expect"):
        parse_stf("expect 1 0G\n")


def test_bmv2_multicast_commands_build_groups() -> None:
    t = parse_stf(
        "mc_mgrp_create 2\nmc_node_create 0 1\nmc_node_create 1 2 3\nmc_node_associate 2 1\nmc_node_associate 2 0\n"
    )
    assert t.multicast_groups == ((2, ((2, 1), (3, 1), (1, 0))),)


def test_replay_names_the_differences() -> None:
    w1 = host(1)
    sent = _udp_frame(w1, host(3).mac, host(3).ip)
    stf = f"""\
add l2 dst_addr:{host(3).mac_int:#x} to_port(port:3)
packet 1 {sent.hex()}
expect 2 {sent.hex()}$
"""
    outcome = replay(parse_stf(stf, "wrong.stf"))
    assert not outcome.passed
    assert outcome.differences == (
        "port 2: expected 1 packet(s) (expect on line 3), got none: dropped",
        "port 3: expected no packet, got 1",
    )
    assert "out on port 3" in outcome.report()
    changed = bytearray(sent)
    changed[47] ^= 1
    diff = compare(parse_stf(f"expect 3 {bytes(changed).hex()}$").expects, [(3, sent)])
    assert diff == [
        "port 3, packet 0 (expect on line 1): byte 47 (payload) differs at nibble 95: expected 6C6C6F21, got 6C6C6F20"
    ]
    assert field_at(frame(w1, data(0, 0, 0, NONE)), 46) == "agg.worker_id"
    assert field_at(frame(w1, data(0, 0, 0, NONE)), 26) == "ipv4.src_addr"


def test_replay_refuses_what_the_program_cannot_hold() -> None:
    with pytest.raises(ReplayError, match=r"line 1: add: .*no table named 'nosuch'"):
        replay(parse_stf("add nosuch k:1 a()\npacket 0 00\n"))
    with pytest.raises(ReplayError, match=r"ternary"):
        replay(parse_stf("add l2 dst_addr:0x00&&&0xF0 drop()\n"))
    with pytest.raises(ReplayError, match=r"does not fit in 9 bits"):
        replay(parse_stf("add l2 dst_addr:1 to_port(port:512)\n"))
