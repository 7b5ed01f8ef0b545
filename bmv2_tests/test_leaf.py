# SPDX-License-Identifier: Apache-2.0
"""The leaf role on simple_switch_grpc (docs/protocol.md, "Hierarchical aggregation"): a
leaf job's complete round goes to its parent as ONE DATA of the parent job, the parent's
RESULT comes back to its workers, a local retransmission re-sends the partial sum upstream
until the parent answers and gets the parent's RESULT after, and nothing but the answer to
the round sent up is taken. The test plays the parent on port 5."""

from __future__ import annotations

import numpy as np
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import (
    AGG_IP,
    AGG_MAC,
    SESSION,
    Tap,
    Worker,
    data,
    frame,
    job_dict,
    opening,
    results,
    tensor_fingerprint,
    wait_for_counters,
)
from p4reduce.hostagent.errors import JobFailed
from p4reduce.protocol import AGG_UDP_PORT, NONE, POISON, AggHeader, ErrorCode, Flags, MsgType, decode_values

PARENT_PORT = 5
PARENT_MAC, PARENT_IP = "02:00:00:00:00:99", "10.0.0.99"
PARENT_JOB, RANK, UP_SESSION = 9, 3, 0xAB5E55


def leaf_job(workers: list[Worker], **kw) -> dict:
    job = job_dict(1, workers, **kw)
    job["uplink"] = {
        "parent_job": PARENT_JOB,
        "rank": RANK,
        "session": UP_SESSION,
        "port": PARENT_PORT,
        "mac": PARENT_MAC,
        "ip": PARENT_IP,
    }
    return job


def upstream(tap: Tap, switch, timeout: float = 2.0) -> list[bytes]:
    """The DATA the leaf sends its parent within `timeout` (see to_parent)."""
    return to_parent(tap.collect(timeout=timeout, expect=1), switch)


def to_parent(frames: list[tuple[str, bytes]], switch) -> list[bytes]:
    """The UDP payloads of the frames the leaf sent its parent, checking their addressing:
    from the aggregation address its workers send to, to the parent's, lengths and IPv4
    checksum right."""
    out = []
    for iface, raw in frames:
        if iface != switch.host_if(PARENT_PORT):
            continue
        pkt = Ether(raw)
        assert (pkt[Ether].src, pkt[Ether].dst) == (AGG_MAC, PARENT_MAC)
        assert (pkt[IP].src, pkt[IP].dst) == (AGG_IP, PARENT_IP)
        assert (pkt[UDP].sport, pkt[UDP].dport) == (AGG_UDP_PORT, AGG_UDP_PORT)
        payload = bytes(pkt[UDP].payload)
        assert pkt[IP].len == 28 + len(payload) and pkt[UDP].len == 8 + len(payload)
        recomputed = IP(bytes(pkt[IP]))
        del recomputed.chksum
        assert IP(bytes(recomputed)).chksum == pkt[IP].chksum, "IPv4 checksum not updated"
        out.append(payload)
    return out


def parent_frame(payload: bytes) -> bytes:
    return bytes(
        Ether(src=PARENT_MAC, dst=AGG_MAC)
        / IP(src=PARENT_IP, dst=AGG_IP)
        / UDP(sport=AGG_UDP_PORT, dport=AGG_UDP_PORT)
        / Raw(payload)
    )


def answer(up: bytes, values=None, **fields) -> bytes:
    """The parent's RESULT to the leaf's DATA `up` (a parent whose only member is this leaf
    sums nothing else): its header as a RESULT, `fields` changed, with `values`."""
    h = AggHeader.unpack(up)._replace(**({"msg_type": MsgType.RESULT, "flags": 0} | fields))
    if values is None:
        return h._replace(count=0).pack()
    return h._replace(count=len(values)).pack() + np.asarray(values, ">i4").tobytes()


