// The opening round of a stream (docs/protocol.md section 3): every worker's
// first DATA (flag OPENING) is about its own first block, with its values at
// its own exponent. The round becomes the data round of the smallest of those
// blocks, b*, at the largest exponent its holders used, e*: so a stream costs
// one round trip per block anyone holds, with no header-only round before.
//
// Per slot and shadow copy the switch keeps K1 = key(b*, e*) so far and the
// `repeat` bit; K2, the look-ahead after b*, is lookahead.p4's min_key. From
// the packet's block against K1's, section 3's table decides what the packet
// does to K2 (meta.announce, meta.restart) and to the sums (meta.overwrite,
// meta.ignore); this control only decides, the owners of those registers act.
// Only DATA with OPENING run it; a data round's packets keep the plain rules
// (first overwrites, later ones add, one running minimum of their next keys).
#ifndef P4REDUCE_OPENING_P4
#define P4REDUCE_OPENING_P4

control Opening(inout header_t hdr, inout metadata_t meta) {
    // K1 (40 bits) ++ the SCATTER/owner bits of the packet that set it: the
    // RESULT is about b* and names b*'s owner, whichever packet completes it.
    register<bit<48>>(REGISTER_SIZE) first_key;
    // The holders of b* did not all send values at e*: the RESULT is a REPEAT.
    register<bit<1>>(REGISTER_SIZE) repeat;

    bit<40> own;     // key(block, exp): what this packet holds
    bit<40> next;    // key(next_block, next_exp): what it holds after that
    bit<40> k1_old;  // K1 before this packet
    bit<1>  h;       // header-only about a block (only a leaf aggregator sends one)

    // The state before this packet (a retransmission: the round's decision).
    action read_state() {
        first_key.read(meta.first_key, meta.index);
        repeat.read(meta.repeat, meta.index);
        k1_old = meta.first_key[47:8];
        own = hdr.agg.block ++ (8w255 - hdr.agg.exp);
        next = hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        h = (hdr.agg.count == 0 && hdr.agg.block != BLOCK_NONE) ? 1w1 : 1w0;
    }

    // First packet of the round, or a smaller block than K1's: it holds b* so
    // far. Everything announced before (K1_old and K2 are both past its block)
    // folds into K2 as min(K1_old, next): K2's entries are all above K1_old.
    action take_block() {
        meta.first_key = own ++ meta.scatter;
        meta.repeat = h;
        first_key.write(meta.index, meta.first_key);
        repeat.write(meta.index, meta.repeat);
        meta.announce = (meta.first == 1 || next < k1_old) ? next : k1_old;
        meta.restart = 1;
        meta.overwrite = 1;  // h: the sums start over with nothing
    }

    // K1's block: a larger exponent takes over (its sums start over), an equal
    // one adds, a smaller one is left out; either way the holders disagreed.
    action same_block() {
        meta.first_key = (own < k1_old) ? own ++ meta.scatter : meta.first_key;
        meta.repeat = (own != k1_old || h == 1) ? 1w1 : meta.repeat;
        first_key.write(meta.index, meta.first_key);
        repeat.write(meta.index, meta.repeat);
        meta.announce = next;
        meta.overwrite = (own < k1_old) ? 1w1 : 1w0;
        meta.ignore = (own > k1_old) ? 1w1 : 1w0;
    }

    // A larger block than K1's: the packet's own block is only an
    // announcement after b*, and its values are not b*'s.
    action larger_block() {
        meta.announce = own;
        meta.ignore = 1;
    }

    // A leaf job's parent answered its opening round (uplink.p4): from now on a
    // retransmission of it gets the parent's b* at e*, its REPEAT, or the end.
    action take_parent() {
        meta.first_key = hdr.agg.block ++ (8w255 - hdr.agg.exp) ++ (hdr.agg.flags & SCATTER_MASK);
        meta.repeat = (hdr.agg.block == hdr.agg.next_block && hdr.agg.block != BLOCK_NONE
                       && hdr.agg.count == 0) ? 1w1 : 1w0;
        first_key.write(meta.index, meta.first_key);
        repeat.write(meta.index, meta.repeat);
    }

    apply {
        read_state();
        if (meta.from_parent == 1) {
            take_parent();
        } else if (meta.retransmission == 0) {
            if (meta.first == 1 || hdr.agg.block < meta.first_key[47:16]) {
                take_block();
            } else if (hdr.agg.block == meta.first_key[47:16]) {
                same_block();
            } else {
                larger_block();
            }
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
