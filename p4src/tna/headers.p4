// Headers and metadata of the p4reduce TNA program.
#ifndef P4REDUCE_TNA_HEADERS_P4
#define P4REDUCE_TNA_HEADERS_P4

// Prepended by the ingress deparser to every packet it sends on: egress reads it
// (TNA hands no user metadata from ingress to egress), and a recirculating
// packet brings it back to ingress for its harvest pass. Never on the wire.
header bridged_h {
    bridged_kind_t kind;
    bit<1>  unicast;        // to the sender only (re-send, JOINED), not to the job's group
    bit<6>  _pad0;
    bit<1>  opening;        // a DATA with OPENING, so its RESULT's harvest pass finishes an opening
                            // round (opening.p4); bit 0 of its byte, as OPENING in flags
    bit<7>  _pad1;
    PortId_t ingress_port;  // where the packet entered the switch (before any recirculation)
    MulticastGroupId_t mgid; // the job's group, for a harvested RESULT
}

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header udp_h {
    udp_port_t src_port;
    udp_port_t dst_port;
    bit<16>    length;
    bit<16>    checksum;
}

// docs/protocol.md section 2 (same field names as the v1model program and the
// Python codec). `version` is the protocol version; the top bit of `pool` is
// `shadow`, which of the slot's two register copies the round uses.
header agg_h {
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
    bit<32> session;     // must be the job's (admission.p4); JOINED hands it out
    bit<32> blocks;      // blocks of the allreduce's tensor: bounds block and next_block
    bit<32> fingerprint; // CRC-32 of the allreduce (epoch, tensor, scaling): agreement.p4
}

// 32 of the B = 64 values. vals_a carries values 0..31 and vals_b values
// 32..63 of the block: pair register NN of values.p4 holds values NN and NN + 32.
header values_h {
    value_t v00; value_t v01; value_t v02; value_t v03;
    value_t v04; value_t v05; value_t v06; value_t v07;
    value_t v08; value_t v09; value_t v10; value_t v11;
    value_t v12; value_t v13; value_t v14; value_t v15;
    value_t v16; value_t v17; value_t v18; value_t v19;
    value_t v20; value_t v21; value_t v22; value_t v23;
    value_t v24; value_t v25; value_t v26; value_t v27;
    value_t v28; value_t v29; value_t v30; value_t v31;
}

// map_result = (the seen bitmap's output) & worker_bit is one ALU operation,
// which needs its operands in whole, equally aligned containers (the backend
// otherwise splits them into bytes at different offsets).
@pa_container_size("ingress", "ig_md.map_result", 32)
@pa_container_size("ingress", "ig_md.worker_bit", 32)
struct header_t {
    bridged_h  bridged;
    ethernet_h ethernet;
    ipv4_h     ipv4;
    udp_h      udp;
    agg_h      agg;
    values_h   vals_a;
    values_h   vals_b;
}

