// The B = 64 aggregated values of every slot and shadow copy, in 32 pair
// registers (SwitchML's layout): pair NN holds values NN (first word, from
// hdr.vals_a) and NN + 32 (second word, hdr.vals_b) of its cell, so one
// stateful ALU adds two values per packet.
//
// The first counted packet of a round overwrites both words (a reused set
// needs no clearing), later ones add (int32 wrap-around; the workers' fixed
// point rules out overflow, docs/protocol.md section 5), a retransmission only
// reads; in an opening round a packet overwrites, adds or is left out as its
// key against K1 says (docs/protocol.md section 3; opening.p4). ValueOp decides
// that once, in stage 3, from the seen bitmap and opening.p4's answers, so that
// every pair matches one small code. A Tofino 1 stateful ALU returns one 32-bit
// word per pass, so the first pass returns the second words (into hdr.vals_b)
// and the packet that leaves with the round's RESULT comes back once through the
// recirculation port (harvest, ig_md.harvest == 1) to read the first words into
// hdr.vals_a. That uses the fourth and last RegisterAction a Tofino 1 register
// can have.
#ifndef P4REDUCE_TNA_VALUES_P4
#define P4REDUCE_TNA_VALUES_P4

struct value_pair_t {
    value_t first;   // value NN of the block
    value_t second;  // value NN + 32
}

// What the pairs do with a packet, from the answers of stages 1 and 2:
//   harvest pass                  the first words (HARVEST)
//   first counted packet          overwrite (WRITE)
//   later counted, data round     add (ADD)
//   later counted, opening round  by its case (opening.p4): 1 and 2 overwrite, 3 adds,
//                                 4 and 5 leave the sums alone but read them (READ)
//   retransmission                read (a re-send carries the stored sums)
// A packet that is left out (and a NONE one, whose key is above every block's) still
// reads the second words: it may be the one that completes the round. The keys:
// harvest, accepted, position, opening, the K2 candidate (0: case 1; opening.p4
// leaves it in next_block) and first_key's code (0: cases 4 and 5; CODE_SAME_KEY:
// case 3).
#define VALUE_OP_KEYS(CANDIDATE, COUNT) \
    ig_md.harvest: ternary; \
    ig_md.accepted: ternary; \
    ig_md.position: ternary; \
    ig_md.opening: ternary; \
    CANDIDATE: ternary; \
    ig_md.first_code: ternary; \
    ig_md.from_parent: ternary; \
    ig_md.awaiting: ternary; \
    COUNT: ternary;
// A leaf job's parent answered (uplink.p4): its sums replace the partial ones, for the
// re-sends to the leaf's workers (a header-only answer leaves them: a REPEAT or an
// empty stream's end is re-sent header-only anyway).
#define VALUE_OP_ENTRIES(HARVEST, WRITE, ADD, READ) \
    (1, _, _, _, _, _, _, _, _) : HARVEST; \
    (0, 1, ROUND_FIRST, _, _, _, _, _, _) : WRITE; \
    (0, 1, ROUND_LATER, 0, _, _, _, _, _) : ADD; \
    (0, 1, ROUND_LATER, 1, 0, _, _, _, _) : WRITE;           /* case 1 */ \
    (0, 1, ROUND_LATER, 1, _, 0, _, _, _) : READ;            /* cases 4, 5 */ \
    (0, 1, ROUND_LATER, 1, _, CODE_SAME_KEY, _, _, _) : ADD; /* case 3 */ \
    (0, 1, ROUND_LATER, 1, _, _, _, _, _) : WRITE;           /* case 2 */ \
    (0, 1, ROUND_RETRANSMISSION, _, _, _, _, _, _) : READ; \
    (0, 0, _, _, _, _, 1, AWAIT_DATA &&& AWAIT_DATA, VALUES_PER_PACKET) : WRITE; /* the parent's answer */

