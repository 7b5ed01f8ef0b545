// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce._worker: the host agent's per-round state machine in C
 * (docs/protocol.md section 7), for all streams of one allreduce at once.
 *
 * Import it as `p4reduce._native_worker` (p4reduce/_native_worker.py), which
 * says how to rebuild it when it is missing. The readable model is Python:
 * p4reduce.hostagent.stream.Stream driven by StreamRun._process_packets and
 * StreamRun.expire_timers (hostagent/stream_engine.py, WorkerConfig(engine="python"));
 * tests/test_native_worker.py feeds both the same traffic and compares the
 * packets they send, the output bytes, the stream states, the counters and
 * the errors.
 *
 * One Run object holds one allreduce: per stream its slot, round, current
 * block and agreed exponent, where it is in the worker's non-zero blocks, what
 * it would (re)send on a timeout and its retransmission timer; the tensor and
 * the output (buffer protocol, held for the Run's life). `poll` waits for the
 * agent's sockets, takes a batch of datagrams per socket with recvmmsg, splits
 * and validates their packets, dequantizes results into the output, quantizes
 * the next DATA straight into the outgoing datagrams (packed up to each
 * endpoint's agreed size) and hands them to the kernel with sendmmsg, all with
 * the GIL released. It returns only what the Python control flow needs: how
 * many streams finished and the latencies of rounds that sent a packet of ours
 * and needed no retransmission (for the RTO estimator and the window). Starting streams
 * (the window), timer expiry and the errors stay Python's decisions and
 * exceptions (hostagent/fastpath.py's NativeRun; the agent's loop is the same for
 * both engines, hostagent/engine_api.py).
 *
 * Protocol version 3: a stream's first round is its opening round (docs/protocol.md 3).
 * Its DATA (flag OPENING) carries the worker's own first non-zero block of the stream at
 * its own exponent (header-only, block NONE, when it holds none); its RESULT, taken
 * whatever block it names, is the data round of the smallest block any worker holds, a
 * REPEAT of that block (block = next_block: its holders send it again at next_exp), or
 * the end of an empty stream.
 *
 * UDP offload, as p4reduce/_engine.c does it: with Run(gso=True) each endpoint's
 * run of equal-size datagrams goes as one UDP_SEGMENT message (one by one again,
 * for good, once the kernel refuses one), and a UDP_GRO buffer received (the agent
 * turns UDP_GRO on for the native engine's sockets) is split back into its datagrams.
 *
 * The extension's files, one concern each (p4reduce/_worker.h holds what they share):
 * this one is the per-round state machine, the received packets of
 * StreamRun._process_packets and Stream.on_result/on_pending (on_result's steps
 * check_result, deliver_result and advance_stream are Stream's _check_result,
 * _deliver_result and _advance_stream); p4reduce/_worker_out.c
 * the outgoing datagrams (the endpoints' queues, packing, sendmmsg with UDP GSO, the raw
 * transports' TX rings); p4reduce/_worker_recv.c receiving (ppoll, recvmmsg with UDP
 * GRO, the raw transports' RX rings); p4reduce/_worker_py.c the Python type Run and the
 * module; p4reduce/_packet_ring.c transport "packet"'s AF_PACKET rings.
 */
#include "_worker.h"

/* A block number as the errors print it (_name in hostagent/stream.py). */
static const char *block_name(uint32_t block, char *buf, size_t size) {
    if (block == NONE_BLOCK) {
        snprintf(buf, size, "NONE");
    } else {
        snprintf(buf, size, "%u", block);
    }
    return buf;
}

static void fail_protocol(RunObject *r, const char *fmt, unsigned a, unsigned b, unsigned c) {
    r->err = ERR_PROTOCOL;
    snprintf(r->err_msg, sizeof r->err_msg, fmt, a, b, c);
}

/* ProtocolError for a RESULT (Stream._bad): names the aggregator, the slot, the block and
 * what is wrong with it. */
static void fail_result(RunObject *r, uint32_t ip, uint16_t port, uint32_t slot, uint32_t block, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void fail_result(RunObject *r, uint32_t ip, uint16_t port, uint32_t slot, uint32_t block, const char *fmt, ...) {
    char host[INET_ADDRSTRLEN], what[160], name[16];
    struct in_addr a = {htonl(ip)};
    inet_ntop(AF_INET, &a, host, sizeof host);
    block_name(block, name, sizeof name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->err = ERR_PROTOCOL;
    snprintf(r->err_msg, sizeof r->err_msg, "job %u worker %u: the RESULT from %s:%u for slot %u block %s has %s",
             r->job_id, r->worker_id, host, (unsigned)port, slot, name, what);
}

static void fail_job(RunObject *r, long long code, long long detail, long long epoch) {
    r->err = ERR_JOB;
    r->err_code = code;
    r->err_detail = detail;
    r->err_epoch = epoch;
}

/* ---------------------------------------------------------------------------
 * Received packets: StreamRun._process_packets and Stream.on_result/on_pending
 */

static int push_sample(RunObject *r, double latency) {
    if (r->nsamples == r->scap) {
        size_t n = r->scap ? r->scap * 2 : 256;
        double *d = realloc(r->samples, n * sizeof *d);
        if (!d) {
            r->err = ERR_MEMORY;
            return -1;
        }
        r->samples = d;
        r->scap = n;
    }
    r->samples[r->nsamples++] = latency;
    return 0;
}

/* Whether a RESULT's values equal what was delivered for `block` at `exp` (the
 * `delivered` callback of Stream). */
static int same_values(RunObject *r, uint32_t block, int exp, const unsigned char *values) {
    const size_t n = out_len(r, block);
    const char *held = (const char *)r->out.buf + 4 * (size_t)(block - r->first_block) * r->block_size;
    if (!r->scratch && !(r->scratch = malloc(4 * (size_t)r->block_size))) {
        return 1; /* no memory to compare: take it as the same (the rare repeat is dropped) */
    }
    if (r->is_float) {
        dequantize_f32((const char *)values, 1, (Py_ssize_t)n, shift_of(r, exp), r->scratch);
    } else {
        copy_i32((const char *)values, 1, (Py_ssize_t)n, r->scratch, PY_BIG_ENDIAN);
    }
    return memcmp(r->scratch, held, 4 * n) == 0;
}

/* Mirrors Stream._check_duplicate in hostagent/stream.py: a copy of the previous round's
 * RESULT must be the one taken (header h, its values at `values`). */
static int check_duplicate(RunObject *r, stream_t *s, const hdr_t *h, const unsigned char *values, uint32_t ip,
                           uint16_t port) {
    const uint32_t shadow = h->shadow, block = h->block, next_block = h->next_block;
    const unsigned flags = h->flags, next_exp = h->next_exp, count = h->count;
    if (!s->has_prev || shadow != s->prev_shadow || block != s->prev_block || h->epoch != r->epoch ||
        h->fingerprint != r->fingerprint || (flags & F_MISMATCH)) {
        return 0;
    }
    if (next_block != s->prev_next_block || next_exp != s->prev_next_exp ||
        ((flags & F_OVERFLOW) != 0) != s->prev_overflow) {
        char a[16], b[16], c[16];
        fail_result(r, ip, port, s->slot, block,
                    "a second RESULT for block %s names next_block %s (next_exp %u), the first %s (next_exp %u)",
                    block_name(block, a, sizeof a), block_name(next_block, b, sizeof b), next_exp,
                    block_name(s->prev_next_block, c, sizeof c), (unsigned)s->prev_next_exp);
        return -1;
    }
    if (s->prev_delivered && count == r->block_size && !same_values(r, block, s->prev_exp, values)) {
        fail_result(r, ip, port, s->slot, block, "a second RESULT for block %u has other values", block);
        return -1;
    }
    return 0;
}

/* `block` is not one of stream `stream`'s blocks of the tensor (Stream._outside). */
static inline int outside_stream(const RunObject *r, uint32_t block, uint32_t stream) {
    return block >= r->nblocks || block % r->num_slots != stream;
}

/* What the RESULT of an opening round must also say (docs/protocol.md 7; Stream._check_opening),
 * before the usual checks: a block not past the worker's own first block b_w (s->block; NONE
 * only when the worker holds nothing); when it is b_w, the worker's exponent for it unless
 * REPEAT (else its values were not summed); a block in its stream; after block NONE (the end of
 * an empty stream) next_block NONE. Sets *m (the worker's next unsent block after the round)
 * to the block after b_w when the RESULT is the data round of b_w. */
static int check_opening(RunObject *r, const stream_t *s, const hdr_t *h, uint32_t ip, uint16_t port, int repeat,
                         uint32_t *m) {
    const uint32_t slot = h->slot, stream = slot - r->slot_base;
    const uint32_t block = h->block, next_block = h->next_block, own = s->block;
    const unsigned exp = h->exp;
    char a[16], b[16];
    if (block > own) { /* (NONE is past every block) */
        fail_result(r, ip, port, slot, block, "block %s past this worker's first block %s",
                    block_name(block, a, sizeof a), block_name(own, b, sizeof b));
        return -1;
    }
    if (block == own && own != NONE_BLOCK && !repeat && exp != s->exp) {
        fail_result(r, ip, port, slot, block, "exp %u for block %u, which this worker sent at %u", exp, own,
                    (unsigned)s->exp);
        return -1;
    }
    if (block != NONE_BLOCK && outside_stream(r, block, stream)) {
        fail_result(r, ip, port, slot, block, "block %u outside stream %u of a %u-block tensor", block, stream,
                    r->nblocks);
        return -1;
    }
    if (block == NONE_BLOCK && next_block != NONE_BLOCK) {
        fail_result(r, ip, port, slot, block, "next_block %u after an empty opening round", next_block);
        return -1;
    }
    if (block == own && own != NONE_BLOCK && !repeat) {
        *m = s->first_next;
    }
    return 0;
}

/* What check_result found a RESULT to say, for the steps after it (the exp, pos and repeat
 * that Stream._check_result returns). */
typedef struct {
    unsigned exp; /* what the round's values were summed at */
    uint32_t m;   /* the worker's next unsent block after this round (Stream._mine[pos]) */
    int repeat;   /* a REPEAT of the opening round's block: no values */
} taken_t;

/* Mirrors Stream._check_result in hostagent/stream.py: whether a RESULT for active stream s
 * is the current round's and says what docs/protocol.md 7 requires. 1: take it (*t says
 * how); 0: not this round's, or a copy to wait past (counted ignored); -1: the run fails.
 * It changes no state (but the cursor's skip of zero blocks), so a refused RESULT leaves
 * the stream as it was. */
static int check_result(RunObject *r, stream_t *s, const hdr_t *h, const unsigned char *p, uint32_t ip, uint16_t port,
                        taken_t *t) {
    const uint32_t slot = h->slot, shadow = h->shadow, epoch = h->epoch;
    const uint32_t block = h->block, next_block = h->next_block;
    /* The RESULT of the current round (slot, shadow bit and block); in the opening round
     * whatever its block (the aggregator chose it). */
    if (shadow != (s->round & 1) || (!s->opening && block != s->block)) {
        r->ignored_packets++;
        return check_duplicate(r, s, h, p + HEADER_LEN, ip, port);
    }
    const unsigned flags = h->flags;
    const uint32_t fp = h->fingerprint;
    if (r->poisoned && ((flags & F_MISMATCH) || fp == (r->fingerprint ^ POISON))) {
        r->err = ERR_NONFINITE; /* a poisoned round came back: every worker fails now */
        return -1;
    }
    if (flags & F_MISMATCH) {
        fail_job(r, E_TENSOR, -1, r->epoch);
        return -1;
    }
    if (epoch != r->epoch) {
        r->ignored_packets++;
        return 0;
    }
    if (fp != r->fingerprint) { /* this allreduce, another tensor: a worker disagrees, or poisoned it */
        fail_job(r, E_TENSOR, -1, r->epoch);
        return -1;
    }
    const uint32_t stream = slot - r->slot_base;
    uint32_t m = mine(r, s); /* the worker's next unsent block after this round */
    if (r->err != ERR_NONE) {
        return -1;
    }
    unsigned exp = s->exp; /* what the round's values were summed at */
    /* is_repeat(); a data round's RESULT never repeats its block (next_block goes back) */
    const int repeat = s->opening && block == next_block && block != NONE_BLOCK;
    if (s->opening) {
        if (check_opening(r, s, h, ip, port, repeat, &m) < 0) {
            return -1;
        }
        exp = h->exp;
    }
    const unsigned next_exp = h->next_exp;
    if (next_block != NONE_BLOCK && outside_stream(r, next_block, stream)) {
        fail_result(r, ip, port, slot, block, "next_block %u is outside stream %u of a %u-block tensor", next_block,
                    stream, r->nblocks);
        return -1;
    }
    if (next_block != NONE_BLOCK && block != NONE_BLOCK && next_block <= block && !repeat) {
        fail_result(r, ip, port, slot, block, "next_block %u goes back from block %u", next_block, block);
        return -1;
    }
    if (next_block > m) {
        char a[16];
        fail_result(r, ip, port, slot, block,
                    "next_block %s skips block %u, which this worker announced and never sent",
                    block_name(next_block, a, sizeof a), m);
        return -1;
    }
    const uint8_t *exps = r->exps.buf;
    if (next_block == m && m != NONE_BLOCK && next_exp < exps[m]) {
        fail_result(r, ip, port, slot, block, "next_exp %u is below this worker's %u for block %u", next_exp,
                    (unsigned)exps[m], m);
        return -1;
    }
    const uint32_t count = h->count;
    if (repeat) { /* no values (and no OVERFLOW): the round is repeated */
        if (count != 0) {
            fail_result(r, ip, port, slot, block, "count %u in a REPEAT", count);
            return -1;
        }
    } else if (block != NONE_BLOCK) {
        /* A reduce-scatter: block b belongs to rank b / shard_blocks. */
        const int64_t owner = r->shard_blocks ? (int64_t)(block / r->shard_blocks) : -1;
        if (owner >= 0 && owner != r->worker_id) {
            /* Another rank's block: header-only from an aggregator that implements
             * SCATTER, the full RESULT from one that does not. */
            if (count != 0 && count != r->block_size) {
                fail_result(r, ip, port, slot, block, "count %u for block %u", count, block);
                return -1;
            }
        } else if (count != r->block_size) {
            if (owner >= 0 && count == 0) { /* the multicast group's copy of our own block: wait for ours */
                r->ignored_packets++;
                return 0;
            }
            fail_result(r, ip, port, slot, block, "count %u for block %u", count, block);
            return -1;
        }
    }
    *t = (taken_t){exp, m, repeat};
    return 1;
}

/* Mirrors Stream._deliver_result in hostagent/stream.py: a checked RESULT's values into the
 * output, when they are this worker's (not a REPEAT, not the end of the stream, not another
 * rank's block of a reduce-scatter). Returns whether it took values; -1: the run fails. */
static int deliver_result(RunObject *r, stream_t *s, const hdr_t *h, const unsigned char *values, const taken_t *t) {
    const uint32_t block = h->block;
    if (t->repeat || block == NONE_BLOCK) {
        return 0;
    }
    int delivered = 0;
    const int64_t owner = r->shard_blocks ? (int64_t)(block / r->shard_blocks) : -1;
    if (owner < 0 || owner == r->worker_id) { /* check_result saw count == block_size */
        if (block >= r->nblocks) {
            fail_protocol(r, "result for block %u of a %u-block tensor", block, r->nblocks, 0);
            return -1;
        }
        const size_t n = out_len(r, block);
        char *dst = (char *)r->out.buf + 4 * (size_t)(block - r->first_block) * r->block_size;
        if (r->is_float) {
            r->float_overflow |= dequantize_f32((const char *)values, 1, (Py_ssize_t)n, shift_of(r, (int)t->exp), dst);
        } else {
            copy_i32((const char *)values, 1, (Py_ssize_t)n, dst, PY_BIG_ENDIAN);
        }
        delivered = 1;
    }
    s->overflow |= (h->flags & F_OVERFLOW) != 0; /* every worker raises, whoever holds the block */
    return delivered;
}

/* Mirrors Stream._advance_stream in hostagent/stream.py: the RESULT taken, stream s moves
 * to the round it names, keeps what a copy of it must repeat (check_duplicate), samples the
 * round's latency and queues its next DATA (or, sparse, stays silent), or is done. */
static int advance_stream(RunObject *r, stream_t *s, const hdr_t *h, const taken_t *t, int delivered, double now,
                          double rto) {
    const uint32_t block = h->block, next_block = h->next_block;
    const unsigned flags = h->flags, next_exp = h->next_exp;
    const uint32_t m = t->m;
    const int opened = s->opening; /* this is its opening round's RESULT */
    /* Karn's rule, and a silent round (sparse: nothing of ours sent) is no round trip of
     * ours: its RESULT can come in the batch that started it, a latency of 0 that would
     * pin the window's base latency at 0 (StreamWindow.on_round). */
    const int sample = s->retries == 0 && s->pending != P_QUERY;
    if (opened) {
        /* Its data round of its own first block done: the next block is the one after it.
         * (A smaller block, or a REPEAT: it still holds its first block.) */
        if (block == s->block && block != NONE_BLOCK && !t->repeat) {
            s->cursor = block + r->num_slots;
        }
        s->opening = 0;
    }
    s->has_prev = 1;
    s->prev_shadow = (uint8_t)h->shadow;
    s->prev_block = block;
    s->prev_exp = (uint8_t)t->exp;
    s->prev_next_block = next_block;
    s->prev_next_exp = (uint8_t)next_exp;
    s->prev_overflow = (flags & F_OVERFLOW) != 0;
    s->prev_delivered = (uint8_t)delivered;
    s->round++;
    s->retries = 0;
    s->missing = -1;
    s->block = next_block;
    s->exp = (uint8_t)next_exp;
    if (s->block == NONE_BLOCK) {
        s->state = S_DONE;
        s->pending = P_NONE;
        r->active--;
        r->unfinished--;
        r->finished++;
        return sample ? push_sample(r, now - s->started) : 0;
    }
    if (sample && push_sample(r, now - s->started) < 0) {
        return -1;
    }
    s->poisoned = (uint8_t)r->poisoned; /* a round started after a late NaN/Inf */
    if (m == s->block) {
        s->cursor = m + r->num_slots;
        s->pending = P_VALUES;
    } else if (r->dense || opened) { /* sparse too after the opening round: its next round expects every worker */
        s->pending = P_HEADER;
    } else { /* sparse: stay silent; on timeout ask for the result instead */
        s->pending = P_QUERY;
    }
    if (s->pending != P_QUERY && wk_emit(r, s, s->pending) < 0) {
        return -1;
    }
    set_timer(s, now, rto);
    return 0;
}

/* Mirrors Stream.on_result in hostagent/stream.py: a RESULT for active stream s, checked,
 * delivered and taken in the three steps above. */
static int on_result(RunObject *r, stream_t *s, const hdr_t *h, const unsigned char *p, uint32_t ip, uint16_t port,
                     double now, double rto) {
    taken_t t;
    const int taken = check_result(r, s, h, p, ip, port, &t);
    if (taken <= 0) {
        return taken;
    }
    const int delivered = deliver_result(r, s, h, p + HEADER_LEN, &t);
    if (delivered < 0) {
        return -1;
    }
    return advance_stream(r, s, h, &t, delivered, now, rto);
}

/* One packet from ip:port on receiver `in` (StreamRun._process_packets): what is not for this
 * worker's active streams ignored, an ERROR failing the run, a PENDING noted, a RESULT to on_result. */
static int process_packet(RunObject *r, const in_t *in, const unsigned char *p, size_t len, uint32_t ip, uint16_t port,
                          double now, double rto) {
    r->packets_received++;
    r->payload_bytes_received += len;
    hdr_t h;
    hdr_parse(p, &h);
    const unsigned type = h.msg_type;
    if ((h.version & ~VERSION_AUTH) != PROTOCOL_VERSION || type < T_DATA || type > T_MAX) { /* AggHeader.unpack */
        r->ignored_packets++;
        return 0;
    }
    /* An authenticated job's packets sealed with a valid MAC, any other job's not sealed. */
    if (r->keyed ? !mac_ok(r->key, p, len) : (h.version & VERSION_AUTH) != 0) {
        r->unauthenticated++;
        r->ignored_packets++;
        return 0;
    }
    /* Addressed to this worker by unicast, or to the job's group on the group's socket. */
    const uint32_t worker = h.worker_id;
    if (h.job_id != r->job_id || worker != (in->endpoint >= 0 ? r->worker_id : ALL_WORKERS)) {
        r->ignored_packets++;
        return 0;
    }
    const uint32_t epoch = h.epoch, block = h.block, next_block = h.next_block;
    const uint32_t session = h.session;
    if (type == T_ERROR) { /* about the job, whichever slot it names */
        /* Only an answer to one of ours (its session echoed) from the aggregator itself. */
        if (in->endpoint < 0 || session != r->outs[in->endpoint].session) {
            r->ignored_packets++;
            return 0;
        }
        fail_job(r, block, next_block, epoch);
        return -1;
    }
    const uint32_t slot = h.slot, shadow = h.shadow;
    const uint32_t index = slot - r->slot_base; /* wraps for slots below the base */
    if (slot < r->slot_base || index >= r->nstreams || r->streams[index].state != S_ACTIVE) {
        r->ignored_packets++;
        return 0;
    }
    stream_t *s = &r->streams[index];
    /* From the aggregator serving the stream, with this worker's session (or the group's). */
    if ((in->endpoint >= 0 && in->endpoint != s->endpoint) ||
        session != (in->endpoint >= 0 ? r->outs[s->endpoint].session : r->outs[s->endpoint].group_session)) {
        r->ignored_packets++;
        return 0;
    }
    if (type == T_PENDING) {
        if (shadow == (s->round & 1) && epoch == r->epoch && block == s->block) {
            s->missing = next_block;
        }
        return 0;
    }
    if (type != T_RESULT) {
        r->ignored_packets++;
        return 0;
    }
    return on_result(r, s, &h, p, ip, port, now, rto);
}

static int source_ok(const in_t *in, uint32_t ip, uint16_t port) {
    for (int i = 0; i < in->npeers; i++) {
        if (in->peers[i].ip == ip && in->peers[i].port == port) {
            return 1;
        }
    }
    return 0;
}

/* One received datagram (StreamRun._process): its packets back to back, a tail
 * that is not a whole packet counted once as ignored. */
static int process_datagram(RunObject *r, const in_t *in, const unsigned char *d, size_t len, uint32_t ip,
                            uint16_t port, double now, double rto) {
    if (!source_ok(in, ip, port)) { /* only a group socket can hear others */
        r->ignored_packets++;
        return 0;
    }
    size_t end = 0;
    while (len - end >= HEADER_LEN) {
        size_t next = end + packet_len(d + end);
        if (next > len) {
            break;
        }
        end = next;
    }
    r->ignored_packets += end != len;
    for (size_t off = 0; off < end;) {
        size_t size = packet_len(d + off);
        if (process_packet(r, in, d + off, size, ip, port, now, rto) < 0) {
            return -1;
        }
        off += size;
    }
    return 0;
}

/* A received buffer: one datagram, or (seg > 0) a UDP_GRO buffer of datagrams of `seg`
 * bytes, the last one possibly shorter, each handled as if it had come alone. */
int wk_process_buffer(RunObject *r, const in_t *in, const unsigned char *d, size_t len, size_t seg, uint32_t ip,
                      uint16_t port, double now, double rto) {
    if (!seg || len <= seg) {
        return process_datagram(r, in, d, len, ip, port, now, rto);
    }
    r->gro_buffers++;
    r->gro_segments += (len + seg - 1) / seg;
    for (size_t off = 0; off < len; off += seg) {
        const size_t n = len - off < seg ? len - off : seg;
        if (process_datagram(r, in, d + off, n, ip, port, now, rto) < 0) {
            return -1;
        }
    }
    return 0;
}
