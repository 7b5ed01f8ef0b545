# SPDX-License-Identifier: Apache-2.0
"""The native data path (p4reduce._engine, NativeEngine) against the Python engine, its
reference model: the same random traffic through both, every reply compared byte for byte.

Simulated workers follow the protocol (JOIN, opening rounds in which each brings its own
first block at its own exponent -- REPEATs when they disagree --, data rounds in sparse and
dense mode, look-aheads, exponents, reduce-scatters naming each block's owner,
retransmissions and QUERYs after a "timeout"), reacting to
the reference engine's replies; the traffic between them and the engines suffers loss,
duplication, reordering, replays of old packets (stale epochs and rounds), garbage and
mutated headers, strangers, RESETs, re-JOINs of new processes and workers that start the
next allreduce early or with another tensor. Both engines get the same batches of
datagrams (several packets per datagram, tails that are no whole packet).

What is compared is what each would hand to sendmmsg, datagram by datagram, in order:
the Python engine's replies packed by BatchSender (as AggregatorServer(engine="python")
sends them) against the core's own packing. (The one way they could differ: BatchSender
stops filling a datagram at 1024 buffers and a RESULT copy can take two, the core at 1024
packets; a batch never gets near that here.) Counters are compared after every batch;
failures, members and every slot's state at the end.
"""

from __future__ import annotations

import itertools
import random
import sys
import zlib
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.aggregator.config import WorkerAddress
from p4reduce.aggregator.native import NativeEngine
from p4reduce.aggregator.replies import AnswerLimiter
from p4reduce.aggregator.server import Datapath
from p4reduce.protocol import (
    ALL_WORKERS,
    NONE,
    PROTOCOL_VERSION,
    AggHeader,
    ErrorCode,
    Flags,
    Mode,
    MsgType,
    encode,
    is_repeat,
    scatter_flags,
    wire_values,
)
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.framing import split_datagram

GROUP = ("239.9.9.9", 47000)
KEY = JobKey(bytes(range(16, 32)))  # an authenticated job's (docs/protocol.md 6.3)


def sessions():
    """Deterministic sessions: both engines draw the same ones in the same order."""
    counter = itertools.count(1)
    return lambda job, worker: (job * 7919 + worker * 104729 + next(counter) * 2654435761) & 0xFFFFFFFF | 1


def pkt(
    msg_type,
    spec,
    w,
    slot,
    shadow,
    epoch,
    block,
    nxt=NONE,
    exp=127,
    nexp=127,
    values=None,
    session=0,
    blocks=0,
    fp=0,
    flags=0,
) -> bytes:
    h = AggHeader(
        msg_type,
        spec.job_id,
        w,
        slot,
        shadow,
        epoch & 0xFFFFFFFF,
        block,
        nxt,
        exp,
        nexp,
        0 if values is None else len(values),
        flags,
        session,
        blocks,
        fp,
    )
    return encode(h, values)


