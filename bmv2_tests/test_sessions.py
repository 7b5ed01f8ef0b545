# SPDX-License-Identifier: Apache-2.0
"""JOIN, JOINED and the job's session on simple_switch_grpc (docs/protocol.md section 8):
the switch answers a JOIN with the worker entry's geometry and session, drops
packets of any other session, and the controller's reset installs a new one."""

from __future__ import annotations

import numpy as np

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import SESSION, assert_sums, frame, job_dict, join, opening, results, wait_for_counters
from p4reduce.protocol import NONE, AggHeader, Mode, MsgType


def joined(
    job: int, worker: int, incarnation: int, *, slot_base: int, num_slots: int, num_workers: int, session: int
) -> bytes:
    """The JOINED the switch must send for a JOIN with `incarnation` (section 8)."""
    return AggHeader(
        MsgType.JOINED,
        job,
        worker,
        slot_base,
        0,
        incarnation,
        32,
        num_slots,
        Mode.DENSE.code,
        num_workers,
        session=session,
    ).pack()


def test_join_is_answered_with_the_entrys_geometry_and_session(switch, tap):
    workers = make_workers(switch, 3)
    switch.install({"jobs": [job_dict(4, workers, slot_base=8, num_slots=5, session=0xC0FFEE01)]})
    geometry = dict(slot_base=8, num_slots=5, num_workers=3, session=0xC0FFEE01)
    incarnations = [0xA0A0A0A0, 0x00000001, 0xFFFFFFFF]
    for w, inc in zip(workers, incarnations, strict=True):
        # A JOIN as the host agent sends it: the worker's own idea of the job.
        tap.send(w.host_if, frame(w, join(w, inc, job=4, slot=8, num_slots=5, num_workers=3)))
        got = results(tap.collect(expect=1, timeout=10), workers)
        assert [(v.worker_id, p) for v, p in got] == [(w.worker_id, joined(4, w.worker_id, inc, **geometry))], (
            "only the sender is answered"
        )
    # A worker configured differently gets the switch's geometry back (its agent
    # then names the first field that differs); a JOIN's slot is not checked. One
    # that accepts several packets per datagram learns that the switch does not
    # (JOINED's blocks = 0).
    w0 = workers[0]
    other = join(w0, 77, job=4, slot=0, block_size=64, num_slots=99, message_size=1472)
    tap.send(w0.host_if, frame(w0, other))
    got = results(tap.collect(expect=1, timeout=10), workers)
    assert [(v.worker_id, p) for v, p in got] == [(0, joined(4, 0, 77, **geometry))]
    # Retransmitted JOIN (the JOINED was lost): the same answer again.
    tap.send(w0.host_if, frame(w0, other))
    got = results(tap.collect(expect=1, timeout=10), workers)
    assert [(v.worker_id, p) for v, p in got] == [(0, joined(4, 0, 77, **geometry))]
    c = switch.counters()
    assert c["joined"] == 5 and c["data_counted"] == 0
    # JOINs touched no slot: the first round of the job is an ordinary opening round.
    v = np.arange(32)
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, 4, 9, v, slot=9, job=4, session=0xC0FFEE01)))
    got = results(tap.collect(expect=3, timeout=10), workers)
    assert sorted(v.worker_id for v, _ in got) == [0, 1, 2]
    assert all(AggHeader.unpack(p)[6:8] == (4, 9) for _, p in got)  # block, next_block
    assert_sums(got, 3, 3 * v)


