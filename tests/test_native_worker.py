# SPDX-License-Identifier: Apache-2.0
"""The native worker engine (p4reduce._worker, C) against the Python one
(hostagent/stream_engine.py: a Stream per slot, StreamRun's start, feed and
expire_timers), differentially: the same random traffic into both, then the
same packets out, the same output bytes, stream states, counters, round latencies,
timeouts and errors (hypothesis). Then both engines end to end through the software
aggregator, and the GIL during a native poll."""

from __future__ import annotations

import dataclasses
import itertools
import socket
import threading
import time
import types

import numpy as np
import pytest
from conftest import allreduce_all
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from p4reduce import _native_worker
from p4reduce.hostagent import HostAgent, WorkerConfig, fastpath, fixedpoint, stream_engine
from p4reduce.hostagent.blocks import BlockPlan
from p4reduce.hostagent.engine_api import AllreduceStats, BlockTarget
from p4reduce.hostagent.errors import AllreduceTimeout, ProtocolError
from p4reduce.hostagent.fastpath import NativeEngine
from p4reduce.hostagent.stream_engine import StreamEngine
from p4reduce.protocol import (
    ALL_WORKERS,
    EXP_BIAS,
    HEADER_LEN,
    NONE,
    PROTOCOL_VERSION,
    AggHeader,
    Flags,
    MsgType,
    encode,
    scatter_flags,
)
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.framing import split_datagram

RTO = 0.05
GROUP_SESSION_MASK = 0x5A5A5A5A  # the tests' group sessions: each endpoint's session XOR this
COUNTS = (
    "packets_received",
    "ignored_packets",
    "packets_sent",
    "payload_bytes_sent",
    "retransmissions",
    "queries",
    "unauthenticated",
)
KEY = JobKey(bytes(range(16)))  # an authenticated job's (docs/protocol.md 6.3)


class FixedRto:
    """The RTO estimator, fixed, recording its samples: both engines time rounds alike."""

    def __init__(self) -> None:
        self.rto, self.samples = RTO, []

    def sample(self, seconds: float) -> None:
        self.samples.append(seconds)


class RecordingWindow:
    def __init__(self) -> None:
        self.losses: list[float] = []

    def on_round(self, latency: float) -> None:
        pass

    def on_loss(self, started: float, now: float) -> bool:
        self.losses.append(started)
        return True