class SimWorker:
    """One worker process of a job, as the host agent behaves (no timers: `timeout` is an action)."""

    def __init__(self, spec: JobSpec, rank: int, addr: tuple[str, int], rng: random.Random) -> None:
        self.spec, self.rank, self.addr, self.rng = spec, rank, addr, rng
        self.incarnation = rng.getrandbits(32)
        self.accept = rng.choice([0, 100, 600, 65000])  # the datagram size it takes (JOIN `blocks`)
        self.session = 0
        self.rounds: dict[int, int] = defaultdict(int)
        self.epoch = -1
        self.streams: dict[int, dict] = {}
        self.held: dict[int, tuple[np.ndarray, int]] = {}
        self.blocks = self.fp = 0
        self.shard_blocks = 0  # > 0: the allreduce is a reduce-scatter (block b is rank b // shard_blocks's)
        self.sent: list[bytes] = []
        self.error = 0  # the code of the last ERROR it got
        self.joining = False  # a JOIN sent and not answered: the host agent takes JOINED only then

    def _send(self, packet: bytes) -> list[tuple[bytes, tuple[str, int]]]:
        if self.spec.key is not None and not packet[0] & 0x80:  # an authenticated job's are sealed
            packet = self.spec.key.seal(packet)
        self.sent.append(packet)
        del self.sent[:-50]
        return [(packet, self.addr)]

    def join(self, new_process: bool = False):
        if new_process:
            self.incarnation = self.rng.getrandbits(32)
        self.joining = True
        s = self.spec
        return self._send(
            AggHeader(
                MsgType.JOIN,
                s.job_id,
                self.rank,
                s.slot_base,
                0,
                self.incarnation,
                s.block_size,
                s.num_slots,
                s.mode.code,
                s.num_workers,
                blocks=self.accept,
            ).pack()
        )

    def served(self, blocks: int) -> list[int]:
        index, count = self.spec.shard
        return [s for s in range(min(self.spec.num_slots, blocks)) if s % count == index]

    def next_held(self, stream: int, after: int) -> int:
        S = self.spec.num_slots
        later = [b for b in self.held if b % S == stream and (after == NONE or b > after)]
        return min(later) if later else NONE

    def _data(self, stream: int, block: int, exp: int, opening: bool = False):
        """Its DATA about `block` at `exp` (an opening DATA: its own first block, or NONE)."""
        slot = self.spec.slot_base + stream
        nxt = self.next_held(stream, block) if block != NONE else NONE
        nexp = self.held[nxt][1] if nxt != NONE else 127
        values = self.held[block][0] if block in self.held else None
        flags = Flags.OPENING if opening else 0
        if self.shard_blocks:  # as the host agent's reduce_scatter: the block's owner (0: NONE)
            flags |= scatter_flags(0 if block == NONE else block // self.shard_blocks)
        return self._send(
            pkt(
                MsgType.DATA,
                self.spec,
                self.rank,
                slot,
                self.rounds[slot] & 1,
                self.epoch,
                block,
                nxt,
                exp,
                nexp,
                values,
                self.session,
                self.blocks,
                self.fp,
                flags,
            )
        )

    def start(self, blocks: int, density: float, odd_tensor: bool = False, shard_blocks: int = 0):
        """The next allreduce: a tensor of `blocks` blocks, each held with probability `density`
        (a reduce-scatter with shards of `shard_blocks` blocks if that is > 0)."""
        self.epoch += 1
        self.blocks = blocks
        self.shard_blocks = shard_blocks
        self.fp = zlib.crc32(f"{self.epoch}/{blocks}/{int(odd_tensor)}".encode())
        B = self.spec.block_size
        self.held = {
            b: (
                np.array(
                    [
                        self.rng.randint(-(2**31), 2**31 - 1)
                        if self.rng.random() < 0.05
                        else self.rng.randint(-1000, 1000)
                        for _ in range(B)
                    ],
                    dtype=np.int32,
                ),
                self.rng.randint(120, 135),
            )
            for b in range(blocks)
            if self.rng.random() < density
        }
        out = []
        self.streams = {}
        for s in self.served(blocks):
            # The opening round: its own first block of the stream at its own exponent.
            self.streams[s] = {"block": NONE, "opening": True, "done": False, "last": None}
            first = self.next_held(s, NONE)
            out += self._data(s, first, self.held[first][1] if first != NONE else 127, opening=True)
            self.streams[s]["last"] = out[-1][0]
        return out

    def done(self) -> bool:
        return all(stream["done"] for stream in self.streams.values())

    def timeout(self):
        out = []
        for s, stream in self.streams.items():
            if stream["done"]:
                continue
            if stream["last"] is not None:
                out += self._send(stream["last"])
                continue
            slot = self.spec.slot_base + s
            out += self._send(
                pkt(
                    MsgType.QUERY,
                    self.spec,
                    self.rank,
                    slot,
                    self.rounds[slot] & 1,
                    self.epoch,
                    stream["block"],
                    session=self.session,
                    blocks=self.blocks,
                    fp=self.fp,
                )
            )
        return out

    def on_reply(self, h: AggHeader):
        if h.msg_type == MsgType.JOINED:
            # The agent waits for JOINED only in its join (a replayed JOIN's answer later on,
            # taken as one, would start its epochs over on top of the aggregator's history).
            if not self.joining or h.epoch != self.incarnation:
                return []
            self.joining = False
            self.session, self.epoch, self.streams, self.error = h.session, -1, {}, 0
            self.rounds.clear()
            return []
        if h.msg_type == MsgType.ERROR and h.worker_id == self.rank:
            self.error = h.block
            return []
        if h.msg_type != MsgType.RESULT or h.worker_id not in (self.rank, ALL_WORKERS):
            return []
        s = h.slot - self.spec.slot_base
        stream = self.streams.get(s)
        slot = h.slot
        if (
            stream is None
            or stream["done"]
            or h.shadow != self.rounds[slot] & 1
            or (h.block != stream["block"] and not stream["opening"])  # an opening's: any block
            or h.epoch != self.epoch & 0xFFFFFFFF
        ):
            return []
        self.rounds[slot] += 1
        opened = stream["opening"]
        # After a REPEAT (next_block == block) the holders send the block again at next_exp.
        stream["block"], stream["last"], stream["opening"] = h.next_block, None, False
        if h.next_block == NONE:
            stream["done"] = True
            return []
        if self.spec.mode is Mode.SPARSE and h.next_block not in self.held and not opened:
            return []  # silent: it QUERYs on timeout (the round after the opening expects everyone)
        out = self._data(s, h.next_block, h.next_exp)
        stream["last"] = out[-1][0]
        return out


def mutate(packet: bytes, rng: random.Random) -> bytes:
    b = bytearray(packet)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(b)) if rng.random() < 0.3 else rng.randrange(min(len(b), 36))
        b[i] = rng.randrange(256)
    if rng.random() < 0.2:
        b = b[: rng.randrange(len(b) + 1)]
    return bytes(b)


