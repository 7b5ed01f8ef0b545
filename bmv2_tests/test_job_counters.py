# SPDX-License-Identifier: Apache-2.0
"""Per-job counters on simple_switch_grpc (docs/protocol.md section 8, counter
P4ReduceIngress.job_events): each job's packets, drops, retransmissions and rounds,
at its slot_base, apart from every other job's; zeroed for the next job."""

from __future__ import annotations

import numpy as np

from bmv2_tests.conftest import make_workers
from bmv2_tests.harness import SESSION, data, frame, job_dict, opening, results, wait_for_counters
from p4reduce.protocol import NONE

ZERO = {"packets": 0, "drops": 0, "retransmissions": 0, "rounds": 0}


def test_each_job_counts_its_own_packets(switch, tap):
    a = make_workers(switch, 2)  # job 1: ports 1-2, slots 0..3
    b = make_workers(switch, 2, first_port=3)  # job 2: ports 3-4, slots 4..7
    switch.install({"jobs": [job_dict(1, a, slot_base=0, num_slots=4), job_dict(2, b, slot_base=4, num_slots=4)]})
    assert switch.client.read_job_counters([0, 4]) == {0: ZERO, 4: ZERO}
    v = np.arange(32)

    # Job 1: an opening round; worker 0 re-sends its opening DATA (answered by unicast).
    for w in a:
        tap.send(w.host_if, frame(w, opening(w, 0, 1, 3, v)))
    assert len(results(tap.collect(expect=2, timeout=10), a)) == 2
    tap.send(a[0].host_if, frame(a[0], opening(a[0], 0, 1, 3, v)))
    assert len(results(tap.collect(expect=1, timeout=10), a)) == 1
    # A data round in which worker 0 sends twice before worker 1 (the second copy is
    # dropped: its round is open), then a packet with another session.
    tap.send(a[0].host_if, frame(a[0], data(a[0], 1, 3, NONE, v)))
    wait_for_counters(switch, data_counted=3)
    tap.send(a[0].host_if, frame(a[0], data(a[0], 1, 3, NONE, v)))
    wait_for_counters(switch, retransmit_dropped=1)
    tap.send(a[1].host_if, frame(a[1], data(a[1], 1, 3, NONE, v)))
    assert len(results(tap.collect(expect=2, timeout=10), a)) == 2
    tap.send(a[1].host_if, frame(a[1], opening(a[1], 0, NONE, NONE, session=SESSION + 1)))

    # Job 2: an empty stream's opening round, then a packet for a slot of job 1's range.
    for w in b:
        tap.send(w.host_if, frame(w, opening(w, 0, NONE, NONE, slot=4, job=2)))
    assert len(results(tap.collect(expect=2, timeout=10), b)) == 2
    tap.send(b[0].host_if, frame(b[0], opening(b[0], 0, NONE, NONE, slot=0, job=2)))
    # A stranger's packet (no worker entry) is no job's.
    stranger = make_workers(switch, 1, first_port=5)[0]
    tap.send(stranger.host_if, frame(stranger, opening(stranger, 0, NONE, NONE)))
    wait_for_counters(switch, bad_session=1, bad_slot=1, unknown_worker=1)

    assert switch.client.read_job_counters([0, 4]) == {
        0: {"packets": 7, "drops": 1, "retransmissions": 2, "rounds": 2},
        4: {"packets": 3, "drops": 1, "retransmissions": 0, "rounds": 1},
    }
    # Released: zeroed for the next job given these slots; the other job's cells stay.
    switch.client.clear_job_counters(0)
    assert switch.client.read_job_counters([4, 0]) == {
        0: ZERO,
        4: {"packets": 3, "drops": 1, "retransmissions": 0, "rounds": 1},
    }
