// The B = 32 aggregated values of every slot and shadow copy: one register array
// per value position (registers P4ReduceIngress.values.value_00 .. value_31),
// so one packet updates all 32 positions of its cell in one pass.
// The first counted packet of a round overwrites (a reused set needs no
// clearing), later ones add (int32 wrap-around; the workers' fixed point
// rules out overflow, docs/protocol.md section 5). The packet leaves carrying
// the running sums, so the packet that completes the round is the RESULT.
#ifndef P4REDUCE_VALUES_P4
#define P4REDUCE_VALUES_P4

#define VALUE_REGISTER(i) register<bit<32>>(REGISTER_SIZE) value_##i;
#define ACCUMULATE(i) \
    value_##i.read(sum, meta.index); \
    sum = (meta.first == 1) ? hdr.vals.v##i : sum + hdr.vals.v##i; \
    value_##i.write(meta.index, sum); \
    hdr.vals.v##i = sum;
#define READ_RESULT(i) value_##i.read(hdr.vals.v##i, meta.index);
#define ZERO_VALUE(i) hdr.vals.v##i = 0;
#define FOR_ALL_VALUES(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)

// Only used in data rounds: a bootstrap round aggregates look-ahead only and
// its RESULT is header-only (count = 0).
control Values(inout headers_t hdr, inout metadata_t meta) {
    FOR_ALL_VALUES(VALUE_REGISTER)

    // All 32 read-modify-writes in one action (BMv2 atomicity per action).
    action accumulate() {
        bit<32> sum;
        FOR_ALL_VALUES(ACCUMULATE)
    }

    // Re-send of a finished round: the stored sums, nothing added.
    action read_result() {
        FOR_ALL_VALUES(READ_RESULT)
    }

    apply {
        if (meta.retransmission == 1) {
            read_result();
        } else {
            accumulate();
        }
    }
}

// Dense mode: a worker without data at the round's block sends DATA with
// count = 0. It contributes zeros, and it may be the packet that completes
// the round, so it gets a zeroed values header first: then every data-round
// RESULT carries the 32 sums, whichever packet completes it.
control ZeroValues(inout headers_t hdr) {
    action add_zero_values() {
        hdr.vals.setValid();
        FOR_ALL_VALUES(ZERO_VALUE)
        hdr.agg.count = VALUES_PER_PACKET;
    }

    apply {
        add_zero_values();
    }
}

#endif
