// How many workers the round still waits for (dense mode: every worker of the
// job sends in every round, docs/protocol.md section 4). The first counted
// packet stores num_workers - 1, later ones decrement; the packet that brings
// it to 0 completes the round. The cell then stays 0 until the set is reused,
// which is how a retransmission tells a finished round (answer with the
// stored result) from an open one (drop).
//
// Every per-round register (this one, agreement.p4, opening.p4, lookahead.p4,
// values.p4) picks its RegisterAction the same way, from the seen bitmap's answer:
//   bitmap_before == 0        first counted packet of the round: overwrite
//   map_result == 0           a later counted packet: accumulate
//   otherwise                 a retransmission: read only
// (SwitchML's tables do the same with ternary const entries.) The registers of
// stage 2 match the bitmap's two 32-bit words; this table also writes the answer
// as a 2-bit `position` for the tables of stage 3 on, so that the two words need
// no PHV after stage 2.
#ifndef P4REDUCE_TNA_COUNTDOWN_P4
#define P4REDUCE_TNA_COUNTDOWN_P4

control Countdown(inout ingress_metadata_t ig_md) {
    Register<bit<8>, cell_index_t>(REGISTER_SIZE) remaining;

    RegisterAction<bit<8>, cell_index_t, bit<8>>(remaining) open_round = {
        void apply(inout bit<8> value, out bit<8> left) {
            value = ig_md.num_workers - 1;
            left = value;
        }
    };

    RegisterAction<bit<8>, cell_index_t, bit<8>>(remaining) count_worker = {
        void apply(inout bit<8> value, out bit<8> left) {
            value = value - 1;
            left = value;
        }
    };

    RegisterAction<bit<8>, cell_index_t, bit<8>>(remaining) read_remaining = {
        void apply(inout bit<8> value, out bit<8> left) {
            left = value;
        }
    };

    action open() {
        ig_md.remaining = open_round.execute(ig_md.cell);
        ig_md.position = ROUND_FIRST;
    }

    action count() {
        ig_md.remaining = count_worker.execute(ig_md.cell);
        ig_md.position = ROUND_LATER;
    }

    action read() {
        ig_md.remaining = read_remaining.execute(ig_md.cell);
        ig_md.position = ROUND_RETRANSMISSION;
    }

    table countdown {
        key = {
            ig_md.bitmap_before: ternary;
            ig_md.map_result: ternary;
        }
        actions = { open; count; read; }
        const entries = {
            (0, _) : open();
            (_, 0) : count();
            (_, _) : read();
        }
        size = 3;
    }

    apply {
        countdown.apply();
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
