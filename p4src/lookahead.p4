// The look-ahead decision of the round (docs/protocol.md section 3): a running
// minimum of the 40-bit key next_block ++ (255 - next_exp). The smallest
// announced block wins and, among workers announcing that block, the largest
// exponent. The minimum goes into meta.min_key; only a packet that leaves as
// the RESULT writes it into its header (next_step.p4), the others are consumed.
#ifndef P4REDUCE_LOOKAHEAD_P4
#define P4REDUCE_LOOKAHEAD_P4

control Lookahead(inout headers_t hdr, inout metadata_t meta) {
    register<bit<40>>(REGISTER_SIZE) min_key;

    // The first counted packet overwrites: the set may still hold the key of
    // the round two rounds ago.
    action take_min() {
        bit<40> key = hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        min_key.read(meta.min_key, meta.index);
        meta.min_key = (meta.first == 1 || key < meta.min_key) ? key : meta.min_key;
        min_key.write(meta.index, meta.min_key);
    }

    // Re-send of a finished round: its stored decision, nothing updated.
    action read_min() {
        min_key.read(meta.min_key, meta.index);
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
