// Which workers have been counted in the round, per slot and shadow copy
// (docs/protocol.md section 6 step 2).
// A packet with shadow bit v sets its worker's bit in set v and clears it in set
// 1-v: a worker that moved on to a round with shadow bit v has received the result
// of the round held in 1-v, so by the time set 1-v is reused every bit in it
// is clear again (SwitchML's self-cleaning; no control-plane clearing).
#ifndef P4REDUCE_SEEN_BITMAP_P4
#define P4REDUCE_SEEN_BITMAP_P4

control SeenBitmap(inout metadata_t meta) {
    register<bit<32>>(REGISTER_SIZE) seen;

    // Both cells are read and written in one action: BMv2 runs an action
    // under the register's lock, so no other packet sees a half update.
    action mark_seen() {
        bit<32> current;
        bit<32> other;
        seen.read(current, meta.index);
        seen.read(other, meta.other_index);
        seen.write(meta.index, current | meta.worker_bit);
        seen.write(meta.other_index, other & ~meta.worker_bit);
        // Nobody counted yet: this packet opens the round and overwrites
        // whatever the set still holds from two rounds ago. (Decided here, not
        // in apply: p4c turns a conditional expression there into a branch
        // and two tables, which BMv2 runs for every packet.)
        meta.first = (current == 0) ? 1w1 : 1w0;
        meta.retransmission = ((current & meta.worker_bit) != 0) ? 1w1 : 1w0;
    }

    apply {
        mark_seen();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
