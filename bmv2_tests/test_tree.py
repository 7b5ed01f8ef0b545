# SPDX-License-Identifier: Apache-2.0
"""A tree of three simple_switch_grpc: two leaves, each with two workers, under a spine
whose job's members are the leaves (docs/protocol.md, "Hierarchical aggregation"). Every
worker gets every block's sum over all four workers, and the spine counts one DATA per
leaf per round, not one per worker. The links between the switches are Linux bridges
joining the veth ends; loss on them is an nftables rule dropping the spine's RESULTs."""

from __future__ import annotations

import contextlib
import functools
import json
import pathlib
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import numpy as np
import pytest

from bmv2_tests.conftest import worker_namespaces
from bmv2_tests.harness import AGG_IP, AGG_MAC, SESSION, Bmv2Switch, Tap, Worker, job_dict
from bmv2_tests.test_rounds import assert_every_sum, drive_streams, random_streams
from p4reduce.cli.main import main as cli_main
from p4reduce.controller.client import new_session
from p4reduce.controller.tree import load_tree, switch_configs, tree_sessions
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.testbed.check import check_results
from p4reduce.testbed.synthetic import worker_tensor

SPINE_MAC, SPINE_IP = "02:00:00:00:01:fe", "10.0.1.254"
UPLINK_PORT = 3  # each leaf: workers on ports 1 and 2


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


@contextlib.contextmanager
def linked(a: str, b: str) -> Iterator[str]:
    """A Linux bridge joining interfaces `a` and `b` (two switches' host-side veth ends)."""
    br = f"br-{uuid.uuid4().hex[:8]}"
    try:
        _run("ip", "link", "add", br, "type", "bridge")
        _run("sysctl", "-qw", f"net.ipv6.conf.{br}.disable_ipv6=1")
        for dev in (a, b):
            _run("ip", "link", "set", dev, "master", br)
        _run("ip", "link", "set", br, "up")
        yield br
    finally:
        subprocess.run(["ip", "link", "del", br], capture_output=True)


@pytest.fixture
def tree(tmp_path, pipeline):
    """(leaves, spine): leaf i's port 3 is bridged to the spine's port i + 1."""
    switches: list[Bmv2Switch] = []
    try:
        for ports in (UPLINK_PORT, UPLINK_PORT, 2):
            switches.append(Bmv2Switch(num_ports=ports).start(tmp_path, pipeline))
        *leaves, spine = switches
        with contextlib.ExitStack() as links:
            for i, leaf in enumerate(leaves):
                links.enter_context(linked(leaf.host_if(UPLINK_PORT), spine.host_if(i + 1)))
            yield leaves, spine
    finally:
        for sw in switches:
            sw.stop()


def leaf_workers(leaf: Bmv2Switch, index: int) -> list[Worker]:
    """Leaf `index`'s two workers on its ports 1 and 2, with MACs and IPs of their own in the
    tree (one L2 network): 02:00:00:00:0i:0p, 10.0.0.(10 i + p)."""
    return [
        Worker(
            r,
            r + 1,
            f"02:00:00:00:{index:02x}:{r + 1:02x}",
            f"10.0.0.{10 * index + r + 1}",
            40001 + r,
            leaf.host_if(r + 1),
        )  # fmt: skip
        for r in range(2)
    ]


def tree_document(leaves: list[Bmv2Switch], spine: Bmv2Switch, num_slots: int) -> dict:
    """The tree as `p4reduce controller install-tree` reads it: job 1's ranks 0, 1 under
    leaf 0 and 2, 3 under leaf 1 (ports 1 and 2), each leaf's port 3 linked to the spine."""
    # election id 2: above the test's own P4Runtime session, so that the CLI may write
    switches = {"spine": {**spine.process.switch_config(), "election_id": 2, "mac": SPINE_MAC, "ip": SPINE_IP}}
    workers = []
    for i, leaf in enumerate(leaves):
        switches[f"leaf{i}"] = {**leaf.process.switch_config(), "election_id": 2, "mac": AGG_MAC, "ip": AGG_IP}
        workers += [
            {"rank": 2 * i + w.worker_id, "switch": f"leaf{i}", "port": w.port, "mac": w.mac, "ip": w.ip}
            | {"udp_port": w.udp_port}
            for w in leaf_workers(leaf, i)
        ]
    return {
        "switches": switches,
        "spine": "spine",
        "links": [{"leaf": f"leaf{i}", "port": UPLINK_PORT, "spine_port": i + 1} for i in range(len(leaves))],
        "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": num_slots, "workers": workers}],
    }


