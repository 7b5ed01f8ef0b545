// Typedefs and constants of the p4reduce v1model program (the TNA program keeps its own in
// p4src/tna/types.p4, with the same names for the same things).
// Wire format: docs/protocol.md section 2 (36-byte aggregation header,
// protocol version 3); switch constants and control-plane contract: section 8.
// The wire constants are written here by tools/wire.py from p4reduce/protocol/wire.toml;
// tests/test_switch_constants.py compares the rest with p4reduce/protocol/switch.py.
#ifndef P4REDUCE_TYPES_P4
#define P4REDUCE_TYPES_P4

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<16> udp_port_t;
typedef bit<16> job_id_t;
typedef bit<8>  worker_id_t;
typedef bit<32> worker_bitmap_t;   // one bit per worker of a job
typedef bit<32> value_t;           // one int32 sum (two's complement, wraps)

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP = 17;

// --- Protocol (docs/protocol.md sections 1 and 2) ---
const bit<16> AGG_UDP_PORT = 48864;     // 0xBEE0: what workers send DATA to
const bit<8>  PROTOCOL_VERSION = 3;
const bit<8>  MSG_DATA = 1;
const bit<8>  MSG_RESULT = 2;          // also what a leaf job's parent answers it with (uplink.p4)
const bit<8>  MSG_JOIN = 6;             // answered by the switch itself, with JOINED
const bit<8>  MSG_JOINED = 7;
const bit<8>  MSG_ERROR = 8;            // only from a leaf job's parent: passed on as UPSTREAM (uplink.p4)
const bit<32> ERROR_UPSTREAM = 8;       // ERROR code (block): the parent failed the leaf's job
const bit<8>  FLAG_OPENING = 1;         // DATA flags: the opening round of its stream (opening.p4)
const bit<8>  FLAG_MISMATCH = 2;        // RESULT flags: the round's fingerprints (or owners) differed
const bit<8>  FLAG_SCATTER = 4;         // DATA/RESULT flags: a reduce-scatter (section 3.1)
const bit<8>  SCATTER_MASK = 0xFC;      // SCATTER and the owner (bits 7..3): equal in a round
const bit<8>  OPENING_MASK = 0x05;      // OPENING and SCATTER: equal in an opening round (owners differ)
const bit<8>  OWNER_SHIFT = 3;          // owner = flags >> OWNER_SHIFT when SCATTER is set
const bit<8>  MODE_DENSE = 1;           // how JOIN/JOINED carry the mode (exp); the switch's only one
const bit<32> BLOCK_NONE = 0xFFFFFFFF;  // block of an empty opening DATA / end of stream
// A leaf job's round whose local packets disagreed goes upstream with its fingerprint
// XOR this (docs/protocol.md section 5's poison), so the parent's round fails everywhere.
const bit<32> POISON = 0xFFFFFFFF;

// --- Switch constants (docs/protocol.md section 8) ---
// The port to the controller (simple_switch_grpc --cpu-port): a JOIN from an unknown
// worker goes there as a PacketIn.
const bit<9> CPU_PORT = 510;
// B = 32 int32 values per packet: the only non-zero `count` the switch accepts.
const bit<16> VALUES_PER_PACKET = 32;
// 1024 slots. Every per-slot register holds both shadow copies, at index
// shadow * NUM_SLOTS + slot, so the shadow bit lands on bit SLOT_BITS.
#define NUM_SLOTS 1024
#define SLOT_BITS 10
#define REGISTER_SIZE 2048
// At most 32 workers per job: one bit each in the 32-bit seen bitmap.
const bit<8>  MAX_WORKERS = 32;

// Byte counts used to rewrite the lengths of a RESULT.
const bit<16> IPV4_HDR_LEN = 20;
const bit<16> UDP_HDR_LEN = 8;
const bit<16> AGG_HDR_LEN = 36;
const bit<16> AGG_VALUES_LEN = 128;     // VALUES_PER_PACKET * 4

// --- Cells of the counter P4ReduceIngress.events (docs/protocol.md section 8) ---
const bit<32> EV_DATA_COUNTED = 0;
const bit<32> EV_RESULT_MULTICAST = 1;
const bit<32> EV_RESULT_UNICAST = 2;
const bit<32> EV_RETRANSMIT_DROPPED = 3;  // retransmission into a round still open
const bit<32> EV_UNKNOWN_WORKER = 4;
const bit<32> EV_IDENTITY_MISMATCH = 5;
const bit<32> EV_BAD_SLOT = 6;
const bit<32> EV_MALFORMED = 7;
const bit<32> EV_FORWARDED = 8;
const bit<32> EV_JOINED = 9;              // JOIN answered with JOINED
const bit<32> EV_BAD_SESSION = 10;        // not the job's current session (old process, reset job)
const bit<32> EV_STALE = 11;              // retransmission of another allreduce: not answered
const bit<32> EV_UPSTREAM = 12;           // a leaf job's round sent to its parent (first time or again)
const bit<32> EV_FROM_PARENT = 13;        // a parent's RESULT taken and multicast to the leaf's workers
const bit<32> EV_PARENT_DROPPED = 14;     // a parent's RESULT for no round awaiting it (late copy, stale)
#define NUM_EVENTS 16

// --- Cells of the counter P4ReduceIngress.job_events: NUM_JOB_EVENTS per job, at
// slot_base * NUM_JOB_EVENTS (a live job's slot_base is its own: ranges never overlap).
const bit<32> JOB_EV_PACKETS = 0;          // aggregation packets from one of the job's workers
const bit<32> JOB_EV_DROPS = 1;            // of those, rejected (malformed, identity, session, slot)
const bit<32> JOB_EV_RETRANSMISSIONS = 2;  // re-sent from the stored result, dropped (round open) or stale
const bit<32> JOB_EV_ROUNDS = 3;           // rounds completed (result multicast)
#define NUM_JOB_EVENTS 4
#define JOB_EVENT_BITS 2
#define JOB_EVENTS_SIZE 4096

#endif

// SPDX-License-Identifier: Apache-2.0
