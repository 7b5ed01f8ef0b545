#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mininet experiments: N workers + aggregator(s), star or leaf/spine, density sweep.

    sudo python3 mininet/p4reduce_mininet.py --workers 4 --bw 100 --densities 0.01 0.1 1

Switch: a Linux bridge (`lxbr`, no OVS needed) with the software aggregator on
its own host. Links are Mininet TCLinks (bandwidth via htb); `--loss` uses
netem when the kernel has it, else nftables random drop on each worker link;
`--delay` needs netem. For every density it runs p4reduce workers (real
processes on the Mininet hosts) and, when PyTorch is installed, a gloo dense
allreduce over the same links. Every result is checked (all workers hold the
same sum in every iteration; the last one is numpy's within the fixed-point
bound), and retransmissions are reported next to all packets sent. Writes CSV
and a PNG plot of allreduce time and goodput versus density.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from p4reduce.cli.serve import SERVICE_PORT
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.protocol.switch import EVENT_NAMES
from p4reduce.testbed.check import WrongResult, check_results
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.netns import egress_table_name, netem_supported, nft_egress, nft_remove_table
from p4reduce.testbed.results import Panel, save_results, setup_title
from p4reduce.testbed.synthetic import worker_tensor

HERE = pathlib.Path(__file__).resolve().parent  # this script's folder (bmv2_node, gloo_allreduce)

PY = sys.executable
BMV2_UDP_BASE = 40000  # workers' source ports, installed in the switch's worker table
FIELDS = [
    "method",
    "switch",
    "topo",
    "multicast",
    "service",
    "transport",
    "workers",
    "elements",
    "density",
    "block_size",
    "bw_mbit",
    "agg_bw_mbit",
    "loss",
    "median_ms",
    "goodput_mbit",
    "wire_bytes_per_worker",
    "retransmissions",
    "packets",
    "retransmissions_by_allreduce",
    # results the workers ignored as copies of rounds they had already taken: mostly the
    # answer to a retransmission whose original was late, not lost (spurious)
    "ignored_packets",
    "cpu_hogs",  # busy processes the runner kept beside the experiment (--cpu-hogs)
    # BMv2 star: frames the switch's ports received that its pipeline never took (all
    # allreduces of the density): BMv2 dropped them on input, behind on a busy machine
    "switch_input_drops",
    # BMv2 leaf/spine: from the switches' counters (all allreduces of the density, warm-up
    # and barriers included) and the links' interfaces (per allreduce)
    "rounds",
    "spine_data_packets",
    "upstream_packets_per_leaf",
    "uplink_bytes_per_leaf",
    "worker_link_bytes",
]
TREE_FIELDS = FIELDS[-5:]


# ---- Cleanup: whatever ends a run (its end, an error, a timeout, SIGTERM, SIGINT, SIGHUP),
# nothing it started outlives it: no process, host namespace, link, bridge, nftables table
# or BMv2 switch.

RUN_MARK = "P4REDUCE_MININET_RUN"  # in the environment of every process a run starts (and theirs)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Stopped(BaseException):
    """A stop signal arrived: the run unwinds (a BaseException, so that no `except Exception`
    on the way swallows it) and cleans up as it goes."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Run:
    """What one run of the runner started, undone by close() whatever ends the run.

    Creating it marks the environment (RUN_MARK) that every process started from here on
    inherits, Mininet's host shells and everything run in the hosts included, and turns
    SIGTERM, SIGINT and SIGHUP (those not ignored) into Stopped. close() stops, in order: the processes the run
    started (their process groups: SIGTERM, then SIGKILL), each Mininet network (its BMv2
    switches, links, bridges and host shells, whose namespaces go with them), the nftables
    tables on its switches' ports and the temporary folders; then, as a last resort, kills
    whatever process still carries the run's mark and deletes the links and bridges of the
    run's node names still in the root namespace. It runs once (again at exit, in case a
    signal came before the finally that calls it), with further stop signals ignored."""

    def __init__(self) -> None:
        self.mark = f"{os.getpid()}-{secrets.token_hex(6)}"
        os.environ[RUN_MARK] = self.mark
        self.stopping = False
        self.closed = False
        self.nets: list = []  # Mininet networks not stopped yet, as soon as they exist
        self.node_names: set[str] = set()  # every node of the run's networks
        self.bridges: set[str] = set()  # Linux bridge switches (root-namespace devices)
        self.switch_ports: set[str] = set()  # the switches' interfaces (root namespace)
        self.procs: list[subprocess.Popen] = []
        self.tmpdirs: list[pathlib.Path] = []
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:  # (nohup's SIGHUP, a background job's SIGINT)
                signal.signal(signum, self._stop)
        atexit.register(self.close)

    def _stop(self, signum: int, frame: object) -> None:
        if self.stopping:  # (already unwinding or cleaning up: the cleanup runs to its end)
            return
        self.stopping = True
        raise Stopped(signum)

    def track(self, proc: subprocess.Popen) -> subprocess.Popen:
        self.procs.append(proc)
        return proc

    def tmpdir(self, prefix: str) -> pathlib.Path:
        path = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
        self.tmpdirs.append(path)
        return path

    def _note(self, net) -> None:
        """The names `net` holds so far (links and bridges are found by them if its stop fails)."""
        from mininet.nodelib import LinuxBridge

        self.node_names.update(net.nameToNode)
        for sw in net.switches:
            self.switch_ports.update(intf.name for intf in sw.intfList() if intf.name != "lo")
            if isinstance(sw, LinuxBridge):
                self.bridges.add(sw.name)

    def stop_net(self, net) -> None:
        """Stop `net` (Mininet's stop, after freeing shells left in the middle of a command);
        its BMv2 switches are stopped even if Mininet's stop fails."""
        if net not in self.nets:
            return
        self.nets.remove(net)
        self._note(net)
        nodes = [*net.hosts, *net.switches]
        for node in nodes:
            _unwedge(node)
        try:
            net.stop()
        finally:
            for sw in net.switches:
                process = getattr(sw, "process", None)  # Bmv2Switch
                if process is not None:
                    process.stop()
                    sw.process = None
            for node in nodes:  # (Mininet only signals the shells: a shell wedged in a command may stay)
                if node.shell is not None and node.shell.poll() is None:
                    _signal_group(node.shell, signal.SIGKILL)

    def close(self) -> list[str]:
        """Stop everything (see the class); returns what the last resort found left over
        (nothing, when the orderly stop did it all), also printed."""
        if self.closed:
            return []
        self.stopping = self.closed = True
        problems = []

        def step(what: str, action, *args) -> None:
            try:
                action(*args)
            except Exception as exc:  # go on: every step undoes something else
                problems.append(f"cleanup: {what} failed: {exc!r}")

        step("stopping the run's processes", stop_processes, self.procs)
        for net in reversed(list(self.nets)):
            step("stopping the network", self.stop_net, net)
        if shutil.which("nft") is not None and self.switch_ports:
            step(
                "removing nftables tables",
                _nft,
                "".join(nft_remove_table(egress_table_name(n)) for n in sorted(self.switch_ports)),
            )
        for path in self.tmpdirs:
            shutil.rmtree(path, ignore_errors=True)
        left: list[str] = []
        step("killing processes", lambda: left.extend(f"process {p} ({c})" for p, c in _kill_marked(self.mark)))
        step("deleting links", lambda: left.extend(f"link {n}" for n in _delete_links(self.node_names, self.bridges)))
        for line in problems + [f"cleanup: removed leftover {what}" for what in left]:
            print(line, file=sys.stderr, flush=True)
        return left


def _unwedge(node) -> None:
    """A Mininet node whose shell a signal left in the middle of a command (Node.cmd) takes
    no further command: interrupt it and wait (a little) for its prompt."""
    if node.shell is None or not node.waiting:
        return
    try:
        node.sendInt()
        deadline = time.monotonic() + 2
        while node.waiting and time.monotonic() < deadline:
            node.monitor(timeoutms=100)
    except OSError:
        pass
    node.waiting = False


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    """Send `signum` to `proc`'s process group when it leads one (a process started in a
    Mininet host does: mnexec -d makes it a session), else to `proc` alone."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
    except (ProcessLookupError, PermissionError):
        pass


def stop_processes(procs: list[subprocess.Popen], grace: float = 5.0) -> None:
    """Stop every process of `procs` still running, with its process group: SIGTERM, then
    SIGKILL for what is left after `grace` seconds; reap them and close their pipes."""
    alive = [p for p in procs if p.poll() is None]
    for p in alive:
        _signal_group(p, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in alive:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(p, signal.SIGKILL)
            p.wait(timeout=10)
    for p in procs:
        for pipe in (p.stdin, p.stdout, p.stderr):
            if pipe is not None:
                pipe.close()


def marked_processes(mark: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process but this one whose environment has RUN_MARK=mark."""
    needle = f"{RUN_MARK}={mark}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in pathlib.Path(entry.path, "environ").read_bytes().split(b"\0"):
                continue
            cmd = pathlib.Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # (gone meanwhile)
            continue
        found.append((int(entry.name), cmd.strip()[:120]))
    return found


def _kill_marked(mark: str, wait: float = 5.0) -> list[tuple[int, str]]:
    """SIGKILL every process that carries the run's mark; waits (up to `wait` s) until they
    are gone. Returns them."""
    found = marked_processes(mark)
    for pid, _ in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait
    while found and marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def root_links() -> list[str]:
    """The names of the root namespace's network interfaces."""
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if line.count(":") >= 2]


