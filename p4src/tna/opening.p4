// The opening round (docs/protocol.md section 3): every worker's first DATA of a
// stream in an allreduce names its own first block, and the round aggregates the
// smallest of them. Per slot and shadow copy the spec keeps K1 (the smallest
// key(block, exp) so far), K2 (the smallest announcement after K1's block:
// lookahead.p4's min_key) and a repeat bit, and each packet is in one of five
// cases against K1_old, the K1 before it:
//
//   case  the packet's own key              K1        K2                   values     repeat
//   1     block smaller than K1_old's      own       min(K1_old, next)    overwrite  h
//   2     same block, own < K1_old          own       min(K2, next)        overwrite  1
//   3     own == K1_old                     kept      min(K2, next)        add        repeat | h
//   4     same block, own > K1_old          kept      min(K2, next)        ignore     1
//   5     block larger than K1_old's        kept      min(K2, own)         ignore     kept
//
// (the round's first packet is case 1 with nothing before it; h = a header-only
// DATA about a block, agreement.p4's scatter bit 0). A Tofino 1 stateful ALU has
// two comparisons and returns one word, and telling the five cases apart takes four
// comparisons of the packet's key with K1 (own < K1, own == K1, block smaller,
// block larger), so two registers in stage 2 each make two of them, both keeping
// their own copy of what they compare with, and each returns what the next stage
// needs:
//
//   first_block  lo: the K2 candidate, hi: K1's block (K1 with its exponent byte
//                cleared). Compares the own key with K1's block: smaller (case 1)
//                or larger (case 5). Returns the packet's K2 candidate: own_key in
//                case 5, next_key in cases 2-4 and in every data round; 0 in case 1.
//   first_key    lo: K1, hi: scratch. K1 = min(K1, own) in every case. Compares
//                own with K1_old: below it returns min(K1_old, next_key) (K2 in
//                case 1; in case 2 it is K1_old, whose exponent byte is not 0),
//                equal CODE_SAME_KEY (exponent byte 0), above 0. In the harvest pass
//                it returns K1.
//
// So stage 3 knows the case: candidate 0 is case 1; else first_code 0 is case 4 or
// 5 (ignore), CODE_SAME_KEY case 3 (add), anything else case 2 (overwrite). There
// lookahead.p4's min_key takes the candidate (or, in case 1, first_code) and
// first_flags keeps K1's flags and the repeat bit:
//
//   first_flags  lo: K1's block (the header's), hi: the SCATTER/owner bits of the
//                packet that set K1, and repeat in bit 0. Cases 4 and 5 both leave
//                stage 2 as "above K1"; first_flags tells them apart with its own
//                comparison (the same block) and sets repeat only in case 4.
//                Returns its flags in the harvest pass.
//
// Every opening RESULT (a completed round, or a re-send to a retransmitted opening
// DATA) makes the harvest pass: that is where first_key and first_flags are read,
// and OpeningResult writes block = K1 >> 8, exp = 255 - (K1 & 0xff), the RESULT's
// flags, and either leaves the sums and K2 as they are (the data round of b*), or
// makes it header-only with next_block = block, next_exp = exp (a REPEAT), or with
// block = next_block = NONE (an empty stream).
#ifndef P4REDUCE_TNA_OPENING_P4
#define P4REDUCE_TNA_OPENING_P4

struct first_block_t {
    bit<32> candidate;   // scratch: the K2 candidate returned to this packet
    bit<32> block;       // K1's block: K1 & KEY_BLOCK_MASK
}

struct first_key_t {
    bit<32> key;         // K1
    bit<32> code;        // scratch: what this packet learns about its own key against K1_old
}

struct first_flags_t {
    bit<32> block;       // K1's block (the header's, as the packet that set K1 had it)
    bit<32> flags;       // SCATTER/owner bits of K1's packet | repeat (bit 0)
}

