// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4); a JOIN is turned into its JOINED
// and unicast back the same way (section 8). A leaf job's complete round goes
// to its parent instead, as one DATA of the parent job, and the parent's
// RESULT is multicast to the leaf's workers (uplink.p4). Non-aggregation
// traffic goes through a plain L2 table (control-plane contract, section 8).
#ifndef P4REDUCE_NEXT_STEP_P4
#define P4REDUCE_NEXT_STEP_P4

const bit<3> STEP_CONSUME = 0;
const bit<3> STEP_MULTICAST = 1;
const bit<3> STEP_UNICAST = 2;
const bit<3> STEP_JOINED = 3;
const bit<3> STEP_UPSTREAM = 4;     // a leaf job's round, to its parent (first time or again)
const bit<3> STEP_FROM_PARENT = 5;  // the parent's RESULT, to the leaf job's workers
const bit<3> STEP_PARENT_ERROR = 6; // the parent failed the job: UPSTREAM to the leaf job's workers

control NextStep(inout header_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata, in bit<3> step) {
    // An answer comes from the address the workers send to (the packet's
    // destination); egress fills in each copy's destination. Its lengths
    // follow what is emitted (header only in JOINED, a REPEAT and the end of
    // an empty stream, header + B values otherwise) and are the same for every
    // copy, so they are set here once rather than per copy in egress (which
    // shortens only a reduce-scatter's copies for the non-owners).
    action answer_from_aggregator() {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
        hdr.udp.src_port = hdr.udp.dst_port;  // AGG_UDP_PORT, checked by the parser
        bit<16> agg_len = AGG_HDR_LEN + (hdr.vals.isValid() ? AGG_VALUES_LEN : 16w0);
        hdr.udp.length = UDP_HDR_LEN + agg_len;
        hdr.udp.checksum = 0;  // allowed for IPv4 (docs/protocol.md section 1)
        hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len;
        meta.is_answer = 1;
    }

    // The packet that completes (or re-asks) a round becomes its RESULT, with
    // the round's look-ahead decision (lookahead.p4). It keeps the round's
    // SCATTER/owner bits (agreement.p4; egress reads them per copy); the only
    // flag the switch sets is MISMATCH. OVERFLOW cannot happen with the
    // workers' fixed point, and other bits are reserved.
    action result_from_aggregator() {
        answer_from_aggregator();
        hdr.agg.msg_type = MSG_RESULT;
        hdr.agg.flags = meta.scatter | ((meta.mismatch == 1) ? FLAG_MISMATCH : 8w0);
        hdr.agg.next_block = meta.min_key[39:8];
        hdr.agg.next_exp = 8w255 - meta.min_key[7:0];
    }

    // An opening round's RESULT (docs/protocol.md section 3) is about b* at e*
    // (K1, opening.p4), whichever block the completing (or re-asking) packet
    // named, and carries b*'s SCATTER/owner bits.
    action opening_result() {
        hdr.agg.block = meta.first_key[47:16];
        hdr.agg.exp = 8w255 - meta.first_key[15:8];
        meta.scatter = meta.first_key[7:0];
    }

    // Set before result_from_aggregator, which takes the lengths from the
    // values header.
    action no_values() {
        hdr.vals.setInvalid();
        hdr.agg.count = 0;
    }

    // A REPEAT: header-only, and the next round is b* at e* again.
    action repeat_result() {
        no_values();
        meta.min_key = meta.first_key[47:8];
    }

    // Nobody holds anything: header-only, and the stream ends. (K2's exponent
    // byte stays: the largest next_exp announced with NONE, as the software
    // aggregator answers.)
    action empty_result() {
        no_values();
        meta.min_key = BLOCK_NONE ++ meta.min_key[7:0];
    }

    // Back out where it came in, to the sender only.
    action to_sender() {
        meta.unicast = 1;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    // One copy per worker; the multicast group's replica id is the worker id.
    action multicast_result() {
        result_from_aggregator();
        meta.unicast = 0;
        standard_metadata.mcast_grp = meta.mgid;
    }

    // Only the retransmitting worker lost the result.
    action unicast_result() {
        result_from_aggregator();
        to_sender();
    }

    // JOINED: the job's geometry as the worker entry has it, and the job's
    // session; the worker compares the geometry with its own configuration.
    // The incarnation (epoch), job and worker id stay as received. The switch
    // only runs dense mode with B values per packet; blocks and fingerprint
    // belong to no allreduce yet.
    action joined() {
        answer_from_aggregator();
        hdr.agg.msg_type = MSG_JOINED;
        hdr.agg.flags = 0;
        hdr.agg.shadow = 0;
        hdr.agg.slot = (bit<15>) meta.slot_base;
        hdr.agg.block = (bit<32>) VALUES_PER_PACKET;
        hdr.agg.next_block = (bit<32>) meta.num_slots;
        hdr.agg.exp = MODE_DENSE;
        hdr.agg.next_exp = meta.num_workers;
        hdr.agg.session = meta.session;
        hdr.agg.blocks = 0;
        hdr.agg.fingerprint = 0;
        to_sender();
    }

    // ONE DATA of the parent job for a leaf job's round (docs/protocol.md,
    // "Hierarchical aggregation"): the same pool, epoch, block and exponent, the
    // partial sums, the round's look-ahead minimum as its own; from the address
    // the leaf's workers send to, to the parent's. A round whose local packets
    // disagreed goes up poisoned (fingerprint XOR POISON): the parent's round
    // then fails every worker of the job, not only the leaf's.
    action to_parent() {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = meta.up_mac;
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
        hdr.ipv4.dst_addr = meta.up_ip;
        hdr.udp.src_port = hdr.udp.dst_port;  // AGG_UDP_PORT: where the parent's RESULT comes back to
        hdr.udp.dst_port = meta.up_udp_port;
        hdr.udp.checksum = 0;
        hdr.agg.msg_type = MSG_DATA;
        hdr.agg.job_id = meta.up_job;
        hdr.agg.worker_id = meta.up_rank;
        hdr.agg.session = meta.up_session;
        hdr.agg.flags = meta.scatter;
        hdr.agg.next_block = meta.min_key[39:8];
        hdr.agg.next_exp = 8w255 - meta.min_key[7:0];
        hdr.agg.fingerprint = (meta.mismatch == 1) ? hdr.agg.fingerprint ^ POISON : hdr.agg.fingerprint;
        meta.upstream = 1;
        standard_metadata.egress_spec = meta.up_port;
    }

    // An opening round goes up as the leaf's own opening DATA: b* at e* of its
    // workers (with b*'s SCATTER/owner bits), K2 as the look-ahead.
    action opening_to_parent() {
        hdr.agg.block = meta.first_key[47:16];
        hdr.agg.exp = 8w255 - meta.first_key[15:8];
        hdr.agg.flags = FLAG_OPENING | meta.first_key[7:0];
    }

    // Set after to_parent: the lengths follow what is emitted.
    action upstream_lengths() {
        bit<16> agg_len = AGG_HDR_LEN + (hdr.vals.isValid() ? AGG_VALUES_LEN : 16w0);
        hdr.udp.length = UDP_HDR_LEN + agg_len;
        hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len;
    }

    // The parent's RESULT to every worker of the leaf job, as the leaf's own:
    // its job and session instead of the parent's (egress names each receiver).
    action parent_result_down() {
        answer_from_aggregator();
        hdr.agg.job_id = meta.job_id;
        hdr.agg.session = meta.session;
        meta.unicast = 0;
        standard_metadata.mcast_grp = meta.mgid;
    }

    // The parent failed the leaf's job (its ERROR answers one of the leaf's packets):
    // every worker of the leaf fails with UPSTREAM, the parent's code as the detail
    // (docs/protocol.md section 6), as a software leaf's workers do.
    action parent_error_down() {
        answer_from_aggregator();
        hdr.agg.job_id = meta.job_id;
        hdr.agg.session = meta.session;
        hdr.agg.next_block = hdr.agg.block;
        hdr.agg.block = ERROR_UPSTREAM;
        meta.unicast = 0;
        standard_metadata.mcast_grp = meta.mgid;
    }

    // Counted into the registers; nothing to send yet.
    action consume() {
        mark_to_drop(standard_metadata);
    }

    // Most packets are consumed (all but the last of a round): test that first.
    apply {
        if (step == STEP_CONSUME) {
            consume();
        } else if (step == STEP_JOINED) {
            joined();
        } else if (step == STEP_FROM_PARENT) {
            parent_result_down();
        } else if (step == STEP_PARENT_ERROR) {
            parent_error_down();
        } else if (step == STEP_UPSTREAM) {
            to_parent();
            if (meta.opening == 1) {
                opening_to_parent();
            }
            // Header-only: no block (an empty stream), b*'s holders disagreed on
            // its exponent (the leaf's REPEAT: the parent decides), or no worker
            // of the leaf held the round's block.
            if (hdr.agg.block == BLOCK_NONE || (meta.opening == 1 && meta.repeat == 1) || meta.no_sums == 1) {
                no_values();
            }
            upstream_lengths();
        } else {
            if (meta.opening == 1) {
                opening_result();
                if (hdr.agg.block == BLOCK_NONE) {
                    empty_result();
                } else if (meta.repeat == 1) {
                    repeat_result();
                }
            }
            if (step == STEP_MULTICAST) {
                multicast_result();
            } else {
                unicast_result();
            }
        }
    }
}

control Forwarding(inout header_t hdr, inout standard_metadata_t standard_metadata,
                   out bool forwarded) {
    action to_port(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    // Broadcast (and anything else the controller floods): a multicast group
    // over the member ports; egress drops the copy for the ingress port.
    action flood(bit<16> mgid) {
        standard_metadata.mcast_grp = mgid;
    }

    action drop() {
        mark_to_drop(standard_metadata);
    }

    table l2 {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { to_port; flood; drop; }
        default_action = drop();  // no learning: unknown destinations are dropped
        size = 1024;
    }

    apply {
        forwarded = l2.apply().hit;  // the controller installs only to_port / flood entries
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
