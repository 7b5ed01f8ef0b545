# SPDX-License-Identifier: Apache-2.0
"""A job spanning several switches: leaves under one spine (docs/several_switches.md).

A tree document names the switches (each with its aggregation address: the MAC and IP
its workers, or the leaves below it, send to), which one is the spine, the link of each
leaf to the spine (the leaf's port and the spine's), and the jobs with their workers by
global rank (or placed by leaf: `_ranked`), each under a leaf. `switch_configs` turns it into one controller
configuration per switch: on each leaf the job of the workers under it (local ranks in
global rank order) with an `uplink` to the spine, on the spine the job whose members are
the leaves (rank = the leaf's place in `links`). `placement` says, per global rank, the
leaf, the local rank and the leaf's worker count a worker starts with (`--job`, `--rank`,
`--workers`; `--total-workers` is the job's size). No I/O but reading the file.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from p4reduce.controller.config import (
    BroadcastConfig,
    Config,
    ConfigError,
    JobConfig,
    L2Entry,
    SwitchConfig,
    UplinkConfig,
    WorkerEntry,
    check_int,
    check_ip,
    check_keys,
    check_list,
    check_unicast_mac,
    parse_config,
    parse_switch,
    read_document,
)
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.protocol.switch import SWITCH_MAX_PORT, SWITCH_MAX_WORKERS, SWITCH_SLOTS

__all__ = [
    "Tree",
    "TreeJob",
    "TreePlace",
    "job_configs",
    "load_tree",
    "parse_topology",
    "parse_tree",
    "place_job",
    "placement",
    "switch_configs",
    "switch_documents",
    "tree_l2",
    "tree_sessions",
]


@dataclass(frozen=True)
class TreeSwitch:
    name: str
    switch: SwitchConfig  # how the controller reaches it
    mac: str  # its aggregation address: what the workers (or the leaves) below it send to
    ip: str


@dataclass(frozen=True)
class TreeLink:
    leaf: str
    port: int  # the leaf's port towards the spine
    spine_port: int  # the spine's port towards the leaf


@dataclass(frozen=True)
class TreeWorker:
    rank: int  # in the whole job
    leaf: str
    entry: WorkerEntry  # worker_id: its local rank under the leaf


@dataclass(frozen=True)
class TreeJob:
    job_id: int
    slot_base: int
    num_slots: int
    workers: tuple[TreeWorker, ...]  # by global rank

    def under(self, leaf: str) -> list[TreeWorker]:
        return [w for w in self.workers if w.leaf == leaf]


@dataclass(frozen=True)
class Tree:
    switches: dict[str, TreeSwitch]
    spine: str
    links: tuple[TreeLink, ...]  # leaf i of the spine's job is links[i].leaf
    jobs: tuple[TreeJob, ...]

    @property
    def leaves(self) -> list[str]:
        return [link.leaf for link in self.links]


@dataclass(frozen=True)
class TreePlace:
    """Where global rank `rank` runs: under `leaf`, rank `local_rank` of the leaf's job of
    `local_workers` workers."""

    rank: int
    leaf: str
    local_rank: int
    local_workers: int


def _switch(name: str, data: Any) -> TreeSwitch:
    where = f"switches.{name}"
    d = check_keys(where, data, {"mac", "ip"}, {"grpc_addr", "device_id", "election_id", "thrift_port", "thrift_ip"})
    return TreeSwitch(
        name,
        parse_switch({k: v for k, v in d.items() if k not in ("mac", "ip")}),
        check_unicast_mac(f"{where}.mac", d["mac"]),
        check_ip(f"{where}.ip", d["ip"]),
    )


def _link(i: int, data: Any, switches: Mapping[str, TreeSwitch], spine: str) -> TreeLink:
    where = f"links[{i}]"
    d = check_keys(where, data, {"leaf", "port", "spine_port"}, set())
    if d["leaf"] not in switches or d["leaf"] == spine:
        raise ConfigError(f"{where}.leaf: {d['leaf']!r} is not a leaf switch of `switches`")
    return TreeLink(
        d["leaf"],
        check_int(f"{where}.port", d["port"], 0, SWITCH_MAX_PORT),
        check_int(f"{where}.spine_port", d["spine_port"], 0, SWITCH_MAX_PORT),
    )


def _ranked(where: str, listed: list[dict[str, Any]], leaves: list[str]) -> list[dict[str, Any]]:
    """The workers by global rank. Given ranks must be 0..N-1; without any, the ranks are
    placed by where the workers sit (Cloud Collectives' rank reordering): the workers under
    the first leaf of `links` get the first ranks, in the order they are listed, and so on,
    so that every leaf's workers hold consecutive ranks."""
    if not listed:
        raise ConfigError(f"{where}.workers: a job needs at least one worker")
    given = ["rank" in w for w in listed]
    if not any(given):
        order = {leaf: i for i, leaf in enumerate(leaves)}
        placed = sorted(listed, key=lambda w: order.get(w["switch"], len(order)))  # (stable: listed order)
        return [dict(w, rank=r) for r, w in enumerate(placed)]
    if not all(given):
        raise ConfigError(f"{where}.workers: give every worker a rank, or none (placed by leaf)")
    ranked = sorted(listed, key=lambda w: check_int(f"{where} worker rank", w["rank"], 0, 2**16))
    if [w["rank"] for w in ranked] != list(range(len(ranked))):
        raise ConfigError(f"{where}: worker ranks must be 0..{len(ranked) - 1}, got {[w['rank'] for w in ranked]}")
    return ranked


def _job(i: int, data: Any, links: Mapping[str, TreeLink]) -> TreeJob:
    d = check_keys(f"jobs[{i}]", data, {"job_id", "slot_base", "num_slots", "workers"}, set())
    job_id = check_int(f"jobs[{i}].job_id", d["job_id"], 0, 65535)
    where = f"job {job_id}"
    base = check_int(f"{where}.slot_base", d["slot_base"], 0, SWITCH_SLOTS - 1)
    count = check_int(f"{where}.num_slots", d["num_slots"], 1, SWITCH_SLOTS - base)
    listed = [
        check_keys(f"{where}.workers[{k}]", w, {"switch", "port", "mac", "ip", "udp_port"}, {"rank"})
        for k, w in enumerate(check_list(f"{where}.workers", d["workers"]))
    ]
    sitting = []
    for w in _ranked(where, listed, list(links)):
        leaf = w["switch"]
        if leaf not in links:
            raise ConfigError(f"{where} rank {w['rank']}.switch: {leaf!r} is not a leaf with a link to the spine")
        port = check_int(f"{where} rank {w['rank']}.port", w["port"], 0, SWITCH_MAX_PORT)
        if port == links[leaf].port:
            raise ConfigError(f"{where} rank {w['rank']}: port {port} of leaf {leaf!r} is its link to the spine")
        entry = WorkerEntry(
            0,
            port,
            check_unicast_mac(f"{where} rank {w['rank']}.mac", w["mac"]),
            check_ip(f"{where} rank {w['rank']}.ip", w["ip"]),
            check_int(f"{where} rank {w['rank']}.udp_port", w["udp_port"], 1, 65535),
        )
        sitting.append((leaf, entry))
    return place_job(job_id, base, count, sitting)


def place_job(job_id: int, slot_base: int, num_slots: int, sitting: list[tuple[str, WorkerEntry]]) -> TreeJob:
    """The job whose global ranks are `sitting`'s order (leaf, entry): each leaf's workers
    get local ranks 0, 1, ... in that order (the entries' worker_id is replaced)."""
    local: dict[str, int] = {}
    workers = []
    for rank, (leaf, entry) in enumerate(sitting):
        local[leaf] = local.get(leaf, -1) + 1
        if local[leaf] >= SWITCH_MAX_WORKERS:
            raise ConfigError(f"job {job_id}: more than {SWITCH_MAX_WORKERS} workers under leaf {leaf!r}")
        workers.append(TreeWorker(rank, leaf, dataclasses.replace(entry, worker_id=local[leaf])))
    return TreeJob(job_id, slot_base, num_slots, tuple(workers))


def parse_topology(d: dict[str, Any]) -> Tree:
    """The `switches`, `spine` and `links` of a tree document (or of the job service's
    `tree` section), as a tree without jobs."""
    if not isinstance(d["switches"], dict) or not d["switches"]:
        raise ConfigError("switches: a mapping of switch names to {grpc_addr, thrift_port, mac, ip}")
    switches = {str(name): _switch(str(name), s) for name, s in d["switches"].items()}
    spine = d["spine"]
    if spine not in switches:
        raise ConfigError(f"spine: {spine!r} is not one of `switches` ({', '.join(switches)})")
    links = tuple(_link(i, x, switches, spine) for i, x in enumerate(check_list("links", d["links"])))
    if len({link.leaf for link in links}) != len(links):
        raise ConfigError("links: a leaf has one link to the spine")
    if len({link.spine_port for link in links}) != len(links):
        raise ConfigError("links: each leaf needs a spine port of its own")
    if not 1 <= len(links) <= SWITCH_MAX_WORKERS:
        raise ConfigError(f"links: 1..{SWITCH_MAX_WORKERS} leaves under the spine, got {len(links)}")
    return Tree(switches, spine, links, ())


def parse_tree(data: Any) -> Tree:
    d = check_keys("tree", data, {"switches", "spine", "links", "jobs"}, set())
    topology = parse_topology(d)
    switches, spine, links = topology.switches, topology.spine, topology.links
    by_leaf = {link.leaf: link for link in links}
    jobs = tuple(_job(i, j, by_leaf) for i, j in enumerate(check_list("jobs", d["jobs"])))
    ids = [j.job_id for j in jobs]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"jobs: duplicate job ids {sorted(ids)}")
    where: dict[str, tuple[str, int]] = {}  # the tree is one L2 network: a MAC is at one place
    for job in jobs:
        for w in job.workers:
            seen = where.setdefault(w.entry.mac, (w.leaf, w.entry.port))
            if seen != (w.leaf, w.entry.port):
                raise ConfigError(
                    f"job {job.job_id} rank {w.rank}: MAC {w.entry.mac} is also at {seen[0]} port {seen[1]} "
                    "(the tree is one L2 network)"
                )
    # (overlapping slots are refused per switch, by switch_configs)
    return Tree(switches, spine, links, jobs)


