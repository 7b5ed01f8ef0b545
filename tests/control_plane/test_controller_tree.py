# SPDX-License-Identifier: Apache-2.0
"""A job spanning several switches (p4reduce.controller.tree): the tree document becomes one
configuration per switch, leaf jobs with their uplinks and the spine's job of leaves."""

from __future__ import annotations

import copy
import pathlib

import pytest
import yaml

from p4reduce.controller.config import ConfigError, UplinkConfig, WorkerEntry
from p4reduce.controller.tree import TreePlace, load_tree, placement, switch_configs, tree_sessions

TREE = pathlib.Path(__file__).resolve().parents[2] / "controller" / "examples" / "tree.yaml"
RAW = yaml.safe_load(TREE.read_text())
SESSIONS = {("spine", 1): 900, ("leaf0", 1): 100, ("leaf1", 1): 101}


def test_the_example_tree_becomes_a_leaf_job_per_leaf_and_a_spine_job_of_leaves():
    tree = load_tree(TREE)
    configs = switch_configs(tree, SESSIONS)
    assert set(configs) == {"spine", "leaf0", "leaf1"}
    (spine_job,) = configs["spine"].jobs
    assert spine_job.session == 900 and spine_job.uplink is None
    assert spine_job.workers == (
        WorkerEntry(0, 1, "02:00:00:00:00:fe", "10.0.0.254", 48864),
        WorkerEntry(1, 2, "02:00:00:00:00:fe", "10.0.0.254", 48864),
    )
    for rank, name in enumerate(("leaf0", "leaf1")):
        (job,) = configs[name].jobs
        assert job.session == SESSIONS[(name, 1)] and [w.worker_id for w in job.workers] == [0, 1]
        assert job.slots == spine_job.slots
        assert job.uplink == UplinkConfig(1, rank, 900, 3, "02:00:00:00:01:fe", "10.0.1.254", 48864)
        # its workers on their ports, the other leaf's through the uplink; broadcast over all
        assert [e.port for e in configs[name].l2] == [1, 2, 3, 3]
        assert configs[name].broadcast is not None and configs[name].broadcast.ports == (1, 2, 3)
        assert configs[name].switch.grpc_addr == RAW["switches"][name]["grpc_addr"]
    assert [e.port for e in configs["spine"].l2] == [1, 1, 2, 2]
    assert configs["spine"].broadcast is not None and configs["spine"].broadcast.ports == (1, 2)
    assert placement(tree, 1) == [
        TreePlace(0, "leaf0", 0, 2),
        TreePlace(1, "leaf0", 1, 2),
        TreePlace(2, "leaf1", 0, 2),
        TreePlace(3, "leaf1", 1, 2),
    ]
    drawn = iter(range(1, 100))
    assert set(tree_sessions(tree, lambda: next(drawn))) == set(SESSIONS)


def test_local_ranks_follow_the_global_ones_under_each_leaf():
    raw = copy.deepcopy(RAW)
    workers = raw["jobs"][0]["workers"]
    workers[1]["switch"], workers[2]["switch"] = "leaf1", "leaf0"  # ranks 0, 2 / 1, 3
    workers[1]["port"], workers[2]["port"] = 2, 1
    tree = load_tree(raw)
    assert [(p.leaf, p.local_rank) for p in placement(tree, 1)] == [
        ("leaf0", 0),
        ("leaf1", 0),
        ("leaf0", 1),
        ("leaf1", 1),
    ]


def test_without_ranks_the_workers_under_one_leaf_get_consecutive_ranks():
    """Listed in any order, they are placed leaf by leaf (the links' order), each leaf's in
    the order they are listed."""
    raw = copy.deepcopy(RAW)
    w = raw["jobs"][0]["workers"]
    for x in w:
        del x["rank"]
    raw["jobs"][0]["workers"] = [w[2], w[0], w[3], w[1]]  # leaf1, leaf0, leaf1, leaf0
    raw["links"].reverse()  # leaf1 first: its workers get ranks 0 and 1
    tree = load_tree(raw)
    assert [(p.rank, p.leaf, p.local_rank) for p in placement(tree, 1)] == [
        (0, "leaf1", 0),
        (1, "leaf1", 1),
        (2, "leaf0", 0),
        (3, "leaf0", 1),
    ]
    job = tree.jobs[0]
    assert [x.entry.udp_port for x in job.workers] == [40003, 40004, 40001, 40002]


def _mutated(fn) -> dict:
    raw = copy.deepcopy(RAW)
    fn(raw)
    return raw


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.update(spine="core"), r"spine: 'core' is not one of `switches`"),
        (lambda r: r["links"][1].update(leaf="spine"), r"links\[1\]\.leaf: 'spine' is not a leaf"),
        (lambda r: r["links"][1].update(spine_port=1), r"each leaf needs a spine port of its own"),
        (lambda r: r["links"].append({"leaf": "leaf0", "port": 4, "spine_port": 3}), r"one link to the spine"),
        (lambda r: r["jobs"][0]["workers"][3].update(rank=7), r"ranks must be 0\.\.3"),
        (lambda r: r["jobs"][0]["workers"][0].update(switch="spine"), r"'spine' is not a leaf with a link"),
        (lambda r: r["jobs"][0]["workers"][0].update(port=3), r"port 3 of leaf 'leaf0' is its link to the spine"),
        (lambda r: r["switches"]["leaf0"].update(mac="01:00:5e:00:00:01"), r"leaf0\.mac: .*multicast"),
        (lambda r: r["switches"]["leaf0"].pop("ip"), r"switches\.leaf0: missing key\(s\) \['ip'\]"),
        (lambda r: r["jobs"][0]["workers"][2].pop("rank"), r"give every worker a rank, or none"),
        (lambda r: r["jobs"][0]["workers"][2].update(mac="02:00:00:00:00:01"), r"MAC .* is also at leaf0 port 1"),
    ],
    ids=[
        "unknown spine",
        "spine as leaf",
        "shared spine port",
        "two links",
        "rank gap",
        "worker on the spine",
        "worker on the uplink port",
        "multicast mac",
        "no address",
        "some ranks",
        "same mac under two leaves",
    ],
)
def test_a_bad_tree_is_refused_naming_the_field(change, message):
    with pytest.raises(ConfigError, match=message):
        load_tree(_mutated(change))


def test_a_leaf_without_workers_of_the_job_is_refused():
    raw = _mutated(lambda r: r["switches"].update(leaf2=dict(r["switches"]["leaf1"], grpc_addr="127.0.0.1:9570")))
    raw["links"].append({"leaf": "leaf2", "port": 3, "spine_port": 3})
    with pytest.raises(ConfigError, match=r"no worker under leaf 'leaf2'"):
        switch_configs(load_tree(raw), {**SESSIONS, ("leaf2", 1): 5})
