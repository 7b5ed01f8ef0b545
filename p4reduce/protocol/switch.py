# SPDX-License-Identifier: Apache-2.0
"""Constants of the v1model switch program (docs/protocol.md section 8).

p4src/headers.p4 defines the same numbers for the switch; tests/test_switch_constants.py
reads them from there and compares, so the two cannot drift apart.
"""

from __future__ import annotations

from p4reduce.protocol.codec import MAX_WORKERS

SWITCH_SLOTS = 1024  # NUM_SLOTS: registers hold 2 x SWITCH_SLOTS cells (one per shadow copy)
SWITCH_VALUES_PER_PACKET = 32  # VALUES_PER_PACKET: the only non-zero `count` the switch accepts
SWITCH_MAX_WORKERS = MAX_WORKERS  # MAX_WORKERS: one bit per worker in the seen bitmap
# The TNA (Tofino 1) program, p4src/tna/types.p4 (tests/test_tna_program.py compares):
# 8192 slots (per-round registers hold both shadow copies, cell shadow * TNA_SLOTS + slot)
# and 64 values per packet. Its events and job_events cells are the v1model program's.
TNA_SLOTS = 8192
TNA_VALUES_PER_PACKET = 64
# v1model ports are 9 bits: BMv2 uses 511 as the drop port, 510 is the controller's (CPU_PORT).
SWITCH_CPU_PORT = 510
SWITCH_MAX_PORT = 509

# Cells of the counter P4ReduceIngress.events, in order (EV_* in headers.p4).
EVENT_NAMES = (
    "data_counted",
    "result_multicast",
    "result_unicast",
    "retransmit_dropped",
    "unknown_worker",
    "identity_mismatch",
    "bad_slot",
    "malformed",
    "forwarded",
    "joined",
    "bad_session",
    "stale",
    "upstream",
    "from_parent",
    "parent_dropped",
)
NUM_EVENTS = 16  # cells of the events counter
# The leaf role's cells (p4src/uplink.p4, p4src/tna/uplink.p4), the last three.
LEAF_EVENT_NAMES = ("upstream", "from_parent", "parent_dropped")

# Cells of the counter P4ReduceIngress.job_events per job, in order (JOB_EV_* in
# headers.p4); a job's cells start at slot_base * NUM_JOB_EVENTS. The software
# aggregators count the same four per job (AggregatorEngine.job_counters).
JOB_EVENT_NAMES = ("packets", "drops", "retransmissions", "rounds")
NUM_JOB_EVENTS = 4
