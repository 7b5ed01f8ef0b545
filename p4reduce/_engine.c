// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce._engine: the software aggregator's data path in C (issue 11, point 2).
 *
 * A Core owns, per job, the member table (rank -> session, IPv4 address and port,
 * datagram pack limit), the job's failure, and the full state of its slots
 * (docs/protocol.md sections 3, 4, 6 and 6.2): round, shadow bit, epochs, the
 * allreduce's blocks and fingerprint, expected and seen bitmaps, every worker's
 * look-ahead key, the int64 sums, the RESULTs kept for re-sends, PENDING answers,
 * MISMATCH and OVERFLOW, and the stream / allreduce-done counts.
 *
 * It receives a batch of datagrams (recvmmsg), splits each into its packets
 * (several per datagram, spec section 1), handles the common ones -- DATA and QUERY
 * of a joined member, from its address, for a healthy job, in a served slot --
 * with the GIL released, packs the replies up to each destination's limit and sends
 * them (sendmmsg; with UDP GSO, each address's run of equal-size datagrams as one
 * UDP_SEGMENT message; a UDP_GRO buffer received is split back into its datagrams).
 * Everything else (JOIN, RESET, strangers, malformed or hostile
 * packets, failed jobs, jobs it does not hold such as hierarchical leaves, anything
 * from a parent aggregator) stops the loop: `run` returns that packet to the Python
 * engine (p4reduce.aggregator.native), which updates the tables here through methods
 * and resumes the loop. Packets are thus handled strictly in arrival order.
 *
 * The Python classes SlotState (slot.py) and AggregatorEngine (engine.py) are the
 * readable reference model of this file: tests/test_native_engine.py drives both with
 * the same random traffic and compares every reply byte for byte, the counters and
 * the final slot state. The functions carry their Python counterparts' names, so the two
 * read side by side: fast_packet is AggregatorEngine.handle and _dispatch (admitted,
 * count_handled, fail, error_reply), on_query/on_data/complete are SlotState's, and
 * complete's steps round_packet, publish and advance are _complete's (docs/architecture.md
 * has the table).
 *
 * The extension's files, one concern each (p4reduce/_engine.h holds what they share):
 * this one is the data path, the slots, the handling of a packet and the batch loop,
 * and the log of events; p4reduce/_engine_send.c the send queue (the arena, packing per
 * address, sendmmsg with UDP GSO); p4reduce/_engine_py.c the Python type Core (its job
 * tables, the receive batch: recvmmsg with UDP GRO, or load) and the module.
 */
#include "_engine.h"

/* ---------------------------------------------------------------------------
 * The log (drained by Core.events)
 */
void eng_log_event(Core *c, uint32_t kind, uint32_t job, uint32_t a, uint32_t b, uint32_t cc) {
    if (c->log_len >= 1u << 20) {
        return; /* nobody drains it: keep memory bounded */
    }
    if (grow((void **)&c->log, &c->log_cap, c->log_len + 1, sizeof(logevent_t))) {
        return;
    }
    c->log[c->log_len++] = (logevent_t){kind, job, a, b, cc};
}

/* ---------------------------------------------------------------------------
 * Slots (the model: p4reduce/aggregator/slot.py, SlotState)
 */
#define MAX_SPARE 64 /* result buffers a slot keeps for reuse */

void eng_free_slot(slot_t *s) {
    if (!s) {
        return;
    }
    for (uint32_t i = 0; i < s->hist_len; i++) {
        free(s->hist[i].payload);
    }
    for (uint32_t i = 0; i < s->spare_len; i++) {
        free(s->spare[i]);
    }
    free(s->hist);
    free(s->spare);
    free(s);
}

/* A buffer for one of the slot's results: a spare, or a new one. */
static uint8_t *result_buffer(slot_t *s, uint32_t block_size) {
    return s->spare_len ? s->spare[--s->spare_len] : malloc(HEADER_LEN + 4 * (size_t)block_size);
}

static void recycle(slot_t *s, uint8_t *payload) {
    if (s->spare_len < MAX_SPARE && !grow((void **)&s->spare, &s->spare_cap, s->spare_len + 1, sizeof(uint8_t *))) {
        s->spare[s->spare_len++] = payload;
    } else {
        free(payload);
    }
}

static slot_t *get_slot(job_t *job, uint32_t index) {
    slot_t *s = job->slots[index];
    if (s) {
        return s;
    }
    s = calloc(1, sizeof(slot_t) + (size_t)job->block_size * sizeof(int64_t));
    if (!s) {
        return NULL;
    }
    s->block = NONE_BLOCK;
    s->exp = EXP_BIAS;
    s->expected = job->all_workers;
    s->acc_empty = 1;
    for (int w = 0; w < MAX_WORKERS; w++) {
        s->keys[w] = s->own[w] = END_KEY;
    }
    s->first_key = END_KEY;
    s->hist_sorted = 1;
    job->slots[index] = s;
    return s;
}