// Stage 2: the two comparisons with K1, for every counted opening DATA (and the
// candidate of every counted data-round DATA); K1 itself in the harvest pass.
control OpeningCompare(inout header_t hdr, inout ingress_metadata_t ig_md) {
    Register<first_block_t, cell_index_t>(REGISTER_SIZE) first_block;
    Register<first_key_t, cell_index_t>(REGISTER_SIZE) first_key;

    // --- first_block ---
    RegisterAction<first_block_t, cell_index_t, bit<32>>(first_block) open_block = {
        void apply(inout first_block_t value, out bit<32> candidate) {
            value.block = ig_md.own_key & KEY_BLOCK_MASK;
            value.candidate = ig_md.next_key;
            candidate = value.candidate;
        }
    };

    // own < block: a smaller block (case 1); else own - block >= KEY_ONE_BLOCK: a
    // larger one (case 5); else K1's block. (The difference does not wrap there; the
    // stateful ALU compares unsigned in 34 bits anyway.)
    RegisterAction<first_block_t, cell_index_t, bit<32>>(first_block) compare_block = {
        void apply(inout first_block_t value, out bit<32> candidate) {
            if (ig_md.own_key < value.block) {
                value.block = ig_md.own_key & KEY_BLOCK_MASK;
                candidate = 0;
            } else if (ig_md.own_key - value.block >= KEY_ONE_BLOCK) {
                value.candidate = ig_md.own_key;
                candidate = value.candidate;
            } else {
                value.candidate = ig_md.next_key;
                candidate = value.candidate;
            }
        }
    };

    // A data round's candidate is its look-ahead.
    RegisterAction<first_block_t, cell_index_t, bit<32>>(first_block) data_candidate = {
        void apply(inout first_block_t value, out bit<32> candidate) {
            value.candidate = ig_md.next_key;
            candidate = value.candidate;
        }
    };

    // The candidate goes to next_block, whose own value next_key holds now: then it
    // needs no PHV of its own on its way to lookahead.p4's min_key (which writes K2
    // there in the stage after).
    action open_first_block() { hdr.agg.next_block = open_block.execute(ig_md.cell); }
    action compare_first_block() { hdr.agg.next_block = compare_block.execute(ig_md.cell); }
    action data_round_candidate() { hdr.agg.next_block = data_candidate.execute(ig_md.cell); }

    table candidate {
        key = {
            ig_md.accepted: ternary;
            ig_md.opening: ternary;
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
            ig_md.from_parent: ternary;
            ig_md.awaiting: ternary;
        }
        actions = { open_first_block; compare_first_block; data_round_candidate; @defaultonly NoAction; }
        const entries = {
            (1, 1, 0, _, _, _) : open_first_block();
            (1, 1, _, 0, _, _) : compare_first_block();
            (1, 0, _, 0, _, _) : data_round_candidate();
            // A parent's answer to a leaf's round (uplink.p4): its look-ahead is K2 now.
            (0, _, _, _, 1, AWAIT_DATA &&& AWAIT_DATA) : data_round_candidate();
        }
        const default_action = NoAction;   // retransmissions, and everything not accepted
        size = 4;
    }

    // --- first_key ---
    RegisterAction<first_key_t, cell_index_t, bit<32>>(first_key) open_key = {
        void apply(inout first_key_t value, out bit<32> code) {
            value.key = ig_md.own_key;
        }
    };

    RegisterAction<first_key_t, cell_index_t, bit<32>>(first_key) compare_key = {
        void apply(inout first_key_t value, out bit<32> code) {
            if (ig_md.own_key < value.key) {
                value.code = min(value.key, ig_md.next_key);
                code = value.code;
            } else if (ig_md.own_key == value.key) {
                value.code = CODE_SAME_KEY;
                code = value.code;
            } else {
                code = 0;
            }
            value.key = min(value.key, ig_md.own_key);
        }
    };

    RegisterAction<first_key_t, cell_index_t, bit<32>>(first_key) read_key = {
        void apply(inout first_key_t value, out bit<32> code) {
            code = value.key;
        }
    };

    action open_first_key() { open_key.execute(ig_md.cell); }
    action compare_first_key() { ig_md.first_code = compare_key.execute(ig_md.cell); }

    // K1 lands in block as it is (OpeningResult shifts it), its exponent in exp.
    action read_first_key() {
        bit<32> k1 = read_key.execute(ig_md.cell);
        hdr.agg.block = k1;
        hdr.agg.exp = ~k1[7:0];
    }

    // Applied to every packet (the harvest pass reads K1 here too): the key says
    // whether it runs.
    table first {
        key = {
            ig_md.harvest: ternary;
            ig_md.accepted: ternary;
            ig_md.opening: ternary;
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
            ig_md.from_parent: ternary;
            ig_md.awaiting: ternary;
        }
        actions = { open_first_key; compare_first_key; read_first_key; @defaultonly NoAction; }
        const entries = {
            (1, _, 1, _, _, _, _) : read_first_key();
            (0, 1, 1, 0, _, _, _) : open_first_key();
            (0, 1, 1, _, 0, _, _) : compare_first_key();
            // A parent's answer to a leaf's opening round: its b* at e* is K1 from now on.
            (0, 0, _, _, _, 1, AWAIT_OPENING) : open_first_key();
        }
        const default_action = NoAction;
        size = 4;
    }

    apply {
        candidate.apply();
        first.apply();
    }
}

