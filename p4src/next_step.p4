// Where a packet goes after ingress processing: an accepted aggregation
// packet is consumed, multicast as the round's RESULT to every worker of the
// job, or unicast back to a worker that retransmitted into a finished round
// (docs/protocol.md section 6 steps 3-4). Non-aggregation traffic goes
// through a plain L2 table (control-plane contract, section 8).
#ifndef P4REDUCE_NEXT_STEP_P4
#define P4REDUCE_NEXT_STEP_P4

const bit<2> STEP_CONSUME = 0;
const bit<2> STEP_MULTICAST = 1;
const bit<2> STEP_UNICAST = 2;

control NextStep(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata, in bit<2> step) {
    // A RESULT comes from the address the workers send DATA to (the completing
    // packet's destination); egress fills in each copy's destination.
    action answer_from_aggregator() {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.udp.srcPort = hdr.udp.dstPort;  // AGG_UDP_PORT, checked by the parser
        hdr.agg.msg_type = MSG_RESULT;
        hdr.agg.flags = 0;  // reserved bits; the switch cannot detect OVERFLOW
        meta.is_result = 1;
    }

    // One copy per worker; the multicast group's replica id is the worker id.
    action multicast_result() {
        answer_from_aggregator();
        meta.unicast = 0;
        standard_metadata.mcast_grp = meta.mgid;
    }

    // Only the retransmitting worker lost the result: back out where it came in.
    action unicast_result() {
        answer_from_aggregator();
        meta.unicast = 1;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    // Counted into the registers; nothing to send yet.
    action consume() {
        mark_to_drop(standard_metadata);
    }

    apply {
        if (step == STEP_MULTICAST) {
            multicast_result();
        } else if (step == STEP_UNICAST) {
            unicast_result();
        } else {
            consume();
        }
    }
}

control Forwarding(inout headers_t hdr, inout standard_metadata_t standard_metadata,
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
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { to_port; flood; drop; }
        default_action = drop();  // no learning: unknown destinations are dropped
        size = 1024;
    }

    apply {
        forwarded = l2.apply().hit;  // the controller installs only to_port / flood entries
    }
}

#endif
