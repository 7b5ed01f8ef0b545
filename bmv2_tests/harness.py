# SPDX-License-Identifier: Apache-2.0
"""simple_switch_grpc on veth pairs with the p4reduce pipeline, and raw frames to drive it.

BMv2 port i is the switch end `sw<i>-<tag>` of a veth pair; the test sends and
receives on the host end `h<i>-<tag>` through AF_PACKET sockets (both from
p4reduce.testbed.veth, which benchmarks share). The pipeline
is pushed and the entries installed with the project's controller library
(`p4reduce.controller.client.SwitchClient`), exactly as an operator would.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import time

import numpy as np
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4reduce.protocol import AGG_UDP_PORT, AggHeader, Flags, MsgType, decode_values, fingerprint
from p4reduce.testbed.bmv2 import AGG_IP, AGG_MAC, Pipeline
from p4reduce.testbed.veth import RawPorts, VethSwitch, Worker, job_config, veth_switch_missing

ROOT = pathlib.Path(__file__).resolve().parents[1]
P4SRC = ROOT / "p4src"
# The session tests install their jobs with (unless they say otherwise), and the
# tensor their hand-made packets belong to: BLOCKS blocks of 32 int32 values.
SESSION = 0x5E551015
BLOCKS = 10000


def compiler_missing() -> str | None:
    """Why p4src cannot be compiled here, or None."""
    if shutil.which("p4c-bm2-ss") is None:
        return "p4c-bm2-ss (p4c) is not on PATH"
    return None


def missing_requirements(need_switch: bool = True) -> str | None:
    """Why the BMv2 tests cannot run here, or None: a module that runs a switch needs BMv2
    and root (it runs the committed p4src/build when p4c is absent); one that only
    compiles needs p4c."""
    return veth_switch_missing() if need_switch else compiler_missing()


def committed_pipeline() -> Pipeline:
    """p4src/build as committed (what the package ships): what the switch tests run when
    p4c is absent; test_build.py checks that it is current wherever p4c is present."""
    return Pipeline(P4SRC / "build" / "p4reduce.p4info.txtpb", P4SRC / "build" / "p4reduce.json")


def compile_pipeline(work: pathlib.Path) -> Pipeline:
    """`make` on a copy of p4src/ (sources, Makefile and the makefiles it includes) in `work`."""
    work.mkdir(parents=True, exist_ok=True)
    for f in [*P4SRC.glob("*.p4"), *P4SRC.glob("*.mk"), P4SRC / "Makefile"]:
        shutil.copy(f, work)
    proc = subprocess.run(["make", "-C", str(work)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"make -C p4src failed:\n{proc.stdout}\n{proc.stderr}")
    return Pipeline(work / "build" / "p4reduce.p4info.txtpb", work / "build" / "p4reduce.json")


def job_dict(
    job_id: int,
    workers: list[Worker],
    slot_base: int = 0,
    num_slots: int = 32,
    mgid: int | None = None,
    session: int | None = SESSION,
) -> dict:
    """A job of the controller's configuration format (`session` None: the controller draws one)."""
    return job_config(job_id, workers, slot_base, num_slots, mgid, session)


class Bmv2Switch(VethSwitch):
    """simple_switch_grpc on veth pairs (p4reduce.testbed.veth), logging into the test's
    directory: BMv2 port i is `sw<i>-<tag>`, the test's end `h<i>-<tag>`."""

    def start(self, log_dir: pathlib.Path, pipeline: Pipeline) -> Bmv2Switch:  # type: ignore[override]
        super().start(pipeline, log_dir)
        return self


# AF_PACKET sockets on the host ends: send frames, collect what the switch sends.
Tap = RawPorts


# -- frames --------------------------------------------------------------------------


def frame(w: Worker, payload: bytes, *, src_mac: str | None = None, ip_checksum: int | None = None) -> bytes:
    """A worker's datagram to the aggregator (checksums filled in by scapy)."""
    ip = IP(src=w.ip, dst=AGG_IP) if ip_checksum is None else IP(src=w.ip, dst=AGG_IP, chksum=ip_checksum)
    return bytes(
        Ether(src=src_mac or w.mac, dst=AGG_MAC) / ip / UDP(sport=w.udp_port, dport=AGG_UDP_PORT) / Raw(payload)
    )


def results(got: list[tuple[str, bytes]], workers: list[Worker]) -> list[tuple[Worker, bytes]]:
    """(receiving worker, UDP payload) of every answer (RESULT or JOINED) in `got`.

    Asserts each copy is addressed to the worker it reached: MAC, IP and UDP
    port of the worker (several workers may share a switch port), source = the
    aggregator address, lengths matching the payload, UDP checksum 0 and a
    correct IPv4 header checksum.
    """
    by_addr = {(w.host_if, w.udp_port): w for w in workers}
    out = []
    for iface, raw in got:
        pkt = Ether(raw)
        if UDP not in pkt or pkt[UDP].sport != AGG_UDP_PORT:
            continue
        w = by_addr.get((iface, pkt[UDP].dport))
        assert w is not None, f"RESULT on {iface} for UDP port {pkt[UDP].dport}: no such worker"
        assert (pkt[Ether].dst, pkt[Ether].src) == (w.mac, AGG_MAC)
        assert (pkt[IP].dst, pkt[IP].src) == (w.ip, AGG_IP)
        assert pkt[UDP].chksum == 0
        payload = bytes(pkt[UDP].payload)
        assert pkt[IP].len == 20 + 8 + len(payload) and pkt[UDP].len == 8 + len(payload)
        recomputed = IP(bytes(pkt[IP]))
        del recomputed.chksum
        assert IP(bytes(recomputed)).chksum == pkt[IP].chksum, "IPv4 checksum not updated"
        out.append((w, payload))
    return out