/* SlotState.heard: a slot between allreduces that heard nothing for `horizon` seconds
 * forgets their epochs and kept results, so its next opening round is new whatever its epoch
 * (no epoch horizon: fewer than 2^31 allreduces fit in that time). */
static void clear_history(slot_t *s);
static void heard(slot_t *s, double now, double horizon, int keyed) {
    if (s->heard && now - s->heard > horizon && s->block == NONE_BLOCK && s->seen == 0) {
        clear_history(s);
        s->forgotten = s->epoch;
        s->has_forgotten = keyed && s->has_epoch;
        s->has_epoch = s->has_prev = 0;
    }
    s->heard = now;
}

/* A DATA of an opening round (each names its sender's own block). */
static inline int is_opening(const hdr_t *h) {
    return h->msg_type == T_DATA && (h->flags & F_OPENING);
}

/* An opening round takes only opening DATA; a data round the DATA (no OPENING) and QUERYs
 * of its block and epoch. */
static inline int is_current(slot_t *s, const hdr_t *h) {
    if (h->shadow != (s->round & 1)) {
        return 0;
    }
    if (s->block != NONE_BLOCK) {
        return !is_opening(h) && h->block == s->block && h->epoch == s->epoch;
    }
    if (!is_opening(h)) {
        return 0;
    }
    if (s->seen == 0) { /* the opening round adopts the epoch of its first packet, if newer */
        return s->has_epoch ? epoch_is_newer(h->epoch, s->epoch) : !s->has_forgotten || h->epoch != s->forgotten;
    }
    if (h->epoch != s->epoch) { /* a worker at another allreduce: counted, the RESULT says MISMATCH */
        return !s->has_prev || epoch_is_newer(h->epoch, s->prev_epoch);
    }
    return 1;
}

static stored_t *find_stored(slot_t *s, uint32_t epoch, uint32_t block) {
    if (!s->hist_len) {
        return NULL;
    }
    if (s->hist_sorted) { /* one epoch; NONE first, then blocks ascending */
        if (s->hist[0].epoch != epoch) {
            return NULL;
        }
        if (block == NONE_BLOCK) {
            return s->hist[0].block == NONE_BLOCK ? &s->hist[0] : NULL;
        }
        uint32_t lo = s->hist[0].block == NONE_BLOCK ? 1 : 0, hi = s->hist_len;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (s->hist[mid].block < block) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < s->hist_len && s->hist[lo].block == block ? &s->hist[lo] : NULL;
    }
    for (uint32_t i = s->hist_len; i-- > 0;) {
        if (s->hist[i].epoch == epoch && s->hist[i].block == block) {
            return &s->hist[i];
        }
    }
    return NULL;
}

/* history[(epoch, block)] = entry (a dict assignment: replaces an equal key in place) */
static int store_result(slot_t *s, stored_t e) {
    if (s->hist_len) {
        stored_t *last = &s->hist[s->hist_len - 1];
        int ascending = s->hist_sorted && e.epoch == s->hist[0].epoch && e.block != NONE_BLOCK &&
                        (last->block == NONE_BLOCK ? s->hist_len == 1 : e.block > last->block);
        if (!ascending) {
            stored_t *old = find_stored(s, e.epoch, e.block);
            if (old) {
                recycle(s, old->payload);
                *old = e;
                return 0;
            }
            s->hist_sorted = 0;
        }
    }
    if (grow((void **)&s->hist, &s->hist_cap, s->hist_len + 1, sizeof(stored_t))) {
        return -1;
    }
    s->hist[s->hist_len++] = e;
    return 0;
}

static void clear_history(slot_t *s) {
    for (uint32_t i = 0; i < s->hist_len; i++) {
        recycle(s, s->hist[i].payload);
    }
    s->hist_len = 0;
    s->hist_sorted = 1;
    if (s->hist_cap > 64) {
        free(s->hist);
        s->hist = NULL;
        s->hist_cap = 0;
    }
}

/* What a packet of `len` bytes takes on the wire for the job: its MAC too if the job is
 * authenticated (docs/protocol.md 6.3). */
static inline uint32_t sealed_len(const job_t *job, uint32_t len) {
    return len + (job->keyed ? MAC_LEN : 0);
}
/* The job's MAC after the `len` bytes written at p (room made by sealed_len). */
static inline void seal(const job_t *job, uint8_t *p, uint32_t len) {
    if (job->keyed) {
        mac_seal(job->key, p, len);
    }
}

/* A unicast of a `len`-byte packet (its MAC not counted) to member w of the job (the
 * server's `destination`), or drop_no_address. */
static uint8_t *to_member(Core *c, job_t *job, uint32_t w, uint32_t len) {
    member_t *m = &job->members[w];
    if (!m->present) {
        count(c, C_DROP_NO_ADDRESS, 1);
        return NULL;
    }
    return eng_out_packet(c, m->ip, m->port, (uint32_t)m->pack, sealed_len(job, len));
}