class Harness:
    def __init__(self, specs: list[JobSpec], rng: random.Random, odd: float = 0.03) -> None:
        self.specs, self.rng = specs, rng
        self.odd = odd  # how often a worker starts an allreduce with another tensor or layout
        # One answer per datagram as in production; no rate (it depends on the wall clock).
        unlimited = dict(clock=lambda: 0.0, burst=1 << 30)
        self.ref = Datapath(AggregatorEngine(specs, new_session=sessions()), {}, AnswerLimiter(**unlimited))
        self.nat = Datapath(NativeEngine(specs, new_session=sessions()), {}, AnswerLimiter(**unlimited))
        self.workers: list[SimWorker] = []
        port = itertools.count(40000)
        for spec in specs:
            for r in range(spec.num_workers):
                addr = spec.workers[r] if spec.workers else None
                host = addr.ip if addr else f"10.0.{spec.job_id % 200}.{r + 1}"
                self.workers.append(SimWorker(spec, r, (host, addr.port if addr and addr.port else next(port)), rng))
        self.pending: list[tuple[bytes, tuple[str, int]]] = []
        self.batches = 0

    # -- delivering ---------------------------------------------------------------------
    def deliver(self, loss: float, dup: float, reorder: bool) -> None:
        rng = self.rng
        packets = []
        for p in self.pending:
            if rng.random() < loss:
                continue
            packets.append(p)
            if rng.random() < dup:
                packets.insert(rng.randrange(len(packets) + 1), p)
        self.pending = []
        if reorder:
            for _ in range(len(packets) // 2):
                i = rng.randrange(len(packets))
                j = min(len(packets) - 1, i + rng.randint(1, 4))
                packets[i], packets[j] = packets[j], packets[i]
        # Consecutive packets from one sender share a datagram, up to a random size.
        datagrams: list[tuple[bytes, tuple[str, int]]] = []
        limit = rng.choice([0, 0, 300, 2000, 65000])
        for packet, addr in packets:
            if datagrams and datagrams[-1][1] == addr and limit and len(datagrams[-1][0]) + len(packet) <= limit:
                datagrams[-1] = (datagrams[-1][0] + packet, addr)
            else:
                datagrams.append((packet, addr))
        if datagrams and rng.random() < 0.05:  # a tail that is no whole packet
            i = rng.randrange(len(datagrams))
            datagrams[i] = (datagrams[i][0] + rng.randbytes(rng.randint(1, 40)), datagrams[i][1])
        while datagrams:
            size = rng.randint(1, 64)
            self.run_batch(datagrams[:size])
            datagrams = datagrams[size:]

    def run_batch(self, batch) -> None:
        self.batches += 1
        ref_out = self.ref.process(batch)
        nat_out = self.nat.process(batch)
        assert nat_out == ref_out
        assert self.nat.engine.counters.snapshot() == self.ref.engine.counters.snapshot()
        for spec in self.specs:  # the core's part of each job's counters plus the Python engine's
            assert self.nat.engine.job_counters(spec.job_id) == self.ref.engine.job_counters(spec.job_id)
        for datagram, addr in ref_out:
            for packet in split_datagram(memoryview(datagram))[0]:
                h = AggHeader.unpack(packet)
                for w in self.workers:
                    if w.spec.job_id == h.job_id and (w.addr == addr or (addr == GROUP and w.spec.group)):
                        self.pending += self.reply(w, h, packet)

    def reply(self, worker: SimWorker, h: AggHeader, packet: memoryview) -> list:
        """What `worker` sends on receiving `packet` (whose header is `h`)."""
        return worker.on_reply(h)

    # -- actions --------------------------------------------------------------------------
    def act(self, action: str) -> None:
        rng, ws = self.rng, self.workers
        for x in ws:  # a worker without a session JOINs before anything else (spec 6.1)
            if not x.session and action != "join":
                self.pending += x.join()
        w = rng.choice(ws)
        if action == "join":
            for x in ws:
                if not x.session or rng.random() < 0.1:
                    self.pending += x.join()
        elif action == "start":
            for spec in self.specs:
                blocks = rng.randint(1, 3 * spec.num_slots + 2)
                density = rng.choice([0.0, 0.3, 0.7, 1.0])
                n = spec.num_workers
                shard_blocks = -(-blocks // n) if rng.random() < 0.4 else 0
                for x in ws:
                    if x.spec is spec and x.session and (x.done() or rng.random() < 0.05):
                        odd = rng.random() < self.odd
                        mine = shard_blocks
                        if odd and rng.random() < 0.5:  # another shard layout (owners beyond n too)
                            mine = rng.randint(1, blocks)
                        self.pending += x.start(blocks + (1 if odd and rng.random() < 0.3 else 0), density, odd, mine)
        elif action == "timeout":
            for x in ws:
                self.pending += x.timeout()
        elif action == "replay" and w.sent:
            self.pending.append((rng.choice(w.sent), w.addr))
        elif action == "mutate" and w.sent:
            addr = w.addr if rng.random() < 0.7 else (w.addr[0], w.addr[1] + 1000)
            self.pending.append((mutate(rng.choice(w.sent), rng), addr))
        elif action == "garbage":
            self.pending.append((rng.randbytes(rng.choice([0, 1, 20, 35, 36, 37, 100])), w.addr))
        elif action == "stranger" and w.sent:
            packet = bytearray(rng.choice(w.sent))
            if rng.random() < 0.5:
                packet[24:28] = rng.getrandbits(32).to_bytes(4, "big")  # someone else's session
                self.pending.append((bytes(packet), w.addr))
            else:
                self.pending.append((bytes(packet), ("10.66.0.1", 999)))  # the session, elsewhere
        elif action == "reset" and w.session:
            s = w.spec
            self.pending += w._send(pkt(MsgType.RESET, s, w.rank, s.slot_base, 0, 0, NONE, session=w.session))
        elif action == "rejoin":
            self.pending += w.join(new_process=True)
        elif action == "recover":  # as the host agent's users do: reset_job() on one, reset() on the others
            for spec in self.specs:
                mine = [x for x in ws if x.spec is spec]
                if any(x.error for x in mine):
                    leader = rng.choice(mine)
                    if leader.session:
                        self.pending += leader._send(
                            pkt(MsgType.RESET, spec, leader.rank, spec.slot_base, 0, 0, NONE, session=leader.session)
                        )
                    for x in mine:  # they JOIN as new processes at the next step
                        x.session, x.error, x.streams = 0, 0, {}
                        x.incarnation = rng.getrandbits(32)
        elif action == "intrude" and w.session:
            # A member's DATA with values for the round a slot is in now (the model's state):
            # counted if it is expected there, else `unexpected`; in an opening round about
            # the stream's first block (counted, or BAD_BLOCKS outside the tensor) or about
            # NONE (`bad_count`).
            slots = self.ref.engine._jobs[w.spec.job_id].slots
            if slots:
                s = slots[rng.choice(sorted(slots))]
                epoch = s.epoch if s.epoch is not None else 0
                if s.block == NONE and s.seen == 0:
                    epoch += 1
                block = s.block
                if s.block == NONE and rng.random() < 0.5:
                    block = s.stream
                self.pending.append(
                    (
                        pkt(
                            MsgType.DATA,
                            w.spec,
                            w.rank,
                            s.slot,
                            s.round & 1,
                            epoch,
                            block,
                            NONE,
                            s.exp if s.block != NONE else rng.choice([127, 130]),
                            127,
                            np.ones(w.spec.block_size, np.int32),
                            w.session,
                            s.blocks,
                            s.fingerprint,
                            Flags.OPENING if s.block == NONE else 0,
                        ),
                        w.addr,
                    )
                )
        elif action == "forge":
            # A DATA/QUERY on its way (or one of the latest sent), with one field changed.
            waiting = [i for i, (p, _) in enumerate(self.pending) if p[1] in (MsgType.DATA, MsgType.QUERY)]
            recent = [p for p in w.sent[-6:] if p[1] in (MsgType.DATA, MsgType.QUERY)]
            if not waiting and not recent:
                return
            i = rng.choice(waiting) if waiting else None
            packet, addr = self.pending[i] if i is not None else (rng.choice(recent), w.addr)
            spec = next(x.spec for x in ws if x.addr == addr) if i is not None else w.spec
            h = AggHeader.unpack(packet)
            field = rng.choice(
                [
                    "exp",
                    "next_exp",
                    "block",
                    "next_block",
                    "epoch",
                    "blocks",
                    "fingerprint",
                    "count",
                    "shadow",
                    "worker_id",
                    "slot",
                    "flags",
                ]
            )
            if field == "count":
                values = None if h.count else np.arange(spec.block_size, dtype=np.int32)
                h = h._replace(count=0 if values is None else len(values))
            else:
                values = np.arange(h.count, dtype=np.int32) if h.count else None
                old = getattr(h, field)
                limit = {
                    "exp": 255,
                    "next_exp": 255,
                    "flags": 255,
                    "shadow": 1,
                    "worker_id": spec.num_workers - 1,
                    "slot": spec.slot_base + spec.num_slots - 1,
                }.get(field, 0xFFFFFFFF)
                new = rng.choice([old + 1, old - 1, rng.randint(0, limit), NONE]) % (limit + 1)
                h = h._replace(**{field: new})
            forged = encode(h._replace(version=PROTOCOL_VERSION), values)
            if spec.key is not None and rng.random() < 0.5:  # a member's own change (it has the key)
                forged = spec.key.seal(forged)
            if i is None:
                self.pending.append((forged, addr))
            else:
                self.pending[i] = (forged, addr)

    # -- the end --------------------------------------------------------------------------
    def compare_state(self) -> None:
        ref, nat = self.ref.engine, self.nat.engine
        for spec in self.specs:
            j = spec.job_id
            assert nat.failure(j) == ref.failure(j)
            rj, nj = ref._jobs[j], nat._jobs[j]
            assert {w: (m.session, m.address, m.pack_up_to, m.incarnation) for w, m in rj.members.items()} == {
                w: (m.session, m.address, m.pack_up_to, m.incarnation) for w, m in nj.members.items()
            }
            # Retired sessions with the newest epoch taken from each (the core's, on the native side)
            assert {w: list(m.retired) for w, m in rj.members.items()} == {
                w: list(m.retired) for w, m in nj.members.items()
            }
            assert {w: rj.newest_of(w) for w in rj.members} == {w: nj.newest_of(w) for w in nj.members}
            assert nj.started == rj.started
            for slot in spec.slot_range():
                mine = nat.core.slot_state(j, slot)
                model = rj.slots.get(slot)
                assert (mine is None) == (model is None), slot
                if model is None:
                    continue
                assert mine == model_state(model), (j, slot)


def model_state(model) -> dict:
    """A SlotState as the core's slot_state() describes its slot."""
    return {
        "round": model.round,
        "epoch": model.epoch,
        "previous_epoch": model.previous_epoch,
        "blocks": model.blocks,
        "fingerprint": model.fingerprint,
        "block": model.block,
        "exp": model.exp,
        "expected": model.expected,
        "seen": model.seen,
        "acc_empty": model._acc_empty,
        "keys": model.keys,
        "scatter": model.scatter,
        "own_keys": model.own_keys,
        "first_key": model.first_key,
        "first_flags": model.first_flags,
        "repeat": model.repeat,
        "history": [(k, (v.shadow, v.fingerprint, bytes(v.payload), v.owner)) for k, v in model.history.items()],
    }


ACTIONS = [
    "join",
    "start",
    "timeout",
    "replay",
    "mutate",
    "garbage",
    "stranger",
    "reset",
    "rejoin",
    "recover",
    "forge",
    "intrude",
]


@st.composite
def job_specs(draw) -> list[JobSpec]:
    specs, base = [], 0
    for job_id in draw(st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=3, unique=True)):
        n = draw(st.integers(1, 5))
        slots = draw(st.integers(1, 4))
        count = draw(st.sampled_from([1, 1, 2, 3]))
        count = min(count, slots)
        declared = draw(st.booleans()) and draw(st.booleans())
        specs.append(
            JobSpec(
                job_id,
                n,
                mode=draw(st.sampled_from([Mode.SPARSE, Mode.DENSE])),
                slot_base=base,
                num_slots=slots,
                block_size=draw(st.sampled_from([1, 2, 5, 16])),
                group=GROUP if draw(st.integers(0, 3)) == 0 else None,
                workers=tuple(WorkerAddress(f"10.1.{job_id % 200}.{r + 1}", 41000 + r) for r in range(n))
                if declared
                else None,
                message_size=draw(st.sampled_from([0, 150, 1000, 65000])),
                shard=(draw(st.integers(0, count - 1)), count),
                max_blocks=draw(st.sampled_from([1 << 20, 1 << 20, 1, 3, 8])),  # small: TOO_LARGE
                key=draw(st.sampled_from([None, None, KEY])),
            )
        )
        base += slots + draw(st.integers(0, 2))
    return specs


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    specs=job_specs(),
    seed=st.integers(0, 2**32 - 1),
    actions=st.lists(st.sampled_from(ACTIONS + ["start", "timeout", "recover"] * 3), min_size=20, max_size=100),
    loss=st.sampled_from([0.0, 0.0, 0.05, 0.3]),
    dup=st.sampled_from([0.0, 0.1]),
    reorder=st.booleans(),
)
def test_native_engine_matches_the_reference_byte_for_byte(specs, seed, actions, loss, dup, reorder):
    h = Harness(specs, random.Random(seed))
    h.act("join")
    h.deliver(0.0, 0.0, False)
    for action in actions:
        h.act(action)
        h.deliver(loss, dup, reorder)
        if h.rng.random() < 0.5:  # rounds that answered need no timeout to go on
            h.deliver(loss, dup, reorder)
    h.compare_state()


