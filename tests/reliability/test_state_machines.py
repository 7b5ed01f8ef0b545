# SPDX-License-Identifier: Apache-2.0
"""Rule-based state machines over both aggregator engines (issue 19, point 8): valid JOINs
and rounds interleaved with hostile datagrams -- garbage, replays, packets with someone
else's session or from elsewhere, strangers' JOINs -- and recovery after every failure
(a member's RESET and new JOINs), so a run gets past the first failed job. After every
step: the native engine's replies and counters equal the reference model's, every packet
handled is accounted for by exactly one event counter, and every block of values a worker
takes is the exact (int32, wrapping) sum of what the job's workers sent for it."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from test_native_engine import GROUP, KEY, Harness, SimWorker, pkt

from p4reduce.aggregator import JobSpec
from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, wire_values

# What the engine counts besides the one event of each packet it handles.
NOT_EVENTS = {
    "datagrams_in",
    "packets_in",
    "bytes_in",
    "packets_out",
    "bytes_out",
    "streams_completed",
    "allreduces_completed",
    "jobs_failed",
    "send_errors",
    "drop_no_address",
    "answers_limited",
}


class CheckedWorker(SimWorker):
    """A SimWorker that remembers what it sent per (life of the job, epoch) and checks the
    values of every RESULT it takes against the sum of all workers' blocks."""

    def __init__(self, *args, job_life: list[int], peers: list[CheckedWorker]) -> None:
        super().__init__(*args)
        self.job_life, self.peers = job_life, peers
        self.sent_blocks: dict[tuple[int, int], dict] = {}  # (life, epoch) -> held
        self.taken = 0

    def start(self, blocks: int, density: float, odd_tensor: bool = False, shard_blocks: int = 0):
        out = super().start(blocks, density, odd_tensor, shard_blocks)
        self.sent_blocks[(self.job_life[0], self.epoch)] = self.held
        return out

    def take(self, h: AggHeader, packet: memoryview) -> list:
        st_ = self.streams.get(h.slot - self.spec.slot_base)
        taken = (
            h.msg_type == MsgType.RESULT
            and h.worker_id in (self.rank, 0xFF)
            and st_ is not None
            and not st_["done"]
            and h.shadow == self.rounds[h.slot] & 1
            and (h.block == st_["block"] or st_["opening"])  # an opening round's: any block
            and h.epoch == self.epoch & 0xFFFFFFFF
        )
        if taken and h.count and not h.flags & Flags.MISMATCH:
            key = (self.job_life[0], self.epoch)
            total = np.zeros(self.spec.block_size, np.int64)
            for peer in self.peers:
                held = peer.sent_blocks.get(key, {})
                if h.block in held:
                    total += held[h.block][0]
            expected = total.astype(np.int32)  # the aggregator's sums wrap like the switch's
            assert np.array_equal(wire_values(packet, h.count).astype(np.int32), expected), (
                f"worker {self.rank} took a wrong sum for block {h.block} of allreduce {self.epoch}"
            )
            self.taken += 1
        return self.on_reply(h)


class Checked(Harness):
    def __init__(self, specs: list[JobSpec], rng: random.Random) -> None:
        super().__init__(specs, rng, odd=0)
        self.lives = {spec.job_id: [0] for spec in specs}
        by_job: dict[int, list[CheckedWorker]] = {spec.job_id: [] for spec in specs}
        self.workers = [
            CheckedWorker(w.spec, w.rank, w.addr, rng, job_life=self.lives[w.spec.job_id], peers=by_job[w.spec.job_id])
            for w in self.workers
        ]
        for w in self.workers:
            by_job[w.spec.job_id].append(w)

    def reply(self, worker: CheckedWorker, h: AggHeader, packet: memoryview) -> list:
        return worker.take(h, packet)


