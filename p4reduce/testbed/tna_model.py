# SPDX-License-Identifier: Apache-2.0
"""An executable model of the TNA (Tofino 1) switch program (p4src/tna/p4reduce_tna.p4).

`TnaSwitchModel.process(port, frame)` is what ONE packet does to the switch: which frames
leave on which ports and how the tables' state, the registers and the counters change.
Nothing else has ever executed this P4 program (it is compiled, not run: p4src/tna/README.md),
so this is the reference that tests hold it to: the spec (docs/protocol.md), the v1model
program's model (`p4reduce.testbed.switch_model`) and the controller's BF Runtime entries
(`install_bfrt` loads exactly what `p4reduce.controller.bfrt.tna` writes).

The model follows the P4 SOURCE, not the spec, statement by statement at the level of
observable effects: one method per P4 control (named after its instance in `Ingress`), in
the order `Ingress.apply` applies them, every field at its P4 width. The constant tables
(`format`, `round_kind`, `scatter`, `admit`, `check`, `sent`, `countdown`, `verdict`,
`candidate`, `first`, `flags`, `value_op`, the pairs, `next_min`, `decode_next`,
`outcome`, `harvest_exit`, `result`, `bridge`, `zero_values`) are `CONST_TABLES`, their
`const entries` transcribed in order (first match wins, as the priorities the compiler
gives them in source order); the tables the control plane writes are `TABLES`, with the
names, key fields, actions and widths of the compiler's bfrt.json. Registers are named as
BF Runtime names their data fields (`Ingress.countdown.remaining.f1`,
`Ingress.values.value_07.sums.first`), one list of cells per field; counters by their
table names (`pipe.Ingress.events`, `pipe.Ingress.job_events`).

What it models of TNA and Tofino 1:

* both gresses as separate programs: the ingress deparser's bytes (bridged header first)
  are what the traffic manager replicates and what the egress parser parses again, so
  nothing crosses from ingress to egress but the bridged header and the intrinsic
  metadata (egress port, replication id);
* the harvest pass: a packet the traffic manager sends to its pipe's recirculation port
  (port 68 of the pipe, `ig_tm_md.bypass_egress` set) enters ingress again there, its
  ingress parser takes the `parse_harvest` path, and only what that second pass sends
  leaves (`last_passes` keeps every pass's input of the last `process` call);
* the ingress parser's selects; a header that does not fit in what is left of the frame
  stays invalid, sets `ig_prsr_md.parser_err` (PARSER_ERROR_PARTIAL_HDR) and ends the
  parse, and ingress runs anyway (the program reads `parser_err`, in `format`); the
  IPv4 checksum's `verify()` as Tofino's checksum unit does it (the ones'-complement sum of
  the header is 0xFFFF); the egress parser, which parses answers up to the aggregation
  header only (their values stay payload, as on the switch);
* the traffic manager: `drop_ctl` bit 0 drops; a unicast copy to `ucast_egress_port` if
  ingress wrote it, and one copy per (port, rid) of `mcast_grp_a`'s group if not 0 (both if
  both were written); a packet with neither is dropped. Groups are BF Runtime's `$pre.node`
  (rid, ports) and `$pre.mgid` (nodes), copies in node order, then port order; no pruning
  (the program sets no exclusion ids);
* every register (each field of each cell at its width: 16384 cells, the seen bitmap
  8192), both counters (packets; one cell per packet and pass, as a Tofino counter counts),
  and each RegisterAction as the stateful ALU runs it (read, then write, one cell per pass).

It does not model: timing, queues, rates, lost frames; the order of copies the hardware
emits (the model's is the group's); concurrency between packets (one packet, with its
harvest pass, at a time, in the order given; on the switch another packet of the same
cell could come between the two passes, which the README argues cannot change the cell);
PHV allocation and what an uninitialized metadata field holds (a fresh one is 0 here; the
program reads none whose value matters, and `ig_md.awaiting`, `first_code` and
`position`, which some tables key on, are written before every entry that does not
wildcard them); the Ethernet FCS and the minimum frame size (frames are given and
returned without FCS or padding); port metadata, the CPU port, mirroring, resubmission,
learning; packet lengths (`eg_intr_md.pkt_length` is not read); multi-pipe state (one
pipe's registers: the program needs every worker of a job in one pipe); Tofino 2.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p4reduce.protocol.codec import AGG_UDP_PORT, NONE, POISON, PROTOCOL_VERSION, Flags, Mode, MsgType
from p4reduce.protocol.switch import (
    EVENT_NAMES,
    JOB_EVENT_NAMES,
    NUM_EVENTS,
    NUM_JOB_EVENTS,
    SWITCH_MAX_WORKERS,
    TNA_MAX_BLOCKS,
    TNA_SLOTS,
    TNA_VALUES_PER_PACKET,
)
from p4reduce.testbed.model_common import (
    AGG_HDR_LEN,
    ETHERTYPE_IPV4,
    IPPROTO_UDP,
    IPV4_HDR_LEN,
    UDP_HDR_LEN,
    ActionCall,
    Agg,
    Ethernet,
    IPv4,
    Udp,
    ipv4_checksum_verifies,
    mask,
    resolve_name,
)

if TYPE_CHECKING:
    from p4reduce.controller.bfrt.client import Labeled
    from p4reduce.controller.bfrt.schema import Schema

# -- constants of p4src/tna/types.p4 (the protocol package holds the wire's) -----------------

MSG_DATA, MSG_RESULT, MSG_JOIN = int(MsgType.DATA), int(MsgType.RESULT), int(MsgType.JOIN)
MSG_JOINED, MSG_ERROR = int(MsgType.JOINED), int(MsgType.ERROR)
ERROR_UPSTREAM = 8
FLAG_OPENING = int(Flags.OPENING)
FLAG_MISMATCH = int(Flags.MISMATCH)
FLAG_SCATTER = int(Flags.SCATTER)
SCATTER_MASK = 0xFC
OPENING_MASK = 0x05
OWNER_SHIFT = 3
MODE_DENSE = Mode.DENSE.code
BLOCK_NONE = NONE
VALUES = TNA_VALUES_PER_PACKET  # B = 64
VALUE_PAIRS = VALUES // 2
NUM_SLOTS = TNA_SLOTS
SLOT_BITS = 13
REGISTER_SIZE = 2 * NUM_SLOTS
MAX_WORKERS = SWITCH_MAX_WORKERS
MAX_BLOCKS = TNA_MAX_BLOCKS
KEY_BLOCK_MASK = 0xFFFFFF00
KEY_ONE_BLOCK = 0x100
CODE_SAME_KEY = 0x100
AGG_VALUES_LEN = 4 * VALUES
RECIRC_PORT_IN_PIPE = 68
PORT_BITS = 9
PARSER_ERROR_PARTIAL_HDR = 0x0002  # tna.p4: a header past the end of the packet

# bridged_kind_t
FORWARD, ANSWER, HARVEST, UPSTREAM = 1, 2, 3, 4
# position_t
ROUND_FIRST, ROUND_LATER, ROUND_RETRANSMISSION = 1, 2, 3
# value_op_t
VALUE_NONE, VALUE_WRITE, VALUE_ADD, VALUE_READ, VALUE_HARVEST = range(5)
# The leaf role's awaiting states
AWAIT_ANSWERED, AWAIT_MISMATCH, AWAIT_DATA, AWAIT_OPENING = range(4)
# agreement.p4's verdicts
VERDICT_STALE, VERDICT_AGREE, VERDICT_MISMATCH = range(3)

# Cells of Ingress.events (EV_*) and of a job's four in Ingress.job_events (JOB_EV_*).
EV = {name: code for code, name in enumerate(EVENT_NAMES)}
EV_DATA_COUNTED, EV_RESULT_MULTICAST = EV["data_counted"], EV["result_multicast"]
EV_RESULT_UNICAST = EV["result_unicast"]
EV_RETRANSMIT_DROPPED, EV_UNKNOWN_WORKER = EV["retransmit_dropped"], EV["unknown_worker"]
EV_IDENTITY_MISMATCH, EV_BAD_SLOT, EV_MALFORMED = EV["identity_mismatch"], EV["bad_slot"], EV["malformed"]
EV_FORWARDED, EV_JOINED, EV_BAD_SESSION, EV_STALE = EV["forwarded"], EV["joined"], EV["bad_session"], EV["stale"]
EV_UPSTREAM, EV_FROM_PARENT, EV_PARENT_DROPPED = EV["upstream"], EV["from_parent"], EV["parent_dropped"]
JOB_EV = {name: cell for cell, name in enumerate(JOB_EVENT_NAMES)}
JOB_EV_PACKETS, JOB_EV_DROPS, JOB_EV_RETRANSMISSIONS, JOB_EV_ROUNDS = range(NUM_JOB_EVENTS)
JOB_EVENTS_SIZE = NUM_SLOTS * NUM_JOB_EVENTS
EVENTS_SIZE = NUM_EVENTS

# -- the control-plane contract: BF Runtime names ---------------------------------------------

WORKERS = "pipe.Ingress.admission.workers"
PARENTS = "pipe.Ingress.admission.parents"
UPLINKS = "pipe.Ingress.uplink.uplinks"
L2 = "pipe.Ingress.forwarding.l2"
RESULT_DEST = "pipe.Egress.result_dest"
SET_WORKER = "Ingress.admission.set_worker"
FROM_PARENT = "Ingress.admission.from_parent"
TO_PARENT = "Ingress.uplink.to_parent"
TO_PORT = "Ingress.forwarding.to_port"
FLOOD = "Ingress.forwarding.flood"
L2_DROP = "Ingress.forwarding.drop"
SET_RESULT_DEST = "Egress.set_result_dest"
EGRESS_DROP = "Egress.drop"
NO_ACTION = "NoAction"
EVENTS = "pipe.Ingress.events"
JOB_EVENTS = "pipe.Ingress.job_events"
PRE_NODE = "$pre.node"
PRE_MGID = "$pre.mgid"


@dataclass(frozen=True)
class TableSchema:
    """A table the control plane writes: exact keys (bfrt.json name, bits), its actions'
    parameters (name, bits) and its (const) default action."""

    name: str
    keys: tuple[tuple[str, int], ...]
    actions: Mapping[str, tuple[tuple[str, int], ...]]
    default_action: str


_SENDER_KEYS = (
    ("ig_intr_md.ingress_port", PORT_BITS),
    ("hdr.ethernet.src_addr", 48),
    ("hdr.ipv4.src_addr", 32),
    ("hdr.udp.src_port", 16),
)
TABLES: dict[str, TableSchema] = {
    t.name: t
    for t in (
        TableSchema(
            WORKERS,
            _SENDER_KEYS,
            {
                SET_WORKER: (
                    ("job_id", 16),
                    ("worker_id", 8),
                    ("worker_bit", 32),
                    ("num_workers", 8),
                    ("mgid", 16),
                    ("slot_base", 16),
                    ("slot_end", 16),
                    ("num_slots", 32),
                    ("session", 32),
                ),
                NO_ACTION: (),
            },
            NO_ACTION,
        ),
        TableSchema(
            PARENTS,
            (*_SENDER_KEYS, ("hdr.agg.job_id", 16), ("hdr.agg.worker_id", 8)),
            {
                FROM_PARENT: (
                    ("job_id", 16),
                    ("mgid", 16),
                    ("slot_base", 16),
                    ("slot_end", 16),
                    ("session", 32),
                    ("up_session", 32),
                ),
                NO_ACTION: (),
            },
            NO_ACTION,
        ),
        TableSchema(
            UPLINKS,
            (("hdr.agg.job_id", 16),),
            {
                TO_PARENT: (
                    ("up_job", 16),
                    ("up_rank", 8),
                    ("up_session", 32),
                    ("port", PORT_BITS),
                    ("mac", 48),
                    ("ip", 32),
                    ("udp_port", 16),
                ),
                NO_ACTION: (),
            },
            NO_ACTION,
        ),
        TableSchema(
            L2,
            (("hdr.ethernet.dst_addr", 48),),
            {TO_PORT: (("port", PORT_BITS),), FLOOD: (("mgid", 16),), L2_DROP: ()},
            L2_DROP,
        ),
        TableSchema(
            RESULT_DEST,
            (("hdr.agg.job_id", 16), ("eg_md.dest_worker", 8)),
            {SET_RESULT_DEST: (("mac", 48), ("ip", 32), ("udp_port", 16)), EGRESS_DROP: ()},
            EGRESS_DROP,
        ),
    )
}
# Actions a control plane may not put in an entry (@defaultonly).
DEFAULT_ONLY = frozenset({NO_ACTION, L2_DROP, EGRESS_DROP})


@dataclass(frozen=True)
class RegisterSchema:
    """A register: cells, and its data fields (BF Runtime names) with their widths."""

    name: str
    size: int
    fields: tuple[tuple[str, int], ...]


def _register(name: str, size: int, *fields: tuple[str, int]) -> RegisterSchema:
    short = name.removeprefix("pipe.")
    return RegisterSchema(name, size, tuple((f"{short}.{f}", bits) for f, bits in fields))


SEEN = "pipe.Ingress.seen_bitmap.seen"
REMAINING = "pipe.Ingress.countdown.remaining"
ROUNDS = "pipe.Ingress.agreement.rounds"
FIRST_BLOCK = "pipe.Ingress.opening_compare.first_block"
FIRST_KEY = "pipe.Ingress.opening_compare.first_key"
FIRST_FLAGS = "pipe.Ingress.opening_flags.first_flags"
MIN_KEY = "pipe.Ingress.lookahead.min_key"
SENT_BLOCK = "pipe.Ingress.uplink_sent.sent_block"
AWAITING = "pipe.Ingress.uplink_wait.awaiting"
VALUE_SUMS = tuple(f"pipe.Ingress.values.value_{i:02d}.sums" for i in range(VALUE_PAIRS))
REGISTERS: dict[str, RegisterSchema] = {
    r.name: r
    for r in (
        _register(SEEN, NUM_SLOTS, ("set0", 32), ("set1", 32)),
        _register(REMAINING, REGISTER_SIZE, ("f1", 8)),
        _register(ROUNDS, REGISTER_SIZE, ("fingerprint", 32), ("verdict", 32)),
        _register(FIRST_BLOCK, REGISTER_SIZE, ("candidate", 32), ("block", 32)),
        _register(FIRST_KEY, REGISTER_SIZE, ("key", 32), ("code", 32)),
        _register(FIRST_FLAGS, REGISTER_SIZE, ("block", 32), ("flags", 32)),
        _register(MIN_KEY, REGISTER_SIZE, ("f1", 32)),
        _register(SENT_BLOCK, REGISTER_SIZE, ("f1", 32)),
        _register(AWAITING, REGISTER_SIZE, ("state", 32), ("fingerprint", 32)),
        *(_register(name, REGISTER_SIZE, ("first", 32), ("second", 32)) for name in VALUE_SUMS),
    )
}
# Register fields, as BF Runtime names them.
SEEN_SET = ("Ingress.seen_bitmap.seen.set0", "Ingress.seen_bitmap.seen.set1")
REMAINING_F = "Ingress.countdown.remaining.f1"
ROUND_FINGERPRINT, ROUND_VERDICT = "Ingress.agreement.rounds.fingerprint", "Ingress.agreement.rounds.verdict"
FB_CANDIDATE = "Ingress.opening_compare.first_block.candidate"
FB_BLOCK = "Ingress.opening_compare.first_block.block"
FK_KEY, FK_CODE = "Ingress.opening_compare.first_key.key", "Ingress.opening_compare.first_key.code"
FF_BLOCK, FF_FLAGS = "Ingress.opening_flags.first_flags.block", "Ingress.opening_flags.first_flags.flags"
MIN_KEY_F = "Ingress.lookahead.min_key.f1"
SENT_BLOCK_F = "Ingress.uplink_sent.sent_block.f1"
AWAIT_STATE = "Ingress.uplink_wait.awaiting.state"
AWAIT_FINGERPRINT = "Ingress.uplink_wait.awaiting.fingerprint"
SUMS_FIRST = tuple(f"Ingress.values.value_{i:02d}.sums.first" for i in range(VALUE_PAIRS))
SUMS_SECOND = tuple(f"Ingress.values.value_{i:02d}.sums.second" for i in range(VALUE_PAIRS))
REGISTER_FIELDS: dict[str, int] = {f: bits for r in REGISTERS.values() for f, bits in r.fields}
COUNTERS = {EVENTS: EVENTS_SIZE, JOB_EVENTS: JOB_EVENTS_SIZE}

# -- the constant tables --------------------------------------------------------------------------

Ternary = tuple[int, int]  # (value, mask): a key field matches when key & mask == value & mask
ANY: Ternary = (0, 0)
Entry = tuple[tuple[Ternary, ...], str, tuple[int, ...]]
KeyValue = int | Ternary | None  # how the source writes a key: V, V &&& M, or _


@dataclass(frozen=True)
class ConstTable:
    """A table whose entries are `const` in the source: its key fields (bfrt.json's names),
    the entries in source order (first match wins) and the const default action."""

    name: str
    keys: tuple[str, ...]
    entries: tuple[Entry, ...]
    default: tuple[str, tuple[int, ...]] = (NO_ACTION, ())

    def lookup(self, *key: int) -> tuple[str, tuple[int, ...]]:
        for match, action, args in self.entries:
            if all(k & m == v & m for k, (v, m) in zip(key, match, strict=True)):
                return action, args
        return self.default


def _key(value: KeyValue) -> Ternary:
    if value is None:
        return ANY
    if isinstance(value, tuple):
        return value
    return (value, -1)


def _entry(keys: Sequence[KeyValue], action: str, *args: int) -> Entry:
    return tuple(_key(k) for k in keys), action, args


def _const_tables() -> dict[str, ConstTable]:
    """Every `const entries` of p4src/tna, written as the source writes them (`_` is a
    wildcard, `(v, m)` is `v &&& m`)."""
    _ = None
    identity_ok: tuple[KeyValue, ...] = (0, 0, (0, ~(MAX_WORKERS - 1) & 0xFF))  # seen_bitmap.p4's IDENTITY_OK
    slot_ok: tuple[KeyValue, ...] = (0, (0, ~(NUM_SLOTS - 1) & 0xFFFF))  # SLOT_OK
    blocks_ok = (0, ~MAX_BLOCKS & 0xFFFFFFFF)  # 0 &&& ~MAX_BLOCKS
    full_len = (UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN, IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN)
    header_len = (UDP_HDR_LEN + AGG_HDR_LEN, IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN)
    none_block = (KEY_BLOCK_MASK, KEY_BLOCK_MASK)
    no_mismatch, mismatch = (0, FLAG_MISMATCH), (FLAG_MISMATCH, FLAG_MISMATCH)
    await_taken = (AWAIT_DATA, AWAIT_DATA)
    owners = range(MAX_WORKERS)

    def owner_bits(owner: int) -> int:
        return FLAG_SCATTER | owner << OWNER_SHIFT

    def value_op_keys(candidate: str, count: str) -> tuple[str, ...]:
        return (
            "ig_md.harvest",
            "ig_md.accepted",
            "ig_md.position",
            "ig_md.opening",
            candidate,
            "ig_md.first_code",
            "ig_md.from_parent",
            "ig_md.awaiting",
            count,
        )

    def value_op_entries(
        harvest: tuple[str, *tuple[int, ...]],
        write: tuple[str, *tuple[int, ...]],
        add: tuple[str, *tuple[int, ...]],
        read: tuple[str, *tuple[int, ...]],
    ) -> tuple[Entry, ...]:
        """values.p4's VALUE_OP_ENTRIES(HARVEST, WRITE, ADD, READ)."""
        rows: tuple[tuple[tuple[KeyValue, ...], tuple[str, *tuple[int, ...]]], ...] = (
            ((1, _, _, _, _, _, _, _, _), harvest),
            ((0, 1, ROUND_FIRST, _, _, _, _, _, _), write),
            ((0, 1, ROUND_LATER, 0, _, _, _, _, _), add),
            ((0, 1, ROUND_LATER, 1, 0, _, _, _, _), write),  # case 1
            ((0, 1, ROUND_LATER, 1, _, 0, _, _, _), read),  # cases 4, 5
            ((0, 1, ROUND_LATER, 1, _, CODE_SAME_KEY, _, _, _), add),  # case 3
            ((0, 1, ROUND_LATER, 1, _, _, _, _, _), write),  # case 2
            ((0, 1, ROUND_RETRANSMISSION, _, _, _, _, _, _), read),
            ((0, 0, _, _, _, _, 1, await_taken, VALUES), write),  # the parent's answer
        )
        return tuple(_entry(keys, call[0], *call[1:]) for keys, call in rows)

    tables = [
        # parser.p4 / p4reduce_tna.p4 --------------------------------------------------------
        ConstTable(
            "pipe.Ingress.bridge",
            ("hdr.agg.$valid", "hdr.agg.msg_type"),
            (_entry((1, MSG_JOIN), "start_answer"),),
            ("start_bridged", (FORWARD, 0)),
        ),
        # admission.p4 --------------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.admission.format",
            (
                "hdr.agg.version",
                "hdr.agg.msg_type",
                "hdr.agg.count",
                "hdr.vals_a.$valid",
                "hdr.vals_b.$valid",
                "hdr.udp.length",
                "hdr.ipv4.total_len",
                "hdr.agg.block",
                "hdr.agg.blocks",
                "ig_md.checksum_ok",
                "ig_prsr_md.parser_err",
            ),
            (
                _entry((_, _, _, 1, 1, _, _, BLOCK_NONE, _, _, _), "set_malformed", 1),
                _entry((PROTOCOL_VERSION, MSG_DATA, VALUES, 1, 1, *full_len, _, blocks_ok, 1, 0), "set_malformed", 0),
                _entry((PROTOCOL_VERSION, MSG_DATA, 0, _, _, *header_len, _, blocks_ok, 1, 0), "set_malformed", 0),
                _entry((PROTOCOL_VERSION, MSG_JOIN, 0, _, _, *header_len, _, _, 1, 0), "set_malformed", 0),
                _entry((PROTOCOL_VERSION, MSG_RESULT, VALUES, 1, 1, *full_len, _, blocks_ok, 1, 0), "set_malformed", 0),
                _entry((PROTOCOL_VERSION, MSG_RESULT, 0, _, _, *header_len, _, blocks_ok, 1, 0), "set_malformed", 0),
                _entry((PROTOCOL_VERSION, MSG_ERROR, 0, _, _, *header_len, _, _, 1, 0), "set_malformed", 0),
            ),
            ("set_malformed", (1,)),
        ),
        ConstTable(
            "pipe.Ingress.admission.round_kind",
            ("hdr.agg.block", "hdr.agg.next_block"),
            (
                _entry((BLOCK_NONE, BLOCK_NONE), "set_round_kind", 0, 0),
                _entry((BLOCK_NONE, _), "set_round_kind", 0, 1),
                _entry((_, BLOCK_NONE), "set_round_kind", 1, 0),
            ),
            ("set_round_kind", (1, 1)),
        ),
        # agreement.p4's AgreementKey ----------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.agreement_key.scatter",
            ("hdr.agg.flags", "hdr.agg.count", "hdr.agg.msg_type"),
            (
                *(  # PARENT_REPEAT_ENTRY
                    _entry(((owner_bits(o), SCATTER_MASK), 0, MSG_RESULT), "scatter_bits", owner_bits(o) | 1, 0)
                    for o in owners
                ),
                _entry(((0, FLAG_SCATTER), 0, MSG_RESULT), "scatter_bits", 1, 0),
                *(  # OPENING_SCATTER_ENTRY: header-only (bit 0 set), then any count
                    e
                    for o in owners
                    for e in (
                        _entry(
                            ((FLAG_OPENING | owner_bits(o), SCATTER_MASK | FLAG_OPENING), 0, _),
                            "scatter_bits",
                            owner_bits(o) | 1,
                            OPENING_MASK,
                        ),
                        _entry(
                            ((FLAG_OPENING | owner_bits(o), SCATTER_MASK | FLAG_OPENING), _, _),
                            "scatter_bits",
                            owner_bits(o),
                            OPENING_MASK,
                        ),
                    )
                ),
                _entry(((FLAG_OPENING, FLAG_OPENING | FLAG_SCATTER), 0, _), "scatter_bits", 1, FLAG_OPENING),
                _entry(((FLAG_OPENING, FLAG_OPENING | FLAG_SCATTER), _, _), "scatter_bits", 0, FLAG_OPENING),
                *(  # SCATTER_ENTRY
                    _entry(((owner_bits(o), SCATTER_MASK), _, _), "scatter_bits", owner_bits(o), owner_bits(o))
                    for o in owners
                ),
            ),
            ("no_scatter", ()),
        ),
        # seen_bitmap.p4: admission's decision ----------------------------------------------------------
        ConstTable(
            "pipe.Ingress.seen_bitmap.admit",
            (
                "ig_md.admitted",
                "ig_md.malformed",
                "ig_md.from_parent",
                "ig_md.job_diff",
                "ig_md.worker_diff",
                "hdr.agg.worker_id",
                "ig_md.rank_room",
                "hdr.agg.msg_type",
                "ig_md.session_diff",
                "ig_md.below_base",
                "ig_md.slot",
                "ig_md.end_room",
                "ig_md.holds_block",
                "ig_md.block_room",
                "ig_md.next_announced",
                "ig_md.next_room",
                "ig_md.shadow",
            ),
            (
                _entry((0, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _), "reject", EV_UNKNOWN_WORKER),
                _entry((1, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _), "reject", EV_MALFORMED),
                _entry((1, 0, 1, _, _, _, _, _, 0, *slot_ok, 0, _, _, _, _, _), "reject", EV_BAD_SLOT),
                _entry((1, 0, 1, _, _, _, _, MSG_ERROR, 0, *slot_ok, _, _, _, _, _, _), "parent_error"),
                _entry((1, 0, 1, _, _, _, _, _, 0, *slot_ok, _, 1, 0, _, _, _), "reject", EV_MALFORMED),
                _entry((1, 0, 1, _, _, _, _, _, 0, *slot_ok, _, _, _, 1, 0, _), "reject", EV_MALFORMED),
                _entry((1, 0, 1, _, _, _, _, _, 0, *slot_ok, _, _, _, _, _, _), "take_parent"),
                _entry((1, 0, 1, _, _, _, _, _, 0, _, _, _, _, _, _, _, _), "reject", EV_BAD_SLOT),
                _entry((1, 0, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _), "reject", EV_BAD_SESSION),
                _entry((1, 0, 0, *identity_ok, 0, _, _, _, _, _, _, _, _, _, _), "reject", EV_IDENTITY_MISMATCH),
                _entry((1, 0, 0, *identity_ok, _, MSG_JOIN, _, _, _, _, _, _, _, _, _), "join"),
                _entry((1, 0, 0, *identity_ok, _, _, 0, *slot_ok, 0, _, _, _, _, _), "reject", EV_BAD_SLOT),
                _entry((1, 0, 0, *identity_ok, _, _, 0, *slot_ok, _, 1, 0, _, _, _), "reject", EV_MALFORMED),
                _entry((1, 0, 0, *identity_ok, _, _, 0, *slot_ok, _, _, _, 1, 0, _), "reject", EV_MALFORMED),
                _entry((1, 0, 0, *identity_ok, _, _, 0, *slot_ok, _, _, _, _, _, 0), "accept_set0"),
                _entry((1, 0, 0, *identity_ok, _, _, 0, *slot_ok, _, _, _, _, _, 1), "accept_set1"),
                _entry((1, 0, 0, *identity_ok, _, _, 0, _, _, _, _, _, _, _, _), "reject", EV_BAD_SLOT),
                _entry((1, 0, 0, *identity_ok, _, _, _, _, _, _, _, _, _, _, _), "reject", EV_BAD_SESSION),
            ),
            ("reject", (EV_IDENTITY_MISMATCH,)),
        ),
        # uplink.p4 -------------------------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.uplink_sent.sent",
            ("ig_md.harvest", "hdr.bridged.unicast", "hdr.agg.msg_type"),
            (_entry((1, 0, _), "record"), _entry((0, _, MSG_RESULT), "compare")),
        ),
        ConstTable(
            "pipe.Ingress.uplink_wait.check",
            (
                "ig_md.harvest",
                "hdr.bridged.unicast",
                "ig_md.from_parent",
                "ig_md.malformed",
                "hdr.agg.msg_type",
                "hdr.agg.flags",
                "ig_md.session_diff",
                "ig_md.below_base",
                "ig_md.slot",
                "ig_md.end_room",
                "ig_md.holds_block",
                "ig_md.block_room",
                "ig_md.next_announced",
                "ig_md.next_room",
            ),
            (
                _entry((1, 0, _, _, _, _, _, _, _, _, _, _, _, _), "record_round"),
                _entry((1, 1, _, _, _, _, _, _, _, _, _, _, _, _), "read_awaiting"),
                _entry((0, _, 1, 0, MSG_RESULT, _, 0, *slot_ok, 0, _, _, _, _), NO_ACTION),
                _entry((0, _, 1, 0, MSG_RESULT, _, 0, *slot_ok, _, 1, 0, _, _), NO_ACTION),
                _entry((0, _, 1, 0, MSG_RESULT, _, 0, *slot_ok, _, _, _, 1, 0), NO_ACTION),
                _entry((0, _, 1, 0, MSG_RESULT, mismatch, 0, *slot_ok, _, _, _, _, _), "take_parent_mismatch"),
                _entry((0, _, 1, 0, MSG_RESULT, _, 0, *slot_ok, _, _, _, _, _), "take_parent"),
            ),
        ),
        # countdown.p4, agreement.p4 ---------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.countdown.countdown",
            ("ig_md.bitmap_before", "ig_md.map_result"),
            (_entry((0, _), "open"), _entry((_, 0), "count"), _entry((_, _), "read")),
        ),
        ConstTable(
            "pipe.Ingress.agreement.verdict",
            ("ig_md.bitmap_before", "ig_md.map_result"),
            (_entry((0, _), "open"), _entry((_, 0), "compare"), _entry((_, _), "check")),
        ),
        ConstTable(
            "pipe.Ingress.zero_values.zero_values",
            ("hdr.agg.msg_type", "hdr.agg.count"),
            (_entry((MSG_DATA, 0), "add_zero_values"),),
        ),
        # opening.p4 -------------------------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.opening_compare.candidate",
            (
                "ig_md.accepted",
                "ig_md.opening",
                "ig_md.bitmap_before",
                "ig_md.map_result",
                "ig_md.from_parent",
                "ig_md.awaiting",
            ),
            (
                _entry((1, 1, 0, _, _, _), "open_first_block"),
                _entry((1, 1, _, 0, _, _), "compare_first_block"),
                _entry((1, 0, _, 0, _, _), "data_round_candidate"),
                _entry((0, _, _, _, 1, await_taken), "data_round_candidate"),
            ),
        ),
        ConstTable(
            "pipe.Ingress.opening_compare.first",
            (
                "ig_md.harvest",
                "ig_md.accepted",
                "ig_md.opening",
                "ig_md.bitmap_before",
                "ig_md.map_result",
                "ig_md.from_parent",
                "ig_md.awaiting",
            ),
            (
                _entry((1, _, 1, _, _, _, _), "read_first_key"),
                _entry((0, 1, 1, 0, _, _, _), "open_first_key"),
                _entry((0, 1, 1, _, 0, _, _), "compare_first_key"),
                _entry((0, 0, _, _, _, 1, AWAIT_OPENING), "open_first_key"),
            ),
        ),
        ConstTable(
            "pipe.Ingress.opening_flags.flags",
            (
                "ig_md.harvest",
                "ig_md.accepted",
                "ig_md.opening",
                "ig_md.position",
                "hdr.agg.next_block",
                "ig_md.first_code",
                "ig_md.from_parent",
                "ig_md.awaiting",
            ),
            (
                _entry((1, _, 1, _, _, _, _, _), "read"),
                _entry((0, 1, 1, ROUND_FIRST, _, _, _, _), "set"),
                _entry((0, 1, 1, ROUND_LATER, 0, _, _, _), "set"),
                _entry((0, 1, 1, ROUND_LATER, _, CODE_SAME_KEY, _, _), "same_key"),
                _entry((0, 1, 1, ROUND_LATER, _, _, _, _), "repeat"),
                _entry((0, 0, _, _, _, _, 1, AWAIT_OPENING), "set"),
            ),
        ),
        ConstTable(
            "pipe.Ingress.opening_result.result",
            ("hdr.bridged.kind", "hdr.agg.block", "ig_md.first_flags", "hdr.agg.flags"),
            (
                _entry((UPSTREAM, none_block, (0, 1), _), "empty", 1),
                _entry((UPSTREAM, none_block, _, _), "empty", 0),
                _entry((UPSTREAM, _, (1, 1), _), "up_repeat"),
                _entry((UPSTREAM, _, _, _), "values", 1),
                _entry((ANSWER, none_block, (0, 1), no_mismatch), "empty", 0),
                _entry((ANSWER, none_block, (0, 1), _), "empty", FLAG_MISMATCH),
                _entry((ANSWER, none_block, _, no_mismatch), "empty", 1),
                _entry((ANSWER, none_block, _, _), "empty", 1 | FLAG_MISMATCH),
                _entry((ANSWER, _, (1, 1), no_mismatch), "repeat", 1),
                _entry((ANSWER, _, (1, 1), _), "repeat", 1 | FLAG_MISMATCH),
                _entry((ANSWER, _, _, no_mismatch), "values", 0),
            ),
            ("values", (FLAG_MISMATCH,)),
        ),
        # lookahead.p4 -----------------------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.lookahead.next_min",
            ("ig_md.position", "ig_md.opening", "hdr.agg.next_block", "ig_md.from_parent", "ig_md.awaiting"),
            (
                _entry((_, _, _, 1, await_taken), "open"),
                _entry((ROUND_FIRST, _, _, 0, _), "open"),
                _entry((ROUND_LATER, 1, 0, 0, _), "take_first"),
                _entry((ROUND_LATER, _, _, 0, _), "take"),
                _entry((ROUND_RETRANSMISSION, _, _, 0, _), "read"),
            ),
        ),
        ConstTable(
            "pipe.Ingress.decode_next.decode_next",
            ("hdr.agg.next_block",),
            (_entry((none_block,), "next_none"),),
            ("next_block", ()),
        ),
        # values.p4: VALUE_OP_KEYS and VALUE_OP_ENTRIES, in ValueOp's table (a code) and in
        # pair 31's own (the pair's action)
        ConstTable(
            "pipe.Ingress.value_op.value_op",
            value_op_keys("hdr.agg.next_block", "hdr.agg.count"),
            value_op_entries(
                ("set_value_op", VALUE_HARVEST),
                ("set_value_op", VALUE_WRITE),
                ("set_value_op", VALUE_ADD),
                ("set_value_op", VALUE_READ),
            ),
            ("set_value_op", (VALUE_NONE,)),
        ),
        ConstTable(
            "pipe.Ingress.values.value_31.pair_by_case",
            value_op_keys("candidate", "count"),
            value_op_entries(("harvest",), ("open",), ("add",), ("resend",)),
        ),
        ConstTable(
            "pipe.Ingress.values.value_NN.pair",
            ("ig_md.value_op",),
            (
                _entry((VALUE_WRITE,), "open"),
                _entry((VALUE_ADD,), "add"),
                _entry((VALUE_READ,), "resend"),
                _entry((VALUE_HARVEST,), "harvest"),
            ),
        ),
        # next_step.p4 -----------------------------------------------------------------------------------
        ConstTable(
            "pipe.Ingress.round_outcome.outcome",
            ("ig_md.position", "ig_md.remaining", "ig_md.verdict", "ig_md.from_parent", "ig_md.awaiting"),
            (
                _entry((_, _, _, 1, await_taken), "result_from_parent"),
                _entry((_, _, _, 1, _), "drop_parent_result"),
                _entry((ROUND_RETRANSMISSION, 0, VERDICT_STALE, _, _), "drop_retransmission", EV_STALE),
                _entry((ROUND_RETRANSMISSION, 0, VERDICT_MISMATCH, _, _), "harvest_to_sender", FLAG_MISMATCH),
                _entry((ROUND_RETRANSMISSION, 0, _, _, _), "harvest_to_sender", 0),
                _entry((ROUND_RETRANSMISSION, _, _, _, _), "drop_retransmission", EV_RETRANSMIT_DROPPED),
                _entry((_, 0, VERDICT_MISMATCH, _, _), "harvest_to_group", FLAG_MISMATCH),
                _entry((_, 0, _, _, _), "harvest_to_group", 0),
            ),
            ("consume", ()),
        ),
        ConstTable(
            "pipe.Ingress.harvested.harvest_exit",
            ("hdr.bridged.kind", "hdr.bridged.unicast", "ig_md.awaiting", "hdr.agg.flags"),
            (
                _entry((UPSTREAM, 0, _, mismatch), "poison"),
                _entry((UPSTREAM, 1, _, mismatch), "poison"),
                _entry((UPSTREAM, 0, _, _), "up"),
                _entry((UPSTREAM, 1, _, _), "up"),
                _entry((HARVEST, 0, _, _), "to_group"),
                _entry((HARVEST, 1, AWAIT_MISMATCH, _), "to_sender", FLAG_MISMATCH),
            ),
            ("to_sender", (0,)),
        ),
    ]
    return {t.name: t for t in tables}


