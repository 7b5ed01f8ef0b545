// Admission of aggregation packets (docs/protocol.md section 6 step 1).
// The sender's identity comes from where and how the packet entered (port,
// MAC, IP, UDP source port), as installed by the controller; the header's job
// and worker ids must agree with that entry, so a host cannot speak for
// another worker or another job. Anything not acceptable is rejected with the
// event code it is counted under; the caller drops it.
#ifndef P4REDUCE_WORKER_CHECK_P4
#define P4REDUCE_WORKER_CHECK_P4

control WorkerCheck(inout headers_t hdr, inout metadata_t meta,
                    in standard_metadata_t standard_metadata,
                    out bool accepted, out bit<32> reject_event) {
    action set_worker(bit<16> job_id, bit<8> worker_id, bit<8> num_workers, bit<16> mgid,
                      bit<16> slot_base, bit<16> num_slots) {
        meta.job_id = job_id;
        meta.worker_id = worker_id;
        meta.num_workers = num_workers;
        meta.mgid = mgid;
        meta.slot_base = slot_base;
        meta.num_slots = num_slots;
    }

    table workers {
        key = {
            standard_metadata.ingress_port: exact;
            hdr.ethernet.srcAddr: exact;
            hdr.ipv4.srcAddr: exact;
            hdr.udp.srcPort: exact;
        }
        actions = { set_worker; NoAction; }
        default_action = NoAction();  // a miss is an unknown worker
        size = 1024;
    }

    apply {
        accepted = false;
        reject_event = EV_MALFORMED;
        // UDP length of a well-formed packet: 8 + 22 + 4 * count, count in {0, B}.
        bit<16> values_len = hdr.vals.isValid() ? AGG_VALUES_LEN : 16w0;
        bit<16> expected_udp_len = UDP_HDR_LEN + AGG_HDR_LEN + values_len;
        bool bootstrap = hdr.agg.block == BLOCK_NONE;

        if (!workers.apply().hit) {
            reject_event = EV_UNKNOWN_WORKER;
        } else if (hdr.agg.version != PROTOCOL_VERSION
                   || hdr.agg.msg_type != MSG_DATA         // RESULT/QUERY/...: not for a switch
                   || (hdr.agg.count != 0 && !hdr.vals.isValid())  // count not in {0, B}, or truncated
                   || hdr.udp.length != expected_udp_len   // trailing bytes
                   || hdr.ipv4.totalLen != IPV4_HDR_LEN + expected_udp_len
                   || (bootstrap && hdr.vals.isValid())    // a bootstrap round is header-only
                   || standard_metadata.checksum_error == 1) {
            reject_event = EV_MALFORMED;
        } else if (hdr.agg.job_id != meta.job_id || hdr.agg.worker_id != meta.worker_id
                   || meta.worker_id >= meta.num_workers    // not a rank of the job
                   || meta.worker_id >= MAX_WORKERS) {      // no bit in the seen bitmap
            reject_event = EV_IDENTITY_MISMATCH;
        } else if ((bit<16>) hdr.agg.slot < meta.slot_base
                   || (bit<16>) hdr.agg.slot >= meta.slot_base + meta.num_slots
                   || hdr.agg.slot >= NUM_SLOTS) {  // beyond the registers, whatever the entry says
            reject_event = EV_BAD_SLOT;
        } else {
            accepted = true;
        }
    }
}

#endif