struct ingress_metadata_t {
    // From the parser.
    bit<1>  harvest;            // second pass of a RESULT (from the recirculation port)
    bit<1>  opening;            // DATA: flags bit 0 (OPENING); harvest pass: an opening round's RESULT
    bool    checksum_ok;        // the IPv4 header checksum verifies (only meaningful with IPv4)
    // Copies of hdr.agg's pool, made by the parser: the MAU compares and slices
    // these, never the 15-bit header field (which shares its container with
    // `shadow` and must stay whole for the deparser).
    bit<1>  shadow;
    bit<16> slot;
    // Stage 0, from the header alone (admission.p4).
    bit<1>  malformed;          // fails a format check (version, type, count, lengths, checksum, parser)
    bit<1>  holds_block;        // block != NONE
    bit<1>  next_announced;     // next_block != NONE
    // Stage 0, the sender's entry in admission.workers (its action data).
    bit<1>  admitted;           // the entry matched
    worker_bitmap_t worker_bit; // 1 << worker_id, installed by the controller
    bit<8>  num_workers;
    MulticastGroupId_t mgid;
    bit<16> pool;               // slot_base: JOINED's shadow (0) and slot; the job's job_events cells
    // JOINED's next_block (S): the control plane gives it, 32 bits wide (an ALU
    // takes its operands from containers of the destination's size), so that
    // the data plane needs no 32-bit copies of slot_base and slot_end.
    bit<32> num_slots;
    // Admission checks, each one ALU operation of the entry's action, so that
    // stage 1 only matches them against 0 (seen_bitmap.p4's admit table).
    bit<16> job_diff;           // header job_id ^ entry's: 0 if equal
    bit<8>  worker_diff;        // header worker_id ^ entry's: 0 if equal
    bit<32> session_diff;       // header session ^ job's: 0 if equal (JOINED: the job's, a JOIN carries 0)
    bit<8>  rank_room;          // num_workers |-| worker_id: 0 if not a rank of the job
    bit<16> below_base;         // slot_base |-| slot: 0 if slot >= slot_base
    bit<16> end_room;           // slot_end |-| slot: 0 if slot >= slot_end
    bit<32> block_room;         // blocks |-| block: 0 if block is beyond the tensor
    bit<32> next_room;          // blocks |-| next_block: 0 if next_block is beyond it
    // A leaf job (uplink.p4).
    bit<1>  from_parent;        // stage 0: `parents` admitted a RESULT or ERROR of the parent job;
                                // cleared if admission then rejects it
    // The leaf role's two registers answer into one field (uplink.p4): stage 0's
    // sent_block (to a RESULT: 1 if the round sent up was an opening round or had its
    // block; in a harvest pass the AWAIT_* state to record), which stage 1's awaiting
    // register reads, then the awaiting register's answer (AWAIT_*: to a parent's
    // RESULT, the state it found if taken; to a re-send, whether the round still awaits).
    bit<8>  awaiting;
    // Stage 1: what admission decided (seen_bitmap.p4).
    bit<1>  accepted;           // counted, or a retransmission: the round's registers run
    bit<32> own_key;            // key(block, exp): an opening DATA's own block (types.p4: 32-bit keys)
    bit<32> next_key;           // key(next_block, next_exp): its look-ahead (lookahead.p4's MAKE_KEYS)
    // The round's registers.
    slot_index_t slot_index;    // the seen bitmap's index (slot)
    cell_index_t cell;          // every other register's index (shadow ++ slot)
    worker_bitmap_t bitmap_before; // seen bitmap of this round before this packet: 0 = first
    worker_bitmap_t map_result; // bitmap_before & worker_bit: not 0 = retransmission
    position_t position;        // the same answer for stage 3 on: ROUND_* (countdown.p4)
    bit<8>  remaining;          // workers the round still waits for (0: complete)
    bit<8>  verdict;            // VERDICT_*: agreement.p4
    // SCATTER/owner bits (flags & SCATTER_MASK, 0 without SCATTER); in an opening DATA
    // bit 0 is 1 for a header-only one (count = 0): agreement.p4, opening.p4.
    bit<8>  scatter;
    bit<32> agreement_key;      // fingerprint ^ (flags & SCATTER_MASK or OPENING_MASK): what the round's packets must agree on
    // The opening round (opening.p4), stage 2: what first_key answered (a code). (What
    // the packet does to K2, its candidate, goes to the header's next_block.)
    bit<32> first_code;
    bit<8>  first_flags;        // harvest pass of an opening round: K1's SCATTER/owner bits | repeat
    value_op_t value_op;        // what the pairs do (values.p4)
    // Counting: one cell of Ingress.events per packet, and for an admitted
    // packet one cell of its job's in Ingress.job_events.
    event_t event;
    bit<1>  count_event;
    job_event_t job_event;
}

struct egress_metadata_t {
    worker_id_t dest_worker;    // key of Egress.result_dest
    bit<1>  update_checksum;    // an answer: its IPv4 header was rewritten
}

// An answer comes from the address the workers send to (the packet's
// destination); egress fills in each copy's destination.
#define ANSWER_FROM_AGGREGATOR \
    hdr.ethernet.src_addr = hdr.ethernet.dst_addr; \
    hdr.ipv4.src_addr = hdr.ipv4.dst_addr; \
    hdr.udp.src_port = hdr.udp.dst_port;  /* AGG_UDP_PORT, checked by the parser */

#endif

// SPDX-License-Identifier: Apache-2.0
