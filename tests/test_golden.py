# SPDX-License-Identifier: Apache-2.0
"""Every side against docs/golden_packets.json: codec, scapy layer, software
aggregator and the host agent's packet path (bmv2_tests/ does the switch)."""

from __future__ import annotations

import numpy as np
import pytest

from p4reduce.aggregator import JobSpec
from p4reduce.aggregator.server import Datapath, make_engine
from p4reduce.hostagent.errors import JobFailed
from p4reduce.hostagent.stream import Stream
from p4reduce.protocol import (
    NONE,
    AggHeader,
    ErrorCode,
    Flags,
    KeyMismatch,
    Mode,
    MsgType,
    decode_values,
    encode,
    fingerprint,
)
from p4reduce.protocol.framing import split_datagram
from p4reduce.protocol.scapy_layer import P4Reduce

MODES = ["dense", "sparse"]
# The software aggregator's engines (AggregatorServer(engine=...)): the Python reference
# model and the native data path (p4reduce._engine), both fed through the server's Datapath.
ENGINES = ["python", "native"]
WORKER_ADDRESSES = [("127.0.0.1", 30000), ("127.0.0.1", 30001)]


def _job(golden, mode) -> JobSpec:
    return JobSpec(mode=mode, **{k: v for k, v in golden["job"].items() if k != "session"})


def _stream_steps(golden, mode: str, worker: int | None = None) -> list[dict]:
    """Allreduce 0's DATA steps (and their results) of `mode`, optionally one worker's."""
    return [
        s
        for s in golden["steps"]
        if mode in s["modes"]
        and AggHeader.unpack(bytes.fromhex(s["payload"])).msg_type == MsgType.DATA
        and AggHeader.unpack(bytes.fromhex(s["payload"])).epoch == 0
        and (worker is None or s["from_worker"] == worker)
    ]


def _all_payloads(golden):
    for step in golden["steps"] + golden["scatter"]["steps"] + golden["hierarchy"]["steps"]:
        yield bytes.fromhex(step["payload"])
        for e in step["expect"]:
            yield bytes.fromhex(e["payload"])


def test_codec_reencodes_every_golden_payload(golden):
    for payload in _all_payloads(golden):
        h = AggHeader.unpack(payload)
        values = decode_values(payload, h.count) if h.count else None
        assert encode(h, values) == payload


def test_scapy_layer_matches_golden(golden):
    for payload in _all_payloads(golden):
        pkt = P4Reduce(payload)
        h = AggHeader.unpack(payload)
        assert (pkt.msg_type, pkt.job_id, pkt.worker_id, pkt.slot, pkt.shadow, pkt.epoch) == (
            h.msg_type,
            h.job_id,
            h.worker_id,
            h.slot,
            h.shadow,
            h.epoch,
        )
        assert (pkt.block, pkt.next_block, pkt.exp, pkt.next_exp, pkt.count) == (
            h.block,
            h.next_block,
            h.exp,
            h.next_exp,
            h.count,
        )
        assert (pkt.session, pkt.blocks, pkt.fingerprint) == (h.session, h.blocks, h.fingerprint)
        assert (int(pkt.flags), pkt.owner) == (h.flags & 7, h.flags >> 3)
        assert ("SCATTER" in pkt.flags) == bool(h.flags & Flags.SCATTER)
        rebuilt = P4Reduce(
            msg_type=h.msg_type,
            job_id=h.job_id,
            worker_id=h.worker_id,
            flags=h.flags & 7,
            owner=h.flags >> 3,
            shadow=h.shadow,
            slot=h.slot,
            epoch=h.epoch,
            block=h.block,
            next_block=h.next_block,
            exp=h.exp,
            next_exp=h.next_exp,
            session=h.session,
            blocks=h.blocks,
            fingerprint=h.fingerprint,
            values=list(pkt.values),
        )
        assert bytes(rebuilt) == payload


