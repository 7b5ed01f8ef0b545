// The look-ahead decision of the round (docs/protocol.md section 3): the
// smallest announced next block wins and, among the workers announcing that
// block, the largest exponent. The v1model program keeps one 40-bit running
// minimum of next_block ++ (255 - next_exp); a Tofino 1 stateful ALU works on
// at most 32 bits per word, compares at most two things per packet and returns
// one 32-bit word, so here it takes two registers and two stages:
//
//   min_block (stage s)      32 bits per cell: the running minimum of
//                            next_block. Returns the minimum after this packet.
//   block_exp (stage s + 1)  a pair per cell: the block that minimum belongs to,
//                            and the largest exponent announced for it so far.
//                            Only packets whose next_block equals the minimum
//                            returned by min_block update it (min_block's
//                            action computes that equality): a packet that announces a
//                            new, smaller block replaces both words, one that
//                            ties keeps the larger exponent. Returns the exponent.
//
// Packets pass both stages in the same order, so block_exp.block always equals
// min_block of the same cell, and the pair (min_block, block_exp.exp) is the
// v1model program's minimum key. The packet that completes the round leaves
// with the decision: ig_md.min_next_block and hdr.agg.next_exp.
#ifndef P4REDUCE_TNA_LOOKAHEAD_P4
#define P4REDUCE_TNA_LOOKAHEAD_P4

struct block_exp_t {
    bit<32> block;  // the block the exponent belongs to (= min_block of the cell)
    bit<32> exp;    // largest next_exp announced for it (biased exponent, < 256)
}

control Lookahead(inout header_t hdr, inout ingress_metadata_t ig_md) {
    Register<bit<32>, cell_index_t>(REGISTER_SIZE) min_block;
    Register<block_exp_t, cell_index_t>(REGISTER_SIZE) block_exp;

    // --- min_block ---
    // The first counted packet overwrites: the set may still hold the
    // minimum of the round two rounds ago.
    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_block) open_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            value = hdr.agg.next_block;
            minimum = value;
        }
    };

    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_block) take_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            if (hdr.agg.next_block < value) {
                value = hdr.agg.next_block;
            }
            minimum = value;
        }
    };

    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_block) read_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            minimum = value;
        }
    };

    // Does this packet announce the minimum? Computed from the stateful ALU's
    // output in the same action (no stage of its own).
    action open_block() {
        ig_md.min_next_block = open_min.execute(ig_md.cell);
        ig_md.next_block_diff = ig_md.min_next_block ^ hdr.agg.next_block;
    }

    action min_of_blocks() {
        ig_md.min_next_block = take_min.execute(ig_md.cell);
        ig_md.next_block_diff = ig_md.min_next_block ^ hdr.agg.next_block;
    }

    action read_block() {
        ig_md.min_next_block = read_min.execute(ig_md.cell);
        ig_md.next_block_diff = ig_md.min_next_block ^ hdr.agg.next_block;
    }

    table next_block_min {
        key = {
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
        }
        actions = { open_block; min_of_blocks; read_block; }
        const entries = {
            (0, _) : open_block();
            (_, 0) : min_of_blocks();
            (_, _) : read_block();
        }
        size = 3;
    }

    // --- block_exp ---
    RegisterAction<block_exp_t, cell_index_t, bit<32>>(block_exp) open_exp = {
        void apply(inout block_exp_t value, out bit<32> exp) {
            value.block = hdr.agg.next_block;
            value.exp = (bit<32>) hdr.agg.next_exp;
            exp = value.exp;
        }
    };

    // Only for a packet whose next_block is the minimum after it: either a new
    // minimum (the stored block differs) or a tie (keep the larger exponent).
    // Two comparisons, one write of both words.
    RegisterAction<block_exp_t, cell_index_t, bit<32>>(block_exp) max_exp_at_min = {
        void apply(inout block_exp_t value, out bit<32> exp) {
            if (value.block != hdr.agg.next_block || (bit<32>) hdr.agg.next_exp > value.exp) {
                value.block = hdr.agg.next_block;
                value.exp = (bit<32>) hdr.agg.next_exp;
            }
            exp = value.exp;
        }
    };

    RegisterAction<block_exp_t, cell_index_t, bit<32>>(block_exp) read_exp = {
        void apply(inout block_exp_t value, out bit<32> exp) {
            exp = value.exp;
        }
    };

    action open_exponent() { hdr.agg.next_exp = (bit<8>) open_exp.execute(ig_md.cell); }
    action max_exponent() { hdr.agg.next_exp = (bit<8>) max_exp_at_min.execute(ig_md.cell); }
    action read_exponent() { hdr.agg.next_exp = (bit<8>) read_exp.execute(ig_md.cell); }

    table next_exp_max {
        key = {
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
            ig_md.next_block_diff: ternary;
        }
        actions = { open_exponent; max_exponent; read_exponent; }
        const entries = {
            (0, _, _) : open_exponent();
            (_, 0, 0) : max_exponent();    // counted, announces the minimum
            (_, _, _) : read_exponent();   // counted above the minimum, or a retransmission
        }
        size = 3;
    }

    apply {
        next_block_min.apply();
        next_exp_max.apply();
    }
}

#endif
