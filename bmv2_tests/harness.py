"""Runs simple_switch_grpc on veth pairs with the p4reduce pipeline installed."""
from __future__ import annotations

import os
import pathlib
import select
import shutil
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field

from controller.client import SwitchClient
from controller.config import Config, load_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "p4src" / "build"
AGG_MAC = "02:00:00:00:00:fe"
AGG_IP = "10.0.0.254"
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def missing_requirements() -> str | None:
    if shutil.which("simple_switch_grpc") is None:
        return "simple_switch_grpc (BMv2 with P4Runtime) is not installed"
    if os.geteuid() != 0:
        return "BMv2 tests create veth interfaces and need root"
    if not (BUILD / "p4reduce.json").exists():
        return "p4src/build/p4reduce.json is missing (run make -C p4src)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


@dataclass
class Worker:
    worker_id: int
    port: int  # switch port
    mac: str
    ip: str
    udp_port: int
    host_if: str  # the host side of the veth pair


def job_dict(job_id: int, workers: list[Worker], slot_base: int = 0, num_slots: int = 32,
             mgid: int | None = None) -> dict:
    return {"job_id": job_id, "slot_base": slot_base, "num_slots": num_slots,
            "mgid": mgid or job_id + 1,
            "workers": [{"worker_id": w.worker_id, "port": w.port, "mac": w.mac, "ip": w.ip,
                         "udp_port": w.udp_port} for w in workers]}


@dataclass
class Bmv2Switch:
    """`num_ports` veth pairs: switch side sw<i>-<tag> is BMv2 port i, host side h<i>-<tag>."""

    num_ports: int
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:5])
    proc: subprocess.Popen | None = None
    client: SwitchClient | None = None
    grpc_port: int = 0
    thrift_port: int = 0
    log_path: pathlib.Path | None = None

    def host_if(self, port: int) -> str:
        return f"h{port}-{self.tag}"

    def start(self, log_dir: pathlib.Path) -> Bmv2Switch:
        for i in range(1, self.num_ports + 1):
            sw, host = f"sw{i}-{self.tag}", self.host_if(i)
            _run("ip", "link", "add", sw, "type", "veth", "peer", "name", host)
            for dev in (sw, host):
                _run("sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
                _run("ip", "link", "set", dev, "up")
        self.grpc_port, self.thrift_port = _free_port(), _free_port()
        self.log_path = log_dir / f"bmv2-{self.tag}.log"
        args = ["simple_switch_grpc", "--device-id", "0", "--thrift-port", str(self.thrift_port),
                "--log-file", str(log_dir / f"bmv2-{self.tag}"), "--log-flush"]
        for i in range(1, self.num_ports + 1):
            args += ["-i", f"{i}@sw{i}-{self.tag}"]
        args += ["--no-p4", "--", "--grpc-server-addr", f"127.0.0.1:{self.grpc_port}"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = SwitchClient.connect(f"127.0.0.1:{self.grpc_port}", timeout=20)
        self.client.push_pipeline(BUILD / "p4reduce.p4info.txtpb", BUILD / "p4reduce.json")
        return self

    def install(self, config: dict) -> Config:
        config.setdefault("switch", {})["thrift_port"] = self.thrift_port
        cfg = load_config(config)
        assert self.client is not None
        self.client.install(cfg)
        return cfg

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        for i in range(1, self.num_ports + 1):
            subprocess.run(["ip", "link", "del", f"sw{i}-{self.tag}"], capture_output=True)


class Tap:
    """Raw frames received on host-side interfaces (not the ones we sent)."""

    def __init__(self, ifaces: list[str]) -> None:
        self.socks = {}
        for name in ifaces:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((name, 0))
            s.setblocking(False)
            self.socks[name] = s

    def send(self, iface: str, frame: bytes) -> None:
        self.socks[iface].send(frame)

    def collect(self, timeout: float = 0.5, expect: int | None = None) -> list[tuple[str, bytes]]:
        """Frames that arrive within `timeout` (returns early once `expect` have come)."""
        got: list[tuple[str, bytes]] = []
        deadline = time.monotonic() + timeout
        by_fd = {s.fileno(): name for name, s in self.socks.items()}
        while time.monotonic() < deadline and (expect is None or len(got) < expect):
            ready, _, _ = select.select(list(self.socks.values()), [], [],
                                        max(0.0, deadline - time.monotonic()))
            for s in ready:
                while True:
                    try:
                        frame, addr = s.recvfrom(65535)
                    except BlockingIOError:
                        break
                    if addr[2] != PACKET_OUTGOING:
                        got.append((by_fd[s.fileno()], frame))
        return got

    def close(self) -> None:
        for s in self.socks.values():
            s.close()