class _Aggregator:
    """A software aggregator of the golden job on `engine`, each step's packet a datagram
    from its worker's address, through the server's loop body (Datapath): what it would
    send, each packet with the worker whose address it goes to."""

    def __init__(self, golden, mode: str, engine: str) -> None:
        self.engine = make_engine(
            [_job(golden, mode)], engine, new_session=lambda job, worker: golden["job"]["session"]
        )
        self.path = Datapath(self.engine, {})
        assert self.path.native == (engine == "native")

    def send(self, step) -> list[dict]:
        got = []
        source = WORKER_ADDRESSES[step["from_worker"]]
        for datagram, dest in self.path.process([(bytes.fromhex(step["payload"]), source)]):
            packets, leftover = split_datagram(datagram)
            assert not leftover
            # PENDING answers to early retransmissions are a software-only addition (spec section 6).
            got += [
                {"to_worker": WORKER_ADDRESSES.index(dest), "payload": bytes(p).hex()}
                for p in packets
                if AggHeader.unpack(p).msg_type != MsgType.PENDING
            ]
        return got

    def check_data_path(self) -> None:
        """The native engine's DATA went through the C core, not the Python engine."""
        if self.path.native:
            assert self.engine.is_native(1)
            assert self.engine.core.counters().get("counted", 0) > 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", MODES)
def test_software_aggregator_reproduces_golden(golden, mode, engine):
    agg = _Aggregator(golden, mode, engine)
    for step in golden["steps"]:
        if mode not in step["modes"] or "software" not in step.get("targets", ["software"]):
            continue
        assert agg.send(step) == step["expect"], step["note"]
    counters = agg.engine.counters.snapshot()
    assert counters["drop_duplicate"] == 1 and counters["resent"] == 1
    assert counters["completed"] == 6 and counters["joined"] == 2
    assert agg.engine.failure(1) == (ErrorCode.TENSOR, 1)
    agg.check_data_path()


def _allreduce0(golden) -> dict[str, int]:
    """Session, blocks and fingerprint of the golden allreduce 0 (from its first DATA)."""
    h = AggHeader.unpack(bytes.fromhex(_stream_steps(golden, "dense")[0]["payload"]))
    return {"session": h.session, "blocks": h.blocks, "fingerprint": h.fingerprint}


def test_golden_fingerprints_are_what_workers_compute(golden):
    steps = [AggHeader.unpack(bytes.fromhex(s["payload"])) for s in golden["steps"]]
    prints = {(h.epoch, h.blocks): h.fingerprint for h in steps if h.msg_type == MsgType.DATA}
    assert prints == {
        (0, 100): fingerprint(0, 3200, np.float32, 32, 32, 2),
        (1, 100): fingerprint(1, 3200, np.float32, 32, 32, 2),
        (1, 101): fingerprint(1, 3232, np.float32, 32, 32, 2),
    }
    scatter = [AggHeader.unpack(bytes.fromhex(s["payload"])) for s in golden["scatter"]["steps"]]
    assert {h.epoch: h.fingerprint for h in scatter} == {
        e: fingerprint(e, 2080, np.int32, 32, 32, 2, [1040, 1040]) for e in (0, 1)
    }
    assert {h.blocks for h in scatter} == {66}


def test_mismatch_flagged_result_fails_every_worker(golden):
    step = next(
        s
        for s in golden["steps"]
        if s["expect"] and AggHeader.unpack(bytes.fromhex(s["expect"][0]["payload"])).flags & Flags.MISMATCH
    )
    for e in step["expect"]:
        payload = bytes.fromhex(e["payload"])
        stream = Stream(
            job_id=1,
            worker_id=e["to_worker"],
            slot=3,
            round_=5,
            epoch=1,
            mode=Mode.DENSE,
            my_blocks=[3, NONE],
            my_exps={3: 130},
            block_size=32,
            quantize=lambda b, e: np.zeros(32, np.int32),
            deliver=None,
            session=golden["job"]["session"],
            blocks=100,
            fingerprint=fingerprint(1, 3200, np.float32, 32, 32, 2),
        )
        stream.start()
        with pytest.raises(JobFailed, match="the workers disagree about allreduce 1"):
            stream.on_result(AggHeader.unpack(payload), payload)