def install_tree(leaves: list[Bmv2Switch], spine: Bmv2Switch, num_slots: int, cli_dir=None) -> list:
    """Program the three switches from the tree document (through `p4reduce controller
    install-tree` when `cli_dir` is given, else with switch_configs); each leaf's workers."""
    document = tree_document(leaves, spine, num_slots)
    if cli_dir is not None:
        path = cli_dir / "tree.json"
        path.write_text(json.dumps(document))
        assert cli_main(["controller", "install-tree", "--tree", str(path)]) == 0
    else:
        for name, sw in zip(("leaf0", "leaf1", "spine"), (*leaves, spine), strict=True):
            sw.client.install(tree_configs(document)[name])
    return [leaf_workers(leaf, i) for i, leaf in enumerate(leaves)]


@functools.cache
def _sessions() -> tuple:
    return (SESSION, new_session())


def tree_configs(document: dict) -> dict:
    """The switches' configurations: the leaves' jobs at the session the tests' streams
    carry, the spine's drawn once (the same on every call, as a re-install needs)."""
    tree = load_tree(document)
    leaf_session, spine_session = _sessions()
    sessions = {key: spine_session if key[0] == "spine" else leaf_session for key in tree_sessions(tree, int)}
    return switch_configs(tree, sessions)


def run_allreduce(leaves, spine, num_slots: int, density: float, seed: int) -> tuple[dict, dict, int]:
    """Every worker's streams through the tree; (held blocks, delivered sums, packets resent)."""
    per_leaf = install_tree(leaves, spine, num_slots)
    tap = Tap([leaf.host_if(p) for leaf in leaves for p in (1, 2)])
    try:
        workers = [w for under in per_leaf for w in under]
        rng = np.random.default_rng(seed)
        streams, owners, held, sums = random_streams(rng, 1, workers, range(num_slots), 12, density)
        resent = drive_streams(tap, owners, streams)
    finally:
        tap.close()
    return held, sums, resent


@pytest.mark.parametrize("density", [0.1, 1.0])  # sparse and mixed, and dense
def test_a_two_leaf_tree_sums_every_block_over_all_workers(tree, density):
    leaves, spine = tree
    held, sums, resent = run_allreduce(leaves, spine, num_slots=4, density=density, seed=int(density * 10))
    # Dense mode: a stream has a round for each block anyone holds (its first opens it),
    # and one more for an empty stream.
    assert_every_sum(held, sums, 4)  # every worker of both leaves
    rounds = spine.counters()["result_multicast"]
    assert rounds >= len(held)
    for leaf in leaves:
        c = leaf.counters()
        assert c["from_parent"] == rounds  # each leaf took every round's answer once
        assert c["upstream"] >= rounds  # one per round (more only for re-sends)
        assert c["data_counted"] >= 2 * rounds
    if not resent:  # nothing lost: exactly one DATA per leaf per round at the spine
        assert spine.counters()["data_counted"] == 2 * rounds
        assert all(leaf.counters()["upstream"] == rounds for leaf in leaves)


def test_lost_spine_results_are_asked_for_again_and_the_sums_stay_exact(tree):
    """Every fifth RESULT the spine sends is dropped on the links (nftables on the
    bridges): the leaf's workers time out and retransmit, the leaf re-sends its partial
    sum upstream, the spine answers it from its stored round, and every sum stays exact."""
    leaves, spine = tree
    table = f"p4r{uuid.uuid4().hex[:6]}"
    rules = (
        f"table bridge {table} {{\n chain loss {{\n  type filter hook forward priority 0;\n"
        f"  ether saddr {SPINE_MAC} numgen inc mod 5 == 0 drop\n }}\n}}\n"
    )
    try:
        subprocess.run(["nft", "-f", "-"], input=rules, text=True, check=True, capture_output=True)
    except FileNotFoundError:
        pytest.skip("loss on the leaf-spine links needs nftables (`nft`)")
    try:
        held, sums, resent = run_allreduce(leaves, spine, num_slots=2, density=0.5, seed=7)
    finally:
        subprocess.run(["nft", "delete", "table", "bridge", table], capture_output=True)
    assert resent > 0
    assert_every_sum(held, sums, 4)
    assert spine.counters()["result_unicast"] > 0  # answered from the stored round


