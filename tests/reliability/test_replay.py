# SPDX-License-Identifier: Apache-2.0
"""Replays of an authenticated job's sealed packets (issue 31, point 7; docs/protocol.md
6.3): a captured JOIN, resent from anywhere, and a captured DATA of an earlier allreduce,
resent after its slot has passed its idle horizon, and a recorded DATA of a process that a
new one replaced, fail nothing; both engines drop and count them alike (an old process
that really goes on is still SUPERSEDED), and a worker ignores a replayed RESULT."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest
from conftest import run_workers

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.aggregator.native import NativeEngine
from p4reduce.aggregator.replies import AnswerLimiter
from p4reduce.aggregator.server import Datapath
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import NONE, AggHeader, ErrorCode, Flags, Mode, MsgType, decode_values, encode
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.framing import split_datagram

KEY = JobKey(bytes(range(40, 56)))
B = 2
SPEC = JobSpec(1, 2, mode=Mode.DENSE, num_slots=1, block_size=B, key=KEY)
ADDRS = [("10.0.0.1", 40000), ("10.0.0.2", 40001)]
STRANGER = ("10.9.9.9", 40999)
FAST = dict(timeout=0.02, max_timeout=0.1, num_slots=2, block_size=8)


class Job:
    """Two simulated members of SPEC at ADDRS, driving one engine through its Datapath."""

    def __init__(self, engine: str) -> None:
        sessions = iter(range(101, 10_000, 2))
        kind = NativeEngine if engine == "native" else AggregatorEngine
        self.engine = kind([SPEC], new_session=lambda job, worker: next(sessions))
        self.engine.idle_horizon = 1e-9  # every slot between allreduces is past its horizon
        self.path = Datapath(self.engine, {}, AnswerLimiter(clock=lambda: 0.0, burst=1 << 30))
        self.sessions = [0, 0]
        self.joins = [self.join(r, 0xA000 + r) for r in range(2)]

    def send(self, packet: bytes, addr: tuple[str, int]) -> list[AggHeader]:
        """The answers (every one sealed with the job's key) to one datagram."""
        out = self.path.process([(packet, addr)])
        assert all(KEY.verify(p) for p, _ in out)
        return [AggHeader.unpack(p) for p, _ in out]

    def join(self, rank: int, incarnation: int, nonce: int = 0, addr: tuple[str, int] | None = None) -> bytes:
        join = AggHeader(MsgType.JOIN, 1, rank, 0, 0, incarnation, B, 1, Mode.DENSE.code, 2, fingerprint=nonce)
        packet = KEY.seal(join.pack())
        (answer,) = self.send(packet, addr or ADDRS[rank])
        if answer.msg_type == MsgType.JOINED:
            self.sessions[rank] = answer.session
        return packet

    def data(self, rank: int, epoch: int, values: list[int]) -> bytes:
        h = AggHeader(
            MsgType.DATA, 1, rank, 0, epoch % 2, epoch, 0, NONE, count=B, flags=Flags.OPENING,
            session=self.sessions[rank], blocks=1, fingerprint=0xF00D + epoch,
        )  # fmt: skip
        return KEY.seal(encode(h, np.array(values, np.int32)))

    def allreduce(self, epoch: int, values: list[list[int]]) -> list[int]:
        self.send(self.data(0, epoch, values[0]), ADDRS[0])
        out = self.path.process([(self.data(1, epoch, values[1]), ADDRS[1])])
        assert len(out) == 2 and {a for _, a in out} == set(ADDRS)
        return decode_values(out[0][0], B).tolist()

    def counters(self) -> dict[str, int]:
        return self.engine.counters.snapshot()


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_replayed_opening_data_of_an_earlier_allreduce_is_dropped_past_the_idle_horizon(engine):
    job = Job(engine)
    old = job.data(0, 0, [1, 2])
    assert job.allreduce(0, [[1, 2], [10, 20]]) == [11, 22]
    assert job.allreduce(1, [[3, 4], [30, 40]]) == [33, 44]
    for _ in range(3):  # the slot forgot allreduce 0 (horizon 0): only the member's epoch tells
        assert job.send(old, ADDRS[0]) == []
    assert job.counters()["drop_replay"] == 3
    assert job.engine.job_counters(1)["drops"] == 3
    # The newest allreduce's opening, replayed once the slot forgot it: stale, not a new round.
    stale = job.counters().get("drop_stale", 0)
    assert job.send(job.data(0, 1, [3, 4]), ADDRS[0]) == []
    assert job.counters()["drop_stale"] == stale + 1
    assert job.allreduce(2, [[5, 6], [50, 60]]) == [55, 66]  # the next allreduce is exact
    assert job.engine.failure(1) is None


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_replayed_join_fails_nothing_from_anywhere(engine):
    job = Job(engine)
    assert job.allreduce(0, [[1, 2], [10, 20]]) == [11, 22]  # the job is running
    captured = job.joins[0]
    assert [a.msg_type for a in job.send(captured, ADDRS[0])] == [MsgType.JOINED]  # a duplicate: ours was lost
    (challenge,) = job.send(captured, STRANGER)  # another address: prove yourself
    assert (challenge.msg_type, challenge.epoch, challenge.session) == (MsgType.CHALLENGE, 0xA000, 0)
    assert challenge.fingerprint != 0
    again = job.send(captured, STRANGER)  # the nonce stays until a process answers it
    assert [(a.msg_type, a.fingerprint) for a in again] == [(MsgType.CHALLENGE, challenge.fingerprint)]
    assert job.engine.failure(1) is None and job.counters()["challenged"] == 2
    assert job.allreduce(1, [[3, 4], [30, 40]]) == [33, 44]  # the member keeps its session

    # A genuine new process of rank 0 answers the challenge: REJOINED, as before the fix.
    job.send(KEY.seal(AggHeader(MsgType.JOIN, 1, 0, 0, 0, 0xB000, B, 1, 1, 2).pack()), ADDRS[0])
    nonce = job.engine._jobs[1].nonces[0]
    (failed,) = job.send(
        KEY.seal(AggHeader(MsgType.JOIN, 1, 0, 0, 0, 0xB000, B, 1, 1, 2, fingerprint=nonce).pack()), ADDRS[0]
    )
    assert failed.msg_type == MsgType.ERROR and job.engine.failure(1)[0].name == "REJOINED"
    # After a RESET, the retired incarnation's JOIN (a replay) is dropped, not challenged.
    job.send(KEY.seal(AggHeader(MsgType.RESET, 1, 0, 0, 0, 0, NONE, session=failed.session).pack()), ADDRS[0])
    assert job.engine.failure(1) is None
    job.sessions = [0, 0]
    job.join(0, 0xC000)
    job.join(1, 0xC001)
    assert job.allreduce(0, [[7, 8], [70, 80]]) == [77, 88]
    job.join(
        0,
        0xD000,
        job.send(KEY.seal(AggHeader(MsgType.JOIN, 1, 0, 0, 0, 0xD000, B, 1, 1, 2).pack()), ADDRS[0])[0].fingerprint,
    )
    replays = job.counters().get("drop_replay", 0)
    assert job.send(KEY.seal(AggHeader(MsgType.JOIN, 1, 0, 0, 0, 0xC000, B, 1, 1, 2).pack()), ADDRS[0]) == []
    assert job.counters()["drop_replay"] == replays + 1


def _new_process(job: Job, rank: int, incarnation: int) -> AggHeader:
    """A genuine new process of `rank` JOINs, answers the CHALLENGE: the aggregator's answer."""
    join = AggHeader(MsgType.JOIN, 1, rank, 0, 0, incarnation, B, 1, 1, 2)
    (challenge,) = job.send(KEY.seal(join.pack()), ADDRS[rank])
    assert challenge.msg_type == MsgType.CHALLENGE
    (answer,) = job.send(KEY.seal(join._replace(fingerprint=challenge.fingerprint).pack()), ADDRS[rank])
    return answer


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_replayed_data_of_a_replaced_process_fails_nothing(engine):
    """Rank 0's process is replaced (a genuine new process answers the CHALLENGE; the running
    job fails REJOINED, as always): the old session's recorded DATA, replayed from anywhere,
    is dropped as a replay (its epochs were taken from it already) -- no ERROR, no SUPERSEDED;
    after the RESET the job goes on exactly."""
    job = Job(engine)
    recorded = [job.data(0, 0, [1, 2]), job.data(0, 1, [3, 4])]
    assert job.allreduce(0, [[1, 2], [10, 20]]) == [11, 22]
    assert job.allreduce(1, [[3, 4], [30, 40]]) == [33, 44]
    failed = _new_process(job, 0, 0xB000)
    assert failed.msg_type == MsgType.ERROR and job.engine.failure(1) == (ErrorCode.REJOINED, 0)
    before, drops = job.counters(), job.engine.job_counters(1)["drops"]
    for packet in recorded * 2:
        for addr in (ADDRS[0], STRANGER):
            assert job.send(packet, addr) == []
    after = job.counters()
    assert after["drop_replay"] == before.get("drop_replay", 0) + 8
    assert after["jobs_failed"] == before["jobs_failed"] and after.get("failed") == before.get("failed")
    assert job.engine.job_counters(1)["drops"] == drops + 8
    assert job.engine.failure(1) == (ErrorCode.REJOINED, 0)
    # The new process resets the job; both rejoin; the sums are exact, replays still change nothing.
    (echo,) = job.send(KEY.seal(AggHeader(MsgType.RESET, 1, 0, 0, 0, 0, NONE, session=failed.session).pack()), ADDRS[0])
    assert echo.msg_type == MsgType.RESET and job.engine.failure(1) is None
    job.join(0, 0xB000)
    job.join(1, 0xB001)
    for packet in recorded:
        job.send(packet, STRANGER)  # a session of no member now: NOT_JOINED to the sender only
    assert job.allreduce(0, [[5, 6], [50, 60]]) == [55, 66]
    assert job.allreduce(1, [[7, 8], [70, 80]]) == [77, 88]
    assert job.engine.failure(1) is None


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_replaced_process_that_really_goes_on_is_still_superseded(engine):
    """A newer epoch than any taken from a retired session is the old process going on."""
    # Replaced before the job counted anything (no REJOINED): its first DATA fails the job.
    job = Job(engine)
    old = job.sessions[0]
    assert _new_process(job, 0, 0xB000).msg_type == MsgType.JOINED and job.engine.failure(1) is None
    job.sessions[0] = old
    (error,) = job.send(job.data(0, 0, [1, 2]), ADDRS[0])
    assert (error.msg_type, error.block) == (MsgType.ERROR, ErrorCode.SUPERSEDED)
    assert job.engine.failure(1) == (ErrorCode.SUPERSEDED, 0)
    # Replaced while running (REJOINED): its replays are dropped, its next allreduce is not.
    job = Job(engine)
    old = job.sessions[0]
    assert job.allreduce(0, [[1, 2], [10, 20]]) == [11, 22]
    assert _new_process(job, 0, 0xB000).msg_type == MsgType.ERROR
    job.sessions[0] = old
    replays, failed = job.counters().get("drop_replay", 0), job.counters()["failed"]
    assert job.send(job.data(0, 0, [1, 2]), ADDRS[0]) == []
    (error,) = job.send(job.data(0, 1, [3, 4]), ADDRS[0])  # the first cause stays: REJOINED
    assert (error.msg_type, error.block) == (MsgType.ERROR, ErrorCode.REJOINED)
    assert job.counters()["drop_replay"] == replays + 1 and job.counters()["failed"] == failed + 1


@pytest.mark.parametrize("engine", ["python", "native"])
def test_without_a_key_any_packet_of_a_retired_session_supersedes(engine):
    """Unkeyed jobs keep their behaviour: nothing tells a replay, so an old epoch fails the job."""
    sessions = iter(range(101, 10_000, 2))
    kind = NativeEngine if engine == "native" else AggregatorEngine
    spec = JobSpec(1, 2, mode=Mode.DENSE, num_slots=1, block_size=B)
    engine_ = kind([spec], new_session=lambda job, worker: next(sessions))
    path = Datapath(engine_, {}, AnswerLimiter(clock=lambda: 0.0, burst=1 << 30))

    def send(h: AggHeader, addr: tuple[str, int], values: list[int] | None = None) -> list[AggHeader]:
        packet = encode(h, np.array(values, np.int32)) if values else h.pack()
        return [AggHeader.unpack(p) for p, _ in path.process([(packet, addr)])]

    def join(rank: int, incarnation: int) -> int:
        (answer,) = send(AggHeader(MsgType.JOIN, 1, rank, 0, 0, incarnation, B, 1, 1, 2), ADDRS[rank])
        return answer.session

    def data(rank: int, session: int, epoch: int) -> AggHeader:
        return AggHeader(
            MsgType.DATA, 1, rank, 0, epoch % 2, epoch, 0, NONE, count=B, flags=Flags.OPENING,
            session=session, blocks=1, fingerprint=0xF00D + epoch,
        )  # fmt: skip

    old = [join(0, 0xA000), join(1, 0xA001)]
    send(data(0, old[0], 0), ADDRS[0], [1, 2])
    send(data(1, old[1], 0), ADDRS[1], [10, 20])
    join(0, 0xB000)  # a new process: REJOINED
    assert engine_.failure(1) == (ErrorCode.REJOINED, 0)
    (error,) = send(data(0, old[0], 0), STRANGER, [1, 2])
    assert error.msg_type == MsgType.ERROR and engine_.counters.snapshot().get("drop_replay", 0) == 0


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_replayed_join_over_udp_fails_nothing_and_a_restarted_worker_still_rejoins(engine):
    """End to end: rank 0's captured JOIN resent from another socket is challenged; the job
    goes on exactly. A real new process of rank 0 (same key) answers the challenge and is
    taken as the new process: the running job fails with REJOINED, as it always did."""
    x = [np.arange(1, 17, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=2, block_size=8, key=KEY)], port=0, engine=engine) as srv:
        agents = [HostAgent(WorkerConfig(1, r, 2, aggregator=srv.address, key=KEY, **FAST)) for r in range(2)]
        try:
            for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
                np.testing.assert_array_equal(out, x[0] + x[1])
            a0 = agents[0]
            join = AggHeader(
                MsgType.JOIN, 1, 0, 0, 0, a0._incarnation, 8, 2, Mode.SPARSE.code, 2, blocks=a0._message_size
            )
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as attacker:
                attacker.settimeout(30)
                attacker.sendto(KEY.seal(join.pack()), srv.address)  # the bytes rank 0 sent, replayed
                answer = AggHeader.unpack(attacker.recv(2048))
            assert answer.msg_type == MsgType.CHALLENGE and srv.engine.failure(1) is None
            for _ in range(2):
                for out in run_workers(lambda r: agents[r].allreduce(x[r]), 2):
                    np.testing.assert_array_equal(out, x[0] + x[1])
            restarted = HostAgent(WorkerConfig(1, 0, 2, aggregator=srv.address, key=KEY, **FAST))
            with pytest.raises(Exception, match="joined again with a new process"):
                restarted.allreduce(x[0])
            restarted.close()
            assert srv.counters()["challenged"] >= 2
        finally:
            for a in agents:
                a.close()


