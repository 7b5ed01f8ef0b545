// p4reduce: in-network aggregation of block-sparse gradients, TNA (Tofino 1).
//
// The switch ("dense" mode) side of docs/protocol.md, version 2, like the
// v1model program in p4src/: per slot and shadow copy a seen bitmap, a
// countdown, the look-ahead minimum, the round's fingerprint verdict and the
// B = 64 sums (32 register pairs). A completed round is multicast to the job's
// workers (flagged MISMATCH if its packets disagreed); a worker that
// retransmits into a completed round of its own allreduce gets the stored
// result by unicast. A data-round RESULT reads the first words of its pairs in
// a second pass through the pipe's recirculation port (values.p4). A JOIN is
// answered with JOINED (the job's geometry and session). Everything else is
// L2-forwarded. Constants: docs/protocol.md section 8, "TNA (Tofino)";
// stage and resource plan: README.md in this directory.
//
// One file per pipeline concern, applied in this order:
//   types.p4, headers.p4   typedefs, enums, constants; headers and metadata
//   parser.p4        ports 68 (harvest) / Ethernet / IPv4 / UDP 48864 -> agg (+ values)
//   admission.p4     who sent it (port, MAC, IP, UDP port -> job, worker, ...)
//   seen_bitmap.p4   first arrival, later arrival or retransmission
//   countdown.p4     is the round complete
//   agreement.p4     same allreduce (fingerprint) as the round's first packet
//   lookahead.p4     minimum next_block, then the largest exponent among its announcers
//   values.p4        overwrite / add / read the 64 sums (32 pairs)
//   next_step.p4     consume, multicast, unicast, harvest, JOINED; L2 forwarding
//   egress.p4        per-copy RESULT / JOINED addressing
// Every register is touched through exactly one RegisterAction per packet pass,
// chosen by the table of its control.
//
// Checked with p4c's frontend and midend (p4test) against the open TNA headers:
//   make -C p4src/tna check TNA_INCLUDE=<p4c>/backends/tofino/bf-p4c/p4include
#include <core.p4>
#include <tna.p4>