class AggregatorMachine(RuleBasedStateMachine):
    @initialize(seed=st.integers(0, 2**32 - 1), dense=st.booleans(), group=st.booleans())
    def setup(self, seed, dense, group):
        specs = [
            JobSpec(
                1,
                3,
                mode="dense" if dense else "sparse",
                num_slots=2,
                block_size=4,
                max_blocks=12,
                group=GROUP if group else None,
            ),
            JobSpec(2, 2, slot_base=2, num_slots=3, block_size=2, key=KEY),
        ]  # authenticated
        self.h = Checked(specs, random.Random(seed))
        self.h.act("join")
        self.h.deliver(0, 0, False)

    @rule(blocks=st.integers(1, 14), density=st.sampled_from([0.0, 0.5, 1.0]), scatter=st.booleans())
    def start(self, blocks, density, scatter):
        for spec in self.h.specs:
            mine = [w for w in self.h.workers if w.spec is spec]
            if all(w.session and not w.error and w.done() for w in mine):
                shard_blocks = -(-blocks // spec.num_workers) if scatter else 0
                for w in mine:
                    self.h.pending += w.start(blocks, density, shard_blocks=shard_blocks)

    @rule(loss=st.sampled_from([0.0, 0.0, 0.1, 0.4]), dup=st.sampled_from([0.0, 0.2]), reorder=st.booleans())
    def deliver(self, loss, dup, reorder):
        self.h.deliver(loss, dup, reorder)

    @rule()
    def timeout(self):
        self.h.act("timeout")

    @rule(
        kind=st.sampled_from(["garbage", "replay", "stranger", "elsewhere", "foreign_join", "bad_join"]),
        pick=st.integers(0, 1 << 30),
    )
    def hostile(self, kind, pick):
        h = self.h
        w = h.workers[pick % len(h.workers)]
        spec = w.spec
        if kind == "garbage":
            h.pending.append((h.rng.randbytes(pick % 120), w.addr))
        elif kind == "replay" and w.sent:  # an old packet of the member, with its session
            h.pending.append((w.sent[pick % len(w.sent)], w.addr))
        elif kind in ("stranger", "elsewhere") and w.sent:
            packet = bytearray(w.sent[pick % len(w.sent)])
            if kind == "stranger":
                packet[24:28] = (pick * 2654435761 & 0xFFFFFFFF).to_bytes(4, "big")
                h.pending.append((bytes(packet), w.addr))
            else:
                h.pending.append((bytes(packet), ("10.66.0.1", 999)))
        elif kind == "foreign_join":  # an unserved job or rank: answered, nothing fails
            h.pending.append((pkt(MsgType.JOIN, JobSpec(77, 2), 0, 0, 0, 5, 8, 2, blocks=0), ("10.66.0.2", 7)))
            h.pending.append(
                (
                    pkt(
                        MsgType.JOIN,
                        spec,
                        spec.num_workers + pick % 3,
                        spec.slot_base,
                        0,
                        5,
                        spec.block_size,
                        spec.num_slots,
                    ),
                    ("10.66.0.3", 7),
                )
            )
        elif kind == "bad_join":  # a stranger claims a rank (no declared addresses): the job fails
            h.pending.append(
                (
                    pkt(
                        MsgType.JOIN,
                        spec,
                        w.rank,
                        spec.slot_base,
                        0,
                        pick,
                        spec.block_size,
                        spec.num_slots,
                        spec.mode.code,
                        spec.num_workers,
                    ),
                    ("10.66.0.4", 4000 + pick % 9),
                )
            )

    @rule()
    def recover(self):
        """What the host agent's users do after a failure: reset_job() on one worker, reset()
        and new JOINs on all (the job's life starts over)."""
        for spec in self.h.specs:
            mine = [w for w in self.h.workers if w.spec is spec]
            if any(w.error for w in mine):
                leader = next((w for w in mine if w.session), None)
                if leader is not None:
                    self.h.pending += leader._send(
                        pkt(MsgType.RESET, spec, leader.rank, spec.slot_base, 0, 0, NONE, session=leader.session)
                    )
                    self.h.deliver(0, 0, False)
                self.h.lives[spec.job_id][0] += 1
                for w in mine:
                    w.session, w.error, w.streams = 0, 0, {}
                    w.incarnation = self.h.rng.getrandbits(32)
                    self.h.pending += w.join()
                self.h.deliver(0, 0, False)

    @invariant()
    def every_packet_is_accounted_for(self):
        counters = self.h.ref.engine.counters.snapshot()
        events = sum(v for k, v in counters.items() if k not in NOT_EVENTS)
        assert events == counters.get("packets_in", 0), counters

    def teardown(self):
        if hasattr(self, "h"):
            self.h.compare_state()


AggregatorMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestAggregatorMachine = AggregatorMachine.TestCase


def test_the_machine_takes_results():
    """Not vacuous: without hostile traffic the checked workers take (and check) sums."""
    machine = AggregatorMachine()
    machine.setup(seed=3, dense=False, group=False)
    for _ in range(3):
        machine.start(blocks=9, density=1.0, scatter=False)
        for _ in range(12):
            machine.deliver(0.0, 0.0, False)
        machine.every_packet_is_accounted_for()
    assert sum(w.taken for w in machine.h.workers) >= 3 * (3 * 9 + 2 * 9)
    machine.teardown()