def _delete_links(nodes: set[str], bridges: set[str]) -> list[str]:
    """Delete the root namespace's interfaces of `nodes` (Mininet names them NODE-ethN) and
    the `bridges`; returns those it deleted."""
    if not nodes:
        return []
    pattern = re.compile(rf"(?:{'|'.join(map(re.escape, sorted(nodes)))})-eth\d+")
    doomed = [name for name in root_links() if name in bridges or pattern.fullmatch(name)]
    for name in doomed:
        subprocess.run(["ip", "link", "del", name], capture_output=True)
    return doomed


RUN: Run | None = None  # this run's cleanup (main creates it); None when imported (shared_switch.py, tests)


def _tracked(proc: subprocess.Popen) -> subprocess.Popen:
    return RUN.track(proc) if RUN is not None else proc


def _tmpdir(prefix: str) -> pathlib.Path:
    """A new temporary folder, removed when the run ends."""
    return RUN.tmpdir(prefix) if RUN is not None else pathlib.Path(tempfile.mkdtemp(prefix=prefix))


@dataclass
class Topology:
    net: object
    root: object | None  # host of the top-level software aggregator (None: the P4 switch)
    workers: list  # worker hosts, in rank order
    p4switch: object | None = None  # Bmv2Switch when the switch aggregates
    # Leaf/spine: per leaf, its aggregator host and the ranks behind it.
    leaves: list[tuple[object, list[int]]] = field(default_factory=list)
    p4tree: P4Tree | None = None  # BMv2 leaves under a BMv2 spine
    # nftables tables of the root namespace (the switches' ends of links): removed with
    # the topology, else they would drop frames on the next run's links of the same names
    nft_tables: list[str] = field(default_factory=list)
    service: subprocess.Popen | None = None  # --service: the job service, up for the topology's lifetime

    def stop(self) -> None:
        try:
            if self.service is not None:
                stop_processes([self.service], grace=10)
        finally:
            try:
                if RUN is not None:
                    RUN.stop_net(self.net)
                else:
                    self.net.stop()
            finally:
                for table in self.nft_tables:
                    _nft(nft_remove_table(table))


@dataclass
class P4Tree:
    """BMv2 leaf switches under a BMv2 spine, programmed from one tree document
    (p4reduce.controller.tree): where each global rank runs."""

    spine: object
    leaves: list  # Bmv2Switch nodes, in the spine job's rank order
    places: list  # TreePlace per global rank (none with --service: the service places them)
    service_section: dict | None = None  # --service: the `tree` section of its configuration

    def switches(self) -> list:
        return [*self.leaves, self.spine]

    def link_bytes(self) -> list[tuple[int, int]]:
        """(bytes up, bytes down) so far on each leaf's link to the spine (the leaf's interface)."""
        names = [leaf.intf_to(self.spine).name for leaf in self.leaves]
        return [(interface_stat(name, "tx_bytes"), interface_stat(name, "rx_bytes")) for name in names]


def interface_stat(name: str, stat: str) -> int:
    """A counter of a root-namespace interface (/sys/class/net/NAME/statistics/STAT)."""
    return int((pathlib.Path("/sys/class/net") / name / "statistics" / stat).read_text())


def build_topology(args) -> Topology:
    """The network of `args`, ready before anything runs on it: with --service the job
    service starts now, since it alone programs a BMv2 switch or tree (their L2 forwarding
    too, which the gloo baseline's TCP between the workers needs), and serves every
    density's job until the topology stops. The workers are checked to reach each other."""
    topo = _build_network(args)
    if args.service:
        switch = tree = None
        if topo.p4switch is not None:
            switch = topo.p4switch.service_section([*topo.workers, topo.root], args.slots)
        elif topo.p4tree is not None:
            tree = topo.p4tree.service_section
        topo.service = _start_service(topo.root, args.slots, switch, tree)
    check_forwarding(topo.workers)
    return topo


