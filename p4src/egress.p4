// Egress: address every answer (RESULT copy, JOINED) to its worker; cut the
// values from the copies of a reduce-scatter's RESULT for every worker but the
// block's owner; keep ordinary frames from going back out the port they came
// in on.
#ifndef P4REDUCE_EGRESS_P4
#define P4REDUCE_EGRESS_P4

control P4ReduceEgress(inout header_t hdr, inout metadata_t meta,
                       inout standard_metadata_t standard_metadata) {
    // Destination of one worker's answers: the source address and port it
    // sends from (installed by the controller with the worker entry).
    action set_result_dest(bit<48> mac, bit<32> ip, bit<16> udp_port) {
        hdr.ethernet.dst_addr = mac;
        hdr.ipv4.dst_addr = ip;
        hdr.udp.dst_port = udp_port;
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

    // The answer names its receiver. Multicast copy: the replica id is the
    // worker id (section 8). Unicast re-send or JOINED: the sender, whose id
    // admission verified. (In an action: at apply level p4c makes the
    // conditional a branch and two tables.) The lengths were set in ingress,
    // once for all copies (next_step.p4).
    action name_receiver() {
        meta.dest_worker = (meta.unicast == 1) ? hdr.agg.worker_id
                                               : (bit<8>) standard_metadata.egress_rid;
        hdr.agg.worker_id = meta.dest_worker;
    }

    // docs/protocol.md section 3.1: a SCATTER data round's values go to the
    // owner only; every other copy is header-only (count 0), with its lengths
    // shortened by the values (the IPv4 checksum is recomputed after egress).
    action header_only() {
        hdr.vals.setInvalid();
        hdr.agg.count = 0;
        hdr.udp.length = UDP_HDR_LEN + AGG_HDR_LEN;
        hdr.ipv4.total_len = IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN;
    }

    apply {
        if (meta.is_answer == 1) {
            name_receiver();
            if (hdr.vals.isValid() && (hdr.agg.flags & FLAG_SCATTER) == FLAG_SCATTER
                    && (hdr.agg.flags >> OWNER_SHIFT) != meta.dest_worker) {
                header_only();
            }
            result_dest.apply();
        } else if (meta.upstream == 0 && standard_metadata.egress_port == standard_metadata.ingress_port) {
            // Ordinary traffic: a flooded frame is not echoed to its sender
            // (nor is a unicast frame hairpinned), as on any L2 switch.
            drop();
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
