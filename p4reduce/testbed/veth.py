# SPDX-License-Identifier: Apache-2.0
"""simple_switch_grpc on veth pairs, and raw AF_PACKET sockets on the other ends.

BMv2 port i is the switch end `sw<i>-<tag>` of a veth pair; a test or benchmark
sends and receives whole frames on the host end `h<i>-<tag>`. Shared by the BMv2
tests and benchmarks/bmv2_rates.py (which must not import test modules).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import select
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from p4reduce.controller.client import SwitchClient
from p4reduce.controller.config import Config, load_config
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.testbed.bmv2 import AGG_IP, AGG_MAC, Bmv2Process, Pipeline, simple_switch_missing

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # sll_pkttype of frames this host sent
# setsockopt(SOL_PACKET, ...) (linux/if_packet.h); Python's socket module has no names for them.
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23  # Linux >= 4.20: do not deliver our own transmissions back


def veth_switch_missing() -> str | None:
    """Why a BMv2 switch on veth pairs cannot run here, or None."""
    reason = simple_switch_missing()
    if reason is not None:
        return reason
    if os.geteuid() != 0:
        return "veth interfaces and raw sockets need root"
    if shutil.which("ip") is None:
        return "iproute2 (`ip`) is not on PATH"
    return None


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


@dataclass
class VethSwitch:
    """simple_switch_grpc whose port i is the switch end of the veth pair `sw<i>-<tag>`."""

    num_ports: int
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:5])
    process: Bmv2Process | None = None
    _links: list[str] = field(default_factory=list)

    def host_if(self, port: int) -> str:
        return f"h{port}-{self.tag}"

    @property
    def client(self) -> SwitchClient:
        assert self.process is not None and self.process.client is not None, "switch not started"
        return self.process.client

    @property
    def thrift_port(self) -> int:
        assert self.process is not None
        return self.process.thrift_port

    def start(self, pipeline: Pipeline, log_dir: pathlib.Path | None = None) -> VethSwitch:
        """Create the veths, start the switch, push `pipeline`; clean up if any step fails.
        `log_dir`: where BMv2 writes its log (none without it)."""
        try:
            self._start(pipeline, log_dir)
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self, pipeline: Pipeline, log_dir: pathlib.Path | None) -> None:
        for i in range(1, self.num_ports + 1):
            sw, host = f"sw{i}-{self.tag}", self.host_if(i)
            _run("ip", "link", "add", sw, "type", "veth", "peer", "name", host)
            self._links.append(sw)
            for dev in (sw, host):
                # No router solicitations or other IPv6 chatter in the captures.
                _run("sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
                _run("ip", "link", "set", dev, "up")
        log_file = None if log_dir is None else log_dir / f"bmv2-{self.tag}.log"
        self.process = Bmv2Process({i: f"sw{i}-{self.tag}" for i in range(1, self.num_ports + 1)}, log_file=log_file)
        self.process.start(pipeline)

    def install(self, config: dict[str, Any]) -> Config:
        """Install a controller configuration (its `switch` section is filled in)."""
        assert self.process is not None
        config.setdefault("switch", {}).update(self.process.switch_config())
        cfg = load_config(config)
        self.client.install(cfg)
        return cfg

    def counters(self) -> dict[str, int]:
        return self.client.read_counters()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None
        for sw in self._links:  # deleting one end deletes the pair
            subprocess.run(["ip", "link", "del", sw], capture_output=True)
        self._links.clear()


@dataclass(frozen=True)
class Worker:
    """A worker behind a switch port: the addresses its worker entry names."""

    worker_id: int
    port: int  # switch port
    mac: str
    ip: str
    udp_port: int
    host_if: str  # host end of the veth pair of `port`


def make_workers(switch: VethSwitch, n: int, first_port: int = 1) -> list[Worker]:
    """Workers 0..n-1, one per switch port starting at `first_port`: on port p the MAC
    02:00:00:00:00:<p>, IP 10.0.0.<p> and UDP port 40000 + p."""
    return [
        Worker(
            i,
            first_port + i,
            f"02:00:00:00:00:{first_port + i:02x}",
            f"10.0.0.{first_port + i}",
            40000 + first_port + i,
            switch.host_if(first_port + i),
        )
        for i in range(n)
    ]


def job_config(
    job_id: int,
    workers: list[Worker],
    slot_base: int = 0,
    num_slots: int = 32,
    mgid: int | None = None,
    session: int | None = None,
) -> dict[str, Any]:
    """A dense job of the controller's configuration format (`session` None: the controller draws one)."""
    job: dict[str, Any] = {
        "job_id": job_id,
        "mode": "dense",
        "slot_base": slot_base,
        "num_slots": num_slots,
        "mgid": mgid or job_id + 1,
        "workers": [
            {"worker_id": w.worker_id, "port": w.port, "mac": w.mac, "ip": w.ip, "udp_port": w.udp_port}
            for w in workers
        ],
    }
    if session is not None:
        job["session"] = session
    return job


