# SPDX-License-Identifier: Apache-2.0
"""The job service on simple_switch_grpc (skipped, with the reason, without BMv2 and root):
the switch set up by the service alone, two jobs at once through it and a third on the
fallback, lease expiry giving a job's slots to a new one that gets exact sums, and the
switch killed under a job. Worker processes run in network namespaces behind the switch's
ports; the test registers their addresses (they cannot reach the service's loopback)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import numpy as np
import pytest

from bmv2_tests.conftest import make_workers, worker_namespaces
from bmv2_tests.harness import AGG_IP, AGG_MAC, Bmv2Switch
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.service import JobServer, parse_service_config
from p4reduce.testbed.synthetic import worker_tensor

ELEMENTS = 4000
DENSITY = 0.5


@pytest.fixture
def testbed(request, tmp_path, pipeline):
    """(switch, workers, namespaces, job service with a 16-slot pool and the fallback, stub).
    Indirect parameter False: the service's L2 table lists none of the workers' MACs."""
    listed = getattr(request, "param", True)
    sw = Bmv2Switch(num_ports=4).start(tmp_path, pipeline)
    with contextlib.ExitStack() as stack:
        stack.callback(sw.stop)
        namespaces = stack.enter_context(worker_namespaces(workers := make_workers(sw, 4), "p4r-svc"))
        stack.callback(sw.stop)  # before the namespaces: BMv2 lets go of their veths' peers
        config = parse_service_config(
            {
                "switch": {
                    **sw.process.switch_config(),
                    "election_id": 2,  # above the harness's client: the service is primary
                    "address": {"ip": AGG_IP, "mac": AGG_MAC},
                    "l2": [{"mac": w.mac, "port": w.port} for w in workers] if listed else [],
                    "slots": [0, 16],
                    "mgids": [1, 10],
                    "p4info": str(pipeline.p4info),
                    "bmv2_json": str(pipeline.bmv2_json),
                },
                "fallback": {"host": "127.0.0.1", "port": 0},
                "jobs": {"num_slots": 8},
            }
        )
        server = stack.enter_context(JobServer(config, tick=0.1))
        channel = stack.enter_context(grpc.insecure_channel("{}:{}".format(*server.address)))
        yield sw, workers, namespaces, server, pb_grpc.JobServiceStub(channel)


def start_job(stub, job, members, namespaces, tmp_path, tag: str, listed: bool = True) -> list[subprocess.Popen]:
    """Register `members` (switch workers) as ranks 0.. of `job` and start their processes.
    `listed`: their MACs are in the service's L2 table (else the port is learned later)."""
    procs = []
    for rank, w in enumerate(members):
        answer = stub.RegisterWorker(
            pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=w.ip, mac=w.mac, udp_port=w.udp_port)
        )
        assert answer.switch_port == (w.port if listed else 0)
        procs.append(
            subprocess.Popen(
                [
                    *("ip", "netns", "exec", namespaces[w.worker_id], sys.executable, "-m", "p4reduce", "worker"),
                    *("--aggregator", f"{job.host}:{job.port}", "--bind", f"{w.ip}:{w.udp_port}"),
                    *("--job", str(job.job_id), "--rank", str(rank), "--workers", str(len(members))),
                    *("--mode", "dense", "--block-size", "32", "--slots", str(job.num_slots)),
                    *("--slot-base", str(job.slot_base), "--elements", str(ELEMENTS), "--density", str(DENSITY)),
                    *("--dtype", "int32", "--iterations", "2", "--output", str(tmp_path / f"{tag}-{rank}.npy")),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return procs


def wait_until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        time.sleep(0.05)


def expected(n: int) -> np.ndarray:
    return np.sum([worker_tensor(0, r, ELEMENTS, 32, DENSITY, "int32") for r in range(n)], axis=0)


def finish(procs, tmp_path, tag: str) -> None:
    """Every process exits 0 with the exact sum."""
    try:
        for p in procs:
            _, err = p.communicate(timeout=90)
            assert p.returncode == 0, err[-1500:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for rank in range(len(procs)):
        np.testing.assert_array_equal(np.load(tmp_path / f"{tag}-{rank}.npy"), expected(len(procs)))


@pytest.mark.parametrize("testbed", [False], indirect=True)
def test_ports_learned_from_the_workers_first_joins(testbed, tmp_path):
    """No worker's MAC in the configuration: each registers with port 0, its first JOIN goes
    to the service as a PacketIn with the port it came in on, the service admits it there,
    and the job runs on the switch with exact sums."""
    sw, workers, namespaces, server, stub = testbed
    job = stub.CreateJob(pb.CreateJobRequest(name="learned", num_workers=3))
    assert job.target == pb.SWITCH
    procs = start_job(stub, job, workers[:3], namespaces, tmp_path, "learned", listed=False)
    finish(procs, tmp_path, "learned")
    learned = server.coordinator.registry.job(job.job_id).workers
    assert {r: w.switch_port for r, w in learned.items()} == {r: workers[r].port for r in range(3)}
    assert sw.counters()["unknown_worker"] >= 3  # the first JOINs, handed to the service


def test_two_jobs_through_one_switch_and_a_third_on_the_fallback(testbed, tmp_path):
    sw, workers, namespaces, server, stub = testbed
    a = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    b = stub.CreateJob(pb.CreateJobRequest(name="b", num_workers=2))
    assert (a.target, b.target) == (pb.SWITCH, pb.SWITCH)
    assert (a.host, a.port, a.mac) == (AGG_IP, AGG_UDP_PORT, AGG_MAC)
    assert {a.slot_base, b.slot_base} == {0, 8}
    c = stub.CreateJob(pb.CreateJobRequest(name="c", num_workers=2))
    assert c.target == pb.SOFTWARE
    assert c.reason == "no free slots on the switch (asked 8, largest free range 0)"

    procs_a = start_job(stub, a, workers[:2], namespaces, tmp_path, "a")
    procs_b = start_job(stub, b, workers[2:], namespaces, tmp_path, "b")
    # The fallback's workers on this host's loopback, at the same time: they know only the
    # service and the job's name (they create or join it, register, and get its geometry).
    service = "{}:{}".format(*server.address)
    agents = [
        HostAgent(WorkerConfig(0, r, 2, controller=service, job_name="c", bind=("127.0.0.1", 0))) for r in range(2)
    ]
    assert [a.config.job_id for a in agents] == [c.job_id] * 2
    try:
        tensors = [worker_tensor(1, r, ELEMENTS, c.block_size, DENSITY, "int32") for r in range(2)]
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda r: agents[r].allreduce(tensors[r]), range(2)))
        finish(procs_a, tmp_path, "a")
        finish(procs_b, tmp_path, "b")
        counters = sw.counters()
        # Each job's own counters (before the agents close: their closes release job c).
        own = {s.job.name: dict(s.job_counters) for s in stub.ListJobs(pb.ListJobsRequest()).jobs}
    finally:
        for agent in agents:
            agent.close()
    for result in results:
        np.testing.assert_array_equal(result, tensors[0] + tensors[1])
    assert counters["joined"] >= 4 and counters["unknown_worker"] == counters["bad_session"] == 0
    # The switch's events split between its two jobs, exactly.
    assert all(own[name]["packets"] > 0 and own[name]["rounds"] > 0 for name in "abc")
    admitted = ("joined", "data_counted", "result_unicast", "retransmit_dropped", "stale", "bad_session")
    admitted += ("bad_slot", "identity_mismatch", "malformed")
    assert own["a"]["packets"] + own["b"]["packets"] == sum(counters[e] for e in admitted)
    assert own["a"]["rounds"] + own["b"]["rounds"] == counters["result_multicast"]


def test_lease_expiry_gives_the_slots_to_a_new_job_with_exact_sums(testbed, tmp_path):
    sw, workers, namespaces, server, stub = testbed
    old = stub.CreateJob(pb.CreateJobRequest(name="old", num_workers=2, num_slots=16, lease_seconds=2))
    stop = threading.Event()

    def keep() -> None:
        while not stop.wait(0.5):
            stub.KeepAlive(pb.KeepAliveRequest(job_id=old.job_id))

    keeper = threading.Thread(target=keep, daemon=True)
    keeper.start()
    try:
        finish(start_job(stub, old, workers[:2], namespaces, tmp_path, "old"), tmp_path, "old")
    finally:
        stop.set()
        keeper.join()
    wait_until(lambda: stub.ListJobs(pb.ListJobsRequest()).slots_free == 16, "the old job's lease to expire")
    new = stub.CreateJob(pb.CreateJobRequest(name="new", num_workers=2, num_slots=16))
    assert (new.target, new.slot_base) == (pb.SWITCH, old.slot_base) and new.session != old.session
    [status] = stub.ListJobs(pb.ListJobsRequest()).jobs  # the old job's counts were zeroed with it
    assert dict(status.job_counters) == {"packets": 0, "drops": 0, "retransmissions": 0, "rounds": 0}
    # The same workers' addresses, the same slots: exact sums, nothing left of the old job.
    finish(start_job(stub, new, workers[:2], namespaces, tmp_path, "new"), tmp_path, "new")


def test_the_switch_killed_under_a_job(testbed):
    sw, workers, namespaces, server, stub = testbed
    job = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    for rank, w in enumerate(workers[:2]):
        stub.RegisterWorker(
            pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=w.ip, mac=w.mac, udp_port=w.udp_port)
        )
    sw.process.proc.kill()

    def lost() -> bool:
        try:
            stub.KeepAlive(pb.KeepAliveRequest(job_id=job.job_id))
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE and exc.details().startswith("switch lost: ")
            return True
        return False

    wait_until(lost, "the service to notice the switch is gone")
    again = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    assert again.target == pb.SOFTWARE and again.reason.startswith("switch unreachable: ")
