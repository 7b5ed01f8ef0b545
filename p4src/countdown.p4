// How many workers the round still waits for (dense mode: every worker of the
// job sends in every round, docs/protocol.md section 4). The first counted
// packet stores num_workers - 1, later ones decrement; the packet that brings
// it to 0 completes the round. The cell then stays 0 until the set is reused,
// which is how a retransmission tells a finished round (answer with the
// stored result) from an open one (drop).
#ifndef P4REDUCE_COUNTDOWN_P4
#define P4REDUCE_COUNTDOWN_P4

control Countdown(inout metadata_t meta) {
    register<bit<8>>(REGISTER_SIZE) remaining;

    action count_worker() {
        remaining.read(meta.remaining, meta.index);
        meta.remaining = (meta.first == 1) ? meta.num_workers - 1 : meta.remaining - 1;
        remaining.write(meta.index, meta.remaining);
    }

    // A retransmission is not counted again; it only learns the round's state.
    action read_remaining() {
        remaining.read(meta.remaining, meta.index);
    }

    apply {
        // (A parent's RESULT for a leaf job only reads it too: uplink.p4.)
        if (meta.retransmission == 1 || meta.from_parent == 1) {
            read_remaining();
        } else {
            count_worker();
        }
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
