# SPDX-License-Identifier: Apache-2.0
"""The switch model (p4reduce.testbed.switch_model) against BMv2 running the program.

The same control-plane state goes into both, the same frames go through both, one at a
time; what leaves (every frame on every port, byte for byte, and the CPU port's
PacketIns), the events counter and the register cells the model touched must be the
same. The cases: the p4testgen-shaped STF files of tests/data/stf, and a few packet
sequences (a stream of three rounds with retransmissions, a MISMATCH round, bytes behind
the UDP datagram, a malformed JOIN from an unknown address, L2 flood and hairpin).
"""

from __future__ import annotations

import pathlib
import time
from collections.abc import Iterable, Mapping

import numpy as np
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from bmv2_tests.harness import Bmv2Switch, Tap, Worker, data, frame, join, opening
from p4reduce.controller.bmv2 import Bmv2Thrift
from p4reduce.controller.pipeline import LabeledEntity, table_entry
from p4reduce.protocol import NONE
from p4reduce.testbed.stf import StfTest, load_stf
from p4reduce.testbed.stf_replay import compare
from p4reduce.testbed.switch_model import CPU_PORT, REGISTER_SIZE, REGISTERS, SwitchModel

STF_DIR = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "stf"
# what p4testgen generated for the program (make -C p4src testgen; tests/test_p4testgen_replay.py)
P4TESTGEN_DIR = STF_DIR.parent / "p4testgen" / "v1model"
JOB_SESSION = 0x5E551015


class Twin:
    """The model and a BMv2 switch, given the same entries and the same frames."""

    def __init__(self, switch: Bmv2Switch, tap: Tap) -> None:
        self.switch, self.tap = switch, tap
        self.packet_ins: list[tuple[int, bytes]] = []
        switch.client.on_packet_in = lambda port, raw: self.packet_ins.append((port, raw))
        self.port_of = {switch.host_if(i): i for i in range(1, switch.num_ports + 1)}
        self._start()

    def _start(self) -> None:
        """A fresh model; BMv2's counters from here on (it has no way to zero them)."""
        self.model = SwitchModel()
        self.entries: list[LabeledEntity] = []
        self.start_counters = self.switch.counters()

    # -- control plane, into both ---------------------------------------------------------

    def add_entry(self, table: str, match: Mapping[str, int], action: str, params: Mapping[str, int]) -> None:
        self.model.add_entry(table, match, action, params)
        entity = table_entry(self.switch.client.p4info, table, match, action, params)
        self.entries.append(LabeledEntity(f"{table} entry", entity))
        self.switch.client.write([self.entries[-1]], update="insert")

    def add_group(self, mgid: int, replicas: Iterable[tuple[int, int]]) -> None:
        replicas = list(replicas)
        self.model.add_multicast_group(mgid, replicas)
        self.switch.client.write_multicast_group(mgid, replicas)

    def add_worker(self, w: Worker, num_workers: int, *, num_slots: int = 4, mgid: int = 2) -> None:
        """What the controller installs for a worker: its entry and its result destination."""
        mac, ip = int(w.mac.replace(":", ""), 16), int.from_bytes(bytes(int(b) for b in w.ip.split(".")), "big")
        params = dict(job_id=1, worker_id=w.worker_id, num_workers=num_workers, mgid=mgid, slot_base=0)
        self.add_entry(
            "P4ReduceIngress.admission.workers",
            {
                "standard_metadata.ingress_port": w.port,
                "hdr.ethernet.src_addr": mac,
                "hdr.ipv4.src_addr": ip,
                "hdr.udp.src_port": w.udp_port,
            },
            "P4ReduceIngress.admission.set_worker",
            params | {"num_slots": num_slots, "session": JOB_SESSION},
        )
        self.add_entry(
            "P4ReduceEgress.result_dest",
            {"hdr.agg.job_id": 1, "meta.dest_worker": w.worker_id},
            "P4ReduceEgress.set_result_dest",
            {"mac": mac, "ip": ip, "udp_port": w.udp_port},
        )

    # -- one frame through both -----------------------------------------------------------------

    def send(self, port: int, raw: bytes) -> list[tuple[int, bytes]]:
        """`raw` into port `port` of both; asserts both send the same; returns what left.
        A frame BMv2 sends beyond the model's is caught by the next send or by `finish`."""
        counted = sum(self.model.events().values())
        expected = self.model.process(port, raw)
        to_cpu = sorted((int.from_bytes(f[:2], "big") >> 7, f[2:]) for p, f in expected if p == CPU_PORT)
        to_ports = sorted((p, f) for p, f in expected if p != CPU_PORT)
        before = len(self.packet_ins)
        self.tap.send(self.switch.host_if(port), raw)
        self._wait_for_counters()
        if to_ports:
            got = self.tap.collect(timeout=10.0, expect=len(to_ports))
        else:  # nothing to wait for: once counted, it is through ingress; else give it time
            got = self.tap.collect(timeout=0.05 if sum(self.model.events().values()) > counted else 0.3)
        deadline = time.monotonic() + 10
        while len(self.packet_ins) - before < len(to_cpu) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted((self.port_of[i], f) for i, f in got) == to_ports, f"BMv2 and the model differ for {raw.hex()}"
        assert sorted(self.packet_ins[before:]) == to_cpu
        return expected

    def finish(self) -> None:
        """Nothing else came out of BMv2."""
        assert self.tap.collect(timeout=0.3) == []

    def _wait_for_counters(self) -> None:
        """Until BMv2's events counter has moved as the model's did (the frame was processed)."""
        want = {k: v + self.start_counters.get(k, 0) for k, v in self.model.events().items()}
        deadline = time.monotonic() + 10
        while True:
            got = self.switch.counters()
            if all(got.get(k, 0) >= v for k, v in want.items()) or time.monotonic() > deadline:
                break
            time.sleep(0.005)
        assert {k: got.get(k, 0) - self.start_counters.get(k, 0) for k in want} == self.model.events()

    # -- state ------------------------------------------------------------------------------------

    def assert_same_registers(self) -> None:
        """Every register cell the model holds non-zero, and cell 0 of each, as BMv2 has it."""
        cells = {0} | {i for cells in self.model.registers.values() for i, v in enumerate(cells) if v}
        with Bmv2Thrift("127.0.0.1", self.switch.thrift_port) as thrift:
            for name in REGISTERS:
                got = {i: thrift.register_read(name, i) for i in sorted(cells)}
                assert got == {i: self.model.registers[name][i] for i in sorted(cells)}, name

    def clear(self) -> None:
        """Back to an empty switch: entries deleted, groups deleted, registers zeroed."""
        self.finish()
        self.switch.client.write(self.entries, update="delete")
        self.switch.client.clear_multicast_groups()
        with Bmv2Thrift("127.0.0.1", self.switch.thrift_port) as thrift:
            for name in REGISTERS:
                thrift.register_write_range(name, 0, REGISTER_SIZE, 0)
        self._start()