// One pair. `by_case`: the pair decides from the answers of stages 1 and 2 itself
// (VALUE_OP_KEYS), so that it can run in stage 3 next to ValueOp; the others match
// ValueOp's code from stage 4 on.
control ValuePair(inout value_t first, inout value_t second, in bit<32> candidate,
                  in bit<16> count, in ingress_metadata_t ig_md)(bool by_case) {
    Register<value_pair_t, cell_index_t>(REGISTER_SIZE) sums;

    RegisterAction<value_pair_t, cell_index_t, value_t>(sums) write_pair = {
        void apply(inout value_pair_t value, out value_t second_sum) {
            value.first = first;
            value.second = second;
            second_sum = value.second;
        }
    };

    RegisterAction<value_pair_t, cell_index_t, value_t>(sums) add_pair = {
        void apply(inout value_pair_t value, out value_t second_sum) {
            value.first = value.first + first;
            value.second = value.second + second;
            second_sum = value.second;
        }
    };

    RegisterAction<value_pair_t, cell_index_t, value_t>(sums) read_second = {
        void apply(inout value_pair_t value, out value_t second_sum) {
            second_sum = value.second;
        }
    };

    RegisterAction<value_pair_t, cell_index_t, value_t>(sums) read_first = {
        void apply(inout value_pair_t value, out value_t first_sum) {
            first_sum = value.first;
        }
    };

    action open() { second = write_pair.execute(ig_md.cell); }
    action add() { second = add_pair.execute(ig_md.cell); }
    action resend() { second = read_second.execute(ig_md.cell); }
    action harvest() { first = read_first.execute(ig_md.cell); }

    // Applied to every packet: ValueOp's code says whether and how the pair
    // runs, so that no gateway ties the 32 tables to the stage where admission
    // decides.
    table pair {
        key = { ig_md.value_op: exact; }
        actions = { open; add; resend; harvest; @defaultonly NoAction; }
        const entries = {
            VALUE_WRITE : open();
            VALUE_ADD : add();
            VALUE_READ : resend();
            VALUE_HARVEST : harvest();     // second pass: the first words
        }
        const default_action = NoAction;
        size = 4;
    }

    table pair_by_case {
        key = { VALUE_OP_KEYS(candidate, count) }
        actions = { open; add; resend; harvest; @defaultonly NoAction; }
        const entries = {
            VALUE_OP_ENTRIES(harvest(), open(), add(), resend())
        }
        const default_action = NoAction;
        size = 9;
    }

    apply {
        if (by_case) {
            pair_by_case.apply();
        } else {
            pair.apply();
        }
    }
}

#define VALUE_PAIR_INSTANCE(NN) ValuePair(false) value_##NN;
#define VALUE_PAIR_APPLY(NN) value_##NN.apply(hdr.vals_a.v##NN, hdr.vals_b.v##NN, hdr.agg.next_block, hdr.agg.count, ig_md);
#define ZERO_VALUE(NN) hdr.vals_a.v##NN = 0; hdr.vals_b.v##NN = 0;
#define FOR_ALL_VALUE_PAIRS(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)

// One pair decides by itself in stage 3 (ValuePair's by_case); the other 31 run
// in stages 4 to 11, four per stage but three in stage 4, whose memories the
// counters share (README.md).
#define VALUE_PAIR_BY_CASE_INSTANCE(NN) ValuePair(true) value_##NN;
#define FOR_EARLY_VALUE_PAIRS(M) M(31)
#define FOR_LATER_VALUE_PAIRS(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30)

// What the pairs do with this packet, as one code (stage 3).
control ValueOp(in header_t hdr, inout ingress_metadata_t ig_md) {
    action set_value_op(value_op_t op) {
        ig_md.value_op = op;
    }

    table value_op {
        key = { VALUE_OP_KEYS(hdr.agg.next_block, hdr.agg.count) }
        actions = { set_value_op; }
        const entries = {
            VALUE_OP_ENTRIES(set_value_op(VALUE_HARVEST), set_value_op(VALUE_WRITE),
                             set_value_op(VALUE_ADD), set_value_op(VALUE_READ))
        }
        const default_action = set_value_op(VALUE_NONE);
        size = 9;
    }

    apply {
        value_op.apply();
    }
}

// All 32 pairs (README.md has where they run). Applied before lookahead.p4's
// min_key replaces the candidate in next_block, which the pair that decides by
// itself reads.
control Values(inout header_t hdr, in ingress_metadata_t ig_md) {
    FOR_EARLY_VALUE_PAIRS(VALUE_PAIR_BY_CASE_INSTANCE)
    FOR_LATER_VALUE_PAIRS(VALUE_PAIR_INSTANCE)

    apply {
        FOR_EARLY_VALUE_PAIRS(VALUE_PAIR_APPLY)
        FOR_LATER_VALUE_PAIRS(VALUE_PAIR_APPLY)
    }
}

// Dense mode: a worker without data at the round's block sends DATA with
// count = 0 (in an opening round: one that holds nothing in the stream, about
// block NONE). It contributes zeros, and it may be the packet that completes
// the round, so it gets zeroed values first: then every RESULT leaves with the
// 64 sums, whichever packet completes it (an opening round's REPEAT or empty
// stream drops them in its harvest pass). For accepted packets, from stage 2 on
// (after admission, whose JOINED shares containers with `count`), before the
// pairs read the values; AgreementKey reads the packet's own count, before this.
control ZeroValues(inout header_t hdr) {
    action add_zero_values() {
        hdr.vals_a.setValid();
        hdr.vals_b.setValid();
        FOR_ALL_VALUE_PAIRS(ZERO_VALUE)
        hdr.agg.count = VALUES_PER_PACKET;
    }

    table zero_values {
        key = {
            hdr.agg.msg_type: exact;
            hdr.agg.count: exact;
        }
        actions = { add_zero_values; NoAction; }
        const entries = {
            (MSG_DATA, 0) : add_zero_values();
        }
        const default_action = NoAction;
        size = 1;
    }

    apply {
        zero_values.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
