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
from p4reduce.hostagent import HostAgent, WorkerConfig
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


def test_packets_without_the_key_are_dropped_and_counted(key_file, tmp_path):
    other = tmp_path / "other.key"
    other.write_bytes(bytes(range(100, 132)))
    with AggregatorServer([JobSpec(1, 2, num_slots=S, block_size=B, key=JobKey.from_file(key_file))], port=0) as srv:
        for key in (None, JobKey.from_file(other)):  # no key, another key: no answer at all
            stranger = HostAgent(WorkerConfig(1, 0, 2, aggregator=srv.address, key=key, failure_timeout=0.5, **FAST))
            with pytest.raises(TimeoutError, match="did not answer JOIN"):
                stranger.allreduce(np.ones(B, np.float32))
            stranger.close()
        assert srv.counters()["drop_bad_mac"] >= 2
        assert srv.engine.failure(1) is None and not srv.engine._jobs[1].members


def test_a_keyed_worker_ignores_an_aggregator_without_the_key(key_file):
    with AggregatorServer([JobSpec(1, 1, num_slots=S, block_size=B)], port=0) as srv:
        agent = HostAgent(
            WorkerConfig(1, 0, 1, aggregator=srv.address, key=JobKey.from_file(key_file), failure_timeout=0.5, **FAST)
        )
        with pytest.raises(TimeoutError, match="did not answer JOIN"):
            agent.allreduce(np.ones(B, np.float32))
        agent.close()
        assert srv.counters()["drop_bad_mac"] >= 1  # nor does the aggregator take its JOIN


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
