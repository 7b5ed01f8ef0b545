// The leaf role (docs/protocol.md, "Hierarchical aggregation"; the v1model
// program's p4src/uplink.p4): a job with an entry in `uplinks` is a leaf job. Its
// rounds are summed as any job's, but a complete round goes to its parent as ONE
// DATA of the parent job (this switch's rank there), not to the workers; the
// parent's RESULT comes back (admission.p4's `parents` admits it) and is
// multicast to them. The round's sums and look-ahead stay in their registers until
// the parent's answer overwrites them (values.p4, lookahead.p4, opening.p4), so a
// local retransmission re-sends the partial sum upstream while the round awaits
// its answer (no timers in the switch) and gets the stored parent RESULT after.
//
// What the switch remembers per slot and shadow copy, so that only the answer to
// the round it sent is taken (a late copy of an older RESULT of the same cell, or
// one of another allreduce, is dropped: event 14). A Tofino 1 stateful ALU makes two
// comparisons, and the check takes three (block, or an opening round; fingerprint;
// still awaiting), so it is split over two stages:
//   sent_block (stage 0)  the round's block, or BLOCK_NONE for an opening round (the
//                         parent chooses b*: any block answers it). Answers a RESULT
//                         with 1 (ig_md.awaiting) when its block is the round's or the round
//                         was an opening round. Indexed by the parser's pool fields (the
//                         cell index is made in this stage).
//   awaiting (stage 1)    {state, fingerprint}: AWAIT_DATA / AWAIT_OPENING while the
//                         parent has not answered, AWAIT_ANSWERED or AWAIT_MISMATCH (the
//                         answer was flagged MISMATCH) once it has. A RESULT is taken
//                         if its fingerprint is the round's (a MISMATCH one: if the cell
//                         awaits) and sent_block answered 1; taking it complements the stored
//                         fingerprint, so a second copy is not taken again. Its
//                         RegisterActions run from seen_bitmap.p4's `admit` table, which
//                         decides admission in the same stage.
// Both are written in the harvest pass of every completed round (for a job without
// uplink nobody reads them) and read in the harvest pass of a retransmission.
//
// The harvest pass of a leaf's round (or of a retransmission while the round awaits)
// leaves through `uplinks` (stage 2) towards the parent; egress fixes its lengths.
#ifndef P4REDUCE_TNA_UPLINK_P4
#define P4REDUCE_TNA_UPLINK_P4

// Stage 0: the round's block, recorded in the harvest pass of a completed round and
// compared with a RESULT's.
control SentBlock(in header_t hdr, inout ingress_metadata_t ig_md) {
    Register<bit<32>, cell_index_t>(REGISTER_SIZE) sent_block;

    // Also answers the state the awaiting register records in the next stage (whose
    // stateful ALU has room for two PHV inputs only: the fingerprint and this).
    RegisterAction<bit<32>, cell_index_t, bit<8>>(sent_block) record_block = {
        void apply(inout bit<32> value, out bit<8> state) {
            if (ig_md.opening == 1) {
                value = 0;            // any block (block + 1 is never 0 but for NONE)
                state = AWAIT_OPENING;
            } else {
                value = hdr.agg.block + 1;
                state = AWAIT_DATA;
            }
        }
    };

    RegisterAction<bit<32>, cell_index_t, bit<8>>(sent_block) compare_block = {
        void apply(inout bit<32> value, out bit<8> match) {
            if (value == hdr.agg.block + 1 || value == 0) {
                match = 1;
            } else {
                match = 0;
            }
        }
    };

    // The cell index from the parser's copies of the pool (locate_cell runs in this stage).
    action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[SLOT_BITS - 1:0]); }
    action compare() { ig_md.awaiting = compare_block.execute(ig_md.shadow ++ ig_md.slot[SLOT_BITS - 1:0]); }

    table sent {
        key = {
            ig_md.harvest: exact;
            hdr.bridged.unicast: ternary;  // harvest pass: a retransmission's (nothing sent)
            hdr.agg.msg_type: ternary;
        }
        actions = { record; compare; @defaultonly NoAction; }
        const entries = {
            (1, 0, _) : record();
            (0, _, MSG_RESULT) : compare();   // every RESULT: `parents` decides in this stage too
        }
        const default_action = NoAction;
        size = 2;
    }

    apply {
        sent.apply();
    }
}

