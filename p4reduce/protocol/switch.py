# SPDX-License-Identifier: Apache-2.0
"""Constants of the switch programs (docs/protocol.md section 8).

They are described in p4reduce/protocol/wire.toml with the wire's; tools/wire.py writes them
here (through `_wire_gen`) and into the P4 programs (p4src/headers.p4, p4src/tna/types.p4), so
the two cannot drift apart (tests/test_wire_generated.py; tests/test_switch_constants.py and
tests/test_tna_program.py compare them too).

* SWITCH_SLOTS: the v1model program's NUM_SLOTS; its registers hold 2 x SWITCH_SLOTS cells (one
  per shadow copy). SWITCH_VALUES_PER_PACKET (VALUES_PER_PACKET): the only non-zero `count` the
  switch accepts. SWITCH_MAX_WORKERS (MAX_WORKERS): one bit per worker in the seen bitmap.
* TNA_SLOTS, TNA_VALUES_PER_PACKET: the TNA (Tofino 1) program's 8192 slots (per-round registers
  hold both shadow copies, cell shadow * TNA_SLOTS + slot) and 64 values per packet. Its events
  and job_events cells are the v1model program's.
* v1model ports are 9 bits: BMv2 uses 511 as the drop port, 510 is the controller's
  (SWITCH_CPU_PORT, the program's CPU_PORT); SWITCH_MAX_PORT is the largest a worker may have.
* EVENT_NAMES: the cells of the counter P4ReduceIngress.events, in order (EV_* in the programs),
  NUM_EVENTS of them; LEAF_EVENT_NAMES: the leaf role's (p4src/uplink.p4, p4src/tna/uplink.p4).
* JOB_EVENT_NAMES: the cells of the counter P4ReduceIngress.job_events per job, in order
  (JOB_EV_*); a job's cells start at slot_base * NUM_JOB_EVENTS. The software aggregators count
  the same four per job (AggregatorEngine.job_counters).
"""

from __future__ import annotations

from p4reduce.protocol._wire_gen import (
    EVENT_NAMES,
    JOB_EVENT_NAMES,
    LEAF_EVENT_NAMES,
    NUM_EVENTS,
    NUM_JOB_EVENTS,
    SWITCH_CPU_PORT,
    SWITCH_MAX_PORT,
    SWITCH_SLOTS,
    SWITCH_VALUES_PER_PACKET,
    TNA_MAX_BLOCKS,
    TNA_SLOTS,
    TNA_VALUES_PER_PACKET,
)
from p4reduce.protocol.codec import MAX_WORKERS

SWITCH_MAX_WORKERS = MAX_WORKERS

__all__ = [
    "EVENT_NAMES",
    "JOB_EVENT_NAMES",
    "LEAF_EVENT_NAMES",
    "NUM_EVENTS",
    "NUM_JOB_EVENTS",
    "SWITCH_CPU_PORT",
    "SWITCH_MAX_PORT",
    "SWITCH_MAX_WORKERS",
    "SWITCH_SLOTS",
    "SWITCH_VALUES_PER_PACKET",
    "TNA_MAX_BLOCKS",
    "TNA_SLOTS",
    "TNA_VALUES_PER_PACKET",
]
