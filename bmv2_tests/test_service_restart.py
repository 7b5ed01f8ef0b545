# SPDX-License-Identifier: Apache-2.0
"""The job service (`p4reduce controller serve` with a state file) SIGKILLed under two
workers running on simple_switch_grpc and started again: it finds its pipeline on the
switch, keeps the job (same id, session, slots, lease) with its entries and registers, and
the workers' allreduces go on through the restart with exact sums; a job entry written by
hand while the service was away is deleted. Skipped, with the reason, without BMv2 and root."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time

import grpc
import numpy as np

from bmv2_tests.conftest import make_workers, worker_namespaces
from bmv2_tests.harness import AGG_IP, AGG_MAC, Bmv2Switch
from p4reduce.controller.client import SwitchClient
from p4reduce.controller.config import JobConfig, WorkerEntry
from p4reduce.controller.errors import SwitchError
from p4reduce.controller.pipeline import job_entities
from p4reduce.controller.readback import identity
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.testbed.service_process import free_port, serving
from p4reduce.testbed.synthetic import worker_tensor

ELEMENTS = 512
DENSITY = 0.5
# Far more allreduces than the test waits for: the workers are still running when the
# restarted service is up, however fast or slow the machine (the test stops them).
ITERATIONS = 1_000_000


def wait_until(condition, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        time.sleep(0.05)


class Iterations:
    """The checksums a worker process prints, one line per allreduce, read as they come."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc, self.checksums = proc, []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.checksums.append(json.loads(line)["checksum"])


def start_worker(job, rank: int, w, namespace: str, log) -> subprocess.Popen:
    """A worker process of `job` as rank `rank`, its stderr to `log` (a file: a pipe nobody
    reads while it runs could fill up)."""
    return subprocess.Popen(
        [
            *("ip", "netns", "exec", namespace, sys.executable, "-m", "p4reduce", "worker"),
            *("--aggregator", f"{job.host}:{job.port}", "--bind", f"{w.ip}:{w.udp_port}"),
            *("--job", str(job.job_id), "--rank", str(rank), "--workers", "2"),
            *("--mode", "dense", "--block-size", "32", "--slots", str(job.num_slots)),
            *("--slot-base", str(job.slot_base), "--elements", str(ELEMENTS), "--density", str(DENSITY)),
            *("--dtype", "int32", "--iterations", str(ITERATIONS)),
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )


def take_over(sw: Bmv2Switch, pipeline) -> SwitchClient:
    """The test's own P4Runtime session as primary (the service is gone): the harness's one
    is closed, a new one opened once the switch has noticed the service's stream end."""
    assert sw.process is not None and sw.process.client is not None
    sw.process.client.close()
    client = None

    def connected() -> bool:
        nonlocal client
        try:
            client = SwitchClient.connect(sw.process.grpc_addr, thrift_port=sw.thrift_port)
        except SwitchError:
            return False
        return True

    wait_until(connected, "a P4Runtime session as primary once the service is gone")
    assert client is not None
    client.use_pipeline(pipeline.p4info, pipeline.bmv2_json)
    sw.process.client = client  # closed with the switch
    return client


def test_a_restarted_service_keeps_its_switch_job_under_running_workers(tmp_path, pipeline):
    sw = Bmv2Switch(num_ports=3).start(tmp_path, pipeline)
    with contextlib.ExitStack() as stack:
        stack.callback(sw.stop)
        workers = make_workers(sw, 3)
        namespaces = stack.enter_context(worker_namespaces(workers, "p4r-rst"))
        stack.callback(sw.stop)  # before the namespaces: BMv2 lets go of their veths' peers
        state = tmp_path / "service.db"
        config = tmp_path / "service.json"
        switch = {
            **sw.process.switch_config(),
            "election_id": 2,  # above the harness's client: the service is primary
            "address": {"ip": AGG_IP, "mac": AGG_MAC},
            "l2": [{"mac": w.mac, "port": w.port} for w in workers],
            "slots": [0, 16],
            "mgids": [1, 10],
            "p4info": str(pipeline.p4info),
            "bmv2_json": str(pipeline.bmv2_json),
        }
        config.write_text(json.dumps({"switch": switch, "jobs": {"num_slots": 8}}))
        port = free_port()

        service = stack.enter_context(serving(config, state, port, verbose=True))
        stub = pb_grpc.JobServiceStub(stack.enter_context(grpc.insecure_channel(f"127.0.0.1:{port}")))
        job = stub.CreateJob(pb.CreateJobRequest(name="kept", num_workers=2, lease_seconds=3600))
        assert job.target == pb.SWITCH
        procs = []
        for rank, w in enumerate(workers[:2]):
            stub.RegisterWorker(
                pb.RegisterWorkerRequest(job_id=job.job_id, rank=rank, ip=w.ip, mac=w.mac, udp_port=w.udp_port)
            )
            log = stack.enter_context((tmp_path / f"worker-{rank}.log").open("w"))
            procs.append(start_worker(job, rank, w, namespaces[rank], log))
            stack.callback(procs[-1].kill)
        runs = [Iterations(p) for p in procs]
        wait_until(lambda: all(len(r.checksums) >= 3 for r in runs), "the workers' first allreduces")

        service.kill()
        service.wait(timeout=30)
        # While the service is away: a job it never recorded, on the free slots 8..15.
        hand = take_over(sw, pipeline)
        w = workers[2]
        stranger = JobConfig(77, 8, 8, (WorkerEntry(0, w.port, w.mac, w.ip, w.udp_port),), 9, "dense", 1234)
        hand.write(job_entities(hand.p4info, stranger), update="insert")
        before = {identity(e) for e in hand.read_entities()}

        with serving(config, state, port, verbose=True), grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.JobServiceStub(channel)  # (a new channel: the old one backs off after the kill)
            [status] = stub.ListJobs(pb.ListJobsRequest()).jobs
            assert (status.job.job_id, status.job.session, status.job.slot_base) == (job.job_id, job.session, 0)
            assert status.registered == 2 and status.expires_in > 3000
            stub.KeepAlive(pb.KeepAliveRequest(job_id=job.job_id))  # kept, not failed
            after = {identity(e) for e in hand.read_entities()}
            assert after == before - {identity(e.entity) for e in job_entities(hand.p4info, stranger)}
            # The workers go on: more allreduces once the restarted service is up, every one exact.
            mark = [len(r.checksums) for r in runs]
            wait_until(
                lambda: all(len(r.checksums) >= m + 3 for r, m in zip(runs, mark, strict=True)),
                "allreduces after the restart",
            )
        for rank, p in enumerate(procs):
            assert p.poll() is None, (tmp_path / f"worker-{rank}.log").read_text()[-1500:]  # none failed
            p.kill()
            p.wait()
        exact = float(
            np.sum(
                [worker_tensor(0, r, ELEMENTS, 32, DENSITY, "int32") for r in range(2)],
                dtype=np.float64,
            )
        )
        for r in runs:
            assert r.checksums and set(r.checksums) == {exact}
