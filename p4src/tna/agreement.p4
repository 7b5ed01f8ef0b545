// Do the packets of a round belong to one allreduce (docs/protocol.md section 8)?
// Every DATA packet carries the CRC-32 fingerprint of its allreduce (epoch,
// tensor length and dtype, B, S, fixed-point scale). One 32-bit comparison per
// counted packet catches every disagreement that reaches a slot: workers at
// different allreduces (a restarted worker at epoch 0, one that skipped a
// call) and workers with different tensors or scaling. Such a round still
// completes, with the MISMATCH flag, so every worker fails the allreduce
// instead of using a sum of unrelated blocks.
//
// One pair register per cell (shadow copy of a slot): the fingerprint of the
// round's first counted packet and the round's verdict, VERDICT_AGREE or
// VERDICT_MISMATCH (sticky until the set is reused). Each RegisterAction
// returns the verdict; a retransmission whose fingerprint is not the stored
// one gets VERDICT_STALE (0): a finished round of another allreduce, which it
// must not be answered from.
//
// A reduce-scatter's DATA also name the owner of the round's block (flags
// SCATTER | owner << 3, docs/protocol.md section 3.1), which egress uses to
// send the values to the owner only. All DATA of a data round must name the same
// owner: the register compares fingerprint XOR those bits, so the one
// comparison catches packets that disagree on either. In an opening round each
// DATA names its own block's owner, so only OPENING and SCATTER must agree: the
// key is fingerprint XOR (flags & OPENING_MASK), which no data round's equals (its
// bit 0 is 0), so a packet of the opening round and one of a data round of the
// same slot, shadow copy and allreduce disagree too.
#ifndef P4REDUCE_TNA_AGREEMENT_P4
#define P4REDUCE_TNA_AGREEMENT_P4

// One entry per owner: flags SCATTER | owner << OWNER_SHIFT, whatever bits 1..0
// (an opening DATA has bit 0 set, and its entries come first).
#define SCATTER_ENTRY(OWNER) \
    ((FLAG_SCATTER | (OWNER << OWNER_SHIFT)) &&& SCATTER_MASK, _, _) : \
        scatter_bits(FLAG_SCATTER | (OWNER << OWNER_SHIFT), FLAG_SCATTER | (OWNER << OWNER_SHIFT));
// A parent's header-only RESULT to a leaf job (uplink.p4): bit 0 set, which opening.p4's
// first_flags keeps as the repeat bit of the leaf's opening round (a REPEAT; an empty
// stream's end ignores it).
#define PARENT_REPEAT_ENTRY(OWNER) \
    ((FLAG_SCATTER | (OWNER << OWNER_SHIFT)) &&& SCATTER_MASK, 0, MSG_RESULT) : \
        scatter_bits(FLAG_SCATTER | (OWNER << OWNER_SHIFT) | 1, 0);
// An opening DATA of a reduce-scatter: its owner's bits (for the RESULT, if its block
// wins), bit 0 set when it is header-only (count 0), and only OPENING | SCATTER compared.
#define OPENING_SCATTER_ENTRY(OWNER) \
    ((FLAG_OPENING | FLAG_SCATTER | (OWNER << OWNER_SHIFT)) &&& (SCATTER_MASK | FLAG_OPENING), 0, _) : \
        scatter_bits(FLAG_SCATTER | (OWNER << OWNER_SHIFT) | 1, OPENING_MASK); \
    ((FLAG_OPENING | FLAG_SCATTER | (OWNER << OWNER_SHIFT)) &&& (SCATTER_MASK | FLAG_OPENING), _, _) : \
        scatter_bits(FLAG_SCATTER | (OWNER << OWNER_SHIFT), OPENING_MASK);
#define FOR_ALL_OWNERS(M) \
    M(8w0)  M(8w1)  M(8w2)  M(8w3)  M(8w4)  M(8w5)  M(8w6)  M(8w7) \
    M(8w8)  M(8w9)  M(8w10) M(8w11) M(8w12) M(8w13) M(8w14) M(8w15) \
    M(8w16) M(8w17) M(8w18) M(8w19) M(8w20) M(8w21) M(8w22) M(8w23) \
    M(8w24) M(8w25) M(8w26) M(8w27) M(8w28) M(8w29) M(8w30) M(8w31)
#define SCATTER_TABLE_SIZE 256   // 2 x 32 opening entries, 2 opening ones without SCATTER, 32, 33 parent repeats

