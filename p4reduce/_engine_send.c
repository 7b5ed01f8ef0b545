// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_engine_send.c (in p4reduce._engine): the send queue of the software
 * aggregator. Replies are copied into an arena as they are made, packed per address
 * into datagrams up to the destination's limit (BatchSender.add); a flush hands them to
 * the kernel with sendmmsg (with UDP GSO, each address's run of equal-size datagrams as
 * one UDP_SEGMENT message, one by one again once the kernel refuses one), or to the
 * output records for take_output. The data path that queues them is p4reduce/_engine.c;
 * what the files share is p4reduce/_engine.h.
 */
#include "_engine.h"

/* ---------------------------------------------------------------------------
 * Send queue: the same packing as p4reduce.transport.batchio.BatchSender.add
 */
static void omap_clear(Core *c) {
    if (c->omap_used) {
        memset(c->omap_key, 0, c->omap_cap * sizeof(uint64_t));
    }
    c->omap_used = 0;
}

static uint32_t *omap_slot(Core *c, uint32_t ip, uint16_t port, int insert) {
    uint64_t key = ((uint64_t)ip << 16 | port) + 1;
    uint32_t mask = c->omap_cap - 1;
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    for (;;) {
        if (c->omap_key[i] == key) {
            return &c->omap_val[i];
        }
        if (c->omap_key[i] == 0) {
            if (!insert || c->omap_used * 2 >= c->omap_cap) {
                return NULL;
            }
            c->omap_key[i] = key;
            c->omap_used++;
            return &c->omap_val[i];
        }
        i = (i + 1) & mask;
    }
}

/* Room for a packet of `len` bytes to (ip, port), packed with earlier ones up to `pack`
 * bytes (0: a datagram of its own). Returns where to write it (valid until the next call). */
uint8_t *eng_out_packet(Core *c, uint32_t ip, uint16_t port, uint32_t pack, uint32_t len) {
    if (c->arena_len + len > c->arena_cap) {
        size_t n = c->arena_cap ? c->arena_cap : (1 << 20);
        while (n < c->arena_len + len) {
            n *= 2;
        }
        uint8_t *a = realloc(c->arena, n);
        if (!a) {
            c->nomem = 1;
            return NULL;
        }
        c->arena = a;
        c->arena_cap = n;
    }
    if (grow((void **)&c->pkts, &c->pkts_cap, c->npkts + 1, sizeof(opkt_t))) {
        c->nomem = 1;
        return NULL;
    }
    uint32_t pi = c->npkts++;
    c->pkts[pi] = (opkt_t){(uint32_t)c->arena_len, len, UINT32_MAX};
    uint8_t *dst = c->arena + c->arena_len;
    c->arena_len += len;
    c->queued_bytes += len;
    uint32_t *open = pack ? omap_slot(c, ip, port, 0) : NULL;
    if (open) {
        odgram_t *d = &c->dgrams[*open];
        if (d->size + len <= pack && d->npkts + 1 <= IOV_PARTS) {
            c->pkts[d->tail].next = pi;
            d->tail = pi;
            d->size += len;
            d->npkts++;
            return dst;
        }
    }
    if (grow((void **)&c->dgrams, &c->dgrams_cap, c->ndgrams + 1, sizeof(odgram_t))) {
        c->nomem = 1;
        return NULL;
    }
    uint32_t di = c->ndgrams++;
    c->dgrams[di] = (odgram_t){ip, port, pack == 0, len, 1, pi, pi};
    if (pack) {
        if (open) {
            *open = di;
        } else if ((open = omap_slot(c, ip, port, 1)) != NULL) {
            *open = di;
        }
    }
    return dst;
}

static void reset_queue(Core *c) {
    c->arena_len = 0;
    c->npkts = c->ndgrams = 0;
    c->queued_bytes = 0;
    omap_clear(c);
    if (c->arena_cap > (64u << 20)) { /* a burst made it huge: give the memory back */
        free(c->arena);
        c->arena = NULL;
        c->arena_cap = 0;
    }
}

