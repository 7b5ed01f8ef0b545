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
// send the values to the owner only. All DATA of a round must name the same
// owner: the register compares fingerprint XOR those bits, so the one
// comparison catches packets that disagree on either.
#ifndef P4REDUCE_TNA_AGREEMENT_P4
#define P4REDUCE_TNA_AGREEMENT_P4

struct round_agreement_t {
    bit<32> fingerprint;  // agreement key (fingerprint ^ SCATTER/owner bits) of the round's first counted packet
    bit<32> verdict;      // VERDICT_AGREE or VERDICT_MISMATCH
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

    // Reserved bits (owner bits without SCATTER) are ignored, as the spec says.
    action scatter_bits() { ig_md.scatter = hdr.agg.flags & SCATTER_MASK; }
    action no_scatter() { ig_md.scatter = 0; }
    action make_key() { ig_md.agreement_key = hdr.agg.fingerprint ^ (bit<32>) ig_md.scatter; }

    apply {
        if (hdr.agg.flags[2:2] == 1) {
            scatter_bits();
        } else {
            no_scatter();
        }
        make_key();
        verdict.apply();
    }
}

#endif