# What each golden worker holds in stream 3, as the look-ahead in the golden steps announces it.
def _golden_worker_blocks(golden, worker):
    """(blocks, exps, values by (block, exponent)) reconstructed from the worker's own DATA
    packets: its opening DATA names its first block at its own exponent, the look-aheads
    the others."""
    blocks, exps, values = [], {}, {}
    for step in _stream_steps(golden, "dense", worker):
        h = AggHeader.unpack(bytes.fromhex(step["payload"]))
        announced = [(h.block, h.exp)] if h.flags & Flags.OPENING else []
        for block, exp in announced + [(h.next_block, h.next_exp)]:
            if block != NONE and block not in exps:
                blocks.append(block)
                exps[block] = exp
        if h.count:
            values[h.block, h.exp] = decode_values(bytes.fromhex(step["payload"]), h.count)
    return blocks + [NONE], exps, values


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("worker", [0, 1])
def test_host_agent_stream_emits_golden_packets(golden, mode, worker):
    mine, exps, values = _golden_worker_blocks(golden, worker)
    delivered = {}
    stream = Stream(
        job_id=1,
        worker_id=worker,
        slot=3,
        round_=0,
        epoch=0,
        mode=Mode(mode),
        my_blocks=mine,
        my_exps=exps,
        block_size=32,
        quantize=lambda b, e: values[b, e],
        deliver=lambda b, e, v: delivered.__setitem__(b, (e, v)),
        **_allreduce0(golden),
    )
    sent = [stream.start()]
    results = [
        bytes.fromhex(e["payload"])
        for step in _stream_steps(golden, mode)
        for e in step["expect"]
        if e["to_worker"] == worker
    ]
    for payload in results:
        reply = stream.on_result(AggHeader.unpack(payload), payload)
        if reply is not None:
            sent.append(reply)
    expected = []
    for step in _stream_steps(golden, mode, worker):
        p = bytes.fromhex(step["payload"])
        if p not in expected:
            expected.append(p)
    assert sent == expected
    assert stream.done
    for payload in results:
        h = AggHeader.unpack(payload)
        if h.count:  # not a REPEAT (nor the end of an empty stream)
            assert delivered[h.block][0] == h.exp
            np.testing.assert_array_equal(delivered[h.block][1], decode_values(payload, h.count))


def test_sparse_silent_worker_queries_the_round_it_waits_for(golden):
    mine, exps, values = _golden_worker_blocks(golden, 1)
    stream = Stream(
        job_id=1,
        worker_id=1,
        slot=3,
        round_=0,
        epoch=0,
        mode=Mode.SPARSE,
        my_blocks=mine,
        my_exps=exps,
        block_size=32,
        quantize=lambda b, e: values[b, e],
        deliver=lambda *a: None,
        **_allreduce0(golden),
    )
    stream.start()
    for step in _stream_steps(golden, "sparse")[:5]:
        for e in step["expect"]:
            if e["to_worker"] == 1:
                p = bytes.fromhex(e["payload"])
                stream.on_result(AggHeader.unpack(p), p)
    # After round 1 the next round is block 35, which worker 1 does not hold.
    assert stream.pending_is_query
    q = AggHeader.unpack(stream.pending)
    assert (q.msg_type, q.block, q.shadow, q.count) == (MsgType.QUERY, 35, 0, 0)


# -- reduce-scatter (docs/protocol.md section 3.1) -----------------------------------------


