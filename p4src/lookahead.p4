// The look-ahead decision of the round (docs/protocol.md section 3): a running
// minimum of the 40-bit key next_block ++ (255 - next_exp). The smallest
// announced block wins and, among workers announcing that block, the largest
// exponent. Every counted packet leaves carrying the current minimum, so the
// packet that completes the round carries the decision into the RESULT.
#ifndef P4REDUCE_LOOKAHEAD_P4
#define P4REDUCE_LOOKAHEAD_P4

control Lookahead(inout headers_t hdr, inout metadata_t meta) {
    register<bit<40>>(REGISTER_SIZE) min_key;

    // The first counted packet overwrites: the set may still hold the key of
    // the round two rounds ago.
    action take_min() {
        bit<40> key = hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        bit<40> current;
        min_key.read(current, meta.index);
        current = (meta.first == 1 || key < current) ? key : current;
        min_key.write(meta.index, current);
        hdr.agg.next_block = current[39:8];
        hdr.agg.next_exp = 8w255 - current[7:0];
    }

    // Re-send of a finished round: its stored decision, nothing updated.
    action read_min() {
        bit<40> current;
        min_key.read(current, meta.index);
        hdr.agg.next_block = current[39:8];
        hdr.agg.next_exp = 8w255 - current[7:0];
    }

    apply {
        if (meta.retransmission == 1) {
            read_min();
        } else {
            take_min();
        }
    }
}

#endif