#include "types.p4"
#include "headers.p4"
#include "parser.p4"
#include "admission.p4"
#include "seen_bitmap.p4"
#include "countdown.p4"
#include "agreement.p4"
#include "lookahead.p4"
#include "values.p4"
#include "next_step.p4"
#include "egress.p4"

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    // One cell per packet (the first pass of a RESULT counts it; the harvest
    // pass counts nothing), incremented in the last stage.
    Counter<bit<32>, event_t>(NUM_EVENTS, CounterType_t.PACKETS) events;

    Admission() admission;
    ZeroValues() zero_values;
    SeenBitmap() seen_bitmap;
    Countdown() countdown;
    Agreement() agreement;
    Lookahead() lookahead;
    Values() values;
    NextStep() next_step;
    Forwarding() forwarding;

    // Every packet that leaves ingress carries the bridged header; a harvest
    // pass brings its own back from the first pass.
    action start_bridged() {
        hdr.bridged.setValid();
        hdr.bridged.kind = bridged_kind_t.FORWARD;
        hdr.bridged._pad0 = 0;
        hdr.bridged.unicast = 0;
        hdr.bridged._pad1 = 0;
        hdr.bridged.ingress_port = ig_intr_md.ingress_port;
        hdr.bridged.mgid = 0;
    }

    // The registers' indexes: the seen bitmap pair by slot, all others by
    // shadow copy and slot. Admission rejects slots >= NUM_SLOTS first.
    action locate_cell() {
        ig_md.slot_index = hdr.agg.slot[SLOT_BITS - 1:0];
        ig_md.cell = hdr.agg.shadow ++ hdr.agg.slot[SLOT_BITS - 1:0];
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

    apply {
        bool admitted = false;
        bool forwarded = false;
        bool has_values = hdr.vals_a.isValid() && hdr.vals_b.isValid();  // all B values parsed
        bool data_round = false;  // meaningful once hdr.agg is valid
        if (hdr.agg.block != BLOCK_NONE) {  // a test, not an assignment: Tofino sets no bool from a compare
            data_round = true;
        }
        bool touch_values = false;   // values.p4 runs: a data round, or the harvest pass
        bool decided = false;        // next_step.p4 runs
        step_t step = STEP_CONSUME;

        if (ig_md.harvest == 0) {
            start_bridged();
        }
        locate_cell();

        if (ig_md.harvest == 1) {
            // Second pass of a data-round RESULT built in the first pass.
            touch_values = true;
            step = STEP_HARVESTED;
            decided = true;
        } else if (!hdr.agg.isValid()) {
            if (hdr.udp.isValid() && hdr.udp.dst_port == AGG_UDP_PORT) {
                drop_with(EV_MALFORMED);  // shorter than the aggregation header
            } else {
                forwarding.apply(hdr, ig_dprsr_md, ig_tm_md, forwarded);
                if (forwarded) {
                    note_event(EV_FORWARDED);
                }
            }
        } else {
            // Admission (docs/protocol.md section 8): the entry in stage 0,
            // these comparisons with 0 and constants right after it.
            admission.apply(hdr, ig_md, ig_intr_md, admitted);
            // Malformed: one test per gateway (Tofino's gateways compare a few bytes each;
            // one condition of all of them is "too complex").
            bool malformed = false;
            if (hdr.agg.version != PROTOCOL_VERSION) { malformed = true; }
            if (hdr.agg.msg_type != MSG_DATA && hdr.agg.msg_type != MSG_JOIN) { malformed = true; }
            if (hdr.agg.count != 0 && !has_values) { malformed = true; }  // count not in {0, B}, truncated
            if (has_values) {
                if (hdr.udp.length != UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN) { malformed = true; }
                if (hdr.ipv4.total_len != IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN + AGG_VALUES_LEN) {
                    malformed = true;
                }
                if (!data_round) { malformed = true; }  // a bootstrap round is header-only
            } else {
                if (hdr.udp.length != UDP_HDR_LEN + AGG_HDR_LEN) { malformed = true; }
                if (hdr.ipv4.total_len != IPV4_HDR_LEN + UDP_HDR_LEN + AGG_HDR_LEN) { malformed = true; }
            }
            if (!ig_md.checksum_ok) { malformed = true; }
            if (ig_prsr_md.parser_err != 0) { malformed = true; }
            // A block outside the tensor the packet announces (one test per gateway too).
            bool outside = false;
            if (data_round && ig_md.block_room == 0) { outside = true; }
            if (hdr.agg.next_block != BLOCK_NONE) {
                if (ig_md.next_room == 0) { outside = true; }
            }
            if (!admitted) {
                drop_with(EV_UNKNOWN_WORKER);
            } else if (malformed) {
                drop_with(EV_MALFORMED);
            } else if (ig_md.job_diff != 0 || ig_md.worker_diff != 0
                       || ig_md.rank_room == 0                 // not a rank of the job
                       || hdr.agg.worker_id >= MAX_WORKERS) {  // no bit in the seen bitmap
                drop_with(EV_IDENTITY_MISMATCH);
            } else if (hdr.agg.msg_type == MSG_JOIN) {
                // A JOIN has no session yet and touches no register. Its slot is
                // not checked either: JOINED names the entry's slot_base.
                note_event(EV_JOINED);
                step = STEP_JOINED;
                decided = true;
            } else if (ig_md.session_diff != 0) {
                drop_with(EV_BAD_SESSION);  // joined before the job was reset (or never)
            } else if (ig_md.below_base != 0 || ig_md.end_room == 0
                       || hdr.agg.slot >= NUM_SLOTS) {   // beyond the registers, whatever the entry says
                drop_with(EV_BAD_SLOT);
            } else if (outside) {
                drop_with(EV_MALFORMED);  // a block outside the tensor the packet announces
            } else {
                // Counted, or a retransmission: the round's registers.
                if (data_round && !has_values) {
                    zero_values.apply(hdr);
                }
                if (data_round) {
                    touch_values = true;
                }
                seen_bitmap.apply(hdr, ig_md);
                countdown.apply(ig_md);
                agreement.apply(hdr, ig_md);
                lookahead.apply(hdr, ig_md);
                decided = true;
                if (ig_md.map_result != 0) {
                    // Already counted in this round.
                    if (ig_md.remaining != 0) {
                        drop_with(EV_RETRANSMIT_DROPPED);  // round still open: its result comes later
                        decided = false;
                    } else if (ig_md.verdict == VERDICT_STALE) {
                        // A finished round of another allreduce: not this packet's
                        // result. Nothing was counted and no register of the round
                        // changed (the seen bitmap cleared the sender's bit in the
                        // other shadow copy, as any packet of it with this bit does).
                        drop_with(EV_STALE);
                        decided = false;
                    } else {
                        note_event(EV_RESULT_UNICAST);  // complete; this worker lost the result
                        if (data_round) {
                            step = STEP_HARVEST_UNICAST;
                        } else {
                            step = STEP_UNICAST;
                        }
                    }
                } else if (ig_md.remaining == 0) {
                    note_event(EV_RESULT_MULTICAST);
                    if (data_round) {
                        step = STEP_HARVEST_MULTICAST;
                    } else {
                        step = STEP_MULTICAST;
                    }
                } else {
                    note_event(EV_DATA_COUNTED);
                    step = STEP_CONSUME;
                }
            }
        }

        if (touch_values) {
            values.apply(hdr, ig_md);
        }
        if (decided) {
            next_step.apply(hdr, ig_md, ig_intr_md, ig_dprsr_md, ig_tm_md, step);
        }
        if (ig_md.count_event == 1) {
            count_event();
        }
    }
}

Pipeline(IngressParser(), Ingress(), IngressDeparser(),
         EgressParser(), Egress(), EgressDeparser()) pipe;

Switch(pipe) main;
