// The B = 64 aggregated values of every slot and shadow copy, in 32 pair
// registers (SwitchML's layout): pair NN holds values NN (first word, from
// hdr.vals_a) and NN + 32 (second word, hdr.vals_b) of its cell, so one
// stateful ALU adds two values per packet.
//
// The first counted packet of a round overwrites both words (a reused set
// needs no clearing), later ones add (int32 wrap-around; the workers' fixed
// point rules out overflow, docs/protocol.md section 5), a retransmission only
// reads. A Tofino 1 stateful ALU returns one 32-bit word per pass, so the
// first pass returns the second words (into hdr.vals_b) and the packet that
// leaves with the round's RESULT comes back once through the recirculation
// port (harvest, ig_md.harvest == 1) to read the first words into hdr.vals_a.
// That uses the fourth and last RegisterAction a Tofino 1 register can have.
#ifndef P4REDUCE_TNA_VALUES_P4
#define P4REDUCE_TNA_VALUES_P4

struct value_pair_t {
    value_t first;   // value NN of the block
    value_t second;  // value NN + 32
}

control ValuePair(inout value_t first, inout value_t second, in ingress_metadata_t ig_md) {
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

    // Applied to every packet: the key says whether the pair runs (a harvest
    // pass, or an accepted packet of a data round), so that no gateway ties
    // the 32 tables to the stage where admission decides.
    table pair {
        key = {
            ig_md.harvest: ternary;
            ig_md.accepted: ternary;
            ig_md.data_round: ternary;
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
        }
        actions = { open; add; resend; harvest; @defaultonly NoAction; }
        const entries = {
            (1, _, _, _, _) : harvest();   // second pass: the first words
            (0, 1, 1, 0, _) : open();
            (0, 1, 1, _, 0) : add();
            (0, 1, 1, _, _) : resend();    // retransmission
        }
        const default_action = NoAction;
        size = 4;
    }

    apply {
        pair.apply();
    }
}

#define VALUE_PAIR_INSTANCE(NN) ValuePair() value_##NN;
#define VALUE_PAIR_APPLY(NN) value_##NN.apply(hdr.vals_a.v##NN, hdr.vals_b.v##NN, ig_md);
#define ZERO_VALUE(NN) hdr.vals_a.v##NN = 0; hdr.vals_b.v##NN = 0;
#define FOR_ALL_VALUE_PAIRS(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)

// All 32 pairs; their tables take stages 3 to 11 next to the other per-round
// registers (README.md).
control Values(inout header_t hdr, in ingress_metadata_t ig_md) {
    FOR_ALL_VALUE_PAIRS(VALUE_PAIR_INSTANCE)

    apply {
        FOR_ALL_VALUE_PAIRS(VALUE_PAIR_APPLY)
    }
}

// Dense mode: a worker without data at the round's block sends DATA with
// count = 0. It contributes zeros, and it may be the packet that completes
// the round, so it gets zeroed values first: then every data-round RESULT
// carries the 64 sums, whichever packet completes it. Decided from the header
// alone, in stage 0, before the pairs read the values: a packet that admission
// then rejects is dropped with its zeros.
control ZeroValues(inout header_t hdr) {
    action add_zero_values() {
        hdr.vals_a.setValid();
        hdr.vals_b.setValid();
        FOR_ALL_VALUE_PAIRS(ZERO_VALUE)
        hdr.agg.count = VALUES_PER_PACKET;
    }

    table zero_values {
        key = {
            hdr.agg.msg_type: ternary;
            hdr.agg.count: ternary;
            hdr.agg.block: ternary;
        }
        actions = { add_zero_values; NoAction; }
        const entries = {
            (MSG_DATA, 0, BLOCK_NONE) : NoAction();  // a bootstrap round carries no values
            (MSG_DATA, 0, _) : add_zero_values();
        }
        const default_action = NoAction;
        size = 2;
    }

    apply {
        zero_values.apply();
    }
}

#endif