def load_tree(source: str | pathlib.Path | dict[str, Any]) -> Tree:
    return parse_tree(source if isinstance(source, dict) else read_document(pathlib.Path(source)))


def _switch_document(switch: TreeSwitch) -> dict[str, Any]:
    c = switch.switch
    return {
        "grpc_addr": c.grpc_addr,
        "device_id": c.device_id,
        "election_id": c.election_id,
        "thrift_port": c.thrift_port,
        "thrift_ip": c.thrift_ip,
    }


def _worker_document(e: WorkerEntry) -> dict[str, Any]:
    return {"worker_id": e.worker_id, "port": e.port, "mac": e.mac, "ip": e.ip, "udp_port": e.udp_port}


def job_configs(
    tree: Tree, job: TreeJob, sessions: Mapping[tuple[str, int], int], mgid: int | None = None
) -> dict[str, JobConfig]:
    """The job on every switch: on each leaf the workers under it (local ranks) with an
    uplink to the spine, on the spine the leaves as members (rank = the leaf's place in
    `links`). `sessions[(switch, job_id)]`: the job's session there (the spine's is also
    what the uplinks carry); `mgid`: the multicast group on every switch (default job_id + 1)."""
    spine = tree.switches[tree.spine]
    group = job.job_id + 1 if mgid is None else mgid
    spine_session = sessions[(tree.spine, job.job_id)]
    configs: dict[str, JobConfig] = {}
    members = []
    for rank, link in enumerate(tree.links):
        leaf = tree.switches[link.leaf]
        under = job.under(link.leaf)
        if not under:
            raise ConfigError(f"job {job.job_id}: no worker under leaf {link.leaf!r} (drop its link, or add one)")
        uplink = UplinkConfig(job.job_id, rank, spine_session, link.port, spine.mac, spine.ip, AGG_UDP_PORT)
        configs[link.leaf] = JobConfig(
            job.job_id,
            job.slot_base,
            job.num_slots,
            tuple(w.entry for w in under),
            group,
            session=sessions[(link.leaf, job.job_id)],
            uplink=uplink,
        )
        members.append(WorkerEntry(rank, link.spine_port, leaf.mac, leaf.ip, AGG_UDP_PORT))
    configs[tree.spine] = JobConfig(
        job.job_id, job.slot_base, job.num_slots, tuple(members), group, session=spine_session
    )
    return configs