// Stage 3: K1's flags and the repeat bit; read in the harvest pass.
control OpeningFlags(in header_t hdr, inout ingress_metadata_t ig_md) {
    Register<first_flags_t, cell_index_t>(REGISTER_SIZE) first_flags;

    // Case 1 (and the first packet): K1's block and this packet's bits, repeat = h.
    RegisterAction<first_flags_t, cell_index_t, bit<8>>(first_flags) set_flags = {
        void apply(inout first_flags_t value, out bit<8> flags) {
            value.block = hdr.agg.block;
            value.flags = (bit<32>) ig_md.scatter;
        }
    };

    // Cases 2, 4 (own != K1_old in K1's block: repeat) and 5 (a larger block: kept).
    // In K1's block the packet's owner bits are K1's. The header's block is compared
    // as it is (equal blocks, equal keys' block bits): no key needs to live this long.
    RegisterAction<first_flags_t, cell_index_t, bit<8>>(first_flags) set_repeat = {
        void apply(inout first_flags_t value, out bit<8> flags) {
            if (hdr.agg.block == value.block) {
                value.flags = (bit<32>) ig_md.scatter | 1;
            }
        }
    };

    // Case 3: repeat |= h (the owner bits are K1's).
    RegisterAction<first_flags_t, cell_index_t, bit<8>>(first_flags) or_flags = {
        void apply(inout first_flags_t value, out bit<8> flags) {
            value.flags = value.flags | (bit<32>) ig_md.scatter;
        }
    };

    RegisterAction<first_flags_t, cell_index_t, bit<8>>(first_flags) read_flags = {
        void apply(inout first_flags_t value, out bit<8> flags) {
            flags = (bit<8>) value.flags;
        }
    };

    action set() { set_flags.execute(ig_md.cell); }
    action repeat() { set_repeat.execute(ig_md.cell); }
    action same_key() { or_flags.execute(ig_md.cell); }
    action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }

    table flags {
        key = {
            ig_md.harvest: ternary;
            ig_md.accepted: ternary;
            ig_md.opening: ternary;
            ig_md.position: ternary;
            hdr.agg.next_block: ternary;   // the candidate
            ig_md.first_code: ternary;
            ig_md.from_parent: ternary;
            ig_md.awaiting: ternary;
        }
        actions = { set; repeat; same_key; read; @defaultonly NoAction; }
        const entries = {
            (1, _, 1, _, _, _, _, _) : read();
            (0, 1, 1, ROUND_FIRST, _, _, _, _) : set();
            (0, 1, 1, ROUND_LATER, 0, _, _, _) : set();                   // case 1
            (0, 1, 1, ROUND_LATER, _, CODE_SAME_KEY, _, _) : same_key();  // case 3
            (0, 1, 1, ROUND_LATER, _, _, _, _) : repeat();                // cases 2, 4, 5
            // A parent's answer to a leaf's opening round: its owner bits, and repeat when
            // it is header-only (agreement.p4: a REPEAT, or an empty stream's end).
            (0, 0, _, _, _, _, 1, AWAIT_OPENING) : set();
        }
        const default_action = NoAction;
        size = 6;
    }

    apply {
        flags.apply();
    }
}

