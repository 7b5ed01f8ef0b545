// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4; seen_bitmap.p4 turns a JOIN into its
// JOINED, section 8). Every RESULT first makes its harvest pass (values.p4,
// opening.p4) through the recirculation port of its pipe and leaves from there.
// Non-aggregation traffic goes through a plain L2 table.
// Each event is counted where it is decided (the `note` of the action).
#ifndef P4REDUCE_TNA_NEXT_STEP_P4
#define P4REDUCE_TNA_NEXT_STEP_P4

// What a counted packet or a retransmission does once the round's registers
// have answered (stage 3): one ternary table on the seen bitmap's answer (as
// countdown.p4's position), the countdown and the verdict, in the v1model
// program's order.
control RoundOutcome(inout header_t hdr, inout ingress_metadata_t ig_md,
                     in ingress_intrinsic_metadata_t ig_intr_md,
                     inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                     inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action note(event_t event, job_event_t job_event) {
        ig_md.event = event;
        ig_md.count_event = 1;
        ig_md.job_event = job_event;
    }

    // The packet that completes (or re-asks) a round becomes its RESULT, with
    // the round's look-ahead decision (lookahead.p4's DecodeNext writes it).
    // It keeps the packet's SCATTER/owner bits (agreement.p4; egress reads them
    // per copy; an opening round's come from first_flags in the harvest pass);
    // the only flag the switch sets is MISMATCH (`mismatch`, from the entry).
    // OVERFLOW cannot happen with the workers' fixed point, and other bits are
    // reserved.
    action become_result(bit<8> mismatch) {
        ANSWER_FROM_AGGREGATOR
        hdr.agg.msg_type = MSG_RESULT;
        hdr.agg.flags = ig_md.scatter | mismatch;
    }

    // Every RESULT goes to the recirculation port of this pipe (the registers are
    // per pipe), straight from the traffic manager back into this ingress: no
    // egress. The bridged header remembers how it leaves afterwards, and whether
    // it is an opening round's (its `opening` bit, from the DATA: opening.p4
    // finishes such a RESULT in the harvest pass).
    action to_harvest(bit<8> mismatch, bit<1> unicast) {
        become_result(mismatch);
        hdr.bridged.kind = bridged_kind_t.HARVEST;
        hdr.bridged.unicast = unicast;
        hdr.bridged.mgid = ig_md.mgid;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port[8:7] ++ RECIRC_PORT_IN_PIPE;
        ig_tm_md.bypass_egress = 1;
    }

    action harvest_to_group(bit<8> mismatch) {
        to_harvest(mismatch, 0);
        note(EV_RESULT_MULTICAST, JOB_EV_ROUNDS);
    }

    action harvest_to_sender(bit<8> mismatch) {
        to_harvest(mismatch, 1);
        note(EV_RESULT_UNICAST, JOB_EV_RETRANSMISSIONS);
    }

    // Counted into the registers; nothing to send yet.
    action consume() {
        ig_dprsr_md.drop_ctl = 1;
        note(EV_DATA_COUNTED, JOB_EV_PACKETS);
    }

    // A retransmission that gets nothing: its round is still open (its result
    // comes later), or it is stale, a finished round of another allreduce: not
    // this packet's result. A stale one changed nothing (the seen bitmap cleared
    // the sender's bit in the other shadow copy, as any packet of it with this
    // bit does).
    action drop_retransmission(event_t event) {
        ig_dprsr_md.drop_ctl = 1;
        note(event, JOB_EV_RETRANSMISSIONS);
    }

    table outcome {
        key = {
            ig_md.position: ternary;     // counted now (first or later), or a retransmission
            ig_md.remaining: ternary;    // 0: the round is complete
            ig_md.verdict: ternary;
        }
        actions = { harvest_to_group; harvest_to_sender; consume; drop_retransmission; }
        const entries = {
            (ROUND_RETRANSMISSION, 0, VERDICT_STALE) : drop_retransmission(EV_STALE);
            (ROUND_RETRANSMISSION, 0, VERDICT_MISMATCH) : harvest_to_sender(FLAG_MISMATCH);  // complete; this worker lost it
            (ROUND_RETRANSMISSION, 0, _) : harvest_to_sender(0);
            (ROUND_RETRANSMISSION, _, _) : drop_retransmission(EV_RETRANSMIT_DROPPED);  // round still open
            (_, 0, VERDICT_MISMATCH) : harvest_to_group(FLAG_MISMATCH);
            (_, 0, _) : harvest_to_group(0);
        }
        const default_action = consume();  // counted, the round still waits for others
        size = 8;
    }

    apply {
        outcome.apply();
    }
}

// Second pass of a RESULT: its values (and an opening round's block, flags and
// kind) are complete, it leaves as the bridged header says.
control Harvested(inout header_t hdr, inout ingress_metadata_t ig_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action to_group() {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.mcast_grp_a = hdr.bridged.mgid;
    }

    action to_sender() {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;
    }

    apply {
        if (hdr.bridged.unicast == 1) {
            to_sender();
        } else {
            to_group();
        }
    }
}

control Forwarding(in header_t hdr, inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md, out bool forwarded) {
    action to_port(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    // Broadcast (and anything else the control plane floods): a multicast
    // group over the member ports; egress drops the copy for the ingress port.
    action flood(MulticastGroupId_t mgid) {
        ig_tm_md.mcast_grp_a = mgid;
    }

    action drop() {
        ig_dprsr_md.drop_ctl = 1;
    }

    table l2 {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { to_port; flood; @defaultonly drop; }
        const default_action = drop();  // no learning: unknown destinations are dropped
        size = L2_TABLE_SIZE;
    }

    apply {
        forwarded = l2.apply().hit;  // the control plane installs only to_port / flood entries
    }
}

#endif
