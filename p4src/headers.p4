// Headers and metadata of the p4reduce v1model program (typedefs and constants: types.p4).
#ifndef P4REDUCE_HEADERS_P4
#define P4REDUCE_HEADERS_P4

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

// docs/protocol.md section 2. `version` is the protocol version; which of the
// slot's two register copies the round uses is the top bit of `pool`: `shadow`.
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
    bit<32> session;     // must be the job's (admission); JOINED hands it out
    bit<32> blocks;      // blocks of the allreduce's tensor: bounds block and next_block
    bit<32> fingerprint; // CRC-32 of the allreduce (epoch, tensor, scaling): agreement.p4
}

// The B = 32 values, one field per value register array (values.p4).
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

// What the switch hands its controller with a packet (P4Runtime PacketIn): the port it
// came in on. Only a JOIN from an unknown worker goes there: the job service learns the
// worker's port from it (docs/protocol.md section 8).
@controller_header("packet_in")
header packet_in_h {
    bit<9> ingress_port;
    bit<7> _pad;
}

struct header_t {
    packet_in_h  packet_in;  // valid only on the way to the controller
    ethernet_h   ethernet;
    ipv4_h       ipv4;
    udp_h        udp;
    agg_h        agg;
    values_h vals;
}

struct metadata_t {
    // Action data of the sender's entry in admission.workers.
    job_id_t    job_id;
    worker_id_t worker_id;
    bit<8>  num_workers;
    bit<16> mgid;
    bit<16> slot_base;
    bit<16> num_slots;
    bit<32> session;
    // Per packet, ingress.
    worker_bitmap_t worker_bit;  // 1 << worker_id
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
    bit<1>  from_parent;    // a RESULT of the parent job for this leaf job (admission.parents)
    bit<1>  parent_ok;      // ... answering the round the leaf sent it: taken
    bit<1>  awaiting;       // the round went upstream and the parent has not answered yet
    bit<1>  no_sums;        // no packet of the round carried values (values.p4): upstream header-only
    bit<1>  upstream;       // leaving towards the parent: egress leaves it as it is
}

#endif

// SPDX-License-Identifier: Apache-2.0