def _run_on_twin(twin: Twin, test: StfTest) -> list[tuple[int, bytes]]:
    """An STF test's entries and multicast groups into both switches, then its packets:
    what left (Twin.send checks that BMv2 and the model sent the same)."""
    for e in test.entries:
        twin.add_entry(e.table, {k: m.value for k, m in e.match}, e.action, dict(e.params))
    for mgid, replicas in test.multicast_groups:
        twin.add_group(mgid, replicas)
    return [out for p in test.packets for out in twin.send(p.port, p.data)]


def test_stf_cases_on_bmv2_as_in_the_model(switch, tap):
    twin = Twin(switch, tap)
    names = sorted(p.name for p in STF_DIR.glob("*.stf"))
    assert len(names) >= 6
    for name in names:
        test = load_stf(STF_DIR / name)
        outputs = _run_on_twin(twin, test)
        assert all(e.matches(f) for e in test.expects for port, f in outputs if port == e.port), name
        twin.assert_same_registers()
        twin.clear()


def test_p4testgen_tests_on_bmv2_as_in_the_model_and_as_generated(switch, tap):
    """Every test p4testgen generated for the program: BMv2 sends what the model sends
    (Twin.send), which is what p4testgen says leaves, and holds the same registers."""
    twin = Twin(switch, tap)
    paths = sorted(P4TESTGEN_DIR.glob("*.stf"))
    assert len(paths) >= 5
    for path in paths:
        test = load_stf(path)
        outputs = _run_on_twin(twin, test)
        assert compare(test.expects, outputs) == [], path.name
        twin.assert_same_registers()
        twin.clear()