def test_a_leaf_round_goes_up_once_and_the_parents_result_comes_down(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    a, b = np.arange(32), 100 * np.ones(32, int)
    tap.send(workers[0].host_if, frame(workers[0], data(workers[0], 0, 3, 7, a, exp=130, next_exp=131)))
    tap.send(workers[1].host_if, frame(workers[1], data(workers[1], 0, 3, 5, b, exp=130, next_exp=129)))
    (up,) = upstream(tap, switch)
    h = AggHeader.unpack(up)
    assert (h.msg_type, h.job_id, h.worker_id, h.session) == (MsgType.DATA, PARENT_JOB, RANK, UP_SESSION)
    assert (h.slot, h.shadow, h.block, h.exp, h.next_block, h.next_exp) == (0, 0, 3, 130, 5, 129)
    assert (h.epoch, h.blocks, h.fingerprint, h.flags) == (0, 10000, tensor_fingerprint(), 0)
    np.testing.assert_array_equal(decode_values(up, 32), a + b)
    wait_for_counters(switch, upstream=1, data_counted=2)
    assert switch.counters()["result_multicast"] == 0  # nothing to the workers yet

    total = a + b + 1000  # the other leaves' share
    tap.send(switch.host_if(PARENT_PORT), parent_frame(answer(up, total, next_block=4, next_exp=140)))
    got = results(tap.collect(expect=2), workers)
    assert sorted(w.worker_id for w, _ in got) == [0, 1]
    for w, payload in got:
        r = AggHeader.unpack(payload)
        assert (r.msg_type, r.job_id, r.worker_id, r.session) == (MsgType.RESULT, 1, w.worker_id, SESSION)
        assert (r.block, r.exp, r.next_block, r.next_exp, r.flags) == (3, 130, 4, 140, 0)
        np.testing.assert_array_equal(decode_values(payload, 32), total)
    c = wait_for_counters(switch, from_parent=1, result_multicast=1)
    assert c["parent_dropped"] == 0


def test_retransmissions_go_up_until_the_parent_answers_then_get_its_result(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    packets = [data(w, 1, 6, NONE, np.full(32, w.worker_id + 1), slot=2) for w in workers]
    for w, p in zip(workers, packets, strict=True):
        tap.send(w.host_if, frame(w, p))
    (first,) = upstream(tap, switch)
    tap.send(workers[1].host_if, frame(workers[1], packets[1]))  # its RESULT is late
    (again,) = upstream(tap, switch)
    assert again == first  # the same partial sum, not added twice
    tap.send(switch.host_if(PARENT_PORT), parent_frame(answer(first, np.full(32, 9))))
    assert len(results(tap.collect(expect=2), workers)) == 2
    tap.send(workers[0].host_if, frame(workers[0], packets[0]))  # lost its copy
    ((w, payload),) = results(tap.collect(expect=1), workers)
    assert w is workers[0]
    r = AggHeader.unpack(payload)
    assert (r.job_id, r.worker_id, r.session, r.block, r.next_block) == (1, 0, SESSION, 6, NONE)
    np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 9))
    assert not upstream(tap, switch, timeout=0.5)
    wait_for_counters(switch, upstream=2, result_unicast=1)


def test_only_the_answer_to_the_round_sent_up_is_taken(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    # Before any round went up: a forged or late RESULT changes nothing.
    early = answer(data(workers[0], 0, 3, NONE, job=PARENT_JOB, worker_id=RANK, session=UP_SESSION), np.ones(32))
    tap.send(switch.host_if(PARENT_PORT), parent_frame(early))
    wait_for_counters(switch, parent_dropped=1)
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 0, 3, NONE, np.ones(32))))
    (up,) = upstream(tap, switch)
    for wrong in (
        answer(up, np.ones(32), block=2),  # another round of this shadow copy
        answer(up, np.ones(32), fingerprint=tensor_fingerprint(epoch=1)),  # another allreduce
        answer(up, np.ones(32), session=UP_SESSION + 1),  # not the leaf's session there
        answer(up, np.ones(32), worker_id=RANK + 1),  # another rank's: no entry for it
    ):
        tap.send(switch.host_if(PARENT_PORT), parent_frame(wrong))
    c = wait_for_counters(switch, parent_dropped=3, bad_session=1, unknown_worker=1)
    assert c["from_parent"] == 0 and not results(tap.collect(timeout=0.3), workers)
    # From anywhere but the parent's address, the real answer is no answer either (from one
    # of the job's workers: a RESULT is not what a worker sends, malformed).
    tap.send(workers[0].host_if, frame(workers[0], answer(up, np.ones(32))))
    wait_for_counters(switch, malformed=1)
    tap.send(switch.host_if(PARENT_PORT), parent_frame(answer(up, np.full(32, 2))))
    assert len(results(tap.collect(expect=2), workers)) == 2