def test_a_job_without_a_configured_session_gets_a_random_one(switch, tap):
    workers = make_workers(switch, 2)
    cfg = switch.install({"jobs": [job_dict(1, workers, num_slots=2, session=None)]})
    session = switch.client.sessions[1]
    assert session != 0 and switch.client.read_sessions(cfg.job(1)) == {session}
    w0, w1 = workers
    tap.send(w1.host_if, frame(w1, join(w1, 5, num_slots=2)))
    (got,) = results(tap.collect(expect=1, timeout=10), workers)
    assert AggHeader.unpack(got[1]).session == session
    # The session from the JOINED is what the switch admits, and only that.
    tap.send(w0.host_if, frame(w0, opening(w0, 0, NONE, NONE, session=session ^ 0x80000000)))
    wait_for_counters(switch, bad_session=1)
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, NONE, NONE, session=session)))
    assert len(results(tap.collect(expect=2, timeout=10), workers)) == 2
    c = switch.counters()
    assert (c["bad_session"], c["data_counted"], c["result_multicast"]) == (1, 2, 1)


def test_wrong_session_is_dropped_before_it_touches_the_round(switch, tap):
    """A packet of another session is not counted, not answered and not a
    retransmission: the round it would disturb completes as if it never came."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [job_dict(1, workers, num_slots=1)]})
    w0, w1 = workers
    v = np.arange(32)
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 0, NONE, v)))
    wait_for_counters(switch, data_counted=1)
    # Another process claiming worker 1 (old session) and a repeat of worker 0 from
    # one: neither is added, neither completes the round, neither gets a re-send.
    tap.send(w1.host_if, frame(w1, opening(w1, 0, 0, NONE, 1000 * v, session=SESSION + 1)))
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 0, NONE, 1000 * v, session=SESSION + 1)))
    wait_for_counters(switch, bad_session=2)
    assert results(tap.collect(timeout=0.3), workers) == []
    tap.send(w1.host_if, frame(w1, opening(w1, 0, 0, NONE, 10 * v)))
    assert_sums(results(tap.collect(expect=2, timeout=10), workers), 2, 11 * v)
    c = switch.counters()
    assert (c["data_counted"], c["bad_session"], c["result_unicast"], c["retransmit_dropped"]) == (2, 2, 0, 0)


def test_reset_gives_the_job_a_new_session_and_joins_get_it(switch, tap):
    workers = make_workers(switch, 2)
    cfg = switch.install({"jobs": [job_dict(1, workers, num_slots=2)]})
    w0, w1 = workers
    tap.send(w0.host_if, frame(w0, join(w0, 1, num_slots=2)))
    (got,) = results(tap.collect(expect=1, timeout=10), workers)
    assert AggHeader.unpack(got[1]).session == SESSION
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 1, NONE, np.arange(32))))  # a half-finished round
    wait_for_counters(switch, data_counted=1)

    reset = switch.client.reset_job(cfg.job(1))
    assert reset.session not in (0, SESSION)
    # Processes that did not JOIN again are dropped, whatever they send ...
    tap.send(w1.host_if, frame(w1, opening(w1, 0, NONE, NONE)))
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 1, NONE, np.arange(32))))
    wait_for_counters(switch, bad_session=2)
    assert results(tap.collect(timeout=0.3), workers) == []
    # ... and a JOIN gets the new session, with which the job starts afresh.
    for w in workers:
        tap.send(w.host_if, frame(w, join(w, 2, num_slots=2)))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert sorted((v.worker_id, AggHeader.unpack(p).session) for v, p in got) == [
        (0, reset.session),
        (1, reset.session),
    ]
    tap.send(w1.host_if, frame(w1, opening(w1, 0, NONE, NONE, session=reset.session)))
    wait_for_counters(switch, data_counted=2)
    assert results(tap.collect(timeout=0.3), workers) == []  # worker 0's old bit is gone
    tap.send(w0.host_if, frame(w0, opening(w0, 0, 1, NONE, 5 * np.arange(32), session=reset.session)))
    got = results(tap.collect(expect=2, timeout=10), workers)
    assert_sums(got, 2, 5 * np.arange(32))  # not the sums the old round had begun
    c = switch.counters()
    assert (c["joined"], c["bad_session"], c["data_counted"], c["result_multicast"]) == (3, 2, 3, 1)