static uint32_t group_pack(job_t *job) {
    int32_t best = -1;
    for (uint32_t w = 0; w < job->n; w++) {
        if (job->members[w].present && (best < 0 || job->members[w].pack < best)) {
            best = job->members[w].pack;
        }
    }
    return best < 0 ? 0 : (uint32_t)best;
}

typedef struct {
    int event; /* counter index */
    uint32_t out_packets;
    uint64_t out_bytes;
    uint8_t fail_code; /* JobFailure raised */
    uint32_t fail_detail;
    uint8_t round_failed; /* a MISMATCH round completed */
    uint8_t stream_done;
} outcome_t;

static void pending(Core *c, job_t *job, slot_t *s, const hdr_t *h, int event, outcome_t *o) {
    o->event = event;
    o->out_packets = 1;
    o->out_bytes = sealed_len(job, HEADER_LEN);
    uint8_t *p = to_member(c, job, h->worker_id, HEADER_LEN);
    if (p) {
        const hdr_t r = {.version = PROTOCOL_VERSION,
                         .msg_type = T_PENDING,
                         .job_id = (uint16_t)job->job_id,
                         .worker_id = h->worker_id,
                         .shadow = h->shadow,
                         .slot = h->slot,
                         .epoch = h->epoch,
                         .block = h->block,
                         .next_block = s->expected & ~s->seen,
                         .exp = h->exp,
                         .session = h->session,
                         .blocks = h->blocks,
                         .fingerprint = h->fingerprint};
        hdr_emit(&r, p);
        seal(job, p, HEADER_LEN);
    }
}

/* StoredResult.for_worker: a SCATTER round's copies for others than the owner are
 * header-only (count 0); the rest carry the values. Returns the copy's length. */
static inline uint32_t copy_len(const stored_t *st, uint32_t w) {
    return st->owner != NO_OWNER && w != st->owner ? HEADER_LEN : st->len;
}
/* ... and each copy carries its receiver's session (the group's for ALL_WORKERS), the
 * one its worker checks (docs/protocol.md 6.1). */
static inline void copy_for(uint8_t *dst, const job_t *job, const stored_t *st, uint32_t w) {
    uint32_t len = copy_len(st, w);
    memcpy(dst, st->payload, len);
    dst[HDR_OFF_WORKER_ID] = (uint8_t)w;
    put32(dst + HDR_OFF_SESSION, w == ALL_WORKERS ? job->group_session : job->members[w].session);
    if (len != st->len) {
        put16(dst + HDR_OFF_COUNT, 0);
    }
    seal(job, dst, len);
}

static void resend(Core *c, job_t *job, slot_t *s, const hdr_t *h, outcome_t *o) {
    /* an opening round's result is kept under block NONE */
    stored_t *st = find_stored(s, h->epoch, is_opening(h) ? NONE_BLOCK : h->block);
    if (!st || st->shadow != h->shadow || st->fingerprint != h->fingerprint) {
        o->event = C_DROP_STALE;
        return;
    }
    o->event = C_RESENT;
    o->out_packets = 1;
    uint32_t len = copy_len(st, h->worker_id);
    o->out_bytes = sealed_len(job, len);
    uint8_t *p = to_member(c, job, h->worker_id, len);
    if (p) {
        copy_for(p, job, st, h->worker_id);
    }
}

/* Mirrors SlotState.opening_decision in p4reduce/aggregator/slot.py, for this slot's own K1
 * (docs/protocol.md 3): b* and e* from K1, each worker's announcement for the next round,
 * and whether the RESULT carries the sums. complete takes the look-ahead (the smallest key)
 * after it, as after a data round. */
static void opening_decision(job_t *job, slot_t *s, uint32_t *block, uint8_t *exp, uint8_t *bits, uint32_t *cnt) {
    *block = (uint32_t)(s->first_key >> 8);
    *exp = (uint8_t)(255 - (s->first_key & 0xFF));
    *bits = s->first_bits; /* the owner of b* */
    /* A REPEAT: every worker announces its own key again (the holders of b* are the next
     * round's, at e*, and the minimum is K1). Else the round was the data round of b*: its
     * holders announce their next block, the others their own block still. */
    for (uint32_t w = 0; w < job->n; w++) {
        if (s->repeat || (uint32_t)(s->own[w] >> 8) != *block) {
            s->keys[w] = s->own[w];
        }
    }
    *cnt = s->repeat || *block == NONE_BLOCK ? 0 : job->block_size;
}

/* Mirrors SlotState._advance in p4reduce/aggregator/slot.py: the slot moves to the round
 * after the one just published. The round after an opening round expects every worker, in
 * sparse mode too: a worker takes an opening round's RESULT whatever block it names, so
 * the stream must not reach this shadow copy again before every worker has left the
 * opening round (docs/protocol.md 4). */
