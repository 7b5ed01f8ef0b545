# SPDX-License-Identifier: Apache-2.0
"""The job service end to end without a switch: gRPC requests, a job on the embedded
software aggregator that real host agents allreduce through, hostile requests, leases,
and the Prometheus endpoint."""

from __future__ import annotations

import math
import urllib.error
import urllib.request

import grpc
import numpy as np
import pytest
from conftest import run_workers, wait_until
from service_helpers import fetch_metrics, parse_exposition, service_config

from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.protocol import MAX_WORKERS, Mode
from p4reduce.service import JobServer

MODES = {pb.SPARSE: Mode.SPARSE, pb.DENSE: Mode.DENSE}


@pytest.fixture
def server():
    with JobServer(service_config(switch=False), "127.0.0.1:0", metrics="127.0.0.1:0", tick=0.05) as s:
        yield s


@pytest.fixture
def stub(server):
    with grpc.insecure_channel("{}:{}".format(*server.address)) as channel:
        yield pb_grpc.JobServiceStub(channel)


@pytest.fixture(scope="module")
def shared_stub():
    """One service for all the hostile requests: it must keep serving after each."""
    with (
        JobServer(service_config(switch=False), "127.0.0.1:0") as server,
        grpc.insecure_channel("{}:{}".format(*server.address)) as channel,
    ):
        yield pb_grpc.JobServiceStub(channel)


def worker_config(placement, rank: int) -> WorkerConfig:
    """What the client part will build from a placement (written by hand here)."""
    return WorkerConfig(
        placement.job_id,
        rank,
        placement.num_workers,
        aggregator=(placement.host, placement.port),
        mode=MODES[placement.mode],
        slot_base=placement.slot_base,
        num_slots=placement.num_slots,
        block_size=placement.block_size,
        message_size=placement.message_size,
        bind=("127.0.0.1", 0),
    )


def register(stub, placement, agent: HostAgent, rank: int):
    ip, port = agent.address
    return stub.RegisterWorker(pb.RegisterWorkerRequest(job_id=placement.job_id, rank=rank, ip=ip, udp_port=port))


@pytest.mark.parametrize("mode", [pb.MODE_UNSPECIFIED, pb.DENSE])
def test_two_workers_allreduce_through_the_fallback(server, stub, mode):
    placement = stub.CreateJob(pb.CreateJobRequest(name="train", num_workers=2, mode=mode, num_slots=8))
    assert placement.target == pb.SOFTWARE and placement.reason == "no switch configured"
    assert (placement.host, placement.port) == ("127.0.0.1", server.coordinator.fallback.address[1])
    assert placement.mode == (pb.DENSE if mode == pb.DENSE else pb.SPARSE) and placement.block_size == 256
    # Every worker asks alike and gets the same answer.
    assert stub.CreateJob(pb.CreateJobRequest(name="train", num_workers=2)) == placement
    agents = [HostAgent(worker_config(placement, r)) for r in range(2)]
    try:
        answers = [register(stub, placement, a, r) for r, a in enumerate(agents)]
        assert [a.registered for a in answers] == [1, 2] and answers[1].job == placement
        assert answers[0].switch_port == 0
        rng = np.random.default_rng(5)
        tensors = [rng.integers(-1000, 1000, 3000, dtype=np.int32) for _ in range(2)]
        tensors[0][:1000] = 0  # a block-sparse part
        results = run_workers(lambda r: [agents[r].allreduce(tensors[r]) for _ in range(2)], 2)
    finally:
        for a in agents:
            a.close()
    for per_worker in results:
        for result in per_worker:
            np.testing.assert_array_equal(result, tensors[0] + tensors[1])
    listed = stub.ListJobs(pb.ListJobsRequest())
    assert [(s.job.name, s.registered) for s in listed.jobs] == [("train", 2)]
    assert listed.jobs[0].counters["packets_in"] > 0 and not listed.switch_up
    # The only job of the fallback: its own counters are the aggregator's.
    status = listed.jobs[0]
    assert status.job_counters["packets"] == status.counters["packets_in"] > 0
    assert status.job_counters["rounds"] == status.counters["completed"] > 0
    assert status.job_counters["drops"] == 0
    assert stub.ReleaseJob(pb.ReleaseJobRequest(job_id=placement.job_id)).job_id == placement.job_id
    assert stub.ListJobs(pb.ListJobsRequest()).jobs == []
    assert server.coordinator.fallback._running().engine.jobs() == []  # off the aggregator too
    with pytest.raises(grpc.RpcError) as info:
        stub.KeepAlive(pb.KeepAliveRequest(job_id=placement.job_id))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_workers_that_only_know_the_service_and_a_job_name(server, stub):
    """The client side (WorkerConfig.controller): create or join by name, register, allreduce."""
    configs = [
        WorkerConfig(0, r, 3, controller="{}:{}".format(*server.address), job_name="ddp", bind=("127.0.0.1", 0))
        for r in range(3)
    ]
    agents = [HostAgent(c) for c in configs]
    try:
        tensors = [np.arange(2000, dtype=np.int32) * (r + 1) for r in range(3)]
        results = run_workers(lambda r: agents[r].allreduce(tensors[r]), 3)
        [status] = stub.ListJobs(pb.ListJobsRequest()).jobs
        assert (status.job.name, status.registered, status.job.target) == ("ddp", 3, pb.SOFTWARE)
    finally:
        for a in agents:
            a.close()
    for result in results:
        np.testing.assert_array_equal(result, tensors[0] * 6)


