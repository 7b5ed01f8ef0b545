// Per slot and version, which workers have been counted in the round.
// A packet of version v sets its bit in set v and clears it in set 1-v: a
// worker that moved on to version v has finished the round held in 1-v, so the
// other set is clean by the time it is reused (self-cleaning, as in SwitchML).
#ifndef P4REDUCE_SEEN_BITMAP_P4
#define P4REDUCE_SEEN_BITMAP_P4

control SeenBitmap(inout metadata_t meta) {
    register<bit<32>>(REGISTER_SIZE) seen;

    // One action: both read-modify-writes happen atomically on BMv2.
    action mark_seen() {
        bit<32> current;
        bit<32> other;
        seen.read(current, meta.index);
        seen.read(other, meta.shadow_index);
        meta.bitmap_before = current;
        seen.write(meta.index, current | meta.worker_bit);
        seen.write(meta.shadow_index, other & ~meta.worker_bit);
    }

    apply {
        mark_seen();
        meta.first = (meta.bitmap_before == 0) ? 1w1 : 1w0;
    }
}

#endif