static void advance(job_t *job, slot_t *s, uint32_t next_block, uint8_t next_exp) {
    const int after_opening = s->block == NONE_BLOCK;
    s->round++;
    s->seen = 0;
    s->scatter = 0;
    s->acc_empty = 1;
    s->block = next_block;
    if (next_block == NONE_BLOCK) { /* the stream ended: the next round opens the next allreduce */
        s->exp = EXP_BIAS;
        s->expected = job->all_workers;
        return;
    }
    s->exp = next_exp;
    if (job->dense || after_opening) {
        s->expected = job->all_workers;
    } else {
        uint32_t e2 = 0;
        for (uint32_t w = 0; w < job->n; w++) {
            if ((uint32_t)(s->keys[w] >> 8) == next_block) {
                e2 |= 1u << w;
            }
        }
        s->expected = e2;
    }
}

/* Mirrors SlotState._round_packet in p4reduce/aggregator/slot.py: header r followed by the
 * round's sums (none when its count is 0), in one of the slot's result buffers; NULL when
 * there is no memory for it. Sums wrap to int32 like the switch's; r gains OVERFLOW to
 * tell the workers. */
static uint8_t *round_packet(slot_t *s, uint32_t block_size, hdr_t *r) {
    uint8_t *result = result_buffer(s, block_size);
    if (!result) {
        return NULL;
    }
    const uint32_t cnt = r->count;
    if (cnt) {
        if (s->acc_empty) {
            memset(s->acc, 0, cnt * sizeof(int64_t));
        }
        if (write_sums((const char *)s->acc, (Py_ssize_t)cnt, (char *)result + HEADER_LEN, 1)) {
            r->flags |= F_OVERFLOW;
        }
    }
    hdr_emit(r, result);
    return result;
}

/* Mirrors SlotState._publish in p4reduce/aggregator/slot.py: keep the round's RESULT (`result`,
 * whose header is r) for re-sends, an opening round's under block NONE; a copy to every
 * worker (multicast: one to the group, and a SCATTER round's values to their owner alone);
 * advance. */
static void publish(Core *c, job_t *job, slot_t *s, uint8_t *result, const hdr_t *r, outcome_t *o) {
    const uint32_t len = HEADER_LEN + 4 * (uint32_t)r->count;
    const uint8_t owner = r->count && (r->flags & F_SCATTER) ? r->flags >> OWNER_SHIFT : NO_OWNER;
    if (s->block == NONE_BLOCK) {
        clear_history(s); /* everyone has started this allreduce */
    }
    stored_t e = {s->epoch, s->block, s->fingerprint, len, (uint8_t)(s->round & 1), owner, result};
    if (store_result(s, e)) {
        recycle(s, result);
        result = NULL;
        c->nomem = 1;
    }
    const stored_t *st = result ? &s->hist[s->hist_len - 1] : NULL;
    if (st && (st->block != e.block || st->epoch != e.epoch)) {
        st = find_stored(s, e.epoch, e.block);
    }
    o->event = C_COMPLETED;
    if (job->multicast) {
        o->out_packets = 0;
        o->out_bytes = 0;
        if (owner != NO_OWNER) { /* the values by unicast to their owner */
            o->out_packets++;
            o->out_bytes += sealed_len(job, len);
            uint8_t *p = st ? to_member(c, job, owner, len) : NULL;
            if (p) {
                copy_for(p, job, st, owner);
            }
        }
        uint32_t glen = owner != NO_OWNER ? HEADER_LEN : len; /* one copy to the group */
        o->out_packets++;
        o->out_bytes += sealed_len(job, glen);
        uint8_t *p =
            st ? eng_out_packet(c, job->group_ip, job->group_port, group_pack(job), sealed_len(job, glen)) : NULL;
        if (p) {
            copy_for(p, job, st, ALL_WORKERS);
        }
    } else {
        o->out_packets = job->n;
        o->out_bytes = 0;
        for (uint32_t w = 0; w < job->n; w++) {
            uint32_t wlen = st ? copy_len(st, w) : len;
            o->out_bytes += sealed_len(job, wlen);
            uint8_t *p = st ? to_member(c, job, w, wlen) : NULL;
            if (p) {
                copy_for(p, job, st, w);
            }
        }
    }
    advance(job, s, r->next_block, r->next_exp);
}

/* Mirrors SlotState._complete in p4reduce/aggregator/slot.py: the round's RESULT, decided
 * here (an opening round's with opening_decision), built by round_packet and sent by
 * publish. Like the switch's, it repeats the epoch, blocks, fingerprint and SCATTER/owner
 * bits of the packet that completed the round; MISMATCH if packets disagreed. */
