// The look-ahead decision of a round (docs/protocol.md section 3): the smallest
// announced key wins, key(b, e) = b << 8 | (255 - e), so the smallest block and,
// among the announcements of that block, the largest exponent. Here a key is one
// 32-bit word (types.p4: the low 24 bits of the block, then 255 - e; admission
// keeps every block below 2^24 - 1, so these keys order as the spec's 40-bit ones):
// one stateful ALU takes the minimum with one instruction (`min`), where a 40-bit key
// needed two registers in two stages (the block's minimum, then the exponent of the
// announcers of the minimum).
//
//   MAKE_KEYS (stage 1)    own_key = key(block, exp) and next_key = key(next_block,
//                          next_exp) of every accepted packet.
//   min_key (stage 3)      K2 per cell: the first counted packet writes its candidate,
//                          later ones take the minimum with theirs. A data round's
//                          candidate is its next_key; an opening round's is what
//                          opening.p4 says (section 3's table: next_key, own_key, or,
//                          when the packet's block is smaller than K1's,
//                          min(K1_old, next_key), which opening.p4's first_key register
//                          computes). Returns K2 after this packet, which lands in
//                          next_block as it is, and next_exp = 255 - (K2 & 0xff).
//   DecodeNext (stage 4)   next_block = K2 >> 8, or NONE when its 24 block bits are
//                          all ones. (A shift in the stage after: the stateful ALU's
//                          answer reaches a 32-bit container only as it is.)
// Every packet that reaches min_key gets these; only the one that completes (or
// re-asks) the round keeps them, as its RESULT's look-ahead.
#ifndef P4REDUCE_TNA_LOOKAHEAD_P4
#define P4REDUCE_TNA_LOOKAHEAD_P4

// Both keys of the packet, from its header (255 - e = ~e for 8 bits). Made by
// the seen bitmap's accept actions (stage 1), for the registers of stage 2: the
// keys then take no PHV in stage 0, where admission's fields do.
#define MAKE_KEYS \
    ig_md.own_key = hdr.agg.block[23:0] ++ ~hdr.agg.exp; \
    ig_md.next_key = hdr.agg.next_block[23:0] ++ ~hdr.agg.next_exp;

control Lookahead(inout header_t hdr, in ingress_metadata_t ig_md) {
    Register<bit<32>, cell_index_t>(REGISTER_SIZE) min_key;

    // The first counted packet overwrites: the set may still hold K2 of the round
    // two rounds ago.
    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_key) open_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            value = hdr.agg.next_block;  // the candidate (opening.p4)
            minimum = value;
        }
    };

    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_key) take_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            value = min(value, hdr.agg.next_block);
            minimum = value;
        }
    };

    // An opening DATA whose block is smaller than K1's: K2 becomes min(K1_old,
    // next_key), which first_key returned (every key K2 held is above K1_old, so the
    // minimum with the old K2 is that).
    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_key) take_first_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            value = min(value, ig_md.first_code);
            minimum = value;
        }
    };

    RegisterAction<bit<32>, cell_index_t, bit<32>>(min_key) read_min = {
        void apply(inout bit<32> value, out bit<32> minimum) {
            minimum = value;
        }
    };

#define TO_NEXT(ACTION) \
        bit<32> k2 = ACTION.execute(ig_md.cell); \
        hdr.agg.next_block = k2; \
        hdr.agg.next_exp = ~k2[7:0];
    action open() { TO_NEXT(open_min) }
    action take() { TO_NEXT(take_min) }
    action take_first() { TO_NEXT(take_first_min) }
    action read() { TO_NEXT(read_min) }

    // candidate 0: opening.p4's "this packet's block is below K1's" (a key of a
    // block above another is never 0).
    table next_min {
        key = {
            ig_md.position: ternary;
            ig_md.opening: ternary;
            hdr.agg.next_block: ternary;   // the candidate
            ig_md.from_parent: ternary;
            ig_md.awaiting: ternary;
        }
        actions = { open; take; take_first; read; @defaultonly NoAction; }
        const entries = {
            // A parent's answer to a leaf's round (uplink.p4): its look-ahead is the
            // round's from now on (a re-send reads it).
            (_, _, _, 1, AWAIT_DATA &&& AWAIT_DATA) : open();
            (ROUND_FIRST, _, _, 0, _) : open();
            (ROUND_LATER, 1, 0, 0, _) : take_first();
            (ROUND_LATER, _, _, 0, _) : take();
            (ROUND_RETRANSMISSION, _, _, 0, _) : read();
        }
        const default_action = NoAction;
        size = 5;
    }

    apply {
        next_min.apply();
    }
}

// K2's block into next_block (an opening round's REPEAT or empty stream replaces
// the look-ahead in its harvest pass, opening.p4).
control DecodeNext(inout header_t hdr) {
    action next_none() {
        hdr.agg.next_block = BLOCK_NONE;
    }

    action next_block() {
        hdr.agg.next_block = hdr.agg.next_block >> 8;
    }

    table decode_next {
        key = { hdr.agg.next_block: ternary; }
        actions = { next_none; next_block; }
        const entries = {
            KEY_BLOCK_MASK &&& KEY_BLOCK_MASK : next_none();
        }
        const default_action = next_block();
        size = 1;
    }

    apply {
        decode_next.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