CONST_TABLES = _const_tables()
_T = CONST_TABLES  # short, for the controls below


# -- headers, metadata, the packet in flight ------------------------------------------------------


@dataclass
class Bridged:
    """headers.p4's bridged_h (6 bytes, never on the wire): kind, unicast, opening, the
    ingress port (9 bits), the job's multicast group."""

    valid: bool = False
    kind: int = 0
    unicast: int = 0
    opening: int = 0
    ingress_port: int = 0
    mgid: int = 0

    SIZE = 6

    def unpack(self, buf: bytes) -> None:
        self.valid = True
        kind, bits, port_bits, self.mgid = struct.unpack_from("!BBHH", buf)
        self.kind, self.unicast, self.opening = kind, bits >> 7, bits & 1
        self.ingress_port = port_bits & mask(PORT_BITS)

    def pack(self) -> bytes:  # _pad0 and _pad1 are 0 (start_bridged)
        return struct.pack("!BBHH", self.kind, self.unicast << 7 | self.opening, self.ingress_port, self.mgid)


_VALUES = struct.Struct(f"!{VALUE_PAIRS}I")


@dataclass
class Values:
    """headers.p4's values_h: 32 of the 64 values (vals_a: 0..31, vals_b: 32..63)."""

    valid: bool = False
    v: list[int] = field(default_factory=lambda: [0] * VALUE_PAIRS)

    SIZE = 4 * VALUE_PAIRS

    def unpack(self, buf: bytes) -> None:
        self.valid = True
        self.v = list(_VALUES.unpack_from(buf))

    def pack(self) -> bytes:
        return _VALUES.pack(*self.v)


