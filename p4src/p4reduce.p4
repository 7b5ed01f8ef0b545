// p4reduce: in-network aggregation of block-sparse gradients (v1model / BMv2).
// Implements the switch ("dense" mode) side of docs/protocol.md: per slot and
// version a seen bitmap, a countdown, a running minimum of the workers'
// look-ahead keys and 32 value registers; results are multicast to the job's
// workers and re-sent by unicast to a worker that retransmits.
#include <core.p4>
#include <v1model.p4>

#include "headers.p4"
#include "parser.p4"
#include "worker_check.p4"
#include "seen_bitmap.p4"
#include "countdown.p4"
#include "lookahead.p4"
#include "values.p4"
#include "next_step.p4"
#include "egress.p4"

// Event counter cells (docs/protocol.md section 8).
const bit<32> EV_DATA_COUNTED = 0;
const bit<32> EV_RESULT_MULTICAST = 1;
const bit<32> EV_RESULT_UNICAST = 2;
const bit<32> EV_RETRANSMIT_DROPPED = 3;
const bit<32> EV_UNKNOWN_WORKER = 4;
const bit<32> EV_IDENTITY_MISMATCH = 5;
const bit<32> EV_BAD_SLOT = 6;
const bit<32> EV_MALFORMED = 7;
const bit<32> EV_FORWARDED = 8;

control P4ReduceIngress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    counter(16, CounterType.packets) events;

    WorkerCheck() worker_check;
    ZeroValues() zero_values;
    SeenBitmap() seen_bitmap;
    Countdown() countdown;
    Lookahead() lookahead;
    Values() values;
    NextStep() next_step;
    Forwarding() forwarding;

    action drop_with(bit<32> event) {
        events.count(event);
        mark_to_drop(standard_metadata);
    }

    action locate_slot() {
        meta.worker_bit = 32w1 << meta.worker_id;
        // Register index: version * NUM_SLOTS + slot (NUM_SLOTS = 2^10).
        meta.index = ((bit<32>) hdr.agg.shadow << 10) | (bit<32>) hdr.agg.slot;
        meta.shadow_index = meta.index ^ 32w1024;
    }

    apply {
        if (!hdr.agg.isValid()) {
            if (hdr.udp.isValid() && hdr.udp.dstPort == AGG_UDP_PORT) {
                drop_with(EV_MALFORMED);  // truncated aggregation header
            } else if (hdr.ethernet.isValid()) {
                events.count(EV_FORWARDED);
                forwarding.apply(hdr, standard_metadata);
            }
        } else {
            worker_check.apply(hdr, meta, standard_metadata);
            bool data_round = hdr.agg.block != BLOCK_NONE;
            bit<16> expected_udp_len = UDP_HDR_LEN + AGG_HDR_LEN
                + ((hdr.agg.count == VALUES_PER_PACKET) ? AGG_VALUES_LEN : 16w0);
            if (meta.known_worker == 0) {
                drop_with(EV_UNKNOWN_WORKER);
            } else if (hdr.agg.job_id != meta.job_id || hdr.agg.worker_id != meta.worker_id) {
                drop_with(EV_IDENTITY_MISMATCH);
            } else if ((bit<16>) hdr.agg.slot < meta.slot_base
                       || (bit<16>) hdr.agg.slot >= meta.slot_base + meta.num_slots
                       || hdr.agg.slot >= NUM_SLOTS) {
                drop_with(EV_BAD_SLOT);
            } else if (hdr.agg.version != PROTOCOL_VERSION || hdr.agg.msg_type != MSG_DATA
                       || (hdr.agg.count != 0 && !hdr.vals.isValid())
                       || hdr.udp.length != expected_udp_len
                       || (!data_round && hdr.vals.isValid())) {
                drop_with(EV_MALFORMED);  // also: values in a bootstrap packet
            } else {
                if (data_round && !hdr.vals.isValid()) {
                    zero_values.apply(hdr);
                }
                locate_slot();
                seen_bitmap.apply(meta);
                bool retransmission = (meta.bitmap_before & meta.worker_bit) != 0;
                countdown.apply(meta, retransmission);
                if (retransmission && meta.remaining != 0) {
                    drop_with(EV_RETRANSMIT_DROPPED);  // the round is still open
                } else {
                    lookahead.apply(hdr, meta, retransmission);
                    if (data_round) {
                        values.apply(hdr, meta, retransmission);
                    }
                    bit<2> step = STEP_CONSUME;
                    if (retransmission) {
                        step = STEP_UNICAST;
                        events.count(EV_RESULT_UNICAST);
                    } else {
                        events.count(EV_DATA_COUNTED);
                        if (meta.remaining == 0) {
                            step = STEP_MULTICAST;
                            events.count(EV_RESULT_MULTICAST);
                        }
                    }
                    next_step.apply(hdr, meta, standard_metadata, step);
                }
            }
        }
    }
}

V1Switch(P4ReduceParser(), P4ReduceVerifyChecksum(), P4ReduceIngress(), P4ReduceEgress(),
         P4ReduceComputeChecksum(), P4ReduceDeparser()) main;
