# SPDX-License-Identifier: Apache-2.0
"""The job service with a Tofino (switch.kind: tofino) against the fake BF Runtime server
of tests/control_plane, which refuses every write bf_switchd would: the set-up, a job's
life cycle (create, register, lease expiry, release) and what each step leaves on the
switch."""

from __future__ import annotations

import contextlib
import copy
import dataclasses

import pytest
from service_helpers import MACS, FakeClock, control_plane

from p4reduce.controller.bfrt import tna
from p4reduce.controller.bfrt.schema import Schema
from p4reduce.controller.bfrt.tna import NAMES
from p4reduce.controller.bfrt.tofino import TofinoClient
from p4reduce.controller.config import JobConfig, WorkerEntry
from p4reduce.service.config import parse_service_config
from p4reduce.service.coordinator import JobCoordinator
from p4reduce.service.errors import InvalidArgument, SwitchLost
from p4reduce.service.registry import JobWish, Target

fake_bfruntime = control_plane("fake_bfruntime")
WORKERS = "pipe.Ingress.admission.workers"
SUMS = "pipe.Ingress.values.value_00.sums"
PAIR = {"Ingress.values.value_00.sums.first": 7, "Ingress.values.value_00.sums.second": 7}


def _config(addr: str, slots: list[int]) -> dict:
    return {
        "switch": {
            "kind": "tofino",
            "bfrt": addr,
            "ports": [{"port": i, "speed": "100G", "fec": "rs"} for i in range(1, 5)],
            "address": {"ip": "10.0.0.254", "mac": "02:00:00:00:00:fe"},
            "l2": [{"mac": mac, "port": i} for i, mac in enumerate(MACS[:4], 1)],
            "slots": slots,
            "mgids": [10, 12],
        },
        "jobs": {"lease_seconds": 30},
    }


@pytest.fixture
def service():
    """(start(slots) -> (coordinator, clock), the fake switch)."""
    with contextlib.ExitStack() as stack:
        fake = stack.enter_context(fake_bfruntime.serve())

        def start(slots: list[int]) -> tuple[JobCoordinator, FakeClock]:
            clock = FakeClock()
            coordinator = JobCoordinator(parse_service_config(copy.deepcopy(_config(fake.addr, slots))), clock=clock)
            stack.callback(coordinator.stop)
            return coordinator.start(), clock

        yield start, fake


def _workers(fake) -> dict[int, dict]:
    return {dict(k)["hdr.udp.src_port"]: d for k, (_, d) in fake.table_entries(WORKERS).items()}


def _register(coordinator: JobCoordinator, job_id: int, rank: int) -> None:
    coordinator.register(job_id, rank, f"10.0.0.{rank + 1}", MACS[rank], 40001 + rank)


def test_the_service_sets_a_tofino_up_and_a_job_comes_and_goes(service):
    start, fake = service
    fake.set_register(SUMS, 5, PAIR)  # left by an earlier run, inside the pool
    fake.set_register(SUMS, 300, PAIR)  # outside it: another user's slots
    coordinator, clock = start([0, 256])
    assert coordinator.switch is not None and coordinator.switch.down is None
    assert set(fake.ports()) == {1, 2, 3, 4}
    assert len(fake.table_entries("pipe.Ingress.forwarding.l2")) == 4
    assert fake.register(SUMS, 5)[0] == dict.fromkeys(PAIR, 0) and fake.register(SUMS, 300)[0] == PAIR

    job = coordinator.create(JobWish("a", 2, num_slots=16))
    assert (job.target, job.block_size, job.slot_base) == (Target.SWITCH, 64, 0)
    _register(coordinator, job.job_id, 0)
    assert set(_workers(fake)) == {40001} and job.mgid not in fake.groups()  # the group comes with the last rank
    _register(coordinator, job.job_id, 1)
    workers = _workers(fake)
    assert set(workers) == {40001, 40002} and workers[40002]["num_workers"] == 2
    assert workers[40002]["session"] == job.session and workers[40002]["worker_bit"] == 2
    assert fake.groups()[job.mgid] == [tna.node_id(job.job_id, 0), tna.node_id(job.job_id, 1)]

    fake.set_counter("pipe.Ingress.job_events", 0, 9)  # the job's traffic
    fake.set_register(SUMS, 3, PAIR)
    assert coordinator.snapshot().job_counters[job.job_id]["packets"] == 9

    clock.now += 31  # no KeepAlive: the lease lapses
    assert [j.job_id for j in coordinator.expire()] == [job.job_id]
    assert _workers(fake) == {} and job.mgid not in fake.groups()
    assert fake.table_entries("pipe.Egress.result_dest") == {}
    assert fake.register(SUMS, 3)[0] == dict.fromkeys(PAIR, 0)
    assert fake.counter("pipe.Ingress.job_events", 0) == 0
    assert not any(node >> 8 == job.job_id for node in fake.nodes())

    again = coordinator.create(JobWish("b", 2, num_slots=16))
    _register(coordinator, again.job_id, 0)
    _register(coordinator, again.job_id, 1)
    assert again.session != job.session and {w["session"] for w in _workers(fake).values()} == {again.session}
    coordinator.release(again.job_id)
    assert _workers(fake) == {} and set(fake.groups()) == set()  # (no broadcast group configured)