def switch_documents(tree: Tree, sessions: Mapping[tuple[str, int], int]) -> dict[str, dict[str, Any]]:
    """One controller configuration document per switch (what `p4reduce controller install
    --config` reads): every job's `job_configs`, and L2 forwarding across the tree."""
    docs: dict[str, dict[str, Any]] = {
        name: {"switch": _switch_document(sw), "jobs": [], "l2": []} for name, sw in tree.switches.items()
    }
    for job in tree.jobs:
        for name, config in job_configs(tree, job, sessions).items():
            docs[name]["jobs"].append(_job_document(config))
    sitting = [(w.leaf, w.entry.mac, w.entry.port) for job in tree.jobs for w in job.workers]
    for name, (l2, broadcast) in tree_l2(tree, sitting).items():
        docs[name]["l2"] = [{"mac": e.mac, "port": e.port} for e in l2]
        if broadcast is not None:
            docs[name]["broadcast"] = {"mgid": broadcast.mgid, "ports": list(broadcast.ports)}
    return docs


def _job_document(c: JobConfig) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "job_id": c.job_id,
        "slot_base": c.slot_base,
        "num_slots": c.num_slots,
        "mgid": c.mgid,
        "session": c.session,
        "workers": [_worker_document(w) for w in c.workers],
    }
    if c.uplink is not None:
        doc["uplink"] = dataclasses.asdict(c.uplink)
    return doc