struct round_agreement_t {
    bit<32> fingerprint;  // agreement key (fingerprint ^ SCATTER/owner or OPENING/SCATTER bits) of the round's first counted packet
    bit<32> verdict;      // VERDICT_AGREE or VERDICT_MISMATCH
}

// What the round's packets must agree on: fingerprint ^ (flags & SCATTER_MASK) in a
// data round, fingerprint ^ (flags & OPENING_MASK) in an opening round; and the
// SCATTER/owner bits the RESULT carries (ig_md.scatter; bit 0: a header-only
// opening DATA, opening.p4). Header only, so it runs in stage 0 for every
// aggregation packet.
control AgreementKey(in header_t hdr, inout ingress_metadata_t ig_md) {
    // The bits come from a constant table rather than from `flags & SCATTER_MASK`:
    // an ALU operation between flags and fingerprint would force both into equally
    // aligned containers (Tofino ALU operands), which the aggregation header's byte
    // layout does not allow. Reserved bits (owner bits without SCATTER, bit 1 of a
    // DATA) are ignored, as the spec says. `count` is the packet's own, before
    // ZeroValues fills in zeros: a header-only opening DATA about a block makes its
    // round a REPEAT (docs/protocol.md section 3, `h`; about NONE it cannot matter).
    action scatter_bits(bit<8> bits, bit<8> compared) {
        ig_md.scatter = bits;
        ig_md.agreement_key = hdr.agg.fingerprint ^ (bit<32>) compared;
    }

    action no_scatter() {
        ig_md.scatter = 0;
        ig_md.agreement_key = hdr.agg.fingerprint;
    }

    table scatter {
        key = {
            hdr.agg.flags: ternary;
            hdr.agg.count: ternary;
            hdr.agg.msg_type: ternary;
        }
        actions = { scatter_bits; no_scatter; }
        const entries = {
            FOR_ALL_OWNERS(PARENT_REPEAT_ENTRY)
            (0 &&& FLAG_SCATTER, 0, MSG_RESULT) : scatter_bits(1, 0);
            FOR_ALL_OWNERS(OPENING_SCATTER_ENTRY)
            (FLAG_OPENING &&& (FLAG_OPENING | FLAG_SCATTER), 0, _) : scatter_bits(1, FLAG_OPENING);
            (FLAG_OPENING &&& (FLAG_OPENING | FLAG_SCATTER), _, _) : scatter_bits(0, FLAG_OPENING);
            FOR_ALL_OWNERS(SCATTER_ENTRY)
        }
        const default_action = no_scatter();
        size = SCATTER_TABLE_SIZE;
    }

    apply {
        scatter.apply();
    }
}

control Agreement(in header_t hdr, inout ingress_metadata_t ig_md) {
    Register<round_agreement_t, cell_index_t>(REGISTER_SIZE) rounds;

    // The first counted packet opens the round: its fingerprint, and the
    // verdict left by the round two rounds ago is forgotten.
    RegisterAction<round_agreement_t, cell_index_t, bit<8>>(rounds) open_round = {
        void apply(inout round_agreement_t value, out bit<8> verdict) {
            value.fingerprint = ig_md.agreement_key;
            value.verdict = (bit<32>) VERDICT_AGREE;
            verdict = (bit<8>) value.verdict;
        }
    };

    // A later counted packet that differs makes the round a mismatch.
    RegisterAction<round_agreement_t, cell_index_t, bit<8>>(rounds) agree = {
        void apply(inout round_agreement_t value, out bit<8> verdict) {
            if (value.fingerprint != ig_md.agreement_key) {
                value.verdict = (bit<32>) VERDICT_MISMATCH;
            }
            verdict = (bit<8>) value.verdict;
        }
    };

    // A retransmission changes nothing: the round's verdict if it is of this
    // packet's allreduce, else VERDICT_STALE.
    RegisterAction<round_agreement_t, cell_index_t, bit<8>>(rounds) check_retransmission = {
        void apply(inout round_agreement_t value, out bit<8> verdict) {
            if (value.fingerprint == ig_md.agreement_key) {
                verdict = (bit<8>) value.verdict;
            } else {
                verdict = VERDICT_STALE;
            }
        }
    };

    action open() { ig_md.verdict = open_round.execute(ig_md.cell); }
    action compare() { ig_md.verdict = agree.execute(ig_md.cell); }
    action check() { ig_md.verdict = check_retransmission.execute(ig_md.cell); }

    table verdict {
        key = {
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
        }
        actions = { open; compare; check; }
        const entries = {
            (0, _) : open();
            (_, 0) : compare();
            (_, _) : check();
        }
        size = 3;
    }

    apply {
        verdict.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
