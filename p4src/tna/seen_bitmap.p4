// Admission's decision and the seen bitmap, stage 1.
//
// Which workers have been counted in the round, per slot and shadow copy
// (docs/protocol.md section 6 step 2), SwitchML-style: one 64-bit register
// cell per slot holds both shadow copies. A packet with shadow bit v ORs its
// worker's bit into set v and clears it in set 1-v, in one RegisterAction: a
// worker that moved on to a round with shadow bit v has received the result
// of the round held in 1-v, so by the time set 1-v is reused every bit in it
// is clear again (self-cleaning; no control-plane clearing between rounds).
// The action returns set v as it was before this packet.
//
// The table that marks the bitmap is also the one that decides admission, so
// that the bitmap runs one stage after the worker entry: its key is every
// check stage 0 prepared (admission.p4), and its constant entries apply them in
// the v1model program's order (unknown worker, malformed, identity, JOIN,
// session, slot, block outside the tensor), each rejection with its event. A
// check whose failure shows as a non-zero value cannot be one ternary entry,
// so the entries list what passes: an entry is reached only when every entry
// above it missed, which is how "all checks before this one passed" is written.
#ifndef P4REDUCE_TNA_SEEN_BITMAP_P4
#define P4REDUCE_TNA_SEEN_BITMAP_P4

struct bitmap_pair_t {
    worker_bitmap_t set0;   // shadow copy 0
    worker_bitmap_t set1;   // shadow copy 1
}

// Key values: the identity checks that pass when their field is 0 (job_diff,
// worker_diff, worker_id < MAX_WORKERS) and the slot checks of that kind
// (below_base, slot < NUM_SLOTS).
#define IDENTITY_OK 0, 0, 8w0 &&& ~(MAX_WORKERS - 1)
#define SLOT_OK 0, 16w0 &&& ~((bit<16>) NUM_SLOTS - 1)

