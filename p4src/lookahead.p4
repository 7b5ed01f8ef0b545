// Running minimum of the look-ahead key next_block ++ (255 - next_exp): the
// smallest announced next block wins and, among workers announcing the same
// block, the largest exponent (docs/protocol.md section 3). The packet leaves
// with the current minimum, so the completing packet carries the decision.
#ifndef P4REDUCE_LOOKAHEAD_P4
#define P4REDUCE_LOOKAHEAD_P4

control Lookahead(inout headers_t hdr, inout metadata_t meta, in bool retransmission) {
    register<bit<40>>(REGISTER_SIZE) min_key;

    action take_min() {
        bit<40> key = hdr.agg.next_block ++ (8w255 - hdr.agg.next_exp);
        bit<40> current;
        min_key.read(current, meta.index);
        current = (meta.first == 1 || key < current) ? key : current;
        min_key.write(meta.index, current);
        hdr.agg.next_block = current[39:8];
        hdr.agg.next_exp = 8w255 - current[7:0];
    }

    action read_min() {
        bit<40> current;
        min_key.read(current, meta.index);
        hdr.agg.next_block = current[39:8];
        hdr.agg.next_exp = 8w255 - current[7:0];
    }

    apply {
        if (retransmission) {
            read_min();
        } else {
            take_min();
        }
    }
}

#endif
