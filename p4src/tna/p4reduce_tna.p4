// p4reduce: in-network aggregation of block-sparse gradients, TNA (Tofino 1).
//
// The switch ("dense" mode) side of docs/protocol.md, version 3, like the
// v1model program in p4src/: per slot and shadow copy a seen bitmap, a
// countdown, the look-ahead minimum K2, the opening round's K1, flags and repeat
// bit, the round's fingerprint verdict and the B = 64 sums (32 register pairs).
// A completed round is multicast to the job's workers (flagged MISMATCH if its
// packets disagreed); a worker that retransmits into a completed round of its
// own allreduce gets the stored result by unicast. Every RESULT reads the first
// words of its pairs (and an opening round's K1 and flags) in a second pass
// through the pipe's recirculation port (values.p4, opening.p4). A leaf job's
// completed round goes to its parent as one DATA instead (from that second pass),
// and the parent's RESULT to its workers (uplink.p4). A JOIN is answered with
// JOINED (the job's geometry and session). Everything else is L2-forwarded. Constants: docs/protocol.md section 8, "TNA (Tofino)";
// the Tofino backend's placement: README.md here and build/resources.txt.
//
// One file per pipeline concern, applied in this order:
//   types.p4, headers.p4   typedefs, enums, constants; headers and metadata
//   parser.p4        ports 68 (harvest) / Ethernet / IPv4 / UDP 48864 -> agg (+ values)
//   admission.p4     who sent it (port, MAC, IP, UDP port -> job, worker, ...), header checks
//   seen_bitmap.p4   admission's decision (JOINED); first arrival, later arrival or retransmission
//   uplink.p4        a leaf job: what it sent its parent, whether it answered; the DATA upstream
//   countdown.p4     is the round complete
//   agreement.p4     same allreduce (fingerprint) as the round's first packet
//   opening.p4       the opening round: K1, its flags and the repeat bit; its RESULT
//   lookahead.p4     look-ahead keys; K2, the minimum announced key; next_block / next_exp
//   values.p4        overwrite / add / read the 64 sums (32 pairs)
//   next_step.p4     the round's outcome (consume, multicast or unicast after the harvest, a
//                    parent's RESULT down); the harvest pass's exit; L2
//   egress.p4        per-copy RESULT / JOINED addressing
// Every register is touched through exactly one RegisterAction per packet pass,
// chosen by the table of its control.
//
// Compiled by the Tofino backend (make -C p4src/tna, which writes build/), and
// checked with p4c's frontend and midend (make -C p4src/tna check).
#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>  // compiles (make tofino2), but see README.md: the harvest pass is Tofino 1's
#else
#include <tna.p4>
#endif