Header = Bridged | Ethernet | IPv4 | Udp | Agg | Values


@dataclass
class Headers:
    """headers.p4's header_t (both gresses use it)."""

    bridged: Bridged = field(default_factory=Bridged)
    ethernet: Ethernet = field(default_factory=Ethernet)
    ipv4: IPv4 = field(default_factory=IPv4)
    udp: Udp = field(default_factory=Udp)
    agg: Agg = field(default_factory=Agg)
    vals_a: Values = field(default_factory=Values)
    vals_b: Values = field(default_factory=Values)


@dataclass
class IngressMetadata:
    """headers.p4's ingress_metadata_t (ig_md); a fresh PHV: every field 0."""

    harvest: int = 0
    opening: int = 0
    checksum_ok: int = 0
    shadow: int = 0
    slot: int = 0
    malformed: int = 0
    holds_block: int = 0
    next_announced: int = 0
    admitted: int = 0
    worker_bit: int = 0
    num_workers: int = 0
    mgid: int = 0
    pool: int = 0
    num_slots: int = 0
    job_diff: int = 0
    worker_diff: int = 0
    session_diff: int = 0
    rank_room: int = 0
    below_base: int = 0
    end_room: int = 0
    block_room: int = 0
    next_room: int = 0
    from_parent: int = 0
    awaiting: int = 0
    accepted: int = 0
    own_key: int = 0
    next_key: int = 0
    slot_index: int = 0
    cell: int = 0
    bitmap_before: int = 0
    map_result: int = 0
    position: int = 0
    remaining: int = 0
    verdict: int = 0
    scatter: int = 0
    agreement_key: int = 0
    first_code: int = 0
    first_flags: int = 0
    value_op: int = 0
    event: int = 0
    count_event: int = 0
    job_event: int = 0