def _build_network(args) -> Topology:
    """`star`: every worker and the aggregator on one bridge. `leafspine`: --leaves leaf
    bridges, each with its share of the workers and a leaf aggregator, under a spine
    bridge with the root aggregator (BMv2: leaf and spine switches aggregate); leaf uplinks
    have the same bandwidth."""
    from mininet.link import TCLink
    from mininet.net import Mininet
    from mininet.nodelib import LinuxBridge

    use_netem = netem_supported()
    if args.delay and not use_netem:
        raise SystemExit("--delay needs sch_netem, which this kernel lacks")
    net = Mininet(switch=LinuxBridge, controller=None, link=TCLink, autoSetMacs=True)
    if RUN is not None:  # stopped whatever happens from here on
        RUN.nets.append(net)
    bw = {"bw": args.bw} if args.bw else {}
    worker_link = dict(bw)
    if use_netem:
        worker_link.update(
            {
                k: v
                for k, v in (("delay", f"{args.delay}ms" if args.delay else None), ("loss", args.loss * 100 or None))
                if v
            }
        )
    # The aggregator host's link carries one result copy per worker (or leaf); a
    # switch would replicate inside. --agg-bw lets it stand in for that.
    agg_link = {"bw": args.agg_bw or args.bw} if (args.agg_bw or args.bw) else {}
    workers = [net.addHost(f"w{i}") for i in range(args.workers)]
    if args.switch == "bmv2" and args.topo == "leafspine":
        from bmv2_node import Bmv2Switch

        spine = net.addSwitch("s0", cls=Bmv2Switch)
        leaves = []
        for i, ranks in enumerate(_split(args.workers, args.leaves)):
            leaf = net.addSwitch(f"s{i + 1}", cls=Bmv2Switch)
            net.addLink(leaf, spine, **bw)
            for r in ranks:
                net.addLink(workers[r], leaf, **worker_link)
            leaves.append((leaf, ranks))
        # --service: the job service (root namespace: it reaches the switches' P4Runtime on
        # loopback) under the first leaf; it programs the tree, which carries its gRPC too.
        ctl = net.addHost("ctl", inNamespace=False) if args.service else None
        if ctl is not None:
            net.addLink(ctl, leaves[0][0])
        start_network(net)
        if ctl is not None:
            tree = _service_tree(spine, leaves, workers, ctl, args.slots)
        else:
            tree = _program_tree(spine, leaves, workers, args.slots)
        _drop_on_worker_links(workers, args, use_netem)
        topo = Topology(net, ctl, workers, p4tree=tree)
        topo.nft_tables += _drop_on_uplinks(spine, [leaf for leaf, _ in leaves], args.uplink_loss)
        return topo
    if args.switch == "bmv2":
        from bmv2_node import Bmv2Switch

        s1 = net.addSwitch("s1", cls=Bmv2Switch)
        for h in workers:
            net.addLink(h, s1, **worker_link)
        # --service: the job service on a host of the root namespace (it reaches BMv2's
        # P4Runtime on loopback) that the workers reach through the switch.
        ctl = net.addHost("ctl", inNamespace=False) if args.service else None
        if ctl is not None:
            net.addLink(ctl, s1)
        start_network(net)
        if ctl is not None:
            s1.prepare_hosts([*workers, ctl])
        else:
            s1.install_job(workers, BMV2_UDP_BASE, args.slots)
        _drop_on_worker_links(workers, args, use_netem)
        return Topology(net, ctl, workers, p4switch=s1)
    root = net.addHost("agg")
    topo = Topology(net, root, workers)
    if args.topo == "star":
        s1 = net.addSwitch("s1", stp=False)
        net.addLink(root, s1, **agg_link)
        for h in workers:
            net.addLink(h, s1, **worker_link)
    else:
        spine = net.addSwitch("s0", stp=False)
        net.addLink(root, spine, **agg_link)
        for i, ranks in enumerate(_split(args.workers, args.leaves)):
            leaf = net.addSwitch(f"s{i + 1}", stp=False)
            net.addLink(leaf, spine, **bw)
            leaf_agg = net.addHost(f"lagg{i}")
            net.addLink(leaf_agg, leaf, **agg_link)
            for r in ranks:
                net.addLink(workers[r], leaf, **worker_link)
            topo.leaves.append((leaf_agg, ranks))
    start_network(net)
    _drop_on_worker_links(workers, args, use_netem)
    return topo


def _split(n: int, leaves: int) -> list[list[int]]:
    """The global ranks under each leaf: consecutive, as even as they divide (the first
    leaves one more)."""
    sizes = [n // leaves + (i < n % leaves) for i in range(leaves)]
    starts = [sum(sizes[:i]) for i in range(leaves)]
    return [list(range(start, start + size)) for start, size in zip(starts, sizes, strict=True)]


SPINE_MAC, SPINE_IP = "02:00:00:00:01:fe", "10.0.1.254"  # the spine's aggregation address


def _tree_topology(spine, leaves: list[tuple[object, list[int]]]) -> dict:
    """The switches (each with its aggregation address: the spine's own, the leaves' the one
    their workers send to), the spine and the leaves' links, as a tree document names them."""
    from bmv2_node import AGG_IP, AGG_MAC

    switches = {"spine": {**spine.process.switch_config(), "mac": SPINE_MAC, "ip": SPINE_IP}}
    for i, (leaf, _) in enumerate(leaves):
        switches[f"leaf{i}"] = {**leaf.process.switch_config(), "mac": AGG_MAC, "ip": AGG_IP}
    links = [
        {"leaf": f"leaf{i}", "port": leaf.port_to(spine), "spine_port": spine.port_to(leaf)}
        for i, (leaf, _) in enumerate(leaves)
    ]
    return {"switches": switches, "spine": "spine", "links": links}


def _program_tree(spine, leaves: list[tuple[object, list[int]]], workers: list, num_slots: int) -> P4Tree:
    """Job 1 over the BMv2 leaves and spine, from one tree document (what `p4reduce controller
    install-tree` reads), each switch's configuration installed by its node."""
    from p4reduce.controller.client import new_session
    from p4reduce.controller.tree import load_tree, placement, switch_configs, tree_sessions

    entries = []
    for i, (leaf, ranks) in enumerate(leaves):
        entries += [
            {"rank": r, "switch": f"leaf{i}", "port": leaf.port_of(workers[r]), "mac": workers[r].MAC()}
            | {"ip": workers[r].IP(), "udp_port": BMV2_UDP_BASE + r}
            for r in ranks
        ]
    document = {
        **_tree_topology(spine, leaves),
        "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": num_slots, "workers": entries}],
    }
    tree = load_tree(document)
    configs = switch_configs(tree, tree_sessions(tree, new_session))
    for i, (leaf, ranks) in enumerate(leaves):
        leaf.prepare_hosts([workers[r] for r in ranks])
        leaf.install(configs[f"leaf{i}"])
    spine.install(configs["spine"])
    return P4Tree(spine, [leaf for leaf, _ in leaves], placement(tree, 1))


