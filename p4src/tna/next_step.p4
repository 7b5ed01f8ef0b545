// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4; seen_bitmap.p4 turns a JOIN into its
// JOINED, section 8). Every RESULT first makes its harvest pass (values.p4,
// opening.p4) through the recirculation port of its pipe and leaves from there
// (a leaf job's, towards its parent: uplink.p4). A leaf's parent's RESULT is
// multicast to its workers at once.
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
    // Its `events` cell is counted in the harvest pass, which knows where it goes
    // (Harvested: to the workers, or a leaf's round to its parent); the job's cell here.
    action to_harvest(bit<8> mismatch, bit<1> unicast, job_event_t job_event) {
        become_result(mismatch);
        hdr.bridged.kind = bridged_kind_t.HARVEST;
        hdr.bridged.unicast = unicast;
        hdr.bridged.mgid = ig_md.mgid;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port[8:7] ++ RECIRC_PORT_IN_PIPE;
        ig_tm_md.bypass_egress = 1;
        ig_md.job_event = job_event;
    }

    action harvest_to_group(bit<8> mismatch) {
        to_harvest(mismatch, 0, JOB_EV_ROUNDS);
    }

    action harvest_to_sender(bit<8> mismatch) {
        to_harvest(mismatch, 1, JOB_EV_RETRANSMISSIONS);
    }

    // A leaf job's parent answered its round (uplink.p4; admission.p4 made it the leaf
    // job's, the registers stored it): to every worker of the leaf, each copy addressed
    // as any RESULT's in egress. It needs no harvest pass: it carries all its values.
    // (The job's `rounds` cell counted the round when it went up: its first pass could
    // not know it was a leaf's.)
    action result_from_parent() {
        ANSWER_FROM_AGGREGATOR
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        hdr.bridged.unicast = 0;
        ig_tm_md.mcast_grp_a = ig_md.mgid;
        note(EV_FROM_PARENT, JOB_EV_PACKETS);
    }

    // Not the answer to a round this leaf sent up (a late copy of an earlier one,
    // another allreduce's): nothing changed.
    action drop_parent_result() {
        ig_dprsr_md.drop_ctl = 1;
        note(EV_PARENT_DROPPED, JOB_EV_PACKETS);
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
            ig_md.from_parent: ternary;  // a parent's RESULT (uplink.p4) ...
            ig_md.awaiting: ternary;     // ... taken by the awaiting register
        }
        actions = { harvest_to_group; harvest_to_sender; consume; drop_retransmission;
                    result_from_parent; drop_parent_result; }
        const entries = {
            (_, _, _, 1, AWAIT_DATA &&& AWAIT_DATA) : result_from_parent();
            (_, _, _, 1, _) : drop_parent_result();
            (ROUND_RETRANSMISSION, 0, VERDICT_STALE, _, _) : drop_retransmission(EV_STALE);
            (ROUND_RETRANSMISSION, 0, VERDICT_MISMATCH, _, _) : harvest_to_sender(FLAG_MISMATCH);  // complete; this worker lost it
            (ROUND_RETRANSMISSION, 0, _, _, _) : harvest_to_sender(0);
            (ROUND_RETRANSMISSION, _, _, _, _) : drop_retransmission(EV_RETRANSMIT_DROPPED);  // round still open
            (_, 0, VERDICT_MISMATCH, _, _) : harvest_to_group(FLAG_MISMATCH);
            (_, 0, _, _, _) : harvest_to_group(0);
        }
        const default_action = consume();  // counted, the round still waits for others
        size = 8;
    }

    apply {
        outcome.apply();
    }
}

// Second pass of a RESULT: its values (and an opening round's block, flags and kind)
// are complete, it leaves as the bridged header says, and is counted here; a leaf's
// round going up (uplink.p4 addressed it) gets its poison. A re-send after a leaf's
// parent answered carries the parent's MISMATCH (the awaiting register's answer).
control Harvested(inout header_t hdr, inout ingress_metadata_t ig_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action to_group() {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.mcast_grp_a = hdr.bridged.mgid;
        ig_md.event = EV_RESULT_MULTICAST;
        ig_md.count_event = 1;
    }

    action to_sender(bit<8> mismatch) {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;
        hdr.agg.flags = hdr.agg.flags | mismatch;
        ig_md.event = EV_RESULT_UNICAST;
        ig_md.count_event = 1;
    }

    // A leaf's round whose local packets disagreed (the first pass flagged it MISMATCH)
    // goes up poisoned, so the parent's round fails every worker of the job, not only
    // the leaf's; DATA carry no MISMATCH flag. (An opening round's flags are
    // opening.p4's, in the stage after.)
    action up() {
        ig_md.event = EV_UPSTREAM;
        ig_md.count_event = 1;
    }

    action poison() {
        up();
        hdr.agg.fingerprint = hdr.agg.fingerprint ^ POISON;
        hdr.agg.flags = hdr.agg.flags & ~FLAG_MISMATCH;
    }

    table harvest_exit {
        key = {
            hdr.bridged.kind: exact;     // UPSTREAM: uplink.p4 sends it to the leaf's parent
            hdr.bridged.unicast: exact;
            ig_md.awaiting: ternary;     // a re-send's: the parent's answer was MISMATCH
            hdr.agg.flags: ternary;
        }
        actions = { to_group; to_sender; up; poison; }
        const entries = {
            (bridged_kind_t.UPSTREAM, 0, _, FLAG_MISMATCH &&& FLAG_MISMATCH) : poison();
            (bridged_kind_t.UPSTREAM, 1, _, FLAG_MISMATCH &&& FLAG_MISMATCH) : poison();
            (bridged_kind_t.UPSTREAM, 0, _, _) : up();
            (bridged_kind_t.UPSTREAM, 1, _, _) : up();
            (bridged_kind_t.HARVEST, 0, _, _) : to_group();
            (bridged_kind_t.HARVEST, 1, AWAIT_MISMATCH, _) : to_sender(FLAG_MISMATCH);
        }
        const default_action = to_sender(0);   // HARVEST, 1: a re-send
        size = 6;
    }

    apply {
        harvest_exit.apply();
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

// SPDX-License-Identifier: Apache-2.0
