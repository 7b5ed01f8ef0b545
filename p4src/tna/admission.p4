// Admission of aggregation packets (docs/protocol.md section 6 step 1 and
// section 8). The sender's identity comes from where and how the packet
// entered (port, MAC, IP, UDP source port), as installed by the control plane;
// the entry gives the job, the worker, its bit in the seen bitmap, the job's
// worker count, multicast group, slot range and session.
//
// Every check the next stage makes is prepared here as one ALU operation of
// the entry's action (an XOR or a saturating subtraction of a header field and
// action data), so that what follows compares each with 0 only (gateways),
// and the seen bitmap can run right after them. The checks themselves, in the
// order the v1model program makes them, are the `if` chain at the top of
// Ingress (p4reduce_tna.p4), each rejection counted under its event.
#ifndef P4REDUCE_TNA_ADMISSION_P4
#define P4REDUCE_TNA_ADMISSION_P4

control Admission(in header_t hdr, inout ingress_metadata_t ig_md,
                  in ingress_intrinsic_metadata_t ig_intr_md, out bool admitted) {
    // The control plane keeps worker_bit == 1 << worker_id and
    // slot_base < slot_end <= NUM_SLOTS; the data plane checks worker_id <
    // num_workers <= MAX_WORKERS and the slot against both the entry and NUM_SLOTS.
    // `session`: one per job, drawn by the control plane at install and at every
    // job reset, so packets of processes that joined before a reset are dropped.
    action set_worker(job_id_t job_id, worker_id_t worker_id, worker_bitmap_t worker_bit,
                      bit<8> num_workers, MulticastGroupId_t mgid,
                      bit<16> slot_base, bit<16> slot_end, bit<32> session) {
        ig_md.job_id = job_id;
        ig_md.worker_id = worker_id;
        ig_md.worker_bit = worker_bit;
        ig_md.num_workers = num_workers;
        ig_md.mgid = mgid;
        ig_md.slot_base = slot_base;
        ig_md.slot_end = slot_end;
        ig_md.session = session;
        ig_md.job_diff = hdr.agg.job_id ^ job_id;
        ig_md.worker_diff = hdr.agg.worker_id ^ worker_id;
        ig_md.session_diff = hdr.agg.session ^ session;
        ig_md.rank_room = num_workers |-| hdr.agg.worker_id;
        ig_md.below_base = slot_base |-| (bit<16>) hdr.agg.slot;
        ig_md.end_room = slot_end |-| (bit<16>) hdr.agg.slot;
        ig_md.block_room = hdr.agg.blocks |-| hdr.agg.block;
        ig_md.next_room = hdr.agg.blocks |-| hdr.agg.next_block;
    }

    table workers {
        key = {
            ig_intr_md.ingress_port: exact;
            hdr.ethernet.src_addr: exact;
            hdr.ipv4.src_addr: exact;
            hdr.udp.src_port: exact;
        }
        actions = { set_worker; @defaultonly NoAction; }
        const default_action = NoAction;  // a miss is an unknown worker
        size = WORKER_TABLE_SIZE;
    }

    apply {
        admitted = workers.apply().hit;
    }
}

#endif