def test_clean_traffic_reaches_every_path_that_completes_allreduces():
    """The simulation is not vacuous: without impairments its allreduces complete, on both."""
    specs = [
        JobSpec(7, 3, num_slots=3, block_size=4),
        JobSpec(8, 2, mode="dense", slot_base=3, num_slots=2, block_size=2, group=GROUP),
    ]
    h = Harness(specs, random.Random(1), odd=0)
    h.act("join")
    h.deliver(0, 0, False)
    for _ in range(4):
        h.act("start")
        for _ in range(12):
            h.deliver(0, 0, False)
    counters = h.nat.engine.counters.snapshot()
    assert counters == h.ref.engine.counters.snapshot()
    assert counters["allreduces_completed"] == 8 and counters["completed"] > 20
    per_job = [h.nat.engine.job_counters(spec.job_id) for spec in specs]
    assert per_job == [h.ref.engine.job_counters(spec.job_id) for spec in specs]
    # Every packet but the tails that are no whole packet is some job's; without loss
    # nothing is refused, and every round is counted.
    assert sum(c["packets"] for c in per_job) == counters["packets_in"] - counters.get("drop_truncated", 0)
    assert sum(c["rounds"] for c in per_job) == counters["completed"]
    assert all(c["drops"] == 0 and c["rounds"] > 10 for c in per_job)
    h.compare_state()


