// Typedefs, enums and constants of the p4reduce TNA (Tofino 1) program.
// Wire format: docs/protocol.md section 2 (36-byte aggregation header, protocol
// version 3); this target's constants: section 8, "TNA (Tofino)". The Python side
// keeps the wire numbers in p4reduce/protocol; tests/test_tna_program.py compares
// the constants below with it and with the spec. Resource plan: README.md here.
#ifndef P4REDUCE_TNA_TYPES_P4
#define P4REDUCE_TNA_TYPES_P4

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<16> udp_port_t;
typedef bit<16> job_id_t;
typedef bit<8>  worker_id_t;
typedef bit<32> worker_bitmap_t;   // one bit per worker of a job
typedef bit<32> value_t;           // one int32 sum (two's complement, wraps like the v1model program)
typedef bit<4>  event_t;           // cell of the events counter (NUM_EVENTS; 4 bits: ingress PHV is full)

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP = 17;

// --- Protocol (docs/protocol.md sections 1 and 2) ---
const bit<16> AGG_UDP_PORT = 48864;     // 0xBEE0: what workers send to
const bit<8>  PROTOCOL_VERSION = 3;
const bit<8>  MSG_DATA = 1;
const bit<8>  MSG_RESULT = 2;           // also what a leaf job's parent answers it with (uplink.p4)
const bit<8>  MSG_JOIN = 6;             // answered by the switch itself, with JOINED
const bit<8>  MSG_JOINED = 7;
const bit<8>  MSG_ERROR = 8;            // only from a leaf job's parent: passed on as UPSTREAM (uplink.p4)
const bit<32> ERROR_UPSTREAM = 8;       // ERROR code (block): the parent failed the leaf's job
const bit<8>  FLAG_OPENING = 1;         // DATA flags: the packet belongs to its stream's opening round (section 3)
const bit<8>  FLAG_MISMATCH = 2;        // RESULT flags: the round's fingerprints (or owners) differed
const bit<8>  FLAG_SCATTER = 4;         // DATA/RESULT flags: a reduce-scatter (section 3.1)
const bit<8>  SCATTER_MASK = 0xFC;      // SCATTER and the owner (bits 7..3): equal in a data round
const bit<8>  OPENING_MASK = 0x05;      // OPENING and SCATTER: equal in an opening round
const bit<8>  OWNER_SHIFT = 3;          // owner = flags >> OWNER_SHIFT when SCATTER is set
const bit<8>  MODE_DENSE = 1;           // how JOIN/JOINED carry the mode (exp); the switch's only one
const bit<32> BLOCK_NONE = 0xFFFFFFFF;  // an opening DATA of a worker holding nothing / end of stream
// A leaf job's round whose local packets disagreed goes upstream with its fingerprint
// XOR this (docs/protocol.md section 5's poison), so the parent's round fails everywhere.
const bit<32> POISON = 0xFFFFFFFF;

// Look-ahead keys (docs/protocol.md section 3: key(b, e) = b << 8 | (255 - e)) in one
// 32-bit word: the low 24 bits of the block, then 255 - e. A Tofino 1 stateful ALU
// compares 32-bit words, so a 40-bit key would cost a register per word and a stage
// per comparison (lookahead.p4). The word orders keys exactly as the spec's 40-bit
// key as long as every block is below 2^24 - 1: admission takes only DATA whose
// `blocks` is at most MAX_BLOCKS (section 8, "TNA (Tofino)"), and NONE's low 24 bits,
// 0xFFFFFF, are then above every block, as NONE is in the spec's key.
const bit<32> MAX_BLOCKS = 0xFFFFFF;    // 2^24 - 1 blocks of B values per tensor
const bit<32> KEY_BLOCK_MASK = 0xFFFFFF00;
const bit<32> KEY_ONE_BLOCK = 0x100;    // key(b + 1, e) - key(b, e)
// What opening.p4's first_key register answers a later opening DATA whose key equals
// K1 (the same block at the same exponent): a key with exponent byte 0, which is
// none of the keys it answers otherwise when the packet's block is K1's (opening.p4).
const bit<32> CODE_SAME_KEY = 0x100;

// --- Switch constants (docs/protocol.md section 8, "TNA (Tofino)") ---
// B = 64 int32 values per packet (SwitchML's 256-byte payload): 32 register
// pairs, each pair holding values i and i + 32 of its cell. The only non-zero
// `count` this switch accepts; JOINED tells the workers.
const bit<16> VALUES_PER_PACKET = 64;
#define VALUE_PAIRS 32
// 8192 slots. Per-round registers hold both shadow copies: cell index
// shadow * NUM_SLOTS + slot, i.e. the shadow bit on bit SLOT_BITS. 16384 cells
// of 64 bits is the largest power-of-two register that lets four stateful ALUs
// of a Tofino 1 stage each have one (README.md).
#define NUM_SLOTS 8192
#define SLOT_BITS 13
#define REGISTER_SIZE 16384
typedef bit<13> slot_index_t;      // index of per-slot registers (the seen bitmap pair)
typedef bit<14> cell_index_t;      // index of per-round registers: shadow ++ slot
// At most 32 workers per job: one bit each in the 32-bit seen bitmap.
const bit<8>  MAX_WORKERS = 32;

// Byte counts used to rewrite the lengths of an answer.
const bit<16> IPV4_HDR_LEN = 20;
const bit<16> UDP_HDR_LEN = 8;
const bit<16> AGG_HDR_LEN = 36;
const bit<16> AGG_VALUES_LEN = 256;     // VALUES_PER_PACKET * 4

