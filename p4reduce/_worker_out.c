// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_worker_out.c (in p4reduce._worker): the outgoing datagrams of a Run. Per
 * aggregator endpoint a queue of datagrams, each stream's packets packed into it up to
 * the endpoint's agreed size (BatchSender.add); a flush hands it to the kernel with
 * sendmmsg, with UDP GSO each run of equal-size datagrams as one UDP_SEGMENT message
 * (one by one again, for good, once the kernel refuses one), or for transports "packet"
 * and "xdp" into the endpoint's TX ring (p4reduce/_ring.h). wk_emit builds a stream's
 * DATA or QUERY (its block quantized straight into the queue). The state machine that
 * decides what to send is p4reduce/_worker.c; what the files share is p4reduce/_worker.h.
 */
#include "_worker.h"

/* ---------------------------------------------------------------------------
 * Outgoing datagrams
 */

/* realloc(*p) to n items of `size` bytes; -1 (*p kept) without memory. */
static int resize(void **p, size_t n, size_t size) {
    void *q = realloc(*p, n * size);
    if (!q) {
        return -1;
    }
    *p = q;
    return 0;
}

/* Room for a message per queued datagram, the most a flush needs. */
static int out_room(out_t *o) {
    if (o->mcap >= o->ndgrams) {
        return 0;
    }
    const size_t n = o->ndgrams * 2;
    if (resize((void **)&o->msgs, n, sizeof *o->msgs) || resize((void **)&o->iov, n, sizeof *o->iov) ||
        resize((void **)&o->gmsgs, n, sizeof *o->gmsgs) || resize((void **)&o->ctl, n, SCTL_LEN)) {
        return -1;
    }
    o->mcap = n;
    return 0;
}

/* Groups the queue into sendmmsg messages; returns how many. Without GSO each datagram is
 * one. With GSO a datagram joins the message before it while that stays a UDP_SEGMENT
 * buffer the kernel takes: every segment of the first one's size but a shorter last, at
 * most GSO_MAX_SEGS segments and GSO_MAX_BYTES bytes (so the size fits the cmsg's 16 bits). */
static size_t group_messages(out_t *o) {
    size_t nm = 0, bytes = 0;
    for (size_t i = 0; i < o->ndgrams; i++) {
        const size_t len = o->dgrams[i].len;
        if (nm && o->gso) {
            gmsg_t *g = &o->gmsgs[nm - 1];
            const size_t seg = o->dgrams[g->first].len;
            if (o->dgrams[i - 1].len == seg && len <= seg && g->nseg < GSO_MAX_SEGS && bytes + len <= GSO_MAX_BYTES) {
                g->nseg++;
                bytes += len;
                continue;
            }
        }
        o->gmsgs[nm++] = (gmsg_t){i, 1};
        bytes = len;
    }
    return nm;
}

/* Message m's header: one buffer (out_reserve appends datagrams back to back), with a
 * UDP_SEGMENT cmsg naming its first datagram's size when it holds several. */
static void build_message(out_t *o, size_t m) {
    const gmsg_t *g = &o->gmsgs[m];
    const dgram_t *first = &o->dgrams[g->first], *last = &o->dgrams[g->first + g->nseg - 1];
    struct msghdr *h = &o->msgs[m].msg_hdr;
    memset(&o->msgs[m], 0, sizeof o->msgs[m]);
    o->iov[m].iov_base = o->buf + first->start;
    o->iov[m].iov_len = last->start + last->len - first->start;
    h->msg_iov = &o->iov[m];
    h->msg_iovlen = 1;
    if (g->nseg > 1) {
        udp_set_segment(h, o->ctl + m * SCTL_LEN, (uint16_t)first->len);
    }
}

/* Message m's datagrams one by one (the kernel would not segment it); refused ones are
 * dropped, as in the batch. */
static void send_each(RunObject *r, out_t *o, size_t m) {
    const gmsg_t *g = &o->gmsgs[m];
    for (size_t i = g->first; i < g->first + g->nseg; i++) {
        ssize_t n;
        do {
            n = send(o->fd, o->buf + o->dgrams[i].start, o->dgrams[i].len, 0);
        } while (n < 0 && errno == EINTR);
    }
    r->gso_fallbacks++;
}

