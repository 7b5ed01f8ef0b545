# SPDX-License-Identifier: Apache-2.0
"""Hostile datagrams: each is dropped and counted; nothing raises; other jobs are unaffected."""

from __future__ import annotations

import socket

import numpy as np
from conftest import SESSION, joined_engine, run_workers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import HEADER, HEADER_LEN, NONE, AggHeader, Flags, MsgType, decode_values, encode

JOBS = [
    JobSpec(1, 2, slot_base=0, num_slots=4, block_size=4),
    JobSpec(2, 3, mode="dense", slot_base=4, num_slots=4, block_size=4),
]


def _fresh_engine_with_job2_midway() -> tuple[AggregatorEngine, list[bytes]]:
    """Job 2 has finished its opening round on slot 4, a REPEAT of block 0 (worker 0 scaled
    it with exponent 126, the others with 127); returns the packets that complete round 1."""
    engine = joined_engine(JOBS)
    for w in range(3):
        opening = AggHeader(
            MsgType.DATA, 2, w, 4, 0, 0, 0, NONE, 126 if w == 0 else 127, count=4, flags=Flags.OPENING,
            session=SESSION, blocks=4,
        )  # fmt: skip
        engine.handle(encode(opening, np.array([9] * 4)))
    finish = [
        encode(
            AggHeader(MsgType.DATA, 2, w, 4, 1, 0, 0, NONE, count=4, session=SESSION, blocks=4), np.array([w + 1] * 4)
        )
        for w in range(3)
    ]
    return engine, finish


header_fields = st.tuples(
    st.integers(1, 3),
    st.integers(0, 9),
    st.sampled_from([1, 2, 3, 0xFFFF]),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.sampled_from([0, 1, 2, NONE]),
    st.sampled_from([0, 1, 4, NONE, 0x7FFFFFFF]),
    st.sampled_from([0, 4, 8, NONE]),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 8),
    st.sampled_from([0, SESSION, SESSION ^ 1]),
    st.sampled_from([0, 1, 4, 5, NONE]),
    st.integers(0, 3),
)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(
        st.binary(max_size=200),
        st.tuples(header_fields, st.binary(max_size=40)).map(lambda t: HEADER.pack(*t[0]) + t[1]),
    )
)
def test_fuzzed_datagrams_never_raise_or_touch_other_jobs(data):
    engine, finish = _fresh_engine_with_job2_midway()
    handled = engine.handle(data)
    # Whatever it was, job 2's round still ends with exactly the sum of the values counted:
    # its workers' (1 + 2 + 3 per element), with the fuzz input in place of worker w's when
    # it was a DATA of that round carrying w's session (then it is w's, and w's real packet
    # a duplicate); or, if the input failed job 2, with nothing but flagged RESULTs and
    # errors. Job 1 is never touched by job-2 input.
    outs = [engine.handle(p) for p in finish]
    results = [
        AggHeader.unpack(r.payload)
        for o in outs
        for r in o.replies
        if AggHeader.unpack(r.payload).msg_type == MsgType.RESULT
    ]
    values = [
        r.payload[HEADER_LEN:]
        for o in outs
        for r in o.replies
        if AggHeader.unpack(r.payload).msg_type == MsgType.RESULT
    ]
    if engine.failure(2) is not None:
        assert all(r.flags & Flags.MISMATCH for r in results)
    else:
        contributions = {w: np.full(4, w + 1, np.int64) for w in range(3)}
        if handled.event == "counted" and (h := AggHeader.unpack(data)).slot == 4 and h.shadow == 1:
            contributions[h.worker_id] = decode_values(data, h.count).astype(np.int64) if h.count else 0
        expected = np.sum(list(contributions.values()), axis=0).astype(">i4").tobytes()
        assert len(results) == 3 and all(v == expected for v in values)
    counters = engine.counters.snapshot()
    assert counters["packets_in"] == 1 + 3 + 3 + 5  # + the 5 JOINs of joined_engine
    if handled.dropped:
        assert counters[f"drop_{handled.event}"] >= 1
    if engine.failure(1) is not None:
        assert data[2:4] == b"\x00\x01"


def test_server_survives_garbage_and_still_serves():
    with AggregatorServer(JOBS, port=0) as srv:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rng = np.random.default_rng(0)
        for size in [0, 1, 21, 22, 23, 500, 60000]:
            s.sendto(rng.bytes(size), srv.address)
        # A replayed RESULT, another job's id, an out-of-range worker, a wrong slot:
        s.sendto(AggHeader(MsgType.RESULT, 1, 0, 0, 0, 0, NONE).pack(), srv.address)
        s.sendto(AggHeader(MsgType.DATA, 9, 0, 0, 0, 0, NONE).pack(), srv.address)
        s.sendto(AggHeader(MsgType.DATA, 1, 7, 0, 0, 0, NONE).pack(), srv.address)
        s.sendto(AggHeader(MsgType.DATA, 1, 0, 5, 0, 0, NONE).pack(), srv.address)
        agents = [HostAgent(WorkerConfig(1, r, 2, aggregator=srv.address, num_slots=4, block_size=4)) for r in range(2)]
        x = np.arange(10, dtype=np.int32)
        outs = run_workers(lambda r: agents[r].allreduce(x), 2)
        np.testing.assert_array_equal(outs[0], 2 * x)
        drops = srv.engine.counters.drops()
        for reason in ("bad_type", "unknown_job", "bad_worker", "bad_slot"):
            assert drops.get(reason, 0) >= 1, (reason, drops)
        assert sum(drops.values()) >= 11
        for a in agents:
            a.close()
        s.close()


def test_a_join_claiming_the_group_rank_is_answered_to_its_sender():
    """A JOIN whose worker_id is 0xFF (the multicast group's) gets its ERROR UNKNOWN_RANK at
    the address it came from, also in a job without a group: the server neither crashes nor
    takes it for a group copy."""
    with AggregatorServer(JOBS, port=0, engine="python") as srv:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(5)
        s.sendto(AggHeader(MsgType.JOIN, 1, 0xFF, 0, 0, 7, 4, 4, 0, 2).pack(), srv.address)
        reply = AggHeader.unpack(s.recv(100))
        assert (reply.msg_type, reply.block, reply.worker_id) == (MsgType.ERROR, 10, 0xFF)
        s.close()
