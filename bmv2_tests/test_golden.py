# SPDX-License-Identifier: Apache-2.0
"""The switch reproduces docs/golden_packets.json byte for byte (the dense-mode
steps meant for a switch: JOINs, one stream that opens with a REPEAT, a MISMATCH
round; a reduce-scatter whose opening round's smallest block goes to its owner)."""

from __future__ import annotations

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import frame, job_dict, results


def test_golden_packets(switch, tap, golden):
    job = golden["job"]
    workers = make_workers(switch, job["num_workers"])
    # The switch takes the job's session from the controller: install the golden one.
    switch.install(
        {
            "jobs": [
                job_dict(
                    job["job_id"],
                    workers,
                    slot_base=job["slot_base"],
                    num_slots=job["num_slots"],
                    session=job["session"],
                )
            ]
        }
    )
    steps = [s for s in golden["steps"] if "dense" in s["modes"] and "switch" in s.get("targets", ["switch"])]
    assert len(steps) == 16 and len(golden["steps"]) - len(steps) == 3  # 2 sparse JOINs, 1 ERROR
    for step in steps:
        w = workers[step["from_worker"]]
        tap.send(w.host_if, frame(w, bytes.fromhex(step["payload"])))
        # Wait for the expected copies; when none are expected, long enough to
        # see a wrong one (the next step's collection would also catch it).
        got = results(tap.collect(timeout=10.0 if step["expect"] else 0.3, expect=len(step["expect"]) or None), workers)
        assert sorted((w.worker_id, p.hex()) for w, p in got) == sorted(
            (e["to_worker"], e["payload"]) for e in step["expect"]
        ), step["note"]
    assert results(tap.collect(timeout=0.3), workers) == []
    c = switch.counters()
    joins = [s for s in steps if s["payload"][2:4] == "06"]
    rounds = [s for s in steps if len(s["expect"]) == job["num_workers"]]
    assert c["joined"] == len(joins) == 2
    # Allreduce 0: the REPEAT and four data rounds; allreduce 1: its opening round, MISMATCH.
    assert c["result_multicast"] == len(rounds) == 6
    assert c["result_unicast"] == 1 and c["retransmit_dropped"] == 1
    assert c["data_counted"] == len(steps) - len(joins) - 2 == 12
    assert c["malformed"] == c["unknown_worker"] == c["identity_mismatch"] == c["bad_slot"] == 0
    assert c["bad_session"] == c["stale"] == c["forwarded"] == 0


def test_golden_scatter_packets(switch, tap, golden):
    """The reduce-scatter steps (docs/protocol.md 3.1): each round's values reach the
    block's owner only, the other copy leaves header-only (egress cuts the values); an
    opening round's RESULT names the owner of its smallest block."""
    job = golden["job"]
    workers = make_workers(switch, job["num_workers"])
    switch.install(
        {
            "jobs": [
                job_dict(
                    job["job_id"],
                    workers,
                    slot_base=job["slot_base"],
                    num_slots=job["num_slots"],
                    session=job["session"],
                )
            ]
        }
    )
    steps = [s for s in golden["scatter"]["steps"] if "dense" in s["modes"]]
    assert len(steps) == len(golden["scatter"]["steps"]) == 11
    for step in steps:
        w = workers[step["from_worker"]]
        tap.send(w.host_if, frame(w, bytes.fromhex(step["payload"])))
        got = results(tap.collect(timeout=10.0 if step["expect"] else 0.3, expect=len(step["expect"]) or None), workers)
        assert sorted((w.worker_id, p.hex()) for w, p in got) == sorted(
            (e["to_worker"], e["payload"]) for e in step["expect"]
        ), step["note"]
    assert results(tap.collect(timeout=0.3), workers) == []
    c = switch.counters()
    # 11 DATA: one retransmission (re-sent), 10 counted, 5 of them completing a round.
    assert (c["result_multicast"], c["result_unicast"], c["data_counted"]) == (5, 1, 10)


def test_golden_hierarchy_packets(switch, tap, golden):
    """The leaf role (docs/protocol.md, Hierarchical aggregation): one DATA of the parent job
    per local round, byte for byte, and the parent's RESULT back to the workers."""
    from bmv2_tests.test_leaf import PARENT_IP, PARENT_MAC, PARENT_PORT, parent_frame, to_parent

    job, tree = golden["job"], golden["hierarchy"]
    workers = make_workers(switch, job["num_workers"])
    leaf = job_dict(
        job["job_id"], workers, slot_base=job["slot_base"], num_slots=job["num_slots"], session=job["session"]
    )
    leaf["uplink"] = {
        "parent_job": tree["up_job"],
        "rank": tree["up_rank"],
        "session": tree["up_session"],
        "port": PARENT_PORT,
        "mac": PARENT_MAC,
        "ip": PARENT_IP,
    }
    switch.install({"jobs": [leaf]})
    for step in tree["steps"]:
        payload = bytes.fromhex(step["payload"])
        if step.get("from_parent"):
            tap.send(switch.host_if(PARENT_PORT), parent_frame(payload))
        else:
            w = workers[step["from_worker"]]
            tap.send(w.host_if, frame(w, payload))
        expected = sorted(
            ("parent" if e.get("to_parent") else e["to_worker"], e["payload"]) for e in step["expect"]
        )  # fmt: skip
        got = tap.collect(timeout=10.0 if expected else 0.3, expect=len(expected) or None)
        local = [(iface, raw) for iface, raw in got if iface != switch.host_if(PARENT_PORT)]
        to_workers = [(w.worker_id, p.hex()) for w, p in results(local, workers)]
        up = [("parent", p.hex()) for p in to_parent(got, switch)]
        assert sorted(to_workers + up, key=str) == sorted(expected, key=str), step["note"]