class Relay:
    """A UDP relay between one worker and its aggregator that records what passes: the
    aggregator sees the relay as the worker, the worker the relay as the aggregator (so
    what the relay sends the worker comes from the aggregator's address, as a replay by
    an on-path attacker would)."""

    def __init__(self, aggregator: tuple[str, int]) -> None:
        self.aggregator = aggregator
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.address = self.sock.getsockname()
        self.worker: tuple[str, int] | None = None
        self.up: list[bytes] = []  # worker -> aggregator
        self.down: list[bytes] = []  # aggregator -> worker
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                data, addr = self.sock.recvfrom(65535)
            except TimeoutError:
                continue
            if addr == self.aggregator:
                self.down.append(data)
                if self.worker is not None:
                    self.sock.sendto(data, self.worker)
            else:
                self.worker = addr
                self.up.append(data)
                self.sock.sendto(data, self.aggregator)

    def to_worker(self, data: bytes) -> None:
        assert self.worker is not None
        self.sock.sendto(data, self.worker)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.sock.close()


def _wait_for(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.01)


def test_a_worker_ignores_a_replayed_result_of_an_earlier_allreduce():
    """RESULTs carry their allreduce's fingerprint (which covers its epoch): allreduce 0's
    sealed RESULTs, replayed to a worker during allreduce 1 from the aggregator's address,
    are ignored; allreduce 1 is exact."""
    x = [np.arange(1, 17, dtype=np.int32) * (r + 1) for r in range(2)]
    with AggregatorServer([JobSpec(1, 2, num_slots=2, block_size=8, key=KEY)], port=0, engine="python") as srv:
        relay = Relay(srv.address)
        agents = [
            HostAgent(WorkerConfig(1, r, 2, aggregator=relay.address if r == 0 else srv.address, key=KEY, **FAST))
            for r in range(2)
        ]
        try:
            run_workers(lambda r: agents[r].allreduce(x[r]), 2)
            packets = [bytes(p) for d in relay.down for p in split_datagram(d)[0]]
            old = [p for p in packets if AggHeader.unpack(p).msg_type == MsgType.RESULT]
            assert old and all(KEY.verify(d) for d in old)
            done: list = []
            first = threading.Thread(target=lambda: done.append(agents[0].allreduce(x[0] * 3)), daemon=True)
            first.start()
            _wait_for(
                lambda: any(AggHeader.unpack(p).epoch == 1 for d in relay.up[1:] for p in split_datagram(d)[0]),
                "DATA of allreduce 1",
            )
            for d in old * 3:
                relay.to_worker(d)
            second = agents[1].allreduce(x[1] * 3)
            first.join(60)
            np.testing.assert_array_equal(done[0], (x[0] + x[1]) * 3)
            np.testing.assert_array_equal(second, (x[0] + x[1]) * 3)
            assert srv.engine.failure(1) is None
            assert agents[0].last_stats.ignored_packets >= len(old) * 3  # sent before the real result
        finally:
            for a in agents:
                a.close()
            relay.close()
