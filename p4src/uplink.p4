// The leaf role (docs/protocol.md, "Hierarchical aggregation"): a job with an
// entry in `uplinks` is a leaf job. Its workers' rounds are summed as any job's,
// but a complete round goes to its parent as ONE DATA of the parent job (this
// switch's rank there: up_rank), not to the workers; the parent's RESULT comes
// back (admission.parents admits it) and is multicast to them. Per slot and
// shadow copy this control remembers that a round went up and has no answer yet
// (`awaiting`), and what it sent (the round's block, or that it was an opening
// round, and its fingerprint), so that only the answer to that round is taken:
// a late copy of an older RESULT of the same shadow copy, or one of another
// allreduce, is dropped. The round's partial sums stay in the value registers
// until the answer overwrites them with the parent's, so a local worker's
// retransmission re-sends the partial sum upstream while `awaiting` (no timers
// in the switch) and gets the stored parent RESULT after.
//
// next_step.p4 builds the upstream DATA (STEP_UPSTREAM) and the multicast of
// the parent's RESULT (STEP_FROM_PARENT); opening.p4, lookahead.p4 and values.p4
// store the parent's answer where a retransmission's answer is read from.
#ifndef P4REDUCE_UPLINK_P4
#define P4REDUCE_UPLINK_P4

control Uplink(inout header_t hdr, inout metadata_t meta) {
    register<bit<1>>(REGISTER_SIZE) awaiting;
    register<bit<33>>(REGISTER_SIZE) sent_round;       // opening ++ block of the round sent up
    register<bit<32>>(REGISTER_SIZE) sent_fingerprint; // its fingerprint (before any poison)
    register<bit<1>>(REGISTER_SIZE) parent_mismatch;   // the parent's answer was flagged MISMATCH

    // The leaf job's parent: its job, this switch's rank and session there, and
    // where it is (the port towards it, its MAC, IP and UDP port).
    action set_uplink(bit<16> up_job, bit<8> up_rank, bit<32> up_session, bit<9> port,
                      bit<48> mac, bit<32> ip, bit<16> udp_port) {
        meta.leaf = 1;
        meta.up_job = up_job;
        meta.up_rank = up_rank;
        meta.up_session = up_session;
        meta.up_port = port;
        meta.up_mac = mac;
        meta.up_ip = ip;
        meta.up_udp_port = udp_port;
    }

    table uplinks {
        key = { meta.job_id: exact; }
        actions = { set_uplink; NoAction; }
        default_action = NoAction();  // a job of this switch alone
        size = 64;
    }

    // A local round complete: it goes up now and waits for its answer.
    action record_round() {
        awaiting.write(meta.index, 1);
        sent_round.write(meta.index, meta.opening ++ hdr.agg.block);
        sent_fingerprint.write(meta.index, hdr.agg.fingerprint);
        parent_mismatch.write(meta.index, 0);
        meta.awaiting = 1;
    }

    // A local retransmission into the complete round: up again, or the stored
    // answer (with the parent's MISMATCH, if it had one).
    action read_awaiting() {
        bit<1> parent_flag;
        awaiting.read(meta.awaiting, meta.index);
        parent_mismatch.read(parent_flag, meta.index);
        meta.mismatch = meta.mismatch | parent_flag;
    }

    // A parent's RESULT answers the round waiting in its cell: the same block
    // (any block of an opening round: the parent chose b*) and the same
    // allreduce's fingerprint (or the poisoned one, or MISMATCH: the round
    // fails everywhere either way).
    action check_parent() {
        bit<33> sent;
        bit<32> fingerprint;
        awaiting.read(meta.awaiting, meta.index);
        sent_round.read(sent, meta.index);
        sent_fingerprint.read(fingerprint, meta.index);
        meta.opening = sent[32:32];
        bool same_round = sent[32:32] == 1 || sent[31:0] == hdr.agg.block;
        bool same_allreduce = (hdr.agg.flags & FLAG_MISMATCH) == FLAG_MISMATCH
                              || hdr.agg.fingerprint == fingerprint
                              || hdr.agg.fingerprint == fingerprint ^ POISON;
        meta.parent_ok = (meta.awaiting == 1 && same_round && same_allreduce) ? 1w1 : 1w0;
    }

    action take_parent() {
        awaiting.write(meta.index, 0);
        parent_mismatch.write(meta.index, ((hdr.agg.flags & FLAG_MISMATCH) == FLAG_MISMATCH) ? 1w1 : 1w0);
        meta.awaiting = 0;
    }

    apply {
        if (meta.from_parent == 1) {
            check_parent();
            if (meta.parent_ok == 1) {
                take_parent();
            }
        } else if (uplinks.apply().hit && meta.remaining == 0) {
            if (meta.retransmission == 1) {
                read_awaiting();
            } else {
                record_round();
            }
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
