# SPDX-License-Identifier: Apache-2.0
"""The job service as a multi-tenant system: who calls (client certificates, bearer
tokens), what each tenant may do with whose job, quotas, and the keys of authenticated jobs."""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib

import grpc
import numpy as np
import pytest
import yaml
from conftest import run_workers, wait_until
from service_helpers import fetch_metrics, parse_exposition, service_config

from p4reduce.aggregator import AggregatorServer
from p4reduce.aggregator.admin import AdminServer
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.jobapi import JobClient, JobServiceError
from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc
from p4reduce.jobapi.security import ClientCredentials, ServerSecurity, Tenants, token_digest
from p4reduce.protocol.auth import JobKey
from p4reduce.service import JobServer
from p4reduce.service.config import parse_service_config
from p4reduce.service.quota import Quota

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"
TOKENS = {"carol": "carol-secret-token", "ops": "ops-secret-token"}


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    """A CA, the server's certificate and client certificates of alice, bob and ops (made once)."""
    spec = importlib.util.spec_from_file_location("make_certs", TOOLS / "make_certs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("certs")
    module.make_certs(out, ["alice", "bob", "ops"])
    for name, token in TOKENS.items():
        (out / f"{name}.token").write_text(token + "\n")
        (out / f"{name}.token").chmod(0o600)
    tenants = {
        "tenants": {
            "alice": {"quota": {"jobs": 2}},
            "bob": {"role": "isolated"},
            "carol": {"tokens": [token_digest(TOKENS["carol"])]},
            "ops": {"role": "admin", "tokens": [token_digest(TOKENS["ops"])]},
        }
    }
    (out / "tenants.yaml").write_text(yaml.safe_dump(tenants))
    return out


def tls(certs, name: str | None) -> ClientCredentials:
    return ClientCredentials(certs / "ca.pem", *((certs / f"{name}.pem", certs / f"{name}.key") if name else ()))


def secured(certs, **changes) -> ServerSecurity:
    security = ServerSecurity(
        certs / "server.pem", certs / "server.key", certs / "ca.pem", Tenants.load(certs / "tenants.yaml")
    )
    return security.replace(**changes)


@pytest.fixture
def server(certs):
    config = dataclasses.replace(service_config(switch=False), security=secured(certs))
    with JobServer(config, "127.0.0.1:0", metrics="127.0.0.1:0", tick=0.05) as s:
        yield s


def client(server, credentials) -> JobClient:
    return JobClient(("localhost", server.address[1]), timeout=20, credentials=credentials)


def refused(call, code: str) -> str:
    with pytest.raises(JobServiceError) as info:
        call()
    assert info.value.code == code, info.value
    return info.value.cause


def test_tenants_by_certificate_own_their_jobs(server, certs):
    with client(server, tls(certs, "alice")) as alice, client(server, tls(certs, "bob")) as bob:
        job = alice.create_job("train", 2, num_slots=4)
        assert job.tenant == "alice" and len(job.key) == 16  # credentials: software jobs authenticated
        # bob may neither take the name (nothing of alice's job shown) nor touch the job.
        cause = refused(lambda: bob.create_job("train", 2), "PERMISSION_DENIED")
        assert cause == "tenant bob may not use job name 'train': another tenant's job has it"
        for call, action in [
            (lambda: bob.release_job(job.job_id), "release"),
            (lambda: bob.keep_alive(job.job_id), "keep alive"),
            (lambda: bob.register_worker(job.job_id, 0, "127.0.0.1", "", 40000), "register a worker of"),
        ]:
            assert (
                refused(call, "PERMISSION_DENIED") == f"tenant bob may not {action} job {job.job_id} (owned by alice)"
            )
        # bob is isolated: he sees none of alice's jobs; his own with its secrets.
        own = bob.create_job("bobs", 1, num_slots=4)
        assert [s.job.name for s in bob.list_jobs().jobs] == ["bobs"]
        assert bob.list_jobs().jobs[0].job.key == own.key != b""
        # alice is a tenant: she sees bob's job without its key or session.
        shown = {s.job.name: s.job for s in alice.list_jobs().jobs}
        assert shown["train"].key == job.key and shown["bobs"].key == b"" and shown["bobs"].session == 0
        alice.keep_alive(job.job_id)
        alice.register_worker(job.job_id, 0, "127.0.0.1", "", 40000)
        alice.release_job(job.job_id)
    metrics = parse_exposition(fetch_metrics(server))
    assert ({"tenant": "bob", "status": "PERMISSION_DENIED"}, 4.0) in metrics["p4reduce_tenant_refusals_total"]
    assert ({"tenant": "bob"}, 4.0) in metrics["p4reduce_tenant_slots"]


def test_a_client_without_a_certificate_is_refused_and_told_why(server, certs):
    with client(server, tls(certs, None)) as anonymous:  # TLS, but no client certificate
        with pytest.raises(JobServiceError) as info:
            anonymous.list_jobs()
    # grpc ends the handshake of a client without a certificate: no answer, so no
    # UNAUTHENTICATED; the client's error says what is most likely missing.
    assert info.value.code == "UNAVAILABLE"
    assert "does the service require a client certificate? --tls-cert/--tls-key" in str(info.value)
    with client(server, None) as plain, pytest.raises(JobServiceError, match=r"require TLS\? give its CA"):
        plain.list_jobs()


def test_tokens_and_admin(certs):
    config = dataclasses.replace(service_config(switch=False), security=secured(certs, tls_client_ca=None))
    with JobServer(config, "127.0.0.1:0") as server:
        carol_creds = ClientCredentials(certs / "ca.pem", token_file=certs / "carol.token")
        ops_creds = ClientCredentials(certs / "ca.pem", token_file=certs / "ops.token")
        with client(server, carol_creds) as carol, client(server, ops_creds) as ops:
            job = carol.create_job("c", 1, num_slots=4)
            assert job.tenant == "carol"
            assert [s.job.key for s in ops.list_jobs().jobs] == [job.key]  # the admin sees every secret
            ops.release_job(job.job_id)
            assert carol.list_jobs().jobs == []
        bad = certs / "bad.token"
        bad.write_text("not-a-token")
        bad.chmod(0o600)
        with client(server, ClientCredentials(certs / "ca.pem", token_file=bad)) as stranger:
            cause = refused(stranger.list_jobs, "UNAUTHENTICATED")
            assert cause == "the bearer token is not in the tenants file"
        with client(server, ClientCredentials(certs / "ca.pem")) as nobody:
            assert "no client certificate and no bearer token" in refused(nobody.list_jobs, "UNAUTHENTICATED")


def test_token_without_tls_on_loopback(certs):
    security = ServerSecurity(tenants=Tenants.load(certs / "tenants.yaml"))
    config = dataclasses.replace(service_config(switch=False), security=security)
    with JobServer(config, "127.0.0.1:0") as server:
        with JobClient(server.address, credentials=ClientCredentials(token_file=certs / "carol.token")) as carol:
            assert carol.create_job("plain", 1, num_slots=4).tenant == "carol"
        with JobClient(server.address) as nobody:
            refused(nobody.list_jobs, "UNAUTHENTICATED")


def test_quota_exhaustion_names_quota_and_use(server, certs):
    with client(server, tls(certs, "alice")) as alice, client(server, tls(certs, "bob")) as bob:
        alice.create_job("a1", 1, num_slots=4)
        alice.create_job("a2", 1, num_slots=4)
        assert (
            refused(lambda: alice.create_job("a3", 1), "RESOURCE_EXHAUSTED") == "tenant alice: 2 jobs of a quota of 2"
        )
        half = server.coordinator.config.quota.slots
        cause = refused(lambda: bob.create_job("big", 1, num_slots=half + 1), "RESOURCE_EXHAUSTED")
        assert cause == f"tenant bob: 0 slots in use of a quota of {half}; this job asks {half + 1}"
        cause = refused(lambda: bob.create_job("long", 1, lease_seconds=3000), "RESOURCE_EXHAUSTED")
        assert cause == "tenant bob: a lease of 3000 s asked, a quota of 600 s"


def test_loopback_only_without_credentials():
    config = service_config(switch=False)
    with pytest.raises(ValueError, match=r"job service on 0\.0\.0\.0: without credentials .* --insecure"):
        JobServer(config, "0.0.0.0:0").start()
    insecure = dataclasses.replace(config, security=ServerSecurity(insecure=True))
    with JobServer(insecure, "0.0.0.0:0") as server, JobClient(("127.0.0.1", server.address[1])) as anyone:
        assert anyone.create_job("open", 1, num_slots=4).key == b""  # no credentials: no keys either


def test_authenticated_job_allreduces_end_to_end(server, certs):
    def rank(r: int) -> np.ndarray:
        config = WorkerConfig(
            0,
            r,
            2,
            controller=("localhost", server.address[1]),
            job_name="keyed",
            credentials=tls(certs, "alice"),
            bind=("127.0.0.1", 0),
        )
        with HostAgent(config) as agent:
            assert agent.config.key is not None
            result = agent.allreduce(np.full(1000, r + 1, dtype=np.int32))
            job = server.coordinator.registry.job(agent.config.job_id)  # (closing releases it)
            assert job.tenant == "alice" and len(job.key) == 16
            return result

    for result in run_workers(rank, 2):
        assert np.array_equal(result, np.full(1000, 3, dtype=np.int32))
    assert not server.coordinator.registry.jobs()  # both ranks closed: released
    counters = server.coordinator.fallback.counters()
    assert counters.get("drop_bad_mac", 0) == 0


def test_admin_api_needs_role_admin(certs):
    with AggregatorServer([], port=0) as aggregator:
        admin = AdminServer(aggregator, ("127.0.0.1", 0), secured(certs)).start()
        try:
            for name, code in [("bob", grpc.StatusCode.PERMISSION_DENIED), ("ops", None)]:
                channel = tls(certs, name).channel(f"localhost:{admin.address[1]}")
                with channel:
                    stub = pb_grpc.AggregatorAdminStub(channel)
                    if code is None:
                        assert stub.Describe(pb.DescribeRequest(), timeout=20).port == aggregator.address[1]
                        continue
                    with pytest.raises(grpc.RpcError) as info:
                        stub.Describe(pb.DescribeRequest(), timeout=20)
                    assert info.value.code() == code
                    assert (
                        info.value.details()
                        == "tenant bob may not use the aggregator's admin API (it needs role admin)"
                    )
        finally:
            admin.stop()


def test_tenants_file_and_quota_errors(tmp_path):
    with pytest.raises(ValueError, match=r"tenants.alice.tokens: a list of sha256 hex digests"):
        Tenants.parse({"tenants": {"alice": {"tokens": ["plain-token"]}}})
    with pytest.raises(ValueError, match=r"tenants.bob.role: 'root': one of tenant, isolated, admin"):
        Tenants.parse({"tenants": {"bob": {"role": "root"}}})
    path = tmp_path / "tenants.yaml"
    path.write_text("tenants: {alice: {quota: {jobs: 0}}}\n")
    doc = {"fallback": "embedded", "security": {"tenants": str(path)}}
    with pytest.raises(ValueError, match=r"tenants.alice.quota.jobs: 0 is not a positive integer"):
        parse_service_config(doc)
    path.write_text("tenants: {alice: {quota: {jobs: 3}}}\n")
    config = parse_service_config({**doc, "quota": {"slots": 100}})
    assert config.tenant_quotas() == {"alice": Quota(jobs=3, slots=100)} and config.authenticate_jobs


def test_remote_aggregator_gets_the_key_over_admin_credentials(certs):
    with AggregatorServer([], port=0) as aggregator:
        admin = AdminServer(aggregator, ("127.0.0.1", 0), secured(certs)).start()
        try:
            doc = {"fallback": {"aggregators": [{"admin": f"localhost:{admin.address[1]}", "advertise": "127.0.0.1"}]}}
            config = dataclasses.replace(
                parse_service_config(doc), security=secured(certs), aggregator_credentials=tls(certs, "ops")
            )
            with JobServer(config, "127.0.0.1:0") as server, client(server, tls(certs, "alice")) as alice:
                job = alice.create_job("remote", 1, num_slots=4)
                assert job.port == aggregator.address[1] and len(job.key) == 16

                def served() -> bool:
                    return any(s.job_id == job.job_id for s in aggregator.engine.jobs())

                wait_until(served, "the aggregator to serve the job")
                (spec,) = [s for s in aggregator.engine.jobs() if s.job_id == job.job_id]
                assert spec.key == JobKey(job.key)
        finally:
            admin.stop()


def test_serve_refuses_a_public_bind_without_credentials(tmp_path, capsys):
    from p4reduce.cli.main import main

    config = tmp_path / "service.yaml"
    config.write_text("fallback: {host: 127.0.0.1, port: 0}\n")
    assert main(["controller", "serve", "--config", str(config), "--bind", "0.0.0.0:0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "without credentials" in err and "--insecure" in err
    args = ["worker", "--aggregator", "127.0.0.1:1", "--job", "1", "--rank", "0", "--workers", "1"]
    assert main([*args, "--token-file", str(config)]) == 2
    assert "go with --controller" in capsys.readouterr().err


def test_pytorch_options_take_credentials_from_the_environment(certs):
    pytest.importorskip("torch")
    from p4reduce.torch.options import Options

    env = {"P4REDUCE_CONTROLLER": "ctl:9560", "P4REDUCE_TLS_CA": str(certs / "ca.pem")}
    env["P4REDUCE_TOKEN_FILE"] = str(certs / "carol.token")
    assert Options.from_env(env).credentials == ClientCredentials(certs / "ca.pem", token_file=certs / "carol.token")
    with pytest.raises(ValueError, match=r"P4REDUCE_TLS_CA/.*--tls-cert and --tls-key go together"):
        Options.from_env({**env, "P4REDUCE_TLS_CERT": str(certs / "alice.pem")})
