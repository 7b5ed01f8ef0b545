// What happens to an aggregation packet once it has been counted: consumed,
// multicast as the round's result to every worker of the job, or unicast back
// to a worker that retransmitted into a finished round. Also plain L2
// forwarding for all other traffic.
#ifndef P4REDUCE_NEXT_STEP_P4
#define P4REDUCE_NEXT_STEP_P4

const bit<2> STEP_CONSUME = 0;
const bit<2> STEP_MULTICAST = 1;
const bit<2> STEP_UNICAST = 2;

control NextStep(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata, in bit<2> step) {
    // Results come from the address the workers send to; egress fills in each
    // destination.
    action answer_from_aggregator() {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.udp.srcPort = AGG_UDP_PORT;
        hdr.agg.msg_type = MSG_RESULT;
        meta.is_result = 1;
    }

    action multicast_result() {
        answer_from_aggregator();
        meta.unicast = 0;
        standard_metadata.mcast_grp = meta.mgid;
    }

    action unicast_result() {
        answer_from_aggregator();
        meta.unicast = 1;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

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

control Forwarding(inout headers_t hdr, inout standard_metadata_t standard_metadata) {
    action to_port(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    action flood(bit<16> mgid) {
        standard_metadata.mcast_grp = mgid;
    }

    action drop() {
        mark_to_drop(standard_metadata);
    }

    table l2 {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { to_port; flood; drop; }
        default_action = drop();
        size = 1024;
    }

    apply {
        l2.apply();
    }
}

#endif