#include "types.p4"
#include "headers.p4"
#include "parser.p4"
#include "admission.p4"
#include "lookahead.p4"
#include "seen_bitmap.p4"
#include "uplink.p4"
#include "countdown.p4"
#include "agreement.p4"
#include "opening.p4"
#include "values.p4"
#include "next_step.p4"
#include "egress.p4"

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    // One cell per packet (a RESULT's harvest pass counts it, where it is known
    // whether it goes to the workers or up to a leaf's parent; its first pass counts
    // nothing), incremented at the end of the pipeline.
    Counter<bit<32>, event_t>(NUM_EVENTS, CounterType_t.PACKETS) events;
    // Per job (the v1model program's `job_events`): NUM_JOB_EVENTS cells at the
    // sender's slot_base * NUM_JOB_EVENTS, one per admitted packet (types.p4).
    Counter<bit<32>, bit<15>>(JOB_EVENTS_SIZE, CounterType_t.PACKETS) job_events;

    Admission() admission;
    AgreementKey() agreement_key;
    ZeroValues() zero_values;
    SeenBitmap() seen_bitmap;
    Countdown() countdown;
    Agreement() agreement;
    OpeningCompare() opening_compare;
    OpeningFlags() opening_flags;
    OpeningResult() opening_result;
    Lookahead() lookahead;
    DecodeNext() decode_next;
    ValueOp() value_op;
    Values() values;
    RoundOutcome() round_outcome;
    SentBlock() uplink_sent;
    Awaiting() uplink_wait;
    Uplink() uplink;
    Harvested() harvested;
    Forwarding() forwarding;

    // Every packet that leaves ingress carries the bridged header; a harvest
    // pass brings its own back from the first pass.
    action start_bridged(bridged_kind_t kind, bit<1> unicast) {
        hdr.bridged.setValid();
        hdr.bridged.kind = kind;
        hdr.bridged.unicast = unicast;
        hdr.bridged._pad0 = 0;
        hdr.bridged.opening = ig_md.opening;  // only read in a harvest pass: then from a DATA
        hdr.bridged._pad1 = 0;
        hdr.bridged.ingress_port = ig_intr_md.ingress_port;
        hdr.bridged.mgid = 0;
    }

    // A JOIN leaves as its JOINED, back where it came in, if admission takes it
    // (seen_bitmap.p4 rewrites it; else it is dropped): addressed here, so that
    // admission's stage writes no bridged field (the harvest pass's exit does).
    action start_answer() {
        start_bridged(bridged_kind_t.ANSWER, 1);
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
    }

    table bridge {
        key = {
            hdr.agg.isValid(): exact;
            hdr.agg.msg_type: ternary;
        }
        actions = { start_bridged; start_answer; }
        const entries = {
            (true, MSG_JOIN) : start_answer();
        }
        const default_action = start_bridged(bridged_kind_t.FORWARD, 0);
        size = 1;
    }

    // The registers' indexes: the seen bitmap pair by slot, all others by
    // shadow copy and slot. Admission rejects slots >= NUM_SLOTS first.
    action locate_cell() {
        ig_md.slot_index = ig_md.slot[SLOT_BITS - 1:0];
        ig_md.cell = ig_md.shadow ++ ig_md.slot[SLOT_BITS - 1:0];
    }

    action note_event(event_t event) {
        ig_md.event = event;
        ig_md.count_event = 1;
    }

    action drop_with(event_t event) {
        ig_dprsr_md.drop_ctl = 1;
        note_event(event);
    }

    action count_event() {
        events.count(ig_md.event);
    }

    action count_job_event() {
        job_events.count(ig_md.pool[SLOT_BITS - 1:0] ++ ig_md.job_event);
    }

    // Stages (README.md has the compiler's placement): 0 the worker (or a leaf's
    // parent's) entry, the header checks and the block a leaf sent up, 1 admission's
    // decision, the seen bitmap (and the look-ahead keys), or JOINED, and the leaf's
    // awaiting register, 2 the countdown, agreement and the opening round's
    // comparisons with K1 (a harvest pass: `uplinks`), 3 K2, the opening round's flags,
    // what the pairs do and the outcome (a harvest pass: its exit), 4 next_block /
    // next_exp; the value pairs in stages 3 to 11.
    apply {
        // Before `bridge` writes the bridged header whose harvest-pass copy it reads.
        if (hdr.agg.isValid()) {
            uplink_sent.apply(hdr, ig_md);
        }
        if (ig_md.harvest == 0) {
            bridge.apply();
        }
        locate_cell();

        if (ig_md.harvest == 0 && !hdr.agg.isValid()) {
            if (hdr.udp.isValid() && hdr.udp.dst_port == AGG_UDP_PORT) {
                drop_with(EV_MALFORMED);  // shorter than the aggregation header
            } else {
                bool forwarded;
                forwarding.apply(hdr, ig_dprsr_md, ig_tm_md, forwarded);
                if (forwarded) {
                    note_event(EV_FORWARDED);
                }
            }
        } else {
            // Stage 0: everything that depends on the header and the entry only
            // (a worker's, or a leaf job's parent's), and the leaf role's sent block.
            if (ig_md.harvest == 0) {
                admission.apply(hdr, ig_md, ig_intr_md, ig_prsr_md);
                agreement_key.apply(hdr, ig_md);
            }
            // Stage 1: admission's decision (drops counted there), seen bitmap; the
            // leaf role's awaiting register (both passes). A JOIN of an admitted worker
            // leaves there as its JOINED, a parent's ERROR as ERROR UPSTREAM.
            uplink_wait.apply(hdr, ig_md);   // reads from_parent before `admit` may clear it
            if (ig_md.harvest == 0) {
                seen_bitmap.apply(hdr, ig_md, ig_dprsr_md, ig_tm_md);
            }
            if (ig_md.harvest == 1) {
                // Second pass of a RESULT built in the first pass: a leaf job's round (or
                // a re-send while it awaits the parent's answer) goes up (stage 2).
                if (hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA) {
                    uplink.apply(hdr, ig_md, ig_tm_md);
                }
            } else if (ig_md.accepted == 1) {
                // Counted, or a retransmission: the round's registers.
                countdown.apply(ig_md);
                agreement.apply(hdr, ig_md);
                zero_values.apply(hdr);
            }
        }

        // Tables whose keys say whether they run, in both passes (a table is
        // applied once): the opening round's registers (the harvest pass reads K1
        // and its flags), what the pairs do, and the pairs. Those of stage 3 read
        // the K2 candidate in next_block before lookahead's min_key puts K2 there.
        opening_compare.apply(hdr, ig_md);
        opening_flags.apply(hdr, ig_md);
        value_op.apply(hdr, ig_md);
        values.apply(hdr, ig_md);
        if (ig_md.harvest == 1) {
            // The harvest pass's exit (stage 3): to the workers, or up (poisoned if its
            // round disagreed). After the registers' tables in the program: it writes
            // fields that share containers with what they write, and goes after them.
            harvested.apply(hdr, ig_md, ig_tm_md);
            if (ig_md.opening == 1) {
                opening_result.apply(hdr, ig_md);
            }
        } else if (ig_md.accepted == 1 || ig_md.from_parent == 1) {
            lookahead.apply(hdr, ig_md);
            round_outcome.apply(hdr, ig_md, ig_intr_md, ig_dprsr_md, ig_tm_md);
            decode_next.apply(hdr);
        }
        if (ig_md.count_event == 1) {
            count_event();
        }
        if (ig_md.admitted == 1) {
            count_job_event();
        }
    }
}

Pipeline(IngressParser(), Ingress(), IngressDeparser(),
         EgressParser(), Egress(), EgressDeparser()) pipe;

Switch(pipe) main;

// SPDX-License-Identifier: Apache-2.0