def test_failures_and_resets_match():
    """A look-ahead outside the stream fails the job in the core, as in the model; a RESET
    from a member clears it in both, and the job works again after new JOINs."""
    spec = JobSpec(3, 2, num_slots=2, block_size=2)
    h = Harness([spec], random.Random(2), odd=0)
    h.act("join")
    h.deliver(0, 0, False)
    w = h.workers[0]
    h.pending += w.start(4, 1.0)
    h.pending[-1] = (
        pkt(
            MsgType.DATA,
            spec,
            0,
            1,
            0,
            0,
            1,
            2,
            values=np.ones(2, np.int32),
            session=w.session,
            blocks=4,
            fp=w.fp,
            flags=Flags.OPENING,
        ),
        w.addr,
    )  # block 2 is stream 0's, not stream 1's
    h.deliver(0, 0, False)
    assert h.nat.engine.failure(3) == h.ref.engine.failure(3) is not None
    assert h.nat.engine.counters.snapshot()["jobs_failed"] == 1
    h.act("timeout")
    h.deliver(0, 0, False)  # every packet of the failed job: ERROR
    h.pending += w._send(pkt(MsgType.RESET, spec, 0, 0, 0, 0, NONE, session=w.session))
    h.deliver(0, 0, False)
    assert h.nat.engine.failure(3) is None
    for x in h.workers:
        h.pending += x.join(new_process=True)
    h.deliver(0, 0, False)
    for x in h.workers:
        h.pending += x.start(5, 1.0)
    for _ in range(8):
        h.deliver(0, 0, False)
    assert h.nat.engine.counters.snapshot()["allreduces_completed"] == 1
    h.compare_state()