# -- host agents in namespaces, through the tree -----------------------------------------


@contextlib.contextmanager
def namespaced(leaves: list[Bmv2Switch], per_leaf: list[list[Worker]], prefix: str) -> Iterator[list[list[str]]]:
    """Each leaf's workers in network namespaces of their own (per leaf, their names)."""
    with contextlib.ExitStack() as stack:
        namespaces = [
            stack.enter_context(worker_namespaces(workers, f"{prefix}{i}")) for i, workers in enumerate(per_leaf)
        ]
        for leaf in leaves:
            stack.callback(leaf.stop)  # first: BMv2 lets go of the veths before their namespaces go
        yield namespaces


@pytest.fixture
def tree_hosts(tree, tmp_path):
    """The tree, programmed by `p4reduce controller install-tree`, with each leaf's two
    workers in network namespaces of their own."""
    leaves, spine = tree
    per_leaf = install_tree(leaves, spine, num_slots=8, cli_dir=tmp_path)
    with namespaced(leaves, per_leaf, "p4r-l") as namespaces:
        yield leaves, spine, per_leaf, namespaces


def leaf_worker(leaf_index: int, w, ns: str, *args: str) -> subprocess.Popen:
    """`p4reduce worker` of leaf `leaf_index`'s job: two local workers, four in the tree
    (fixed point scales for all of them); its synthetic tensor is seeded by its leaf."""
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "worker"]
        + ["--aggregator", f"{AGG_IP}:{AGG_UDP_PORT}", "--bind", f"{w.ip}:{w.udp_port}"]
        + ["--job", "1", "--rank", str(w.worker_id), "--workers", "2", "--total-workers", "4"]
        + ["--mode", "dense", "--block-size", "32", "--slots", "8", "--seed", str(leaf_index), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def start_workers(per_leaf, namespaces, *args: str, outputs: pathlib.Path | None = None) -> list[subprocess.Popen]:
    """Every leaf's workers (leaf_worker), in leaf and rank order; with `outputs`, each writes
    its last result to l<leaf>r<rank>.npy there."""
    return [
        leaf_worker(i, w, ns, *args, *(["--output", str(outputs / f"l{i}r{w.worker_id}.npy")] if outputs else []))
        for i, (workers, nss) in enumerate(zip(per_leaf, namespaces, strict=True))
        for w, ns in zip(workers, nss, strict=True)
    ]


def wait_for_rounds(spine: Bmv2Switch, procs: list[subprocess.Popen], rounds: int) -> None:
    """Until the spine has completed `rounds` rounds: the job runs (every worker still does)."""
    deadline = time.monotonic() + 30
    while spine.counters()["result_multicast"] < rounds:
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "the job did not start"
        time.sleep(0.05)


def finish(procs: list[subprocess.Popen], timeout: float = 90) -> list[tuple[int, str]]:
    """(exit status, stderr) of each worker; none is left running."""
    out = []
    try:
        for p in procs:
            _, err = p.communicate(timeout=timeout)
            out.append((p.returncode, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


@pytest.mark.parametrize("dtype, density", [("int32", 0.3), ("float32", 0.1), ("int32", 1.0)])
def test_host_agents_allreduce_through_the_tree(tree_hosts, tmp_path, dtype, density):
    leaves, spine, per_leaf, namespaces = tree_hosts
    elements = 4000
    args = ["--elements", str(elements), "--density", str(density), "--dtype", dtype, "--iterations", "2"]
    procs = start_workers(per_leaf, namespaces, *args, outputs=tmp_path)
    for rc, err in finish(procs):
        assert rc == 0, err[-1500:]
    inputs = [worker_tensor(i, r, elements, 32, density, dtype) for i in range(2) for r in range(2)]
    check_results(inputs, [np.load(tmp_path / f"l{i}r{r}.npy") for i in range(2) for r in range(2)], 32)
    rounds = spine.counters()["result_multicast"]
    assert rounds > 0 and all(leaf.counters()["from_parent"] == rounds for leaf in leaves)


@pytest.mark.parametrize("dies", ["spine", "leaf"])
def test_a_switch_that_dies_fails_every_worker_by_name(tree_hosts, dies):
    """The spine (or leaf 0) stops mid-job: no worker returns a sum; each one, under either
    leaf, fails with AllreduceTimeout naming the slot and block it waited for."""
    leaves, spine, per_leaf, namespaces = tree_hosts
    args = ["--elements", "200000", "--density", "1.0", "--dtype", "int32", "--iterations", "1000"]
    procs = start_workers(per_leaf, namespaces, *args)
    wait_for_rounds(spine, procs, 20)
    (spine if dies == "spine" else leaves[0]).process.stop()  # (its veths stay: no link goes down)
    for rc, err in finish(procs, timeout=60):
        assert rc != 0
        assert "no result for slot" in err, err[-800:]


def test_a_leaf_restarted_mid_job_never_gives_a_wrong_sum(tree, tmp_path, pipeline):
    """Leaf 0's switch restarts (its registers empty) and is configured again while its
    workers run: each worker either finishes with the exact sum or fails with a named error."""
    leaves, spine = tree
    document = tree_document(leaves, spine, 8)
    per_leaf = install_tree(leaves, spine, num_slots=8)
    with namespaced(leaves, per_leaf, "p4r-r") as namespaces:
        elements, iterations = 8000, 10
        args = ["--elements", str(elements), "--density", "1.0", "--dtype", "int32", "--iterations", str(iterations)]
        procs = start_workers(per_leaf, namespaces, *args, outputs=tmp_path)
        wait_for_rounds(spine, procs, 100)
        leaves[0].process.stop()
        # mid-job: leaf 0's workers cannot finish while their switch is down
        assert any(p.poll() is None for p in procs[:2]), "leaf 0's workers finished before the restart"
        leaves[0].process.start(pipeline)
        leaves[0].client.install(tree_configs(document)["leaf0"])
        outcomes = finish(procs, timeout=300)  # bounded: BMv2 is slow on a busy machine
    inputs = [worker_tensor(i, r, elements, 32, 1.0, "int32") for i in range(2) for r in range(2)]
    exact = np.sum([x.astype(np.int64) for x in inputs], axis=0)
    for (rc, err), name in zip(outcomes, ("l0r0", "l0r1", "l1r0", "l1r1"), strict=True):
        if rc == 0:
            np.testing.assert_array_equal(np.load(tmp_path / f"{name}.npy"), exact)
        else:
            assert "no result for slot" in err or "JobFailed" in err or "job 1" in err, err[-800:]


def test_software_leaves_under_a_bmv2_spine(tmp_path, pipeline):
    """The other way round: `p4reduce aggregator` leaves (each with two workers in its own
    namespace) JOIN a BMv2 spine as ranks of its job, and every worker gets the exact sum."""
    spine = Bmv2Switch(num_ports=2).start(tmp_path, pipeline)
    leaves = [
        Worker(i, i + 1, f"02:00:00:00:0{i}:fe", f"10.0.0.{i + 1}", AGG_UDP_PORT, spine.host_if(i + 1))
        for i in range(2)
    ]
    spine.install({"jobs": [job_dict(9, leaves, num_slots=8)]})
    elements, procs = 3000, []
    try:
        with worker_namespaces(leaves, "p4r-sl") as namespaces:
            spine_stops = contextlib.ExitStack()
            spine_stops.callback(spine.stop)  # first: BMv2 lets go of the veths before their namespaces go
            with spine_stops:
                job = "1:2:mode=dense,block_size=32,num_slots=8"
                servers = [
                    subprocess.Popen(
                        ["ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "aggregator"]
                        + ["--bind", f"{leaf.ip}:{AGG_UDP_PORT}"]
                        + ["--job", f"{job},upstream={AGG_IP},up_job=9,up_rank={leaf.worker_id}"],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    for leaf, ns in zip(leaves, namespaces, strict=True)
                ]
                procs += servers
                for server in servers:
                    assert server.stdout.readline()  # banner: bound and serving
                workers = [
                    subprocess.Popen(
                        ["ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "worker"]
                        + ["--aggregator", f"{leaf.ip}:{AGG_UDP_PORT}", "--job", "1", "--rank", str(r)]
                        + ["--workers", "2", "--total-workers", "4", "--mode", "dense", "--block-size", "32"]
                        + ["--slots", "8", "--elements", str(elements), "--density", "0.3", "--dtype", "int32"]
                        + ["--seed", str(leaf.worker_id), "--output", str(tmp_path / f"l{leaf.worker_id}r{r}.npy")],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    for leaf, ns in zip(leaves, namespaces, strict=True)
                    for r in range(2)
                ]
                procs += workers
                outcomes = finish(workers)
                counters = spine.counters()
                for rc, err in outcomes:
                    assert rc == 0, f"{err[-1500:]}\nspine counters: {counters}"
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=10)
        spine.stop()
    inputs = [worker_tensor(i, r, elements, 32, 0.3, "int32") for i in range(2) for r in range(2)]
    check_results(inputs, [np.load(tmp_path / f"l{i}r{r}.npy") for i in range(2) for r in range(2)], 32)
    assert counters["joined"] >= 2 and counters["result_multicast"] > 0 and counters["bad_session"] == 0


# -- the job service programs the tree -------------------------------------------------


def test_the_job_service_places_a_job_on_the_tree_by_where_its_workers_sit(tree, tmp_path, pipeline):
    """`p4reduce controller serve` with a `tree` section: it alone sets the three switches up;
    the job's four workers register with ranks that alternate between the leaves, the
    service places them by leaf (leaf 0's first), writes the job on every switch when the
    last one registers, and the workers, each told its leaf and local rank, get the exact sum."""
    import grpc

    from p4reduce.jobapi import jobs_pb2 as pb
    from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
    from p4reduce.service import JobServer, parse_service_config

    leaves, spine = tree
    per_leaf = [leaf_workers(leaf, i) for i, leaf in enumerate(leaves)]
    switches = {"spine": {**spine.process.switch_config(), "election_id": 2, "mac": SPINE_MAC, "ip": SPINE_IP}}
    for i, leaf in enumerate(leaves):
        switches[f"leaf{i}"] = {**leaf.process.switch_config(), "election_id": 2, "mac": AGG_MAC, "ip": AGG_IP}
    config = parse_service_config(
        {
            "tree": {
                "switches": switches,
                "spine": "spine",
                "links": [{"leaf": f"leaf{i}", "port": UPLINK_PORT, "spine_port": i + 1} for i in range(2)],
                "workers": [
                    {"mac": w.mac, "switch": f"leaf{i}", "port": w.port} for i, ws in enumerate(per_leaf) for w in ws
                ],
                "slots": [0, 16],
                "mgids": [1, 10],
                "p4info": str(pipeline.p4info),
                "bmv2_json": str(pipeline.bmv2_json),
            },
            "fallback": None,
        }
    )
    elements, density = 4000, 0.3
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(JobServer(config, tick=0.1))
        stub = pb_grpc.JobServiceStub(stack.enter_context(grpc.insecure_channel("{}:{}".format(*server.address))))
        job = stub.CreateJob(pb.CreateJobRequest(name="tree", num_workers=4, num_slots=8))
        assert job.target == pb.SWITCH and (job.host, job.mac) == (AGG_IP, AGG_MAC)
        asked = [per_leaf[1][0], per_leaf[0][0], per_leaf[1][1], per_leaf[0][1]]  # rank r asks as asked[r]

        def registered(rank: int, w: Worker):
            request = pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=w.ip, mac=w.mac, udp_port=w.udp_port)
            return stub.RegisterWorker(request)

        assert [registered(r, w).placed for r, w in enumerate(asked)] == [False, False, False, True]
        places = {w.mac: registered(r, w) for r, w in enumerate(asked)}
        for i, ws in enumerate(per_leaf):  # leaf 0's workers hold ranks 0, 1; leaf 1's 2, 3
            for w in ws:
                p = places[w.mac]
                assert (p.rank, p.leaf, p.local_rank, p.local_workers) == (
                    2 * i + w.worker_id,
                    f"leaf{i}",
                    w.worker_id,
                    2,
                )
        with namespaced(leaves, per_leaf, "p4r-sv") as namespaces:
            args = ["--elements", str(elements), "--density", str(density), "--dtype", "int32", "--iterations", "2"]
            procs = start_workers(per_leaf, namespaces, "--slot-base", str(job.slot_base), *args, outputs=tmp_path)
            for rc, err in finish(procs):
                assert rc == 0, err[-1500:]
            rounds = spine.counters()["result_multicast"]
            assert rounds > 0 and spine.counters()["data_counted"] >= 2 * rounds
            assert all(leaf.counters()["from_parent"] == rounds for leaf in leaves)
            stub.ReleaseJob(pb.ReleaseJobRequest(job_id=job.job_id))  # before the switches stop
    inputs = [worker_tensor(i, r, elements, 32, density, "int32") for i in range(2) for r in range(2)]
    check_results(inputs, [np.load(tmp_path / f"l{i}r{r}.npy") for i in range(2) for r in range(2)], 32)
