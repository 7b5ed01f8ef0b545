# SPDX-License-Identifier: Apache-2.0
"""The job service's state machine (p4reduce/service/registry.py): placement and its
reasons, idempotent create, registration checks, leases on a fake clock."""

from __future__ import annotations

import math
import random

import pytest
from service_helpers import MACS, FakeClock, Scripted, service_config

from p4reduce.protocol import Mode
from p4reduce.service.errors import (
    AlreadyRegistered,
    InvalidArgument,
    NoSlots,
    SwitchLost,
    TooManyWorkers,
    UnknownJob,
    WishMismatch,
)
from p4reduce.service.registry import JobWish, Registry, Target


def registry(switch: bool = True, fallback: bool = True, rng: random.Random | None = None, **overrides) -> Registry:
    cfg = service_config(switch, fallback, **overrides)
    return Registry(cfg.switch, cfg.fallback_pools(), cfg.jobs, clock=FakeClock(), rng=rng)


def test_a_job_that_fits_goes_to_the_switch():
    r = registry()
    job = r.create(JobWish("a", 2, num_slots=16)).job
    assert job.target is Target.SWITCH and job.reason == ""
    assert (job.mode, job.block_size, job.message_size) == (Mode.DENSE, 32, 0)
    assert (job.slot_base, job.num_slots, job.mgid) == (0, 16, 10)
    assert job.session != 0 and job.job_id >= 1


@pytest.mark.parametrize(
    "wish, overrides, down, reason",
    [
        (JobWish("a", 2, mode=Mode.SPARSE), {}, None, "mode: sparse: the switch aggregates dense mode only"),
        (JobWish("a", 2, block_size=64), {}, None, "block_size: 64: the switch takes 32 values per packet"),
        (JobWish("a", 8), {"max_workers": 4}, None, "num_workers: 8 workers: the switch admits at most 4"),
        (JobWish("a", 2), {}, "connection refused", "switch unreachable: connection refused"),
        (JobWish("a", 2, num_slots=65), {}, None, "no free slots on the switch (asked 65, largest free range 64)"),
    ],
)
def test_what_the_switch_cannot_take_goes_to_the_fallback_with_the_reason(wish, overrides, down, reason):
    job = registry(**overrides).create(wish, down).job
    assert job.target is Target.SOFTWARE
    assert job.reason == reason


def test_fallback_geometry_is_the_wish_or_the_aggregators_default():
    r = registry(switch=False)
    job = r.create(JobWish("a", 3)).job
    assert (job.target, job.reason) == (Target.SOFTWARE, "no switch configured")
    assert (job.mode, job.block_size, job.num_slots, job.session) == (Mode.SPARSE, 256, 64, 0)
    dense = r.create(JobWish("b", 3, mode=Mode.DENSE, block_size=100, num_slots=7)).job
    assert (dense.mode, dense.block_size, dense.num_slots, dense.slot_base) == (Mode.DENSE, 100, 7, 64)


def test_a_full_switch_sends_the_next_job_to_the_fallback():
    r = registry()
    r.create(JobWish("big", 2, num_slots=48))
    job = r.create(JobWish("next", 2, num_slots=32)).job
    assert job.reason == "no free slots on the switch (asked 32, largest free range 16)"
    r.create(JobWish("small1", 2, num_slots=4))
    r.create(JobWish("small2", 2, num_slots=4))  # mgids 10..12 now all used
    last = r.create(JobWish("small3", 2, num_slots=4)).job
    assert last.reason == "no free multicast group on the switch (10..12 all in use)"


@pytest.mark.parametrize(
    "wish, overrides, down, error, message",
    [
        (JobWish("a", 2, num_slots=48), {}, None, NoSlots, "asked 48, largest free range 32"),
        (JobWish("a", 2, mode=Mode.SPARSE), {}, None, InvalidArgument, "mode: sparse"),
        (JobWish("a", 8), {"max_workers": 4}, None, TooManyWorkers, "at most 4"),
        (JobWish("a", 2), {}, "timed out", SwitchLost, "switch unreachable: timed out"),
    ],
)
def test_without_a_fallback_the_refusal_is_the_error(wish, overrides, down, error, message):
    r = registry(fallback=False, **overrides)
    r.create(JobWish("first", 1, num_slots=32))
    with pytest.raises(error, match=message):
        r.create(wish, down)
    assert [j.name for j in r.jobs()] == ["first"] and r.switch_slots.free == 32


def test_create_is_idempotent_by_name():
    r = registry()
    first = r.create(JobWish("a", 2, num_slots=8, lease_seconds=10))
    again = r.create(JobWish("a", 2))  # no wishes: whatever the job has
    same = r.create(JobWish("a", 2, mode=Mode.DENSE, block_size=32, num_slots=8, lease_seconds=10))
    assert first.new and not again.new and not same.new
    assert again.job is first.job is same.job
    assert len(r.jobs()) == 1


