# SPDX-License-Identifier: Apache-2.0
"""A restarted service keeps its recorded switch jobs (fake P4Runtime and BMv2 thrift of
tests/control_plane): the same pipeline is not pushed again, the recorded jobs' entries and
registers stay as they are (a lost entry is written again), what it did not record is
deleted and its slots zeroed; another pipeline on the switch is pushed afresh and the
recorded jobs fail. bmv2_tests/test_service_restart.py runs workers through a real one."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import pytest
from service_helpers import MACS, control_plane, service_config
from test_tree_service import MACS as TREE_MACS
from test_tree_service import tree_config

from p4reduce.controller.bmv2 import slot_register_arrays
from p4reduce.controller.config import JobConfig, WorkerEntry
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import NAMES, job_entities
from p4reduce.controller.proto import code_pb2, p4r
from p4reduce.controller.readback import compare, identity
from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact
from p4reduce.service.config import parse_service_config
from p4reduce.service.coordinator import JobCoordinator
from p4reduce.service.registry import JobWish

fake_p4runtime = control_plane("fake_p4runtime")
fake_bmv2_thrift = control_plane("fake_bmv2_thrift")
INFO = P4Info.load(build_artifact(P4INFO))
REGISTERS = slot_register_arrays(json.loads(build_artifact(BMV2_JSON).read_text()))


@pytest.fixture
def switch(tmp_path):
    """(start(): a coordinator with a switch and a state file, fake P4Runtime, fake thrift)."""
    with contextlib.ExitStack() as stack:
        thrift = stack.enter_context(fake_bmv2_thrift.serve())
        for name in REGISTERS:
            thrift.add_register(name, 2048, fill=7)
        fake = stack.enter_context(fake_p4runtime.serve())
        cfg = service_config(fallback=False, grpc_addr=fake.addr, thrift_port=thrift.port)
        cfg = dataclasses.replace(cfg, state=tmp_path / "state.db")

        def start() -> JobCoordinator:
            coordinator = JobCoordinator(cfg).start()
            stack.callback(coordinator.stop)
            return coordinator

        yield start, fake, thrift


def cells(thrift, start: int, stop: int) -> set[int]:
    return {v for name in REGISTERS for shadow in (0, 1) for v in thrift.registers[name][shadow * 1024 :][start:stop]}


def register(coordinator: JobCoordinator, job_id: int, rank: int, seat: int) -> None:
    """Rank `rank` of the job from the worker on switch port `seat` + 1."""
    coordinator.register(job_id, rank, f"10.0.0.{seat + 1}", MACS[seat], 40001 + seat)


def unrecorded_job(fake) -> JobConfig:
    """A job nobody recorded, written by hand on slots 40..47 (group 12, port 5)."""
    job = JobConfig(77, 40, 8, (WorkerEntry(0, 5, MACS[4], "10.0.0.5", 40005),), 12, "dense", 99)
    for e in job_entities(INFO, job):
        if e.entity.HasField("table_entry"):
            fake.tables[fake_p4runtime._table_key(e.entity.table_entry)] = e.entity.table_entry
        else:
            group = e.entity.packet_replication_engine_entry.multicast_group_entry
            fake.groups[group.multicast_group_id] = group
    return job


def test_a_restarted_service_keeps_its_switch_jobs_and_removes_the_rest(switch):
    start, fake, thrift = switch
    first = start()
    a = first.create(JobWish("a", 2, num_slots=16))  # complete: entries and group
    b = first.create(JobWish("b", 2, num_slots=8))  # one rank so far: its entries, no group
    register(first, a.job_id, 0, 0)
    register(first, a.job_id, 1, 1)
    register(first, b.job_id, 0, 2)
    first.stop()  # as a crash leaves it: nothing released
    held = {identity(p4r_entity(e)): e.SerializeToString() for e in fake.tables.values()}
    groups = dict(fake.groups)
    for name in REGISTERS:  # rounds in flight: every cell holds something
        thrift.registers[name][:] = [5] * 2048
    unrecorded_job(fake)
    result_dest = INFO.table(NAMES.result_dest_table).id
    lost = next(k for k in fake.tables if k[0] == result_dest)
    del fake.tables[lost]  # an entry of a recorded job the switch lost

    second = start()
    assert len(fake.pipelines) == 1  # not pushed again
    jobs = {j.name: j for j in second.registry.jobs()}
    assert [(j.job_id, j.session, j.mgid, j.slot_base, j.failed) for j in jobs.values()] == [
        (a.job_id, a.session, a.mgid, a.slot_base, None),
        (b.job_id, b.session, b.mgid, b.slot_base, None),
    ]
    # Exactly what the first service wrote (the lost entry again), nothing of job 77.
    assert {identity(p4r_entity(e)): e.SerializeToString() for e in fake.tables.values()} == held
    assert fake.groups == groups and a.mgid in groups and b.mgid not in groups
    assert cells(thrift, 0, 24) == {5}  # the recorded jobs' registers untouched
    assert cells(thrift, 24, 64) == {0} and cells(thrift, 64, 1024) == {5}  # the rest of the pool zeroed
    assert second.registry.switch_slots.free == 64 - 24

    # The kept jobs go on being served as before: a release takes them off the switch.
    second.release(a.job_id)
    second.release(b.job_id)
    assert len(fake.tables) == len(MACS) and fake.groups == {}


def test_another_pipeline_on_the_switch_is_pushed_and_the_recorded_jobs_fail(switch):
    start, fake, thrift = switch
    first = start()
    a = first.create(JobWish("a", 2, num_slots=16))
    register(first, a.job_id, 0, 0)
    first.stop()
    fake.pipelines[-1].config.cookie.cookie ^= 1  # someone pushed another build meanwhile

    second = start()
    assert len(fake.pipelines) == 2 and cells(thrift, 0, 64) == {0}
    [job] = second.registry.jobs()
    assert job.job_id == a.job_id and job.failed.startswith("not kept on the switch at the service's restart: ")
    assert "another pipeline" in job.failed


def test_slots_of_an_entry_the_switch_will_not_delete_stay_out_of_placement(switch):
    start, fake, _ = switch
    first = start()
    a = first.create(JobWish("a", 2, num_slots=16))
    first.stop()
    unrecorded_job(fake)
    workers_table = INFO.table(NAMES.workers_table).id

    def refuse(update: p4r.Update) -> tuple[int, str] | None:
        entry = update.entity.table_entry
        if update.type == p4r.Update.DELETE and entry.table_id == workers_table:
            return code_pb2.PERMISSION_DENIED, "not yours"
        return None

    fake.refuse = refuse
    second = start()
    assert second.registry.job(a.job_id).failed is None
    assert second.registry.switch_slots.free_ranges() == [(16, 24), (48, 16)]  # 40..47 held


def test_compare_names_stale_wrong_and_missing_entities():
    job = JobConfig(3, 0, 8, (WorkerEntry(0, 1, MACS[0], "10.0.0.1", 40001),), 10, "dense", 5)
    meant = job_entities(INFO, job)  # group 10, result destination, worker entry
    other_session = job_entities(INFO, dataclasses.replace(job, session=6))[-1]
    other_group = job_entities(INFO, dataclasses.replace(job, mgid=11))[0]
    diff = compare(meant, [meant[0].entity, other_session.entity, other_group.entity])
    assert [identity(e) for e in diff.stale] == [("group", 11)]
    assert diff.wrong == [meant[2]] and diff.missing == [meant[1]]
    assert diff.to_write == meant[1:]  # in the meant order


def p4r_entity(entry: p4r.TableEntry) -> p4r.Entity:
    entity = p4r.Entity()
    entity.table_entry.CopyFrom(entry)
    return entity


# -- a tree of switches ---------------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    """(start(): a coordinator over three fake switches with a state file, {name: (fake
    P4Runtime, fake thrift)})."""
    with contextlib.ExitStack() as stack:
        fakes, doc = {}, tree_config()
        for name in ("spine", "leaf0", "leaf1"):
            thrift = stack.enter_context(fake_bmv2_thrift.serve())
            for register_name in REGISTERS:
                thrift.add_register(register_name, 2048, fill=7)
            p4rt = stack.enter_context(fake_p4runtime.serve())
            fakes[name] = (p4rt, thrift)
            doc["tree"]["switches"][name] |= {"grpc_addr": p4rt.addr, "thrift_port": thrift.port}
        del doc["fallback"]
        cfg = dataclasses.replace(parse_service_config(doc), state=tmp_path / "state.db")

        def start() -> JobCoordinator:
            coordinator = JobCoordinator(cfg).start()
            stack.callback(coordinator.stop)
            return coordinator

        yield start, fakes


def tree_job(start) -> tuple[JobCoordinator, int]:
    """A first service with a job over both leaves (complete) and one with a rank to come."""
    first = start()
    job = first.create(JobWish("t", 2, num_slots=8))
    first.create(JobWish("u", 2, num_slots=8))
    for rank, mac in enumerate(TREE_MACS[:2]):  # one under each leaf
        first.register(job.job_id, rank, f"10.0.0.{rank + 1}", mac, 40001)
    first.stop()
    return first, job.job_id


def test_a_restarted_service_keeps_its_tree_jobs_on_every_switch(tree):
    start, fakes = tree
    _, job_id = tree_job(start)
    held = {name: dict(p4rt.tables) for name, (p4rt, _) in fakes.items()}
    for _, thrift in fakes.values():
        for name in REGISTERS:
            thrift.registers[name][:] = [5] * 2048
    unrecorded_job(fakes["leaf0"][0])

    second = start()
    assert [j.failed for j in second.registry.jobs()] == [None, None]
    for name, (p4rt, thrift) in fakes.items():
        assert len(p4rt.pipelines) == 1 and p4rt.tables == held[name], name
        assert cells(thrift, 0, 8) == {5} and cells(thrift, 8, 64) == {0}, name  # "u" holds nothing yet
    second.release(job_id)  # every switch lets it go: the tree knows what each holds
    assert all(cells(thrift, 0, 8) == {0} for _, thrift in fakes.values())


def test_a_tree_with_one_switch_set_up_afresh_is_set_up_afresh_everywhere(tree):
    start, fakes = tree
    tree_job(start)
    fakes["leaf1"][0].pipelines[-1].config.cookie.cookie ^= 1

    second = start()
    assert all(j.failed and "another pipeline" in j.failed for j in second.registry.jobs())
    for name, (p4rt, thrift) in fakes.items():  # none keeps a part of a job that is gone
        assert len(p4rt.pipelines) == 2 and len(p4rt.tables) == len(TREE_MACS) + 1, name
        assert cells(thrift, 0, 64) == {0}, name
