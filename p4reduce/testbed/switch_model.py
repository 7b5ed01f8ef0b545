# SPDX-License-Identifier: Apache-2.0
"""An executable model of the v1model switch program (p4src/p4reduce.p4, as BMv2 runs it).

`SwitchModel.process(port, frame)` is what ONE packet does to the switch: which frames
leave on which ports (after egress and the checksum update, as the deparser emits
them) and how the tables' state, the registers and the counters change. It is a
reference for differential tests: p4testgen's tests (`p4reduce.testbed.stf`), BMv2
(bmv2_tests/test_model_vs_bmv2.py) and docs/protocol.md can each be held against it.

The model follows the P4 SOURCE, not the spec, statement by statement at the level of
observable effects: one Python method per P4 control and per action with effects, in
the order p4src/p4reduce.p4 applies them, with every field at its P4 width (sums wrap
at 32 bits, a countdown at 8, lengths at 16). Where the spec says otherwise the P4
program wins here; the differences are listed where they were found (the module's
tests and the report of the change that added it). Of v1model and simple_switch it
models what the program can observe:

* the parser's selects, and a truncated header: extraction stops there, the header
  and those after it stay invalid, ingress runs anyway (BMv2's PacketTooShort) and
  the bytes not extracted are emitted after the headers;
* `verify_checksum` on the IPv4 header (`standard_metadata.checksum_error`) and
  `update_checksum` for answers and upstream DATA; UDP checksums are never computed;
* table lookups with `hit` (a miss runs the default action, which the control
  plane may change: `set_default`), exact keys only (all five tables are exact);
* `mark_to_drop` (egress_spec 511, mcast_grp 0); a non-zero `mcast_grp` wins over
  egress_spec; `egress_spec` starts at 0 (a packet that sets nothing leaves on port 0);
  egress drops only what egress marks;
* the packet replication engine: group `mgid` -> (port, rid) copies, in the order
  given; an unknown group makes no copies; user metadata travels with every copy;
* registers (every array, 2048 cells, at its bit width) and both counters
  (`P4ReduceIngress.events`, `P4ReduceIngress.job_events`, packets).

It does not model: queueing, timing, rates and lost frames; concurrency between
packets (BMv2 runs ingress on one thread: packets are processed one by one, in the
order given); ingress/egress cloning, resubmit, recirculation, learning (the program
uses none); the P4Runtime side of the CPU port (a JOIN from an unknown worker leaves
on port 510 with its 2-byte `packet_in` header in front of the frame, as simple_switch
emits it there; simple_switch_grpc turns that into a PacketIn with the header as
metadata); counters' byte counts; the values of an invalid header's fields, which
the program reads only for frames too short for an Ethernet header (the model reads
0 there: a fresh PHV's value, where BMv2 may hold a stale one); the TNA (Tofino)
program of p4src/tna/, whose pipeline differs (64 values, 8192 slots, a harvest pass):
`p4reduce.testbed.tna_model` models that one.
"""

from __future__ import annotations

import copy
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from p4reduce.protocol.codec import AGG_UDP_PORT, NONE, POISON, PROTOCOL_VERSION, Flags, Mode, MsgType
from p4reduce.protocol.switch import (
    EVENT_NAMES,
    JOB_EVENT_NAMES,
    NUM_EVENTS,
    NUM_JOB_EVENTS,
    SWITCH_CPU_PORT,
    SWITCH_MAX_WORKERS,
    SWITCH_SLOTS,
    SWITCH_VALUES_PER_PACKET,
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
    resolve_name,
)
from p4reduce.testbed.model_common import mask as _mask

# -- constants of p4src/types.p4 (the protocol package holds the same numbers) ----------

FLAG_OPENING = int(Flags.OPENING)
FLAG_MISMATCH = int(Flags.MISMATCH)
FLAG_SCATTER = int(Flags.SCATTER)
SCATTER_MASK = 0xFC
OPENING_MASK = 0x05
OWNER_SHIFT = 3
MODE_DENSE = Mode.DENSE.code
ERROR_UPSTREAM = 8
CPU_PORT = SWITCH_CPU_PORT
DROP_PORT = 511  # simple_switch's drop port for 9-bit ports: what mark_to_drop sets
VALUES = SWITCH_VALUES_PER_PACKET
NUM_SLOTS = SWITCH_SLOTS
SLOT_BITS = 10
REGISTER_SIZE = 2 * NUM_SLOTS
AGG_VALUES_LEN = 4 * VALUES
JOB_EVENTS_SIZE = 4096
JOB_EVENT_BITS = 2

# Cells of P4ReduceIngress.events and of a job's P4ReduceIngress.job_events.
EV = {name: code for code, name in enumerate(EVENT_NAMES)}
JOB_EV = {name: cell for cell, name in enumerate(JOB_EVENT_NAMES)}
ACCEPTED = 0xFFFFFFFF  # admission's reject_event of an acceptable packet

# next_step.p4's steps.
STEP_CONSUME, STEP_MULTICAST, STEP_UNICAST, STEP_JOINED, STEP_UPSTREAM, STEP_FROM_PARENT, STEP_PARENT_ERROR = range(7)

# -- the control-plane contract: tables, actions, registers, counters -----------------

WORKERS = "P4ReduceIngress.admission.workers"
PARENTS = "P4ReduceIngress.admission.parents"
UPLINKS = "P4ReduceIngress.uplink.uplinks"
L2 = "P4ReduceIngress.forwarding.l2"
RESULT_DEST = "P4ReduceEgress.result_dest"

SET_WORKER = "P4ReduceIngress.admission.set_worker"
FROM_PARENT = "P4ReduceIngress.admission.from_parent"
SET_UPLINK = "P4ReduceIngress.uplink.set_uplink"
TO_PORT = "P4ReduceIngress.forwarding.to_port"
FLOOD = "P4ReduceIngress.forwarding.flood"
L2_DROP = "P4ReduceIngress.forwarding.drop"
SET_RESULT_DEST = "P4ReduceEgress.set_result_dest"
EGRESS_DROP = "P4ReduceEgress.drop"
NO_ACTION = "NoAction"