static void complete(Core *c, job_t *job, slot_t *s, const hdr_t *last, outcome_t *o) {
    uint32_t block = s->block, cnt = job->block_size;
    uint8_t exp = s->exp;
    uint8_t flags = last->flags & F_SCATTER ? last->flags & SCATTER_MASK : 0;
    if (s->block == NONE_BLOCK) {
        opening_decision(job, s, &block, &exp, &flags, &cnt);
    }
    uint64_t key = s->keys[0];
    for (uint32_t w = 1; w < job->n; w++) {
        if (s->keys[w] < key) {
            key = s->keys[w];
        }
    }
    if (s->mismatch_code) {
        flags |= F_MISMATCH;
        o->round_failed = 1;
        o->fail_code = s->mismatch_code;
        o->fail_detail = s->mismatch_detail;
    }
    hdr_t r = {.version = PROTOCOL_VERSION,
               .msg_type = T_RESULT,
               .job_id = (uint16_t)job->job_id,
               .worker_id = job->multicast ? ALL_WORKERS : 0,
               .flags = flags,
               .shadow = (uint8_t)(s->round & 1),
               .slot = last->slot,
               .epoch = last->epoch,
               .block = block,
               .next_block = (uint32_t)(key >> 8),
               .exp = exp,
               .next_exp = (uint8_t)(255 - (key & 0xFF)),
               .count = (uint16_t)cnt,
               .session = last->session,
               .blocks = last->blocks,
               .fingerprint = last->fingerprint};
    uint8_t *result = round_packet(s, job->block_size, &r);
    if (!result) {
        c->nomem = 1;
        o->event = C_COMPLETED;
        return;
    }
    publish(c, job, s, result, &r, o);
}

/* Mirrors SlotState._add_values in p4reduce/aggregator/slot.py: a packet's values into the round's
 * sums (int64), copied while acc_empty (set it to overwrite them), else added. */
static void add_values(slot_t *s, const uint8_t *values, uint32_t count) {
    if (!values) {
        return;
    }
    accumulate((const char *)values, 1, (Py_ssize_t)count, (char *)s->acc, s->acc_empty);
    s->acc_empty = 0;
}

/* Mirrors SlotState._count_opening in p4reduce/aggregator/slot.py: an opening
 * DATA counted (docs/protocol.md 3, the table): K1, the repeat bit and the sums follow how
 * its own key compares with K1 before it; its own and next keys are kept. */
static void count_opening(slot_t *s, const hdr_t *h, const uint8_t *values, uint8_t bits) {
    uint64_t own = lookahead_key(h->block, h->exp);
    uint8_t marker = !values && h->block != NONE_BLOCK; /* header-only about a block: h */
    uint32_t first = (uint32_t)(s->first_key >> 8);
    int take = 0; /* its values: 0 ignored, 1 added, 2 overwrite the sums */
    if (s->seen == 0 || h->block < first) {
        take = 2;
        s->repeat = marker;
    } else if (h->block == first) {
        take = own == s->first_key ? 1 : own < s->first_key ? 2 : 0;
        if (own != s->first_key || marker) {
            s->repeat = 1;
        }
    }
    if (take == 2) {
        s->first_key = own;
        s->first_bits = bits;
        s->acc_empty = 1; /* a header-only packet overwrites them with nothing */
    }
    if (take) {
        add_values(s, values, h->count);
    }
    s->own[h->worker_id] = own;
}

/* Mirrors SlotState.on_data in p4reduce/aggregator/slot.py, its _check_allreduce,
 * _check_lookahead and _check_scatter inline, in that order; *o says what happened. */