def test_leases_expire_and_keepalive_extends_them(server, stub):
    kept = stub.CreateJob(pb.CreateJobRequest(name="kept", num_workers=1, lease_seconds=0.5))
    lapsed = stub.CreateJob(pb.CreateJobRequest(name="lapsed", num_workers=1, lease_seconds=0.5))
    assert kept.lease_seconds == 0.5
    engine = server.coordinator.fallback._running().engine

    def names() -> set[str]:
        lease = stub.KeepAlive(pb.KeepAliveRequest(job_id=kept.job_id))
        assert 0.4 < lease.expires_in <= 0.5
        return {s.job.name for s in stub.ListJobs(pb.ListJobsRequest()).jobs}

    wait_until(lambda: names() == {"kept"}, "the lease of 'lapsed' to expire")
    assert [j.job_id for j in engine.jobs()] == [kept.job_id]
    with pytest.raises(grpc.RpcError) as info:
        stub.RegisterWorker(pb.RegisterWorkerRequest(job_id=lapsed.job_id, rank=0, ip="127.0.0.1", udp_port=1))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert f"no job {lapsed.job_id}" in info.value.details()


CREATE = {"name": "h", "num_workers": 2}


@pytest.mark.parametrize(
    "request_, code, details",
    [
        (pb.CreateJobRequest(**{**CREATE, "name": ""}), "INVALID_ARGUMENT", "name: needs 1..64 characters, got 0"),
        (pb.CreateJobRequest(**{**CREATE, "name": "n" * 1_000_000}), "INVALID_ARGUMENT", "got 1000000"),
        (pb.CreateJobRequest(**{**CREATE, "name": "a\x00b"}), "INVALID_ARGUMENT", "name: 'a\\x00b': printable"),
        (pb.CreateJobRequest(**{**CREATE, "num_workers": 0}), "INVALID_ARGUMENT", "num_workers: 0"),
        (
            pb.CreateJobRequest(**{**CREATE, "num_workers": MAX_WORKERS + 1}),
            "INVALID_ARGUMENT",
            f"num_workers: {MAX_WORKERS + 1}: at most {MAX_WORKERS}",
        ),
        (pb.CreateJobRequest(**{**CREATE, "num_workers": 2**32 - 1}), "INVALID_ARGUMENT", "num_workers: 4294967295"),
        (pb.CreateJobRequest(**{**CREATE, "mode": 7}), "INVALID_ARGUMENT", "mode: 7 is neither SPARSE nor DENSE"),
        (pb.CreateJobRequest(**{**CREATE, "block_size": 2**32 - 1}), "INVALID_ARGUMENT", "block_size: 4294967295"),
        (pb.CreateJobRequest(**{**CREATE, "num_slots": 2**31}), "INVALID_ARGUMENT", "num_slots: 2147483648"),
        (pb.CreateJobRequest(**{**CREATE, "lease_seconds": -1}), "INVALID_ARGUMENT", "lease_seconds: -1"),
        (pb.CreateJobRequest(**{**CREATE, "lease_seconds": math.nan}), "INVALID_ARGUMENT", "lease_seconds: nan"),
        (pb.CreateJobRequest(**{**CREATE, "lease_seconds": math.inf}), "INVALID_ARGUMENT", "lease_seconds: inf"),
        (pb.CreateJobRequest(**{**CREATE, "num_workers": 3}), "FAILED_PRECONDITION", "num_workers 2, this request"),
        (pb.CreateJobRequest(**{**CREATE, "mode": pb.DENSE}), "FAILED_PRECONDITION", "mode sparse, this request"),
        (pb.RegisterWorkerRequest(rank=2, ip="127.0.0.1", udp_port=1), "INVALID_ARGUMENT", "rank: 2 outside 0..1"),
        (pb.RegisterWorkerRequest(rank=2**32 - 1, ip="127.0.0.1", udp_port=1), "INVALID_ARGUMENT", "rank: 4294967295"),
        (pb.RegisterWorkerRequest(rank=0, ip="1.2.3", udp_port=1), "INVALID_ARGUMENT", "ip: '1.2.3' is not an IPv4"),
        (pb.RegisterWorkerRequest(rank=0, ip="ip" * 10000, udp_port=1), "INVALID_ARGUMENT", "ip: 'ipip"),
        (pb.RegisterWorkerRequest(rank=0, ip="127.0.0.1", udp_port=0), "INVALID_ARGUMENT", "udp_port: 0"),
        (pb.RegisterWorkerRequest(rank=0, ip="127.0.0.1", udp_port=70000), "INVALID_ARGUMENT", "udp_port: 70000"),
        (
            pb.RegisterWorkerRequest(rank=0, ip="127.0.0.1", mac="zz", udp_port=1),
            "INVALID_ARGUMENT",
            "mac: 'zz' is not a MAC address",
        ),
        (pb.RegisterWorkerRequest(job_id=999, rank=0, ip="127.0.0.1", udp_port=1), "NOT_FOUND", "no job 999"),
        (pb.KeepAliveRequest(job_id=0), "NOT_FOUND", "no job 0"),
        (pb.ReleaseJobRequest(job_id=2**32 - 1), "NOT_FOUND", "no job 4294967295"),
    ],
)
def test_hostile_requests_get_named_errors_and_the_service_goes_on(shared_stub, request_, code, details):
    stub = shared_stub
    job = stub.CreateJob(pb.CreateJobRequest(**CREATE))
    if isinstance(request_, pb.RegisterWorkerRequest) and not request_.job_id:
        request_.job_id = job.job_id
    call = {
        pb.CreateJobRequest: stub.CreateJob,
        pb.RegisterWorkerRequest: stub.RegisterWorker,
        pb.KeepAliveRequest: stub.KeepAlive,
        pb.ReleaseJobRequest: stub.ReleaseJob,
    }[type(request_)]
    with pytest.raises(grpc.RpcError) as info:
        call(request_)
    assert info.value.code() == grpc.StatusCode[code]
    assert details in info.value.details()
    assert len(info.value.details()) < 400  # however large the request
    assert [s.job.name for s in stub.ListJobs(pb.ListJobsRequest()).jobs] == ["h"]
    assert stub.KeepAlive(pb.KeepAliveRequest(job_id=job.job_id)).expires_in > 0