def _joined_aggregator(golden, mode, engine) -> _Aggregator:
    agg = _Aggregator(golden, mode, engine)
    for step in golden["steps"]:
        h = AggHeader.unpack(bytes.fromhex(step["payload"]))
        if mode in step["modes"] and h.msg_type == MsgType.JOIN:
            assert agg.send(step) == step["expect"]  # JOINED
    assert agg.engine.counters.snapshot()["joined"] == 2
    return agg


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", MODES)
def test_software_aggregator_reproduces_golden_scatter(golden, mode, engine):
    agg = _joined_aggregator(golden, mode, engine)
    for step in golden["scatter"]["steps"]:
        if mode not in step["modes"]:
            continue
        assert agg.send(step) == step["expect"], step["note"]
        for e in step["expect"]:  # values only ever go to the block's owner
            h = AggHeader.unpack(bytes.fromhex(e["payload"]))
            assert h.flags & Flags.SCATTER
            assert (h.count != 0) == (h.block != NONE and e["to_worker"] == h.flags >> 3)
    assert agg.engine.failure(1) == (ErrorCode.TENSOR, 1)
    agg.check_data_path()


def _scatter_stream(golden, worker, mode, epoch, delivered):
    """Worker `worker`'s stream 1 of golden reduce-scatter `epoch`, rebuilt from its DATA."""
    steps = [
        s
        for s in golden["scatter"]["steps"]
        if s["from_worker"] == worker
        and mode in s["modes"]
        and AggHeader.unpack(bytes.fromhex(s["payload"])).epoch == epoch
    ]
    values = {}
    for s in steps:
        h = AggHeader.unpack(bytes.fromhex(s["payload"]))
        if h.count:
            values[h.block] = decode_values(bytes.fromhex(s["payload"]), h.count)
    first = AggHeader.unpack(bytes.fromhex(steps[0]["payload"]))
    stream = Stream(
        job_id=1,
        worker_id=worker,
        slot=1,
        round_=0 if epoch == 0 else 3,
        epoch=epoch,
        mode=Mode(mode),
        my_blocks=sorted(values) + [NONE],
        my_exps={b: 127 for b in values},
        block_size=32,
        quantize=lambda b, e: values[b],
        deliver=lambda b, e, v: delivered.__setitem__(b, v.copy()),
        session=first.session,
        blocks=66,
        fingerprint=fingerprint(epoch, 2080, np.int32, 32, 32, 2, [1040, 1040]),
        shard_blocks=33,
    )
    return stream, steps, values


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("worker", [0, 1])
def test_host_agent_stream_emits_golden_scatter_packets(golden, mode, worker):
    delivered = {}
    stream, steps, values = _scatter_stream(golden, worker, mode, 0, delivered)
    sent = [stream.start()]
    for step in golden["scatter"]["steps"]:
        if mode not in step["modes"] or AggHeader.unpack(bytes.fromhex(step["payload"])).epoch != 0:
            continue
        for e in step["expect"]:
            if e["to_worker"] == worker:
                payload = bytes.fromhex(e["payload"])
                reply = stream.on_result(AggHeader.unpack(payload), payload)
                if reply is not None:
                    sent.append(reply)
    expected = []
    for step in steps:
        if bytes.fromhex(step["payload"]) not in expected:
            expected.append(bytes.fromhex(step["payload"]))
    assert sent == expected and stream.done
    # Only its own blocks are delivered: the sums of every worker's values there.
    others = _scatter_stream(golden, 1 - worker, mode, 0, {})[2]
    mine = {b for b in (1, 33, 65) if b // 33 == worker}
    assert set(delivered) == mine & (set(values) | set(others))
    for b in delivered:
        np.testing.assert_array_equal(delivered[b], values.get(b, 0) + others.get(b, 0))


def test_golden_scatter_mismatch_fails_every_worker(golden):
    step = golden["scatter"]["steps"][-1]
    for e in step["expect"]:
        stream, _, _ = _scatter_stream(golden, e["to_worker"], "dense", 1, {})
        stream.start()
        opened = next(x for x in golden["scatter"]["steps"] if x["note"].startswith("worker 1 sends block 1 too"))
        payload = bytes.fromhex(next(x["payload"] for x in opened["expect"] if x["to_worker"] == e["to_worker"]))
        stream.on_result(AggHeader.unpack(payload), payload)
        payload = bytes.fromhex(e["payload"])
        with pytest.raises(JobFailed, match="the workers disagree about allreduce 1"):
            stream.on_result(AggHeader.unpack(payload), payload)


# -- authenticated jobs (docs/protocol.md section 6.3) ----------------------------------------


def _siphash24(key: bytes, data: bytes) -> int:
    """SipHash-2-4 from its paper, in plain Python: the C one (p4reduce/_siphash.h) is
    checked against it and against the paper's first test vector."""
    mask = (1 << 64) - 1

    def rotl(x: int, b: int) -> int:
        return (x << b | x >> (64 - b)) & mask

    def rounds(v: list[int], n: int) -> None:
        for _ in range(n):
            v[0] = (v[0] + v[1]) & mask
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)  # noqa: E702
            v[2] = (v[2] + v[3]) & mask
            v[3] = rotl(v[3], 16) ^ v[2]  # noqa: E702
            v[0] = (v[0] + v[3]) & mask
            v[3] = rotl(v[3], 21) ^ v[0]  # noqa: E702
            v[2] = (v[2] + v[1]) & mask
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)  # noqa: E702

    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    tail = len(data) % 8
    words = [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data) - tail, 8)]
    words.append(int.from_bytes(data[len(data) - tail :], "little") | (len(data) & 0xFF) << 56)
    for m in words:
        v[3] ^= m
        rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def test_the_c_siphash_is_siphash_2_4():
    import random

    from p4reduce import _native

    key = bytes(range(16))
    assert _native.siphash(key, b"") == _siphash24(key, b"") == 0x726FDB47DD0E0E31  # the paper's vector
    rng = random.Random(5)
    for n in list(range(40)) + [1000, 1060, 65000]:
        data, k = rng.randbytes(n), rng.randbytes(16)
        assert _native.siphash(k, data) == _siphash24(k, data), n