def tensor(rng: np.random.Generator, dtype: str, length: int, block: int, density: float, bound: int) -> np.ndarray:
    """Block-sparse values: float32 at random magnitudes (subnormal to huge, some
    blocks with sums that overflow float32), or int32 within the no-overflow bound."""
    nblocks = -(-length // block)
    keep = np.repeat(rng.random(nblocks) < density, block)[:length]
    if dtype == "int32":
        x = rng.integers(-bound, bound + 1, length).astype(np.int32)
    else:
        scale = np.repeat(2.0 ** rng.integers(-140, 128, nblocks), block)[:length]
        x = np.clip(rng.standard_normal(length) * scale, -3e38, 3e38).astype(np.float32)
    x[~keep] = 0
    return x


class Aggregator:
    """The RESULTs a correct aggregator sends one worker, stream by stream, in order: per
    stream its opening round's (the data round of the smallest block any worker holds, or a
    REPEAT of it when its holders' exponents differ, or the end of an empty stream), then
    one per data round (docs/protocol.md 3)."""

    def __init__(
        self,
        plans: list[BlockPlan],
        cfg: WorkerConfig,
        rounds: list[int],
        epoch: int,
        tag: int,
        nblocks: int,
        shard_blocks: int = 0,
        full_to_all: bool = False,
        sessions: list[int] | None = None,
    ) -> None:
        """`shard_blocks`: a reduce-scatter's, whose RESULTs are header-only for other ranks'
        blocks (an aggregator implementing SCATTER) unless `full_to_all`. `sessions`: the
        worker's at each aggregator (stream s is served by aggregator s mod k)."""
        sessions = sessions or [0]
        self.results: list[list[bytes]] = []  # per stream, per round of this allreduce
        self.repeats = 0  # streams whose opening round is a REPEAT
        n, S, B = cfg.scale_workers, cfg.num_slots, cfg.block_size
        for s in range(plans[0].num_streams):
            held = [b for b in range(s, nblocks, S) if any(p.nonzero[b] for p in plans)]
            agreed = {b: max(int(p.exps[b]) for p in plans if p.nonzero[b]) for b in held}
            # (block, next_block, header-only) per round; a REPEAT when the holders of the
            # first block sent it at different exponents.
            rounds_: list[tuple[int, int, bool]] = [(NONE, NONE, True)] if not held else []
            if held and len({int(p.exps[held[0]]) for p in plans if p.nonzero[held[0]]}) > 1:
                rounds_.append((held[0], held[0], True))
                self.repeats += 1
            rounds_ += [(b, held[k + 1] if k + 1 < len(held) else NONE, False) for k, b in enumerate(held)]
            packets = []
            for k, (b, nxt, empty) in enumerate(rounds_):
                owner = 0 if b == NONE else b // shard_blocks if shard_blocks else None
                flags = 0 if owner is None else scatter_flags(owner)
                header_only = empty or (owner not in (None, cfg.worker_id) and not full_to_all)
                h = AggHeader(
                    MsgType.RESULT,
                    cfg.job_id,
                    cfg.worker_id,
                    cfg.slot_base + s,
                    (rounds[s] + k) & 1,
                    epoch,
                    b,
                    nxt,
                    agreed.get(b, EXP_BIAS),
                    agreed.get(nxt, 0),
                    0 if header_only else B,
                    flags,
                    sessions[s % len(sessions)],
                    nblocks,
                    tag,
                )
                values = None
                if not header_only:
                    values = np.sum(
                        [fixedpoint.quantize(p.block(b), agreed[b], n).astype(np.int64) for p in plans if p.nonzero[b]],
                        axis=0,
                    ).astype(np.int32)
                packets.append(encode(h, values))
            self.results.append(packets)


def to_group(packet: bytes, session: int, header_only: bool = False) -> bytes:
    """The copy of a RESULT that goes to the job's multicast group (`header_only`: as a
    reduce-scatter's, docs/protocol.md 3.1, the owner's values going by unicast)."""
    h = AggHeader.unpack(packet)
    if header_only:
        return h._replace(worker_id=ALL_WORKERS, session=session, count=0).pack()
    return h._replace(worker_id=ALL_WORKERS, session=session).pack() + packet[HEADER_LEN:]


def mutate(data: st.DataObject, packet: bytes, cfg: WorkerConfig, nblocks: int) -> bytes:
    """One of the ways a RESULT can be wrong, stale or someone else's."""
    h = AggHeader.unpack(packet)
    values = packet[HEADER_LEN:]
    how = data.draw(
        st.sampled_from(
            [
                "epoch",
                "fingerprint",
                "session",
                "shadow",
                "mismatch",
                "overflow",
                "header_only",
                "job",
                "worker",
                "all_workers",
                "lookahead",
                "block",
                "slot",
                "pending",
                "pending_other",
                "error",
                "type",
                "version",
                "count",
                "header_only",
                "count",
                "lookahead",
                "block",
                "early_end",
                "backwards",
                "low_exp",
                "other_values",
                "foreign_error",
                "session",
            ]
        )
    )  # (the ones that end a run: rarer)
    word = data.draw(st.integers(0, 2**32 - 1))
    if how == "epoch":
        h = h._replace(epoch=(h.epoch + 1 + word % 3) % 2**32)
    elif how == "fingerprint":
        h = h._replace(fingerprint=word)
    elif how == "session":
        h = h._replace(session=word)  # a spoofer's guess: ignored
    elif how == "early_end":  # the stream ends (or jumps) while the worker still holds a block
        h = h._replace(next_block=data.draw(st.sampled_from([NONE, (h.next_block + cfg.num_slots) % 2**32])))
    elif how == "backwards":
        h = h._replace(next_block=(h.block - cfg.num_slots * (1 + word % 2)) % 2**32 if h.block != NONE else 0)
    elif how == "low_exp":
        h = h._replace(next_exp=word % 256)
    elif how == "other_values":
        values = bytes((b + 1 + word % 255) % 256 for b in values)
    elif how == "foreign_error":
        h, values = h._replace(msg_type=MsgType.ERROR, session=word, block=1, count=0), b""
    elif how == "shadow":
        h = h._replace(shadow=1 - h.shadow)
    elif how == "mismatch":
        h = h._replace(flags=h.flags | 2, epoch=word if word & 1 else h.epoch)
    elif how == "overflow":
        h = h._replace(flags=h.flags | 1)
    elif how == "header_only":
        h, values = h._replace(count=0), b""
    elif how == "job":
        h = h._replace(job_id=(h.job_id + 1) % 65536)
    elif how == "worker":
        h = h._replace(worker_id=(h.worker_id + 1 + word % 200) % 255)
    elif how == "all_workers":
        h = h._replace(worker_id=ALL_WORKERS)
    elif how == "lookahead":  # the aggregator names a block this worker did not expect
        h = h._replace(next_block=data.draw(st.sampled_from([NONE, word % (nblocks + 3 * cfg.num_slots)])))
    elif how == "block":
        h = h._replace(block=word % (nblocks + 2))
    elif how == "slot":
        h = h._replace(slot=(h.slot + 1 + word % 5) % 32768)
    elif how == "pending":
        h, values = h._replace(msg_type=MsgType.PENDING, next_block=word, count=0), b""
    elif how == "pending_other":  # for another round: block, epoch or shadow bit differ
        other = data.draw(st.sampled_from(["block", "epoch", "shadow"]))
        h = h._replace(
            msg_type=MsgType.PENDING,
            next_block=word,
            count=0,
            block=word % (nblocks + 1) if other == "block" else h.block,
            epoch=(h.epoch + 1) % 2**32 if other == "epoch" else h.epoch,
            shadow=1 - h.shadow if other == "shadow" else h.shadow,
        )
        values = b""
    elif how == "error":
        h, values = h._replace(msg_type=MsgType.ERROR, block=1 + word % 9, next_block=word >> 8, count=0), b""
    elif how == "type":
        h = h._replace(
            msg_type=data.draw(st.sampled_from([MsgType.DATA, MsgType.QUERY, MsgType.JOINED, MsgType.RESET]))
        )
    elif how == "version":
        return bytes([1]) + packet[1:]
    elif how == "count":  # a count that is not the block size, values to match
        count = word % (cfg.block_size + 3)
        h, values = h._replace(count=count), bytes(4 * count)
    return h.pack() + values


class Pair:
    """The Python engine and the native one for the same worker and allreduce."""

    def __init__(
        self,
        cfg: WorkerConfig,
        flat: np.ndarray,
        in_place: bool,
        epoch: int,
        tag: int,
        rounds: list[int],
        sessions: list[int],
        limits: list[int],
        group: bool,
        monkeypatch: pytest.MonkeyPatch,
        shard: tuple[int, int, int] | None = None,
        scan: tuple[int, int] | None = None,
    ) -> None:
        """`shard`: a reduce-scatter's (this worker's shard length, its first block, blocks
        per shard), `flat` then being the padded tensor (HostAgent.reduce_scatter). `scan`:
        the native engine scans the tensor itself as it goes (BlockPlan.unscanned: elements
        scanned first, elements per chunk); the Python engine's plan is always scanned."""
        self.clock = 1000.0
        monkeypatch.setattr(
            stream_engine, "time", types.SimpleNamespace(monotonic=lambda: self.clock, perf_counter=time.perf_counter)
        )
        self.agent = agent = HostAgent(cfg)
        self.cfg = cfg
        self.sent: list[list[bytes]] = [[] for _ in agent.engine.io.endpoints]
        for i, e in enumerate(agent.engine.io.endpoints):
            e.session, e.pack_up_to = sessions[i], limits[i]
            e.group_session = sessions[i] ^ GROUP_SESSION_MASK
            e.send = self._recorder(self.sent[i], cfg.key)
            e.flush = lambda: None
        # Both engines on the agent's endpoints, with a fixed RTO and a window that records
        # losses; a multicast group's receiver hears every aggregator (its socket is never read).
        self.group_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM) if group else None
        self.io = dataclasses.replace(
            agent.engine.io, rto=FixedRto(), window=RecordingWindow(), group_sock=self.group_sock
        )
        py_engine, self.c_engine = StreamEngine(self.io), NativeEngine(self.io)
        self.peers = [r.peers for r in py_engine.receivers]
        # The same tensor twice (in place: each engine's output is its own copy of it).
        py_in, c_in = flat.copy(), flat.copy()
        out_len, first_block, shard_blocks = shard or (flat.size, 0, 0)
        self.py_out = py_in if in_place else np.zeros(out_len, flat.dtype)
        self.c_out = c_in if in_place else np.zeros(out_len, flat.dtype)
        py_plan = BlockPlan.build(py_in, cfg.block_size, cfg.num_slots)
        c_plan = (
            BlockPlan.build(c_in, cfg.block_size, cfg.num_slots)
            if scan is None
            else BlockPlan.unscanned(c_in, cfg.block_size, cfg.num_slots, first_elements=scan[0])
        )
        self.py_plan, self.c_plan = py_plan, c_plan
        self.target = BlockTarget(self.py_out, first_block)
        self.py = py_engine.begin(py_plan, self.target, epoch, tag, rounds, AllreduceStats(), shard_blocks)
        # (the Python engine's state, which compare() reads)
        self.streams, self.waiting, self.active, self.timers = (
            self.py.streams,
            self.py.waiting,
            self.py.active,
            self.py.timers,
        )
        self.stats = self.py.stats
        self.run = self.c_engine.make_run(
            c_plan,
            self.c_out,
            epoch,
            tag,
            rounds,
            first_block=first_block,
            shard_blocks=shard_blocks,
            sockets=False,
            scan_chunk=0 if scan is None else scan[1],
        )
        self.c_losses: list[float] = []
        self.failed = False

    @staticmethod
    def _recorder(sent: list[bytes], key: JobKey | None):
        """Endpoint.send without a socket: the packet as it would go (sealed with a key)."""

        def send(packet: bytes | bytearray) -> int:
            sent.append(bytes(packet) if key is None else key.seal(packet))
            return len(sent[-1])

        return send

    def close(self) -> None:
        self.py.close()
        if self.group_sock is not None:
            self.group_sock.close()
        self.agent.close()

    def _both(self, py, native) -> object:
        """Run one step on both; the same exception (type and text) or none."""
        py_exc = c_exc = None
        py_result = c_result = None
        try:
            py_result = py()
        except Exception as exc:  # noqa: BLE001 - compared below
            py_exc = exc
        try:
            c_result = native()
        except _native_worker.Failed as failed:
            c_exc = fastpath.python_error(self.cfg, self.run, failed)
        except Exception as exc:  # noqa: BLE001
            c_exc = exc
        assert (type(py_exc), str(py_exc)) == (type(c_exc), str(c_exc))
        self.failed, self.exception = py_exc is not None, py_exc
        if py_exc is not None and currently_in_test_context():
            event(f"failed: {type(py_exc).__name__}")
        return py_result, c_result

    def start(self, count: int) -> None:
        self._both(lambda: self.py.start(count, self.clock), lambda: self.run.start(count, self.clock, RTO))

    def feed(self, receiver: int, datagram: bytes, source: tuple[str, int]) -> None:
        before, done = len(self.io.rto.samples), sum(s.done for s in self.streams)
        _, result = self._both(
            lambda: self.py.feed(receiver, [(memoryview(datagram), source)]),
            lambda: self.run.feed(receiver, [(datagram, source)], self.clock, RTO),
        )
        if result is not None:
            finished, samples = result
            assert list(np.frombuffer(samples, dtype=np.float64)) == self.io.rto.samples[before:]
            assert finished == sum(s.done for s in self.streams) - done

    def expire(self) -> None:
        def native() -> None:
            self.c_losses += self.run.expire(self.clock, self.cfg.max_timeout, self.cfg.failure_timeout)

        self._both(lambda: self.py.expire_timers(self.clock), native)
        if not self.failed:
            assert self.c_losses == self.io.window.losses

    def compare(self) -> None:
        """Everything observable, after a step (an allreduce that failed is only compared
        up to the packets it queued)."""
        out = self.run.take_output()
        for i, limit in enumerate(e.pack_up_to for e in self.io.endpoints):
            datagrams = [d for e, d in out if e == i]
            packets = []
            for d in datagrams:
                split, tail = split_datagram(memoryview(d))
                assert tail == 0 and split
                assert len(split) == 1 or (limit and len(d) <= limit)  # a larger packet goes alone
                packets += [bytes(p) for p in split]
            for d, following in itertools.pairwise(datagrams):  # packed as full as the limit allows
                first = len(split_datagram(memoryview(following))[0][0])  # its MAC too, when sealed
                assert not limit or len(d) + first > limit
            assert packets == self.sent[i]
            self.sent[i].clear()
        if self.failed:
            return
        assert self.py_out.view(np.uint8).tobytes() == self.c_out.view(np.uint8).tobytes()
        assert self.target.float_overflow == self.run.float_overflow
        for index, s in enumerate(self.streams):
            v = fastpath.stream_view(self.run, index)
            started = s.slot in self.active or s.done
            kind = (
                "none"
                if s.pending is None
                else "query"
                if s.pending_is_query
                else "data"
                if len(s.pending) > HEADER_LEN
                else "header"
            )
            assert (
                v.slot,
                v.round,
                v.block,
                v.exp,
                v.done,
                v.started,
                v.retries,
                v.missing_workers,
                v.overflow,
                v.pending_kind,
                v.opening,
            ) == (
                s.slot,
                s.round,
                s.block,
                s.exp,
                s.done,
                started,
                s.retries,
                s.missing_workers,
                s.overflow,
                kind,
                s.opening,
            )
            if s.slot in self.timers:  # the same timer: started, and deadline after backoffs
                timer = self.timers[s.slot]
                assert (v.timer_started, v.deadline) == (timer.started, timer.deadline)
        counts = self.run.counters()
        assert {k: counts[k] for k in COUNTS} == {k: getattr(self.stats, k) for k in COUNTS}
        assert counts["per_slot_retries"] == self.stats.per_slot_retries
        assert self.run.rounds() == [s.round for s in self.streams]
        assert self.run.active == len(self.active)
        assert self.run.waiting == len(self.waiting)
        assert self.run.unfinished == sum(not s.done for s in self.streams)
        if not self.run.unfinished:  # every stream ran to its end: the native scan is complete
            assert self.run.scanned == self.py_plan.num_blocks
            assert (self.c_plan.nonzero == self.py_plan.nonzero).all()
            assert (self.c_plan.exps[self.c_plan.nonzero] == self.py_plan.exps[self.py_plan.nonzero]).all()


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
def test_native_engine_matches_the_python_engine(data, monkeypatch):
    n = data.draw(st.integers(1, 4), label="workers")
    me = data.draw(st.integers(0, n - 1), label="rank")
    B = data.draw(st.integers(1, 12), label="block_size")
    S = data.draw(st.one_of(st.integers(1, 6), st.integers(7, 48)), label="slots")  # and many streams
    k = k_aggs = data.draw(st.integers(1, min(3, S)), label="aggregators")
    dtype = data.draw(st.sampled_from(["float32", "int32"]), label="dtype")
    mode = data.draw(st.sampled_from(["sparse", "dense"]), label="mode")
    length = data.draw(st.integers(1, 10 * B), label="length")
    densities = [data.draw(st.sampled_from([0.0, 0.2, 0.6, 1.0]), label="density") for _ in range(n)]
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    total = data.draw(st.sampled_from([None, n + 3]), label="total_workers")
    cfg = WorkerConfig(
        job_id=data.draw(st.integers(0, 65535)),
        worker_id=me,
        num_workers=n,
        mode=mode,
        slot_base=data.draw(st.integers(0, 200)),
        num_slots=S,
        block_size=B,
        aggregators=tuple(("127.0.0.1", 40000 + i) for i in range(k)),
        total_workers=total,
        failure_timeout=2.0,
        timeout=RTO,
        max_timeout=0.4,
        key=data.draw(st.sampled_from([None, KEY]), label="key"),
    )
    rng = np.random.default_rng(seed)
    bound = fixedpoint.INT32_MAX // cfg.scale_workers
    tensors = [tensor(rng, dtype, length, B, density, bound) for density in densities]
    shard = None
    shard_blocks = 0
    if total is None and data.draw(st.booleans(), label="reduce_scatter"):
        # HostAgent.reduce_scatter's layout: each rank's shard from a block boundary
        cuts = sorted(data.draw(st.lists(st.integers(0, length), min_size=n - 1, max_size=n - 1)))
        layout = [b - a for a, b in zip([0, *cuts], [*cuts, length], strict=True)]
        shard_blocks = max(-(-m // B) for m in layout)
        padded = []
        for t in tensors:
            p = np.zeros(n * shard_blocks * B, t.dtype)
            start = 0
            for rank, m in enumerate(layout):
                p[rank * shard_blocks * B : rank * shard_blocks * B + m] = t[start : start + m]
                start += m
            padded.append(p)
        tensors, length = padded, padded[0].size
        shard = (layout[me], me * shard_blocks, shard_blocks)
        if length == 0:
            return
    nblocks = -(-length // B)
    epoch, tag = data.draw(st.integers(0, 2**32 - 1)), data.draw(st.integers(0, 2**32 - 1))
    rounds = [data.draw(st.integers(0, 2**34)) for _ in range(S)]
    sessions = [data.draw(st.integers(0, 2**32 - 1)) for _ in range(k)]
    limits = [data.draw(st.sampled_from([0, 36, 100, 400, 65000])) for _ in range(k)]
    in_place = shard is None and data.draw(st.booleans(), label="in_place")
    # the native engine's own scan, a few blocks at a time, as the streams need them
    scan = data.draw(st.one_of(st.none(), st.tuples(st.integers(0, length), st.integers(1, 3 * B))), label="scan")
    pair = Pair(
        cfg,
        tensors[me],
        in_place,
        epoch,
        tag,
        rounds,
        sessions,
        limits,
        data.draw(st.booleans(), label="group"),
        monkeypatch,
        shard,
        scan,
    )
    try:
        plans = [BlockPlan.build(t, B, S) for t in tensors]
        agg = Aggregator(
            plans,
            cfg,
            rounds,
            epoch,
            tag,
            nblocks,
            shard_blocks,
            data.draw(st.booleans(), label="full_results_to_all"),
            sessions,
        )
        sent: list[bytes] = []  # every RESULT so far, for duplicates
        pair.start(data.draw(st.integers(1, S)))
        pair.compare()
        for _ in range(data.draw(st.integers(1, 80), label="steps")):
            op = data.draw(st.integers(0, 99))
            if op < 6:
                pair.start(data.draw(st.integers(0, S)))
            elif op < 16:
                pair.clock += data.draw(st.sampled_from([0.01, RTO, 0.1, 0.3, 1.5]))
                pair.expire()
            else:
                datagram = b""
                receiver = data.draw(st.integers(0, len(pair.peers) - 1))
                for _ in range(data.draw(st.integers(1, 4))):
                    s = data.draw(st.integers(0, len(agg.results) - 1))
                    # The result of the round the worker is in (the Python engine's state: both
                    # engines are equal so far), or one of another round of the stream.
                    k = pair.streams[s].round - rounds[s]
                    if data.draw(st.integers(0, 9)) == 0:
                        k = data.draw(st.integers(0, len(agg.results[s]) - 1))
                    if k >= len(agg.results[s]):
                        continue
                    packet = agg.results[s][k]
                    if receiver == k_aggs and data.draw(st.integers(0, 9)):  # as sent to the group
                        packet = to_group(
                            packet,
                            sessions[s % k_aggs] ^ GROUP_SESSION_MASK,
                            shard_blocks > 0 and data.draw(st.booleans()),
                        )
                    choice = data.draw(st.integers(0, 9))
                    if choice >= 7:
                        packet = (
                            mutate(data, packet, cfg, nblocks)
                            if choice < 9 or not sent
                            else data.draw(st.sampled_from(sent))
                        )
                    if cfg.key is not None and (packet[0] & 0x80) == 0:
                        # sealed as the aggregator would, or (a forger without the key) not at all,
                        # with a made-up MAC, or altered after sealing
                        how = data.draw(st.sampled_from(["seal"] * 6 + ["plain", "fake", "altered"]))
                        if how == "seal":
                            packet = cfg.key.seal(packet)
                        elif how == "fake":
                            packet = bytes([packet[0] | 0x80]) + packet[1:] + bytes(8)
                        elif how == "altered":
                            sealed = bytearray(cfg.key.seal(packet))
                            sealed[data.draw(st.integers(0, len(sealed) - 1))] ^= 1 << data.draw(st.integers(0, 7))
                            packet = bytes(sealed)
                    elif cfg.key is None and data.draw(st.integers(0, 19)) == 0:
                        packet = KEY.seal(packet)  # a sealed packet to a job without a key
                    sent.append(packet)
                    datagram += packet
                datagram += bytes(data.draw(st.sampled_from([0, 0, 0, 1, 35, 40])))  # a torn tail
                source = data.draw(st.sampled_from(sorted(pair.peers[receiver]) + [("127.0.0.2", 9)]))
                pair.clock += 0.001
                pair.feed(receiver, datagram, source)
            pair.compare()
            if pair.failed:
                break
        unfinished = pair.run.unfinished
        finished = "all" if not unfinished else "some" if unfinished < len(pair.streams) else "none"
        event(f"streams finished: {finished}")
        event(f"retransmissions: {bool(pair.stats.retransmissions)}, queries: {bool(pair.stats.queries)}")
        event(f"some stream waited silently: {any(s.pending_is_query for s in pair.streams)}")
        event(f"an opening round repeated: {agg.repeats > 0}")
    finally:
        pair.close()


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_a_complete_allreduce_matches_and_is_exact(dtype, mode, monkeypatch):
    """Without faults, feeding the aggregator's results in order finishes every stream
    with the exact sum on both engines (so the random test above starts from runs that work)."""
    rng = np.random.default_rng(7)
    n, B, S = 3, 5, 4
    cfg = WorkerConfig(
        job_id=3,
        worker_id=1,
        num_workers=n,
        mode=mode,
        num_slots=S,
        block_size=B,
        aggregators=(("127.0.0.1", 40000), ("127.0.0.1", 40001)),
        failure_timeout=1.0,
    )
    tensors = [tensor(rng, dtype, 97, B, 0.5, 2**20) for _ in range(n)]
    if dtype == "float32":
        tensors = [np.clip(t, -1e30, 1e30) for t in tensors]
    pair = Pair(cfg, tensors[1], False, 9, 1234, [0, 1, 2, 3], [5, 6], [400, 0], False, monkeypatch)
    try:
        plans = [BlockPlan.build(t, B, S) for t in tensors]
        agg = Aggregator(plans, cfg, [0, 1, 2, 3], 9, 1234, 20, sessions=[5, 6])
        pair.start(S)
        for k in range(max(len(r) for r in agg.results)):  # round by round, the streams interleaved
            for s, results in enumerate(agg.results):
                if k < len(results):
                    pair.feed(s % 2, results[k], ("127.0.0.1", 40000 + s % 2))
            pair.compare()
        assert pair.run.unfinished == 0 and not pair.failed
        exact = np.sum(tensors, axis=0, dtype=np.float64)
        if dtype == "int32":
            np.testing.assert_array_equal(pair.c_out, exact.astype(np.int32))
        else:
            bound = fixedpoint.tensor_error_bound(tensors, B)
            assert np.all(np.abs(pair.c_out.astype(np.float64) - exact) <= bound)
    finally:
        pair.close()


def test_a_round_waits_past_failure_timeout_while_other_rounds_start(monkeypatch):
    """A stream whose peer has not started it yet (dense mode, the peer's window is smaller)
    waits in its opening round as long as the peer's earlier streams take: both engines
    retransmit but do not fail while the other stream's rounds go on, and fail, naming the
    waiting stream, once no round has started for failure_timeout."""
    n, B, S = 2, 4, 2
    cfg = WorkerConfig(
        job_id=3,
        worker_id=0,
        num_workers=n,
        mode="dense",
        num_slots=S,
        block_size=B,
        aggregator=SOURCE,
        failure_timeout=1.0,
        timeout=RTO,
        max_timeout=0.4,
    )
    mine = np.arange(1, 16 * B + 1, dtype=np.int32)  # 16 blocks: 8 rounds in each stream
    pair = Pair(cfg, mine, False, 4, 77, [0, 0], [4242], [0], False, monkeypatch)
    try:
        plans = [BlockPlan.build(t, B, S) for t in (mine, mine)]
        results = Aggregator(plans, cfg, [0, 0], 4, 77, 16, sessions=[4242]).results
        pair.start(S)
        for result in results[0]:  # stream 0 goes on, one round each 0.3 s; stream 1 hears nothing
            pair.clock += 0.3
            pair.expire()
            assert not pair.failed, pair.exception
            pair.feed(0, result, SOURCE)
            pair.compare()
        waited = pair.clock - 1000.0
        assert waited > 2 * cfg.failure_timeout and pair.stats.retransmissions > 0
        assert pair.streams[0].done and not pair.streams[1].done
        pair.clock += cfg.failure_timeout - 0.4  # stream 0's last round started 0.3 s before
        pair.expire()
        assert not pair.failed
        pair.clock += 0.5  # past the retransmission's deadline, and no round started for 1.4 s
        pair.expire()
        assert isinstance(pair.exception, AllreduceTimeout) and "slot 1" in str(pair.exception)
        pair.compare()
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_engines_mixed_in_one_job_agree_bit_for_bit(mode):
    """Workers on the native and the Python engine in one job through the software
    aggregator: every worker holds the same bits, and they equal a Python-only run's."""
    rng = np.random.default_rng(3)
    arrays = [tensor(rng, "float32", 5000, 16, 0.3, 0) for _ in range(3)]
    arrays = [np.clip(a, -1e20, 1e20) for a in arrays]
    results = {}
    for engines in (("python",) * 3, ("native", "python", "native"), ("native",) * 3):
        outs = _allreduce_with_engines(arrays, engines, mode)
        for o in outs[1:]:
            assert o.tobytes() == outs[0].tobytes()
        results[engines] = outs[0].tobytes()
    assert len(set(results.values())) == 1


def _allreduce_with_engines(arrays, engines, mode):
    from conftest import run_workers

    from p4reduce.aggregator import AggregatorServer, JobSpec

    n = len(arrays)
    with AggregatorServer([JobSpec(1, n, mode=mode, num_slots=8, block_size=16)], port=0) as server:
        agents = [
            HostAgent(
                WorkerConfig(
                    1,
                    r,
                    n,
                    aggregator=server.address,
                    mode=mode,
                    num_slots=8,
                    block_size=16,
                    engine=engines[r],
                    message_size=1000,
                )
            )
            for r in range(n)
        ]
        try:
            return run_workers(lambda r: [agents[r].allreduce(arrays[r]) for _ in range(2)][-1], n)
        finally:
            for a in agents:
                a.close()


def test_native_allreduce_counts_what_it_sends():
    rng = np.random.default_rng(5)
    arrays = [tensor(rng, "int32", 3000, 16, 0.5, 2**20) for _ in range(2)]
    outs, agents, _ = allreduce_all(arrays, block_size=16, num_slots=4, engine="native")
    np.testing.assert_array_equal(outs[0], arrays[0] + arrays[1])
    stats = agents[0].last_stats
    nonzero = int(BlockPlan.build(arrays[0], 16, 4).nonzero.sum())
    # A DATA per non-zero block, at least (each stream's opening DATA carries its first one);
    # each packet's bytes counted.
    assert stats.packets_sent >= nonzero
    assert stats.payload_bytes_sent >= nonzero * (HEADER_LEN + 64)
    assert stats.packets_received >= 4


def test_engine_is_configurable(monkeypatch):
    assert WorkerConfig(1, 0, 1).engine == "native"
    assert WorkerConfig(1, 0, 1, engine="python").engine == "python"
    monkeypatch.setenv("P4REDUCE_WORKER_ENGINE", "python")
    assert WorkerConfig(1, 0, 1).engine == "python"
    with pytest.raises(ValueError, match="engine"):
        WorkerConfig(1, 0, 1, engine="rust")


def test_poll_releases_the_gil_and_refuses_a_second_thread():
    """While one thread waits in poll, another runs Python, sends the result that wakes
    it, and cannot use the same Run at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as fake_aggregator:
        fake_aggregator.bind(("127.0.0.1", 0))
        cfg = WorkerConfig(1, 0, 1, aggregator=fake_aggregator.getsockname(), num_slots=1, block_size=4)
        with HostAgent(cfg) as agent:
            agent._endpoints[0].session = 77
            flat = np.zeros(4, dtype=np.int32)
            plan = BlockPlan.build(flat, 4, 1)
            run = agent.engine.make_run(plan, np.zeros(4, dtype=np.int32), 0, 99, [0])
            run.start(1, time.monotonic(), 30.0)  # a deadline far away: poll waits for data
            run.flush()
            opening, worker = fake_aggregator.recvfrom(100)
            assert AggHeader.unpack(opening).session == 77
            polled = []
            waiter = threading.Thread(target=lambda: polled.append(run.poll(30.0, 30.0)))
            waiter.start()
            time.sleep(0.2)  # let it block in ppoll
            with pytest.raises(RuntimeError, match="in use"):
                run.flush()
            fake_aggregator.sendto(
                AggHeader(MsgType.RESULT, 1, 0, 0, 0, 0, NONE, NONE, EXP_BIAS, 0, 0, 0, 77, 1, 99).pack(), worker
            )
            waiter.join(60)
            finished, samples = polled[0]
            assert finished == 1 and len(samples) == 8 and run.unfinished == 0  # one float64


@settings(max_examples=200, deadline=None)
@given(
    latencies=st.lists(st.lists(st.floats(1e-6, 2.0), max_size=20), max_size=6),
    losses=st.lists(st.booleans(), min_size=6, max_size=6),
    limit=st.integers(1, 64),
    base_epoch=st.integers(1, 40),
)
def test_batched_rto_and_window_updates_equal_one_by_one(latencies, losses, limit, base_epoch):
    """The native engine feeds the RTO estimator and the window a batch of round
    latencies per call (sample_all, on_rounds; in C): the same state as one call per round,
    whether the batch is the native engine's bytes of float64 or a list."""
    from p4reduce.hostagent.rto import RtoEstimator
    from p4reduce.hostagent.window import StreamWindow

    one, batch = (
        (RtoEstimator(0.05, 0.05, 0.5), StreamWindow(limit, base_epoch=base_epoch)),
        (RtoEstimator(0.05, 0.05, 0.5), StreamWindow(limit, base_epoch=base_epoch)),
    )
    for now, (group, loss) in enumerate(zip(latencies, losses, strict=False)):  # unrelated draws: as many as both have
        for latency in group:
            one[0].sample(latency)
            one[1].on_round(latency)
        packed = np.array(group, dtype=np.float64).tobytes() if now % 2 else group
        batch[0].sample_all(packed)
        batch[1].on_rounds(packed)
        if loss:
            for _rto, window in (one, batch):
                window.on_loss(now - 0.5, float(now))
        assert (one[0].srtt, one[0].rttvar, one[0].rto) == (batch[0].srtt, batch[0].rttvar, batch[0].rto)
        assert vars(one[1]) == vars(batch[1])


def _hostile(packet: bytes, **fields: int) -> bytes:
    """`packet` (a RESULT) with header fields replaced; `values_delta` adds to its values."""
    delta = fields.pop("values_delta", 0)
    h = AggHeader.unpack(packet)._replace(**fields)
    values = packet[HEADER_LEN:]
    if delta and values:
        values = (np.frombuffer(values, ">i4") + delta).astype(">i4").tobytes()
    return h.pack() + values[: 4 * h.count] + bytes(max(0, 4 * h.count - len(values)))


# (name, which RESULT of stream 0 to spoil, how, the ProtocolError's words or None: ignored).
# Stream 0's rounds: the opening round, whose RESULT is block 0's data round (this worker's
# first block), then blocks 2 and 4.
HOSTILE_SCRIPTS = [
    ("forged session", 0, dict(session=12345), None),
    ("unicast to every worker", 0, dict(worker_id=ALL_WORKERS), None),
    ("early end of stream", 0, dict(next_block=NONE), "next_block NONE skips block 2"),
    ("jump past an announced block", 0, dict(next_block=4), "next_block 4 skips block 2"),
    ("wrong count", 0, dict(count=3), "count 3 for block 0"),
    ("backwards jump", 1, dict(next_block=0), "next_block 0 goes back from block 2"),
    ("block of another stream", 0, dict(next_block=1), "next_block 1 is outside stream 0"),
    ("other slot", 0, dict(slot=1), "block 0 outside stream 1"),  # stream 0's answer in slot 1
    ("agreed exponent below ours", 0, dict(next_exp=EXP_BIAS - 1), "next_exp 126 is below"),
    ("foreign ERROR", 0, dict(msg_type=MsgType.ERROR, session=999, block=1, count=0), None),
    ("opening result past our first block", 0, dict(block=4), "block 4 past this worker's first block 0"),
    ("opening result for an empty stream", 0, dict(block=NONE, next_block=NONE, count=0), "block NONE past"),
    ("our first block at another exponent", 0, dict(exp=EXP_BIAS + 3), "exp 130 for block 0, which this worker"),
    ("REPEAT with values", 0, dict(next_block=0), "count 4 in a REPEAT"),
    ("REPEAT below our exponent", 0, dict(next_block=0, count=0, next_exp=EXP_BIAS - 1), "next_exp 126 is below"),
]


@pytest.mark.parametrize("name,index,fields,error", HOSTILE_SCRIPTS, ids=[s[0] for s in HOSTILE_SCRIPTS])
def test_hostile_aggregator_scripts_fail_or_are_ignored_alike(name, index, fields, error, monkeypatch):
    """Both engines meet a spoiled RESULT the same way: ignored when it lacks what only the
    real aggregator knows (the session, the worker's address), else a ProtocolError naming
    the aggregator and the field; never a wrong sum returned as success."""
    B, S = 4, 2
    cfg = WorkerConfig(
        job_id=3,
        worker_id=0,
        num_workers=2,
        num_slots=S,
        block_size=B,
        aggregator=("127.0.0.1", 40000),
        failure_timeout=1.0,
    )
    mine = np.zeros(6 * B, np.int32)
    mine[0:B], mine[2 * B : 3 * B] = 1, 2  # blocks 0 and 2 (stream 0); stream 1 empty here
    other = np.zeros_like(mine)
    other[2 * B : 3 * B], other[4 * B : 5 * B], other[B : 2 * B] = 5, 7, 3
    pair = Pair(cfg, mine, False, 4, 77, [0, 0], [4242], [0], False, monkeypatch)
    try:
        plans = [BlockPlan.build(t, B, S) for t in (mine, other)]
        agg = Aggregator(plans, cfg, [0, 0], 4, 77, 6, sessions=[4242])
        pair.start(S)
        source = ("127.0.0.1", 40000)
        for k in range(max(len(r) for r in agg.results)):
            for s, results in enumerate(agg.results):
                if k >= len(results):
                    continue
                if (s, k) == (0, index):
                    pair.feed(0, _hostile(results[k], **fields), source)
                    pair.compare()
                    if pair.failed:
                        break
                pair.feed(0, results[k], source)
                pair.compare()
            if pair.failed:
                break
        if error is None:
            assert not pair.failed and pair.run.unfinished == 0
            np.testing.assert_array_equal(pair.c_out, mine + other)
        else:
            assert isinstance(pair.exception, ProtocolError), pair.exception
            assert error in str(pair.exception) and "from 127.0.0.1:40000" in str(pair.exception)
    finally:
        pair.close()


def test_a_repeated_result_with_other_values_fails_both_engines(monkeypatch):
    """The previous round's RESULT again, with other sums (a forged or corrupted copy that
    carries the session): both engines fail the allreduce instead of keeping either."""
    B, S = 4, 1
    cfg = WorkerConfig(
        job_id=3,
        worker_id=0,
        num_workers=2,
        num_slots=S,
        block_size=B,
        aggregator=("127.0.0.1", 40000),
        failure_timeout=1.0,
    )
    mine = np.arange(1, 2 * B + 1, dtype=np.int32)
    pair = Pair(cfg, mine, False, 4, 77, [0], [4242], [0], False, monkeypatch)
    try:
        plans = [BlockPlan.build(t, B, S) for t in (mine, mine)]
        results = Aggregator(plans, cfg, [0], 4, 77, 2, sessions=[4242]).results[0]
        source = ("127.0.0.1", 40000)
        pair.start(1)
        pair.feed(0, results[0], source)  # the opening round's: block 0's sums
        pair.feed(0, results[0], source)  # the same again: ignored
        pair.compare()
        assert not pair.failed
        pair.feed(0, _hostile(results[0], values_delta=1), source)
        assert isinstance(pair.exception, ProtocolError) and "other values" in str(pair.exception)
        pair.compare()
    finally:
        pair.close()


# -- the opening round (docs/protocol.md 3 and 7), step by step ----------------------------------

SOURCE = ("127.0.0.1", 40000)
OPENING = int(Flags.OPENING)


def _opening_pair(monkeypatch: pytest.MonkeyPatch, mode: str, mine: np.ndarray, B: int = 4) -> Pair:
    """Worker 0 of 2 on one stream (so every block is in it), one aggregator."""
    cfg = WorkerConfig(
        job_id=3,
        worker_id=0,
        num_workers=2,
        mode=mode,
        num_slots=1,
        block_size=B,
        aggregator=SOURCE,
        failure_timeout=5.0,
    )
    return Pair(cfg, mine, False, 4, 77, [0], [4242], [0], False, monkeypatch)


def _result(pair: Pair, round_: int, block: int, next_block: int, exp: int, next_exp: int, values=None) -> bytes:
    """The aggregator's RESULT of the stream's round `round_` (its values: int32 sums)."""
    cfg = pair.agent.config
    h = AggHeader(
        MsgType.RESULT,
        cfg.job_id,
        cfg.worker_id,
        cfg.slot_base,
        round_ & 1,
        4,
        block,
        next_block,
        exp,
        next_exp,
        0 if values is None else cfg.block_size,
        0,
        4242,
        -(-pair.py_out.size // cfg.block_size),
        77,
    )
    return encode(h, None if values is None else np.asarray(values, np.int32))


def _sent(pair: Pair) -> list[tuple[AggHeader, np.ndarray]]:
    """What both engines sent since the last step (compared), as (header, values)."""
    packets = list(pair.sent[0])
    pair.compare()
    assert not pair.failed, pair.exception
    return [(AggHeader.unpack(p), np.frombuffer(p[HEADER_LEN:], ">i4")) for p in packets]


def _blocks(B: int, **values: float) -> np.ndarray:
    """A float32 tensor of 3 blocks; `b0=1.5` fills block 0 with 1.5, and so on."""
    x = np.zeros(3 * B, np.float32)
    for name, v in values.items():
        b = int(name[1:])
        x[b * B : (b + 1) * B] = v
    return x


def test_the_opening_data_carries_the_first_block_at_its_own_exponent(monkeypatch):
    B = 4
    mine = _blocks(B, b1=1.5, b2=3.0)  # exponents 128, 129
    pair = _opening_pair(monkeypatch, "sparse", mine, B)
    try:
        assert fastpath.stream_view(pair.run, 0).opening
        pair.start(1)
        [(h, values)] = _sent(pair)
        assert (h.msg_type, h.flags, h.block, h.exp, h.next_block, h.next_exp, h.count, h.version) == (
            MsgType.DATA,
            OPENING,
            1,
            128,
            2,
            129,
            B,
            PROTOCOL_VERSION,
        )
        np.testing.assert_array_equal(values, fixedpoint.quantize(mine[B : 2 * B], 128, 2))
        v = fastpath.stream_view(pair.run, 0)
        assert (v.block, v.exp, v.opening, v.pending_kind) == (1, 128, True, "data")
        pair.clock += 1.0
        pair.expire()  # a timeout resends the same bytes
        [(again, _)] = _sent(pair)
        assert again == h
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_an_empty_stream_opens_header_only_and_ends_with_block_none(mode, monkeypatch):
    pair = _opening_pair(monkeypatch, mode, np.zeros(8, np.float32))
    try:
        pair.start(1)
        [(h, _)] = _sent(pair)
        assert (h.flags, h.block, h.next_block, h.exp, h.count) == (OPENING, NONE, NONE, EXP_BIAS, 0)
        pair.feed(0, _result(pair, 0, NONE, NONE, EXP_BIAS, 0), SOURCE)
        assert _sent(pair) == [] and pair.run.unfinished == 0
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_a_repeat_of_its_first_block_is_resent_at_the_agreed_exponent(mode, monkeypatch):
    """The other worker holds block 0 at a larger exponent: the REPEAT makes this holder send
    block 0 again, at that exponent, as an ordinary DATA with its look-ahead; the sum is the
    data round's."""
    B = 4
    mine, other = _blocks(B, b0=1.5, b2=3.0), _blocks(B, b0=100.0)  # block 0: 128 here, 134 there
    pair = _opening_pair(monkeypatch, mode, mine, B)
    try:
        pair.start(1)
        _sent(pair)
        pair.feed(0, _result(pair, 0, 0, 0, 134, 134), SOURCE)  # REPEAT
        [(h, values)] = _sent(pair)
        assert (h.msg_type, h.flags, h.shadow, h.block, h.exp, h.next_block, h.next_exp, h.count) == (
            MsgType.DATA,
            0,
            1,
            0,
            134,
            2,
            129,
            B,
        )
        np.testing.assert_array_equal(values, fixedpoint.quantize(mine[:B], 134, 2))
        v = fastpath.stream_view(pair.run, 0)
        assert (v.block, v.exp, v.opening, v.pending_kind) == (0, 134, False, "data")
        assert not pair.c_out.any()  # a REPEAT carries no values
        pair.feed(0, _result(pair, 0, 0, 0, 134, 134), SOURCE)  # its copy: ignored
        assert _sent(pair) == []
        sums = fixedpoint.quantize(mine[:B], 134, 2) + fixedpoint.quantize(other[:B], 134, 2)
        pair.feed(0, _result(pair, 1, 0, 2, 134, 129, sums), SOURCE)
        [(h, values)] = _sent(pair)
        assert (h.flags, h.block, h.exp, h.next_block, h.count) == (0, 2, 129, NONE, B)
        pair.feed(0, _result(pair, 2, 2, NONE, 129, 0, fixedpoint.quantize(mine[2 * B :], 129, 2)), SOURCE)
        assert _sent(pair) == [] and pair.run.unfinished == 0
        np.testing.assert_array_equal(pair.c_out, mine + other)
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_a_repeat_of_another_block_leaves_a_non_holder_waiting(mode, monkeypatch):
    """This worker's first block is 2; the others disagreed on block 0. The round after the
    opening round expects every worker, in sparse mode too: a header-only DATA of block 0's
    round announcing block 2 again. In the next round (block 1, not its own either) a dense
    worker sends header-only again, a sparse one stays silent (a QUERY on timeout). Then it
    sends block 2 at the agreed exponent."""
    B = 4
    mine = _blocks(B, b2=3.0)  # exponent 129
    pair = _opening_pair(monkeypatch, mode, mine, B)
    try:
        pair.start(1)
        [(h, _)] = _sent(pair)
        assert (h.flags, h.block, h.exp, h.next_block) == (OPENING, 2, 129, NONE)
        pair.feed(0, _result(pair, 0, 0, 0, 134, 134), SOURCE)  # REPEAT of block 0
        [(h, _)] = _sent(pair)
        assert (h.msg_type, h.flags, h.shadow, h.block, h.exp, h.next_block, h.next_exp, h.count) == (
            MsgType.DATA,
            0,
            1,
            0,
            134,
            2,
            129,
            0,
        )
        v = fastpath.stream_view(pair.run, 0)
        assert (v.block, v.exp, v.opening, v.pending_kind) == (0, 134, False, "header")
        sums0 = np.arange(1, B + 1) << 20
        pair.feed(0, _result(pair, 1, 0, 1, 134, 130, sums0), SOURCE)
        sent = _sent(pair)
        if mode == "dense":
            [(h, _)] = sent
            assert (h.msg_type, h.shadow, h.block, h.exp, h.next_block, h.count) == (MsgType.DATA, 0, 1, 130, 2, 0)
        else:
            assert sent == [] and fastpath.stream_view(pair.run, 0).pending_kind == "query"
            pair.clock += 1.0
            pair.expire()
            [(h, _)] = _sent(pair)
            assert (h.msg_type, h.shadow, h.block, h.count) == (MsgType.QUERY, 0, 1, 0)
        sums1 = np.full(B, 7 << 20)
        pair.feed(0, _result(pair, 2, 1, 2, 130, 131, sums1), SOURCE)
        [(h, values)] = _sent(pair)
        assert (h.flags, h.block, h.exp, h.next_block, h.count) == (0, 2, 131, NONE, B)
        np.testing.assert_array_equal(values, fixedpoint.quantize(mine[2 * B :], 131, 2))
        np.testing.assert_array_equal(pair.c_out[:B], fixedpoint.dequantize(sums0.astype(np.int32), 134, 2))
        np.testing.assert_array_equal(pair.c_out[B : 2 * B], fixedpoint.dequantize(sums1.astype(np.int32), 130, 2))
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_only_rounds_that_sent_a_packet_time_the_path(mode, monkeypatch):
    """A round's latency feeds the RTO and the window only if this worker sent its packet
    (and never resent it). A sparse worker's silent round is timed by the other workers: its
    RESULT can come in the batch that started it, a latency of 0 that pinned the window's
    base latency at 0, and then no window shrunk by a loss ever grew again."""
    B = 4
    pair = _opening_pair(monkeypatch, mode, _blocks(B, b2=3.0), B)
    samples = pair.io.rto.samples  # the same in both engines (Pair.feed)
    try:
        pair.start(1)
        _sent(pair)
        pair.clock += 0.25
        pair.feed(0, _result(pair, 0, 0, 0, 134, 134), SOURCE)  # opening round: sent, timed
        _sent(pair)
        assert samples == [0.25]
        pair.clock += 0.5
        pair.feed(0, _result(pair, 1, 0, 1, 134, 130, np.arange(1, B + 1) << 20), SOURCE)  # header-only DATA: timed
        _sent(pair)
        assert samples == [0.25, 0.5]
        # block 1's round, not this worker's: dense sends a header, sparse stays silent
        pair.feed(0, _result(pair, 2, 1, 2, 130, 131, np.full(B, 7 << 20)), SOURCE)  # at once
        _sent(pair)
        assert samples == ([0.25, 0.5, 0.0] if mode == "dense" else [0.25, 0.5])
    finally:
        pair.close()


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_an_opening_result_for_a_smaller_block_keeps_the_first_block(mode, monkeypatch):
    """Block 0, which only the other worker holds, is the opening round's: its sums at the
    other's exponent are stored, and this worker still holds its first block, sent next."""
    B = 4
    mine = _blocks(B, b1=3.0)
    pair = _opening_pair(monkeypatch, mode, mine, B)
    try:
        pair.start(1)
        _sent(pair)
        sums = np.full(B, 3 << 26)
        pair.feed(0, _result(pair, 0, 0, 1, 131, 129, sums), SOURCE)
        [(h, values)] = _sent(pair)
        assert (h.flags, h.shadow, h.block, h.exp, h.next_block, h.count) == (0, 1, 1, 129, NONE, B)
        np.testing.assert_array_equal(values, fixedpoint.quantize(mine[B : 2 * B], 129, 2))
        np.testing.assert_array_equal(pair.c_out[:B], fixedpoint.dequantize(sums.astype(np.int32), 131, 2))
        v = fastpath.stream_view(pair.run, 0)
        assert (v.block, v.exp, v.opening) == (1, 129, False)
    finally:
        pair.close()


# (this worker's tensor, the opening RESULT: block, next_block, exp, next_exp, with values; the error)
BAD_OPENING_RESULTS = [
    ("block past the first", dict(b1=3.0), (2, NONE, 129, 0, True), "block 2 past this worker's first block 1"),
    ("the end of a stream it holds", dict(b1=3.0), (NONE, NONE, EXP_BIAS, 0, False), "block NONE past"),
    ("its first block at a smaller exp", dict(b1=3.0), (1, NONE, 128, 0, True), "exp 128 for block 1, which this"),
    ("its first block at a larger exp", dict(b1=3.0), (1, NONE, 131, 0, True), "exp 131 for block 1, which this"),
    ("a REPEAT with values", dict(b1=3.0), (1, 1, 131, 131, True), "count 4 in a REPEAT"),
    ("a REPEAT below its exp", dict(b1=3.0), (1, 1, 128, 128, False), "next_exp 128 is below this worker's 129"),
    ("a smaller block skipping its own", dict(b1=3.0), (0, 2, 130, 130, True), "next_block 2 skips block 1"),
    ("an empty stream going on", {}, (NONE, 1, EXP_BIAS, 129, False), "next_block 1 after an empty opening round"),
    ("a block outside the tensor", {}, (7, NONE, 129, 0, True), "block 7 outside stream 0 of a 3-block tensor"),
]


@pytest.mark.parametrize("name,blocks,result,error", BAD_OPENING_RESULTS, ids=[b[0] for b in BAD_OPENING_RESULTS])
def test_bad_opening_results_are_refused_alike(name, blocks, result, error, monkeypatch):
    B = 4
    pair = _opening_pair(monkeypatch, "dense", _blocks(B, **blocks), B)
    try:
        pair.start(1)
        _sent(pair)
        block, next_block, exp, next_exp, with_values = result
        values = np.ones(B, np.int32) if with_values else None
        pair.feed(0, _result(pair, 0, block, next_block, exp, next_exp, values), SOURCE)
        assert isinstance(pair.exception, ProtocolError), pair.exception
        assert error in str(pair.exception) and "from 127.0.0.1:40000 for slot 0" in str(pair.exception)
        pair.compare()
    finally:
        pair.close()


def test_a_data_rounds_result_never_repeats_its_block(monkeypatch):
    """A REPEAT answers an opening round only: a data round's RESULT whose next block is its
    own goes back, and is refused alike."""
    B = 4
    pair = _opening_pair(monkeypatch, "dense", _blocks(B, b1=3.0), B)
    try:
        pair.start(1)
        _sent(pair)
        pair.feed(0, _result(pair, 0, 0, 1, 131, 129, np.full(B, 1 << 20)), SOURCE)  # the other's block 0
        _sent(pair)
        pair.feed(0, _result(pair, 1, 1, 1, 129, 129), SOURCE)
        assert isinstance(pair.exception, ProtocolError), pair.exception
        assert "next_block 1 goes back from block 1" in str(pair.exception)
        pair.compare()
    finally:
        pair.close()


def test_a_reduce_scatter_opening_data_names_its_blocks_owner(monkeypatch):
    """OPENING with SCATTER and the owner of the worker's own first block (0 for NONE)."""
    B = 2
    cfg = WorkerConfig(
        job_id=3, worker_id=0, num_workers=2, num_slots=2, block_size=B, aggregator=SOURCE, failure_timeout=5.0
    )
    flat = np.zeros(4 * B, np.float32)  # two blocks per shard; stream 1 holds block 3 (rank 1's)
    flat[3 * B :] = 1.0
    pair = Pair(cfg, flat, False, 4, 77, [0, 0], [4242], [0], False, monkeypatch, shard=(2 * B, 0, 2))
    try:
        pair.start(2)
        first, second = _sent(pair)
        assert (first[0].slot, first[0].flags, first[0].block) == (0, OPENING | scatter_flags(0), NONE)
        assert (second[0].slot, second[0].flags, second[0].block) == (1, OPENING | scatter_flags(1), 3)
    finally:
        pair.close()
