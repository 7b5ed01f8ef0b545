# SPDX-License-Identifier: Apache-2.0
"""A star of hosts in network namespaces around a Linux bridge, with impairments.

Used by the reliability tests and the experiment runners when Mininet is not
wanted. Needs root and iproute2; impairments use `tc netem` when the kernel has
it and fall back to nftables (random drop, duplication) when it does not.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import shutil
import subprocess
import uuid
from dataclasses import dataclass, field
from typing import Any

from p4reduce.testbed.impairment import Impairment


class TestbedUnavailable(RuntimeError):
    """This machine cannot build the testbed; the message says why."""

    __test__ = False  # not a pytest test class despite the name


def _run(*argv: str, input_: str | None = None) -> None:
    proc = subprocess.run(argv, input=input_, text=True, capture_output=True)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr.strip()}")


def missing_requirements() -> str | None:
    """Why namespaces cannot be used here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2 (`ip`) is not installed"
    return None


@functools.cache
def netem_supported() -> bool:
    """Does this kernel have sch_netem? (Some VM kernels are built without it.)"""
    if missing_requirements() or shutil.which("tc") is None:
        return False
    name = f"p4rt{uuid.uuid4().hex[:6]}"
    try:
        _run("ip", "link", "add", name, "type", "dummy")
    except RuntimeError:
        return False
    try:
        _run("tc", "qdisc", "add", "dev", name, "root", "netem", "delay", "1ms")
        return True
    except RuntimeError:
        return False
    finally:
        subprocess.run(["ip", "link", "del", name], capture_output=True)


def nft_available() -> bool:
    return shutil.which("nft") is not None and missing_requirements() is None


@dataclass
class Host:
    name: str
    netns: str
    ip: str
    outer: str  # the veth end in the bridge namespace
    iface: str = "eth0"