// A Tofino 1 stateful ALU returns one 32-bit word per pass, so the packet that
// completes a round (or asks for it again) makes a second pass through its own
// pipe to read the first word of every pair and, after an opening round, K1 and
// its flags ("harvest"). Port 68 of every Tofino 1 pipe is that pipe's
// recirculation port.
const bit<7>  RECIRC_PORT_IN_PIPE = 68;

// What the ingress pipeline tells the next stop of a packet (bridged header).
enum bit<8> bridged_kind_t {
    FORWARD = 1,   // ordinary traffic (forwarding.l2)
    ANSWER  = 2,   // a RESULT or JOINED for one worker: egress addresses it
    HARVEST = 3,   // recirculating: read the first words of the sums, then answer
    UPSTREAM = 4   // a leaf job's round as one DATA of its parent job (uplink.p4): egress fixes the lengths
}

// Where an accepted packet stands in its round (countdown.p4, from the seen bitmap).
typedef bit<2> position_t;
const position_t ROUND_FIRST = 1;           // the first counted packet
const position_t ROUND_LATER = 2;           // a later counted one
const position_t ROUND_RETRANSMISSION = 3;  // its worker was counted already

// What a pair of values.p4 does with a packet (ValueOp decides in stage 3, for the
// pairs of stages 4 to 11): nothing, overwrite the sums, add to them, return the
// second words (ignored or retransmitted values), or, in the harvest pass, return
// the first words.
typedef bit<3> value_op_t;
const value_op_t VALUE_NONE = 0;
const value_op_t VALUE_WRITE = 1;
const value_op_t VALUE_ADD = 2;
const value_op_t VALUE_READ = 3;
const value_op_t VALUE_HARVEST = 4;

// The leaf role (uplink.p4): what its awaiting register holds (state) and answers
// (ig_md.awaiting).
const bit<8> AWAIT_ANSWERED = 0;   // the parent answered (or nothing was sent; or a RESULT not taken)
const bit<8> AWAIT_MISMATCH = 1;   // the parent answered with MISMATCH: re-sends carry it
const bit<8> AWAIT_DATA = 2;       // a data round went up and waits (taken: its answer)
const bit<8> AWAIT_OPENING = 3;    // an opening round went up and waits (taken: its answer)

struct awaiting_t {
    bit<32> state;        // AWAIT_*
    bit<32> fingerprint;  // the round's (the completing packet's, before any poison)
}

// What agreement.p4 says about a round (stored per cell, returned per packet).
// 0 (no such round: fingerprint differs) is what a retransmission of another
// allreduce gets; it is never stored.
const bit<8>  VERDICT_STALE = 0;
const bit<8>  VERDICT_AGREE = 1;
const bit<8>  VERDICT_MISMATCH = 2;

// --- Cells of the counter Ingress.events (docs/protocol.md section 8) ---
// Same codes as the v1model program. One cell per packet here: a counted
// packet that completes a round counts EV_RESULT_MULTICAST only (not also
// EV_DATA_COUNTED; a leaf job's, EV_UPSTREAM only), so counted packets = cell 0 +
// cell 1 (+ a leaf's rounds in cell 12, which also counts its re-sends upstream).
const event_t EV_DATA_COUNTED = 0;
const event_t EV_RESULT_MULTICAST = 1;
const event_t EV_RESULT_UNICAST = 2;
const event_t EV_RETRANSMIT_DROPPED = 3;  // retransmission into a round still open
const event_t EV_UNKNOWN_WORKER = 4;
const event_t EV_IDENTITY_MISMATCH = 5;
const event_t EV_BAD_SLOT = 6;
const event_t EV_MALFORMED = 7;
const event_t EV_FORWARDED = 8;
const event_t EV_JOINED = 9;              // JOIN answered with JOINED
const event_t EV_BAD_SESSION = 10;        // not the job's current session (old process, reset job)
const event_t EV_STALE = 11;              // retransmission of another allreduce: not answered
const event_t EV_UPSTREAM = 12;           // a leaf job's round sent to its parent (first time or again)
const event_t EV_FROM_PARENT = 13;        // a parent's RESULT taken and multicast, or its ERROR passed on
const event_t EV_PARENT_DROPPED = 14;     // a parent's RESULT for no round awaiting it (late copy, stale)
#define NUM_EVENTS 16

// --- Cells of the counter Ingress.job_events (docs/protocol.md section 8) ---
// NUM_JOB_EVENTS cells per job at slot_base * NUM_JOB_EVENTS (live jobs' slot
// ranges never overlap). Same codes as the v1model program, but one cell per
// packet, as in `events`: a Tofino counter counts once per packet, so
// JOB_EV_PACKETS here counts the admitted packets that are in no other cell
// (consumed DATA, JOINs answered), and the v1model program's cell 0 is the sum
// of the four.
typedef bit<2> job_event_t;
const job_event_t JOB_EV_PACKETS = 0;          // admitted, consumed or answered with JOINED
const job_event_t JOB_EV_DROPS = 1;            // admitted, then rejected (events 5, 6, 7, 10)
const job_event_t JOB_EV_RETRANSMISSIONS = 2;  // re-sent from the stored result, dropped (round open) or stale
const job_event_t JOB_EV_ROUNDS = 3;           // the packet that completed a round (result multicast, or sent up)
#define NUM_JOB_EVENTS 4
#define JOB_EVENTS_SIZE 32768                  // NUM_SLOTS * NUM_JOB_EVENTS

// Table sizes (entries).
#define WORKER_TABLE_SIZE 1024
#define L2_TABLE_SIZE 1024
#define RESULT_DEST_TABLE_SIZE 1024
#define UPLINK_TABLE_SIZE 64
#define PARENT_TABLE_SIZE 64

#endif

// SPDX-License-Identifier: Apache-2.0