def test_server_engine_choice_and_both_give_exact_sums():
    from conftest import allreduce_all

    x = [np.arange(300, dtype=np.int32) * (r + 1) for r in range(3)]
    for engine in ("python", "native"):
        with AggregatorServer([JobSpec(1, 3, num_slots=8, block_size=16)], port=0, engine=engine) as srv:
            assert isinstance(srv.engine, NativeEngine) == (engine == "native")
            outs, _, counters = allreduce_all(x, server=srv)
            np.testing.assert_array_equal(outs[2], sum(x))
            assert counters["allreduces_completed"] == 1
    with pytest.raises(ValueError, match="engine"):
        AggregatorServer([], port=0, engine="rust")


def test_a_missing_extension_is_an_import_error_that_says_how_to_rebuild(monkeypatch):
    monkeypatch.setitem(sys.modules, "p4reduce._engine", None)
    monkeypatch.delitem(sys.modules, "p4reduce.aggregator.native")
    with pytest.raises(ImportError, match="no pure-Python fallback"):
        import p4reduce.aggregator.native  # noqa: F401


def test_core_refuses_misuse_without_crashing():
    from p4reduce._engine import Core

    core = Core()
    with pytest.raises(KeyError):
        core.failure(5)
    core.add_job(5, 2, False, 0, 4, 8, 0, 1)
    with pytest.raises(ValueError):
        core.add_job(5, 2, False, 0, 4, 8, 0, 1)
    with pytest.raises(ValueError):
        core.set_member(5, 9, 1, "127.0.0.1", 1, 0)  # no such rank
    with pytest.raises(ValueError):
        core.set_member(5, 0, 1, "not-an-address", 1, 0)
    with pytest.raises(ValueError):
        core.load([(b"x", ("127.0.0.1", 1))] * 65)  # more than a batch
    core.load([(b"", ("127.0.0.1", 1)), (b"\x02" * 36, ("127.0.0.1", 2))])
    with pytest.raises(RuntimeError):
        core.load([])  # the batch is not run yet
    handed = []
    while (slow := core.run(-1)) is not None:
        handed.append(slow)
    assert handed == [(b"", ("127.0.0.1", 1), 1), (b"\x02" * 36, ("127.0.0.1", 2), 2)]
    assert core.take_output() == [] and core.counters() == {"datagrams_in": 2}


@pytest.mark.parametrize("engine", ["python", "native"])
def test_jobs_are_added_and_removed_on_both_engines(engine):
    from p4reduce.aggregator.server import make_engine

    agg = make_engine([JobSpec(1, 2, num_slots=2, block_size=4)], engine)
    with pytest.raises(ValueError, match="job 1 already exists"):
        agg.add_job(JobSpec(1, 2, slot_base=8, num_slots=2, block_size=4))
    with pytest.raises(ValueError, match="slots overlap job 1"):
        agg.add_job(JobSpec(2, 2, slot_base=1, num_slots=2, block_size=4))
    agg.add_job(JobSpec(2, 2, slot_base=2, num_slots=2, block_size=4))
    path = Datapath(agg, {})
    join = pkt(MsgType.JOIN, agg.job(2), 0, 2, 0, 5, 4, 2, 0, 2)
    assert AggHeader.unpack(path.process([(join, ("10.0.0.1", 1))])[0][0]).msg_type == MsgType.JOINED
    agg.remove_job(2)
    with pytest.raises(KeyError, match="unknown job 2"):
        agg.job(2)
    answer = AggHeader.unpack(path.process([(join, ("10.0.0.1", 2))])[0][0])
    assert (answer.msg_type, answer.block) == (MsgType.ERROR, ErrorCode.UNKNOWN_JOB)
    agg.add_job(JobSpec(2, 3, slot_base=2, num_slots=2, block_size=4))  # the slots are free again
    assert agg.job(2).num_workers == 3


# -- the opening round, packet by packet (docs/protocol.md 3) -------------------------------