@pytest.mark.parametrize(
    "wish, field",
    [
        (JobWish("a", 3), "num_workers 2, this request asks 3"),
        (JobWish("a", 2, mode=Mode.SPARSE), "mode dense, this request asks sparse"),
        (JobWish("a", 2, block_size=64), "block_size 32, this request asks 64"),
        (JobWish("a", 2, num_slots=9), "num_slots 8, this request asks 9"),
        (JobWish("a", 2, lease_seconds=11), "lease_seconds 10, this request asks 11"),
    ],
)
def test_the_same_name_with_other_wishes_is_refused_naming_the_field(wish, field):
    r = registry()
    r.create(JobWish("a", 2, num_slots=8, lease_seconds=10))
    with pytest.raises(WishMismatch, match=f"job 'a' exists with {field}"):
        r.create(wish)


@pytest.mark.parametrize(
    "wish, error, message",
    [
        (JobWish("", 2), InvalidArgument, r"name: needs 1\.\.64 characters, got 0"),
        (JobWish("x" * 65, 2), InvalidArgument, "name: needs 1..64 characters, got 65"),
        (JobWish("x" * 100_000, 2), InvalidArgument, "got 100000"),
        (JobWish("a\nb", 2), InvalidArgument, "name: 'a\\\\nb': printable characters only"),
        (JobWish(" a", 2), InvalidArgument, "no surrounding blanks"),
        (JobWish("a", 0), InvalidArgument, "num_workers: 0: a job needs at least one worker"),
        (JobWish("a", 33), TooManyWorkers, r"num_workers: 33: at most 32"),
        (JobWish("a", 2, block_size=20000), InvalidArgument, r"block_size: 20000 outside 1\.\.16367"),
        (JobWish("a", 2, num_slots=40000), InvalidArgument, r"num_slots: 40000 outside 1\.\.32768"),
        (JobWish("a", 2, lease_seconds=-1), InvalidArgument, "lease_seconds: -1"),
        (JobWish("a", 2, lease_seconds=math.nan), InvalidArgument, "lease_seconds: nan"),
        (JobWish("a", 2, lease_seconds=math.inf), InvalidArgument, "lease_seconds: inf"),
        (JobWish("a", 2, lease_seconds=3601), InvalidArgument, r"lease_seconds: 3601 outside \(0, 3600\]"),
    ],
)
def test_bad_wishes_are_named(wish, error, message):
    r = registry()
    with pytest.raises(error, match=message):
        r.create(wish)
    assert r.jobs() == []


# -- registration ------------------------------------------------------------------


def test_registration_finds_the_switch_port_and_counts():
    r = registry()
    job = r.create(JobWish("a", 2)).job
    _, worker, new = r.register(job.job_id, 1, "10.0.0.2", MACS[1].upper(), 40002)
    assert new and (worker.switch_port, worker.mac) == (2, MACS[1])
    assert not job.complete
    r.register(job.job_id, 0, "10.0.0.1", MACS[0], 40001)
    assert job.complete


def test_a_rank_twice():
    r = registry()
    job = r.create(JobWish("a", 2)).job
    r.register(job.job_id, 0, "10.0.0.1", MACS[0], 40001)
    _, _, new = r.register(job.job_id, 0, "10.0.0.1", MACS[0], 40001)  # a retried request
    assert not new
    with pytest.raises(AlreadyRegistered, match="rank 0 is registered already, from 10.0.0.1:40001"):
        r.register(job.job_id, 0, "10.0.0.3", MACS[2], 40003)


def test_an_address_of_another_live_worker_is_refused():
    r = registry()
    a = r.create(JobWish("a", 2)).job
    b = r.create(JobWish("b", 2)).job
    r.register(a.job_id, 0, "10.0.0.1", MACS[0], 40001)
    with pytest.raises(AlreadyRegistered, match=f"10.0.0.1:40001 is the address of job {a.job_id} rank 0"):
        r.register(b.job_id, 1, "10.0.0.1", MACS[0], 40001)
    r.release(a.job_id)
    r.register(b.job_id, 1, "10.0.0.1", MACS[0], 40001)  # free again


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((2, "10.0.0.1", MACS[0], 1), InvalidArgument, r"rank: 2 outside 0\.\.1"),
        ((0, "10.0.0.256", MACS[0], 1), InvalidArgument, "ip: '10.0.0.256' is not an IPv4 address"),
        ((0, "", MACS[0], 1), InvalidArgument, "ip: '' is not an IPv4 address"),
        ((0, "x" * 5000, MACS[0], 1), InvalidArgument, r"ip: 'xxx.*\.\.\.' is not"),
        ((0, "0.0.0.0", MACS[0], 1), InvalidArgument, "ip: 0.0.0.0 is not a host's address"),
        ((0, "224.0.0.1", MACS[0], 1), InvalidArgument, "ip: 224.0.0.1 is not a host's address"),
        ((0, "10.0.0.1", "02:00:00:00:00", 1), InvalidArgument, "mac: '02:00:00:00:00' is not a MAC address"),
        ((0, "10.0.0.1", "", 1), InvalidArgument, "mac: '' is not a MAC address"),
        ((0, "10.0.0.1", "ff:ff:ff:ff:ff:ff", 1), InvalidArgument, "mac: ff:ff:ff:ff:ff:ff is a multicast"),
        ((0, "10.0.0.1", MACS[0], 0), InvalidArgument, r"udp_port: 0 outside 1\.\.65535"),
    ],
)
def test_bad_registrations_are_named(args, error, message):
    r = registry()
    job = r.create(JobWish("a", 2)).job
    with pytest.raises(error, match=message):
        r.register(job.job_id, *args)
    assert job.workers == {}


