// Admission of aggregation packets (docs/protocol.md section 6 step 1 and
// section 8). The sender's identity comes from where and how the packet
// entered (port, MAC, IP, UDP source port), as installed by the controller;
// the header's job and worker ids must agree with that entry, so a host cannot
// speak for another worker or another job. A JOIN from an admitted worker is
// accepted as it is (the switch answers it with JOINED, next_step.p4); every
// other packet must also carry the job's current session and stay inside the
// tensor it announces. Anything not acceptable is rejected with the event code
// it is counted under (ACCEPTED: none); the caller drops it.
//
// A leaf job's parent (docs/protocol.md, "Hierarchical aggregation") answers it
// with RESULTs of the parent job addressed to the leaf's rank there: those are
// admitted by where they come from in `parents`, whose entry names the leaf
// job they belong to (meta.from_parent; uplink.p4 decides whether one answers
// a round the leaf sent up).
#ifndef P4REDUCE_ADMISSION_P4
#define P4REDUCE_ADMISSION_P4

// The reject_event of a packet Admission accepts: no counter cell.
const bit<32> ACCEPTED = 0xFFFFFFFF;

control Admission(inout header_t hdr, inout metadata_t meta,
                    in standard_metadata_t standard_metadata,
                    out bit<32> reject_event) {
    // `session`: one per job, drawn by the controller at install and at every
    // job reset, so packets of processes that joined before a reset are dropped.
    action set_worker(job_id_t job_id, worker_id_t worker_id, bit<8> num_workers, bit<16> mgid,
                      bit<16> slot_base, bit<16> num_slots, bit<32> session) {
        meta.job_id = job_id;
        meta.worker_id = worker_id;
        meta.num_workers = num_workers;
        meta.mgid = mgid;
        meta.slot_base = slot_base;
        meta.num_slots = num_slots;
        meta.session = session;
    }

    // A RESULT of the parent job for this switch's rank in it, from the parent:
    // the leaf job's entry as set_worker gives it (no worker of its own), and the
    // session the parent gave the leaf.
    action from_parent(job_id_t job_id, bit<8> num_workers, bit<16> mgid, bit<16> slot_base,
                       bit<16> num_slots, bit<32> session, bit<32> up_session) {
        set_worker(job_id, 0, num_workers, mgid, slot_base, num_slots, session);
        meta.up_session = up_session;
        meta.from_parent = 1;
    }
    table parents {
        key = {
            standard_metadata.ingress_port: exact;
            hdr.ethernet.src_addr: exact;
            hdr.ipv4.src_addr: exact;
            hdr.udp.src_port: exact;
            hdr.agg.job_id: exact;      // the parent job
            hdr.agg.worker_id: exact;   // this switch's rank in it
        }
        actions = { from_parent; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    table workers {
        key = {
            standard_metadata.ingress_port: exact;
            hdr.ethernet.src_addr: exact;
            hdr.ipv4.src_addr: exact;
            hdr.udp.src_port: exact;
        }
        actions = { set_worker; NoAction; }
        default_action = NoAction();  // a miss is an unknown worker
        size = 1024;
    }

    apply {
        reject_event = ACCEPTED;
        bool join = hdr.agg.msg_type == MSG_JOIN;
        bool no_block = hdr.agg.block == BLOCK_NONE;  // an empty opening DATA

        // (An ERROR from the parent, count 0, passes the same checks: it echoes the
        // header of the packet it answers, the leaf's session and slot included.)
        if ((hdr.agg.msg_type == MSG_RESULT || hdr.agg.msg_type == MSG_ERROR) && parents.apply().hit) {
            if (hdr.agg.version != PROTOCOL_VERSION
                    || (hdr.agg.count != 0 && !hdr.vals.isValid())
                    || hdr.udp.length != UDP_HDR_LEN + AGG_HDR_LEN + (hdr.agg.count << 2)
                    || hdr.ipv4.total_len != IPV4_HDR_LEN + hdr.udp.length
                    || standard_metadata.checksum_error == 1) {
                reject_event = EV_MALFORMED;
            } else if (hdr.agg.session != meta.up_session) {
                reject_event = EV_BAD_SESSION;  // the parent reset the leaf's membership
            } else if ((bit<16>) hdr.agg.slot < meta.slot_base
                    || (bit<16>) hdr.agg.slot >= meta.slot_base + meta.num_slots
                    || hdr.agg.slot >= NUM_SLOTS) {
                reject_event = EV_BAD_SLOT;
            }
        } else if (!workers.apply().hit) {  // (a RESULT from a worker: malformed, below)
            reject_event = EV_UNKNOWN_WORKER;
        } else if (hdr.agg.version != PROTOCOL_VERSION
                   || (hdr.agg.msg_type != MSG_DATA && !join)  // RESULT/QUERY/RESET...: not for a switch
                   || (hdr.agg.count != 0 && !hdr.vals.isValid())  // count not in {0, B}, truncated, JOIN with values
                   // UDP length of a well-formed packet: 8 + 36 + 4 * count (count is 0
                   // or B here: any other count failed the clause before). Arithmetic,
                   // not `hdr.vals.isValid() ? ...`, which p4c makes a branch and two
                   // tables that BMv2 runs for every packet.
                   || hdr.udp.length != UDP_HDR_LEN + AGG_HDR_LEN + (hdr.agg.count << 2)  // trailing bytes
                   || hdr.ipv4.total_len != IPV4_HDR_LEN + hdr.udp.length
                   || (no_block && hdr.vals.isValid())     // values of no block
                   || standard_metadata.checksum_error == 1) {
            reject_event = EV_MALFORMED;
        } else if (hdr.agg.job_id != meta.job_id || hdr.agg.worker_id != meta.worker_id
                   || meta.worker_id >= meta.num_workers    // not a rank of the job
                   || meta.worker_id >= MAX_WORKERS) {      // no bit in the seen bitmap
            reject_event = EV_IDENTITY_MISMATCH;
        } else if (join) {
            // A JOIN has no session yet and touches no register. Its slot is
            // not checked either: JOINED names the entry's slot_base, and a
            // worker configured with another one learns that from the answer.
        } else if (hdr.agg.session != meta.session) {
            // A process that joined before the job was reset (or never joined).
            reject_event = EV_BAD_SESSION;
        } else if ((bit<16>) hdr.agg.slot < meta.slot_base
                   || (bit<16>) hdr.agg.slot >= meta.slot_base + meta.num_slots
                   || hdr.agg.slot >= NUM_SLOTS) {  // beyond the registers, whatever the entry says
            reject_event = EV_BAD_SLOT;
        } else if ((!no_block && hdr.agg.block >= hdr.agg.blocks)
                   || (hdr.agg.next_block != BLOCK_NONE && hdr.agg.next_block >= hdr.agg.blocks)) {
            // A block outside the tensor the packet itself announces.
            reject_event = EV_MALFORMED;
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