static void on_data(Core *c, job_t *job, slot_t *s, const hdr_t *h, const uint8_t *values, outcome_t *o) {
    if (!is_current(s, h)) {
        resend(c, job, s, h, o);
        return;
    }
    int opening = s->block == NONE_BLOCK;
    uint32_t bit = 1u << h->worker_id;
    if (!(s->expected & bit)) {
        o->event = C_DROP_UNEXPECTED;
        return;
    }
    if (s->seen & bit) {
        pending(c, job, s, h, C_DROP_DUPLICATE, o);
        return;
    }
    /* an opening DATA carries its sender's own exponent; a data round's the agreed one */
    if (!opening && h->exp != s->exp) {
        o->event = C_DROP_BAD_EXP;
        return;
    }
    if (opening && h->block == NONE_BLOCK && h->count) {
        o->event = C_DROP_BAD_COUNT;
        return;
    }
    uint32_t stream = h->slot - job->slot_base;
    /* the allreduce's epoch, tensor and fingerprint: adopted or compared */
    if (s->seen == 0 && opening) {
        s->blocks = h->blocks;
        s->fingerprint = h->fingerprint;
        s->mismatch_code = 0;
        if (h->blocks > job->max_blocks) {
            o->fail_code = E_TOO_LARGE;
            o->fail_detail = h->worker_id;
            return;
        }
        if (stream >= h->blocks) {
            o->fail_code = E_BAD_BLOCKS;
            o->fail_detail = h->worker_id;
            return;
        }
    } else {
        uint8_t problem = 0;
        if (h->epoch != s->epoch) {
            problem = E_SEQUENCE;
        } else if (h->blocks != s->blocks || h->fingerprint != s->fingerprint) {
            problem = E_TENSOR;
        }
        if (problem) { /* everyone agreed in the opening round: a worker changed mid-way */
            if (!opening) {
                o->fail_code = problem;
                o->fail_detail = h->worker_id;
                return;
            }
            if (!s->mismatch_code) {
                s->mismatch_code = problem;
                s->mismatch_detail = h->worker_id;
            }
        }
    }
    /* an opening DATA's own block and every look-ahead stay in the stream and inside the
     * tensor; the look-ahead moves forward (past the packet's block: an opening DATA of
     * block NONE announces NONE) */
    uint32_t nxt = h->next_block;
    if ((opening && h->block != NONE_BLOCK && (h->block >= h->blocks || h->block % job->num_slots != stream)) ||
        (nxt != NONE_BLOCK && (nxt >= h->blocks || nxt % job->num_slots != stream || nxt <= h->block))) {
        o->fail_code = E_BAD_BLOCKS;
        o->fail_detail = h->worker_id;
        return;
    }
    /* every DATA of a data round names the same owner (or none), like a fingerprint; an
     * opening round's only agree on SCATTER (each names its own block's owner) */
    uint8_t bits = h->flags & F_SCATTER ? h->flags & SCATTER_MASK : 0;
    if (bits && (uint32_t)(h->flags >> OWNER_SHIFT) >= job->n) {
        o->fail_code = E_BAD_BLOCKS;
        o->fail_detail = h->worker_id;
        return;
    }
    uint8_t agreed = opening ? bits & F_SCATTER : bits;
    if (s->seen == 0) {
        s->scatter = agreed;
    } else if (agreed != s->scatter && !s->mismatch_code) {
        s->mismatch_code = E_TENSOR;
        s->mismatch_detail = h->worker_id;
    }
    if (opening) {
        count_opening(s, h, values, bits);
    } else {
        add_values(s, values, h->count); /* the first values of the round overwrite the sums */
    }
    if (s->seen == 0) {
        if (opening) {
            s->prev_epoch = s->epoch;
            s->has_prev = s->has_epoch;
        }
        s->epoch = h->epoch;
        s->has_epoch = 1;
    }
    s->keys[h->worker_id] = lookahead_key(h->next_block, h->next_exp);
    s->seen |= bit;
    if (s->seen != s->expected) {
        o->event = C_COUNTED;
        return;
    }
    complete(c, job, s, h, o);
}

/* engine.py's JobState.stream_ended: True when the allreduce's last stream (of this shard) ended */
static int stream_ended(job_t *job, uint32_t epoch, uint32_t blocks) {
    uint32_t i = 0;
    while (i < job->sd_len && job->sd_epoch[i] != epoch) {
        i++;
    }
    if (i == job->sd_len) {
        job->sd_epoch[i] = epoch;
        job->sd_count[i] = 0;
        job->sd_len++;
    }
    uint32_t done = ++job->sd_count[i];
    uint32_t used = job->num_slots < blocks ? job->num_slots : blocks;
    int64_t want = ((int64_t)used - job->shard_index + job->shard_count - 1) / job->shard_count;
    if (want < 0) {
        want = 0;
    }
    if ((int64_t)done < want) {
        while (job->sd_len > STREAMS_DONE_KEPT) {
            memmove(job->sd_epoch, job->sd_epoch + 1, (job->sd_len - 1) * sizeof(uint32_t));
            memmove(job->sd_count, job->sd_count + 1, (job->sd_len - 1) * sizeof(uint32_t));
            job->sd_len--;
        }
        return 0;
    }
    memmove(job->sd_epoch + i, job->sd_epoch + i + 1, (job->sd_len - i - 1) * sizeof(uint32_t));
    memmove(job->sd_count + i, job->sd_count + i + 1, (job->sd_len - i - 1) * sizeof(uint32_t));
    job->sd_len--;
    return 1;
}

static inline int from_upstream(Core *c, uint32_t ip, uint16_t port) {
    for (Py_ssize_t i = 0; i < c->n_up; i++) {
        if (c->up_ip[i] == ip && c->up_port[i] == port) {
            return 1;
        }
    }
    return 0;
}

/* The checks of AggregatorEngine._dispatch (p4reduce/aggregator/engine.py) before a slot
 * gets the packet, for what this loop takes: a DATA or QUERY for a served slot of a healthy
 * job held here, not from a parent aggregator, from its member's address with its session.
 * Returns that member (*h parsed, *job set), or NULL: the packet is for Python. */
