# SPDX-License-Identifier: Apache-2.0
"""Write docs/golden_packets.json: the golden packets of docs/protocol.md section 9.

Every step below states by hand what a worker sends and what the aggregator must send
back (header fields and values, computed here with plain arithmetic, never by an
engine); this script only encodes them. The tests then hold every side to these bytes:
the codec, the scapy layer, both software aggregator engines, the host agent's stream
(tests/test_golden.py) and the switch (bmv2_tests/test_golden.py).

    python3 tools/golden_packets.py        # rewrite the file
    python3 tools/golden_packets.py --check  # exit 1 if the file differs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from p4reduce.protocol import NONE, AggHeader, Flags, MsgType, encode, fingerprint
from p4reduce.protocol.auth import JobKey

PATH = Path(__file__).resolve().parents[1] / "docs" / "golden_packets.json"
JOB = {
    "job_id": 1,
    "num_workers": 2,
    "slot_base": 0,
    "num_slots": 32,
    "block_size": 32,
    "session": 0x5E551015,
    "message_size": 0,
}
SESSION = JOB["session"]
KEY = bytes(range(16))
BOTH = ["dense", "sparse"]
OPENING, SCATTER, MISMATCH = int(Flags.OPENING), int(Flags.SCATTER), int(Flags.MISMATCH)

# Stream 3 of a 3200-element float32 tensor (100 blocks): the blocks each worker holds,
# quantized (docs/protocol.md 5, n = 2 so s = 29 - e): block 3 at exponent 130 and, for
# worker 1, at its own 128 (x 4: its values are below 2^1); 35 at 129, 67 at 140, 99 at 125.
_ramp = np.arange(32, dtype=np.int64)
V0_3 = (-16000048 + 1000003 * _ramp).astype(np.int32)
V1_3 = (-5000 + _ramp * (_ramp + 6)).astype(np.int32)
V1_3_AT_128 = V1_3 * 4
V0_35 = (-(_ramp**3)).astype(np.int32)
V1_67 = (123456789 - 97 * _ramp).astype(np.int32)
V1_99 = V1_3
V0_99 = V0_35
# Stream 1 of a 2080-element int32 reduce-scatter (66 blocks, rank 0 owns 0-32).
W0_1 = (-16 + _ramp).astype(np.int32)
W1_33 = (-32 + 2 * _ramp).astype(np.int32)
W0_65 = (-48 + 3 * _ramp).astype(np.int32)
W1_65 = (16 - _ramp).astype(np.int32)
W1_1 = W1_33
W0_33 = (7 - _ramp).astype(np.int32)


def _hex(header: AggHeader, values: np.ndarray | None = None) -> str:
    return encode(header, values).hex()


def _join_steps() -> list[dict]:
    steps = []
    for mode, code in (("dense", 1), ("sparse", 0)):
        for worker, incarnation in ((0, 0x0A0A0A0A), (1, 0x0B0B0B0B)):
            join = AggHeader(MsgType.JOIN, 1, worker, 0, 0, incarnation, 32, 32, code, 2, 0)
            joined = join._replace(msg_type=MsgType.JOINED, session=SESSION)
            steps.append(
                {
                    "note": f"JOIN ({mode} job): worker {worker}, incarnation {incarnation:#x}, announces block "
                    f"size 32, 32 slots from 0, mode {mode}, 2 workers; JOINED repeats the job's geometry and "
                    f"gives session {SESSION:#x}",
                    "from_worker": worker,
                    "modes": [mode],
                    "payload": _hex(join),
                    "expect": [{"to_worker": worker, "payload": _hex(joined)}],
                }
            )
    return steps


def _step(note, worker, modes, packet, expect, **extra) -> dict:
    return {"note": note, "from_worker": worker, "modes": modes, "payload": packet, "expect": expect} | extra


def _result_to_both(h: AggHeader, values: np.ndarray | None = None) -> list[dict]:
    return [{"to_worker": w, "payload": _hex(h._replace(worker_id=w), values)} for w in (0, 1)]


def _main_steps() -> list[dict]:
    f0 = fingerprint(0, 3200, np.float32, 32, 32, 2)

    def data(worker, shadow, block, nxt, exp, nexp, values=None, flags=0, epoch=0, blocks=100, fp=f0):
        count = 0 if values is None else 32
        return AggHeader(
            MsgType.DATA, 1, worker, 3, shadow, epoch, block, nxt, exp, nexp, count, flags, SESSION, blocks, fp
        )

    def result(h: AggHeader, block, nxt, exp, nexp, count=32, flags=0) -> AggHeader:
        return h._replace(
            msg_type=MsgType.RESULT, block=block, next_block=nxt, exp=exp, next_exp=nexp, count=count, flags=flags
        )

    steps = []
    o0 = data(0, 0, 3, 35, 130, 129, V0_3, OPENING)
    steps.append(
        _step(
            "round 0 (v=0) opening: worker 0 sends its first block 3 at its own exponent 130 (flags OPENING), "
            "next 35 (exp 129)",
            0,
            BOTH,
            _hex(o0, V0_3),
            [],
        )
    )
    o1 = data(1, 0, 3, 67, 128, 140, V1_3_AT_128, OPENING)
    steps.append(
        _step(
            "worker 1 sends block 3 at its own exponent 128, next 67 (exp 140): the holders of block 3 disagree "
            "on its exponent, so the RESULT is a REPEAT of block 3 at the larger one, 130 (header-only, "
            "next_block = block = 3, next_exp = exp = 130)",
            1,
            BOTH,
            _hex(o1, V1_3_AT_128),
            _result_to_both(result(o1, 3, 3, 130, 130, count=0)),
        )
    )
    d0 = data(0, 1, 3, 35, 130, 129, V0_3)
    note = "round 1 (v=1) block 3 at 130: worker 0 contributes, next 35 (exp 129)"
    steps.append(_step(note, 0, BOTH, _hex(d0, V0_3), []))
    steps.append(
        _step("worker 0 retransmits before the round is complete: dropped, nothing added", 0, BOTH, _hex(d0, V0_3), [])
    )
    d1 = data(1, 1, 3, 67, 130, 140, V1_3)
    r3 = result(d1, 3, 35, 130, 129)
    steps.append(
        _step(
            "worker 1 contributes at 130, next 67 (exp 140): result = sum, next = min = 35",
            1,
            BOTH,
            _hex(d1, V1_3),
            _result_to_both(r3, V0_3 + V1_3),
        )
    )
    steps.append(
        _step(
            "worker 0 lost the result and retransmits: unicast re-send to worker 0 only",
            0,
            BOTH,
            _hex(d0, V0_3),
            _result_to_both(r3, V0_3 + V1_3)[:1],
        )
    )
    h1 = data(1, 0, 35, 67, 129, 140)
    steps.append(
        _step(
            "round 2 (v=0) block 35: worker 1 has no data there; dense mode: header-only with its unchanged look-ahead",
            1,
            ["dense"],
            _hex(h1),
            [],
        )
    )
    d0 = data(0, 0, 35, 99, 129, 120, V0_35)
    steps.append(
        _step(
            "worker 0 contributes block 35, next 99 (exp 120)",
            0,
            BOTH,
            _hex(d0, V0_35),
            _result_to_both(result(d0, 35, 67, 129, 140), V0_35),
        )
    )
    h0 = data(0, 1, 67, 99, 140, 120)
    steps.append(
        _step(
            "round 3 (v=1) block 67: worker 0 header-only (dense mode), still announcing 99 with exp 120",
            0,
            ["dense"],
            _hex(h0),
            [],
        )
    )
    d1 = data(1, 1, 67, 99, 140, 125, V1_67)
    steps.append(
        _step(
            "worker 1 contributes block 67 and also announces 99, with exp 125: tie on block, larger exponent wins",
            1,
            BOTH,
            _hex(d1, V1_67),
            _result_to_both(result(d1, 67, 99, 140, 125), V1_67),
        )
    )
    d1 = data(1, 0, 99, NONE, 125, 0, V1_99)
    steps.append(_step("round 4 (v=0) block 99: both contribute, both at end of stream", 1, BOTH, _hex(d1, V1_99), []))
    d0 = data(0, 0, 99, NONE, 125, 0, V0_99)
    steps.append(
        _step(
            "last contribution: result announces NONE, the stream is finished",
            0,
            BOTH,
            _hex(d0, V0_99),
            _result_to_both(result(d0, 99, NONE, 125, 0), V0_99 + V1_99),
        )
    )
    f1 = fingerprint(1, 3200, np.float32, 32, 32, 2)
    f1_other = fingerprint(1, 3232, np.float32, 32, 32, 2)
    o0 = data(0, 1, 3, 35, 130, 129, V0_3, OPENING, epoch=1, fp=f1)
    steps.append(
        _step(
            f"allreduce 1 (round 5, v=1) opening: worker 0's tensor has 3200 float32 elements (fingerprint "
            f"{f1:#x}); it sends block 3 at 130 again",
            0,
            BOTH,
            _hex(o0, V0_3),
            [],
        )
    )
    o1 = data(1, 1, 3, 67, 130, 140, V1_3, OPENING, epoch=1, blocks=101, fp=f1_other)
    steps.append(
        _step(
            f"worker 1's tensor has 3232 elements (101 blocks, fingerprint {f1_other:#x}): the round completes "
            "with flag MISMATCH (block 3's sum, next 35, and the completing packet's epoch, blocks and "
            "fingerprint); every worker raises",
            1,
            BOTH,
            _hex(o1, V1_3),
            _result_to_both(result(o1, 3, 35, 130, 129, flags=MISMATCH), V0_3 + V1_3),
        )
    )
    error = o0._replace(msg_type=MsgType.ERROR, block=5, next_block=1, count=0, flags=0)
    steps.append(
        _step(
            "software aggregator only: the job has failed, so any later packet of it (worker 0 retransmits its "
            "opening DATA) is answered with ERROR TENSOR (block = code 5) naming worker 1 (next_block = 1)",
            0,
            BOTH,
            _hex(o0, V0_3),
            [{"to_worker": 0, "payload": _hex(error)}],
            targets=["software"],
        )
    )
    return steps


def _scatter_steps() -> list[dict]:
    def data(worker, shadow, block, nxt, owner, values=None, flags=0, epoch=0):
        fp = fingerprint(epoch, 2080, np.int32, 32, 32, 2, [1040, 1040])
        count = 0 if values is None else 32
        bits = flags | SCATTER | owner << 3
        nexp = 0 if nxt == NONE else 127  # a worker announces no exponent at the end of its stream
        return AggHeader(MsgType.DATA, 1, worker, 1, shadow, epoch, block, nxt, 127, nexp, count, bits, SESSION, 66, fp)

    def result(h: AggHeader, block, nxt, owner, values, flags=0) -> list[dict]:
        r = h._replace(msg_type=MsgType.RESULT, block=block, next_block=nxt, flags=SCATTER | owner << 3 | flags)
        return [
            {
                "to_worker": w,
                "payload": _hex(r._replace(worker_id=w), values)
                if w == owner
                else _hex(r._replace(worker_id=w, count=0)),
            }
            for w in (0, 1)
        ]

    steps = []
    o0 = data(0, 0, 1, 65, 0, W0_1, OPENING)
    steps.append(
        _step(
            "reduce-scatter 0, stream 1 (slot 1, blocks 1, 33, 65), round 0 (v=0) opening: worker 0 sends its "
            "first block 1 with flags OPENING | SCATTER | owner 0 << 3 = 0x05, next 65",
            0,
            BOTH,
            _hex(o0, W0_1),
            [],
        )
    )
    o1 = data(1, 0, 33, 65, 1, W1_33, OPENING)
    opening_result = result(o1, 1, 33, 0, W0_1)
    steps.append(
        _step(
            "worker 1 sends its first block 33 (flags 0x0d, owner 1), next 65: block 1 is the smallest, so the "
            "RESULT is block 1's data round with owner 0: worker 0 gets the values (164 bytes), worker 1 the "
            "header only (36 bytes); next 33, worker 1's own block, whose values were left out",
            1,
            BOTH,
            _hex(o1, W1_33),
            opening_result,
        )
    )
    steps.append(
        _step(
            "worker 1 lost its copy and retransmits its opening DATA: the re-send is header-only too",
            1,
            BOTH,
            _hex(o1, W1_33),
            opening_result[1:],
        )
    )
    h0 = data(0, 1, 33, 65, 1)
    steps.append(
        _step(
            "round 1 (v=1) block 33, owned by rank 1: worker 0 header-only, flags SCATTER | 1 << 3 = 0x0c (sparse "
            "mode too: the round after an opening round expects every worker)",
            0,
            BOTH,
            _hex(h0),
            [],
        )
    )
    d1 = data(1, 1, 33, 65, 1, W1_33)
    steps.append(
        _step(
            "worker 1 sends block 33 again, next 65: values to worker 1 only",
            1,
            BOTH,
            _hex(d1, W1_33),
            result(d1, 33, 65, 1, W1_33),
        )
    )
    d0 = data(0, 0, 65, NONE, 1, W0_65)
    note = "round 2 (v=0) block 65 (rank 1's): worker 0 contributes, end of its stream"
    steps.append(_step(note, 0, BOTH, _hex(d0, W0_65), []))
    d1 = data(1, 0, 65, NONE, 1, W1_65)
    steps.append(
        _step(
            "worker 1 contributes too: the sum goes to worker 1, worker 0 gets the header announcing NONE; the "
            "stream is finished",
            1,
            BOTH,
            _hex(d1, W1_65),
            result(d1, 65, NONE, 1, W0_65 + W1_65),
        )
    )
    o0 = data(0, 1, 1, 33, 0, W0_1, OPENING, epoch=1)
    steps.append(
        _step(
            "reduce-scatter 1 (round 3, v=1) opening: worker 0 sends block 1, next 33",
            0,
            BOTH,
            _hex(o0, W0_1),
            [],
        )
    )
    o1 = data(1, 1, 1, 33, 0, W1_1, OPENING, epoch=1)
    steps.append(
        _step(
            "worker 1 sends block 1 too, next 33: the sum goes to worker 0, the header to worker 1",
            1,
            BOTH,
            _hex(o1, W1_1),
            result(o1, 1, 33, 0, W0_1 + W1_1),
        )
    )
    d0 = data(0, 0, 33, NONE, 1, W0_33, epoch=1)
    steps.append(_step("round 4 (v=0) block 33: worker 0 contributes, naming owner 1", 0, BOTH, _hex(d0, W0_33), []))
    d1 = data(1, 0, 33, NONE, 0, W1_33, epoch=1)
    steps.append(
        _step(
            "a faulty worker 1 names owner 0 for block 33 (same fingerprint): the round completes with MISMATCH; "
            "the RESULT repeats the completing packet's flags (0x04 | MISMATCH = 0x06), so its owner, worker 0, "
            "gets the values and worker 1 the header; every worker raises",
            1,
            BOTH,
            _hex(d1, W1_33),
            result(d1, 33, NONE, 0, W0_33 + W1_33, flags=MISMATCH),
        )
    )
    return steps


UP_JOB, UP_RANK, UP_SESSION = 9, 1, 0x9A5E55  # the leaf's parent job, its rank and session there
# What the parent's other member (another leaf) adds to blocks 3 and 35.
X_3 = (1000 - 7 * _ramp).astype(np.int32)
X_35 = (5 * _ramp - 77).astype(np.int32)


def _hierarchy_steps() -> list[dict]:
    """Job 1 (2 workers, dense) as a leaf job: rank UP_RANK of parent job UP_JOB. A step comes
    from a local worker (`from_worker`) or from the parent (`from_parent`); what the leaf
    sends goes to a local worker (`to_worker`) or to the parent (`to_parent`)."""
    fp = fingerprint(0, 3200, np.float32, 32, 32, 4)  # fixed point for all 4 workers of the tree

    def data(worker, shadow, block, nxt, exp, nexp, values=None, flags=0):
        count = 0 if values is None else 32
        return AggHeader(MsgType.DATA, 1, worker, 3, shadow, 0, block, nxt, exp, nexp, count, flags, SESSION, 100, fp)

    def up(h: AggHeader, block, nxt, exp, nexp, count=32, flags=0) -> AggHeader:
        """The leaf's DATA of the parent job for the round that `h` completed."""
        fields = dict(block=block, next_block=nxt, exp=exp, next_exp=nexp, count=count, flags=flags)
        return h._replace(job_id=UP_JOB, worker_id=UP_RANK, session=UP_SESSION, **fields)

    def parent_result(u: AggHeader, count=32) -> AggHeader:
        return u._replace(msg_type=MsgType.RESULT, flags=0, count=count)

    def down(r: AggHeader, values) -> list[dict]:
        local = r._replace(job_id=1, session=SESSION)
        return [{"to_worker": w, "payload": _hex(local._replace(worker_id=w), values)} for w in (0, 1)]

    steps = []
    o0 = data(0, 0, 3, 35, 130, 129, V0_3, OPENING)
    steps.append(_step("leaf, opening round (v=0): worker 0 sends block 3 at 130, next 35 (exp 129)", 0, ["dense"],
                       _hex(o0, V0_3), []))  # fmt: skip
    o1 = data(1, 0, 3, 67, 130, 140, V1_3, OPENING)
    u3 = up(o1, 3, 35, 130, 129, flags=OPENING)
    steps.append(
        _step(
            "worker 1 sends block 3 at 130 too, next 67 (exp 140): the local round is complete and goes to the "
            f"parent as ONE opening DATA of job {UP_JOB}, rank {UP_RANK}, session {UP_SESSION:#x}: b* = 3 at 130, "
            "the partial sum, K2 = 35 (exp 129); nothing goes to the workers yet",
            1,
            ["dense"],
            _hex(o1, V1_3),
            [{"to_parent": True, "payload": _hex(u3, V0_3 + V1_3)}],
        )
    )
    r3 = parent_result(u3)
    steps.append(
        {
            "note": "the parent answers: block 3's sum over the whole tree (its other leaf added X_3), next 35; the "
            "leaf multicasts it to its workers as job 1 with their session",
            "from_parent": True,
            "modes": ["dense"],
            "payload": _hex(r3, V0_3 + V1_3 + X_3),
            "expect": down(r3, V0_3 + V1_3 + X_3),
        }
    )
    d0 = data(0, 1, 35, NONE, 129, 0, V0_35)
    steps.append(_step("round 1 (v=1) block 35: worker 0 contributes, at the end of its stream", 0, ["dense"],
                       _hex(d0, V0_35), []))  # fmt: skip
    h1 = data(1, 1, 35, 67, 129, 140)
    u35 = up(h1, 35, 67, 129, 140)
    steps.append(
        _step(
            "worker 1 header-only (dense mode), announcing 67 (exp 140): up goes block 35 with worker 0's values "
            "as the partial sum and the local minimum 67 as the look-ahead",
            1,
            ["dense"],
            _hex(h1),
            [{"to_parent": True, "payload": _hex(u35, V0_35)}],
        )
    )
    steps.append(
        _step(
            "worker 1 retransmits (the parent has not answered): the leaf sends its partial sum up again, the "
            "same bytes, nothing added twice",
            1,
            ["dense"],
            _hex(h1),
            [{"to_parent": True, "payload": _hex(u35, V0_35)}],
        )
    )
    r35 = parent_result(u35)
    steps.append(
        {
            "note": "the parent answers block 35 (its other leaf added X_35), next 67: to both workers",
            "from_parent": True,
            "modes": ["dense"],
            "payload": _hex(r35, V0_35 + X_35),
            "expect": down(r35, V0_35 + X_35),
        }
    )
    steps.append(
        {
            "note": "a late copy of the parent's RESULT for block 3 (same shadow copy v=0, but no round of the "
            "leaf waits for it): nothing changes, nothing is sent",
            "from_parent": True,
            "modes": ["dense"],
            "payload": _hex(r3, V0_3 + V1_3 + X_3),
            "expect": [],
        }
    )
    steps.append(
        _step(
            "worker 0 lost block 35's RESULT and retransmits: the parent's answer, kept by the leaf, to it alone",
            0,
            ["dense"],
            _hex(d0, V0_35),
            down(r35, V0_35 + X_35)[:1],
        )
    )
    return steps