static void count_gso(RunObject *r, const out_t *o, size_t from, size_t to) {
    for (size_t m = from; m < to; m++) {
        if (o->gmsgs[m].nseg > 1) {
            r->gso_sends++;
            r->gso_segments += o->gmsgs[m].nseg;
        }
    }
}

/* Transport "packet": each queued datagram into a TX frame of the endpoint's ring, then one
 * kick. A datagram finding the ring full (after a wait for the frames in flight) is dropped,
 * as a full socket buffer drops it: the timers cover it. */
static int ring_flush(RunObject *r, out_t *o) {
    PyObject *ring = o->ring.obj;
    const ring_ops_t *ops = o->ring.ops;
    int rc = 0;
    if (ops->usable(ring)) {
        const size_t max = ops->max_payload(ring);
        for (size_t i = 0; i < o->ndgrams; i++) {
            const dgram_t *d = &o->dgrams[i];
            if (d->len > max) { /* JOIN's message size keeps datagrams below it */
                r->err = ERR_VALUE;
                snprintf(
                    r->err_msg, sizeof r->err_msg,
                    "a %zu-byte datagram exceeds the %zu bytes a frame of transport '%s' carries (the MTU less 28)",
                    d->len, max, ops->transport);
                rc = -1;
                break;
            }
            unsigned char *p = ops->tx_frame(ring);
            if (p) {
                memcpy(p, o->buf + d->start, d->len);
                ops->tx_commit(ring, d->len);
            }
        }
        ops->kick(ring, 0);
    }
    o->used = 0;
    o->ndgrams = 0;
    return rc;
}

/* A datagram is leaving: from now on a NaN the scan finds cannot stop what was announced
 * (p4reduce/_worker_scan.c). */
void wk_note_sent(RunObject *r) {
    if (!r->sent_any) {
        r->sent_any = 1;
        r->scanned_at_send = r->scanned;
    }
}

static int out_flush(RunObject *r, out_t *o) {
    if (o->fd < 0 || !o->ndgrams) {
        return 0;
    }
    wk_note_sent(r);
    if (o->ring.obj) {
        return ring_flush(r, o);
    }
    if (out_room(o) < 0) {
        return -1;
    }
    const size_t nm = group_messages(o);
    for (size_t m = 0; m < nm; m++) {
        build_message(o, m);
    }
    size_t done = 0;
    while (done < nm) {
        const int segmented = o->gmsgs[done].nseg > 1;
        if (segmented && !o->gso) { /* grouped before the kernel refused one this flush */
            send_each(r, o, done++);
            continue;
        }
        const int sent = sendmmsg(o->fd, o->msgs + done, (unsigned)(nm - done), 0);
        if (sent > 0) {
            count_gso(r, o, done, done + (size_t)sent);
            done += (size_t)sent;
            continue;
        }
        const int err = sent < 0 ? errno : 0;
        if (err == EINTR) {
            continue;
        }
        if (segmented && udp_gso_refused(err)) {
            o->gso = 0; /* for good: the next flushes would fail the same way */
            if (!r->gso_errno) {
                r->gso_errno = err;
            }
            send_each(r, o, done);
        }
        /* Else a refused message (full buffer, aggregator not up yet) is skipped: the
         * retransmission timers cover its datagrams, as BatchSender.flush does. */
        done++;
    }
    o->used = 0;
    o->ndgrams = 0;
    return 0;
}

/* Room for a `size`-byte packet at the end of the endpoint's queue: appended to
 * the datagram being filled while it stays within the agreed size (the packing
 * rule of BatchSender.add), else a new datagram. NULL when out of memory. */
static unsigned char *out_reserve(out_t *o, size_t size) {
    if (o->used + size > o->cap) {
        size_t cap = o->cap * 2 > o->used + size ? o->cap * 2 : o->used + size;
        char *b = realloc(o->buf, cap);
        if (!b) {
            return NULL;
        }
        o->buf = b;
        o->cap = cap;
    }
    if (o->limit && o->ndgrams && o->dgrams[o->ndgrams - 1].len + size <= o->limit) {
        o->dgrams[o->ndgrams - 1].len += size;
    } else {
        if (o->ndgrams == o->dcap) {
            size_t n = o->dcap ? o->dcap * 2 : 64;
            dgram_t *d = realloc(o->dgrams, n * sizeof *d);
            if (!d) {
                return NULL;
            }
            o->dgrams = d;
            o->dcap = n;
        }
        o->dgrams[o->ndgrams].start = o->used;
        o->dgrams[o->ndgrams].len = size;
        o->ndgrams++;
    }
    unsigned char *p = (unsigned char *)o->buf + o->used;
    o->used += size;
    return p;
}