def _service_tree(spine, leaves: list[tuple[object, list[int]]], workers: list, ctl, num_slots: int) -> P4Tree:
    """The tree for --service: nothing programmed here (the service does it all, as primary
    controller of every switch); the `tree` section of its configuration says where every
    worker, and the service's host under the first leaf, sits."""
    topology = _tree_topology(spine, leaves)
    for switch in topology["switches"].values():
        switch["election_id"] = 2  # above each node's own P4Runtime session
    seats = [
        {"mac": workers[r].MAC(), "switch": f"leaf{i}", "port": leaf.port_of(workers[r])}
        for i, (leaf, ranks) in enumerate(leaves)
        for r in ranks
    ]
    seats.append({"mac": ctl.MAC(), "switch": "leaf0", "port": leaves[0][0].port_of(ctl)})
    for leaf, ranks in leaves:
        leaf.prepare_hosts([workers[r] for r in ranks])
    leaves[0][0].prepare_hosts([ctl])
    section = {**topology, "workers": seats, "slots": [0, 1024], "mgids": [1, 999]}
    return P4Tree(spine, [leaf for leaf, _ in leaves], [], service_section=section)


def start_network(net) -> None:
    """Start the network, its switches' ports free of nftables drops: a netdev table outlives
    its device and binds again to the next device of that name, so a run that crashed (or
    a runner before this one) could leave --uplink-loss rules on these ports' names."""
    net.start()
    if shutil.which("nft") is not None:
        names = [intf.name for sw in net.switches for intf in sw.intfList() if intf.name != "lo"]
        _nft("".join(nft_remove_table(egress_table_name(name)) for name in names))


def _drop_on_uplinks(spine, leaves: list, loss: float) -> list[str]:
    """--uplink-loss: nftables drops that share of the UDP frames each switch sends on a
    leaf-spine link, both ways (the switches' ends are in the root namespace); returns
    the tables, which the topology removes when it stops."""
    if not loss:
        return []
    if shutil.which("nft") is None:
        raise SystemExit("--uplink-loss needs nftables (`nft`)")
    tables = []
    for leaf in leaves:
        for intf in (leaf.intf_to(spine), spine.intf_to(leaf)):
            _nft(nft_egress(intf.name, Impairment(loss=loss)))
            tables.append(egress_table_name(intf.name))
    return tables


def _nft(document: str) -> None:
    proc = subprocess.run(["nft", "-f", "-"], input=document, text=True, capture_output=True)
    if proc.returncode:
        raise RuntimeError(f"nft failed: {proc.stderr.strip()}")


def _drop_on_worker_links(workers: list, args, use_netem: bool) -> None:
    """--loss without netem: nftables drops that share of the UDP datagrams each
    worker sends (netem, when the kernel has it, is set on the links themselves)."""
    if args.loss and not use_netem:
        for h in workers:
            with tempfile.NamedTemporaryFile("w", suffix=".nft") as rules:
                rules.write(nft_egress(h.defaultIntf().name, Impairment(loss=args.loss)))
                rules.flush()
                out = h.cmd(f"nft -f {rules.name}; echo nft-exit=$?")
            if "nft-exit=0" not in out:
                raise RuntimeError(f"nft on {h.name} failed: {out.strip()}")