// Harvest pass of an opening RESULT, once first_key (K1 in block, its exponent in
// exp) and first_flags have answered: block = K1 >> 8, the flags (K1's
// SCATTER/owner bits, MISMATCH as the first pass decided; `toggle` clears the
// repeat bit and sets MISMATCH), and for a REPEAT or an empty stream no values.
control OpeningResult(inout header_t hdr, in ingress_metadata_t ig_md) {
    action header_only() {
        hdr.vals_a.setInvalid();
        hdr.vals_b.setInvalid();
        hdr.agg.count = 0;
    }

    // The data round of b*: K2 (lookahead.p4) and the sums stay.
    action values(bit<8> toggle) {
        hdr.agg.flags = ig_md.first_flags ^ toggle;
        hdr.agg.block = hdr.agg.block >> 8;
    }

    action repeat(bit<8> toggle) {
        hdr.agg.flags = ig_md.first_flags ^ toggle;
        hdr.agg.next_block = hdr.agg.block >> 8;
        hdr.agg.next_exp = hdr.agg.exp;
        hdr.agg.block = hdr.agg.block >> 8;
        header_only();
    }

    // Nobody holds anything: next_block = NONE ends the stream (next_exp: K2's).
    action empty(bit<8> toggle) {
        hdr.agg.flags = ig_md.first_flags ^ toggle;
        hdr.agg.block = BLOCK_NONE;
        hdr.agg.next_block = BLOCK_NONE;
        header_only();
    }

    // A leaf's opening round going up (uplink.p4) is the leaf's own opening DATA: b* at
    // e* with b*'s owner bits and OPENING (bit 0, where the repeat bit is), K2 as its
    // look-ahead; header-only on a local repeat (the parent decides) or, with
    // block = NONE, when nobody holds anything. (A local MISMATCH went into the
    // fingerprint: uplink.p4's poison.)
    action up_repeat() {
        hdr.agg.flags = ig_md.first_flags;
        hdr.agg.block = hdr.agg.block >> 8;
        header_only();
    }

    table result {
        key = {
            hdr.bridged.kind: exact;     // UPSTREAM (a leaf's round to its parent) or ANSWER (next_step.p4)
            hdr.agg.block: ternary;      // K1
            ig_md.first_flags: ternary;  // bit 0: repeat
            hdr.agg.flags: ternary;      // the first pass's MISMATCH
        }
        actions = { values; repeat; empty; up_repeat; }
        const entries = {
            (bridged_kind_t.UPSTREAM, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, 0 &&& 1, _) : empty(1);
            (bridged_kind_t.UPSTREAM, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, _, _) : empty(0);
            (bridged_kind_t.UPSTREAM, _, 1 &&& 1, _) : up_repeat();
            (bridged_kind_t.UPSTREAM, _, _, _) : values(1);
            (bridged_kind_t.ANSWER, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, 0 &&& 1, 0 &&& FLAG_MISMATCH) : empty(0);
            (bridged_kind_t.ANSWER, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, 0 &&& 1, _) : empty(FLAG_MISMATCH);
            (bridged_kind_t.ANSWER, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, _, 0 &&& FLAG_MISMATCH) : empty(1);
            (bridged_kind_t.ANSWER, KEY_BLOCK_MASK &&& KEY_BLOCK_MASK, _, _) : empty(1 | FLAG_MISMATCH);
            (bridged_kind_t.ANSWER, _, 1 &&& 1, 0 &&& FLAG_MISMATCH) : repeat(1);
            (bridged_kind_t.ANSWER, _, 1 &&& 1, _) : repeat(1 | FLAG_MISMATCH);
            (bridged_kind_t.ANSWER, _, _, 0 &&& FLAG_MISMATCH) : values(0);
        }
        const default_action = values(FLAG_MISMATCH);
        size = 12;
    }

    apply {
        result.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
