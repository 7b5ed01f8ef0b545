// Constants, headers and metadata of the p4reduce switch program.
// Wire format: docs/protocol.md section 2 (36-byte aggregation header,
// protocol version 3); switch constants and control-plane contract: section 8.
// The Python side keeps the same numbers in p4reduce/protocol/codec.py and
// p4reduce/protocol/switch.py; tests/test_switch_constants.py compares them.
#ifndef P4REDUCE_HEADERS_P4
#define P4REDUCE_HEADERS_P4

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

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

// docs/protocol.md section 2. `version` is the protocol version; which of the
// slot's two register copies the round uses is the top bit of `pool`: `shadow`.
header agg_t {
    bit<8>  version;
    bit<8>  msg_type;
    bit<16> job_id;
    bit<8>  worker_id;
    bit<8>  flags;
    bit<1>  shadow;
    bit<15> slot;
    bit<32> epoch;       // copied into results; compared only through the fingerprint
    bit<32> block;
    bit<32> next_block;
    bit<8>  exp;
    bit<8>  next_exp;
    bit<16> count;
    bit<32> session;     // must be the job's (worker_check); JOINED hands it out
    bit<32> blocks;      // blocks of the allreduce's tensor: bounds block and next_block
    bit<32> fingerprint; // CRC-32 of the allreduce (epoch, tensor, scaling): agreement.p4
}

// The B = 32 values, one field per value register array (values.p4).
header agg_values_t {
    bit<32> v00; bit<32> v01; bit<32> v02; bit<32> v03;
    bit<32> v04; bit<32> v05; bit<32> v06; bit<32> v07;
    bit<32> v08; bit<32> v09; bit<32> v10; bit<32> v11;
    bit<32> v12; bit<32> v13; bit<32> v14; bit<32> v15;
    bit<32> v16; bit<32> v17; bit<32> v18; bit<32> v19;
    bit<32> v20; bit<32> v21; bit<32> v22; bit<32> v23;
    bit<32> v24; bit<32> v25; bit<32> v26; bit<32> v27;
    bit<32> v28; bit<32> v29; bit<32> v30; bit<32> v31;
}

// What the switch hands its controller with a packet (P4Runtime PacketIn): the port it
// came in on. Only a JOIN from an unknown worker goes there: the job service learns the
// worker's port from it (docs/protocol.md section 8).
@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

struct headers_t {
    packet_in_t  packet_in;  // valid only on the way to the controller
    ethernet_t   ethernet;
    ipv4_t       ipv4;
    udp_t        udp;
    agg_t        agg;
    agg_values_t vals;
}

struct metadata_t {
    // Action data of the sender's entry in worker_check.workers.
    bit<16> job_id;
    bit<8>  worker_id;
    bit<8>  num_workers;
    bit<16> mgid;
    bit<16> slot_base;
    bit<16> num_slots;
    bit<32> session;
    // Per packet, ingress.
    bit<32> worker_bit;     // 1 << worker_id
    bit<32> index;          // register cell of this round: shadow * NUM_SLOTS + slot
    bit<32> other_index;    // the same slot's cell of the other shadow copy
    bit<1>  first;          // first counted packet of the round: overwrite, don't add
    bit<1>  retransmission; // this worker was already counted in this round
    bit<8>  remaining;      // workers the round still waits for (0: complete)
    bit<40> min_key;        // the round's look-ahead minimum so far (lookahead.p4)
    bit<1>  mismatch;       // the round's counted packets disagree on the fingerprint
    bit<8>  scatter;        // this packet's SCATTER/owner bits (flags & SCATTER_MASK, 0 without SCATTER)
    bit<1>  stale;          // a retransmission whose fingerprint is not the stored round's
    bit<1>  held;           // the value registers hold sums of this round (values.p4)
    bit<1>  opening;        // DATA of an opening round (flag OPENING): opening.p4 decides
    // Set by opening.p4 for an opening packet only (0 in data rounds: plain rules).
    bit<48> first_key;      // K1 ++ SCATTER/owner bits of the packet that set it, after this packet
    bit<1>  repeat;         // the opening round's RESULT is a REPEAT (so far)
    bit<40> announce;       // the key this packet brings to K2 (lookahead.p4)
    bit<1>  restart;        // K2 starts over from `announce`
    bit<1>  overwrite;      // the packet's values (or none) replace the sums (values.p4)
    bit<1>  ignore;         // its values are not b*'s: the sums are left alone
    // Towards egress: BMv2 copies user metadata into every multicast replica.
    bit<1>  is_answer;      // a RESULT or JOINED leaving the switch: address it to a worker
    bit<1>  unicast;        // to the sender only (re-send, JOINED), not a multicast copy
    bit<8>  dest_worker;    // key of P4ReduceEgress.result_dest
    // A leaf job (uplink.p4): its uplink entry's action data ...
    bit<1>  leaf;           // the job's rounds go to a parent, not to its workers
    bit<16> up_job;         // the parent job, in which this switch is rank up_rank
    bit<8>  up_rank;
    bit<32> up_session;     // the parent job's session (its JOINED)
    bit<9>  up_port;        // towards the parent, and the parent's address
    bit<48> up_mac;
    bit<32> up_ip;
    bit<16> up_udp_port;
    // ... and per packet.
    bit<1>  from_parent;    // a RESULT of the parent job for this leaf job (worker_check.parents)
    bit<1>  parent_ok;      // ... answering the round the leaf sent it: taken
    bit<1>  awaiting;       // the round went upstream and the parent has not answered yet
    bit<1>  no_sums;        // no packet of the round carried values (values.p4): upstream header-only
    bit<1>  upstream;       // leaving towards the parent: egress leaves it as it is
}

#endif

// SPDX-License-Identifier: Apache-2.0
