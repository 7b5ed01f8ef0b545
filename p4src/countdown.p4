// How many workers the round still waits for. The first counted packet stores
// num_workers - 1, later ones decrement; 0 means complete, and stays 0 so that
// a retransmission can be answered with the finished result.
#ifndef P4REDUCE_COUNTDOWN_P4
#define P4REDUCE_COUNTDOWN_P4

control Countdown(inout metadata_t meta, in bool retransmission) {
    register<bit<8>>(REGISTER_SIZE) remaining;

    action count_worker() {
        bit<8> left;
        remaining.read(left, meta.index);
        left = (meta.first == 1) ? meta.num_workers - 1 : left - 1;
        remaining.write(meta.index, left);
        meta.remaining = left;
    }

    action read_remaining() {
        remaining.read(meta.remaining, meta.index);
    }

    apply {
        if (retransmission) {
            read_remaining();
        } else {
            count_worker();
        }
    }
}

#endif