class Both:
    """One job on both engines, its workers joined: each packet goes to both, their replies
    and the slots' states must be equal; `send` returns the replies (address, header, values)."""

    def __init__(self, spec: JobSpec, blocks: int) -> None:
        self.spec, self.blocks, self.fp = spec, blocks, 0xF1F0
        self.paths = [
            Datapath(AggregatorEngine([spec], new_session=sessions()), {}),
            Datapath(NativeEngine([spec], new_session=sessions()), {}),
        ]
        self.addrs = [(f"10.9.0.{r + 1}", 5000 + r) for r in range(spec.num_workers)]
        self.sessions = [0] * spec.num_workers
        for w in range(spec.num_workers):
            join = pkt(MsgType.JOIN, spec, w, spec.slot_base, 0, 77 + w, spec.block_size, spec.num_slots)
            join = join[:20] + bytes([spec.mode.code, spec.num_workers]) + join[22:]
            (_, h, _), *_ = self.send(w, join)
            assert h.msg_type == MsgType.JOINED
            self.sessions[w] = h.session

    def send(self, w: int, packet: bytes) -> list[tuple[tuple[str, int], AggHeader, np.ndarray | None]]:
        ref, nat = (path.process([(packet, self.addrs[w])]) for path in self.paths)
        assert nat == ref
        engine = self.paths[0].engine
        for slot, model in engine._jobs[self.spec.job_id].slots.items():
            assert self.paths[1].engine.core.slot_state(self.spec.job_id, slot) == model_state(model)
        out = []
        for datagram, addr in nat:
            for p in split_datagram(memoryview(datagram))[0]:
                h = AggHeader.unpack(p)
                out.append((addr, h, wire_values(p, h.count).astype(np.int32) if h.count else None))
        return out

    def data(self, w, block, nxt=NONE, exp=127, nexp=127, values=None, *, opening=True, shadow=0, flags=0, epoch=0):
        """Worker w's DATA (an opening DATA unless `opening` is False) in slot 0."""
        flags |= Flags.OPENING if opening else 0
        values = None if values is None else np.asarray(values, np.int32)
        return self.send(
            w,
            pkt(
                MsgType.DATA,
                self.spec,
                w,
                0,
                shadow,
                epoch,
                block,
                nxt,
                exp,
                nexp,
                values,
                self.sessions[w],
                self.blocks,
                self.fp,
                flags,
            ),
        )

    def counters(self) -> dict[str, int]:
        ref, nat = (path.engine.counters.snapshot() for path in self.paths)
        assert nat == ref
        return nat


def result(replies, w: int) -> tuple[AggHeader, np.ndarray | None]:
    """The RESULT copy worker w got among `replies`."""
    (h, values), *others = [(h, v) for _, h, v in replies if h.msg_type == MsgType.RESULT and h.worker_id == w]
    assert not others
    return h, values


def test_opening_round_repeat_when_the_holders_of_the_smallest_block_disagree_on_its_exponent():
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=2)
    assert both.data(0, 0, NONE, 130, 127, [1, 2]) == []
    replies = both.data(1, 0, 1, 128, 127, [10, 20])
    for w in (0, 1):  # a REPEAT: header-only, block = next_block, exp = next_exp = the largest
        h, values = result(replies, w)
        assert (h.block, h.next_block, h.exp, h.next_exp, h.count, values) == (0, 0, 130, 130, 0, None)
        assert is_repeat(h)
    # The next round is the data round of block 0 at 130, both its holders expected.
    assert both.data(1, 0, 1, 130, 127, [11, 22], opening=False, shadow=1) == []
    replies = both.data(0, 0, NONE, 130, 127, [3, 4], opening=False, shadow=1)
    h, values = result(replies, 0)
    assert (h.block, h.exp, h.next_block, h.next_exp, list(values)) == (0, 130, 1, 127, [14, 26])
    h, values = result(both.data(1, 1, NONE, 127, 127, [5, 5], opening=False, shadow=0), 1)  # sparse: w1 alone
    assert (h.block, h.next_block, list(values)) == (1, NONE, [5, 5])
    assert both.counters()["allreduces_completed"] == 1


def test_opening_round_a_smaller_block_from_a_later_packet_overwrites_the_sums():
    both = Both(JobSpec(9, 3, num_slots=1, block_size=2), blocks=3)
    assert both.data(0, 2, NONE, 127, 127, [100, 100]) == []  # K1 = block 2
    assert both.data(1, 1, NONE, 127, 127, [1, 2]) == []  # smaller: overwrites
    replies = both.data(2, 1, 2, 127, 127, [3, 4])  # the same key: adds
    for w in range(3):  # the data round of block 1; next the smallest of w2's next and w0's own
        h, values = result(replies, w)
        assert (h.block, h.next_block, h.count, list(values)) == (1, 2, 2, [4, 6])
    assert both.paths[1].engine.core.slot_state(9, 0)["expected"] == 0b111  # after an opening: everyone
    assert both.data(0, 2, NONE, 127, 127, [100, 100], opening=False, shadow=1) == []
    assert both.data(1, 2, NONE, 127, 127, None, opening=False, shadow=1) == []  # header-only
    h, values = result(both.data(2, 2, NONE, 127, 127, [7, 7], opening=False, shadow=1), 1)
    assert (h.block, h.next_block, list(values)) == (2, NONE, [107, 107])
    assert both.counters()["allreduces_completed"] == 1


