// The B = 32 aggregated values of every slot and shadow copy: one register array
// per value position (registers P4ReduceIngress.values.value_00 .. value_31),
// so one packet updates all 32 positions of its cell in one pass.
//
// A packet pays only for what it carries. In dense mode most DATA packets are
// header-only (count = 0: the worker holds nothing in the round's block); they
// contribute zeros, so they leave the value registers alone. Which leaves the
// question whether the set already holds this round's sums or still those of
// the round two rounds ago (a reused set is never cleared): the one-bit
// register `held` answers it. Every round's first counted packet writes it (1
// if it carries values, else 0), so the bit always belongs to the current
// round. A packet with values overwrites the sums when the bit is 0 and adds
// to them when it is 1 (int32 wrap-around; the workers' fixed point rules out
// overflow, docs/protocol.md section 5).
//
// Whichever packet completes a round becomes its RESULT and must leave with
// the 32 sums: a packet whose values went into them carries them already (it
// leaves with the running sums); any other (header-only, or an opening
// packet whose values were left out) gets a values header filled from the
// registers, or with zeros if nobody in the round carried values. A
// retransmission into a finished round is answered the same way.
//
// An opening round sums only the values of b* at e* (docs/protocol.md section
// 3): opening.p4 tells a packet to overwrite the sums (meta.overwrite: it
// holds a smaller block or a larger exponent than any before) or to leave
// them alone (meta.ignore: another block, or b* at a smaller exponent); both
// are 0 in data rounds. Its RESULT may still go out header-only (a REPEAT, an
// empty stream): next_step.p4 drops the values then.
#ifndef P4REDUCE_VALUES_P4
#define P4REDUCE_VALUES_P4

#define VALUE_REGISTER(i) register<bit<32>>(REGISTER_SIZE) value_##i;
#define STORE(i) value_##i.write(meta.index, hdr.vals.v##i);
#define ADD(i) \
    value_##i.read(sum, meta.index); \
    hdr.vals.v##i = hdr.vals.v##i + sum; \
    value_##i.write(meta.index, hdr.vals.v##i);
#define READ_RESULT(i) value_##i.read(hdr.vals.v##i, meta.index);
#define ZERO_VALUE(i) hdr.vals.v##i = 0;
#define FOR_ALL_VALUES(M) \
    M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) \
    M(08) M(09) M(10) M(11) M(12) M(13) M(14) M(15) \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
    M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)

control Values(inout header_t hdr, inout metadata_t meta) {
    FOR_ALL_VALUES(VALUE_REGISTER)
    // Per slot and shadow copy: do the value registers hold this round's sums?
    register<bit<1>>(REGISTER_SIZE) held;

    // The first packet of the round with values: its values are the sums so far.
    // Write-only, and `held` is set in the same action (BMv2 runs an action
    // under its registers' locks, so no packet sees the sums without the bit).
    action store_values() {
        FOR_ALL_VALUES(STORE)
        held.write(meta.index, 1);
    }

    // A later packet with values: add; it leaves carrying the running sums.
    action add_values() {
        bit<32> sum;
        FOR_ALL_VALUES(ADD)
    }

    // A header-only packet opens the round (or, in an opening round, takes it
    // over): nothing is held for it yet.
    action hold_nothing() {
        held.write(meta.index, 0);
    }

    action read_held() {
        held.read(meta.held, meta.index);
    }

    // A header-only packet that answers for a finished round: the stored sums.
    action read_result() {
        hdr.vals.setValid();
        hdr.agg.count = VALUES_PER_PACKET;
        FOR_ALL_VALUES(READ_RESULT)
    }

    // ... or zeros, when no packet of the round carried values (a leaf sends
    // its parent none then: meta.no_sums).
    action zero_result() {
        hdr.vals.setValid();
        hdr.agg.count = VALUES_PER_PACKET;
        FOR_ALL_VALUES(ZERO_VALUE)
        meta.no_sums = 1;
    }

    apply {
        if (meta.from_parent == 1) {
            // A leaf job's parent answered (uplink.p4): its sums replace the partial
            // ones, for the retransmissions of the leaf's workers.
            if (hdr.vals.isValid()) {
                store_values();
            } else {
                hold_nothing();
            }
        } else if (meta.retransmission == 0) {
            if (meta.first == 1 || meta.overwrite == 1) {
                if (hdr.vals.isValid()) {
                    store_values();
                } else {
                    hold_nothing();
                }
            } else if (hdr.vals.isValid() && meta.ignore == 0) {
                read_held();
                if (meta.held == 1) {
                    add_values();
                } else {
                    store_values();
                }
            }
        }
        // It leaves as the RESULT (a retransmission into the complete round, or
        // the packet that completes it) without the running sums in hand.
        if (meta.from_parent == 0 && (meta.retransmission == 1
                || (meta.remaining == 0 && (!hdr.vals.isValid() || meta.ignore == 1)))) {
            read_held();
            if (meta.held == 1) {
                read_result();
            } else {
                zero_result();
            }
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
