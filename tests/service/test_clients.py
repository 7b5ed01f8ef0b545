# SPDX-License-Identifier: Apache-2.0
"""The job service's clients against a real service (software fallback, no switch): JobClient's
answers and errors, `p4reduce worker --controller`, `p4reduce controller jobs`, and an agent
whose job the service no longer holds."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys

import numpy as np
import pytest
from conftest import join_packet, run_workers, wait_until
from service_helpers import service_config

from p4reduce.aggregator import JobSpec
from p4reduce.cli.main import main as cli
from p4reduce.hostagent import AgentFailed, HostAgent, WorkerConfig
from p4reduce.jobapi import JobClient, JobServiceError
from p4reduce.protocol import AggHeader, Mode, MsgType
from p4reduce.service import JobServer


@pytest.fixture
def server():
    with JobServer(service_config(switch=False), "127.0.0.1:0", tick=0.05) as s:
        yield s


def _address(server: JobServer) -> str:
    return "{}:{}".format(*server.address)


def test_job_client_answers_and_named_errors(server):
    with JobClient(server.address) as client:
        job = client.create_job("resnet", 2, mode="dense", block_size=64, num_slots=8, lease_seconds=20)
        assert (job.name, job.target, job.mode, job.block_size, job.num_slots) == (
            "resnet",
            "software",
            Mode.DENSE,
            64,
            8,
        )
        assert job.reason and job.address == tuple(server.coordinator.fallback.address)
        assert client.create_job("resnet", 2) == job  # the others of the job get the same answer
        registration = client.register_worker(job.job_id, 1, "127.0.0.1", "", 40001)
        assert (registration.job, registration.registered, registration.switch_port) == (job, 1, 0)
        assert 0 < client.keep_alive(job.job_id) <= 20
        [status] = client.list_jobs().jobs
        assert (status.job, status.registered) == (job, 1)
        with pytest.raises(JobServiceError, match="FAILED_PRECONDITION.*block_size") as info:
            client.create_job("resnet", 2, block_size=32)
        assert (info.value.call, info.value.code) == ("CreateJob", "FAILED_PRECONDITION")
        client.release_job(job.job_id)
        with pytest.raises(JobServiceError, match="NOT_FOUND"):
            client.keep_alive(job.job_id)
    with pytest.raises(ValueError, match="timeout"):
        JobClient(server.address, timeout=float("nan"))


def test_worker_command_with_a_controller(server, tmp_path):
    """Two `p4reduce worker` processes that know only the service and a job name."""
    tensors = [np.arange(5000, dtype=np.float32) * (r + 1) for r in range(2)]
    procs = []
    for rank, tensor in enumerate(tensors):
        np.save(tmp_path / f"in{rank}.npy", tensor)
        argv = ["--controller", _address(server), "--job-name", "cli-job", "--rank", str(rank), "--workers", "2"]
        argv += ["--input", str(tmp_path / f"in{rank}.npy"), "--output", str(tmp_path / f"out{rank}.npy")]
        procs.append(subprocess.Popen([sys.executable, "-m", "p4reduce", "worker", *argv], stderr=subprocess.PIPE))
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    for rank in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"out{rank}.npy"), tensors[0] * 3, rtol=1e-6)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--controller", "127.0.0.1:1", "--job", "3"], "--controller takes --job-name"),
        (["--controller", "127.0.0.1:1"], "--controller takes --job-name"),
        (["--aggregator", "127.0.0.1:1"], "--job ID is needed"),
        (["--aggregator", "127.0.0.1:1", "--job", "1", "--job-name", "x"], "--job-name goes with --controller"),
    ],
)
def test_worker_command_names_what_is_missing(capsys, argv, says):
    assert cli(["worker", *argv, "--rank", "0", "--workers", "2"]) == 2
    assert says in capsys.readouterr().err


def test_controller_jobs_lists_the_live_jobs(server, capsys):
    with JobClient(server.address) as client:
        job = client.create_job("bert", 3, num_slots=16)
        client.register_worker(job.job_id, 0, "127.0.0.1", "", 40010)
    assert cli(["controller", "jobs", "--controller", _address(server)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:7] == ["JOB", "NAME", "TARGET", "ADDRESS", "SLOTS", "WORKERS", "LEASE"]
    row = table[1]
    assert re.match(rf"{job.job_id}\s+bert\s+software \(no switch configured\)\s", row), row
    assert f" {job.slot_base}..{job.slot_base + 15} " in row and " 1/3 " in row
    assert table[-1].startswith("switch down or not configured; slots free")
    assert cli(["controller", "jobs", "--controller", _address(server), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [(j["job"]["name"], j["registered"]) for j in listing["jobs"]] == [("bert", 1)]
    assert cli(["controller", "jobs", "--controller", "127.0.0.1:1", "--timeout", "2"]) == 1
    assert "job service at 127.0.0.1:1: ListJobs: UNAVAILABLE" in capsys.readouterr().err


def test_an_agent_whose_job_is_gone_says_so(server):
    configs = [WorkerConfig(0, r, 2, controller=_address(server), job_name="short", lease=0.3) for r in range(2)]
    agents = [HostAgent(c) for c in configs]
    try:
        results = run_workers(lambda r: agents[r].allreduce(np.full(100, r + 1, np.int32)), 2)
        assert all((res == 3).all() for res in results)
        with JobClient(server.address) as client:
            client.release_job(agents[0].config.job_id)
        wait_until(lambda: all(a._lease is not None and a._lease.lost for a in agents), "the lease lost")
        for agent in agents:
            with pytest.raises(AgentFailed, match=r"the job service no longer holds job \d+: released by a ReleaseJob"):
                agent.allreduce(np.ones(100, np.int32))
    finally:
        for a in agents:
            a.close()


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        (dict(job_id=5, job_name="x"), "job_id 5 with a controller"),
        (dict(job_name=""), "needs a job_name"),
        (dict(job_name="x", controller="nohostport"), "expected HOST:PORT"),
        (dict(job_name="x", lease=-1.0), "lease"),
        (dict(job_name="x", aggregators=(("a", 1), ("b", 2))), "no aggregators"),
    ],
)
def test_worker_config_with_a_controller_checks_its_fields(kwargs, says):
    fields = dict(job_id=0, worker_id=0, num_workers=2, controller="127.0.0.1:9560") | kwargs
    with pytest.raises(ValueError, match=says):
        WorkerConfig(**fields)


def test_the_fallback_admits_each_rank_only_from_where_it_registered(server):
    """As the switch does: a rank's JOIN counts only from the address it registered; an
    unregistered rank, or a registered one from elsewhere, is dropped unanswered."""
    with JobClient(server.address) as client:
        job = client.create_job("pinned", 2, num_slots=4)
        spec = JobSpec(job.job_id, 2, mode=job.mode, slot_base=job.slot_base, num_slots=4, block_size=job.block_size)
        socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
        try:
            for s in socks:
                s.bind(("127.0.0.1", 0))
                s.settimeout(0.5)
            client.register_worker(job.job_id, 0, "127.0.0.1", "", socks[0].getsockname()[1])
            counters = server.coordinator.fallback.counters

            def answered(sock: socket.socket, rank: int) -> bool:
                before = counters().get("drop_not_admitted", 0)
                sock.sendto(join_packet(spec, rank), job.address)
                try:
                    return AggHeader.unpack(sock.recv(2048)).msg_type == MsgType.JOINED
                except TimeoutError:
                    assert counters().get("drop_not_admitted", 0) == before + 1  # dropped, and counted
                    return False

            assert not answered(socks[1], 0)  # rank 0 from another port
            assert not answered(socks[1], 1)  # rank 1 before it registered
            assert answered(socks[0], 0)
            client.register_worker(job.job_id, 1, "127.0.0.1", "", socks[1].getsockname()[1])
            assert answered(socks[1], 1)
        finally:
            for s in socks:
                s.close()