control SeenBitmap(inout header_t hdr, inout ingress_metadata_t ig_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Register<bitmap_pair_t, slot_index_t>(NUM_SLOTS) seen;
    RegisterAction<bitmap_pair_t, slot_index_t, worker_bitmap_t>(seen) mark_set0 = {
        void apply(inout bitmap_pair_t value, out worker_bitmap_t before) {
            before = value.set0;
            value.set0 = value.set0 | ig_md.worker_bit;
            value.set1 = value.set1 & ~ig_md.worker_bit;
        }
    };

    RegisterAction<bitmap_pair_t, slot_index_t, worker_bitmap_t>(seen) mark_set1 = {
        void apply(inout bitmap_pair_t value, out worker_bitmap_t before) {
            before = value.set1;
            value.set0 = value.set0 & ~ig_md.worker_bit;
            value.set1 = value.set1 | ig_md.worker_bit;
        }
    };

    // Counted, or a retransmission (map_result != 0: this worker was already
    // counted in the round). map_result comes from the stateful ALU's output in
    // the same action.
    // The look-ahead keys are made here too (lookahead.p4).
    action accept_set0() {
        ig_md.bitmap_before = mark_set0.execute(ig_md.slot_index);
        ig_md.map_result = ig_md.bitmap_before & ig_md.worker_bit;
        ig_md.accepted = 1;
        MAKE_KEYS
    }

    action accept_set1() {
        ig_md.bitmap_before = mark_set1.execute(ig_md.slot_index);
        ig_md.map_result = ig_md.bitmap_before & ig_md.worker_bit;
        ig_md.accepted = 1;
        MAKE_KEYS
    }

    action reject(event_t event) {
        ig_dprsr_md.drop_ctl = 1;
        ig_md.event = event;
        ig_md.count_event = 1;
        ig_md.job_event = JOB_EV_DROPS;  // counted for the job only if admitted
        ig_md.from_parent = 0;           // no later stage takes it
    }

    // The leaf role (uplink.p4): a parent's RESULT that admission takes makes the keys
    // its answer is stored under (lookahead.p4, opening.p4); uplink.p4's awaiting
    // register, in this stage too, decides with the same checks whether it is taken.
    action take_parent() {
        MAKE_KEYS
    }

    // The parent failed the leaf's job (its ERROR answers one of the leaf's packets;
    // admission.p4 made it the leaf job's): every worker of the leaf fails with
    // UPSTREAM, the parent's code as the detail (docs/protocol.md section 6), as a
    // software leaf's workers do. No register changes.
    action parent_error() {
        ANSWER_FROM_AGGREGATOR
        hdr.agg.next_block = hdr.agg.block;
        hdr.agg.block = ERROR_UPSTREAM;
        hdr.bridged.kind = bridged_kind_t.ANSWER;
        hdr.bridged.unicast = 0;
        ig_tm_md.mcast_grp_a = ig_md.mgid;
        ig_md.event = EV_FROM_PARENT;
        ig_md.count_event = 1;
        ig_md.job_event = JOB_EV_PACKETS;
        ig_md.from_parent = 0;           // nothing else to do
    }

    // A JOIN has no session yet and touches no register. Its slot is not
    // checked either: JOINED names the entry's slot_base. It leaves as its JOINED
    // (docs/protocol.md section 8): the job's geometry as the worker entry has it,
    // and the job's session; the worker compares the geometry with its own
    // configuration (a worker configured with another B fails at JOIN, naming
    // block_size). The incarnation (epoch), job and worker id stay as received;
    // blocks = 0: one packet per datagram (section 1). Sent back where it came in
    // (p4reduce_tna.p4's `bridge` addressed every JOIN so). Here rather than in a
    // stage of its own: the entry's fields it needs then take no PHV past this stage.
    action join() {
        ig_md.event = EV_JOINED;
        ig_md.count_event = 1;
        ig_md.job_event = JOB_EV_PACKETS;
        ANSWER_FROM_AGGREGATOR
        hdr.agg.msg_type = MSG_JOINED;
        hdr.agg.flags = 0;
        hdr.agg.shadow = ig_md.pool[15:15];  // 0: the control plane keeps slot_base < NUM_SLOTS
        hdr.agg.slot = ig_md.pool[14:0];
        hdr.agg.block = (bit<32>) VALUES_PER_PACKET;
        hdr.agg.next_block = ig_md.num_slots;
        hdr.agg.exp = MODE_DENSE;
        hdr.agg.next_exp = ig_md.num_workers;
        hdr.agg.session = hdr.agg.session ^ ig_md.session_diff;  // the job's: a JOIN carries 0, checked nowhere
        hdr.agg.blocks = 0;
        hdr.agg.fingerprint = 0;
    }

    table admit {
        key = {
            ig_md.admitted: ternary;
            ig_md.malformed: ternary;
            ig_md.from_parent: ternary;
            ig_md.job_diff: ternary;
            ig_md.worker_diff: ternary;
            hdr.agg.worker_id: ternary;
            ig_md.rank_room: ternary;
            hdr.agg.msg_type: ternary;
            ig_md.session_diff: ternary;
            ig_md.below_base: ternary;
            ig_md.slot: ternary;
            ig_md.end_room: ternary;
            ig_md.holds_block: ternary;
            ig_md.block_room: ternary;
            ig_md.next_announced: ternary;
            ig_md.next_room: ternary;
            ig_md.shadow: ternary;
        }
        actions = { accept_set0; accept_set1; reject; join; take_parent; parent_error; }
        const entries = {
            // adm mal parent identity rank msg session slot end blk room next room shadow
            (0, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : reject(EV_UNKNOWN_WORKER);
            (1, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : reject(EV_MALFORMED);
            // A parent's RESULT or ERROR (admission.p4's `parents`): the leaf's session there,
            // the leaf job's slots, a RESULT's blocks inside its tensor.
            (1, 0, 1, _, _, _, _, _, 0, SLOT_OK, 0, _, _, _, _, _) : reject(EV_BAD_SLOT);
            (1, 0, 1, _, _, _, _, MSG_ERROR, 0, SLOT_OK, _, _, _, _, _, _) : parent_error();
            (1, 0, 1, _, _, _, _, _, 0, SLOT_OK, _, 1, 0, _, _, _) : reject(EV_MALFORMED);
            (1, 0, 1, _, _, _, _, _, 0, SLOT_OK, _, _, _, 1, 0, _) : reject(EV_MALFORMED);
            (1, 0, 1, _, _, _, _, _, 0, SLOT_OK, _, _, _, _, _, _) : take_parent();
            (1, 0, 1, _, _, _, _, _, 0, _, _, _, _, _, _, _, _) : reject(EV_BAD_SLOT);
            (1, 0, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : reject(EV_BAD_SESSION);
            // A worker's packet.
            (1, 0, 0, IDENTITY_OK, 0, _, _, _, _, _, _, _, _, _, _) : reject(EV_IDENTITY_MISMATCH);
            (1, 0, 0, IDENTITY_OK, _, MSG_JOIN, _, _, _, _, _, _, _, _, _) : join();
            (1, 0, 0, IDENTITY_OK, _, _, 0, SLOT_OK, 0, _, _, _, _, _) : reject(EV_BAD_SLOT);
            (1, 0, 0, IDENTITY_OK, _, _, 0, SLOT_OK, _, 1, 0, _, _, _) : reject(EV_MALFORMED);
            (1, 0, 0, IDENTITY_OK, _, _, 0, SLOT_OK, _, _, _, 1, 0, _) : reject(EV_MALFORMED);
            (1, 0, 0, IDENTITY_OK, _, _, 0, SLOT_OK, _, _, _, _, _, 0) : accept_set0();
            (1, 0, 0, IDENTITY_OK, _, _, 0, SLOT_OK, _, _, _, _, _, 1) : accept_set1();
            (1, 0, 0, IDENTITY_OK, _, _, 0, _, _, _, _, _, _, _, _) : reject(EV_BAD_SLOT);
            (1, 0, 0, IDENTITY_OK, _, _, _, _, _, _, _, _, _, _, _) : reject(EV_BAD_SESSION);
        }
        // Admitted, well-formed, and the header's job or worker is not the
        // entry's, or its worker id has no bit in the bitmap.
        const default_action = reject(EV_IDENTITY_MISMATCH);
        size = 32;
    }

    apply {
        admit.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