/* Groups the queued datagrams into sendmmsg messages. Without GSO each datagram is one.
 * With GSO, a datagram joins the message of the last one to its address while that stays
 * one UDP_SEGMENT buffer: every segment of the first one's size but a shorter last, at
 * most GSO_MAX_SEGS segments, GSO_MAX_BYTES bytes and IOV_PARTS buffers. Each address's
 * datagrams keep their order (messages to different addresses may pass each other).
 * Datagrams to a destination that takes one packet per datagram (a switch parent, a
 * worker that asked for message_size 0) are never segments: on a virtual link into a
 * software switch a UDP_SEGMENT buffer can arrive as one unsegmented super-frame (the
 * host agent's rule, hostagent/fastpath.py).
 * Returns the number of messages, or -1 without memory. */
static int64_t group_messages(Core *c) {
    if (grow((void **)&c->gnext, &c->gnext_cap, c->ndgrams, sizeof(uint32_t)) ||
        grow((void **)&c->gmsgs, &c->gmsgs_cap, c->ndgrams, sizeof(gmsg_t))) {
        return -1;
    }
    uint32_t nm = 0;
    omap_clear(c); /* the packing map is done with: reset_queue follows every flush */
    for (uint32_t i = 0; i < c->ndgrams; i++) {
        odgram_t *d = &c->dgrams[i];
        c->gnext[i] = UINT32_MAX;
        const int gso = c->gso && !d->single;
        uint32_t *open = gso ? omap_slot(c, d->ip, d->port, 0) : NULL;
        if (open) {
            gmsg_t *g = &c->gmsgs[*open];
            if (!g->closed && d->size <= g->seg && g->nseg < GSO_MAX_SEGS && g->bytes + d->size <= GSO_MAX_BYTES &&
                g->niov + d->npkts <= IOV_PARTS) {
                c->gnext[g->tail] = i;
                g->tail = i;
                g->nseg++;
                g->bytes += d->size;
                g->niov += d->npkts;
                if (d->size < g->seg) {
                    g->closed = 1;
                }
                continue;
            }
        }
        uint32_t m = nm++;
        c->gmsgs[m] = (gmsg_t){i, i, d->size, 1, d->size, d->npkts, 0};
        if (gso) {
            if (open) {
                *open = m;
            } else if ((open = omap_slot(c, d->ip, d->port, 1)) != NULL) {
                *open = m;
            }
        }
    }
    return nm;
}

/* The datagrams of message m one by one (the kernel would not segment it). */
static void send_each(Core *c, int fd, uint32_t m) {
    gmsg_t *g = &c->gmsgs[m];
    struct msghdr h = c->smsgs[m].msg_hdr;
    h.msg_control = NULL;
    h.msg_controllen = 0;
    struct iovec *iov = h.msg_iov;
    for (uint32_t i = g->head; i != UINT32_MAX; i = c->gnext[i]) {
        h.msg_iov = iov;
        h.msg_iovlen = c->dgrams[i].npkts;
        iov += c->dgrams[i].npkts;
        ssize_t r;
        do {
            r = sendmsg(fd, &h, 0);
        } while (r < 0 && errno == EINTR);
        io_add(c, IO_SEND_CALLS, 1);
        if (r < 0) {
            count(c, C_SEND_ERRORS, 1);
        }
    }
}