static member_t *admitted(Core *c, const uint8_t *p, uint32_t len, uint32_t ip, uint16_t port, hdr_t *h,
                          job_t **job_out) {
    if (len < HEADER_LEN) {
        return NULL;
    }
    hdr_parse(p, h);
    if ((h->version & ~VERSION_AUTH) != PROTOCOL_VERSION || (h->msg_type != T_DATA && h->msg_type != T_QUERY)) {
        return NULL;
    }
    job_t *job = c->jobs[h->job_id];
    if (!job) {
        return NULL;
    }
    /* an authenticated job's packets sealed with a valid MAC, any other job's not sealed */
    if (job->keyed ? !mac_ok(job->key, p, len) : (h->version & VERSION_AUTH) != 0) {
        return NULL;
    }
    if (h->worker_id >= job->n) {
        return NULL;
    }
    if (h->count && (h->count != job->block_size || h->msg_type != T_DATA)) {
        return NULL;
    }
    if (h->slot < job->slot_base || h->slot - job->slot_base >= job->num_slots) {
        return NULL;
    }
    member_t *m = &job->members[h->worker_id];
    if (!m->present || m->session != h->session || m->ip != ip || m->port != port) {
        return NULL;
    }
    if ((h->slot - job->slot_base) % job->shard_count != job->shard_index) {
        return NULL;
    }
    if (job->failed || (c->n_up && from_upstream(c, ip, port))) {
        return NULL;
    }
    *job_out = job;
    return m;
}

/* Mirrors SlotState.on_query in p4reduce/aggregator/slot.py: a QUERY of the current round
 * gets PENDING, one of a round done the kept RESULT. */
static void on_query(Core *c, job_t *job, slot_t *s, const hdr_t *h, outcome_t *o) {
    if (is_current(s, h)) {
        pending(c, job, s, h, C_DROP_PENDING, o);
    } else {
        resend(c, job, s, h, o);
    }
}

/* Mirrors AggregatorEngine._fail in p4reduce/aggregator/engine.py: the job fails (the first
 * cause wins), counted in jobs_failed and logged. */
static void fail(Core *c, job_t *job, uint8_t code, uint32_t detail) {
    if (!job->failed) {
        job->failed = 1;
        job->fail_code = code;
        job->fail_detail = detail;
    }
    count(c, C_JOBS_FAILED, 1);
    eng_log_event(c, L_FAILED, job->job_id, job->fail_code, job->fail_detail, 0);
}

/* Mirrors AggregatorEngine._error in p4reduce/aggregator/engine.py for a packet that failed
 * the job: the sender gets an ERROR naming the job's failure, and the packet counts as
 * "failed" (a drop of the job). */
static void error_reply(Core *c, job_t *job, const hdr_t *h, uint32_t ip, uint16_t port) {
    /* One ERROR per datagram (p4reduce/aggregator/replies.py): Python's answers to the
     * same datagram are refused, and this one if Python answered it already. */
    uint8_t *e = NULL;
    if (c->answered == c->datagram_seq) {
        count(c, C_ANSWERS_LIMITED, 1);
    } else {
        e = eng_out_packet(c, ip, port, 0, sealed_len(job, HEADER_LEN));
    }
    c->answered = c->datagram_seq;
    if (e) {
        const hdr_t r = {.version = PROTOCOL_VERSION,
                         .msg_type = T_ERROR,
                         .job_id = (uint16_t)job->job_id,
                         .worker_id = h->worker_id,
                         .shadow = h->shadow,
                         .slot = h->slot,
                         .epoch = h->epoch,
                         .block = job->fail_code,
                         .next_block = job->fail_detail,
                         .exp = h->exp,
                         .next_exp = h->next_exp,
                         .session = h->session,
                         .blocks = h->blocks,
                         .fingerprint = h->fingerprint};
        hdr_emit(&r, e);
        seal(job, e, HEADER_LEN);
    }
    count(c, C_FAILED, 1);
    job_count(job, JOB_EV_DROPS); /* refused: it failed the job */
    count(c, C_PACKETS_OUT, 1);
    count(c, C_BYTES_OUT, sealed_len(job, HEADER_LEN));
}

/* What AggregatorEngine.handle counts for a packet a slot handled (_job_cells its job's
 * cells), and what _dispatch then notes of its member: the newest epoch it took. */
static void count_handled(Core *c, job_t *job, member_t *m, const hdr_t *h, const outcome_t *o, uint32_t ip,
                          uint16_t port) {
    count(c, o->event, 1);
    int cell = job_cell(o->event);
    if (cell >= 0) {
        job_count(job, cell);
    }
    if (o->out_packets) {
        count(c, C_PACKETS_OUT, o->out_packets);
        count(c, C_BYTES_OUT, o->out_bytes);
    }
    if (o->event == C_COUNTED || o->event == C_COMPLETED) {
        job->started = 1;
        if (!m->has_newest || epoch_is_newer(h->epoch, m->newest)) {
            m->newest = h->epoch;
            m->has_newest = 1;
        }
    }
    if (c->debug && o->event >= C_DROP_STALE && o->event <= C_DROP_BAD_COUNT) {
        eng_log_event(c, L_DROP, ip, port, (uint32_t)o->event, 0);
    }
}

