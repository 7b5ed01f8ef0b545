// Egress: address every answer (RESULT copy, JOINED) to its worker and fix the
// lengths; cut the values from the copies of a reduce-scatter's RESULT for
// every worker but the block's owner; keep ordinary frames from going back out
// the port they came in on.
#ifndef P4REDUCE_TNA_EGRESS_P4
#define P4REDUCE_TNA_EGRESS_P4

control Egress(inout header_t hdr, inout egress_metadata_t eg_md,
               in egress_intrinsic_metadata_t eg_intr_md,
               in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
               inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
               inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    // Destination of one worker's answers: the source address and port it
    // sends from (installed by the control plane with the worker entry).
    action set_result_dest(mac_addr_t mac, ipv4_addr_t ip, udp_port_t udp_port) {
        hdr.ethernet.dst_addr = mac;
        hdr.ipv4.dst_addr = ip;
        hdr.udp.dst_port = udp_port;
    }

    action drop() {
        eg_dprsr_md.drop_ctl = 1;
    }

    table result_dest {
        key = {
            hdr.agg.job_id: exact;
            eg_md.dest_worker: exact;
        }
        actions = { set_result_dest; @defaultonly drop; }
        const default_action = drop();  // never send an answer nobody asked for
        size = RESULT_DEST_TABLE_SIZE;
    }

    // Multicast copy: the replica id is the worker id (section 8).
    action to_replica() {
        eg_md.dest_worker = (worker_id_t) eg_intr_md.egress_rid;
    }

    // Unicast re-send or JOINED: the sender, whose id admission verified.
    action to_sender() {
        eg_md.dest_worker = hdr.agg.worker_id;
    }

    // The answer names its receiver; lengths follow what is emitted: header
    // only in JOINED, a REPEAT and an empty stream's RESULT, header + B values
    // otherwise. The IPv4 checksum follows in the deparser.
    action finish_answer(bit<16> udp_length, bit<16> ipv4_length) {
        hdr.agg.worker_id = eg_md.dest_worker;
        hdr.udp.length = udp_length;
        hdr.udp.checksum = 0;  // allowed for IPv4 (docs/protocol.md section 1)
        hdr.ipv4.total_len = ipv4_length;
        eg_md.update_checksum = 1;
    }

    // A leaf's DATA upstream keeps its worker id (this switch's rank in the parent job).
    action upstream_lengths(bit<16> udp_length, bit<16> ipv4_length) {
        hdr.udp.length = udp_length;
        hdr.udp.checksum = 0;
        hdr.ipv4.total_len = ipv4_length;
        eg_md.update_checksum = 1;
    }

    // docs/protocol.md section 3.1: a SCATTER round's values go to the owner
    // only; every other copy leaves header-only (count 0).
    action header_only() {
        hdr.vals_a.setInvalid();
        hdr.vals_b.setInvalid();
        hdr.agg.count = 0;
    }

    apply {
        if (hdr.bridged.kind == bridged_kind_t.ANSWER) {
            if (hdr.bridged.unicast == 1) {
                to_sender();
            } else {
                to_replica();
            }
            result_dest.apply();
            if (hdr.agg.count != 0 && hdr.agg.flags[2:2] == 1
                    && hdr.agg.flags[7:3] != (bit<5>) eg_md.dest_worker) {
                header_only();
            }
            if (hdr.agg.count == 0) {
                finish_answer(UDP_HDR_LEN + AGG_HDR_LEN,
                              IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN);
            } else {
                finish_answer(UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN,
                              IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN);
            }
        } else if (hdr.bridged.kind == bridged_kind_t.UPSTREAM) {
            // A leaf job's DATA to its parent (uplink.p4), addressed in ingress.
            if (hdr.agg.count == 0) {
                upstream_lengths(UDP_HDR_LEN + AGG_HDR_LEN,
                                 IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN);
            } else {
                upstream_lengths(UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN,
                                 IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN);
            }
        } else if (eg_intr_md.egress_port == hdr.bridged.ingress_port) {
            // Ordinary traffic: a flooded frame is not echoed to its sender
            // (nor is a unicast frame hairpinned), as on any L2 switch.
            drop();
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