/* Queue stream s's packet of kind `kind` (Stream._header plus, for P_VALUES, its
 * block quantized at the round's exponent, a cut last block zero-padded). In the opening
 * round: flagged OPENING, its own first block at its own exponent, the look-ahead the block
 * after it. */
int wk_emit(RunObject *r, stream_t *s, int kind) {
    const size_t count = kind == P_VALUES ? r->block_size : 0;
    const size_t size = HEADER_LEN + 4 * count + (r->keyed ? MAC_LEN : 0);
    unsigned flags = s->opening && kind != P_QUERY ? F_OPENING : 0;
    if (r->shard_blocks && kind != P_QUERY) { /* Stream._header: SCATTER and the owner */
        const uint32_t owner = s->block == NONE_BLOCK ? 0 : s->block / r->shard_blocks;
        if (owner >= MAX_WORKERS) {
            r->err = ERR_VALUE;
            snprintf(r->err_msg, sizeof r->err_msg, "owner %u outside 0..%d", owner, MAX_WORKERS - 1);
            return -1;
        }
        flags |= F_SCATTER | owner << OWNER_SHIFT;
    }
    /* (first: finding it may scan on, which flushes the queue) */
    const uint32_t nxt = s->opening ? s->first_next : mine(r, s);
    if (r->err != ERR_NONE) {
        return -1;
    }
    out_t *o = &r->outs[s->endpoint];
    unsigned char *p = out_reserve(o, size);
    if (!p) {
        r->err = ERR_MEMORY;
        return -1;
    }
    const hdr_t h = {
        .version = PROTOCOL_VERSION,
        .msg_type = kind == P_QUERY ? T_QUERY : T_DATA,
        .job_id = (uint16_t)r->job_id,
        .worker_id = (uint8_t)r->worker_id,
        .flags = (uint8_t)flags,
        .shadow = (uint8_t)(s->round & 1),
        .slot = (uint16_t)s->slot,
        .epoch = r->epoch,
        .block = s->block,
        .next_block = nxt,
        .exp = s->exp,
        .next_exp = nxt == NONE_BLOCK ? 0 : ((const uint8_t *)r->exps.buf)[nxt],
        .count = (uint16_t)count,
        .session = o->session,
        .blocks = r->blocks_field,
        .fingerprint = s->poisoned && kind != P_QUERY ? r->fingerprint ^ POISON : r->fingerprint,
    };
    hdr_emit(&h, p);
    if (count) {
        const uint32_t b = s->block;
        const size_t n = block_len(r, b);
        const char *src = (const char *)r->tensor.buf + 4 * (size_t)b * r->block_size;
        char *dst = (char *)p + HEADER_LEN;
        if (r->poisoned && (int64_t)b == r->nonfinite / r->block_size) {
            memset(dst, 0, 4 * n); /* the NaN/Inf block: its round fails anyway */
        } else if (r->is_float) {
            quantize_f32(src, (Py_ssize_t)n, shift_of(r, s->exp), dst, 1);
        } else {
            copy_i32(src, PY_BIG_ENDIAN, (Py_ssize_t)n, dst, 1);
        }
        memset(dst + 4 * n, 0, 4 * (count - n));
    }
    if (r->keyed) {
        mac_seal(r->key, p, HEADER_LEN + 4 * count);
    }
    r->packets_sent++;
    r->payload_bytes_sent += size;
    if (o->fd >= 0 && o->used >= FLUSH_BYTES && out_flush(r, o) < 0) {
        if (r->err == ERR_NONE) {
            r->err = ERR_MEMORY;
        }
        return -1;
    }
    return 0;
}

int wk_flush_all(RunObject *r) {
    for (int i = 0; i < r->nouts; i++) {
        if (out_flush(r, &r->outs[i]) < 0) {
            if (r->err == ERR_NONE) {
                r->err = ERR_MEMORY;
            }
            return -1;
        }
    }
    return 0;
}
