// p4reduce: in-network aggregation of block-sparse gradients (v1model / BMv2).
//
// The switch ("dense" mode) side of docs/protocol.md, version 3: per slot and
// shadow copy a seen bitmap, a countdown, a running minimum of the workers'
// look-ahead keys, 32 value registers, the round's fingerprint with a
// mismatch bit, and an opening round's smallest (block, exponent) with its
// repeat bit. A completed round is multicast to the job's workers (flagged
// MISMATCH if its packets disagreed); a worker that retransmits into a
// completed round of its own allreduce gets the stored result by unicast.
// A leaf job's completed round goes to its parent (a switch or a software
// aggregator) as one DATA instead, and the parent's RESULT to its workers.
// A JOIN is answered with JOINED (the job's geometry and session). Everything
// else is L2-forwarded.
//
// One file per pipeline concern, applied in this order:
//   types.p4, headers.p4   typedefs and constants; headers and metadata
//   parser.p4        Ethernet / IPv4 / UDP 48864 -> aggregation header (+ values)
//   admission.p4     who sent it, and is it acceptable (else drop, count reason)
//   seen_bitmap.p4   first arrival, later arrival or retransmission
//   countdown.p4     is the round complete
//   agreement.p4     same allreduce (fingerprint) as the round's first packet
//   uplink.p4        a leaf job: its round to the parent, the parent's answer taken
//   opening.p4       opening round only: b* so far, and what lookahead/values do
//   lookahead.p4     running minimum of next_block / next_exp
//   values.p4        overwrite / add / read the 32 sums
//   next_step.p4     consume, multicast, unicast, JOINED, upstream; L2 forwarding
//   egress.p4        per-copy RESULT / JOINED addressing
//
// Controls are named P4Reduce*: v1model.p4 already declares the control types
// Ingress and Egress, so the P4Info names are P4ReduceIngress.* and
// P4ReduceEgress.* (control-plane contract, docs/protocol.md section 8).
#include <core.p4>
#include <v1model.p4>

#include "types.p4"
#include "headers.p4"
#include "parser.p4"
#include "admission.p4"
#include "seen_bitmap.p4"
#include "countdown.p4"
#include "agreement.p4"
#include "uplink.p4"
#include "opening.p4"
#include "lookahead.p4"
#include "values.p4"
#include "next_step.p4"
#include "egress.p4"