def test_authenticated_golden_packets_are_the_plain_ones_sealed(golden):
    from p4reduce.protocol.auth import JobKey

    section = golden["authenticated"]
    key = bytes.fromhex(section["key"])
    plain_steps = {s["note"]: s["payload"] for s in golden["steps"]}
    for step in section["steps"]:
        assert step["plain"] == plain_steps[step["note"]]
        for sealed in [step["payload"]] + [e["payload"] for e in step["expect"]]:
            p = bytes.fromhex(sealed)
            assert p[0] == 0x83 and int.from_bytes(p[-8:], "big") == _siphash24(key, p[:-8])
            h = AggHeader.unpack(p)
            assert h.sealed and JobKey(key).verify(p)
        assert JobKey(key).seal(bytes.fromhex(step["plain"])).hex() == step["payload"]


@pytest.mark.parametrize("engine", ENGINES)
def test_software_aggregator_reproduces_golden_authenticated(golden, engine):
    from p4reduce.protocol.auth import JobKey

    section = golden["authenticated"]
    agg = _Aggregator(golden, "dense", engine)
    key = JobKey(bytes.fromhex(section["key"]))
    spec = _job(golden, "dense")
    agg.engine = make_engine(
        [JobSpec(**{**spec.__dict__, "key": key})], engine, new_session=lambda job, worker: golden["job"]["session"]
    )
    agg.path = Datapath(agg.engine, {})
    joins = 0
    for step in section["steps"]:
        assert agg.send(step) == step["expect"], step["note"]
        plain = dict(step, payload=step["plain"])  # the same packet unsealed: dropped, not answered...
        answers = agg.send(plain)
        if AggHeader.unpack(bytes.fromhex(step["plain"])).msg_type != MsgType.JOIN:
            assert answers == []
            continue
        joins += 1  # ... but a JOIN is told, unsealed, that the job has a key (spec 6.3)
        (answer,) = answers
        h = AggHeader.unpack(bytes.fromhex(answer["payload"]))
        assert (h.msg_type, h.block, h.next_block) == (MsgType.ERROR, ErrorCode.KEY, KeyMismatch.UNSEALED)
        assert not h.sealed
    counters = agg.engine.counters.snapshot()
    assert joins and counters["drop_key_mismatch"] == joins
    assert counters["drop_bad_mac"] == len(section["steps"]) - joins and counters["completed"] == 2
    agg.check_data_path()


