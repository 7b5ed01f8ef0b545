// Egress: address each RESULT copy to its worker (the replica id of a
// multicast copy, or the sender for a unicast re-send) and fix the lengths.
#ifndef P4REDUCE_EGRESS_P4
#define P4REDUCE_EGRESS_P4

control P4ReduceEgress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
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
        default_action = drop();
        size = 1024;
    }

    action finish_result() {
        hdr.agg.worker_id = meta.dest_worker;
        bit<16> agg_len = AGG_HDR_LEN + (hdr.vals.isValid() ? AGG_VALUES_LEN : 16w0);
        hdr.udp.length = UDP_HDR_LEN + agg_len;
        hdr.udp.checksum = 0;  // allowed for IPv4; the payload changed
        hdr.ipv4.totalLen = IPV4_HDR_LEN + UDP_HDR_LEN + agg_len;
    }

    apply {
        if (meta.is_result == 1) {
            meta.dest_worker = (meta.unicast == 1) ? hdr.agg.worker_id
                                                   : (bit<8>) standard_metadata.egress_rid;
            result_dest.apply();
            finish_result();
        } else if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            drop();  // a flooded frame does not go back out where it came in
        }
    }
}

#endif