def test_an_opening_round_goes_up_as_the_leafs_opening_data(switch, tap):
    workers = make_workers(switch, 3)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    # Worker 0 holds block 4 (then 8), worker 1 block 8, worker 2 nothing: b* = 4, K2 = 8.
    tap.send(workers[0].host_if, frame(workers[0], opening(workers[0], 0, 4, 8, np.full(32, 5), exp=130)))
    tap.send(workers[1].host_if, frame(workers[1], opening(workers[1], 0, 8, NONE, np.full(32, 7), exp=128)))
    tap.send(workers[2].host_if, frame(workers[2], opening(workers[2], 0, NONE, NONE)))
    (up,) = upstream(tap, switch)
    h = AggHeader.unpack(up)
    assert h.flags == Flags.OPENING and (h.block, h.exp, h.next_block, h.next_exp) == (4, 130, 8, 128)
    assert (h.job_id, h.worker_id, h.count) == (PARENT_JOB, RANK, 32)
    np.testing.assert_array_equal(decode_values(up, 32), np.full(32, 5))
    # The parent decides: another leaf holds block 0, so its opening RESULT is block 0's.
    down = answer(up, np.full(32, 11), block=0, exp=126, next_block=4, next_exp=130)
    tap.send(switch.host_if(PARENT_PORT), parent_frame(down))
    got = results(tap.collect(expect=3), workers)
    assert len(got) == 3
    for _, payload in got:
        r = AggHeader.unpack(payload)
        assert (r.block, r.exp, r.next_block, r.next_exp, r.job_id) == (0, 126, 4, 130, 1)
    # A worker that lost it asks again with its opening DATA: the parent's answer.
    tap.send(workers[2].host_if, frame(workers[2], opening(workers[2], 0, NONE, NONE)))
    ((_, payload),) = results(tap.collect(expect=1), workers)
    r = AggHeader.unpack(payload)
    assert (r.block, r.exp, r.next_block, r.next_exp, r.count) == (0, 126, 4, 130, 32)
    np.testing.assert_array_equal(decode_values(payload, 32), np.full(32, 11))