// Stage 1, beside seen_bitmap.p4's `admit` (a table addresses one register cell, and
// the seen bitmap's is the slot): the awaiting register. The harvest pass of a completed
// round records it, a retransmission's reads it; a parent's RESULT that admission takes
// (the same checks as `admit`'s, in the same order) is checked against it.
control Awaiting(in header_t hdr, inout ingress_metadata_t ig_md) {
    Register<awaiting_t, cell_index_t>(REGISTER_SIZE) awaiting;

    // Harvest pass of a completed round: it goes up (if the job is a leaf) and waits.
    RegisterAction<awaiting_t, cell_index_t, bit<8>>(awaiting) await_answer = {
        void apply(inout awaiting_t value) {
            value.state = (bit<32>) ig_md.awaiting;   // AWAIT_DATA or AWAIT_OPENING (sent_block)
            value.fingerprint = hdr.agg.fingerprint;
        }
    };

    // Harvest pass of a retransmission: up again, or the stored answer.
    RegisterAction<awaiting_t, cell_index_t, bit<8>>(awaiting) read_state = {
        void apply(inout awaiting_t value, out bit<8> state) {
            state = (bit<8>) value.state;
        }
    };

    // A parent's RESULT answers the round waiting in its cell: the round's block (any
    // block of an opening round: sent_block answered 1) and fingerprint. Answers the
    // state it found (AWAIT_DATA or AWAIT_OPENING) if taken, else AWAIT_ANSWERED.
    RegisterAction<awaiting_t, cell_index_t, bit<8>>(awaiting) take_answer = {
        void apply(inout awaiting_t value, out bit<8> state) {
            if (value.fingerprint == hdr.agg.fingerprint && ig_md.awaiting == 1) {
                state = (bit<8>) value.state;
                value.state = (bit<32>) AWAIT_ANSWERED;
                value.fingerprint = ~value.fingerprint;
            } else {
                state = AWAIT_ANSWERED;
            }
        }
    };

    // A MISMATCH answer fails the round whatever fingerprint it carries: taken if the
    // cell awaits, and kept for the re-sends.
    RegisterAction<awaiting_t, cell_index_t, bit<8>>(awaiting) take_mismatch = {
        void apply(inout awaiting_t value, out bit<8> state) {
            if (value.state >= (bit<32>) AWAIT_DATA && ig_md.awaiting == 1) {
                state = (bit<8>) value.state;
                value.state = (bit<32>) AWAIT_MISMATCH;
                value.fingerprint = ~value.fingerprint;
            } else {
                state = AWAIT_ANSWERED;
            }
        }
    };

    action record_round() { await_answer.execute(ig_md.cell); }
    action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }
    action take_parent() { ig_md.awaiting = take_answer.execute(ig_md.cell); }
    action take_parent_mismatch() { ig_md.awaiting = take_mismatch.execute(ig_md.cell); }

    table check {
        key = {
            ig_md.harvest: ternary;
            hdr.bridged.unicast: ternary;   // harvest pass: a retransmission's
            ig_md.from_parent: ternary;
            ig_md.malformed: ternary;
            hdr.agg.msg_type: ternary;
            hdr.agg.flags: ternary;         // a parent's MISMATCH
            ig_md.session_diff: ternary;
            ig_md.below_base: ternary;
            ig_md.slot: ternary;
            ig_md.end_room: ternary;
            ig_md.holds_block: ternary;
            ig_md.block_room: ternary;
            ig_md.next_announced: ternary;
            ig_md.next_room: ternary;
        }
        actions = { record_round; read_awaiting; take_parent; take_parent_mismatch; NoAction; }
        const entries = {
            // harvest    parent mal msg  flags  session slot  end blk room next room
            (1, 0,        _, _, _, _,            _, _, _, _,   _, _, _, _) : record_round();
            (1, 1,        _, _, _, _,            _, _, _, _,   _, _, _, _) : read_awaiting();
            (0, _,        1, 0, MSG_RESULT, _,   0, SLOT_OK, 0, _, _, _, _) : NoAction();   // bad slot
            (0, _,        1, 0, MSG_RESULT, _,   0, SLOT_OK, _, 1, 0, _, _) : NoAction();   // block outside
            (0, _,        1, 0, MSG_RESULT, _,   0, SLOT_OK, _, _, _, 1, 0) : NoAction();
            (0, _,        1, 0, MSG_RESULT, FLAG_MISMATCH &&& FLAG_MISMATCH,
                                                 0, SLOT_OK, _, _, _, _, _) : take_parent_mismatch();
            (0, _,        1, 0, MSG_RESULT, _,   0, SLOT_OK, _, _, _, _, _) : take_parent();
        }
        const default_action = NoAction;
        size = 8;
    }

    apply {
        check.apply();
    }
}

// Harvest pass (stage 2): a leaf job's round, or a local retransmission while it
// awaits the parent's answer, leaves as ONE DATA of the parent job: the same pool,
// epoch, blocks, block and exponent, the sums (the first pass made them, the harvest
// pass completes them), the round's look-ahead minimum as its own; from the address
// the leaf's workers send to (the first pass made it the source) to the parent's.
// A job without uplink misses; next_step.p4's Harvested then sends the RESULT, or
// counts the DATA and poisons it (its table matches the bridged kind `to_parent`
// writes, in the stage after: cheaper than a branch on the hit, which costs a stage
// of its own; and this table writes no field an earlier table of stage 2 writes).
control Uplink(inout header_t hdr, inout ingress_metadata_t ig_md,
               inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    // The leaf job's parent: its job, this switch's rank and session there, and
    // where it is (the port towards it, its MAC, IP and UDP port).
    action to_parent(job_id_t up_job, worker_id_t up_rank, bit<32> up_session, PortId_t port,
                     mac_addr_t mac, ipv4_addr_t ip, udp_port_t udp_port) {
        hdr.bridged.kind = bridged_kind_t.UPSTREAM;
        hdr.ethernet.dst_addr = mac;
        hdr.ipv4.dst_addr = ip;
        hdr.udp.dst_port = udp_port;
        hdr.agg.msg_type = MSG_DATA;
        hdr.agg.job_id = up_job;
        hdr.agg.worker_id = up_rank;
        hdr.agg.session = up_session;
        ig_tm_md.ucast_egress_port = port;
    }

    table uplinks {
        key = { hdr.agg.job_id: exact; }   // the leaf job
        actions = { to_parent; @defaultonly NoAction; }
        const default_action = NoAction;   // a job of this switch alone
        size = UPLINK_TABLE_SIZE;
    }

    apply {
        uplinks.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
