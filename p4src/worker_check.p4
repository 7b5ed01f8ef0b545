// Which worker sent this packet? Identity comes from where the packet entered
// (port, MAC, IP, UDP port), installed by the controller; the header's job and
// worker ids must agree with it, so a host cannot speak for another worker.
#ifndef P4REDUCE_WORKER_CHECK_P4
#define P4REDUCE_WORKER_CHECK_P4

control WorkerCheck(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    action set_worker(bit<16> job_id, bit<8> worker_id, bit<8> num_workers, bit<16> mgid,
                      bit<16> slot_base, bit<16> num_slots) {
        meta.known_worker = 1;
        meta.job_id = job_id;
        meta.worker_id = worker_id;
        meta.num_workers = num_workers;
        meta.mgid = mgid;
        meta.slot_base = slot_base;
        meta.num_slots = num_slots;
    }

    action unknown_worker() {
        meta.known_worker = 0;
    }

    table workers {
        key = {
            standard_metadata.ingress_port: exact;
            hdr.ethernet.srcAddr: exact;
            hdr.ipv4.srcAddr: exact;
            hdr.udp.srcPort: exact;
        }
        actions = { set_worker; unknown_worker; }
        default_action = unknown_worker();
        size = 1024;
    }

    apply {
        workers.apply();
    }
}

#endif
