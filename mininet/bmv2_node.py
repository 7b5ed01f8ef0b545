# SPDX-License-Identifier: Apache-2.0
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

    def port_of(self, host) -> int:
        """The switch port `host`'s default interface is linked to."""
        intf = host.defaultIntf()
        return self.ports[intf.link.intf2 if intf.link.intf1 is intf else intf.link.intf1]

    def port_to(self, node) -> int:
        """This switch's port on its link to `node` (another switch)."""
        ((mine, _),) = self.connectionsTo(node)
        return self.ports[mine]

    def intf_to(self, node):
        """This switch's interface on its link to `node`."""
        ((mine, _),) = self.connectionsTo(node)
        return mine

    def install(self, config) -> None:
        """Install a controller Config on the running pipeline."""
        assert self.process is not None and self.process.client is not None, "switch not started"
        self.process.client.install(config)

    def counters(self) -> dict[str, int]:
        assert self.process is not None and self.process.client is not None, "switch not started"
        return self.process.client.read_counters()

    def prepare_hosts(self, hosts: list) -> None:
        """Static ARP for the aggregation address, and no offloads: BMv2 forwards frames as
        they are, so TCP segments with offloaded (still partial) checksums or 64 KB GSO
        frames would be lost."""
        for host in hosts:
            intf = host.defaultIntf()
            host.cmd(f"ip neigh replace {AGG_IP} lladdr {AGG_MAC} dev {intf.name}")
            host.cmd(f"ethtool -K {intf.name} tx off rx off tso off gso off gro off >/dev/null 2>&1")

    def service_section(self, hosts: list, num_slots: int) -> dict:
        """The `switch` section of a job service's configuration for this switch: every
        host's MAC and port (the service finds a registering worker's port there)."""
        assert self.process is not None, "switch not started"
        ports = [self.port_of(h) for h in hosts]
        return {
            **self.process.switch_config(),
            "election_id": 2,  # above this node's own P4Runtime session: the service is primary
            "address": {"ip": AGG_IP, "mac": AGG_MAC},
            "l2": [{"mac": h.MAC(), "port": port} for h, port in zip(hosts, ports, strict=True)],
            "broadcast": {"mgid": 1000, "ports": ports},
            "slots": [0, 1024],
            "mgids": [1, 999],
        }

    def install_job(self, workers: list, udp_base: int, num_slots: int) -> None:
        """Make `workers` (Mininet hosts, rank order) job 1 of the running pipeline."""
        assert self.process is not None and self.process.client is not None, "switch not started"
        self.prepare_hosts(workers)
        entries = [
            {
                "worker_id": rank,
                "port": self.port_of(host),
                "mac": host.MAC(),
                "ip": host.IP(),
                "udp_port": udp_base + rank,
            }
            for rank, host in enumerate(workers)
        ]
        config = load_config(
            {
                "switch": self.process.switch_config(),
                "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": num_slots, "workers": entries}],
                "l2": [{"mac": e["mac"], "port": e["port"]} for e in entries],
                "broadcast": {"mgid": 1000, "ports": [e["port"] for e in entries]},
            }
        )
        self.process.client.install(config)
