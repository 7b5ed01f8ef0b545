// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4); a JOIN is turned into its JOINED
// and unicast back the same way (section 8). A data-round RESULT first makes
// its harvest pass (values.p4) through the recirculation port of its pipe and
// leaves from there. Non-aggregation traffic goes through a plain L2 table.
// Each event is counted where it is decided (the `note` of the action).
#ifndef P4REDUCE_TNA_NEXT_STEP_P4
#define P4REDUCE_TNA_NEXT_STEP_P4

// An answer comes from the address the workers send to (the packet's
// destination); egress fills in each copy's destination.
#define ANSWER_FROM_AGGREGATOR \
    hdr.ethernet.src_addr = hdr.ethernet.dst_addr; \
    hdr.ipv4.src_addr = hdr.ipv4.dst_addr; \
    hdr.udp.src_port = hdr.udp.dst_port;  /* AGG_UDP_PORT, checked by the parser */

// What a counted packet or a retransmission does once the round's registers
// have answered (stage 3): one ternary table on the seen bitmap's answer, the
// countdown, the verdict and the round's kind, in the v1model program's order.
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
    // the round's look-ahead decision (lookahead.p4 left next_exp in place).
    // It keeps the packet's SCATTER/owner bits (agreement.p4; egress reads them
    // per copy); the only flag the switch sets is MISMATCH (`mismatch`, from the
    // entry). OVERFLOW cannot happen with the workers' fixed point, and other
    // bits are reserved.
    action become_result(bit<8> mismatch) {
        ANSWER_FROM_AGGREGATOR
        hdr.agg.msg_type = MSG_RESULT;
        hdr.agg.flags = ig_md.scatter | mismatch;
        hdr.agg.next_block = ig_md.min_next_block;
    }

    // One copy per worker; the multicast group's replica id is the worker id.
    action to_group(bit<8> mismatch) {
        become_result(mismatch);
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        hdr.bridged.unicast = 0;
        ig_tm_md.mcast_grp_a = ig_md.mgid;
        note(EV_RESULT_MULTICAST, JOB_EV_ROUNDS);
    }

    // Back out where it came in, to the sender only.
    action to_sender(bit<8> mismatch) {
        become_result(mismatch);
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        hdr.bridged.unicast = 1;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        note(EV_RESULT_UNICAST, JOB_EV_RETRANSMISSIONS);
    }

    // A data round's RESULT goes to the recirculation port of this pipe (the
    // registers are per pipe), straight from the traffic manager back into this
    // ingress: no egress. The bridged header remembers how it leaves afterwards.
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
            ig_md.map_result: ternary;   // 0: counted now; else a retransmission
            ig_md.remaining: ternary;    // 0: the round is complete
            ig_md.verdict: ternary;
            ig_md.data_round: ternary;   // a data round's RESULT makes the harvest pass
        }
        actions = { to_group; to_sender; harvest_to_group; harvest_to_sender; consume;
                    drop_retransmission; }
        const entries = {
            (0, 0, VERDICT_MISMATCH, 1) : harvest_to_group(FLAG_MISMATCH);
            (0, 0, _, 1) : harvest_to_group(0);
            (0, 0, VERDICT_MISMATCH, 0) : to_group(FLAG_MISMATCH);
            (0, 0, _, 0) : to_group(0);
            (0, _, _, _) : consume();
            (_, 0, VERDICT_STALE, _) : drop_retransmission(EV_STALE);
            (_, 0, VERDICT_MISMATCH, 1) : harvest_to_sender(FLAG_MISMATCH);  // complete; this worker lost it
            (_, 0, _, 1) : harvest_to_sender(0);
            (_, 0, VERDICT_MISMATCH, 0) : to_sender(FLAG_MISMATCH);
            (_, 0, _, 0) : to_sender(0);
        }
        const default_action = drop_retransmission(EV_RETRANSMIT_DROPPED);  // round still open
        size = 16;
    }

    apply {
        outcome.apply();
    }
}

// JOINED (docs/protocol.md section 8): the job's geometry as the worker entry
// has it, and the job's session; the worker compares the geometry with its own
// configuration (a worker configured with another B fails at JOIN, naming
// block_size). The incarnation (epoch), job and worker id stay as received;
// blocks = 0: one packet per datagram (section 1). Sent back where it came in.
control Joined(inout header_t hdr, in ingress_metadata_t ig_md,
               in ingress_intrinsic_metadata_t ig_intr_md,
               inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action joined() {
        ANSWER_FROM_AGGREGATOR
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        hdr.bridged.unicast = 1;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        hdr.agg.msg_type = MSG_JOINED;
        hdr.agg.flags = 0;
        hdr.agg.shadow = ig_md.pool[15:15];  // 0: the control plane keeps slot_base < NUM_SLOTS
        hdr.agg.slot = ig_md.pool[14:0];
        hdr.agg.block = (bit<32>) VALUES_PER_PACKET;
        hdr.agg.next_block = ig_md.slot_end - ig_md.slot_base;
        hdr.agg.exp = MODE_DENSE;
        hdr.agg.next_exp = ig_md.num_workers;
        hdr.agg.session = hdr.agg.session ^ ig_md.session_diff;  // the job's: a JOIN carries 0, checked nowhere
        hdr.agg.blocks = 0;
        hdr.agg.fingerprint = 0;
    }

    apply {
        joined();
    }
}

// Second pass of a data-round RESULT: its values are complete, it leaves as
// the bridged header says.
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
