// The 32 aggregated values of each slot and version. The first counted packet
// of a round overwrites (so a reused set needs no clearing), later ones add.
// The packet leaves carrying the running sums, so the completing packet carries
// the result. Each register's read-modify-write stays inside one action.
#ifndef P4REDUCE_VALUES_P4
#define P4REDUCE_VALUES_P4

#define VALUE_REGISTER(i) register<bit<32>>(REGISTER_SIZE) value_##i;
#define ACCUMULATE(i) \
    value_##i.read(sum, meta.index); \
    sum = (meta.first == 1) ? hdr.vals.v##i : sum + hdr.vals.v##i; \
    value_##i.write(meta.index, sum); \
    hdr.vals.v##i = sum;
#define READ_RESULT(i) value_##i.read(hdr.vals.v##i, meta.index);
#define FOR_ALL_VALUES(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)

control Values(inout headers_t hdr, inout metadata_t meta, in bool retransmission) {
    FOR_ALL_VALUES(VALUE_REGISTER)

    action accumulate() {
        bit<32> sum;
        FOR_ALL_VALUES(ACCUMULATE)
    }

    action read_result() {
        FOR_ALL_VALUES(READ_RESULT)
    }

    apply {
        if (retransmission) {
            read_result();
        } else {
            accumulate();
        }
    }
}

// A header-only DATA of a data round contributes zeros; giving it a values
// header lets it complete a round and carry the result like any other packet.
control ZeroValues(inout headers_t hdr) {
#define ZERO(i) hdr.vals.v##i = 0;
    action add_zero_values() {
        hdr.vals.setValid();
        FOR_ALL_VALUES(ZERO)
        hdr.agg.count = VALUES_PER_PACKET;
    }
#undef ZERO
    apply {
        add_zero_values();
    }
}

#endif