# Action parameters (name, bits), as the BMv2 JSON and the P4Info have them.
ACTION_PARAMS: dict[str, tuple[tuple[str, int], ...]] = {
    SET_WORKER: (
        ("job_id", 16),
        ("worker_id", 8),
        ("num_workers", 8),
        ("mgid", 16),
        ("slot_base", 16),
        ("num_slots", 16),
        ("session", 32),
    ),
    FROM_PARENT: (
        ("job_id", 16),
        ("num_workers", 8),
        ("mgid", 16),
        ("slot_base", 16),
        ("num_slots", 16),
        ("session", 32),
        ("up_session", 32),
    ),
    SET_UPLINK: (
        ("up_job", 16),
        ("up_rank", 8),
        ("up_session", 32),
        ("port", 9),
        ("mac", 48),
        ("ip", 32),
        ("udp_port", 16),
    ),
    TO_PORT: (("port", 9),),
    FLOOD: (("mgid", 16),),
    L2_DROP: (),
    SET_RESULT_DEST: (("mac", 48), ("ip", 32), ("udp_port", 16)),
    EGRESS_DROP: (),
    NO_ACTION: (),
}


@dataclass(frozen=True)
class TableSchema:
    """A table of the program: its exact keys (field, bits), its actions and its default."""

    name: str
    keys: tuple[tuple[str, int], ...]
    actions: tuple[str, ...]
    default_action: str


_WORKER_KEYS = (
    ("standard_metadata.ingress_port", 9),
    ("hdr.ethernet.src_addr", 48),
    ("hdr.ipv4.src_addr", 32),
    ("hdr.udp.src_port", 16),
)
TABLES: dict[str, TableSchema] = {
    t.name: t
    for t in (
        TableSchema(WORKERS, _WORKER_KEYS, (SET_WORKER, NO_ACTION), NO_ACTION),
        TableSchema(
            PARENTS,
            (*_WORKER_KEYS, ("hdr.agg.job_id", 16), ("hdr.agg.worker_id", 8)),
            (FROM_PARENT, NO_ACTION),
            NO_ACTION,
        ),
        TableSchema(UPLINKS, (("meta.job_id", 16),), (SET_UPLINK, NO_ACTION), NO_ACTION),
        TableSchema(L2, (("hdr.ethernet.dst_addr", 48),), (TO_PORT, FLOOD, L2_DROP), L2_DROP),
        TableSchema(
            RESULT_DEST, (("hdr.agg.job_id", 16), ("meta.dest_worker", 8)), (SET_RESULT_DEST, EGRESS_DROP), EGRESS_DROP
        ),
    )
}

# Every register array (2 x 1024 cells: index shadow * 1024 + slot) and its bit width.
SEEN = "P4ReduceIngress.seen_bitmap.seen"
REMAINING = "P4ReduceIngress.countdown.remaining"
FINGERPRINT = "P4ReduceIngress.agreement.fingerprint"
MISMATCH = "P4ReduceIngress.agreement.mismatch"
AWAITING = "P4ReduceIngress.uplink.awaiting"
SENT_ROUND = "P4ReduceIngress.uplink.sent_round"
SENT_FINGERPRINT = "P4ReduceIngress.uplink.sent_fingerprint"
PARENT_MISMATCH = "P4ReduceIngress.uplink.parent_mismatch"
FIRST_KEY = "P4ReduceIngress.opening.first_key"
REPEAT = "P4ReduceIngress.opening.repeat"
MIN_KEY = "P4ReduceIngress.lookahead.min_key"
HELD = "P4ReduceIngress.values.held"
VALUE_REGISTERS = tuple(f"P4ReduceIngress.values.value_{i:02d}" for i in range(VALUES))
REGISTERS: dict[str, int] = {
    SEEN: 32,
    REMAINING: 8,
    FINGERPRINT: 32,
    MISMATCH: 1,
    AWAITING: 1,
    SENT_ROUND: 33,
    SENT_FINGERPRINT: 32,
    PARENT_MISMATCH: 1,
    FIRST_KEY: 48,
    REPEAT: 1,
    MIN_KEY: 40,
    **dict.fromkeys(VALUE_REGISTERS, 32),
    HELD: 1,
}
EVENTS = "P4ReduceIngress.events"
JOB_EVENTS = "P4ReduceIngress.job_events"
COUNTERS = {EVENTS: NUM_EVENTS, JOB_EVENTS: JOB_EVENTS_SIZE}


# -- headers, metadata, the packet in flight --------------------------------------------


_VALUES = struct.Struct(f"!{VALUES}I")


@dataclass
class Vals:
    """headers.p4's values_h: the B = 32 values as bit<32> (two's complement on the wire)."""

    valid: bool = False
    v: list[int] = field(default_factory=lambda: [0] * VALUES)

    SIZE = AGG_VALUES_LEN

    def unpack(self, buf: bytes) -> None:
        self.valid = True
        self.v = list(_VALUES.unpack_from(buf))

    def pack(self) -> bytes:
        return _VALUES.pack(*self.v)


@dataclass
class PacketIn:
    """The controller header in front of a frame to the CPU port: 9 bits of port, 7 of padding."""

    valid: bool = False
    ingress_port: int = 0

    def pack(self) -> bytes:
        return (self.ingress_port << 7).to_bytes(2, "big")


@dataclass
class Headers:
    packet_in: PacketIn = field(default_factory=PacketIn)
    ethernet: Ethernet = field(default_factory=Ethernet)
    ipv4: IPv4 = field(default_factory=IPv4)
    udp: Udp = field(default_factory=Udp)
    agg: Agg = field(default_factory=Agg)
    vals: Vals = field(default_factory=Vals)