@contextlib.contextmanager
def worker_namespaces(workers: list[Worker], prefix: str) -> Iterator[list[str]]:
    """Each worker's host interface in a network namespace of its own (`<prefix>-<6 hex>`),
    with its MAC, its IP and a static ARP entry for the aggregation address (the switch
    answers for it, no host does); the namespaces are deleted afterwards."""
    namespaces: list[str] = []
    try:
        for w in workers:
            ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
            namespaces.append(ns)
            for cmd in worker_namespace_commands(w, ns):
                subprocess.run(cmd, check=True, capture_output=True)
        yield namespaces
    finally:
        for ns in namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def worker_namespace_commands(w: Worker, ns: str) -> list[list[str]]:
    """The `ip` commands that put `w`'s host interface into namespace `ns`, configured."""
    return [
        ["ip", "netns", "add", ns],
        ["ip", "link", "set", w.host_if, "netns", ns],
        ["ip", "-n", ns, "link", "set", w.host_if, "address", w.mac],
        ["ip", "-n", ns, "addr", "add", f"{w.ip}/24", "dev", w.host_if],
        ["ip", "-n", ns, "link", "set", w.host_if, "up"],
        ["ip", "-n", ns, "link", "set", "lo", "up"],
        ["ip", "-n", ns, "neigh", "add", AGG_IP, "lladdr", AGG_MAC, "dev", w.host_if],
    ]


def worker_command(w: Worker, ns: str, num_workers: int, *args: str, job_id: int = 1, num_slots: int = 8) -> list[str]:
    """`p4reduce worker` for `w` in namespace `ns` through the switch: dense mode, B = 32,
    `num_slots` slots from 0 of job `job_id` (a later option in `args` wins)."""
    return [
        *("ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "worker"),
        *("--aggregator", f"{AGG_IP}:{AGG_UDP_PORT}", "--bind", f"{w.ip}:{w.udp_port}"),
        *("--job", str(job_id), "--rank", str(w.worker_id), "--workers", str(num_workers)),
        *("--mode", "dense", "--block-size", "32", "--slots", str(num_slots)),
        *args,
    ]


class RawPorts:
    """AF_PACKET sockets on host-side interfaces: send frames, collect what the switch sends.

    Frames this host sends are not delivered back (PACKET_IGNORE_OUTGOING where the
    kernel has it, else filtered by packet type in `collect`).
    """

    def __init__(self, ifaces: list[str], rcvbuf: int = 1 << 21) -> None:
        self.socks: dict[str, socket.socket] = {}
        self._own_filtered = True
        try:
            for name in ifaces:
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
                self.socks[name] = s
                s.bind((name, 0))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
                try:
                    s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
                except OSError:
                    self._own_filtered = False
                s.setblocking(False)
        except BaseException:
            self.close()
            raise

    def send(self, iface: str, frame: bytes) -> None:
        self.socks[iface].send(frame)

    def drain(self, iface: str) -> list[bytes]:
        """Every frame waiting on `iface` now (never blocks)."""
        s, got = self.socks[iface], list[bytes]()
        while True:
            try:
                frame, addr = s.recvfrom(65535)
            except BlockingIOError:
                return got
            if self._own_filtered or addr[2] != PACKET_OUTGOING:
                got.append(frame)

    def collect(self, timeout: float = 0.5, expect: int | None = None) -> list[tuple[str, bytes]]:
        """(interface, frame) received within `timeout`; returns early once `expect` came."""
        got: list[tuple[str, bytes]] = []
        deadline = time.monotonic() + timeout
        by_fd = {s.fileno(): name for name, s in self.socks.items()}
        while time.monotonic() < deadline and (expect is None or len(got) < expect):
            ready, _, _ = select.select(list(self.socks.values()), [], [], max(0.0, deadline - time.monotonic()))
            for s in ready:
                name = by_fd[s.fileno()]
                got.extend((name, f) for f in self.drain(name))
        return got

    def close(self) -> None:
        for s in self.socks.values():
            s.close()
