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