def test_a_local_repeat_goes_up_header_only_and_an_empty_stream_as_none(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    # Both hold block 1 at different exponents: the leaf's sums are unusable.
    tap.send(workers[0].host_if, frame(workers[0], opening(workers[0], 0, 1, NONE, np.ones(32), exp=130)))
    tap.send(workers[1].host_if, frame(workers[1], opening(workers[1], 0, 1, 5, np.ones(32), exp=133)))
    (up,) = upstream(tap, switch)
    h = AggHeader.unpack(up)
    assert (h.flags, h.block, h.exp, h.next_block, h.next_exp, h.count) == (Flags.OPENING, 1, 133, 5, 127, 0)
    assert len(up) == 36
    repeat = answer(up, None, next_block=1, next_exp=133)  # the parent's REPEAT of block 1 at 133
    tap.send(switch.host_if(PARENT_PORT), parent_frame(repeat))
    got = results(tap.collect(expect=2), workers)
    assert len(got) == 2
    for _, payload in got:
        r = AggHeader.unpack(payload)
        assert (r.block, r.next_block, r.next_exp, r.count, len(payload)) == (1, 1, 133, 0, 36)
    # Slot 1: nobody holds anything.
    for w in workers:
        tap.send(w.host_if, frame(w, opening(w, 0, NONE, NONE, slot=1)))
    (up,) = upstream(tap, switch)
    h = AggHeader.unpack(up)
    assert (h.slot, h.flags, h.block, h.next_block, h.count) == (1, Flags.OPENING, NONE, NONE, 0)


def test_a_leaf_round_whose_workers_disagree_goes_up_poisoned(switch, tap):
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    tap.send(workers[0].host_if, frame(workers[0], data(workers[0], 0, 3, NONE, np.ones(32))))
    other = tensor_fingerprint(epoch=1)
    tap.send(workers[1].host_if, frame(workers[1], data(workers[1], 0, 3, NONE, np.ones(32), fp=other)))
    (up,) = upstream(tap, switch)
    fp = AggHeader.unpack(up).fingerprint
    assert fp in (tensor_fingerprint() ^ POISON, other ^ POISON)
    # The parent's MISMATCH comes down to every worker of the leaf.
    tap.send(switch.host_if(PARENT_PORT), parent_frame(answer(up, np.ones(32), flags=Flags.MISMATCH)))
    got = results(tap.collect(expect=2), workers)
    assert len(got) == 2 and all(AggHeader.unpack(p).flags & Flags.MISMATCH for _, p in got)


def test_a_leaf_job_under_a_software_parent(switch):
    """The parent is `p4reduce aggregator` behind port 5 (in a network namespace with the
    parent's address): its job pins rank 0 to the leaf's address and session (a switch
    never JOINs), and every block's sum reaches both local workers."""
    import subprocess
    import sys
    import uuid

    from bmv2_tests.test_rounds import assert_every_sum, drive_streams, random_streams

    workers = make_workers(switch, 2)
    job = leaf_job(workers, num_slots=2)
    job["uplink"].update(rank=0)
    switch.install({"jobs": [job]})
    ns, host_if = f"p4r-parent-{uuid.uuid4().hex[:6]}", switch.host_if(PARENT_PORT)
    pin = f"pin=0/{AGG_IP}:{AGG_UDP_PORT}/{UP_SESSION}"  # the leaf: rank 0, its address and session
    spec = f"{PARENT_JOB}:1:mode=dense,block_size=32,num_slots=2,message_size=0,{pin}"
    try:
        for cmd in (
            ["ip", "netns", "add", ns],
            ["ip", "link", "set", host_if, "netns", ns],
            ["ip", "-n", ns, "link", "set", host_if, "address", PARENT_MAC],
            ["ip", "-n", ns, "addr", "add", f"{PARENT_IP}/24", "dev", host_if],
            ["ip", "-n", ns, "link", "set", host_if, "up"],
            ["ip", "-n", ns, "neigh", "add", AGG_IP, "lladdr", AGG_MAC, "dev", host_if],
            ["ip", "netns", "exec", ns, "ethtool", "-K", host_if, "tx", "off"],  # BMv2 forwards checksums as they are
        ):
            subprocess.run(cmd, check=True, capture_output=True)
        parent = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "aggregator"]
            + ["--bind", f"{PARENT_IP}:{AGG_UDP_PORT}", "--job", spec],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert parent.stdout.readline(), parent.stderr.read()  # banner: bound and serving
            streams, owners, held, sums = random_streams(np.random.default_rng(5), 1, workers, range(2), 15, 0.5)
            local = Tap([w.host_if for w in workers])
            try:
                drive_streams(local, owners, streams)
            finally:
                local.close()
        finally:
            parent.terminate()
            parent.wait(timeout=10)
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    assert_every_sum(held, sums, 2)
    c = switch.counters()
    assert c["from_parent"] == c["result_multicast"] > 0 and c["parent_dropped"] == 0


def test_a_parents_error_fails_every_local_worker_with_upstream(switch, tap):
    """The parent failed the job (here TENSOR, naming its rank 1): its ERROR answering the
    leaf's DATA reaches every worker of the leaf as ERROR UPSTREAM with the parent's code,
    with their job and session, so they fail at once; one without the leaf's session is
    dropped."""
    workers = make_workers(switch, 2)
    switch.install({"jobs": [leaf_job(workers, num_slots=4)]})
    for w in workers:
        tap.send(w.host_if, frame(w, data(w, 0, 3, NONE, np.ones(32))))
    (up,) = upstream(tap, switch)
    error = AggHeader.unpack(up)._replace(msg_type=MsgType.ERROR, block=int(ErrorCode.TENSOR), next_block=1, count=0)
    tap.send(switch.host_if(PARENT_PORT), parent_frame(error._replace(session=UP_SESSION + 1).pack()))
    wait_for_counters(switch, bad_session=1)
    tap.send(switch.host_if(PARENT_PORT), parent_frame(error.pack()))
    got = results(tap.collect(expect=2), workers)
    assert sorted(w.worker_id for w, _ in got) == [0, 1]
    for w, payload in got:
        e = AggHeader.unpack(payload)
        assert (e.msg_type, e.job_id, e.worker_id, e.session) == (MsgType.ERROR, 1, w.worker_id, SESSION)
        assert (e.block, e.next_block, len(payload)) == (ErrorCode.UPSTREAM, ErrorCode.TENSOR, 36)
        failed = JobFailed(1, w.worker_id, e.block, e.next_block)  # what the worker raises
        assert "the parent aggregator failed the job" in str(failed)
