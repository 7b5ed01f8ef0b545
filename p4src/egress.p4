// Egress: address every answer (RESULT copy, JOINED) to its worker and fix the
// lengths; keep ordinary frames from going back out the port they came in on.
#ifndef P4REDUCE_EGRESS_P4
#define P4REDUCE_EGRESS_P4

control P4ReduceEgress(inout headers_t hdr, inout metadata_t meta,
                       inout standard_metadata_t standard_metadata) {
    // Destination of one worker's answers: the source address and port it
    // sends from (installed by the controller with the worker entry).
    action set_result_dest(bit<48> mac, bit<32> ip, bit<16> udp_port) {
        hdr.ethernet.dstAddr = mac;
        hdr.ipv4.dstAddr = ip;
        hdr.udp.dstPort = udp_port;
    }

    action drop() {
        mark_to_drop(standard_metadata);
    }

    table result_dest {
        key = {
            hdr.agg.job_id: exact;
            meta.dest_worker: exact;
        }
        actions = { set_result_dest; drop; }
        default_action = drop();  // never send an answer nobody asked for
        size = 1024;
    }

    // The answer names its receiver; lengths follow what is emitted: header
    // only after a bootstrap round and in JOINED, header + B values after a
    // data round.
    action finish_answer() {
        hdr.agg.worker_id = meta.dest_worker;
        bit<16> agg_len = AGG_HDR_LEN + (hdr.vals.isValid() ? AGG_VALUES_LEN : 16w0);
        hdr.udp.length = UDP_HDR_LEN + agg_len;
        hdr.udp.checksum = 0;  // allowed for IPv4 (docs/protocol.md section 1)
        hdr.ipv4.totalLen = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len;
    }

    apply {
        if (meta.is_answer == 1) {
            // Multicast copy: the replica id is the worker id (section 8).
            // Unicast re-send or JOINED: the sender, whose id worker_check verified.
            meta.dest_worker = (meta.unicast == 1) ? hdr.agg.worker_id
                                                   : (bit<8>) standard_metadata.egress_rid;
            result_dest.apply();
            finish_answer();
        } else if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            // Ordinary traffic: a flooded frame is not echoed to its sender
            // (nor is a unicast frame hairpinned), as on any L2 switch.
            drop();
        }
    }
}

#endif
