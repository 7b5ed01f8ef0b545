// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4); a JOIN is turned into its JOINED
// and unicast back the same way (section 8). A data-round RESULT first makes
// its harvest pass (values.p4) through the recirculation port of its pipe and
// leaves from there. Non-aggregation traffic goes through a plain L2 table.
#ifndef P4REDUCE_TNA_NEXT_STEP_P4
#define P4REDUCE_TNA_NEXT_STEP_P4

typedef bit<3> step_t;
const step_t STEP_CONSUME = 0;
const step_t STEP_MULTICAST = 1;          // bootstrap RESULT: no values, no harvest
const step_t STEP_UNICAST = 2;
const step_t STEP_HARVEST_MULTICAST = 3;  // data-round RESULT: recirculate, then multicast
const step_t STEP_HARVEST_UNICAST = 4;
const step_t STEP_JOINED = 5;
const step_t STEP_HARVESTED = 6;          // second pass done: leave as bridged says

control NextStep(inout header_t hdr, inout ingress_metadata_t ig_md,
                 in ingress_intrinsic_metadata_t ig_intr_md,
                 inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                 inout ingress_intrinsic_metadata_for_tm_t ig_tm_md, in step_t step) {
    // An answer comes from the address the workers send to (the packet's
    // destination); egress fills in each copy's destination.
    action answer_from_aggregator() {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
        hdr.udp.src_port = hdr.udp.dst_port;  // AGG_UDP_PORT, checked by the parser
        hdr.bridged.kind = bridged_kind_t.ANSWER;
    }

    // The packet that completes (or re-asks) a round becomes its RESULT, with
    // the round's look-ahead decision (lookahead.p4 left next_exp in place).
    // It keeps the packet's SCATTER/owner bits (agreement.p4; egress reads them
    // per copy); the only flag the switch sets is MISMATCH. OVERFLOW cannot
    // happen with the workers' fixed point, and other bits are reserved.
    action become_result() {
        answer_from_aggregator();
        hdr.agg.msg_type = MSG_RESULT;
        hdr.agg.flags = ig_md.scatter;
        hdr.agg.next_block = ig_md.min_next_block;
    }

    action mark_mismatch() {
        hdr.agg.flags = ig_md.scatter | FLAG_MISMATCH;
    }

    // One copy per worker; the multicast group's replica id is the worker id.
    action to_group() {
        hdr.bridged.unicast = 0;
        ig_tm_md.mcast_grp_a = ig_md.mgid;
    }

    // Back out where it came in, to the sender only.
    action to_sender() {
        hdr.bridged.unicast = 1;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
    }

    // To the recirculation port of this pipe (the registers are per pipe),
    // straight from the traffic manager back into this ingress: no egress.
    // The bridged header remembers how the RESULT leaves afterwards.
    action to_harvest(bit<1> unicast) {
        hdr.bridged.kind = bridged_kind_t.HARVEST;
        hdr.bridged.unicast = unicast;
        hdr.bridged.mgid = ig_md.mgid;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port[8:7] ++ RECIRC_PORT_IN_PIPE;
        ig_tm_md.bypass_egress = 1;
    }

    action harvested_to_group() {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.mcast_grp_a = hdr.bridged.mgid;
    }

    action harvested_to_sender() {
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;
    }

    // JOINED: the job's geometry as the worker entry has it, and the job's
    // session; the worker compares the geometry with its own configuration
    // (a worker configured with another B fails at JOIN, naming block_size).
    // The incarnation (epoch), job and worker id stay as received; blocks = 0:
    // one packet per datagram (docs/protocol.md section 1).
    action joined() {
        answer_from_aggregator();
        hdr.agg.msg_type = MSG_JOINED;
        hdr.agg.flags = 0;
        hdr.agg.shadow = 0;
        hdr.agg.slot = (bit<15>) ig_md.slot_base;
        hdr.agg.block = (bit<32>) VALUES_PER_PACKET;
        hdr.agg.next_block = (bit<32>) (ig_md.slot_end - ig_md.slot_base);
        hdr.agg.exp = MODE_DENSE;
        hdr.agg.next_exp = ig_md.num_workers;
        hdr.agg.session = ig_md.session;
        hdr.agg.blocks = 0;
        hdr.agg.fingerprint = 0;
        to_sender();
    }

    // Counted into the registers; nothing to send yet.
    action consume() {
        ig_dprsr_md.drop_ctl = 1;
    }

    apply {
        if (step == STEP_HARVESTED) {
            if (hdr.bridged.unicast == 1) {
                harvested_to_sender();
            } else {
                harvested_to_group();
            }
        } else if (step == STEP_JOINED) {
            joined();
        } else if (step == STEP_CONSUME) {
            consume();
        } else {
            become_result();
            if (ig_md.verdict == VERDICT_MISMATCH) {
                mark_mismatch();
            }
            if (step == STEP_MULTICAST) {
                to_group();
            } else if (step == STEP_UNICAST) {
                to_sender();
            } else if (step == STEP_HARVEST_MULTICAST) {
                to_harvest(0);
            } else {
                to_harvest(1);
            }
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