def test_a_software_worker_needs_no_mac():
    r = registry(switch=False)
    job = r.create(JobWish("a", 1)).job
    _, worker, _ = r.register(job.job_id, 0, "127.0.0.1", "", 5000)
    assert (worker.mac, worker.switch_port) == ("", 0)


def test_unknown_jobs():
    r = registry()
    for call in (lambda: r.register(7, 0, "10.0.0.1", MACS[0], 1), lambda: r.keepalive(7), lambda: r.release(7)):
        with pytest.raises(UnknownJob, match="no job 7"):
            call()


# -- leases, release, failure --------------------------------------------------------


def test_lease_expiry_returns_the_resources():
    r = registry()
    clock = r.clock
    job = r.create(JobWish("a", 2, num_slots=64, lease_seconds=10)).job
    other = r.create(JobWish("b", 2, num_slots=8, lease_seconds=30)).job
    assert other.target is Target.SOFTWARE  # the switch is full
    clock.now += 6
    r.keepalive(job.job_id)  # now expires at +16
    clock.now += 9
    r.register(job.job_id, 0, "10.0.0.1", MACS[0], 40001)  # a registration renews it too: +25
    assert r.expire() == []
    clock.now += 10
    expired = r.expire()
    assert [j.job_id for j in expired] == [job.job_id]
    assert r.switch_slots.free == 64 and r.mgids.free == 3
    with pytest.raises(UnknownJob):
        r.keepalive(job.job_id)
    clock.now += 5
    assert [j.name for j in r.expire()] == ["b"]
    assert r.fallback_slots[0].free_ranges() == [(0, 32768)]
    # The address of an expired job's worker is free again.
    again = r.create(JobWish("c", 2)).job
    r.register(again.job_id, 0, "10.0.0.1", MACS[0], 40001)


def test_a_new_job_in_a_released_range_never_gets_the_old_session():
    r = registry(rng=Scripted(111, 111, 222))
    old = r.create(JobWish("a", 2, num_slots=16)).job
    r.release(old.job_id)
    new = r.create(JobWish("a", 2, num_slots=16)).job
    assert new.slot_base == old.slot_base  # the same slots...
    assert (old.session, new.session) == (111, 222)  # ...never the same session
    # Ids and groups go round: the released ones come back last.
    assert (new.job_id, new.mgid) == (old.job_id + 1, old.mgid + 1)


def test_a_job_on_a_lost_switch_fails_and_its_name_moves_to_the_fallback():
    r = registry()
    job = r.create(JobWish("a", 2)).job
    soft = r.create(JobWish("s", 2, mode=Mode.SPARSE)).job
    assert [j.job_id for j in r.fail_switch_jobs("connection reset")] == [job.job_id]
    assert soft.failed is None
    for call in (lambda: r.keepalive(job.job_id), lambda: r.register(job.job_id, 0, "10.0.0.1", MACS[0], 1)):
        with pytest.raises(SwitchLost, match="switch lost: connection reset"):
            call()
    created = r.create(JobWish("a", 2), switch_down="connection refused")
    assert created.new and created.replaced is job
    assert created.job.target is Target.SOFTWARE and created.job.reason == "switch unreachable: connection refused"
    assert r.switch_slots.free == 64  # the failed job's slots are back


def test_a_port_not_in_the_l2_table_is_learned_from_the_workers_first_join():
    r = registry()
    job = r.create(JobWish("a", 2)).job
    assert job.target is Target.SWITCH
    unknown = "02:00:00:00:00:99"
    _, pending, new = r.register(job.job_id, 0, "10.0.0.9", unknown, 40009)
    assert new and pending.switch_port == 0 and not job.complete
    r.register(job.job_id, 1, "10.0.0.1", MACS[0], 40001)
    assert not job.complete  # rank 0's port is still unknown
    # A JOIN that is not that registration's teaches nothing.
    assert r.learn_port(job.job_id, 0, unknown, "10.0.0.9", 40010, 7) is None  # another UDP port
    assert r.learn_port(job.job_id, 0, MACS[1], "10.0.0.9", 40009, 7) is None  # another MAC
    assert r.learn_port(job.job_id, 1, MACS[0], "10.0.0.1", 40001, 7) is None  # its port is known
    assert r.learn_port(job.job_id + 1, 0, unknown, "10.0.0.9", 40009, 7) is None  # no such job
    assert r.learn_port(job.job_id, 0, unknown, "10.0.0.9", 40009, 510) is None  # the controller's port
    learned = r.learn_port(job.job_id, 0, unknown, "10.0.0.9", 40009, 7)
    assert learned is not None and learned.switch_port == 7 and job.workers[0] == learned and job.complete
    assert r.learn_port(job.job_id, 0, unknown, "10.0.0.9", 40009, 8) is None  # learned once