@dataclass
class EgressMetadata:
    """headers.p4's egress_metadata_t (eg_md), zeroed by the egress parser."""

    dest_worker: int = 0
    update_checksum: int = 0


@dataclass
class IngressIntrinsic:
    ingress_port: int = 0


@dataclass
class ParserMetadata:
    parser_err: int = 0


@dataclass
class DeparserMetadata:
    drop_ctl: int = 0


@dataclass
class TmMetadata:
    """ingress_intrinsic_metadata_for_tm_t, what the program writes of it: a unicast port
    (None until written), a multicast group (0: none) and bypass_egress."""

    ucast_egress_port: int | None = None
    mcast_grp_a: int = 0
    bypass_egress: int = 0


@dataclass
class EgressIntrinsic:
    egress_port: int = 0
    egress_rid: int = 0


@dataclass
class Packet:
    """One packet in one gress: its headers, both gresses' metadata (the other gress's stay
    0), and the bytes the parser did not extract, which the deparser emits after the headers."""

    hdr: Headers = field(default_factory=Headers)
    ig_md: IngressMetadata = field(default_factory=IngressMetadata)
    ig_intr_md: IngressIntrinsic = field(default_factory=IngressIntrinsic)
    ig_prsr_md: ParserMetadata = field(default_factory=ParserMetadata)
    ig_dprsr_md: DeparserMetadata = field(default_factory=DeparserMetadata)
    ig_tm_md: TmMetadata = field(default_factory=TmMetadata)
    eg_md: EgressMetadata = field(default_factory=EgressMetadata)
    eg_intr_md: EgressIntrinsic = field(default_factory=EgressIntrinsic)
    eg_dprsr_md: DeparserMetadata = field(default_factory=DeparserMetadata)
    payload: bytes = b""

    def read(self, path: str) -> int:
        """A key field by its bfrt.json name: `hdr.ethernet.src_addr`, `eg_md.dest_worker`, ..."""
        obj: object = self
        for name in path.split("."):
            obj = getattr(obj, name)
        assert isinstance(obj, int), path
        return obj


@dataclass(frozen=True)
class Pass:
    """One pass of the last `process` call: where the frame entered ingress and its bytes
    (the harvest pass's begin with the bridged header)."""

    ingress_port: int
    frame: bytes


def _make_key(block: int, exp: int) -> int:
    """lookahead.p4's MAKE_KEYS: block[23:0] ++ ~exp."""
    return (block & 0xFFFFFF) << 8 | ~exp & 0xFF