/* sendmmsg's the queue: one message per datagram, or per GSO run (group_messages). */
static void send_queue(Core *c, int fd) {
    int64_t n = group_messages(c);
    if (n < 0 || grow((void **)&c->smsgs, &c->smsgs_cap, (uint32_t)n, sizeof(struct mmsghdr)) ||
        grow((void **)&c->snames, &c->snames_cap, (uint32_t)n, sizeof(struct sockaddr_in)) ||
        grow((void **)&c->siovs, &c->siovs_cap, c->npkts, sizeof(struct iovec)) ||
        grow((void **)&c->sctl, &c->sctl_cap, (uint32_t)n * SCTL_LEN, 1)) {
        c->nomem = 1;
        return;
    }
    uint32_t nm = (uint32_t)n, iv = 0;
    for (uint32_t m = 0; m < nm; m++) {
        gmsg_t *g = &c->gmsgs[m];
        odgram_t *first = &c->dgrams[g->head];
        struct mmsghdr *mh = &c->smsgs[m];
        memset(mh, 0, sizeof(*mh));
        memset(&c->snames[m], 0, sizeof(struct sockaddr_in));
        c->snames[m].sin_family = AF_INET;
        c->snames[m].sin_addr.s_addr = first->ip;
        c->snames[m].sin_port = htons(first->port);
        mh->msg_hdr.msg_name = &c->snames[m];
        mh->msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
        mh->msg_hdr.msg_iov = &c->siovs[iv];
        mh->msg_hdr.msg_iovlen = g->niov;
        for (uint32_t i = g->head; i != UINT32_MAX; i = c->gnext[i]) {
            for (uint32_t p = c->dgrams[i].head; p != UINT32_MAX; p = c->pkts[p].next) {
                c->siovs[iv].iov_base = c->arena + c->pkts[p].off;
                c->siovs[iv].iov_len = c->pkts[p].len;
                iv++;
            }
        }
        if (g->nseg > 1) {
            udp_set_segment(&mh->msg_hdr, c->sctl + (size_t)m * SCTL_LEN, (uint16_t)g->seg);
        }
    }
    uint32_t done = 0;
    while (done < nm) {
        int sent = sendmmsg(fd, &c->smsgs[done], nm - done, 0);
        io_add(c, IO_SEND_CALLS, 1);
        if (sent > 0) {
            for (uint32_t m = done; m < done + (uint32_t)sent; m++) {
                if (c->gmsgs[m].nseg > 1) {
                    io_add(c, IO_GSO_SENDS, 1);
                    io_add(c, IO_GSO_SEGMENTS, c->gmsgs[m].nseg);
                }
            }
            done += (uint32_t)sent;
            continue;
        }
        int err = sent < 0 ? errno : 0;
        if (sent < 0 && err == EINTR) {
            continue;
        }
        gmsg_t *g = &c->gmsgs[done];
        if (g->nseg > 1 && udp_gso_refused(err)) {
            /* The kernel would not segment it (a route whose device lacks checksum offload:
             * EIO; a segment over the path MTU: EINVAL): the same datagrams one by one. */
            io_add(c, IO_GSO_FALLBACKS, 1);
            if (err == EIO || err == EOPNOTSUPP || err == ENOPROTOOPT) {
                c->gso = 0; /* for good: the next flushes would fail the same way */
                c->gso_errno = err;
                eng_log_event(c, L_GSO_OFF, 0, (uint32_t)err, 0, 0);
            }
            send_each(c, fd, done);
        } else {
            count(c, C_SEND_ERRORS, g->nseg); /* refused (full buffer, unreachable): the workers
                                                 will retransmit */
        }
        done++;
    }
}

/* Hand every queued datagram to the kernel (fd >= 0), to the output records (-1), or
 * nowhere (-2: benchmarks of the engine alone). */
void eng_flush(Core *c, int fd) {
    if (!c->ndgrams) {
        reset_queue(c);
        return;
    }
    if (fd == -1) {
        size_t need = c->out_len;
        for (uint32_t i = 0; i < c->ndgrams; i++) {
            need += 10 + c->dgrams[i].size;
        }
        if (need > c->out_cap) {
            size_t n = c->out_cap ? c->out_cap : 65536;
            while (n < need) {
                n *= 2;
            }
            uint8_t *o = realloc(c->out, n);
            if (!o) {
                c->nomem = 1;
                reset_queue(c);
                return;
            }
            c->out = o;
            c->out_cap = n;
        }
        for (uint32_t i = 0; i < c->ndgrams; i++) {
            odgram_t *d = &c->dgrams[i];
            uint8_t *o = c->out + c->out_len;
            memcpy(o, &d->ip, 4);
            memcpy(o + 4, &d->port, 2);
            memcpy(o + 6, &d->size, 4);
            o += 10;
            for (uint32_t p = d->head; p != UINT32_MAX; p = c->pkts[p].next) {
                memcpy(o, c->arena + c->pkts[p].off, c->pkts[p].len);
                o += c->pkts[p].len;
            }
            c->out_len += 10 + d->size;
        }
    } else if (fd >= 0) {
        send_queue(c, fd);
    }
    reset_queue(c);
}
