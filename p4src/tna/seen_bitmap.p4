// Which workers have been counted in the round, per slot and shadow copy
// (docs/protocol.md section 6 step 2), SwitchML-style: one 64-bit register
// cell per slot holds both shadow copies. A packet with shadow bit v ORs its
// worker's bit into set v and clears it in set 1-v, in one RegisterAction: a
// worker that moved on to a round with shadow bit v has received the result
// of the round held in 1-v, so by the time set 1-v is reused every bit in it
// is clear again (self-cleaning; no control-plane clearing between rounds).
// The action returns set v as it was before this packet.
#ifndef P4REDUCE_TNA_SEEN_BITMAP_P4
#define P4REDUCE_TNA_SEEN_BITMAP_P4

struct bitmap_pair_t {
    worker_bitmap_t set0;   // shadow copy 0
    worker_bitmap_t set1;   // shadow copy 1
}

control SeenBitmap(in header_t hdr, inout ingress_metadata_t ig_md) {
    Register<bitmap_pair_t, slot_index_t>(NUM_SLOTS) seen;

    RegisterAction<bitmap_pair_t, slot_index_t, worker_bitmap_t>(seen) mark_set0 = {
        void apply(inout bitmap_pair_t value, out worker_bitmap_t before) {
            before = value.set0;
            value.set0 = value.set0 | ig_md.worker_bit;
            value.set1 = value.set1 & ~ig_md.worker_bit;
        }
    };

    RegisterAction<bitmap_pair_t, slot_index_t, worker_bitmap_t>(seen) mark_set1 = {
        void apply(inout bitmap_pair_t value, out worker_bitmap_t before) {
            before = value.set1;
            value.set0 = value.set0 & ~ig_md.worker_bit;
            value.set1 = value.set1 | ig_md.worker_bit;
        }
    };

    action seen_in_set0() {
        ig_md.bitmap_before = mark_set0.execute(ig_md.slot_index);
    }

    action seen_in_set1() {
        ig_md.bitmap_before = mark_set1.execute(ig_md.slot_index);
    }

    table mark {
        key = { hdr.agg.shadow: exact; }
        actions = { seen_in_set0; seen_in_set1; }
        const entries = {
            0 : seen_in_set0();
            1 : seen_in_set1();
        }
        size = 2;
    }

    // The next stage: was this worker already counted in the round?
    action check_retransmission() {
        ig_md.map_result = ig_md.bitmap_before & ig_md.worker_bit;
    }

    apply {
        mark.apply();
        check_retransmission();
    }
}

#endif
