# SPDX-License-Identifier: Apache-2.0
"""Authenticated jobs (issue 19, point 2; docs/protocol.md 6.3): with a per-job key every
packet both ways carries a SipHash-2-4 MAC; packets without a valid one are dropped and
counted, on both sides and both engines of each."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from conftest import can_spoof, run_workers, spoof_udp

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, JobKeyMismatch, WorkerConfig
from p4reduce.protocol import NONE, PROTOCOL_VERSION, VERSION_AUTH, AggHeader, MsgType
from p4reduce.protocol.auth import JobKey

B, S = 8, 2
FAST = dict(timeout=0.02, max_timeout=0.1, num_slots=S, block_size=B)


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "job.key"
    path.write_bytes(bytes(range(32)))
    return path


@pytest.mark.parametrize("worker_engine", ["native", "python"])
@pytest.mark.parametrize("engine", ["native", "python"])
def test_an_authenticated_job_sums_and_seals_every_packet(key_file, engine, worker_engine):
    key = JobKey.from_file(key_file)
    x = [np.arange(1, 6 * B + 1, dtype=np.float32) * (r + 1) for r in range(3)]
    with AggregatorServer(
        [JobSpec.parse(f"1:3:num_slots={S},block_size={B},key_file={key_file}")], port=0, engine=engine
    ) as srv:
        agents = [
            HostAgent(WorkerConfig(1, r, 3, aggregator=srv.address, key=key, engine=worker_engine, **FAST))
            for r in range(3)
        ]
        for _ in range(2):
            for out in run_workers(lambda r: agents[r].allreduce(x[r]), 3):
                np.testing.assert_allclose(out, x[0] + x[1] + x[2], rtol=1e-6)
        stats = agents[0].last_stats
        assert stats.unauthenticated == 0 and stats.packets_received > 0
        counters = srv.counters()
        assert counters.get("drop_bad_mac", 0) == 0 and counters["completed"] > 0
        for a in agents:
            a.close()


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_key_mismatch_is_named_at_join_both_ways(key_file, tmp_path, engine):
    """No key, another key, or a key for a job without one: the JOIN fails at once (well
    before failure_timeout) with an error that names the keys; the aggregator counts it,
    fails nothing and admits nobody."""
    other = tmp_path / "other.key"
    other.write_bytes(bytes(range(100, 132)))
    cases = [
        (JobKey.from_file(key_file), None, "has a key and this worker has none"),
        (JobKey.from_file(key_file), JobKey.from_file(other), "has another key than this worker"),
        (None, JobKey.from_file(key_file), "this worker has a key and the aggregator's job has none"),
    ]
    for job_key, worker_key, says in cases:
        with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B, key=job_key)], port=0, engine=engine) as srv:
            agent = HostAgent(WorkerConfig(1, 0, 2, aggregator=srv.address, key=worker_key, failure_timeout=60, **FAST))
            started = time.monotonic()
            with pytest.raises(JobKeyMismatch, match=f"{says}: do the keys match"):
                agent.allreduce(np.ones(B, np.float32))
            assert time.monotonic() - started < 30  # named by the ERROR, not by a timeout
            agent.close()
            assert srv.counters()["drop_key_mismatch"] >= 1
            assert srv.engine.failure(1) is None and not srv.engine._jobs[1].members


def test_answers_without_a_valid_mac_are_named_when_join_times_out(key_file):
    """A keyed worker whose JOIN is answered only by packets without a valid MAC (the ERROR
    KEY refused by the answer limit, or someone else's) says so when it gives up."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as fake:
        fake.bind(("127.0.0.1", 0))
        agent = HostAgent(
            WorkerConfig(
                1, 0, 1, aggregator=fake.getsockname(), key=JobKey.from_file(key_file), failure_timeout=1.0, **FAST
            )
        )
        errors: list[BaseException] = []

        def run() -> None:
            try:
                agent.allreduce(np.ones(B, np.float32))
            except BaseException as exc:  # noqa: BLE001 - examined below
                errors.append(exc)

        worker = threading.Thread(target=run)
        worker.start()
        fake.settimeout(30)
        join, addr = fake.recvfrom(2048)
        h = AggHeader.unpack(join)
        joined = h._replace(msg_type=MsgType.JOINED, version=PROTOCOL_VERSION, session=5)
        fake.sendto(JobKey(bytes(16)).seal(joined.pack()), addr)  # another key's MAC
        worker.join(60)
        agent.close()
    assert len(errors) == 1 and isinstance(errors[0], TimeoutError)
    assert "did not answer JOIN" in str(errors[0]) and "without a valid MAC: do the keys match?" in str(errors[0])


@pytest.mark.skipif(can_spoof() is not None, reason=str(can_spoof()))
@pytest.mark.parametrize("engine", ["native", "python"])
def test_an_on_path_attacker_who_knows_the_session_still_cannot_forge(key_file, engine):
    """Without the key, even RESULTs with the right session (read off the wire) and a
    made-up MAC are dropped: the sum stays right, the forgeries are counted."""
    key = JobKey.from_file(key_file)
    x = [np.arange(1, 4 * B + 1, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B, key=key)], port=0) as srv:
        agents = [
            HostAgent(
                WorkerConfig(1, r, 2, aggregator=srv.address, key=key, engine=engine, failure_timeout=5.0, **FAST)
            )
            for r in range(2)
        ]
        try:
            run_workers(lambda r: agents[r].allreduce(x[r]), 2)
            session = agents[0]._endpoints[0].session  # what an on-path observer reads
            outs: list = [None]
            first = threading.Thread(target=lambda: outs.__setitem__(0, agents[0].allreduce(x[0])))
            first.start()
            time.sleep(0.3)
            forged = []
            for slot in range(S):
                for shadow in (0, 1):
                    h = AggHeader(MsgType.RESULT, 1, 0, slot, shadow, 1, NONE, NONE, session=session, blocks=4)
                    sealed = bytes([VERSION_AUTH | PROTOCOL_VERSION]) + h.pack()[1:]
                    forged.append(sealed + bytes(8))  # a made-up MAC
                    forged.append(h.pack())  # not sealed
            spoof_udp(srv.address, agents[0].address, forged)
            time.sleep(0.2)
            second = agents[1].allreduce(x[1])
            first.join(30)
            np.testing.assert_array_equal(outs[0], x[0] + x[1])
            np.testing.assert_array_equal(second, x[0] + x[1])
            assert agents[0].last_stats.unauthenticated >= len(forged)
        finally:
            for a in agents:
                a.close()


def test_key_files_are_checked(tmp_path):
    short = tmp_path / "short.key"
    short.write_bytes(b"tiny")
    with pytest.raises(ValueError, match="short.key: 4 bytes"):
        JobKey.from_file(short)
    with pytest.raises(ValueError, match="missing.key"):
        JobKey.from_file(tmp_path / "missing.key")
    with pytest.raises(ValueError, match="job spec .*short.key"):
        JobSpec.parse(f"1:2:key_file={short}")
    assert "JobKey(...)" == repr(JobKey(bytes(16)))  # never the key in logs
