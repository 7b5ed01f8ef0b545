// Do the packets of a round belong to one allreduce (docs/protocol.md section 8)?
// Every DATA packet carries the CRC-32 fingerprint of its allreduce (epoch,
// tensor length and dtype, B, S, fixed-point scale). The switch cannot keep
// per-worker epochs or compare epoch order, but one 32-bit comparison per
// round catches every disagreement that reaches a slot: workers at different
// allreduces (a restarted worker at epoch 0, one that skipped a call) and
// workers with different tensors or scaling. Such a round still completes,
// with the MISMATCH flag, so every worker fails the allreduce instead of
// using a sum of unrelated blocks.
//
// A reduce-scatter's DATA also name the owner of the round's block (flags
// SCATTER | owner << 3, docs/protocol.md section 3.1), which egress uses to
// send the values to the owner only. All DATA of a round must name the same
// owner: the register holds fingerprint XOR those bits, so the same single
// comparison catches packets that disagree on either.
//
// An opening round's DATA each name their own block's owner, so there the
// register holds fingerprint XOR the OPENING and SCATTER bits (OPENING_MASK):
// a data-round packet that lands in an opening round (or the reverse) differs
// in the OPENING bit, and a reduce-scatter against a plain allreduce in SCATTER.
#ifndef P4REDUCE_AGREEMENT_P4
#define P4REDUCE_AGREEMENT_P4

control Agreement(inout header_t hdr, inout metadata_t meta) {
    // Per slot and shadow copy, like every per-slot register (the controller's
    // reset zeroes all arrays of REGISTER_SIZE cells).
    register<bit<32>>(REGISTER_SIZE) fingerprint;  // of the round's first counted packet
    register<bit<1>>(REGISTER_SIZE) mismatch;      // sticky for the round

    bit<32> key;  // hdr.agg.fingerprint ^ the bits the round's packets share

    // Reserved bits (owner bits without SCATTER, bit 1 of DATA) are ignored, as
    // the spec says. meta.scatter is also what a data round's RESULT carries.
    action scatter_key() {
        meta.scatter = ((hdr.agg.flags & FLAG_SCATTER) == FLAG_SCATTER) ? (hdr.agg.flags & SCATTER_MASK)
                                                                         : 8w0;
        key = hdr.agg.fingerprint
              ^ (bit<32>) ((meta.opening == 1) ? (hdr.agg.flags & OPENING_MASK) : meta.scatter);
    }

    // The round's first counted packet stores its fingerprint and clears the
    // bit left by the round two rounds ago (write-only: nothing to compare yet).
    // Both registers in one action: BMv2 runs an action under the registers'
    // locks, so a concurrent packet never sees one updated and not the other.
    action open_round() {
        fingerprint.write(meta.index, key);
        mismatch.write(meta.index, 0);
        meta.mismatch = 0;
    }

    // A later counted packet compares its fingerprint with the stored one; one
    // that differs sets the bit, and nothing clears it until the set is reused.
    // Only the packet that completes the round reads the bit (for its RESULT),
    // so an agreeing packet costs one register read. The three steps are
    // separate actions: simple_switch runs ingress on one thread, so no other
    // packet of the round comes in between.
    bit<32> stored;

    action read_fingerprint() {
        fingerprint.read(stored, meta.index);
    }

    action set_mismatch() {
        mismatch.write(meta.index, 1);
    }

    action read_mismatch() {
        mismatch.read(meta.mismatch, meta.index);
    }

    // Retransmission into a complete round: the stored result is re-sent only
    // to a packet of the same allreduce. Any other one (a worker restarted at
    // an earlier epoch whose shadow bit hits a finished round of a later
    // allreduce) would otherwise get a sum that is not its allreduce's.
    action check_retransmission() {
        fingerprint.read(stored, meta.index);
        mismatch.read(meta.mismatch, meta.index);
        meta.stale = (stored != key) ? 1w1 : 1w0;
    }

    apply {
        scatter_key();
        if (meta.retransmission == 1) {
            check_retransmission();
        } else if (meta.first == 1) {
            open_round();
        } else {
            read_fingerprint();
            if (stored != key) {
                set_mismatch();
            }
            if (meta.remaining == 0) {
                read_mismatch();
            }
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