def test_packet_sequences_on_bmv2_as_in_the_model(switch, tap):
    twin = Twin(switch, tap)
    w = [
        Worker(i, 1 + i, f"02:00:00:00:00:{1 + i:02x}", f"10.0.0.{1 + i}", 40001 + i, switch.host_if(1 + i))
        for i in (0, 1)
    ]
    for worker in w:
        twin.add_worker(worker, num_workers=2)
    twin.add_group(2, [(worker.port, worker.worker_id) for worker in w])

    def send(worker: Worker, payload: bytes, tail: bytes = b"") -> list[tuple[int, bytes]]:
        return twin.send(worker.port, frame(worker, payload) + tail)

    rng = np.random.default_rng(11)
    a0, b0, b2, a4 = (rng.integers(-(2**30), 2**30, 32) for _ in range(4))
    # Stream 0: the opening round (a retransmission into it while open), a data round
    # completed by a header-only packet, a re-send of its result, a stale retransmission.
    assert send(w[0], opening(w[0], 0, 0, 4, a0)) == []
    assert send(w[0], opening(w[0], 0, 0, 4, a0)) == []
    assert len(send(w[1], opening(w[1], 0, 0, 2, b0))) == 2
    assert send(w[1], data(w[1], 1, 2, NONE, b2)) == []
    assert len(send(w[0], data(w[0], 1, 2, 4))) == 2
    assert len(send(w[1], data(w[1], 1, 2, NONE, b2))) == 1
    assert send(w[1], data(w[1], 1, 2, NONE, b2, fp=1)) == []
    # Block 4's round: bytes behind the UDP datagram pass and come back after the values.
    assert send(w[0], data(w[0], 0, 4, NONE, a4), tail=b"TAIL") == []
    out = send(w[1], data(w[1], 0, 4, NONE), tail=b"\0\0\0\0")
    assert [f[-4:] for _, f in out] == [b"\0\0\0\0"] * 2
    # Slot 1: a MISMATCH round (another allreduce's fingerprint); a JOIN answered.
    send(w[0], opening(w[0], 0, 1, NONE, a0, slot=1, fp=7))
    assert len(send(w[1], opening(w[1], 0, 1, NONE, b0, slot=1, fp=8))) == 2
    assert len(send(w[1], join(w[1], 0xABC))) == 1
    ev = twin.model.events()
    assert (ev["result_multicast"], ev["result_unicast"], ev["retransmit_dropped"], ev["stale"]) == (4, 1, 1, 1)
    twin.assert_same_registers()
    twin.finish()


def test_ordinary_frames_and_unknown_joins_on_bmv2_as_in_the_model(switch, tap):
    twin = Twin(switch, tap)
    w = [
        Worker(i, 1 + i, f"02:00:00:00:00:{1 + i:02x}", f"10.0.0.{1 + i}", 40001 + i, switch.host_if(1 + i))
        for i in (0, 1, 2)
    ]
    twin.add_entry(
        "P4ReduceIngress.forwarding.l2",
        {"hdr.ethernet.dst_addr": 0xFFFFFFFFFFFF},
        "P4ReduceIngress.forwarding.flood",
        {"mgid": 100},
    )
    twin.add_entry(
        "P4ReduceIngress.forwarding.l2",
        {"hdr.ethernet.dst_addr": 0x020000000001},
        "P4ReduceIngress.forwarding.to_port",
        {"port": 1},
    )
    twin.add_group(100, [(1, 0), (2, 0), (3, 0)])
    broadcast = bytes(
        Ether(src=w[1].mac, dst="ff:ff:ff:ff:ff:ff")
        / IP(src=w[1].ip, dst="10.0.0.255")
        / UDP(sport=1, dport=2)
        / Raw(b"x" * 20)
    )
    assert [p for p, _ in twin.send(2, broadcast)] == [1, 3]
    hairpin = bytes(
        Ether(src=w[0].mac, dst=w[0].mac) / IP(src=w[0].ip, dst=w[0].ip) / UDP(sport=1, dport=2) / Raw(b"y" * 20)
    )
    assert twin.send(1, hairpin) == []  # counted as forwarded, dropped in egress
    # An unknown worker's JOIN goes to the controller even when it is malformed.
    assert [p for p, _ in twin.send(3, frame(w[2], b"\x02" + join(w[2], 5)[1:]))] == [CPU_PORT]
    assert twin.model.events()["forwarded"] == 2
    twin.finish()


