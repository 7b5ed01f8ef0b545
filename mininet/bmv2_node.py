"""A Mininet switch node running the p4reduce P4 program on simple_switch_grpc."""

from __future__ import annotations

from mininet.node import Switch

from p4reduce.controller.config import load_config
from p4reduce.testbed.bmv2 import AGG_IP, AGG_MAC, Bmv2Process, Pipeline, simple_switch_missing


def bmv2_available() -> bool:
    return simple_switch_missing() is None


class Bmv2Switch(Switch):
    """simple_switch_grpc with one BMv2 port per Mininet interface; the P4Runtime
    server listens on loopback only."""

    def __init__(self, name: str, **params) -> None:
        super().__init__(name, **params)
        self.process: Bmv2Process | None = None

    def start(self, controllers) -> None:
        ports = {port: intf.name for port, intf in self.intfs.items() if intf.name != "lo"}
        self.process = Bmv2Process(ports)
        self.process.start(Pipeline.installed())

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's signature)
        if self.process is not None:
            self.process.stop()
            self.process = None
        super().stop(deleteIntfs)

    def install_job(self, workers: list, udp_base: int, num_slots: int) -> None:
        """Make `workers` (Mininet hosts, rank order) job 1 of the running pipeline."""
        assert self.process is not None and self.process.client is not None, "switch not started"
        entries = []
        for rank, host in enumerate(workers):
            intf = host.defaultIntf()
            port = self.ports[intf.link.intf2 if intf.link.intf1 is intf else intf.link.intf1]
            entries.append(
                {"worker_id": rank, "port": port, "mac": host.MAC(), "ip": host.IP(), "udp_port": udp_base + rank}
            )
            host.cmd(f"ip neigh replace {AGG_IP} lladdr {AGG_MAC} dev {intf.name}")
            # BMv2 forwards frames as they are: TCP segments with offloaded
            # (still partial) checksums or 64 KB GSO frames would be lost.
            host.cmd(f"ethtool -K {intf.name} tx off rx off tso off gso off gro off >/dev/null 2>&1")
        config = load_config(
            {
                "switch": self.process.switch_config(),
                "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": num_slots, "workers": entries}],
                "l2": [{"mac": e["mac"], "port": e["port"]} for e in entries],
                "broadcast": {"mgid": 1000, "ports": [e["port"] for e in entries]},
            }
        )
        self.process.client.install(config)
