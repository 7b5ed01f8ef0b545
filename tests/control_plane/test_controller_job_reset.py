# SPDX-License-Identifier: Apache-2.0
"""reset_job over both control channels: a new session in the job's worker entries
(P4Runtime MODIFY, fake_p4runtime.py), then the registers zeroed (BMv2 thrift,
fake_bmv2_thrift.py). The thrift part alone is tested in test_controller_reset.py."""

from __future__ import annotations

import pathlib

import pytest
from fake_bmv2_thrift import serve as serve_thrift
from fake_p4runtime import serve

from p4reduce.controller import client as client_module
from p4reduce.controller.client import JobReset, SwitchClient, WriteError, new_session
from p4reduce.controller.config import load_config
from p4reduce.controller.proto import code_pb2, p4r

HERE = pathlib.Path(__file__).resolve().parent
SMALL = HERE / "p4info_small.txtpb"
WORKER = {"port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 40000}
CONFIG = load_config(
    {
        "jobs": [
            {
                "job_id": 1,
                "slot_base": 4,
                "num_slots": 2,
                "mgid": 1,
                "session": 1111,
                "workers": [{"worker_id": 0, **WORKER}, {"worker_id": 1, **WORKER, "udp_port": 40001}],
            },
            {
                "job_id": 2,
                "slot_base": 6,
                "num_slots": 1,
                "mgid": 2,
                "session": 2222,
                "workers": [{"worker_id": 0, **WORKER, "udp_port": 40002}],
            },
        ]
    }
)
SESSION_PARAM = 7  # id of set_worker's `session` in p4info_small


@pytest.fixture
def switch(tmp_path):
    """A connected client (fake P4Runtime, pipeline pushed, CONFIG installed) and the fakes."""
    bmv2_json = tmp_path / "p.json"
    bmv2_json.write_text('{"pipelines": [], "register_arrays": [{"name": "I.seen", "size": 2048}]}')
    with serve() as fake, serve_thrift() as thrift:
        thrift.add_register("I.seen", 2048, fill=7)
        with SwitchClient.connect(fake.addr, thrift_port=thrift.port) as client:
            client.push_pipeline(SMALL, bmv2_json)
            client.install(CONFIG)
            yield client, fake, thrift


def sessions_by_worker(fake) -> dict[tuple[int, int], int]:
    """(job id, udp port) -> session of every worker entry the fake switch holds."""
    out = {}
    for entry in fake.tables.values():
        if entry.table_id == 101:
            params = {p.param_id: int.from_bytes(p.value, "big") for p in entry.action.action.params}
            out[(params[1], int.from_bytes(entry.match[3].exact.value, "big"))] = params[SESSION_PARAM]
    return out


def test_reset_modifies_the_jobs_worker_entries_then_zeroes_its_registers(switch):
    client, fake, thrift = switch
    assert client.read_sessions(CONFIG.job(1)) == {1111}
    n_writes = len(fake.writes)
    result = client.reset_job(CONFIG.job(1))
    assert isinstance(result, JobReset) and result.cells == 4
    assert result.session not in (0, 1111) and client.sessions[1] == result.session
    (modify,) = fake.writes[n_writes:]
    assert [u.type for u in modify.updates] == [p4r.Update.MODIFY] * 2
    # Job 2 keeps its session; only job 1's two entries changed, and nothing else in them.
    assert sessions_by_worker(fake) == {(1, 40000): result.session, (1, 40001): result.session, (2, 40002): 2222}
    assert client.read_sessions(CONFIG.job(1)) == {result.session}
    assert thrift.registers["I.seen"][4:6] == thrift.registers["I.seen"][1028:1030] == [0, 0]
    assert thrift.registers["I.seen"].count(0) == 4


def test_a_refused_session_change_leaves_the_registers_alone(switch):
    # Zeroing the registers while the old session is still admitted would let
    # packets in flight write into them again: the session must go first.
    client, fake, thrift = switch
    fake.refuse = lambda u: (code_pb2.INTERNAL, "switch busy") if u.type == p4r.Update.MODIFY else None
    with pytest.raises(WriteError, match="2 of 2 updates \\(modify\\) refused"):
        client.reset_job(CONFIG.job(1))
    assert thrift.calls == [] and set(thrift.registers["I.seen"]) == {7}
    assert client.read_sessions(CONFIG.job(1)) == {1111}


def test_reset_of_a_job_the_switch_does_not_have_is_refused(switch):
    client, fake, thrift = switch
    other = load_config(
        {
            "jobs": [
                {
                    "job_id": 9,
                    "slot_base": 100,
                    "num_slots": 1,
                    "workers": [{"worker_id": 0, **WORKER, "udp_port": 50000}],
                }
            ]
        }
    ).job(9)
    assert client.read_sessions(other) == set()
    with pytest.raises(WriteError, match="NOT_FOUND"):
        client.reset_job(other)
    assert thrift.calls == []


def test_an_explicit_session_is_installed_as_given(switch):
    client, fake, _ = switch
    assert client.reset_job(CONFIG.job(2), session=0xFFFFFFFF).session == 0xFFFFFFFF
    assert sessions_by_worker(fake)[(2, 40002)] == 0xFFFFFFFF
    for bad in (0, 2**32):
        with pytest.raises(ValueError, match="outside 1..4294967295"):
            client.install_session(CONFIG.job(2), bad)


def test_new_session_is_never_zero_nor_excluded(monkeypatch):
    draws = iter([0, 1111, 2222, 0, 3333])
    monkeypatch.setattr(client_module.secrets, "randbelow", lambda n: next(draws))
    assert new_session({1111, 2222}) == 3333
    monkeypatch.undo()
    assert all(1 <= new_session() <= 2**32 - 1 for _ in range(1000))


def test_reset_draws_a_session_other_than_the_current_one(switch, monkeypatch):
    client, fake, _ = switch
    draws = iter([1111, 1111, 4444])  # the first two are the job's current session
    monkeypatch.setattr(client_module.secrets, "randbelow", lambda n: next(draws))
    assert client.reset_job(CONFIG.job(1)).session == 4444