def test_golden_result_values_are_the_sums_of_their_data_values(golden):
    """An oracle independent of the aggregator: each golden RESULT with values holds, per
    element, the int32 sum of the values its round's DATA packets carried."""
    for mode in MODES:
        # (epoch, slot, block, exp) -> values sent: values at another exponent (an opening
        # round that repeats) are not summed with them
        sent: dict[tuple[int, int, int, int], list[np.ndarray]] = {}
        checked = 0
        for step in golden["steps"]:
            if mode not in step["modes"]:
                continue
            h = AggHeader.unpack(bytes.fromhex(step["payload"]))
            if h.msg_type == MsgType.DATA and h.count:
                values = decode_values(bytes.fromhex(step["payload"]), h.count)
                round_values = sent.setdefault((h.epoch, h.slot, h.block, h.exp), [])
                if not any(np.array_equal(values, v) for v in round_values):  # a retransmission adds nothing
                    round_values.append(values)
            for e in step["expect"]:
                r = AggHeader.unpack(bytes.fromhex(e["payload"]))
                if r.msg_type == MsgType.RESULT and r.count and not r.flags & Flags.MISMATCH:
                    round_values = sent[(r.epoch, r.slot, r.block, r.exp)]
                    expected = np.sum(round_values, axis=0, dtype=np.int64).astype(np.int32)
                    np.testing.assert_array_equal(decode_values(bytes.fromhex(e["payload"]), r.count), expected)
                    checked += 1
        assert checked >= 2, mode


# -- a leaf job (docs/protocol.md, Hierarchical aggregation) --------------------------------

PARENT = ("127.0.0.1", 39999)


@pytest.mark.parametrize("engine", ENGINES)
def test_software_leaf_reproduces_golden_hierarchy(golden, engine):
    """The software leaf sends its parent the golden DATA, byte for byte, and its workers the
    parent's RESULT, as the switch does (bmv2_tests/test_golden.py)."""
    from p4reduce.aggregator.relay import Upstream

    tree = golden["hierarchy"]
    upstream = Upstream(PARENT[0], PARENT[1], tree["up_job"], tree["up_rank"])
    spec = JobSpec(mode="dense", upstream=upstream, **{k: v for k, v in golden["job"].items() if k != "session"})
    leaf = make_engine([spec], engine, new_session=lambda job, worker: golden["job"]["session"])
    path = Datapath(leaf, {spec.job_id: PARENT})
    (join,) = leaf.upstream_joins()
    joined = AggHeader.unpack(join.parts[0])._replace(msg_type=MsgType.JOINED, session=tree["up_session"])
    assert path.process([(joined.pack(), PARENT)]) == []

    def send(payload: str, source) -> list[tuple[str, str]]:
        got = []
        for datagram, dest in path.process([(bytes.fromhex(payload), source)]):
            packets, leftover = split_datagram(datagram)
            assert not leftover
            to = "parent" if dest == PARENT else str(WORKER_ADDRESSES.index(dest))
            got += [(to, bytes(p).hex()) for p in packets if AggHeader.unpack(p).msg_type != MsgType.PENDING]
        return sorted(got)

    for step in golden["steps"]:  # the workers join the leaf
        if "dense" in step["modes"] and AggHeader.unpack(bytes.fromhex(step["payload"])).msg_type == MsgType.JOIN:
            send(step["payload"], WORKER_ADDRESSES[step["from_worker"]])
    for step in tree["steps"]:
        source = PARENT if step.get("from_parent") else WORKER_ADDRESSES[step["from_worker"]]
        expected = sorted(
            ("parent" if e.get("to_parent") else str(e["to_worker"]), e["payload"]) for e in step["expect"]
        )
        assert send(step["payload"], source) == expected, step["note"]