@dataclass
class Metadata:
    """headers.p4's metadata_t, zero at the start of every packet."""

    job_id: int = 0
    worker_id: int = 0
    num_workers: int = 0
    mgid: int = 0
    slot_base: int = 0
    num_slots: int = 0
    session: int = 0
    worker_bit: int = 0
    index: int = 0
    other_index: int = 0
    first: int = 0
    retransmission: int = 0
    remaining: int = 0
    min_key: int = 0
    mismatch: int = 0
    scatter: int = 0
    stale: int = 0
    held: int = 0
    opening: int = 0
    first_key: int = 0
    repeat: int = 0
    announce: int = 0
    restart: int = 0
    overwrite: int = 0
    ignore: int = 0
    is_answer: int = 0
    unicast: int = 0
    dest_worker: int = 0
    leaf: int = 0
    up_job: int = 0
    up_rank: int = 0
    up_session: int = 0
    up_port: int = 0
    up_mac: int = 0
    up_ip: int = 0
    up_udp_port: int = 0
    from_parent: int = 0
    parent_ok: int = 0
    awaiting: int = 0
    no_sums: int = 0
    upstream: int = 0


@dataclass
class StandardMetadata:
    ingress_port: int = 0
    egress_spec: int = 0  # v1model: 0 until ingress sets it
    egress_port: int = 0
    egress_rid: int = 0
    mcast_grp: int = 0
    checksum_error: int = 0


@dataclass
class Packet:
    """One packet in the pipeline (one copy of it in egress): headers, metadata and the
    bytes the parser did not extract, which the deparser emits after the headers."""

    hdr: Headers
    meta: Metadata
    standard_metadata: StandardMetadata
    payload: bytes = b""

    def read(self, path: str) -> int:
        """A key field by its P4 name: `hdr.ethernet.src_addr`, `meta.job_id`, ..."""
        scope, *rest = path.split(".")
        obj: object = {"hdr": self.hdr, "meta": self.meta, "standard_metadata": self.standard_metadata}[scope]
        for name in rest:
            obj = getattr(obj, name)
        assert isinstance(obj, int), path
        return obj


def _key(a: int, b: int) -> int:
    """lookahead.p4's 40-bit key: block ++ (255 - exp)."""
    return (a & 0xFFFFFFFF) << 8 | (255 - b) & 0xFF


# -- the switch --------------------------------------------------------------------------