BROADCAST_MGID = 1000  # above the jobs' groups (job_id + 1) of the examples; any free one


def tree_l2(
    tree: Tree, sitting: Iterable[tuple[str, str, int]]
) -> dict[str, tuple[list[L2Entry], BroadcastConfig | None]]:
    """Per switch, its L2 entries and broadcast group for workers `sitting` at (leaf, MAC,
    port). The tree is one L2 network for the workers' other traffic (e.g. gloo's TCP): a
    leaf reaches its own workers on their ports and the other leaves' through its uplink,
    the spine every worker through its leaf's link, and broadcasts (ARP) are flooded over
    every worker and link port (a tree has no loops; a switch never floods back where a
    frame came in). One entry per MAC (a worker of several jobs)."""
    links = {link.leaf: link for link in tree.links}
    l2: dict[str, dict[str, L2Entry]] = {name: {} for name in tree.switches}
    ports: dict[str, set[int]] = {name: set() for name in tree.switches}
    for leaf, mac, port in sitting:
        for link in tree.links:
            ports[link.leaf].add(link.port)
            ports[tree.spine].add(link.spine_port)
            l2[link.leaf][mac] = L2Entry(mac, port if link.leaf == leaf else link.port)
        ports[leaf].add(port)
        l2[tree.spine][mac] = L2Entry(mac, links[leaf].spine_port)
    return {
        name: (
            sorted(entries.values(), key=lambda e: e.port),
            BroadcastConfig(BROADCAST_MGID, tuple(sorted(ports[name]))) if ports[name] else None,
        )
        for name, entries in l2.items()
    }


def switch_configs(tree: Tree, sessions: Mapping[tuple[str, int], int]) -> dict[str, Config]:
    """`switch_documents`, each validated as `load_config` validates a file."""
    return {name: parse_config(doc) for name, doc in switch_documents(tree, sessions).items()}


def tree_sessions(tree: Tree, draw: Callable[[], int]) -> dict[tuple[str, int], int]:
    """A session per job per switch, from `draw` (the controller's new_session)."""
    return {(name, job.job_id): draw() for job in tree.jobs for name in (tree.spine, *tree.leaves)}


def placement(tree: Tree, job_id: int) -> list[TreePlace]:
    """Per global rank of job `job_id`: its leaf, its local rank and the leaf's worker count."""
    job = next((j for j in tree.jobs if j.job_id == job_id), None)
    if job is None:
        raise ConfigError(f"no job {job_id} in the tree (have: {', '.join(str(j.job_id) for j in tree.jobs)})")
    counts = {leaf: len(job.under(leaf)) for leaf in tree.leaves}
    return [TreePlace(w.rank, w.leaf, w.entry.worker_id, counts[w.leaf]) for w in job.workers]