control P4ReduceIngress(inout header_t hdr, inout metadata_t meta,
                        inout standard_metadata_t standard_metadata) {
    counter(NUM_EVENTS, CounterType.packets) events;
    // The same story per job, for operators sharing the switch (docs/protocol.md section 8).
    counter(JOB_EVENTS_SIZE, CounterType.packets) job_events;

    Admission() admission;
    SeenBitmap() seen_bitmap;
    Countdown() countdown;
    Agreement() agreement;
    Uplink() uplink;
    Opening() opening;
    Lookahead() lookahead;
    Values() values;
    NextStep() next_step;
    Forwarding() forwarding;

    action drop_with(bit<32> event) {
        events.count(event);
        mark_to_drop(standard_metadata);
    }

    // Cell `event` of the sender's job; meta.slot_base is the entry's (admission
    // hit), masked so that no entry can index past the counter.
    action count_job(bit<32> event) {
        job_events.count(((((bit<32>) meta.slot_base) & (NUM_SLOTS - 1)) << JOB_EVENT_BITS) | event);
    }

    // A known worker's packet that the job refuses.
    action reject(bit<32> event) {
        drop_with(event);
        count_job(JOB_EV_DROPS);
    }

    // A retransmission that gets nothing: its round is still open, or it is stale.
    action drop_retransmission(bit<32> event) {
        drop_with(event);
        count_job(JOB_EV_RETRANSMISSIONS);
    }

    action resend_result() {
        events.count(EV_RESULT_UNICAST);
        count_job(JOB_EV_RETRANSMISSIONS);
    }

    // An unknown worker's JOIN goes to the controller, which may learn the worker's port
    // from it (a job service with the worker registered); counted as unknown all the same.
    action to_controller() {
        events.count(EV_UNKNOWN_WORKER);
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
        hdr.packet_in._pad = 0;
    }

    action locate_cell() {
        meta.worker_bit = 32w1 << meta.worker_id;
        // shadow * NUM_SLOTS + slot; admission guarantees slot < NUM_SLOTS.
        meta.index = ((bit<32>) hdr.agg.shadow << SLOT_BITS) | (bit<32>) hdr.agg.slot;
        meta.other_index = meta.index ^ NUM_SLOTS;
        meta.opening = ((hdr.agg.flags & FLAG_OPENING) == FLAG_OPENING) ? 1w1 : 1w0;
    }

    // Both cells in one action: BMv2 runs each apply-level statement as a
    // table of its own.
    action complete_round() {
        events.count(EV_DATA_COUNTED);
        events.count(EV_RESULT_MULTICAST);
        count_job(JOB_EV_ROUNDS);
    }

    // A leaf job's round to its parent: counted, or re-sent for a local retransmission.
    action send_up() {
        events.count(EV_DATA_COUNTED);
        events.count(EV_UPSTREAM);
    }

    action send_up_again() {
        events.count(EV_UPSTREAM);
        count_job(JOB_EV_RETRANSMISSIONS);
    }

    // The parent's answer, to the leaf job's workers: the round is complete.
    action result_from_parent() {
        events.count(EV_FROM_PARENT);
        events.count(EV_RESULT_MULTICAST);
        count_job(JOB_EV_ROUNDS);
    }

    // Kept free of `return`: p4c turns every return into a flag that BMv2 then
    // tests after each later statement, for every packet.
    apply {
        if (!hdr.agg.isValid()) {
            if (hdr.udp.isValid() && hdr.udp.dst_port == AGG_UDP_PORT) {
                drop_with(EV_MALFORMED);  // shorter than the aggregation header
            } else {
                bool forwarded;
                forwarding.apply(hdr, standard_metadata, forwarded);
                if (forwarded) {
                    events.count(EV_FORWARDED);
                }
            }
        } else {
            bit<32> reject_event;
            bit<3> step = STEP_CONSUME;
            bool controller = false;
            admission.apply(hdr, meta, standard_metadata, reject_event);
            if (reject_event != EV_UNKNOWN_WORKER) {
                count_job(JOB_EV_PACKETS);
            }
            if (reject_event == EV_UNKNOWN_WORKER) {
                if (hdr.agg.msg_type == MSG_JOIN) {
                    to_controller();
                    controller = true;
                } else {
                    drop_with(EV_UNKNOWN_WORKER);
                }
            } else if (reject_event != ACCEPTED) {
                reject(reject_event);
            } else if (meta.from_parent == 1 && hdr.agg.msg_type == MSG_ERROR) {
                // The parent failed the job: no register changes, every local worker is told.
                events.count(EV_FROM_PARENT);
                step = STEP_PARENT_ERROR;
            } else if (hdr.agg.msg_type == MSG_JOIN) {
                // Membership is the controller's (one session per job): the switch
                // only tells the worker the job's geometry and session.
                events.count(EV_JOINED);
                step = STEP_JOINED;
            } else {
                locate_cell();
                if (meta.from_parent == 0) {
                    seen_bitmap.apply(meta);
                }
                countdown.apply(meta);
                if (meta.retransmission == 1 && meta.remaining != 0) {
                    drop_retransmission(EV_RETRANSMIT_DROPPED);  // round still open: its result comes later
                } else {
                    if (meta.from_parent == 0) {
                        agreement.apply(hdr, meta);
                    }
                    uplink.apply(hdr, meta);
                    if (meta.from_parent == 1 && meta.parent_ok == 0) {
                        // Not the answer to a round this leaf sent up (a late copy of
                        // an earlier one, another allreduce's): nothing changes.
                        drop_with(EV_PARENT_DROPPED);
                    } else if (meta.stale == 1) {
                        // A finished round of another allreduce: not this packet's result.
                        // seen_bitmap has already cleared the sender's bit in the other
                        // shadow copy, as any packet of that worker with this shadow bit
                        // does; nothing was counted and no register of this round changed.
                        drop_retransmission(EV_STALE);
                    } else {
                        if (meta.opening == 1) {
                            opening.apply(hdr, meta);  // before the registers it decides for
                        }
                        lookahead.apply(hdr, meta);
                        values.apply(hdr, meta);
                        if (meta.from_parent == 1) {
                            step = STEP_FROM_PARENT;
                            result_from_parent();
                        } else if (meta.retransmission == 1 && meta.awaiting == 1) {
                            step = STEP_UPSTREAM;  // a leaf's round the parent has not answered
                            send_up_again();
                        } else if (meta.retransmission == 1) {
                            step = STEP_UNICAST;  // round complete (remaining == 0), this worker lost it
                            resend_result();
                        } else if (meta.remaining == 0 && meta.awaiting == 1) {
                            step = STEP_UPSTREAM;  // a leaf job's round: to its parent
                            send_up();
                        } else if (meta.remaining == 0) {
                            step = STEP_MULTICAST;
                            complete_round();
                        } else {
                            events.count(EV_DATA_COUNTED);
                        }
                    }
                }
            }
            // The only call site of next_step: p4c 1.2.4.8 inlines a control
            // applied at two places through copies of hdr and meta that BMv2
            // refuses to load ("No field 'userMetadata...' in header type").
            // The same holds for every control above, hence the nesting. A
            // rejected packet is already marked to drop; consume drops it again.
            if (!controller) {
                next_step.apply(hdr, meta, standard_metadata, step);
            }
        }
    }
}

V1Switch(P4ReduceParser(), P4ReduceVerifyChecksum(), P4ReduceIngress(), P4ReduceEgress(),
         P4ReduceComputeChecksum(), P4ReduceDeparser()) main;

// SPDX-License-Identifier: Apache-2.0
