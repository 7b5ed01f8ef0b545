// The look-ahead decision of the round (docs/protocol.md section 3): a running
// minimum of 40-bit keys block ++ (255 - exp). The smallest announced block
// wins and, among workers announcing that block, the largest exponent. The
// minimum goes into meta.min_key; only a packet that leaves as the RESULT
// writes it into its header (next_step.p4), the others are consumed.
//
// A data-round packet brings its next key (next_block, next_exp) and the
// round's first one starts the minimum over (the set may still hold the key
// of the round two rounds ago). An opening round's min_key is K2, the
// look-ahead after b*: which key a packet brings there and when K2 starts over
// is section 3's table, decided by opening.p4 (meta.announce, meta.restart).
#ifndef P4REDUCE_LOOKAHEAD_P4
#define P4REDUCE_LOOKAHEAD_P4

control Lookahead(inout header_t hdr, inout metadata_t meta) {
    register<bit<40>>(REGISTER_SIZE) min_key;

    action take_min() {
        bit<40> key = (meta.opening == 1) ? meta.announce
                                          : hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        min_key.read(meta.min_key, meta.index);
        meta.min_key = (meta.first == 1 || meta.restart == 1 || key < meta.min_key) ? key : meta.min_key;
        min_key.write(meta.index, meta.min_key);
    }

    // Re-send of a finished round: its stored decision, nothing updated.
    action read_min() {
        min_key.read(meta.min_key, meta.index);
    }

    // A leaf job's parent answered (uplink.p4): its next key is the round's from now on.
    action take_parent() {
        meta.min_key = hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        min_key.write(meta.index, meta.min_key);
    }

    apply {
        if (meta.from_parent == 1) {
            take_parent();
        } else if (meta.retransmission == 1) {
            read_min();
        } else {
            take_min();
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