@dataclass
class Testbed:
    """`hosts` namespaces, each with one veth into a bridge namespace."""

    __test__ = False

    num_hosts: int
    subnet: str = "10.77.0.0/24"
    hosts: list[Host] = field(default_factory=list)
    _tag: str = field(default_factory=lambda: uuid.uuid4().hex[:6])

    @property
    def bridge_ns(self) -> str:
        return f"p4r-sw-{self._tag}"

    def __enter__(self) -> Testbed:
        reason = missing_requirements()
        if reason:
            raise TestbedUnavailable(reason)
        net = ipaddress.ip_network(self.subnet)
        try:
            _run("ip", "netns", "add", self.bridge_ns)
            _run("ip", "-n", self.bridge_ns, "link", "add", "br0", "type", "bridge")
            _run("ip", "-n", self.bridge_ns, "link", "set", "br0", "up")
            for i in range(self.num_hosts):
                host = Host(f"h{i}", f"p4r-h{i}-{self._tag}", str(net[i + 1]), outer=f"p{i}-{self._tag}")
                self._add_host(host, net.prefixlen)
                self.hosts.append(host)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _add_host(self, host: Host, prefix: int) -> None:
        outer = host.outer
        _run("ip", "netns", "add", host.netns)
        _run("ip", "link", "add", outer, "type", "veth", "peer", "name", host.iface, "netns", host.netns)
        _run("ip", "link", "set", outer, "netns", self.bridge_ns)
        _run("ip", "-n", self.bridge_ns, "link", "set", outer, "master", "br0", "up")
        _run("ip", "-n", host.netns, "addr", "add", f"{host.ip}/{prefix}", "dev", host.iface)
        _run("ip", "-n", host.netns, "link", "set", host.iface, "up")
        _run("ip", "-n", host.netns, "link", "set", "lo", "up")

    def __exit__(self, *exc: object) -> None:
        for ns in [h.netns for h in self.hosts] + [self.bridge_ns]:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.hosts.clear()

    def command(self, host: Host, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", host.netns, *argv]

    def popen(self, host: Host, argv: list[str], **kwargs: object) -> subprocess.Popen[Any]:
        return subprocess.Popen(self.command(host, argv), **kwargs)  # type: ignore[call-overload]

    def wire_segmentation(self, host: Host) -> None:
        """The host's UDP GSO buffers leave its interface as MTU-sized frames, as a NIC puts
        them on a real link (a veth would carry them whole to the bridge and beyond)."""
        _run("ip", "-n", host.netns, "link", "set", "dev", host.iface, "gso_max_segs", "1")

    def impair(self, host: Host, imp: Impairment, qdisc_bypass: bool = False, upstream: Host | None = None) -> str:
        """Apply `imp` to both directions of the host's link (the egress of each
        veth end); returns the mechanism used. `qdisc_bypass`: the host sends past its
        qdisc (AF_PACKET rings), where netem cannot see its frames; nftables' egress hook
        does. `upstream`: the host's frames skip its own egress hooks too (AF_XDP sends
        straight to the driver): they are impaired where they leave the bridge towards
        `upstream` instead (nftables, matched by source address)."""
        ends: list[tuple[str, str, str | None]] = [(host.netns, host.iface, None), (self.bridge_ns, host.outer, None)]
        if upstream is not None:
            qdisc_bypass = True
            ends[0] = (self.bridge_ns, upstream.outer, host.ip)
        if netem_supported() and not qdisc_bypass:
            args = ["netem"]
            if imp.delay_ms or imp.jitter_ms:
                args += ["delay", f"{imp.delay_ms}ms", f"{imp.jitter_ms}ms"]
            if imp.loss:
                args += ["loss", f"{imp.loss * 100}%"]
            if imp.duplicate:
                args += ["duplicate", f"{imp.duplicate * 100}%"]
            if imp.rate_mbit:
                args += ["rate", f"{imp.rate_mbit}mbit"]
            for ns, dev, _ in ends:
                _run("ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", *args)
            return "netem"
        if imp.needs_netem():
            raise TestbedUnavailable(
                "delay/jitter need sch_netem, which this kernel lacks"
                if not qdisc_bypass
                else "delay/jitter need sch_netem, which frames sent past the qdisc (AF_PACKET rings) skip"
            )
        if (imp.loss or imp.duplicate) and shutil.which("nft") is None:
            raise TestbedUnavailable("loss/duplication without netem need nftables (`nft`)")
        for ns, dev, source in ends:
            if imp.rate_mbit and source is None:
                _run(
                    "ip",
                    "netns",
                    "exec",
                    ns,
                    "tc",
                    "qdisc",
                    "replace",
                    "dev",
                    dev,
                    "root",
                    "tbf",
                    "rate",
                    f"{imp.rate_mbit}mbit",
                    "burst",
                    "64kb",
                    "latency",
                    "50ms",
                )
            if imp.loss or imp.duplicate:
                _run("ip", "netns", "exec", ns, "nft", "-f", "-", input_=nft_egress(dev, imp, source))
        return "nftables"


def nft_drop_both_ways(dev: str, loss: float) -> str:
    """nftables rules dropping `loss` of the UDP packets entering and leaving `dev`
    (for links whose other end is not ours to configure, e.g. a BMv2 port)."""
    rule = f"ip protocol udp numgen random mod 1000000 < {round(loss * 1e6)} drop"
    chains = "".join(
        f'  chain {hook} {{\n    type filter hook {hook} device "{dev}" priority 0;\n    {rule}\n  }}\n'
        for hook in ("ingress", "egress")
    )
    return _replacing(f"p4r_loss_{dev.replace('-', '_')}", chains)


def nft_egress(dev: str, imp: Impairment, source: str | None = None) -> str:
    """Random drop, then random duplication, of UDP leaving `dev` (from `source` only, if given)."""
    rules = []
    match = "ip protocol udp" + (f" ip saddr {source}" if source else "")
    if imp.loss:
        rules.append(f"{match} numgen random mod 1000000 < {round(imp.loss * 1e6)} drop")
    if imp.duplicate:
        rules.append(f'{match} numgen random mod 1000000 < {round(imp.duplicate * 1e6)} dup to "{dev}"')
    body = "\n    ".join(rules)
    chain = f'  chain egress {{\n    type filter hook egress device "{dev}" priority 0;\n    {body}\n  }}\n'
    return _replacing(egress_table_name(dev, source), chain)


def egress_table_name(dev: str, source: str | None = None) -> str:
    """The netdev table nft_egress(dev, ..., source) writes."""
    return "p4r_impair_" + dev.replace("-", "_") + ("_" + source.replace(".", "_") if source else "")


def nft_remove_table(name: str) -> str:
    """An nftables document deleting netdev table `name` if it exists (an error-free no-op if not)."""
    return f"add table netdev {name}\ndelete table netdev {name}\n"


def _replacing(name: str, chains: str) -> str:
    """Netdev table `name` with `chains`, replacing one of that name: a table on a device
    in the root namespace outlives the device and binds again to the next device of that
    name, so rules added on top of a stale table would stack up run after run."""
    return f"{nft_remove_table(name)}table netdev {name} {{\n{chains}}}\n"