def _authenticated(steps: list[dict]) -> list[dict]:
    """The dense job's JOINs and first rounds, sealed with KEY."""
    key = JobKey(KEY)
    chosen = [s for s in steps if "dense" in s["modes"] and "targets" not in s]
    sealed = []
    for s in chosen[:7]:
        sealed.append(
            {
                "note": s["note"],
                "from_worker": s["from_worker"],
                "plain": s["payload"],
                "payload": key.seal(bytes.fromhex(s["payload"])).hex(),
                "expect": [
                    {"to_worker": e["to_worker"], "payload": key.seal(bytes.fromhex(e["payload"])).hex()}
                    for e in s["expect"]
                ],
            }
        )
    return sealed


def golden() -> dict:
    steps = _join_steps() + _main_steps()
    f0 = fingerprint(0, 3200, np.float32, 32, 32, 2)
    return {
        "description": (
            "Golden UDP payloads (hex) of docs/protocol.md, version 3. Job 1 with 2 workers, block size 32, "
            "slots 0..31, from a freshly reset job, one packet per datagram (message_size 0, as with a switch: "
            f"JOINED carries blocks = 0): both workers JOIN (session {SESSION:#x} for both; a switch takes it "
            "from the controller, a software aggregator from `job.session` in the tests), then one stream (slot 3) "
            f"of allreduce 0 of a 3200-element float32 tensor (100 blocks, fingerprint {f0:#x}) that opens with a "
            "REPEAT, then allreduce 1 whose tensors differ. Feed the steps whose `modes` contain the job's mode "
            "(and whose `targets`, when given, contain the target: software or switch) in order; after each step "
            "the aggregator must have emitted exactly `expect` (payload per receiving worker). Sparse mode omits "
            "the header-only DATA packets. Written by tools/golden_packets.py from hand-stated steps."
        ),
        "job": JOB,
        "steps": steps,
        "scatter": {
            "description": (
                "A reduce-scatter (docs/protocol.md section 3.1) of the same job, from a freshly reset job whose "
                "workers have joined (the JOIN steps above): an int32 tensor of 2080 elements, two shards of 1040 "
                "(so 33 blocks per shard, the last one cut: 66 blocks, rank 0 owns blocks 0-32 and rank 1 blocks "
                "33-65), fingerprint "
                f"{fingerprint(0, 2080, np.int32, 32, 32, 2, [1040, 1040]):#x} (shards [1040, 1040]); one stream "
                "(slot 1), then reduce-scatter 1 in which a faulty worker names another owner. Every DATA carries "
                "flags SCATTER | owner << 3 (of its own block in an opening round); a RESULT's values go to the "
                "block's owner only, every other worker gets the header (count 0). Same rules as `steps` for "
                "`modes`."
            ),
            "steps": _scatter_steps(),
        },
        "hierarchy": {
            "description": (
                "A leaf job (docs/protocol.md, Hierarchical aggregation): the job above, dense, is rank "
                f"{UP_RANK} of parent job {UP_JOB} with session {UP_SESSION:#x} there, from a freshly reset job "
                "whose workers have joined; its workers scale fixed point for the 4 workers of the tree "
                f"(fingerprint {fingerprint(0, 3200, np.float32, 32, 32, 4):#x}). A step comes from a local worker "
                "(`from_worker`) or from the parent (`from_parent`); `expect` lists what the leaf must send, to a "
                "local worker (`to_worker`) or to the parent (`to_parent`): one DATA of the parent job per local "
                "round, the parent's RESULT back to the workers with their job and session."
            ),
            "up_job": UP_JOB,
            "up_rank": UP_RANK,
            "up_session": UP_SESSION,
            "steps": _hierarchy_steps(),
        },
        "authenticated": {
            "description": (
                "An authenticated job (docs/protocol.md 6.3): the dense job above with the key "
                f"{KEY.hex()} (16 bytes; SipHash-2-4's k0 and k1 are its two halves read as little-endian 64-bit "
                "words). Each step's packet is its `plain` one (the step of the same note above) with the version "
                "byte's AUTH flag set (0x83) and an 8-byte MAC appended: SipHash-2-4 of everything before it, "
                "big-endian. What the aggregator sends is sealed the same way."
            ),
            "key": KEY.hex(),
            "steps": _authenticated(steps),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = parser.parse_args()
    text = json.dumps(golden(), indent=1) + "\n"
    if args.check:
        if PATH.read_text() != text:
            print(f"{PATH} differs from what {__file__} writes", file=sys.stderr)
            return 1
        return 0
    PATH.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
