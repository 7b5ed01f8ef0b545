// Admission of aggregation packets (docs/protocol.md section 6 step 1 and
// section 8), stage 0. The sender's identity comes from where and how the
// packet entered (port, MAC, IP, UDP source port), as installed by the control
// plane; the entry gives the job, the worker, its bit in the seen bitmap, the
// job's worker count, multicast group, slot range and session.
//
// Everything admission needs is prepared in stage 0, by tables that do not
// depend on each other (so the backend places them side by side):
//   workers      the entry, and every check that compares the header with it
//                as one ALU operation (an XOR or a saturating subtraction), so
//                that what follows matches each result against 0;
//   format       the checks of the header alone (version, type, count,
//                lengths, IPv4 checksum, parser error, the tensor's size) as one
//                ternary table;
//   round_kind   whether block and next_block name a block or NONE.
// Stage 1 decides, in the order the v1model program checks, with one ternary
// table that also marks the seen bitmap (seen_bitmap.p4). A chain of `if`s
// setting one flag would cost a stage per `if` on Tofino (each is a table that
// writes the flag after the previous one).
#ifndef P4REDUCE_TNA_ADMISSION_P4
#define P4REDUCE_TNA_ADMISSION_P4

control Admission(inout header_t hdr, inout ingress_metadata_t ig_md,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md) {
    // The control plane keeps worker_bit == 1 << worker_id,
    // slot_base < slot_end <= NUM_SLOTS and num_slots == slot_end - slot_base
    // (JOINED's S, seen_bitmap.p4); the data plane checks worker_id <
    // num_workers <= MAX_WORKERS and the slot against both the entry and NUM_SLOTS.
    // `session`: one per job, drawn by the control plane at install and at every
    // job reset, so packets of processes that joined before a reset are dropped.
    action set_worker(job_id_t job_id, worker_id_t worker_id, worker_bitmap_t worker_bit,
                      bit<8> num_workers, MulticastGroupId_t mgid,
                      bit<16> slot_base, bit<16> slot_end, bit<32> num_slots, bit<32> session) {
        ig_md.admitted = 1;
        ig_md.worker_bit = worker_bit;
        ig_md.num_workers = num_workers;
        ig_md.mgid = mgid;
        ig_md.pool = slot_base;
        ig_md.num_slots = num_slots;
        ig_md.job_diff = hdr.agg.job_id ^ job_id;
        ig_md.worker_diff = hdr.agg.worker_id ^ worker_id;
        ig_md.session_diff = hdr.agg.session ^ session;
        ig_md.rank_room = num_workers |-| hdr.agg.worker_id;
        ig_md.below_base = slot_base |-| ig_md.slot;
        ig_md.end_room = slot_end |-| ig_md.slot;
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
        const default_action = NoAction;  // a miss is an unknown worker (admitted stays 0)
        size = WORKER_TABLE_SIZE;
    }

    // A RESULT or ERROR of the parent job for this switch's rank in it, from the
    // parent (uplink.p4): the leaf job's group and slot range, and the session the
    // parent gave the leaf (checked in stage 1 as a worker's is). It goes down as the
    // leaf job's, so its job and session are rewritten here, where nothing reads them
    // after this stage's checks.
    action from_parent(job_id_t job_id, MulticastGroupId_t mgid, bit<16> slot_base,
                       bit<16> slot_end, bit<32> session, bit<32> up_session) {
        ig_md.admitted = 1;
        ig_md.from_parent = 1;
        ig_md.mgid = mgid;
        ig_md.pool = slot_base;
        ig_md.session_diff = hdr.agg.session ^ up_session;
        ig_md.below_base = slot_base |-| ig_md.slot;
        ig_md.end_room = slot_end |-| ig_md.slot;
        ig_md.block_room = hdr.agg.blocks |-| hdr.agg.block;
        ig_md.next_room = hdr.agg.blocks |-| hdr.agg.next_block;
        hdr.agg.job_id = job_id;
        hdr.agg.session = session;
    }

    table parents {
        key = {
            ig_intr_md.ingress_port: exact;
            hdr.ethernet.src_addr: exact;
            hdr.ipv4.src_addr: exact;
            hdr.udp.src_port: exact;
            hdr.agg.job_id: exact;      // the parent job
            hdr.agg.worker_id: exact;   // this switch's rank in it
        }
        actions = { from_parent; @defaultonly NoAction; }
        const default_action = NoAction;
        size = PARENT_TABLE_SIZE;
    }

    action set_malformed(bit<1> malformed) {
        ig_md.malformed = malformed;
    }

    // The well-formed shapes; anything else is malformed (event 7): a wrong
    // version or type, a count not in {0, B} or values cut short (the parser
    // takes values only for DATA with count B), lengths that do not say header
    // (+ B values), a bad IPv4 checksum, a parser error, values about block NONE
    // (only a worker holding nothing sends an opening DATA about NONE, header-only),
    // and DATA of a tensor of more than MAX_BLOCKS blocks (types.p4: the 32-bit
    // look-ahead keys hold 24 bits of a block).
    table format {
        key = {
            hdr.agg.version: ternary;
            hdr.agg.msg_type: ternary;
            hdr.agg.count: ternary;
            hdr.vals_a.isValid(): ternary;
            hdr.vals_b.isValid(): ternary;
            hdr.udp.length: ternary;
            hdr.ipv4.total_len: ternary;
            hdr.agg.block: ternary;
            hdr.agg.blocks: ternary;
            ig_md.checksum_ok: ternary;
            ig_prsr_md.parser_err: ternary;
        }
        actions = { set_malformed; }
        const entries = {
            (_, _, _, true, true, _, _, BLOCK_NONE, _, _, _) : set_malformed(1);
            (PROTOCOL_VERSION, MSG_DATA, VALUES_PER_PACKET, true, true,
             UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN, _,
             0 &&& ~MAX_BLOCKS, true, 0) : set_malformed(0);
            (PROTOCOL_VERSION, MSG_DATA, 0, _, _, UDP_HDR_LEN + AGG_HDR_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN, _, 0 &&& ~MAX_BLOCKS, true, 0) : set_malformed(0);
            (PROTOCOL_VERSION, MSG_JOIN, 0, _, _, UDP_HDR_LEN + AGG_HDR_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN, _, _, true, 0) : set_malformed(0);
            // A parent's answer to a leaf job (admitted only through `parents`):
            // RESULT with B values or header-only, ERROR header-only.
            (PROTOCOL_VERSION, MSG_RESULT, VALUES_PER_PACKET, true, true,
             UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN, _,
             0 &&& ~MAX_BLOCKS, true, 0) : set_malformed(0);
            (PROTOCOL_VERSION, MSG_RESULT, 0, _, _, UDP_HDR_LEN + AGG_HDR_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN, _, 0 &&& ~MAX_BLOCKS, true, 0) : set_malformed(0);
            (PROTOCOL_VERSION, MSG_ERROR, 0, _, _, UDP_HDR_LEN + AGG_HDR_LEN,
             IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN, _, _, true, 0) : set_malformed(0);
        }
        const default_action = set_malformed(1);
        size = 8;
    }

    action set_round_kind(bit<1> holds_block, bit<1> next_announced) {
        ig_md.holds_block = holds_block;
        ig_md.next_announced = next_announced;
    }

    table round_kind {
        key = {
            hdr.agg.block: ternary;
            hdr.agg.next_block: ternary;
        }
        actions = { set_round_kind; }
        const entries = {
            (BLOCK_NONE, BLOCK_NONE) : set_round_kind(0, 0);
            (BLOCK_NONE, _) : set_round_kind(0, 1);
            (_, BLOCK_NONE) : set_round_kind(1, 0);
        }
        const default_action = set_round_kind(1, 1);
        size = 3;
    }

    // A RESULT or ERROR is a parent's (a worker sends neither): the two tables are
    // exclusive, so they share stage 0. One from an address without a `parents`
    // entry is an unknown sender's (event 4).
    apply {
        if (hdr.agg.msg_type == MSG_RESULT || hdr.agg.msg_type == MSG_ERROR) {
            parents.apply();
        } else {
            workers.apply();
        }
        format.apply();
        round_kind.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