def _sat_sub(a: int, b: int) -> int:
    """P4's |-| on unsigned values: a - b, or 0 below 0."""
    return a - b if a > b else 0


NULL_PORT = 511  # no device port: a unicast to it is dropped


def is_recirculation_port(port: int) -> bool:
    return port & 0x7F == RECIRC_PORT_IN_PIPE


# -- the switch ----------------------------------------------------------------------------------


class TnaSwitchModel:
    """The TNA program's state and what one packet does to it (module docstring).

    State, all settable: `entries` (table -> key tuple -> ActionCall, keys in the table's
    key order), `multicast_nodes` (node id -> (rid, ports)), `multicast_groups` (mgid ->
    node ids), `registers` (BF Runtime field name -> list of cells) and `counters` (table
    name -> list of packet counts). Tables and registers may be named in full or by a
    unique suffix (`workers`, `countdown.remaining`).
    """

    def __init__(self) -> None:
        self.entries: dict[str, dict[tuple[int, ...], ActionCall]] = {name: {} for name in TABLES}
        self.multicast_nodes: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.multicast_groups: dict[int, list[int]] = {}
        self.registers: dict[str, list[int]] = {f: [0] * r.size for r in REGISTERS.values() for f, _ in r.fields}
        self.counters: dict[str, list[int]] = {name: [0] * size for name, size in COUNTERS.items()}
        self.last_passes: list[Pass] = []
        self.last_copies: list[tuple[int, int]] = []  # (port, rid) the traffic manager made, before egress
        self._actions: dict[str, Callable[[Packet, ActionCall], None]] = {
            SET_WORKER: self._set_worker,
            FROM_PARENT: self._from_parent,
            TO_PARENT: self._to_parent,
            TO_PORT: self._to_port,
            FLOOD: self._flood,
            L2_DROP: self._ingress_drop,
            SET_RESULT_DEST: self._set_result_dest,
            EGRESS_DROP: self._egress_drop,
            NO_ACTION: lambda pkt, call: None,
        }

    # -- control plane ---------------------------------------------------------------------------

    def add_entry(
        self, table: str, key: Mapping[str, int], action: str, params: Mapping[str, int] | None = None
    ) -> None:
        """Install (or replace) an entry; key fields and parameters by their bfrt.json names
        (a key field may be named by a unique suffix: `src_port`, `agg.job_id`)."""
        schema = TABLES[resolve_name(table, TABLES, "table")]
        fields = [name for name, _ in schema.keys]
        given = {resolve_name(k, fields, f"key field of {schema.name}"): v for k, v in key.items()}
        missing = [name for name in fields if name not in given]
        if missing:
            raise KeyError(f"entry of {schema.name} without key field(s) {', '.join(missing)}")
        key_tuple = tuple(self._checked(f"{schema.name} key {name}", given[name], bits) for name, bits in schema.keys)
        name = resolve_name(action, schema.actions, f"action of {schema.name}")
        if name in DEFAULT_ONLY:
            raise ValueError(f"{name} is the default action of {schema.name} only (@defaultonly)")
        wanted = schema.actions[name]
        p = dict(params or {})
        if set(p) != {n for n, _ in wanted}:
            raise KeyError(f"{name} takes ({', '.join(n for n, _ in wanted)}), given ({', '.join(p)})")
        call = ActionCall(name, tuple((n, self._checked(f"{name}({n})", p[n], bits)) for n, bits in wanted))
        self.entries[schema.name][key_tuple] = call

    def delete_entry(self, table: str, key: Mapping[str, int]) -> None:
        schema = TABLES[resolve_name(table, TABLES, "table")]
        fields = [name for name, _ in schema.keys]
        given = {resolve_name(k, fields, f"key field of {schema.name}"): v for k, v in key.items()}
        del self.entries[schema.name][tuple(given[name] for name in fields)]

    def add_multicast_node(self, node_id: int, rid: int, ports: Iterable[int]) -> None:
        """A `$pre.node`: one copy per port, with replication id `rid` (egress_rid)."""
        self.multicast_nodes[node_id] = (
            self._checked("$MULTICAST_RID", rid, 16),
            tuple(self._checked("$DEV_PORT", p, PORT_BITS) for p in ports),
        )

    def add_multicast_group(self, mgid: int, node_ids: Iterable[int]) -> None:
        """A `$pre.mgid`: the nodes whose copies group `mgid` makes (they must exist)."""
        if not 0 < mgid <= 0xFFFF:
            raise ValueError(f"multicast group id {mgid} outside 1..65535")
        nodes = list(node_ids)
        unknown = [n for n in nodes if n not in self.multicast_nodes]
        if unknown:
            raise KeyError(f"$pre.mgid {mgid}: no $pre.node {unknown}")
        self.multicast_groups[mgid] = nodes

    def multicast_copies(self, mgid: int) -> list[tuple[int, int]]:
        """(port, rid) of every copy group `mgid` makes, in order; none for an unknown group."""
        return [
            (port, rid)
            for node in self.multicast_groups.get(mgid, ())
            for rid, ports in [self.multicast_nodes[node]]
            for port in ports
        ]

    def register_read(self, register: str, index: int) -> dict[str, int]:
        """One cell of a register table, by its fields' BF Runtime names."""
        schema = REGISTERS[resolve_name(register, REGISTERS, "register")]
        return {f: self.registers[f][index] for f, _ in schema.fields}

    def register_write(self, register: str, index: int, values: Mapping[str, int]) -> None:
        """Write fields of one cell (by full name, or by the part after the register's name:
        `f1`, `set0`); fields not given keep their values."""
        schema = REGISTERS[resolve_name(register, REGISTERS, "register")]
        if not 0 <= index < schema.size:
            raise IndexError(f"{schema.name}[{index}]: the register has {schema.size} cells")
        fields = [f for f, _ in schema.fields]
        for name, value in values.items():
            f = resolve_name(name, fields, f"field of {schema.name}")
            self.registers[f][index] = self._checked(f"{f}[{index}]", value, REGISTER_FIELDS[f])

    def counter_write(self, counter: str, index: int, packets: int) -> None:
        name = resolve_name(counter, COUNTERS, "counter")
        self.counters[name][index] = packets

    def events(self) -> dict[str, int]:
        """pipe.Ingress.events by the names of p4reduce.protocol.switch.EVENT_NAMES."""
        cells = self.counters[EVENTS]
        return {name: cells[code] for code, name in enumerate(EVENT_NAMES)}

    def job_counters(self, slot_base: int) -> dict[str, int]:
        """A job's four cells of pipe.Ingress.job_events (at slot_base * 4)."""
        first = (slot_base & (NUM_SLOTS - 1)) * NUM_JOB_EVENTS
        return dict(zip(JOB_EVENT_NAMES, self.counters[JOB_EVENTS][first : first + NUM_JOB_EVENTS], strict=True))

    @staticmethod
    def _checked(what: str, value: int, bits: int) -> int:
        if not 0 <= value <= mask(bits):
            raise ValueError(f"{what}: {value:#x} does not fit in {bits} bits")
        return value

    # -- one packet -------------------------------------------------------------------------------

    def process(self, ingress_port: int, frame: bytes, *, harvest: bool = False) -> list[tuple[int, bytes]]:
        """Every frame that leaves the switch for `frame` arriving on `ingress_port`, as
        (egress port, bytes): the unicast copy, then the multicast copies in group order.
        A recirculated packet (the harvest pass) goes through ingress again before anything
        leaves; `last_passes` lists the passes. `harvest`: `frame` is a harvest pass
        (bridged header first) entering its pipe's recirculation port, as p4testgen's tests
        inject one; no other frame enters there."""
        if not 0 <= ingress_port <= mask(PORT_BITS):
            raise ValueError(f"ingress port {ingress_port} outside 0..{mask(PORT_BITS)}")
        if is_recirculation_port(ingress_port) != harvest:
            if harvest:
                raise ValueError(f"port {ingress_port} is no recirculation port: a harvest pass enters only there")
            raise ValueError(f"port {ingress_port} is its pipe's recirculation port: only a harvest pass enters there")
        self.last_passes, self.last_copies = [], []
        out: list[tuple[int, bytes]] = []
        arriving = [(ingress_port, bytes(frame))]
        while arriving:
            port, data = arriving.pop(0)
            if len(self.last_passes) >= 8:
                raise RuntimeError("a packet recirculated more than 8 times")  # never in this program
            self.last_passes.append(Pass(port, data))
            pkt = self._ingress_parser(port, data)
            self._ingress(pkt)
            for egress_port, sent in self._traffic_manager(pkt, self._ingress_deparser(pkt)):
                if is_recirculation_port(egress_port):
                    arriving.append((egress_port, sent))
                else:
                    out.append((egress_port, sent))
        return out

    # parser.p4: IngressParser ---------------------------------------------------------------------

    def _ingress_parser(self, port: int, frame: bytes) -> Packet:
        pkt = Packet(ig_intr_md=IngressIntrinsic(port))
        hdr, md = pkt.hdr, pkt.ig_md
        pos = 0

        def extract(header: Header) -> bool:
            # A header that does not fit: PARSER_ERROR_PARTIAL_HDR, the parser stops there
            # (the header stays invalid) and the packet goes on to ingress.
            nonlocal pos
            if len(frame) - pos < header.SIZE:
                pkt.ig_prsr_md.parser_err |= PARSER_ERROR_PARTIAL_HDR
                return False
            header.unpack(frame[pos : pos + header.SIZE])
            pos += header.SIZE
            return True

        # start: harvest, admitted, accepted, count_event, from_parent = 0 (a fresh PHV here)
        if is_recirculation_port(port):  # parse_harvest
            if extract(hdr.bridged):
                md.harvest = 1
                md.opening = hdr.bridged.opening
                if extract(hdr.ethernet) and extract(hdr.ipv4) and extract(hdr.udp) and extract(hdr.agg):
                    md.shadow, md.slot = hdr.agg.shadow, hdr.agg.slot
                    if extract(hdr.vals_a):
                        extract(hdr.vals_b)
        elif extract(hdr.ethernet) and hdr.ethernet.ether_type == ETHERTYPE_IPV4 and extract(hdr.ipv4):
            md.checksum_ok = 1 if ipv4_checksum_verifies(hdr.ipv4.pack()) else 0
            ip = hdr.ipv4
            if (
                (ip.ihl, ip.flags & 1, ip.frag_offset, ip.protocol) == (5, 0, 0, IPPROTO_UDP)
                and extract(hdr.udp)
                and hdr.udp.dst_port == AGG_UDP_PORT
                and extract(hdr.agg)
            ):
                md.shadow = hdr.agg.shadow
                md.slot = hdr.agg.slot
                md.opening = hdr.agg.flags & 1
                if (hdr.agg.msg_type, hdr.agg.count) in ((MSG_DATA, VALUES), (MSG_RESULT, VALUES)):
                    if extract(hdr.vals_a):
                        extract(hdr.vals_b)
        pkt.payload = frame[pos:]
        return pkt

    @staticmethod
    def _ingress_deparser(pkt: Packet) -> bytes:
        hdr = pkt.hdr
        headers: Sequence[Header] = (hdr.bridged, hdr.ethernet, hdr.ipv4, hdr.udp, hdr.agg, hdr.vals_a, hdr.vals_b)
        return b"".join(h.pack() for h in headers if h.valid) + pkt.payload

    # p4reduce_tna.p4: Ingress ------------------------------------------------------------------------

    def _ingress(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        if hdr.agg.valid:
            self._uplink_sent(pkt)
        if md.harvest == 0:
            self._bridge(pkt)
        self._locate_cell(pkt)

        if md.harvest == 0 and not hdr.agg.valid:
            if hdr.udp.valid and hdr.udp.dst_port == AGG_UDP_PORT:
                self._drop_with(pkt, EV_MALFORMED)  # shorter than the aggregation header
            elif self._forwarding(pkt):
                self._note_event(pkt, EV_FORWARDED)
        else:
            if md.harvest == 0:
                self._admission(pkt)
                self._agreement_key(pkt)
            self._uplink_wait(pkt)  # reads from_parent before `admit` may clear it
            if md.harvest == 0:
                self._seen_bitmap(pkt)
            if md.harvest == 1:
                if hdr.bridged.unicast == 0 or md.awaiting >= AWAIT_DATA:
                    self._uplink(pkt)
            elif md.accepted == 1:
                self._countdown(pkt)
                self._agreement(pkt)
                self._zero_values(pkt)

        self._opening_compare(pkt)
        self._opening_flags(pkt)
        self._value_op(pkt)
        self._values(pkt)
        if md.harvest == 1:
            self._harvested(pkt)
            if md.opening == 1:
                self._opening_result(pkt)
        elif md.accepted == 1 or md.from_parent == 1:
            self._lookahead(pkt)
            self._round_outcome(pkt)
            self._decode_next(pkt)
        if md.count_event == 1:
            self.counters[EVENTS][md.event] += 1  # count_event
        if md.admitted == 1:  # count_job_event: pool[SLOT_BITS - 1:0] ++ job_event
            self.counters[JOB_EVENTS][(md.pool & (NUM_SLOTS - 1)) << 2 | md.job_event] += 1

    def _bridge(self, pkt: Packet) -> None:
        action, args = _T["pipe.Ingress.bridge"].lookup(int(pkt.hdr.agg.valid), pkt.hdr.agg.msg_type)
        if action == "start_answer":  # a JOIN leaves as its JOINED, back where it came in
            self._start_bridged(pkt, ANSWER, 1)
            pkt.ig_tm_md.ucast_egress_port = pkt.ig_intr_md.ingress_port
        else:
            self._start_bridged(pkt, *args)

    @staticmethod
    def _start_bridged(pkt: Packet, kind: int, unicast: int) -> None:
        b = pkt.hdr.bridged
        b.valid = True
        b.kind, b.unicast, b.opening = kind, unicast, pkt.ig_md.opening
        b.ingress_port = pkt.ig_intr_md.ingress_port
        b.mgid = 0

    @staticmethod
    def _locate_cell(pkt: Packet) -> None:
        md = pkt.ig_md
        md.slot_index = md.slot & (NUM_SLOTS - 1)
        md.cell = md.shadow << SLOT_BITS | md.slot & (NUM_SLOTS - 1)

    @staticmethod
    def _note_event(pkt: Packet, event: int) -> None:
        pkt.ig_md.event = event
        pkt.ig_md.count_event = 1

    def _drop_with(self, pkt: Packet, event: int) -> None:
        pkt.ig_dprsr_md.drop_ctl = 1
        self._note_event(pkt, event)

    @staticmethod
    def _answer_from_aggregator(pkt: Packet) -> None:
        """headers.p4's ANSWER_FROM_AGGREGATOR."""
        hdr = pkt.hdr
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr
        hdr.udp.src_port = hdr.udp.dst_port

    # the control plane's tables --------------------------------------------------------------------

    def _apply_table(self, table: str, pkt: Packet) -> bool:
        """`table.apply().hit`: the entry's action on a hit, the (const) default on a miss."""
        schema = TABLES[table]
        entry = self.entries[table].get(tuple(pkt.read(name) for name, _ in schema.keys))
        call = entry if entry is not None else ActionCall(schema.default_action)
        self._actions[call.action](pkt, call)
        return entry is not None

    @staticmethod
    def _set_worker(pkt: Packet, call: ActionCall) -> None:
        p, md, agg = dict(call.params), pkt.ig_md, pkt.hdr.agg
        md.admitted = 1
        md.worker_bit = p["worker_bit"]
        md.num_workers = p["num_workers"]
        md.mgid = p["mgid"]
        md.pool = p["slot_base"]
        md.num_slots = p["num_slots"]
        md.job_diff = agg.job_id ^ p["job_id"]
        md.worker_diff = agg.worker_id ^ p["worker_id"]
        md.session_diff = agg.session ^ p["session"]
        md.rank_room = _sat_sub(p["num_workers"], agg.worker_id)
        md.below_base = _sat_sub(p["slot_base"], md.slot)
        md.end_room = _sat_sub(p["slot_end"], md.slot)
        md.block_room = _sat_sub(agg.blocks, agg.block)
        md.next_room = _sat_sub(agg.blocks, agg.next_block)

    @staticmethod
    def _from_parent(pkt: Packet, call: ActionCall) -> None:
        p, md, agg = dict(call.params), pkt.ig_md, pkt.hdr.agg
        md.admitted = 1
        md.from_parent = 1
        md.mgid = p["mgid"]
        md.pool = p["slot_base"]
        md.session_diff = agg.session ^ p["up_session"]
        md.below_base = _sat_sub(p["slot_base"], md.slot)
        md.end_room = _sat_sub(p["slot_end"], md.slot)
        md.block_room = _sat_sub(agg.blocks, agg.block)
        md.next_room = _sat_sub(agg.blocks, agg.next_block)
        agg.job_id = p["job_id"]
        agg.session = p["session"]

    @staticmethod
    def _to_parent(pkt: Packet, call: ActionCall) -> None:
        p, hdr = dict(call.params), pkt.hdr
        hdr.bridged.kind = UPSTREAM
        hdr.ethernet.dst_addr = p["mac"]
        hdr.ipv4.dst_addr = p["ip"]
        hdr.udp.dst_port = p["udp_port"]
        hdr.agg.msg_type = MSG_DATA
        hdr.agg.job_id = p["up_job"]
        hdr.agg.worker_id = p["up_rank"]
        hdr.agg.session = p["up_session"]
        pkt.ig_tm_md.ucast_egress_port = p["port"]

    @staticmethod
    def _to_port(pkt: Packet, call: ActionCall) -> None:
        pkt.ig_tm_md.ucast_egress_port = call.param("port")

    @staticmethod
    def _flood(pkt: Packet, call: ActionCall) -> None:
        pkt.ig_tm_md.mcast_grp_a = call.param("mgid")

    @staticmethod
    def _ingress_drop(pkt: Packet, call: ActionCall) -> None:
        pkt.ig_dprsr_md.drop_ctl = 1

    @staticmethod
    def _set_result_dest(pkt: Packet, call: ActionCall) -> None:
        pkt.hdr.ethernet.dst_addr = call.param("mac")
        pkt.hdr.ipv4.dst_addr = call.param("ip")
        pkt.hdr.udp.dst_port = call.param("udp_port")

    @staticmethod
    def _egress_drop(pkt: Packet, call: ActionCall) -> None:
        pkt.eg_dprsr_md.drop_ctl = 1

    # admission.p4: Admission --------------------------------------------------------------------------

    def _admission(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        agg = hdr.agg
        if agg.msg_type in (MSG_RESULT, MSG_ERROR):
            self._apply_table(PARENTS, pkt)
        else:
            self._apply_table(WORKERS, pkt)
        _, (md.malformed,) = _T["pipe.Ingress.admission.format"].lookup(
            agg.version,
            agg.msg_type,
            agg.count,
            int(hdr.vals_a.valid),
            int(hdr.vals_b.valid),
            hdr.udp.length,
            hdr.ipv4.total_len,
            agg.block,
            agg.blocks,
            md.checksum_ok,
            pkt.ig_prsr_md.parser_err,
        )
        _, (md.holds_block, md.next_announced) = _T["pipe.Ingress.admission.round_kind"].lookup(
            agg.block, agg.next_block
        )

    # agreement.p4: AgreementKey ------------------------------------------------------------------------

    @staticmethod
    def _agreement_key(pkt: Packet) -> None:
        agg, md = pkt.hdr.agg, pkt.ig_md
        action, args = _T["pipe.Ingress.agreement_key.scatter"].lookup(agg.flags, agg.count, agg.msg_type)
        if action == "scatter_bits":
            bits, compared = args
            md.scatter = bits
            md.agreement_key = agg.fingerprint ^ compared
        else:  # no_scatter
            md.scatter = 0
            md.agreement_key = agg.fingerprint

    # seen_bitmap.p4: SeenBitmap (admission's decision) ------------------------------------------------

    def _seen_bitmap(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        agg = hdr.agg
        action, args = _T["pipe.Ingress.seen_bitmap.admit"].lookup(
            md.admitted,
            md.malformed,
            md.from_parent,
            md.job_diff,
            md.worker_diff,
            agg.worker_id,
            md.rank_room,
            agg.msg_type,
            md.session_diff,
            md.below_base,
            md.slot,
            md.end_room,
            md.holds_block,
            md.block_room,
            md.next_announced,
            md.next_room,
            md.shadow,
        )
        if action in ("accept_set0", "accept_set1"):
            mine, other = (0, 1) if action == "accept_set0" else (1, 0)
            current, cleared = self.registers[SEEN_SET[mine]], self.registers[SEEN_SET[other]]
            i = md.slot_index
            md.bitmap_before = current[i]  # mark_setN: returns set N as it was
            current[i] |= md.worker_bit
            cleared[i] &= ~md.worker_bit & 0xFFFFFFFF
            md.map_result = md.bitmap_before & md.worker_bit
            md.accepted = 1
            self._make_keys(pkt)
        elif action == "reject":
            pkt.ig_dprsr_md.drop_ctl = 1
            (md.event,) = args
            md.count_event = 1
            md.job_event = JOB_EV_DROPS  # counted for the job only if admitted
            md.from_parent = 0
        elif action == "take_parent":
            self._make_keys(pkt)
        elif action == "parent_error":
            self._answer_from_aggregator(pkt)
            agg.next_block = agg.block
            agg.block = ERROR_UPSTREAM
            hdr.bridged.kind = ANSWER
            hdr.bridged.unicast = 0
            pkt.ig_tm_md.mcast_grp_a = md.mgid
            md.event = EV_FROM_PARENT
            md.count_event = 1
            md.job_event = JOB_EV_PACKETS
            md.from_parent = 0
        else:
            assert action == "join", action
            md.event = EV_JOINED
            md.count_event = 1
            md.job_event = JOB_EV_PACKETS
            self._answer_from_aggregator(pkt)
            agg.msg_type = MSG_JOINED
            agg.flags = 0
            agg.shadow = md.pool >> 15 & 1
            agg.slot = md.pool & 0x7FFF
            agg.block = VALUES
            agg.next_block = md.num_slots
            agg.exp = MODE_DENSE
            agg.next_exp = md.num_workers
            agg.session ^= md.session_diff  # the job's: a JOIN carries 0
            agg.blocks = 0
            agg.fingerprint = 0

    @staticmethod
    def _make_keys(pkt: Packet) -> None:
        """lookahead.p4's MAKE_KEYS."""
        agg, md = pkt.hdr.agg, pkt.ig_md
        md.own_key = _make_key(agg.block, agg.exp)
        md.next_key = _make_key(agg.next_block, agg.next_exp)

    # uplink.p4: SentBlock, Awaiting, Uplink ----------------------------------------------------------

    def _uplink_sent(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        action, _ = _T["pipe.Ingress.uplink_sent.sent"].lookup(md.harvest, hdr.bridged.unicast, hdr.agg.msg_type)
        cells = self.registers[SENT_BLOCK_F]
        i = md.shadow << SLOT_BITS | md.slot & (NUM_SLOTS - 1)  # the parser's copies of the pool
        if action == "record":
            if md.opening == 1:
                cells[i] = 0  # any block
                md.awaiting = AWAIT_OPENING
            else:
                cells[i] = hdr.agg.block + 1 & 0xFFFFFFFF
                md.awaiting = AWAIT_DATA
        elif action == "compare":
            md.awaiting = 1 if cells[i] in (hdr.agg.block + 1 & 0xFFFFFFFF, 0) else 0

    def _uplink_wait(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        agg = hdr.agg
        action, _ = _T["pipe.Ingress.uplink_wait.check"].lookup(
            md.harvest,
            hdr.bridged.unicast,
            md.from_parent,
            md.malformed,
            agg.msg_type,
            agg.flags,
            md.session_diff,
            md.below_base,
            md.slot,
            md.end_room,
            md.holds_block,
            md.block_room,
            md.next_announced,
            md.next_room,
        )
        state, fingerprint = self.registers[AWAIT_STATE], self.registers[AWAIT_FINGERPRINT]
        i = md.cell
        if action == "record_round":  # await_answer
            state[i] = md.awaiting
            fingerprint[i] = agg.fingerprint
        elif action == "read_awaiting":  # read_state
            md.awaiting = state[i] & 0xFF
        elif action == "take_parent":  # take_answer
            if fingerprint[i] == agg.fingerprint and md.awaiting == 1:
                md.awaiting = state[i] & 0xFF
                state[i] = AWAIT_ANSWERED
                fingerprint[i] ^= 0xFFFFFFFF
            else:
                md.awaiting = AWAIT_ANSWERED
        elif action == "take_parent_mismatch":  # take_mismatch
            if state[i] >= AWAIT_DATA and md.awaiting == 1:
                md.awaiting = state[i] & 0xFF
                state[i] = AWAIT_MISMATCH
                fingerprint[i] ^= 0xFFFFFFFF
            else:
                md.awaiting = AWAIT_ANSWERED

    def _uplink(self, pkt: Packet) -> None:
        self._apply_table(UPLINKS, pkt)

    # countdown.p4, agreement.p4, values.p4's ZeroValues --------------------------------------------------

    def _countdown(self, pkt: Packet) -> None:
        md = pkt.ig_md
        cells = self.registers[REMAINING_F]
        action, _ = _T["pipe.Ingress.countdown.countdown"].lookup(md.bitmap_before, md.map_result)
        if action == "open":
            cells[md.cell] = md.num_workers - 1 & 0xFF
            md.position = ROUND_FIRST
        elif action == "count":
            cells[md.cell] = cells[md.cell] - 1 & 0xFF
            md.position = ROUND_LATER
        else:
            md.position = ROUND_RETRANSMISSION
        md.remaining = cells[md.cell]

    def _agreement(self, pkt: Packet) -> None:
        md = pkt.ig_md
        fingerprint, verdict = self.registers[ROUND_FINGERPRINT], self.registers[ROUND_VERDICT]
        i = md.cell
        action, _ = _T["pipe.Ingress.agreement.verdict"].lookup(md.bitmap_before, md.map_result)
        if action == "open":
            fingerprint[i] = md.agreement_key
            verdict[i] = VERDICT_AGREE
            md.verdict = VERDICT_AGREE
        elif action == "compare":
            if fingerprint[i] != md.agreement_key:
                verdict[i] = VERDICT_MISMATCH
            md.verdict = verdict[i] & 0xFF
        else:  # check: a retransmission changes nothing
            md.verdict = verdict[i] & 0xFF if fingerprint[i] == md.agreement_key else VERDICT_STALE

    @staticmethod
    def _zero_values(pkt: Packet) -> None:
        hdr = pkt.hdr
        action, _ = _T["pipe.Ingress.zero_values.zero_values"].lookup(hdr.agg.msg_type, hdr.agg.count)
        if action == "add_zero_values":
            for vals in (hdr.vals_a, hdr.vals_b):
                vals.valid = True
                vals.v = [0] * VALUE_PAIRS
            hdr.agg.count = VALUES

    # opening.p4: OpeningCompare, OpeningFlags, OpeningResult ---------------------------------------------

    def _opening_compare(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        agg = hdr.agg
        i = md.cell
        candidate, block = self.registers[FB_CANDIDATE], self.registers[FB_BLOCK]
        action, _ = _T["pipe.Ingress.opening_compare.candidate"].lookup(
            md.accepted, md.opening, md.bitmap_before, md.map_result, md.from_parent, md.awaiting
        )
        # The K2 candidate goes to next_block (next_key holds its value now).
        if action == "open_first_block":
            block[i] = md.own_key & KEY_BLOCK_MASK
            candidate[i] = md.next_key
            agg.next_block = candidate[i]
        elif action == "compare_first_block":
            if md.own_key < block[i]:  # a smaller block: case 1
                block[i] = md.own_key & KEY_BLOCK_MASK
                agg.next_block = 0
            elif md.own_key - block[i] >= KEY_ONE_BLOCK:  # a larger one: case 5
                candidate[i] = md.own_key
                agg.next_block = candidate[i]
            else:
                candidate[i] = md.next_key
                agg.next_block = candidate[i]
        elif action == "data_round_candidate":
            candidate[i] = md.next_key
            agg.next_block = candidate[i]

        key, code = self.registers[FK_KEY], self.registers[FK_CODE]
        action, _ = _T["pipe.Ingress.opening_compare.first"].lookup(
            md.harvest, md.accepted, md.opening, md.bitmap_before, md.map_result, md.from_parent, md.awaiting
        )
        if action == "read_first_key":  # K1 lands in block as it is, its exponent in exp
            k1 = key[i]
            agg.block = k1
            agg.exp = ~k1 & 0xFF
        elif action == "open_first_key":
            key[i] = md.own_key
        elif action == "compare_first_key":
            if md.own_key < key[i]:
                code[i] = min(key[i], md.next_key)
                md.first_code = code[i]
            elif md.own_key == key[i]:
                code[i] = CODE_SAME_KEY
                md.first_code = code[i]
            else:
                md.first_code = 0
            key[i] = min(key[i], md.own_key)

    def _opening_flags(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        i = md.cell
        block, flags = self.registers[FF_BLOCK], self.registers[FF_FLAGS]
        action, _ = _T["pipe.Ingress.opening_flags.flags"].lookup(
            md.harvest,
            md.accepted,
            md.opening,
            md.position,
            hdr.agg.next_block,
            md.first_code,
            md.from_parent,
            md.awaiting,
        )
        if action == "set":
            block[i] = hdr.agg.block
            flags[i] = md.scatter
        elif action == "repeat":
            if hdr.agg.block == block[i]:
                flags[i] = md.scatter | 1
        elif action == "same_key":
            flags[i] |= md.scatter
        elif action == "read":
            md.first_flags = flags[i] & 0xFF

    def _opening_result(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.ig_md
        agg = hdr.agg
        action, args = _T["pipe.Ingress.opening_result.result"].lookup(
            hdr.bridged.kind, agg.block, md.first_flags, agg.flags
        )
        if action == "values":  # the data round of b*: K2 and the sums stay
            agg.flags = md.first_flags ^ args[0]
            agg.block >>= 8
        elif action == "repeat":
            agg.flags = md.first_flags ^ args[0]
            agg.next_block = agg.block >> 8
            agg.next_exp = agg.exp
            agg.block >>= 8
            self._header_only(pkt)
        elif action == "empty":  # nobody holds anything
            agg.flags = md.first_flags ^ args[0]
            agg.block = BLOCK_NONE
            agg.next_block = BLOCK_NONE
            self._header_only(pkt)
        else:
            assert action == "up_repeat", action
            agg.flags = md.first_flags
            agg.block >>= 8
            self._header_only(pkt)

    @staticmethod
    def _header_only(pkt: Packet) -> None:
        pkt.hdr.vals_a.valid = False
        pkt.hdr.vals_b.valid = False
        pkt.hdr.agg.count = 0

    # lookahead.p4: Lookahead, DecodeNext -------------------------------------------------------------

    def _lookahead(self, pkt: Packet) -> None:
        agg, md = pkt.hdr.agg, pkt.ig_md
        cells = self.registers[MIN_KEY_F]
        action, _ = _T["pipe.Ingress.lookahead.next_min"].lookup(
            md.position, md.opening, agg.next_block, md.from_parent, md.awaiting
        )
        if action == NO_ACTION:
            return
        if action == "open":  # the candidate (opening.p4)
            cells[md.cell] = agg.next_block
        elif action == "take":
            cells[md.cell] = min(cells[md.cell], agg.next_block)
        elif action == "take_first":
            cells[md.cell] = min(cells[md.cell], md.first_code)
        k2 = cells[md.cell]  # TO_NEXT
        agg.next_block = k2
        agg.next_exp = ~k2 & 0xFF

    @staticmethod
    def _decode_next(pkt: Packet) -> None:
        agg = pkt.hdr.agg
        action, _ = _T["pipe.Ingress.decode_next.decode_next"].lookup(agg.next_block)
        agg.next_block = BLOCK_NONE if action == "next_none" else agg.next_block >> 8

    # values.p4: ValueOp, Values -----------------------------------------------------------------------

    @staticmethod
    def _value_op_keys(pkt: Packet) -> tuple[int, ...]:
        md, agg = pkt.ig_md, pkt.hdr.agg
        return (
            md.harvest,
            md.accepted,
            md.position,
            md.opening,
            agg.next_block,
            md.first_code,
            md.from_parent,
            md.awaiting,
            agg.count,
        )

    def _value_op(self, pkt: Packet) -> None:
        _, (pkt.ig_md.value_op,) = _T["pipe.Ingress.value_op.value_op"].lookup(*self._value_op_keys(pkt))

    def _values(self, pkt: Packet) -> None:
        """All 32 pairs, each one stateful ALU on its cell: value_31 decides by itself
        (pair_by_case: VALUE_OP_ENTRIES on the candidate, before min_key replaces it), the
        others match value_op's code."""
        hdr = pkt.hdr
        i = pkt.ig_md.cell
        for n in (VALUE_PAIRS - 1, *range(VALUE_PAIRS - 1)):  # FOR_EARLY_VALUE_PAIRS, FOR_LATER_VALUE_PAIRS
            if n == VALUE_PAIRS - 1:
                action, _ = _T["pipe.Ingress.values.value_31.pair_by_case"].lookup(*self._value_op_keys(pkt))
            else:
                action, _ = _T["pipe.Ingress.values.value_NN.pair"].lookup(pkt.ig_md.value_op)
            first, second = self.registers[SUMS_FIRST[n]], self.registers[SUMS_SECOND[n]]
            if action == "open":  # write_pair
                first[i], second[i] = hdr.vals_a.v[n], hdr.vals_b.v[n]
                hdr.vals_b.v[n] = second[i]
            elif action == "add":  # add_pair (int32 wrap-around)
                first[i] = first[i] + hdr.vals_a.v[n] & 0xFFFFFFFF
                second[i] = second[i] + hdr.vals_b.v[n] & 0xFFFFFFFF
                hdr.vals_b.v[n] = second[i]
            elif action == "resend":  # read_second
                hdr.vals_b.v[n] = second[i]
            elif action == "harvest":  # read_first: the second pass
                hdr.vals_a.v[n] = first[i]

    # next_step.p4: RoundOutcome, Harvested, Forwarding -----------------------------------------------

    def _round_outcome(self, pkt: Packet) -> None:
        hdr, md, tm = pkt.hdr, pkt.ig_md, pkt.ig_tm_md
        action, args = _T["pipe.Ingress.round_outcome.outcome"].lookup(
            md.position, md.remaining, md.verdict, md.from_parent, md.awaiting
        )
        if action in ("harvest_to_group", "harvest_to_sender"):  # to_harvest
            (mismatch,) = args
            unicast, job_event = (0, JOB_EV_ROUNDS) if action == "harvest_to_group" else (1, JOB_EV_RETRANSMISSIONS)
            self._answer_from_aggregator(pkt)  # become_result
            hdr.agg.msg_type = MSG_RESULT
            hdr.agg.flags = md.scatter | mismatch
            hdr.bridged.kind = HARVEST
            hdr.bridged.unicast = unicast
            hdr.bridged.mgid = md.mgid
            tm.ucast_egress_port = pkt.ig_intr_md.ingress_port & 0x180 | RECIRC_PORT_IN_PIPE
            tm.bypass_egress = 1
            md.job_event = job_event
        elif action == "result_from_parent":
            self._answer_from_aggregator(pkt)
            hdr.bridged.kind = ANSWER
            hdr.bridged.unicast = 0
            tm.mcast_grp_a = md.mgid
            self._note(pkt, EV_FROM_PARENT, JOB_EV_PACKETS)
        elif action == "drop_parent_result":
            pkt.ig_dprsr_md.drop_ctl = 1
            self._note(pkt, EV_PARENT_DROPPED, JOB_EV_PACKETS)
        elif action == "drop_retransmission":
            pkt.ig_dprsr_md.drop_ctl = 1
            self._note(pkt, args[0], JOB_EV_RETRANSMISSIONS)
        else:
            assert action == "consume", action
            pkt.ig_dprsr_md.drop_ctl = 1
            self._note(pkt, EV_DATA_COUNTED, JOB_EV_PACKETS)

    @staticmethod
    def _note(pkt: Packet, event: int, job_event: int) -> None:
        pkt.ig_md.event = event
        pkt.ig_md.count_event = 1
        pkt.ig_md.job_event = job_event

    def _harvested(self, pkt: Packet) -> None:
        hdr, md, tm = pkt.hdr, pkt.ig_md, pkt.ig_tm_md
        action, args = _T["pipe.Ingress.harvested.harvest_exit"].lookup(
            hdr.bridged.kind, hdr.bridged.unicast, md.awaiting, hdr.agg.flags
        )
        if action == "to_group":
            hdr.bridged.kind = ANSWER
            tm.mcast_grp_a = hdr.bridged.mgid
            self._note_event(pkt, EV_RESULT_MULTICAST)
        elif action == "to_sender":
            hdr.bridged.kind = ANSWER
            tm.ucast_egress_port = hdr.bridged.ingress_port
            hdr.agg.flags |= args[0]
            self._note_event(pkt, EV_RESULT_UNICAST)
        elif action == "up":
            self._note_event(pkt, EV_UPSTREAM)
        else:
            assert action == "poison", action
            self._note_event(pkt, EV_UPSTREAM)
            hdr.agg.fingerprint ^= POISON
            hdr.agg.flags &= ~FLAG_MISMATCH & 0xFF

    def _forwarding(self, pkt: Packet) -> bool:
        return self._apply_table(L2, pkt)  # the control plane installs only to_port / flood entries

    # the traffic manager -----------------------------------------------------------------------------

    def _traffic_manager(self, pkt: Packet, data: bytes) -> list[tuple[int, bytes]]:
        """What leaves the traffic manager, after egress: (port, bytes) per copy."""
        if pkt.ig_dprsr_md.drop_ctl & 1:
            return []
        tm = pkt.ig_tm_md
        # A unicast to port 511 is dropped: no Tofino 1 device port has that number (pipe 3,
        # local port 127), and p4testgen's Tofino model drops it so; the program sends
        # there only where an entry names that port.
        port = tm.ucast_egress_port
        copies = [(port, 0)] if port is not None and port != NULL_PORT else []
        if tm.mcast_grp_a != 0:
            copies += self.multicast_copies(tm.mcast_grp_a)
        self.last_copies += copies
        out = []
        for port, rid in copies:
            if tm.bypass_egress:
                out.append((port, data))  # straight out: the ingress deparser's bytes
                continue
            sent = self._egress_pass(port, rid, data)
            if sent is not None:
                out.append((port, sent))
        return out

    # parser.p4's EgressParser, egress.p4, the EgressDeparser ---------------------------------------------

    def _egress_pass(self, port: int, rid: int, data: bytes) -> bytes | None:
        pkt = Packet(eg_intr_md=EgressIntrinsic(port, rid))
        hdr = pkt.hdr
        hdr.bridged.unpack(data)
        pos = Bridged.SIZE
        if hdr.bridged.kind in (ANSWER, UPSTREAM):  # parse_answer (the values stay payload)
            for h in (hdr.ethernet, hdr.ipv4, hdr.udp, hdr.agg):
                h.unpack(data[pos : pos + h.SIZE])
                pos += h.SIZE
        pkt.payload = data[pos:]
        self._egress(pkt)
        if pkt.eg_dprsr_md.drop_ctl & 1:
            return None
        if pkt.eg_md.update_checksum == 1:
            hdr.ipv4.hdr_checksum = hdr.ipv4.csum16()
        headers: Sequence[Header] = (hdr.ethernet, hdr.ipv4, hdr.udp, hdr.agg)
        return b"".join(h.pack() for h in headers if h.valid) + pkt.payload

    def _egress(self, pkt: Packet) -> None:
        hdr, md = pkt.hdr, pkt.eg_md
        agg = hdr.agg
        if hdr.bridged.kind == ANSWER:
            if hdr.bridged.unicast == 1:
                md.dest_worker = agg.worker_id  # to_sender
            else:
                md.dest_worker = pkt.eg_intr_md.egress_rid & 0xFF  # to_replica
            self._apply_table(RESULT_DEST, pkt)
            if agg.count != 0 and agg.flags >> 2 & 1 == 1 and agg.flags >> 3 != md.dest_worker & 0x1F:
                self._header_only(pkt)  # vals_a/vals_b were never parsed here: only count changes
            agg.worker_id = md.dest_worker  # finish_answer
            agg_len = AGG_HDR_LEN + (0 if agg.count == 0 else AGG_VALUES_LEN)
            hdr.udp.length = UDP_HDR_LEN + agg_len
            hdr.udp.checksum = 0
            hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len
            md.update_checksum = 1
        elif hdr.bridged.kind == UPSTREAM:  # upstream_lengths
            agg_len = AGG_HDR_LEN + (0 if agg.count == 0 else AGG_VALUES_LEN)
            hdr.udp.length = UDP_HDR_LEN + agg_len
            hdr.udp.checksum = 0
            hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len
            md.update_checksum = 1
        elif pkt.eg_intr_md.egress_port == hdr.bridged.ingress_port:
            pkt.eg_dprsr_md.drop_ctl = 1  # no echo of ordinary frames to their sender


# -- BF Runtime entries into the model -----------------------------------------------------------------


def install_bfrt(model: TnaSwitchModel, schema: Schema, entries: Iterable[Labeled], *, delete: bool = False) -> None:
    """Apply what `p4reduce.controller.bfrt.tna` builds (job_entries, l2_entries,
    zero_registers, zero_counter_cells, port_entries) to the model: each Labeled entity is
    decoded with `schema` (the program's bfrt.json with the SDE's fixed tables) and written
    as bf_switchd would, inserted or modified (`delete`: deleted). `$PORT` entries change
    nothing the model holds."""
    for labeled in entries:
        te: Any = labeled.entity.table_entry
        table = schema.by_id(te.table_id)
        key = table.decode_key(te.key)
        action, data = table.decode_data(te.data)
        what = labeled.label
        if table.name in TABLES:
            plain = {k: v for k, v in key.items()}
            if delete:
                model.delete_entry(table.name, plain)
            else:
                if action is None:
                    raise ValueError(f"{what}: an entry of {table.name} without an action")
                model.add_entry(table.name, plain, action, data)
        elif table.name in REGISTERS:
            index = key["$REGISTER_INDEX"]
            fields = dict.fromkeys((f for f, _ in REGISTERS[table.name].fields), 0) if delete else data
            model.register_write(table.name, index, fields)
        elif table.name in COUNTERS:
            model.counter_write(table.name, key["$COUNTER_INDEX"], 0 if delete else data["$COUNTER_SPEC_PKTS"])
        elif table.name == PRE_NODE:
            node = key["$MULTICAST_NODE_ID"]
            if delete:
                model.multicast_nodes.pop(node, None)
            else:
                model.add_multicast_node(node, data["$MULTICAST_RID"], data["$DEV_PORT"])
        elif table.name == PRE_MGID:
            mgid = key["$MGID"]
            if delete:
                model.multicast_groups.pop(mgid, None)
            else:
                model.add_multicast_group(mgid, data["$MULTICAST_NODE_ID"])
        elif table.name.startswith("$PORT"):
            continue
        else:
            raise ValueError(f"{what}: the model has no table {table.name!r}")