class SwitchModel:
    """The v1model program's state and what one packet does to it (module docstring).

    State, all settable: `entries` (table -> key tuple -> ActionCall, exact keys in the
    table's key order), `defaults` (table -> ActionCall), `multicast_groups` (mgid ->
    [(port, rid)]), `registers` (P4 name -> list of cells) and `counters` (P4 name ->
    list of packet counts). Names may be given in full or by a unique suffix.
    """

    def __init__(self) -> None:
        self.entries: dict[str, dict[tuple[int, ...], ActionCall]] = {name: {} for name in TABLES}
        self.defaults: dict[str, ActionCall] = {name: ActionCall(t.default_action) for name, t in TABLES.items()}
        self.multicast_groups: dict[int, list[tuple[int, int]]] = {}
        self.registers: dict[str, list[int]] = {name: [0] * REGISTER_SIZE for name in REGISTERS}
        self.counters: dict[str, list[int]] = {name: [0] * size for name, size in COUNTERS.items()}
        self._actions: dict[str, Callable[[Packet, ActionCall], None]] = {
            SET_WORKER: self._set_worker,
            FROM_PARENT: self._from_parent,
            SET_UPLINK: self._set_uplink,
            TO_PORT: self._to_port,
            FLOOD: self._flood,
            L2_DROP: lambda pkt, _: self._mark_to_drop(pkt),
            SET_RESULT_DEST: self._set_result_dest,
            EGRESS_DROP: lambda pkt, _: self._mark_to_drop(pkt),
            NO_ACTION: lambda pkt, _: None,
        }

    # -- control plane -------------------------------------------------------------------

    def add_entry(
        self, table: str, match: Mapping[str, int], action: str, params: Mapping[str, int] | None = None
    ) -> None:
        """Install (or replace) an exact-match entry; key fields and parameters by their
        P4 names (a key field may be named by its last part: `src_addr` is ambiguous,
        `ethernet.src_addr` is not)."""
        schema = TABLES[resolve_name(table, TABLES, "table")]
        fields = [name for name, _ in schema.keys]
        given = {resolve_name(k, fields, f"key field of {schema.name}"): v for k, v in match.items()}
        missing = [name for name, _ in schema.keys if name not in given]
        if missing:
            raise KeyError(f"entry of {schema.name} without key field(s) {', '.join(missing)}")
        key = tuple(self._checked(f"{schema.name} key {name}", given[name], bits) for name, bits in schema.keys)
        self.entries[schema.name][key] = self._action_call(schema, action, params or {})

    def set_default(self, table: str, action: str, params: Mapping[str, int] | None = None) -> None:
        """Change a table's default action (none of the program's defaults is const)."""
        schema = TABLES[resolve_name(table, TABLES, "table")]
        self.defaults[schema.name] = self._action_call(schema, action, params or {})

    def add_multicast_group(self, mgid: int, replicas: Iterable[tuple[int, int]]) -> None:
        """Create or replace PRE group `mgid`: one copy per (egress port, rid = egress_rid)."""
        if not 0 < mgid <= 0xFFFF:
            raise ValueError(f"multicast group id {mgid} outside 1..65535")
        self.multicast_groups[mgid] = [
            (self._checked("replica port", port, 9), self._checked("rid", rid, 16)) for port, rid in replicas
        ]

    def register_read(self, register: str, index: int) -> int:
        return self.registers[resolve_name(register, REGISTERS, "register")][index]

    def register_write(self, register: str, index: int, value: int) -> None:
        name = resolve_name(register, REGISTERS, "register")
        if not 0 <= index < REGISTER_SIZE:
            raise IndexError(f"{name}[{index}]: the register has {REGISTER_SIZE} cells")
        self.registers[name][index] = self._checked(f"{name}[{index}]", value, REGISTERS[name])

    def events(self) -> dict[str, int]:
        """P4ReduceIngress.events by the names of p4reduce.protocol.switch.EVENT_NAMES."""
        cells = self.counters[EVENTS]
        return {name: cells[code] for code, name in enumerate(EVENT_NAMES)}

    def job_counters(self, slot_base: int) -> dict[str, int]:
        """A job's four cells of P4ReduceIngress.job_events (at slot_base * 4)."""
        first = (slot_base & (NUM_SLOTS - 1)) * NUM_JOB_EVENTS
        return dict(zip(JOB_EVENT_NAMES, self.counters[JOB_EVENTS][first : first + NUM_JOB_EVENTS], strict=True))

    @staticmethod
    def _checked(what: str, value: int, bits: int) -> int:
        if not 0 <= value <= _mask(bits):
            raise ValueError(f"{what}: {value:#x} does not fit in {bits} bits")
        return value

    def _action_call(self, schema: TableSchema, action: str, params: Mapping[str, int]) -> ActionCall:
        name = resolve_name(action, schema.actions, f"action of {schema.name}")
        wanted = ACTION_PARAMS[name]
        if set(params) != {p for p, _ in wanted}:
            raise KeyError(f"{name} takes ({', '.join(p for p, _ in wanted)}), given ({', '.join(params)})")
        return ActionCall(name, tuple((p, self._checked(f"{name}({p})", params[p], bits)) for p, bits in wanted))

    # -- one packet -------------------------------------------------------------------------

    def process(self, ingress_port: int, frame: bytes) -> list[tuple[int, bytes]]:
        """Every frame that leaves the switch for `frame` arriving on `ingress_port`, as
        (egress port, bytes), in replication order; the state is updated on the way."""
        if not 0 <= ingress_port < DROP_PORT:
            raise ValueError(f"ingress port {ingress_port} outside 0..{DROP_PORT - 1}")
        pkt = self._parse(ingress_port, bytes(frame))
        self._verify_checksum(pkt)
        self._ingress(pkt)
        return self._traffic_manager(pkt)

    # parser.p4: P4ReduceParser --------------------------------------------------------------

    def _parse(self, ingress_port: int, frame: bytes) -> Packet:
        hdr = Headers()
        pkt = Packet(hdr, Metadata(), StandardMetadata(ingress_port=ingress_port))
        pos = 0

        def extract(header: Ethernet | IPv4 | Udp | Agg | Vals) -> bool:
            # A header longer than what is left fails (PacketTooShort): it stays invalid and
            # BMv2 goes on to ingress with the bytes from there on as the payload.
            nonlocal pos
            if len(frame) - pos < header.SIZE:
                return False
            header.unpack(frame[pos : pos + header.SIZE])
            pos += header.SIZE
            return True

        if (
            extract(hdr.ethernet)
            and hdr.ethernet.ether_type == ETHERTYPE_IPV4
            and extract(hdr.ipv4)
            # Only an unfragmented UDP datagram without options can be a whole aggregation packet.
            and (hdr.ipv4.ihl, hdr.ipv4.flags & 1, hdr.ipv4.frag_offset, hdr.ipv4.protocol) == (5, 0, 0, IPPROTO_UDP)
            and extract(hdr.udp)
            and hdr.udp.dst_port == AGG_UDP_PORT
            and extract(hdr.agg)
            and (hdr.agg.msg_type, hdr.agg.count) in ((MsgType.DATA, VALUES), (MsgType.RESULT, VALUES))
        ):
            extract(hdr.vals)
        pkt.payload = frame[pos:]
        return pkt

    @staticmethod
    def _verify_checksum(pkt: Packet) -> None:
        """P4ReduceVerifyChecksum: only the IPv4 header's checksum."""
        ipv4 = pkt.hdr.ipv4
        if ipv4.valid and ipv4.csum16() != ipv4.hdr_checksum:
            pkt.standard_metadata.checksum_error = 1

    # p4reduce.p4: P4ReduceIngress -----------------------------------------------------------

    def _ingress(self, pkt: Packet) -> None:
        hdr, meta = pkt.hdr, pkt.meta
        if not hdr.agg.valid:
            if hdr.udp.valid and hdr.udp.dst_port == AGG_UDP_PORT:
                self._drop_with(pkt, EV["malformed"])  # shorter than the aggregation header
            elif self._apply_table(L2, pkt):
                self._count_event(EV["forwarded"])
            return
        step = STEP_CONSUME
        controller = False
        reject_event = self._admission(pkt)
        if reject_event != EV["unknown_worker"]:
            self._count_job(pkt, JOB_EV["packets"])
        if reject_event == EV["unknown_worker"]:
            if hdr.agg.msg_type == MsgType.JOIN:
                self._to_controller(pkt)
                controller = True
            else:
                self._drop_with(pkt, EV["unknown_worker"])
        elif reject_event != ACCEPTED:
            self._reject(pkt, reject_event)
        elif meta.from_parent == 1 and hdr.agg.msg_type == MsgType.ERROR:
            self._count_event(EV["from_parent"])  # the parent failed the job: every local worker is told
            step = STEP_PARENT_ERROR
        elif hdr.agg.msg_type == MsgType.JOIN:
            self._count_event(EV["joined"])
            step = STEP_JOINED
        else:
            step = self._aggregate(pkt)
        if not controller:
            self._next_step(pkt, step)

    def _aggregate(self, pkt: Packet) -> int:
        """The DATA (or a parent's RESULT) branch of P4ReduceIngress.apply; returns the step."""
        meta = pkt.meta
        self._locate_cell(pkt)
        if meta.from_parent == 0:
            self._seen_bitmap(pkt)
        self._countdown(pkt)
        if meta.retransmission == 1 and meta.remaining != 0:
            self._drop_retransmission(pkt, EV["retransmit_dropped"])  # round still open
            return STEP_CONSUME
        if meta.from_parent == 0:
            self._agreement(pkt)
        self._uplink(pkt)
        if meta.from_parent == 1 and meta.parent_ok == 0:
            self._drop_with(pkt, EV["parent_dropped"])  # answers no round this leaf sent up
            return STEP_CONSUME
        if meta.stale == 1:
            self._drop_retransmission(pkt, EV["stale"])  # a finished round of another allreduce
            return STEP_CONSUME
        if meta.opening == 1:
            self._opening(pkt)
        self._lookahead(pkt)
        self._values(pkt)
        if meta.from_parent == 1:
            self._count_event(EV["from_parent"], EV["result_multicast"])
            self._count_job(pkt, JOB_EV["rounds"])
            return STEP_FROM_PARENT
        if meta.retransmission == 1 and meta.awaiting == 1:
            self._count_event(EV["upstream"])  # a leaf's round the parent has not answered: up again
            self._count_job(pkt, JOB_EV["retransmissions"])
            return STEP_UPSTREAM
        if meta.retransmission == 1:
            self._count_event(EV["result_unicast"])  # round complete, this worker lost its result
            self._count_job(pkt, JOB_EV["retransmissions"])
            return STEP_UNICAST
        if meta.remaining == 0 and meta.awaiting == 1:
            self._count_event(EV["data_counted"], EV["upstream"])  # a leaf job's round, to its parent
            return STEP_UPSTREAM
        if meta.remaining == 0:
            self._count_event(EV["data_counted"], EV["result_multicast"])
            self._count_job(pkt, JOB_EV["rounds"])
            return STEP_MULTICAST
        self._count_event(EV["data_counted"])
        return STEP_CONSUME

    # P4ReduceIngress's own actions

    def _count_event(self, *codes: int) -> None:
        for code in codes:
            self.counters[EVENTS][code] += 1

    def _count_job(self, pkt: Packet, cell: int) -> None:
        # Masked so that no entry's slot_base can index past the counter.
        self.counters[JOB_EVENTS][((pkt.meta.slot_base & (NUM_SLOTS - 1)) << JOB_EVENT_BITS) | cell] += 1

    @staticmethod
    def _mark_to_drop(pkt: Packet) -> None:
        pkt.standard_metadata.egress_spec = DROP_PORT
        pkt.standard_metadata.mcast_grp = 0

    def _drop_with(self, pkt: Packet, event: int) -> None:
        self._count_event(event)
        self._mark_to_drop(pkt)

    def _reject(self, pkt: Packet, event: int) -> None:
        self._drop_with(pkt, event)
        self._count_job(pkt, JOB_EV["drops"])

    def _drop_retransmission(self, pkt: Packet, event: int) -> None:
        self._drop_with(pkt, event)
        self._count_job(pkt, JOB_EV["retransmissions"])

    def _to_controller(self, pkt: Packet) -> None:
        self._count_event(EV["unknown_worker"])
        pkt.standard_metadata.egress_spec = CPU_PORT
        pkt.hdr.packet_in.valid = True
        pkt.hdr.packet_in.ingress_port = pkt.standard_metadata.ingress_port

    @staticmethod
    def _locate_cell(pkt: Packet) -> None:
        hdr, meta = pkt.hdr, pkt.meta
        meta.worker_bit = (1 << meta.worker_id) & 0xFFFFFFFF
        meta.index = hdr.agg.shadow << SLOT_BITS | hdr.agg.slot  # admission: slot < NUM_SLOTS
        meta.other_index = meta.index ^ NUM_SLOTS
        meta.opening = 1 if hdr.agg.flags & FLAG_OPENING else 0

    # tables and their actions ------------------------------------------------------------------

    def _apply_table(self, table: str, pkt: Packet) -> bool:
        """`table.apply().hit`: the entry's action on a hit, the default action on a miss."""
        key = tuple(pkt.read(name) for name, _ in TABLES[table].keys)
        entry = self.entries[table].get(key)
        call = entry if entry is not None else self.defaults[table]
        self._actions[call.action](pkt, call)
        return entry is not None

    @staticmethod
    def _set_worker(pkt: Packet, call: ActionCall) -> None:
        p, meta = dict(call.params), pkt.meta
        meta.job_id = p["job_id"]
        meta.worker_id = p["worker_id"]
        meta.num_workers = p["num_workers"]
        meta.mgid = p["mgid"]
        meta.slot_base = p["slot_base"]
        meta.num_slots = p["num_slots"]
        meta.session = p["session"]

    def _from_parent(self, pkt: Packet, call: ActionCall) -> None:
        """The leaf job as set_worker gives it (worker 0: no worker of its own), and the
        session the parent gave the leaf."""
        p = dict(call.params)
        up_session = p.pop("up_session")
        self._set_worker(pkt, ActionCall(SET_WORKER, tuple({**p, "worker_id": 0}.items())))
        pkt.meta.up_session = up_session
        pkt.meta.from_parent = 1

    @staticmethod
    def _set_uplink(pkt: Packet, call: ActionCall) -> None:
        p, meta = dict(call.params), pkt.meta
        meta.leaf = 1
        meta.up_job = p["up_job"]
        meta.up_rank = p["up_rank"]
        meta.up_session = p["up_session"]
        meta.up_port = p["port"]
        meta.up_mac = p["mac"]
        meta.up_ip = p["ip"]
        meta.up_udp_port = p["udp_port"]

    @staticmethod
    def _to_port(pkt: Packet, call: ActionCall) -> None:
        pkt.standard_metadata.egress_spec = call.param("port")

    @staticmethod
    def _flood(pkt: Packet, call: ActionCall) -> None:
        pkt.standard_metadata.mcast_grp = call.param("mgid")

    @staticmethod
    def _set_result_dest(pkt: Packet, call: ActionCall) -> None:
        pkt.hdr.ethernet.dst_addr = call.param("mac")
        pkt.hdr.ipv4.dst_addr = call.param("ip")
        pkt.hdr.udp.dst_port = call.param("udp_port")

    # admission.p4: Admission ------------------------------------------------------------------

    def _admission(self, pkt: Packet) -> int:
        """The event a packet is rejected under, or ACCEPTED."""
        hdr, meta, sm = pkt.hdr, pkt.meta, pkt.standard_metadata
        agg = hdr.agg
        join = agg.msg_type == MsgType.JOIN
        no_block = agg.block == NONE
        lengths_wrong = (
            (agg.count != 0 and not hdr.vals.valid)
            or hdr.udp.length != (UDP_HDR_LEN + AGG_HDR_LEN + (agg.count << 2 & 0xFFFF)) & 0xFFFF
            or hdr.ipv4.total_len != (IPV4_HDR_LEN + hdr.udp.length) & 0xFFFF
        )
        if agg.msg_type in (MsgType.RESULT, MsgType.ERROR) and self._apply_table(PARENTS, pkt):
            if agg.version != PROTOCOL_VERSION or lengths_wrong or sm.checksum_error == 1:
                return EV["malformed"]
            if agg.session != meta.up_session:
                return EV["bad_session"]  # the parent reset the leaf's membership
            if not self._slot_in_range(pkt):
                return EV["bad_slot"]
            return ACCEPTED
        if not self._apply_table(WORKERS, pkt):
            return EV["unknown_worker"]
        if (
            agg.version != PROTOCOL_VERSION
            or (agg.msg_type != MsgType.DATA and not join)  # RESULT/QUERY/RESET...: not for a switch
            or lengths_wrong  # count not in {0, B}, truncated, trailing bytes by the UDP length
            or (no_block and hdr.vals.valid)  # values of no block
            or sm.checksum_error == 1
        ):
            return EV["malformed"]
        if (
            agg.job_id != meta.job_id
            or agg.worker_id != meta.worker_id
            or meta.worker_id >= meta.num_workers
            or meta.worker_id >= SWITCH_MAX_WORKERS
        ):
            return EV["identity_mismatch"]
        if join:
            return ACCEPTED  # no session yet, no slot: JOINED names the entry's
        if agg.session != meta.session:
            return EV["bad_session"]
        if not self._slot_in_range(pkt):
            return EV["bad_slot"]
        if (not no_block and agg.block >= agg.blocks) or (agg.next_block != NONE and agg.next_block >= agg.blocks):
            return EV["malformed"]  # a block outside the tensor the packet itself announces
        return ACCEPTED

    @staticmethod
    def _slot_in_range(pkt: Packet) -> bool:
        slot, meta = pkt.hdr.agg.slot, pkt.meta
        end = (meta.slot_base + meta.num_slots) & 0xFFFF  # bit<16> arithmetic wraps
        return meta.slot_base <= slot < end and slot < NUM_SLOTS

    # seen_bitmap.p4, countdown.p4 ------------------------------------------------------------------

    def _seen_bitmap(self, pkt: Packet) -> None:
        meta = pkt.meta
        seen = self.registers[SEEN]
        current, other = seen[meta.index], seen[meta.other_index]
        seen[meta.index] = current | meta.worker_bit
        seen[meta.other_index] = other & ~meta.worker_bit & 0xFFFFFFFF  # self-cleaning
        meta.first = 1 if current == 0 else 0
        meta.retransmission = 1 if current & meta.worker_bit else 0

    def _countdown(self, pkt: Packet) -> None:
        meta = pkt.meta
        remaining = self.registers[REMAINING]
        if meta.retransmission == 1 or meta.from_parent == 1:
            meta.remaining = remaining[meta.index]  # learns the round's state, counts nothing
            return
        meta.remaining = (meta.num_workers - 1 if meta.first == 1 else remaining[meta.index] - 1) & 0xFF
        remaining[meta.index] = meta.remaining

    # agreement.p4 ---------------------------------------------------------------------------------

    def _agreement(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        meta.scatter = agg.flags & SCATTER_MASK if agg.flags & FLAG_SCATTER else 0
        key = agg.fingerprint ^ (agg.flags & OPENING_MASK if meta.opening == 1 else meta.scatter)
        fingerprint, mismatch = self.registers[FINGERPRINT], self.registers[MISMATCH]
        if meta.retransmission == 1:
            meta.mismatch = mismatch[meta.index]
            meta.stale = 1 if fingerprint[meta.index] != key else 0
        elif meta.first == 1:
            fingerprint[meta.index] = key
            mismatch[meta.index] = 0
            meta.mismatch = 0
        else:
            if fingerprint[meta.index] != key:
                mismatch[meta.index] = 1
            if meta.remaining == 0:
                meta.mismatch = mismatch[meta.index]

    # uplink.p4 ------------------------------------------------------------------------------------

    def _uplink(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        i = meta.index
        awaiting, parent_mismatch = self.registers[AWAITING], self.registers[PARENT_MISMATCH]
        if meta.from_parent == 1:
            self._check_parent(pkt)
            if meta.parent_ok == 1:
                awaiting[i] = 0
                parent_mismatch[i] = 1 if agg.flags & FLAG_MISMATCH else 0
                meta.awaiting = 0
        elif self._apply_table(UPLINKS, pkt) and meta.remaining == 0:
            if meta.retransmission == 1:
                meta.awaiting = awaiting[i]
                meta.mismatch |= parent_mismatch[i]
            else:  # a local round complete: it goes up now and waits for its answer
                awaiting[i] = 1
                self.registers[SENT_ROUND][i] = meta.opening << 32 | agg.block
                self.registers[SENT_FINGERPRINT][i] = agg.fingerprint
                parent_mismatch[i] = 0
                meta.awaiting = 1

    def _check_parent(self, pkt: Packet) -> None:
        """Does a parent's RESULT answer the round waiting in its cell?"""
        agg, meta = pkt.hdr.agg, pkt.meta
        meta.awaiting = self.registers[AWAITING][meta.index]
        sent = self.registers[SENT_ROUND][meta.index]
        fingerprint = self.registers[SENT_FINGERPRINT][meta.index]
        meta.opening = sent >> 32
        same_round = sent >> 32 == 1 or sent & 0xFFFFFFFF == agg.block
        same_allreduce = bool(agg.flags & FLAG_MISMATCH) or agg.fingerprint in (fingerprint, fingerprint ^ POISON)
        meta.parent_ok = 1 if meta.awaiting == 1 and same_round and same_allreduce else 0

    # opening.p4 -----------------------------------------------------------------------------------

    def _opening(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        i = meta.index
        first_key, repeat = self.registers[FIRST_KEY], self.registers[REPEAT]
        # read_state: the round's state before this packet
        meta.first_key, meta.repeat = first_key[i], repeat[i]
        k1_old = meta.first_key >> 8
        own = _key(agg.block, agg.exp)
        nxt = _key(agg.next_block, agg.next_exp)
        h = 1 if agg.count == 0 and agg.block != NONE else 0  # header-only about a block
        if meta.from_parent == 1:  # take_parent: the parent's b*, e*, owner bits and REPEAT
            meta.first_key = own << 8 | agg.flags & SCATTER_MASK
            meta.repeat = 1 if agg.block == agg.next_block and agg.block != NONE and agg.count == 0 else 0
        elif meta.retransmission == 1:
            return
        elif meta.first == 1 or agg.block < meta.first_key >> 16:  # take_block: b* so far
            meta.first_key = own << 8 | meta.scatter
            meta.repeat = h
            meta.announce = nxt if meta.first == 1 or nxt < k1_old else k1_old
            meta.restart = 1
            meta.overwrite = 1
        elif agg.block == meta.first_key >> 16:  # same_block
            if own < k1_old:
                meta.first_key = own << 8 | meta.scatter
            if own != k1_old or h == 1:
                meta.repeat = 1
            meta.announce = nxt
            meta.overwrite = 1 if own < k1_old else 0
            meta.ignore = 1 if own > k1_old else 0
        else:  # larger_block: only an announcement after b*, no write
            meta.announce = own
            meta.ignore = 1
            return
        first_key[i], repeat[i] = meta.first_key, meta.repeat

    # lookahead.p4 ---------------------------------------------------------------------------------

    def _lookahead(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        min_key = self.registers[MIN_KEY]
        if meta.from_parent == 1:
            meta.min_key = _key(agg.next_block, agg.next_exp)
            min_key[meta.index] = meta.min_key
        elif meta.retransmission == 1:
            meta.min_key = min_key[meta.index]
        else:
            key = meta.announce if meta.opening == 1 else _key(agg.next_block, agg.next_exp)
            meta.min_key = min_key[meta.index]
            if meta.first == 1 or meta.restart == 1 or key < meta.min_key:
                meta.min_key = key
            min_key[meta.index] = meta.min_key

    # values.p4 ------------------------------------------------------------------------------------

    def _values(self, pkt: Packet) -> None:
        vals, meta = pkt.hdr.vals, pkt.meta
        if meta.from_parent == 1:  # the parent's sums replace the partial ones
            self._store_or_hold_nothing(pkt)
        elif meta.retransmission == 0:
            if meta.first == 1 or meta.overwrite == 1:
                self._store_or_hold_nothing(pkt)
            elif vals.valid and meta.ignore == 0:
                if self.registers[HELD][meta.index] == 1:
                    self._add_values(pkt)
                else:
                    self._store_values(pkt)
        # It leaves as the RESULT without the running sums in hand: read them (or zeros).
        if meta.from_parent == 0 and (
            meta.retransmission == 1 or (meta.remaining == 0 and (not vals.valid or meta.ignore == 1))
        ):
            meta.held = self.registers[HELD][meta.index]
            vals.valid = True
            pkt.hdr.agg.count = VALUES
            if meta.held == 1:
                vals.v = [self.registers[r][meta.index] for r in VALUE_REGISTERS]
            else:
                vals.v = [0] * VALUES
                meta.no_sums = 1

    def _store_or_hold_nothing(self, pkt: Packet) -> None:
        if pkt.hdr.vals.valid:
            self._store_values(pkt)
        else:
            self.registers[HELD][pkt.meta.index] = 0

    def _store_values(self, pkt: Packet) -> None:
        i = pkt.meta.index
        for register, value in zip(VALUE_REGISTERS, pkt.hdr.vals.v, strict=True):
            self.registers[register][i] = value
        self.registers[HELD][i] = 1

    def _add_values(self, pkt: Packet) -> None:
        """The packet leaves carrying the running sums (int32 wrap-around)."""
        i, vals = pkt.meta.index, pkt.hdr.vals
        for n, register in enumerate(VALUE_REGISTERS):
            vals.v[n] = (vals.v[n] + self.registers[register][i]) & 0xFFFFFFFF
            self.registers[register][i] = vals.v[n]

    # next_step.p4: NextStep -------------------------------------------------------------------------

    def _next_step(self, pkt: Packet, step: int) -> None:
        meta = pkt.meta
        if step == STEP_CONSUME:
            self._mark_to_drop(pkt)
        elif step == STEP_JOINED:
            self._joined(pkt)
        elif step == STEP_FROM_PARENT:
            self._parent_result_down(pkt)
        elif step == STEP_PARENT_ERROR:
            self._parent_error_down(pkt)
        elif step == STEP_UPSTREAM:
            self._to_parent(pkt)
            if meta.opening == 1:
                self._opening_to_parent(pkt)
            # Header-only: no block, the leaf's REPEAT, or no local worker held the round's block.
            if pkt.hdr.agg.block == NONE or (meta.opening == 1 and meta.repeat == 1) or meta.no_sums == 1:
                self._no_values(pkt)
            self._set_lengths(pkt)
        else:
            if meta.opening == 1:
                self._opening_result(pkt)
                if pkt.hdr.agg.block == NONE:  # empty_result: nobody holds anything
                    self._no_values(pkt)
                    meta.min_key = NONE << 8 | meta.min_key & 0xFF
                elif meta.repeat == 1:  # repeat_result: b* at e* again
                    self._no_values(pkt)
                    meta.min_key = meta.first_key >> 8
            self._result_from_aggregator(pkt)
            if step == STEP_MULTICAST:
                meta.unicast = 0
                pkt.standard_metadata.mcast_grp = meta.mgid
            else:
                self._to_sender(pkt)

    @staticmethod
    def _set_lengths(pkt: Packet) -> None:
        """UDP and IPv4 lengths of what is emitted: header only, or header and B values."""
        agg_len = AGG_HDR_LEN + (AGG_VALUES_LEN if pkt.hdr.vals.valid else 0)
        pkt.hdr.udp.length = UDP_HDR_LEN + agg_len
        pkt.hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len

    def _answer_from_aggregator(self, pkt: Packet) -> None:
        hdr = pkt.hdr
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr
        hdr.udp.src_port = hdr.udp.dst_port
        self._set_lengths(pkt)
        hdr.udp.checksum = 0
        pkt.meta.is_answer = 1

    def _result_from_aggregator(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        self._answer_from_aggregator(pkt)
        agg.msg_type = MsgType.RESULT
        agg.flags = meta.scatter | (FLAG_MISMATCH if meta.mismatch == 1 else 0)
        agg.next_block = meta.min_key >> 8 & 0xFFFFFFFF
        agg.next_exp = (255 - (meta.min_key & 0xFF)) & 0xFF

    @staticmethod
    def _opening_result(pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        agg.block = meta.first_key >> 16
        agg.exp = (255 - (meta.first_key >> 8 & 0xFF)) & 0xFF
        meta.scatter = meta.first_key & 0xFF

    @staticmethod
    def _no_values(pkt: Packet) -> None:
        pkt.hdr.vals.valid = False
        pkt.hdr.agg.count = 0

    @staticmethod
    def _to_sender(pkt: Packet) -> None:
        pkt.meta.unicast = 1
        pkt.standard_metadata.egress_spec = pkt.standard_metadata.ingress_port

    def _joined(self, pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        self._answer_from_aggregator(pkt)
        agg.msg_type = MsgType.JOINED
        agg.flags = 0
        agg.shadow = 0
        agg.slot = meta.slot_base & 0x7FFF
        agg.block = VALUES
        agg.next_block = meta.num_slots
        agg.exp = MODE_DENSE
        agg.next_exp = meta.num_workers
        agg.session = meta.session
        agg.blocks = 0
        agg.fingerprint = 0
        self._to_sender(pkt)

    @staticmethod
    def _to_parent(pkt: Packet) -> None:
        hdr, meta = pkt.hdr, pkt.meta
        hdr.ethernet.src_addr, hdr.ethernet.dst_addr = hdr.ethernet.dst_addr, meta.up_mac
        hdr.ipv4.src_addr, hdr.ipv4.dst_addr = hdr.ipv4.dst_addr, meta.up_ip
        hdr.udp.src_port, hdr.udp.dst_port = hdr.udp.dst_port, meta.up_udp_port
        hdr.udp.checksum = 0
        agg = hdr.agg
        agg.msg_type = MsgType.DATA
        agg.job_id, agg.worker_id, agg.session = meta.up_job, meta.up_rank, meta.up_session
        agg.flags = meta.scatter
        agg.next_block = meta.min_key >> 8 & 0xFFFFFFFF
        agg.next_exp = (255 - (meta.min_key & 0xFF)) & 0xFF
        if meta.mismatch == 1:
            agg.fingerprint ^= POISON  # the parent's round then fails every worker of the job
        meta.upstream = 1
        pkt.standard_metadata.egress_spec = meta.up_port

    @staticmethod
    def _opening_to_parent(pkt: Packet) -> None:
        agg, meta = pkt.hdr.agg, pkt.meta
        agg.block = meta.first_key >> 16
        agg.exp = (255 - (meta.first_key >> 8 & 0xFF)) & 0xFF
        agg.flags = FLAG_OPENING | meta.first_key & 0xFF

    def _parent_result_down(self, pkt: Packet) -> None:
        self._answer_from_aggregator(pkt)
        pkt.hdr.agg.job_id, pkt.hdr.agg.session = pkt.meta.job_id, pkt.meta.session
        pkt.meta.unicast = 0
        pkt.standard_metadata.mcast_grp = pkt.meta.mgid

    def _parent_error_down(self, pkt: Packet) -> None:
        agg = pkt.hdr.agg
        self._answer_from_aggregator(pkt)
        agg.job_id, agg.session = pkt.meta.job_id, pkt.meta.session
        agg.next_block, agg.block = agg.block, ERROR_UPSTREAM
        pkt.meta.unicast = 0
        pkt.standard_metadata.mcast_grp = pkt.meta.mgid

    # the traffic manager, egress.p4, the checksum update and the deparser ----------------------------

    def _traffic_manager(self, pkt: Packet) -> list[tuple[int, bytes]]:
        sm = pkt.standard_metadata
        if sm.mcast_grp != 0:  # wins over egress_spec; the original is discarded
            copies = list(self.multicast_groups.get(sm.mcast_grp, ()))
        elif sm.egress_spec == DROP_PORT:
            return []
        else:
            copies = [(sm.egress_spec, 0)]
        out = []
        for port, rid in copies:
            replica = copy.deepcopy(pkt)
            replica.standard_metadata.egress_port = port
            replica.standard_metadata.egress_rid = rid
            replica.standard_metadata.egress_spec = DROP_PORT + 1  # simple_switch: dropped only if egress says so
            self._egress(replica)
            if replica.standard_metadata.egress_spec == DROP_PORT:
                continue
            self._compute_checksum(replica)
            out.append((port, self._deparse(replica)))
        return out

    def _egress(self, pkt: Packet) -> None:
        hdr, meta, sm = pkt.hdr, pkt.meta, pkt.standard_metadata
        if meta.is_answer == 1:
            # name_receiver: a multicast copy's replica id is the worker id; a re-send's, the sender's.
            meta.dest_worker = hdr.agg.worker_id if meta.unicast == 1 else sm.egress_rid & 0xFF
            hdr.agg.worker_id = meta.dest_worker
            if hdr.vals.valid and hdr.agg.flags & FLAG_SCATTER and hdr.agg.flags >> OWNER_SHIFT != meta.dest_worker:
                self._no_values(pkt)  # header_only: a reduce-scatter's values go to the owner only
                hdr.udp.length = UDP_HDR_LEN + AGG_HDR_LEN
                hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN
            self._apply_table(RESULT_DEST, pkt)
        elif meta.upstream == 0 and sm.egress_port == sm.ingress_port:
            self._mark_to_drop(pkt)  # no echo of ordinary frames to their sender

    @staticmethod
    def _compute_checksum(pkt: Packet) -> None:
        """P4ReduceComputeChecksum: only rewritten IPv4 headers (answers, upstream DATA)."""
        ipv4 = pkt.hdr.ipv4
        if ipv4.valid and (pkt.meta.is_answer == 1 or pkt.meta.upstream == 1):
            ipv4.hdr_checksum = ipv4.csum16()

    @staticmethod
    def _deparse(pkt: Packet) -> bytes:
        hdr = pkt.hdr
        parts: Sequence[PacketIn | Ethernet | IPv4 | Udp | Agg | Vals] = (
            hdr.packet_in,
            hdr.ethernet,
            hdr.ipv4,
            hdr.udp,
            hdr.agg,
            hdr.vals,
        )
        return b"".join(h.pack() for h in parts if h.valid) + pkt.payload