def tensor_fingerprint(epoch: int = 0, blocks: int = BLOCKS) -> int:
    """Fingerprint of allreduce `epoch` of an int32 tensor of `blocks` blocks (32 slots, 32 workers)."""
    return fingerprint(epoch, 32 * blocks, np.dtype(np.int32), 32, 32, 32)


def data(
    w: Worker,
    shadow: int,
    block: int,
    nxt: int,
    values=None,
    *,
    slot: int = 0,
    job: int = 1,
    worker_id: int | None = None,
    count: int | None = None,
    exp: int = 127,
    next_exp: int = 127,
    epoch: int = 0,
    session: int = SESSION,
    blocks: int = BLOCKS,
    fp: int | None = None,
    flags: int = 0,
) -> bytes:
    """UDP payload of a DATA packet of a data round (header only when `values` is None)
    of the job's session, for allreduce `epoch` of a tensor of `blocks` blocks (`fp`
    defaults to its fingerprint)."""
    if count is None:
        count = 0 if values is None else len(values)
    h = AggHeader(
        MsgType.DATA,
        job,
        w.worker_id if worker_id is None else worker_id,
        slot,
        shadow,
        epoch,
        block,
        nxt,
        exp,
        next_exp,
        count,
        flags,
        session=session,
        blocks=blocks,
        fingerprint=tensor_fingerprint(epoch, blocks) if fp is None else fp,
    )
    if values is None:
        return h.pack()
    return h.pack() + np.asarray(values, ">i4").tobytes()


def opening(w: Worker, shadow: int, block: int, nxt: int, values=None, *, flags: int = 0, **kw) -> bytes:
    """UDP payload of an opening DATA (docs/protocol.md section 3): `block` is the worker's
    own first block, with its `values` at its own `exp`, or NONE (header-only) when it
    holds nothing; `nxt` its next block after that. Other arguments as for `data`."""
    return data(w, shadow, block, nxt, values, flags=flags | Flags.OPENING, **kw)


def join(
    w: Worker,
    incarnation: int,
    *,
    job: int = 1,
    slot: int = 0,
    block_size: int = 32,
    num_slots: int = 32,
    num_workers: int = 0,
    worker_id: int | None = None,
    message_size: int = 0,
) -> bytes:
    """UDP payload of a JOIN, laid out as a host agent sends it (docs/protocol.md 6.1;
    `message_size`: the largest datagram payload it accepts, 0 = one packet each)."""
    return AggHeader(
        MsgType.JOIN,
        job,
        w.worker_id if worker_id is None else worker_id,
        slot,
        0,
        incarnation,
        block_size,
        num_slots,
        1,
        num_workers,
        blocks=message_size,
    ).pack()


def wait_for_counters(switch: Bmv2Switch, timeout: float = 10.0, **expected: int) -> dict[str, int]:
    """Poll the events counter until every named cell has reached its value.

    Packets sent on different ports may reach BMv2's ingress in either order;
    a test that needs one packet processed before the next one waits here.
    """
    deadline = time.monotonic() + timeout
    while True:
        c = switch.counters()
        if all(c[name] >= value for name, value in expected.items()):
            return c
        if time.monotonic() > deadline:
            raise AssertionError(f"counters {c} did not reach {expected} within {timeout} s")
        time.sleep(0.005)


def assert_sums(got: list[tuple[Worker, bytes]], copies: int, expected, flags: int = 0) -> None:
    """`copies` RESULTs, each with `flags` and the 32 values `expected`."""
    assert len(got) == copies, got
    for _, payload in got:
        assert AggHeader.unpack(payload).flags == flags
        np.testing.assert_array_equal(decode_values(payload, 32), expected)


def send_counted(switch: Bmv2Switch, tap: Tap, worker: Worker, packet: bytes, tries: int = 3) -> None:
    """Send a DATA and wait until the switch counted it; sent again (as a worker would on
    timeout) if BMv2 dropped the frame, which a loaded machine makes it do now and then."""
    counted = switch.counters()["data_counted"]
    for attempt in range(tries):
        tap.send(worker.host_if, frame(worker, packet))
        try:
            wait_for_counters(switch, timeout=2.0 if attempt < tries - 1 else 10.0, data_counted=counted + 1)
            return
        except AssertionError:
            if attempt == tries - 1:
                raise