def _json_reports(procs: list[subprocess.Popen], what: str, timeout: float = 600.0) -> list[list[dict]]:
    """The JSON lines each process printed, in order; raises if one failed, or if they have
    not all finished within `timeout` seconds. Whatever ends the wait, none of `procs` (nor
    their process groups) runs on."""
    deadline = time.monotonic() + timeout
    reports = []
    try:
        for i, p in enumerate(procs):
            try:
                out, err = p.communicate(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise RuntimeError(
                    f"{what} {i} of {len(procs)} had not finished after {timeout:g} s: all {len(procs)} stopped"
                ) from None
            if p.returncode:
                how = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
                raise RuntimeError(f"{what} {i} failed ({how}): {err[-400:]}")
            reports.append([json.loads(x) for x in out.splitlines() if x.startswith("{")])
    finally:
        stop_processes(procs)  # (the others, when one failed or the wait ended)
    return reports


FALLBACK_PORT = 48870  # the service's fallback beside a P4 switch: not 48864, which the switch aggregates


def start_service(host, document: dict) -> tuple[subprocess.Popen, str]:
    """`p4reduce controller serve` on `host` at SERVICE_PORT, configured by `document`;
    (the process, its banner line: it serves once that is printed)."""
    folder = _tmpdir("p4reduce-service-")
    config = folder / "service.json"
    config.write_text(json.dumps(document))
    argv = [
        PY,
        "-m",
        "p4reduce",
        "controller",
        "serve",
        "--config",
        str(config),
        "--bind",
        f"{host.IP()}:{SERVICE_PORT}",
        # The emulated network holds only this experiment's hosts: an unauthenticated
        # service on its address is meant (docs/service.md, "Securing the service").
        "--insecure",
    ]
    proc = _tracked(host.popen(argv, stdout=subprocess.PIPE, text=True))
    return proc, proc.stdout.readline()


def listed_jobs(host) -> dict[str, dict]:
    """The live jobs of the job service on `host`, by name, as `controller jobs --json` lists
    them, asked on that host (the only one sure to reach the service)."""
    out = host.cmd(f"{PY} -m p4reduce controller jobs --json --controller {host.IP()}:{SERVICE_PORT}")
    try:
        return {status["job"]["name"]: status["job"] for status in json.loads(out)["jobs"]}
    except (ValueError, KeyError) as exc:
        raise WrongResult(f"the job service did not list its jobs ({exc}): {out.strip()}") from None


def _start_service(host, slots: int, switch: dict | None = None, tree: dict | None = None) -> subprocess.Popen:
    """The service for --service: its fallback software aggregator on the same host, and the
    switch (or the tree of switches) when given (its configuration section)."""
    port = AGG_UDP_PORT if switch is None and tree is None else FALLBACK_PORT
    document: dict = {
        "fallback": {"host": host.IP(), "port": port, "advertise": host.IP()},
        "jobs": {"num_slots": slots},
    }
    if switch is not None:
        document["switch"] = switch
    if tree is not None:
        document["tree"] = tree
    proc, banner = start_service(host, document)
    if not banner or ((switch or tree) and " up" not in banner):
        stop_processes([proc])
        raise RuntimeError(f"the job service did not come up with its switches: {banner.strip()!r}")
    return proc


def _start_worker(host, options: list[str], transport: str = "udp") -> subprocess.Popen:
    """`p4reduce worker OPTIONS --transport TRANSPORT` on `host`, its JSON report lines on stdout."""
    return _tracked(
        host.popen(
            [PY, "-m", "p4reduce", "worker", *options, "--transport", transport],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    )


def wire_segmentation(host) -> None:
    """The host's UDP GSO buffers leave its interfaces as MTU-sized frames, as a NIC puts them
    on a real link: a veth carries them whole, larger than a --transport packet worker's ring
    frames (which then drops them)."""
    for intf in host.intfList():
        if intf.name != "lo":
            host.cmd(f"ip link set dev {intf.name} gso_max_segs 1")


def _start_aggregator(host, job: str):
    proc = _tracked(
        host.popen(
            [PY, "-m", "p4reduce", "aggregator", "--bind", f"{host.IP()}:{AGG_UDP_PORT}", "--job", job],
            stdout=subprocess.PIPE,
            text=True,
        )
    )
    proc.stdout.readline()  # banner: bound and serving
    return proc


MULTICAST_GROUP = "239.77.0.1:47000"
MESSAGE_SIZE = 1472  # UDP payload of a 1500-byte Ethernet frame


def _checked(
    reports: list[list[dict]], outputs: list[pathlib.Path], inputs: list[np.ndarray], block_size: int
) -> list[list[dict]]:
    """Every worker got the same sum in every iteration (the checksums of its result),
    and the last one is numpy's sum within the fixed-point bound; WrongResult if not.
    The result files are removed."""
    for i, sums in enumerate(zip(*reports, strict=True)):
        if len({it["checksum"] for it in sums}) != 1:
            raise WrongResult(f"iteration {i}: the workers' results differ: {[it['checksum'] for it in sums]}")
    try:
        results = [np.load(o) for o in outputs]
    finally:
        shutil.rmtree(outputs[0].parent, ignore_errors=True)
    check_results(inputs, results, block_size)
    return reports


def _tensor_options(args, rank: int, block_size: int, density: float, output: pathlib.Path) -> list[str]:
    """The worker options of its synthetic tensor (seeded by the global rank), the allreduces
    it runs (one more: the warm-up) and where its last result goes."""
    return [
        "--seed",
        str(rank),
        "--block-size",
        str(block_size),
        "--elements",
        str(args.elements),
        "--density",
        str(density),
        "--iterations",
        str(args.iterations + 1),
        "--output",
        str(output),
    ]


def run_p4reduce(topo: Topology, args, density: float) -> dict:
    n = len(topo.workers)
    out_dir = _tmpdir("p4reduce-mininet-")
    outputs = [out_dir / f"r{r}.npy" for r in range(n)]
    if args.service:
        return _run_through_service(topo, args, density, outputs)
    if topo.p4tree is not None:
        return _run_through_tree(topo, topo.p4tree, args, density, outputs)
    if topo.p4switch is not None:
        from bmv2_node import AGG_IP

        from p4reduce.controller.config import JobConfig

        # New worker processes start at round 0 (shadow copy 0) of every slot: forget what
        # the previous density's processes left in the slots, as a job reset would (they
        # have all exited, so their session may stay).
        topo.p4switch.process.client.clear_job_registers(JobConfig(1, 0, args.slots, (), 1))
        before = switch_input(topo.p4switch)
        procs = [
            _start_worker(
                h,
                ["--aggregator", f"{AGG_IP}:{AGG_UDP_PORT}", "--bind", f"{h.IP()}:{BMV2_UDP_BASE + r}"]
                + ["--job", "1", "--rank", str(r), "--workers", str(n), "--mode", "dense", "--slots", str(args.slots)]
                + _tensor_options(args, r, 32, density, outputs[r]),
                args.transport,
            )
            for r, h in enumerate(topo.workers)
        ]
        inputs = [worker_tensor(r, r, args.elements, 32, density) for r in range(n)]
        reports = _checked(_json_reports(procs, "p4reduce worker"), outputs, inputs, 32)
        received, taken = (a - b for a, b in zip(switch_input(topo.p4switch), before, strict=True))
        return _summary([rep[1:] for rep in reports], args) | {"switch_input_drops": received - taken}
    # Packets travel several per datagram up to the links' MTU (no IP fragmentation).
    geometry = f"block_size={args.block_size},num_slots={args.slots},message_size={MESSAGE_SIZE}"
    if args.multicast:
        geometry += f",group={MULTICAST_GROUP}"
    servers = []
    # (aggregator host, local rank, local worker count) of every worker
    placement = {r: (topo.root, r, n) for r in range(n)}
    if topo.leaves:
        servers.append(_start_aggregator(topo.root, f"9:{len(topo.leaves)}:{geometry}"))
        for i, (leaf_agg, ranks) in enumerate(topo.leaves):
            servers.append(
                _start_aggregator(leaf_agg, f"1:{len(ranks)}:{geometry},upstream={topo.root.IP()},up_job=9,up_rank={i}")
            )
            placement.update({r: (leaf_agg, k, len(ranks)) for k, r in enumerate(ranks)})
    else:
        servers.append(_start_aggregator(topo.root, f"1:{n}:{geometry}"))
    procs = []
    for r, h in enumerate(topo.workers):
        agg, local_rank, local_n = placement[r]
        procs.append(
            _start_worker(
                h,
                ["--aggregator", f"{agg.IP()}:{AGG_UDP_PORT}", "--job", "1", "--rank", str(local_rank)]
                + ["--workers", str(local_n), "--total-workers", str(n), "--message-size", str(MESSAGE_SIZE)]
                + ["--slots", str(args.slots)]
                + _tensor_options(args, r, args.block_size, density, outputs[r])  # data per global rank
                + (["--group", MULTICAST_GROUP] if args.multicast else []),
                args.transport,
            )
        )
    inputs = [worker_tensor(r, placement[r][1], args.elements, args.block_size, density) for r in range(n)]
    try:
        reports = _checked(_json_reports(procs, "p4reduce worker"), outputs, inputs, args.block_size)
    finally:
        stop_processes(servers, grace=10)
    return _summary([rep[1:] for rep in reports], args)  # drop the warm-up


def _run_through_tree(topo: Topology, tree: P4Tree, args, density: float, outputs: list[pathlib.Path]) -> dict:
    """Every worker joins its leaf's job (local rank, the leaf's worker count) and scales for
    all of them; besides the usual summary, what the switches counted and the leaf-spine
    links carried per allreduce: rounds (the spine's results), the DATA the spine took (one
    per leaf per round), each leaf's upstream packets and uplink bytes, and the bytes each
    worker sent, for comparison."""
    from bmv2_node import AGG_IP

    from p4reduce.controller.config import JobConfig

    n = len(topo.workers)
    for sw in tree.switches():  # new worker processes start at round 0 of every slot
        sw.process.client.clear_job_registers(JobConfig(1, 0, args.slots, (), 1))
    before = _tree_traffic(tree)
    procs = [
        _start_worker(
            h,
            ["--aggregator", f"{AGG_IP}:{AGG_UDP_PORT}", "--bind", f"{h.IP()}:{BMV2_UDP_BASE + r}"]
            + ["--job", "1", "--rank", str(place.local_rank), "--workers", str(place.local_workers)]
            + ["--total-workers", str(n), "--mode", "dense", "--slots", str(args.slots)]
            + _tensor_options(args, r, 32, density, outputs[r]),
            args.transport,
        )
        for (r, h), place in zip(enumerate(topo.workers), tree.places, strict=True)
    ]
    inputs = [worker_tensor(r, place.local_rank, args.elements, 32, density) for r, place in enumerate(tree.places)]
    reports = _checked(_json_reports(procs, "p4reduce worker"), outputs, inputs, 32)
    return _summary([rep[1:] for rep in reports], args) | _tree_summary(tree, before, reports, args)


def _tree_traffic(tree: P4Tree) -> tuple[list[dict[str, int]], list[tuple[int, int]]]:
    """The switches' counters and the leaf-spine links' bytes so far."""
    return [sw.counters() for sw in tree.switches()], tree.link_bytes()


def _tree_summary(tree: P4Tree, before: tuple, reports: list[list[dict]], args) -> dict:
    """Since `before` (_tree_traffic): rounds (the spine's results), the DATA the spine took
    (one per leaf per round), each leaf's upstream packets, and per allreduce a leaf's
    uplink bytes next to the bytes each worker sent."""
    counters, link_bytes = _tree_traffic(tree)
    delta = [{k: a[k] - b[k] for k in a} for a, b in zip(counters, before[0], strict=True)]
    *leaf_counts, spine_counts = delta
    up = [a[0] - b[0] for a, b in zip(link_bytes, before[1], strict=True)]
    allreduces = args.iterations + 2  # the warm-up, and the one-element barrier of each
    return dict(
        rounds=spine_counts["result_multicast"],
        spine_data_packets=spine_counts["data_counted"],
        upstream_packets_per_leaf=statistics.mean(c["upstream"] for c in leaf_counts),
        uplink_bytes_per_leaf=statistics.mean(up) / allreduces,
        worker_link_bytes=statistics.mean(it["wire_bytes_sent"] for rep in reports for it in rep[1:]),
    )


def _run_through_service(topo: Topology, args, density: float, outputs: list[pathlib.Path]) -> dict:
    """Workers that know only the job service's address and a job name; the service places
    the job (on the BMv2 switch, or on its fallback software aggregator) and says with which
    geometry."""
    n = len(topo.workers)
    on_switch = topo.p4switch is not None or topo.p4tree is not None
    block_size = 32 if on_switch else args.block_size  # the switch's packets
    before = _tree_traffic(topo.p4tree) if topo.p4tree is not None else None
    name = f"mininet-{density:g}"  # a job of its own for each density (released when its workers close)
    procs = [
        _start_worker(
            h,
            ["--controller", f"{topo.root.IP()}:{SERVICE_PORT}", "--job-name", name]
            + ["--rank", str(r), "--workers", str(n)]
            + _tensor_options(args, r, block_size, density, outputs[r]),
            args.transport,
        )
        for r, h in enumerate(topo.workers)
    ]
    inputs = [worker_tensor(r, r, args.elements, block_size, density) for r in range(n)]
    reports = _checked(_json_reports(procs, "p4reduce worker"), outputs, inputs, block_size)
    _check_placement(reports, name, "switch" if on_switch else "software")
    summary = _summary([rep[1:] for rep in reports], args)  # drop the warm-up
    if topo.p4tree is not None and before is not None:  # (the uplinks also carry the service's gRPC)
        summary |= _tree_summary(topo.p4tree, before, reports, args)
    return summary


# What a packet into a BMv2 star switch's pipeline counts: exactly one of the events but
# these (p4src/p4reduce.p4): a completed round counts result_multicast beside data_counted,
# and the uplink's events are a leaf's, not a star's.
_INGRESS_EVENTS = tuple(
    e for e in EVENT_NAMES if e not in ("result_multicast", "upstream", "from_parent", "parent_dropped")
)


def switch_input(switch) -> tuple[int, int]:
    """(frames the switch's ports have received, packets its pipeline has taken) so far:
    where the first grows faster, BMv2 dropped frames before its pipeline saw them."""
    received = sum(interface_stat(intf.name, "rx_packets") for intf in switch.intfList() if intf.name != "lo")
    counters = switch.counters()
    return received, sum(counters[name] for name in _INGRESS_EVENTS)


def _check_placement(reports: list[list[dict]], name: str, expected: str) -> None:
    """The job ran where this experiment means it to: every worker's report says where the
    service placed it (the job itself is released once its workers have closed)."""
    targets = {line.get("target") for report in reports for line in report}
    if targets != {expected}:
        raise WrongResult(
            f"job {name!r} was meant for the {expected}, but the workers report {sorted(map(str, targets))}"
        )
    print(f"job {name!r}: on the {expected}", flush=True)


def _summary(reports: list[list[dict]], args) -> dict:
    """Over the measured iterations (the warm-up is dropped): median allreduce time
    (slowest worker), wire bytes per worker, and retransmissions (queries included)
    next to all packets the workers sent, and per allreduce (all workers' together:
    is there a steady state, or one loss event?)."""
    per_iter = [max(rep[i]["seconds"] for rep in reports) for i in range(args.iterations)]
    by_iter = [sum(rep[i]["retransmissions"] + rep[i]["queries"] for rep in reports) for i in range(args.iterations)]
    return {
        "ignored": sum(rep[i]["ignored_packets"] for rep in reports for i in range(args.iterations)),
        "median_s": statistics.median(per_iter),
        "wire": statistics.mean(rep[-1]["wire_bytes_sent"] for rep in reports),
        "retx": sum(by_iter),
        "retx_by_iter": by_iter,
        "packets": sum(it["packets_sent"] for rep in reports for it in rep),
    }


def check_forwarding(hosts: list, tries: int = 5) -> None:
    """The network carries IP between the first host and each other one (a ping, `tries`
    times at most: one answer will do); RuntimeError naming the hosts if not. What gloo's
    TCP between the workers needs, checked before anything runs: without it gloo would
    wait out its timeout."""
    if shutil.which("ping") is None:
        return
    for h in hosts[1:]:
        if not any(
            "ping-exit=0" in hosts[0].cmd(f"ping -c 1 -W 1 {h.IP()} >/dev/null 2>&1; echo ping-exit=$?")
            for _ in range(tries)
        ):
            raise RuntimeError(
                f"{hosts[0].name} does not reach {h.name} ({h.IP()}) over the network: is the switch programmed?"
            )


def run_gloo(topo: Topology, args) -> float | None:
    hosts = topo.workers
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    master = f"{hosts[0].IP()}:29517"
    procs = [
        _tracked(
            h.popen(
                [
                    PY,
                    str(HERE / "gloo_allreduce.py"),
                    "--master",
                    master,
                    "--rank",
                    str(r),
                    "--workers",
                    str(len(hosts)),
                    "--elements",
                    str(args.elements),
                    "--iterations",
                    str(args.iterations),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                # gloo would otherwise pick the hostname's address (loopback)
                env=dict(os.environ, GLOO_SOCKET_IFNAME=h.defaultIntf().name),
            )
        )
        for r, h in enumerate(hosts)
    ]
    reports = _json_reports(procs, "gloo worker")
    return statistics.median(max(rep[i]["seconds"] for rep in reports) for i in range(args.iterations))


SETUPS = {
    ("bmv2", "star"): "BMv2 switch aggregates",
    ("lxbr", "star"): "Linux bridge + software aggregator",
    ("lxbr", "leafspine"): "leaf/spine bridges + leaf and spine software aggregators",
    ("bmv2", "leafspine"): "BMv2 leaves under a BMv2 spine aggregate",
}


def panels(rows: list[dict]) -> tuple[list[Panel], str]:
    """Time and goodput over density, with gloo's dense allreduce as a baseline when it was
    measured; and the figure's title (what aggregated, workers, tensor size, link rate)."""
    p4 = sorted((r for r in rows if r["method"] == "p4reduce"), key=lambda r: r["density"])
    gloo = [r for r in rows if r["method"] == "gloo_dense"]  # dense: one measurement per run
    setups = list(dict.fromkeys((r["switch"], r["topo"]) for r in p4))  # one series each (--compare-star)
    figures = [
        Panel(
            "",
            "non-zero blocks (%)",
            label,
            {
                ("p4reduce" if len(setups) == 1 else f"p4reduce: {SETUPS[setup]}"): (
                    [r["density"] * 100 for r in p4 if (r["switch"], r["topo"]) == setup],
                    [r[key] for r in p4 if (r["switch"], r["topo"]) == setup],
                )
                for setup in setups
            },
            {"gloo allreduce (dense)": gloo[-1][key]} if gloo else {},
        )
        for key, label in (("median_ms", "allreduce time (ms)"), ("goodput_mbit", "goodput (Mbit/s of tensor)"))
    ]
    first = rows[0]
    setup = " vs ".join(SETUPS[s] for s in setups) if setups else SETUPS[first["switch"], first["topo"]]
    if first["multicast"]:
        setup += " (multicast results)"
    if first.get("service"):
        setup += ", placed by the job service"
    if first["loss"]:
        setup += f", {first['loss']:.1%} loss per worker link"
    return figures, setup_title(setup, first["workers"], first["elements"] * 4, first["bw_mbit"])


def _require_mininet() -> None:
    """Mininet's Python module must be importable by this interpreter (not only Debian's python3)."""
    try:
        from mininet.net import Mininet  # noqa: F401
    except ImportError:
        raise SystemExit(
            f"{sys.executable} cannot import Mininet's Python module: install it with "
            "`pip install 'p4reduce[mininet]'` (mnexec comes from Debian's `mininet` "
            "package), or run this script with the interpreter that has it"
        ) from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, `--switch auto` resolved (BMv2 if installed), its options checked
    against each other (usage error, exit 2, if they do not go together)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument(
        "--switch",
        choices=["auto", "bmv2", "lxbr"],
        default="auto",
        help="bmv2: the P4 program aggregates (dense mode, 32 values per packet); "
        "lxbr: Linux bridge + software aggregator host; auto: bmv2 if installed",
    )
    ap.add_argument(
        "--topo",
        choices=["star", "leafspine"],
        default="star",
        help="leafspine: leaves under a spine (hierarchical aggregation; --leaves): with --switch bmv2 "
        "BMv2 switches (leaf jobs with uplinks, the spine's job of leaves), with lxbr bridges and "
        "software leaf and spine aggregators",
    )
    ap.add_argument("--elements", type=int, default=1_000_000)
    ap.add_argument("--densities", type=float, nargs="+", default=[0.001, 0.01, 0.1, 0.5, 1.0])
    ap.add_argument("--block-size", type=int, default=256)
    ap.add_argument("--slots", type=int, default=64)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--bw", type=float, default=None, help="link bandwidth, Mbit/s")
    ap.add_argument(
        "--agg-bw",
        type=float,
        default=None,
        help="bandwidth of the aggregator host's link (default: --bw); workers x bw "
        "models an aggregator inside the switch",
    )
    ap.add_argument("--delay", type=float, default=0.0, help="link delay, ms (needs netem)")
    ap.add_argument("--loss", type=float, default=0.0, help="loss probability per worker link")
    ap.add_argument(
        "--uplink-loss",
        type=float,
        default=0.0,
        help="with --switch bmv2 --topo leafspine: loss probability on each leaf-spine link, both ways (nftables)",
    )
    ap.add_argument("--no-gloo", action="store_true", help="skip the gloo dense baseline")
    ap.add_argument(
        "--multicast",
        action="store_true",
        help="software aggregators send each result once to an IP multicast group "
        "(the bridge replicates it, as a switch would)",
    )
    ap.add_argument(
        "--service",
        action="store_true",
        help="run the job service (p4reduce controller serve), which programs the BMv2 switch or leaf/spine "
        "tree (or places the jobs on its fallback aggregator with lxbr): workers get only its address and a job name",
    )
    ap.add_argument(
        "--transport",
        choices=["udp", "packet", "xdp"],
        default="udp",
        help="the workers' transport: udp sockets, packet (AF_PACKET rings) or xdp (AF_XDP, when "
        "p4reduce was built with libxdp): the worker builds the frames; software aggregators then "
        "send MTU-sized frames, as on a real link",
    )
    ap.add_argument(
        "--leaves",
        type=int,
        default=2,
        help="--topo leafspine: leaves under the spine, the workers split among them in rank order (default: 2)",
    )
    ap.add_argument(
        "--compare-star",
        action="store_true",
        help="with --switch bmv2 --topo leafspine: then run the same sweep with every worker under one "
        "BMv2 switch, in the same run (rows and plot side by side)",
    )
    ap.add_argument(
        "--cpu-hogs",
        type=int,
        default=0,
        metavar="N",
        help="keep N busy processes running beside the experiment (outside Mininet, stopped with the run), "
        "to measure the switch runs on a loaded machine; the CSV says how many",
    )
    ap.add_argument("--out", default="results/mininet")
    ap.add_argument(
        "--check-args",
        action="store_true",
        help="check the options (against each other too) and exit: nothing is run, no root or Mininet needed",
    )
    args = ap.parse_args(argv)
    if args.switch == "auto":
        from p4reduce.testbed.bmv2 import simple_switch_missing  # (P4Runtime's client: only if needed)

        args.switch = "bmv2" if simple_switch_missing() is None else "lxbr"
    problem = option_problem(args)
    if problem is not None:
        ap.error(problem)
    return args


def option_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with `args` (--switch resolved), options that do not go together
    included; None if nothing."""
    for name in ("workers", "elements", "iterations", "slots", "block_size", "leaves"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} must be at least 1"
    if not 0 <= args.cpu_hogs <= 64:
        return f"--cpu-hogs {args.cpu_hogs}: 0..64 busy processes"
    if any(not 0 < d <= 1 for d in args.densities):
        return f"--densities are shares of non-zero blocks, in (0, 1]: {args.densities}"
    for name in ("loss", "uplink_loss"):
        if not 0 <= getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} is a probability in [0, 1)"
    if args.delay < 0 or (args.bw is not None and args.bw <= 0) or (args.agg_bw is not None and args.agg_bw <= 0):
        return "--delay must be at least 0, --bw and --agg-bw above 0"
    if args.topo == "leafspine" and not 2 <= args.leaves <= args.workers:
        return f"--leaves {args.leaves}: 2..{args.workers} (every leaf needs a worker)"
    if args.uplink_loss and (args.switch != "bmv2" or args.topo != "leafspine"):
        return "--uplink-loss needs --switch bmv2 --topo leafspine"
    if args.compare_star and (args.switch != "bmv2" or args.topo != "leafspine"):
        return "--compare-star compares --switch bmv2 --topo leafspine with one BMv2 switch"
    if args.service and args.topo != "star" and args.switch != "bmv2":
        return "--service runs with --topo star, or with --switch bmv2 --topo leafspine"
    if args.service and args.compare_star:
        return "--compare-star runs without --service"
    if args.multicast and args.switch == "bmv2":
        return "--multicast is for software aggregators (--switch lxbr): the P4 switch replicates results itself"
    if args.multicast and args.service:
        return "--multicast is for the runner's own software aggregators, not the job service's fallback"
    if args.switch == "bmv2" and args.slots > 1024:
        return "the P4 switch has 1024 slots"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.check_args:
        print(f"options consistent: --switch {args.switch} --topo {args.topo} --workers {args.workers}", flush=True)
        return 0
    _require_mininet()
    if os.geteuid() != 0:
        raise SystemExit("Mininet needs root: run with sudo")
    from mininet.log import setLogLevel

    setLogLevel("warning")
    return run_cleanly(lambda: _experiment(args))


def run_cleanly(body) -> int:
    """`body()`'s exit status, run as this process's Run (RUN): whatever ends it, what it
    started is gone when this returns (or raises); 128 + the signal's number after a stop
    signal."""
    global RUN
    RUN = Run()
    stopped = None
    try:
        return body()
    except Stopped as stop:
        stopped = stop
        return 128 + stop.signum
    finally:
        RUN.close()
        if stopped is not None:
            print(f"stopped by {stopped}: the run's network and processes are gone", file=sys.stderr, flush=True)


def _experiment(args: argparse.Namespace) -> int:
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    topo = build_topology(args)
    start_cpu_hogs(args.cpu_hogs)
    if args.transport != "udp":
        for h in [topo.root, *(agg for agg, _ in topo.leaves)]:
            if h is not None:  # the hosts of software aggregators (the job service's fallback)
                wire_segmentation(h)
    rows = sweep(topo, args, with_gloo=not args.no_gloo)
    if args.compare_star:  # the same workers under one BMv2 switch, in the same run
        star = argparse.Namespace(**{**vars(args), "topo": "star"})
        rows += sweep(build_topology(star), star, with_gloo=False)
    save_results(out, FIELDS, rows, *panels(rows))
    return 0


def start_cpu_hogs(n: int) -> list[subprocess.Popen]:
    """`n` processes that only spin (at the experiment's own priority), tracked by the run
    so that whatever ends it stops them."""
    spin = [sys.executable, "-c", "while True: pass"]
    return [_tracked(subprocess.Popen(spin, start_new_session=True)) for _ in range(n)]


def sweep(topo: Topology, args, with_gloo: bool) -> list[dict]:
    """gloo's dense allreduce (once) and p4reduce at every density on `topo`, which is
    stopped afterwards; the rows of the CSV."""
    rows = []
    tensor_mbit = args.elements * 32 / 1e6
    common = dict(
        switch=args.switch,
        topo=args.topo,
        multicast=args.multicast,
        service=args.service,
        transport=args.transport,
        workers=args.workers,
        elements=args.elements,
        block_size=args.block_size,
        bw_mbit=args.bw,
        agg_bw_mbit=args.agg_bw or args.bw,
        loss=args.loss,
        cpu_hogs=args.cpu_hogs,
    )
    try:
        if with_gloo:
            t = run_gloo(topo, args)
            if t is not None:
                rows.append(
                    dict(
                        common,
                        method="gloo_dense",
                        density=1.0,
                        median_ms=t * 1e3,
                        goodput_mbit=tensor_mbit / t,
                        wire_bytes_per_worker=None,
                        retransmissions=None,
                        packets=None,
                        retransmissions_by_allreduce=None,
                        ignored_packets=None,
                    )
                )
                print(f"gloo dense: {t * 1e3:.1f} ms", flush=True)
        for density in args.densities:
            r = run_p4reduce(topo, args, density)
            rows.append(
                dict(
                    common,
                    method="p4reduce",
                    density=density,
                    median_ms=r["median_s"] * 1e3,
                    goodput_mbit=tensor_mbit / r["median_s"],
                    wire_bytes_per_worker=r["wire"],
                    retransmissions=r["retx"],
                    packets=r["packets"],
                    retransmissions_by_allreduce=" ".join(map(str, r["retx_by_iter"])),
                    ignored_packets=r["ignored"],
                    switch_input_drops=r.get("switch_input_drops"),
                    **{k: r.get(k) for k in TREE_FIELDS},
                )
            )
            print(
                f"p4reduce ({args.switch} {args.topo}) density {density:.1%}: {r['median_s'] * 1e3:.1f} ms, "
                f"{r['wire'] / 1e6:.2f} MB per worker, {r['retx']} retransmissions of "
                f"{r['packets']} packets ({r['retx'] / max(1, r['packets']):.2%}; by allreduce: "
                f"{' '.join(map(str, r['retx_by_iter']))}); {r['ignored']} late copies of results ignored",
                flush=True,
            )
            if r.get("switch_input_drops") is not None:
                print(f"  the switch dropped {r['switch_input_drops']} frames on input", flush=True)
            if "rounds" in r:
                print(
                    f"  switches: {r['rounds']} rounds, the spine took {r['spine_data_packets']} DATA "
                    f"({r['spine_data_packets'] / max(1, r['rounds']):.2f} per round: one per leaf), each leaf sent "
                    f"{r['upstream_packets_per_leaf']:.0f} up; per allreduce a leaf's uplink carried "
                    f"{r['uplink_bytes_per_leaf'] / 1e6:.3f} MB up, "
                    f"a worker's link {r['worker_link_bytes'] / 1e6:.3f} MB",
                    flush=True,
                )
    finally:
        topo.stop()
    return rows


if __name__ == "__main__":
    sys.exit(main())