def test_a_rank_registered_twice_and_an_address_in_use(stub):
    a = stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
    b = stub.CreateJob(pb.CreateJobRequest(name="b", num_workers=2))
    first = pb.RegisterWorkerRequest(job_id=a.job_id, rank=0, ip="127.0.0.1", udp_port=5000)
    assert stub.RegisterWorker(first).registered == 1
    assert stub.RegisterWorker(first).registered == 1  # the same request again: the same answer
    for request_, details in [
        (pb.RegisterWorkerRequest(job_id=a.job_id, rank=0, ip="127.0.0.1", udp_port=5001), "rank 0 is registered"),
        (
            pb.RegisterWorkerRequest(job_id=b.job_id, rank=1, ip="127.0.0.1", udp_port=5000),
            f"127.0.0.1:5000 is the address of job {a.job_id} rank 0",
        ),
    ]:
        with pytest.raises(grpc.RpcError) as info:
            stub.RegisterWorker(request_)
        assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS and details in info.value.details()


def test_a_full_fallback_is_resource_exhausted():
    cfg = service_config(switch=False)
    cfg = type(cfg)(cfg.switch, type(cfg.fallback)(port=0, slots=(0, 16)), type(cfg.jobs)(num_slots=8))
    with JobServer(cfg) as server, grpc.insecure_channel("{}:{}".format(*server.address)) as channel:
        stub = pb_grpc.JobServiceStub(channel)
        stub.CreateJob(pb.CreateJobRequest(name="a", num_workers=1, num_slots=12))
        with pytest.raises(grpc.RpcError) as info:
            stub.CreateJob(pb.CreateJobRequest(name="b", num_workers=1, num_slots=8))
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "no free slots on the software aggregator (asked 8, largest free range 4)" in info.value.details()


# -- metrics ---------------------------------------------------------------------------


def test_metrics_endpoint(server, stub):
    stub.CreateJob(pb.CreateJobRequest(name='odd "name"\\', num_workers=3, lease_seconds=60))
    text = fetch_metrics(server)
    families = parse_exposition(text)
    assert families["p4reduce_jobs"] == [({"target": "switch"}, 0.0), ({"target": "software"}, 1.0)]
    assert families["p4reduce_switch_up"] == [({}, 0.0)]
    assert families["p4reduce_slots_total"] == [({}, 0.0)]
    [(labels, workers)] = families["p4reduce_job_workers"]
    assert labels["name"] == 'odd \\"name\\"\\\\' and workers == 3
    assert 59 < families["p4reduce_job_lease_seconds"][0][1] <= 60
    for name in ("p4reduce_aggregator_packets_in_total", "p4reduce_aggregator_retransmissions_total"):
        assert families[name] == [({}, 0.0)]
    try:
        import prometheus_client.parser
    except ImportError:
        pass
    else:  # the reference parser too, where it is installed
        parsed = {f.name for f in prometheus_client.parser.text_string_to_metric_families(text)}
        assert "p4reduce_jobs" in parsed
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen("http://{}:{}/other".format(*server.metrics_address), timeout=10)
    assert info.value.code == 404
