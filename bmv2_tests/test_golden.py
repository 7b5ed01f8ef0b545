"""The switch reproduces docs/golden_packets.json byte for byte (dense-mode steps)."""
from __future__ import annotations

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import frame, job_dict, results


def test_golden_packets(switch, tap, golden):
    job = golden["job"]
    workers = make_workers(switch, job["num_workers"])
    switch.install({"jobs": [job_dict(job["job_id"], workers, slot_base=job["slot_base"],
                                      num_slots=job["num_slots"])]})
    steps = [s for s in golden["steps"] if "dense" in s["modes"]]
    assert len(steps) >= 10
    for step in steps:
        w = workers[step["from_worker"]]
        tap.send(w.host_if, frame(w, bytes.fromhex(step["payload"])))
        # Wait for the expected copies; when none are expected, long enough to
        # see a wrong one (the next step's collection would also catch it).
        got = results(tap.collect(timeout=2.0 if step["expect"] else 0.3,
                                  expect=len(step["expect"]) or None), workers)
        assert sorted((w.worker_id, p.hex()) for w, p in got) == \
            sorted((e["to_worker"], e["payload"]) for e in step["expect"]), step["note"]
    assert results(tap.collect(timeout=0.3), workers) == []
    c = switch.counters()
    rounds = sum(1 for s in steps if len(s["expect"]) == job["num_workers"])
    assert c["result_multicast"] == rounds == 5
    assert c["result_unicast"] == 1 and c["retransmit_dropped"] == 1
    assert c["data_counted"] == len(steps) - 2
    assert c["malformed"] == c["unknown_worker"] == c["identity_mismatch"] == c["bad_slot"] == 0