FUZZ_PACKETS = 120


def _fuzzed(rng: np.random.Generator, w: list[Worker], stranger: Worker) -> tuple[int, bytes]:
    """A worker's packet (DATA of either kind, JOIN), as sent or with one or two fields spoiled."""
    sender = w[int(rng.integers(2))] if rng.random() < 0.85 else stranger
    worker_id = sender.worker_id if sender is not stranger else 0
    kind = rng.choice(["opening", "data", "header", "join"])
    vals = rng.integers(-(2**31), 2**31, 32)
    slot, shadow = int(rng.choice([0, 0, 1, 1, 2])), int(rng.integers(2))  # the job has slots 0 and 1
    block, nxt = int(rng.integers(4)), int(rng.choice([NONE, 4, 6]))
    if kind == "join":
        payload = bytearray(join(sender, int(rng.integers(2**32)), worker_id=worker_id))
    else:
        build = opening if kind == "opening" else data
        payload = bytearray(
            build(sender, shadow, block, nxt, None if kind == "header" else vals, slot=slot, worker_id=worker_id)
        )
    udp_len: int | None = None
    ip_checksum: int | None = None
    tail = b""
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        spoil = rng.choice(
            ["none", "byte", "flags", "count", "udp_len", "checksum", "tail", "cut", "blocks", "session"]
        )
        if spoil == "byte":  # any header byte
            payload[int(rng.integers(36))] = int(rng.integers(256))
        elif spoil == "flags":
            payload[5] = int(rng.choice([0, 1, 4, 5, 4 | 1 << 3, 2, 0xFF]))
        elif spoil == "count":
            payload[22:24] = int(rng.choice([0, 32, 5])).to_bytes(2, "big")
        elif spoil == "udp_len":
            udp_len = 8 + len(payload) + int(rng.choice([-4, 4, 128]))
        elif spoil == "checksum":
            ip_checksum = int(rng.integers(2**16))
        elif spoil == "tail":
            tail = bytes(int(rng.integers(1, 9)))
        elif spoil == "cut":
            del payload[int(rng.integers(10, len(payload))) :]
        elif spoil == "blocks":
            payload[28:32] = int(rng.choice([0, 1, 3])).to_bytes(4, "big")
        elif spoil == "session":
            payload[24:28] = bytes(4)
    udp = (
        UDP(sport=sender.udp_port, dport=0xBEE0)
        if udp_len is None
        else UDP(sport=sender.udp_port, dport=0xBEE0, len=udp_len)
    )
    ip = (
        IP(src=sender.ip, dst="10.0.0.254")
        if ip_checksum is None
        else IP(src=sender.ip, dst="10.0.0.254", chksum=ip_checksum)
    )
    return sender.port, bytes(Ether(src=sender.mac, dst="02:00:00:00:00:fe") / ip / udp / Raw(bytes(payload))) + tail


def test_fuzzed_packets_on_bmv2_as_in_the_model(switch, tap):
    """Spoiled and well-formed aggregation packets, one at a time, seeded: what leaves, the
    counters and the registers stay the same on both, whatever path a packet takes."""
    twin = Twin(switch, tap)
    w = [
        Worker(i, 1 + i, f"02:00:00:00:00:{1 + i:02x}", f"10.0.0.{1 + i}", 40001 + i, switch.host_if(1 + i))
        for i in (0, 1)
    ]
    for worker in w:
        twin.add_worker(worker, num_workers=2, num_slots=2)
    twin.add_group(2, [(worker.port, worker.worker_id) for worker in w])
    stranger = Worker(0, 3, "02:00:00:00:00:03", "10.0.0.3", 40003, switch.host_if(3))
    rng = np.random.default_rng(2024)
    for _ in range(FUZZ_PACKETS):
        twin.send(*_fuzzed(rng, w, stranger))
    twin.assert_same_registers()
    twin.finish()
    ev = twin.model.events()
    assert ev["malformed"] > 0 and ev["data_counted"] > 0  # the mix reached both kinds of path