def test_a_whole_switch_pool_is_cleared_by_table_clears(service):
    start, fake = service
    fake.set_register(SUMS, 8000, PAIR)
    start([0, 8192])
    assert fake.register(SUMS, 8000)[0] == dict.fromkeys(PAIR, 0)
    cleared = {
        fake.tables[u.entity.table_entry.table_id].name
        for w in fake.writes
        for u in w.updates
        if u.type == 4 and not u.entity.table_entry.HasField("key")  # DELETE without a key
    }
    schema = Schema.from_json(fake.program_info, fake.fixed_info)
    controller_tables = {NAMES.workers, NAMES.parents, NAMES.uplinks, NAMES.result_dest, NAMES.l2}
    assert cleared == {*tna.slot_registers(schema), NAMES.job_events, *controller_tables}


def test_a_job_of_another_block_size_is_refused_naming_the_tofinos(service):
    start, _ = service
    coordinator, _ = start([0, 256])
    with pytest.raises(InvalidArgument, match="the switch takes 64 values per packet"):
        coordinator.create(JobWish("b", 2, block_size=32, num_slots=16))


def test_a_switch_that_goes_away_fails_its_jobs(service):
    start, fake = service
    coordinator, _ = start([0, 256])
    job = coordinator.create(JobWish("a", 2, num_slots=16))
    fake.stop()
    with pytest.raises(SwitchLost, match="refused to read pipe.Ingress.events"):
        coordinator.create(JobWish("b", 2, num_slots=16))  # a placement checks the switch first
    assert "refused to read pipe.Ingress.events" in (coordinator.registry.job(job.job_id).failed or "")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"slots": [0, 8193]}, "switch.slots"),
        ({"p4info": "x.txtpb"}, "a tofino switch runs the program bf_switchd loaded"),
        ({"grpc_addr": "127.0.0.1:9559"}, "unknown key"),
        ({"ports": [{"port": "front"}]}, "switch.ports\\[0\\].port"),
        ({"ports": [{"port": 1, "speed": "3G"}]}, "switch.ports\\[0\\].speed"),
    ],
)
def test_a_bad_tofino_section_is_refused_naming_the_key(change, message):
    from p4reduce.controller.errors import ConfigError

    doc = _config("127.0.0.1:50052", [0, 64])
    doc["switch"].update(change)
    with pytest.raises(ConfigError, match=message):
        parse_service_config(doc)


def _restartable(fake, tmp_path, slots: list[int]):
    cfg = dataclasses.replace(parse_service_config(_config(fake.addr, slots)), state=tmp_path / "state.db")
    return lambda: JobCoordinator(cfg).start()


def test_a_restarted_service_keeps_its_jobs_on_a_tofino_that_still_holds_them(service, tmp_path):
    _, fake = service
    start = _restartable(fake, tmp_path, [0, 256])
    first = start()
    job = first.create(JobWish("kept", 2, num_slots=16))
    _register(first, job.job_id, 0)
    _register(first, job.job_id, 1)
    gone = first.create(JobWish("released", 2, num_slots=16))
    first.stop()  # the service stops; its jobs stay recorded and on the switch
    fake.set_register(SUMS, job.slot_base + 1, PAIR)  # the kept job's round in progress
    fake.set_register(SUMS, 200, PAIR)  # a free slot's leftovers
    with TofinoClient.connect(fake.addr, client_id=7) as other:  # another job's entries: not recorded
        stray = JobConfig(99, 100, 8, (WorkerEntry(0, 3, MACS[2], "10.0.0.3", 40003),), 12, session=5)
        other.install_job(stray)

    second = start()
    try:
        assert second.registry.job(job.job_id).failed is None
        assert set(_workers(fake)) == {40001, 40002}  # the stray job's entry is deleted
        assert fake.groups() == {job.mgid: [tna.node_id(job.job_id, 0), tna.node_id(job.job_id, 1)]}
        assert fake.register(SUMS, job.slot_base + 1)[0] == PAIR  # untouched: its workers go on
        assert fake.register(SUMS, 200)[0] == dict.fromkeys(PAIR, 0)
        assert gone.job_id in {j.job_id for j in second.registry.jobs()}  # recorded, never registered
        second.release(job.job_id)
        assert _workers(fake) == {}
    finally:
        second.stop()


def test_a_tofino_that_lost_its_entries_is_set_up_afresh_and_the_jobs_fail(service, tmp_path):
    _, fake = service
    start = _restartable(fake, tmp_path, [0, 256])
    first = start()
    job = first.create(JobWish("lost", 2, num_slots=16))
    _register(first, job.job_id, 0)
    _register(first, job.job_id, 1)
    first.stop()
    for rows in fake.entries.values():  # bf_switchd restarted: every table empty
        rows.clear()
    second = start()
    try:
        assert "not kept on the switch" in (second.registry.job(job.job_id).failed or "")
        assert _workers(fake) == {} and len(fake.table_entries("pipe.Ingress.forwarding.l2")) == 4
    finally:
        second.stop()


def test_a_worker_the_tofino_cannot_serve_is_refused_at_registration(service):
    start, fake = service
    doc = _config(fake.addr, [0, 256])
    doc["switch"]["l2"].append({"mac": MACS[5], "port": 130})  # pipe 1
    fake_start = JobCoordinator(parse_service_config(doc)).start()
    try:
        job = fake_start.create(JobWish("a", 2, num_slots=16))
        with pytest.raises(InvalidArgument, match="not in the switch's l2 table"):
            fake_start.register(job.job_id, 0, "10.0.0.9", MACS[7], 40009)
        _register(fake_start, job.job_id, 0)
        with pytest.raises(InvalidArgument, match=r"port 130 \(pipe 1\) and job .* other workers on pipe 0"):
            fake_start.register(job.job_id, 1, "10.0.0.6", MACS[5], 40006)
        assert set(_workers(fake)) == {40001}
    finally:
        fake_start.stop()