def test_opening_round_of_workers_that_hold_nothing():
    both = Both(JobSpec(9, 2, mode="dense", num_slots=1, block_size=2), blocks=2)
    assert both.data(0, NONE, NONE, 127, 127, [1, 1]) == []  # values without a block
    assert both.counters()["drop_bad_count"] == 1
    assert both.data(0, NONE) == []
    h, values = result(both.data(1, 1, NONE, 126, 127, [5, 6]), 0)
    assert (h.block, h.exp, h.next_block, h.count, list(values)) == (1, 126, NONE, 2, [5, 6])
    # The next allreduce's stream is empty: block = next_block = NONE, no values, it ends.
    assert both.data(0, NONE, shadow=1, epoch=1) == []
    h, values = result(both.data(1, NONE, shadow=1, epoch=1), 1)
    assert (h.block, h.next_block, h.count, h.epoch, values) == (NONE, NONE, 0, 1, None)
    assert both.counters()["allreduces_completed"] == 2


def test_opening_round_announcing_past_its_block_fails_the_job():
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=4)
    replies = both.data(0, NONE, 2)  # nothing held, yet a next block
    assert [(h.msg_type, h.block) for _, h, _ in replies] == [(MsgType.ERROR, ErrorCode.BAD_BLOCKS)]
    both = Both(JobSpec(9, 2, num_slots=2, block_size=2), blocks=4)
    replies = both.data(0, 1, NONE, values=[1, 1])  # block 1 is stream 1's
    assert [(h.msg_type, h.block) for _, h, _ in replies] == [(MsgType.ERROR, ErrorCode.BAD_BLOCKS)]
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=4)
    replies = both.data(0, 2, 2, values=[1, 1])  # a look-ahead that does not move forward
    assert [(h.msg_type, h.block) for _, h, _ in replies] == [(MsgType.ERROR, ErrorCode.BAD_BLOCKS)]


def test_opening_round_of_a_reduce_scatter_carries_the_owner_of_the_smallest_block():
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=4)  # shards of 2 blocks
    assert both.data(0, 2, NONE, values=[1, 1], flags=scatter_flags(1)) == []  # owner bits differ:
    replies = both.data(1, 1, 3, values=[2, 3], flags=scatter_flags(0))  # no MISMATCH
    h, values = result(replies, 0)  # block 1's owner gets the values, the other the header
    assert (h.block, h.flags, h.next_block, list(values)) == (1, scatter_flags(0), 2, [2, 3])
    h, values = result(replies, 1)
    assert (h.block, h.flags, h.next_block, h.count, values) == (1, scatter_flags(0), 2, 0, None)
    # Only SCATTER must agree: one opening DATA without it makes the RESULT MISMATCH.
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=4)
    both.data(0, 2, NONE, values=[1, 1], flags=scatter_flags(1))
    h, _ = result(both.data(1, 1, NONE, values=[2, 3]), 0)
    assert h.flags & Flags.MISMATCH
    assert both.paths[1].engine.failure(9) == (ErrorCode.TENSOR, 1)


def test_retransmitted_opening_data_is_answered_from_the_kept_result():
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=3)
    both.data(0, 0, 2, 127, 127, [1, 1])
    replies = both.data(1, 0, 1, 129, 127, [2, 2])
    first = result(replies, 0)[0]
    assert is_repeat(first)
    again = both.data(0, 0, 2, 127, 127, [1, 1])  # its RESULT was lost: the same DATA again
    assert [h for _, h, _ in again] == [first]
    # Answered with the kept result whatever block it names, and in later rounds too.
    assert both.data(1, 0, 1, 129, 127, [2, 2], opening=False, shadow=1) == []
    assert [h for _, h, _ in both.data(0, 1, NONE, 127, 127, [9, 9])] == [first]
    # The same DATA without OPENING names the data round of block 0 (at shadow 0: none kept).
    assert both.data(0, 0, 2, 127, 127, [1, 1], opening=False) == []
    counters = both.counters()
    assert (counters["resent"], counters["drop_stale"]) == (2, 1)


def test_a_header_only_opening_data_about_a_block_makes_a_repeat():
    """A leaf's marker (docs/protocol.md, Hierarchical aggregation): its partial sum is not
    usable, so the holders of the block must send it again."""
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=3)
    both.data(0, 0, 1, 128, 127)  # header-only, about block 0
    h, _ = result(both.data(1, 0, NONE, 128, 127, [5, 5]), 1)
    assert (h.block, h.next_block, h.exp, h.next_exp, h.count) == (0, 0, 128, 128, 0)
    # About a larger block than the smallest: no repeat, the block announced comes next.
    both = Both(JobSpec(9, 2, num_slots=1, block_size=2), blocks=3)
    both.data(0, 1, NONE, 128, 127)
    h, values = result(both.data(1, 0, NONE, 127, 127, [5, 5]), 1)
    assert (h.block, h.next_block, h.next_exp, list(values)) == (0, 1, 128, [5, 5])
