"""A Mininet switch node running the p4reduce P4 program on simple_switch_grpc."""
from __future__ import annotations

import pathlib
import shutil
import socket
import subprocess
import sys

from mininet.node import Switch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from p4reduce.controller.client import SwitchClient  # noqa: E402
from p4reduce.controller.config import load_config  # noqa: E402

BUILD = ROOT / "p4src" / "build"
# The address workers send to: the switch answers for it (static ARP on the workers).
AGG_IP = "10.0.0.254"
AGG_MAC = "02:00:00:00:00:fe"


def bmv2_available() -> bool:
    return shutil.which("simple_switch_grpc") is not None and (BUILD / "p4reduce.json").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bmv2Switch(Switch):
    """simple_switch_grpc with one BMv2 port per Mininet interface; the P4Runtime
    server listens on loopback only."""

    def __init__(self, name: str, **params) -> None:
        super().__init__(name, **params)
        self.grpc_port = _free_port()
        self.thrift_port = _free_port()
        self.proc: subprocess.Popen | None = None

    def start(self, controllers) -> None:
        args = ["simple_switch_grpc", "--device-id", "0", "--thrift-port", str(self.thrift_port)]
        for port, intf in self.intfs.items():
            if intf.name != "lo":
                args += ["-i", f"{port}@{intf.name}"]
        args += ["--no-p4", "--", "--grpc-server-addr", f"127.0.0.1:{self.grpc_port}"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's signature)
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        super().stop(deleteIntfs)

    def install_job(self, workers: list, udp_base: int, num_slots: int) -> None:
        """Push the pipeline; make `workers` (Mininet hosts, rank order) job 1."""
        entries = []
        for rank, host in enumerate(workers):
            intf = host.defaultIntf()
            port = self.ports[intf.link.intf2 if intf.link.intf1 is intf else intf.link.intf1]
            entries.append({"worker_id": rank, "port": port, "mac": host.MAC(), "ip": host.IP(),
                            "udp_port": udp_base + rank})
            host.cmd(f"ip neigh replace {AGG_IP} lladdr {AGG_MAC} dev {intf.name}")
            # BMv2 forwards frames as they are: TCP segments with offloaded
            # (still partial) checksums or 64 KB GSO frames would be lost.
            host.cmd(f"ethtool -K {intf.name} tx off rx off tso off gso off gro off >/dev/null 2>&1")
        config = load_config({
            "switch": {"grpc_addr": f"127.0.0.1:{self.grpc_port}", "thrift_port": self.thrift_port},
            "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": num_slots, "workers": entries}],
            "l2": [{"mac": e["mac"], "port": e["port"]} for e in entries],
            "broadcast": {"mgid": 1000, "ports": [e["port"] for e in entries]},
        })
        with SwitchClient.connect(config.switch.grpc_addr, timeout=20) as client:
            client.push_pipeline(BUILD / "p4reduce.p4info.txtpb", BUILD / "p4reduce.json")
            client.install(config)