/* One packet (exactly HEADER_LEN + 4*count bytes). 1: handled here; 0: for Python.
 * AggregatorEngine.handle and _dispatch, for exactly what _dispatch hands to a slot of a
 * non-relay job: admitted, the slot's on_query or on_data, then fail and error_reply, or
 * count_handled and the stream's end (_stream_ended). */
static int fast_packet(Core *c, const uint8_t *p, uint32_t len, uint32_t ip, uint16_t port) {
    hdr_t h;
    job_t *job = NULL;
    member_t *m = admitted(c, p, len, ip, port, &h, &job);
    if (!m) {
        return 0;
    }
    if (job->keyed && m->has_newest && epoch_is_newer(m->newest, h.epoch)) {
        /* sealed, but of an allreduce this session has left behind: a replay */
        count(c, C_PACKETS_IN, 1);
        count(c, C_BYTES_IN, len);
        job_count(job, JOB_EV_PACKETS);
        count(c, C_DROP_REPLAY, 1);
        job_count(job, JOB_EV_DROPS);
        if (c->debug) {
            eng_log_event(c, L_DROP, ip, port, C_DROP_REPLAY, 0);
        }
        return 1;
    }
    slot_t *s = get_slot(job, h.slot - job->slot_base);
    if (!s) {
        return 0; /* out of memory: Python's path will fail loudly */
    }
    heard(s, c->now, c->idle_horizon, job->keyed);

    outcome_t o = {0};
    if (h.msg_type == T_QUERY) {
        on_query(c, job, s, &h, &o);
    } else {
        on_data(c, job, s, &h, h.count ? p + HEADER_LEN : NULL, &o);
    }
    count(c, C_PACKETS_IN, 1);
    count(c, C_BYTES_IN, len);
    job_count(job, JOB_EV_PACKETS);
    if (o.fail_code && !o.round_failed) { /* JobFailure: the job fails; the sender gets an ERROR */
        fail(c, job, o.fail_code, o.fail_detail);
        error_reply(c, job, &h, ip, port);
        return 1;
    }
    count_handled(c, job, m, &h, &o, ip, port);
    if (o.round_failed) { /* the MISMATCH RESULT went to everyone: now fail the job */
        fail(c, job, o.fail_code, o.fail_detail);
        return 1;
    }
    if (o.event == C_COMPLETED && s->block == NONE_BLOCK) { /* _stream_ended */
        count(c, C_STREAMS_COMPLETED, 1);
        if (c->debug) {
            eng_log_event(c, L_STREAM, job->job_id, h.slot, h.epoch, 0);
        }
        if (stream_ended(job, h.epoch, s->blocks)) {
            count(c, C_ALLREDUCES_COMPLETED, 1);
            eng_log_event(c, L_ALLREDUCE, job->job_id, h.epoch, 0, 0);
        }
    }
    return 1;
}

/* ---------------------------------------------------------------------------
 * The batch loop
 */
/* Handles the batch from the cursor on. Returns 1 with *slow set when a packet is for
 * Python (the cursor is past it), 0 when the batch is done (replies flushed). */
static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* what time.monotonic() reads on Linux */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int eng_process(Core *c, int fd, slow_t *slow) {
    c->now = monotonic();
    while (c->cur < c->rn) {
        /* A GRO buffer holds datagrams of rseg bytes, the last one possibly shorter:
         * each is handled as if it had come alone. */
        uint32_t total = c->rlen[c->cur], seg = c->rseg[c->cur];
        const uint8_t *d = c->rbuf + (size_t)c->cur * RECV_BUF + c->seg_off;
        uint32_t dlen = total - c->seg_off, ip = c->rip[c->cur];
        if (seg && dlen > seg) {
            dlen = seg;
        }
        uint16_t port = c->rport[c->cur];
        if (c->phase == 0) {
            c->datagram_seq++;
            uint32_t off = 0, npk = 0;
            while (dlen - off >= HEADER_LEN) {
                uint32_t end = off + (uint32_t)packet_len(d + off);
                if (end > dlen) {
                    break;
                }
                off = end;
                npk++;
            }
            c->good_end = off;
            c->off = 0;
            c->phase = 1;
            if (off < dlen || npk == 0) { /* a tail that is no whole packet, or an empty datagram */
                *slow = (slow_t){d + off, dlen - off, ip, port, c->datagram_seq};
                return 1;
            }
        }
        while (c->off < c->good_end) {
            const uint8_t *p = d + c->off;
            uint32_t plen = (uint32_t)packet_len(p);
            c->off += plen;
            if (!fast_packet(c, p, plen, ip, port)) {
                *slow = (slow_t){p, plen, ip, port, c->datagram_seq};
                return 1;
            }
        }
        if (c->seg_off + dlen < total) {
            c->seg_off += dlen;
        } else {
            c->cur++;
            c->seg_off = 0;
        }
        c->phase = 0;
        if (c->queued_bytes >= FLUSH_BYTES) {
            eng_flush(c, fd);
        }
    }
    eng_flush(c, fd);
    return 0;
}
