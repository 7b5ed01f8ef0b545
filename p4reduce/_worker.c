/*
 * p4reduce._worker: the host agent's per-round state machine in C
 * (docs/protocol.md section 7), for all streams of one allreduce at once.
 *
 * Import it as `p4reduce._native_worker` (p4reduce/_native_worker.py), which
 * says how to rebuild it when it is missing. The readable model is Python:
 * p4reduce.hostagent.stream.Stream driven by HostAgent._process_packets and
 * HostAgent._expire (hostagent/agent.py, WorkerConfig(engine="python"));
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
 * many streams finished and the latencies of rounds that needed no
 * retransmission (for the RTO estimator and the window). Starting streams
 * (the window), timer expiry and the errors stay Python's decisions and
 * exceptions (hostagent/fastpath.py).
 *
 * UDP offload, as p4reduce/_engine.c does it: with Run(gso=True) each endpoint's
 * run of equal-size datagrams goes as one UDP_SEGMENT message (one by one again,
 * for good, once the kernel refuses one), and a UDP_GRO buffer received (the agent
 * turns UDP_GRO on for the native engine's sockets) is split back into its datagrams.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "_packet_ring.h" /* WorkerConfig(transport="packet") */
#include "_ring.h"        /* a raw transport's flow: PacketRing, or p4reduce._xdp's XskSocket */
#include "_siphash.h" /* the MAC of authenticated jobs */
#include "_udp.h" /* UDP GSO and GRO */
#include "_wire.h"

#define ABI_VERSION 6 /* p4reduce/_native_worker.py refuses a build of another version */

#define HEADER_LEN 36
#define PROTOCOL_VERSION 2
#define NONE_BLOCK 0xFFFFFFFFu
#define ALL_WORKERS 0xFF
#define T_DATA 1
#define T_RESULT 2
#define T_QUERY 3
#define T_PENDING 4
#define T_ERROR 8
#define T_MAX 8
#define F_OVERFLOW 1
#define F_MISMATCH 2
#define F_SCATTER 4     /* DATA of a reduce-scatter; bits 3..7: the round's block's owner */
#define OWNER_SHIFT 3
#define MAX_WORKERS 32
#define E_TENSOR 5 /* ErrorCode.TENSOR */

#define RECV_BATCH 64
#define RECV_BUFSIZE 65536
#define FLUSH_BYTES (128 << 10) /* as BatchSender.full: hand the queue to the kernel */
#define RING_BUDGET 256 /* datagrams a poll takes from one RX ring before it sends the replies */

enum { S_WAITING, S_ACTIVE, S_DONE };
/* What a stream (re)sends on timeout: nothing, DATA with its block's values,
 * header-only DATA (bootstrap, dense-mode non-holder), QUERY (sparse-mode non-holder). */
enum { P_NONE, P_VALUES, P_HEADER, P_QUERY };
/* Why a call failed. */
enum { ERR_NONE, ERR_JOB, ERR_PROTOCOL, ERR_TIMEOUT, ERR_OS, ERR_MEMORY, ERR_VALUE };

typedef struct {
    uint64_t round; /* the slot's round counter (shadow bit = round & 1) */
    uint32_t slot, block, cursor; /* cursor: no non-zero block of this worker's before it is unsent */
    uint32_t retries;             /* timer expiries of the current round */
    uint32_t expiries;            /* of this allreduce (AllreduceStats.per_slot_retries) */
    int64_t missing;              /* bitmap of the last PENDING for this round, -1: none */
    uint8_t exp, state, pending, overflow;
    int endpoint;
    double started, timeout, deadline;
    /* the previous round's RESULT as taken (Stream._previous), to tell a differing copy */
    uint8_t has_prev, prev_shadow, prev_exp, prev_next_exp, prev_overflow, prev_delivered;
    uint32_t prev_block, prev_next_block;
} stream_t;

typedef struct {
    size_t start, len;
} dgram_t;

/* A sendmmsg message: the queue's datagrams first .. first + nseg - 1 (contiguous in the
 * buffer), several of them as one UDP_SEGMENT buffer. */
typedef struct {
    size_t first, nseg;
} gmsg_t;

typedef struct { /* one aggregator endpoint's outgoing datagrams */
    int fd;         /* connected socket (or the ring's); -1: kept for take_output() */
    ring_ref_t ring; /* transports "packet", "xdp": the datagrams go into its TX ring */
    uint32_t limit; /* payload packed up to (0: a packet per datagram) */
    uint32_t session;
    uint32_t group_session; /* what its results to the job's multicast group carry (JOINED) */
    int gso;        /* merge runs of equal-size datagrams (off for good once the kernel refused) */
    char *buf;
    size_t used, cap;
    dgram_t *dgrams;
    size_t ndgrams, dcap;
    /* a flush's messages, mcap of each */
    struct mmsghdr *msgs;
    struct iovec *iov;
    gmsg_t *gmsgs;
    char *ctl; /* SCTL_LEN bytes per message */
    size_t mcap;
} out_t;

typedef struct {
    uint32_t ip; /* host order */
    uint16_t port;
} peer_t;

typedef struct { /* a socket results arrive on, and whom it may hear */
    int fd;
    ring_ref_t ring; /* transports "packet", "xdp": its RX ring instead of recvmmsg */
    int endpoint; /* the endpoint whose socket it is; -1: the multicast group's */
    int npeers;
    peer_t *peers;
} in_t;

typedef struct {
    PyObject_HEAD
    Py_buffer tensor, out, nonzero, exps;
    int held; /* buffers taken */
    int is_float;
    Py_ssize_t length, out_count; /* elements of the tensor, of the output */
    uint32_t shard_blocks, first_block; /* a reduce-scatter: blocks per rank; out holds blocks from first_block */
    uint32_t nblocks, block_size, num_slots, slot_base;
    uint32_t job_id, worker_id, epoch, fingerprint, blocks_field;
    int log2n; /* ceil(log2 num_workers) */
    int dense;
    stream_t *streams;
    uint32_t nstreams, next_start, active, unfinished;
    out_t *outs;
    int nouts;
    in_t *ins;
    int nins;
    struct pollfd *pfds;
    char *rbuf; /* receive buffers, allocated at the first poll */
    struct mmsghdr *rmsgs;
    struct iovec *riov;
    struct sockaddr_in *rnames;
    char *rctl; /* their control buffers (the UDP_GRO cmsg) */
    /* what one call produced */
    double *samples;
    size_t nsamples, scap;
    char *scratch; /* a block's values, to compare a repeated RESULT with what was taken */
    int keyed;     /* an authenticated job (WorkerConfig.key): every packet sealed both ways */
    sipkey_t key;
    uint64_t unauthenticated; /* packets dropped for a missing or wrong MAC (or an unwanted one) */
    uint32_t finished;
    int float_overflow;
    uint64_t packets_received, payload_bytes_received, ignored_packets, packets_sent, payload_bytes_sent, retransmissions, queries;
    /* UDP offload: messages sent as UDP_SEGMENT buffers and their datagrams, such messages
     * sent one datagram at a time instead, GRO buffers received and their datagrams */
    uint64_t gso_sends, gso_segments, gso_fallbacks, gro_buffers, gro_segments;
    int gso_errno; /* why the kernel refused a segmented send (GSO then off for that endpoint) */
    uint32_t spin_us; /* transport "packet": how long a poll spins on the RX rings before it blocks */
    int nrings;
    int err;
    long long err_code, err_detail, err_epoch;
    char err_msg[256];
    int busy;
} RunObject;

static PyObject *Failed; /* p4reduce._worker.Failed(kind, ...) */

/* ---------------------------------------------------------------------------
 * Wire helpers
 */

static inline uint32_t get16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void put16(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}
static inline void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* what time.monotonic() reads on Linux */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A block number as the errors print it (_name in hostagent/stream.py). */
static const char *block_name(uint32_t block, char *buf, size_t size) {
    if (block == NONE_BLOCK) snprintf(buf, size, "NONE");
    else snprintf(buf, size, "%u", block);
    return buf;
}

static inline int shift_of(const RunObject *r, int exp) { return 30 - r->log2n - (exp - EXP_BIAS); }

/* The worker's next non-zero block of stream `s` not sent yet, or NONE (Stream._mine[_pos]). */
static uint32_t mine(const RunObject *r, stream_t *s) {
    const uint8_t *nz = r->nonzero.buf;
    uint64_t b = s->cursor;
    while (b < r->nblocks && !nz[b]) {
        b += r->num_slots;
    }
    if (b >= r->nblocks) {
        s->cursor = r->nblocks; /* stays past the end */
        return NONE_BLOCK;
    }
    s->cursor = (uint32_t)b; /* zero blocks are skipped once */
    return (uint32_t)b;
}

/* Elements of block b in the tensor (a cut last block has fewer). */
static inline size_t block_len(const RunObject *r, uint32_t b) {
    size_t start = (size_t)b * r->block_size;
    size_t left = (size_t)r->length - start;
    return left < r->block_size ? left : r->block_size;
}

/* Elements of block b in the output, which holds the blocks from first_block on
 * (a reduce-scatter's shard; its cut last block, or nothing past its end). */
static inline size_t out_len(const RunObject *r, uint32_t b) {
    size_t start = (size_t)(b - r->first_block) * r->block_size;
    if (start >= (size_t)r->out_count) {
        return 0;
    }
    size_t left = (size_t)r->out_count - start;
    return left < r->block_size ? left : r->block_size;
}

static void fail_protocol(RunObject *r, const char *fmt, unsigned a, unsigned b, unsigned c) {
    r->err = ERR_PROTOCOL;
    snprintf(r->err_msg, sizeof r->err_msg, fmt, a, b, c);
}

/* ProtocolError for a RESULT (Stream._bad): names the aggregator, the slot, the block and
 * what is wrong with it. */
static void fail_result(RunObject *r, uint32_t ip, uint16_t port, uint32_t slot, uint32_t block,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fail_result(RunObject *r, uint32_t ip, uint16_t port, uint32_t slot, uint32_t block,
                        const char *fmt, ...) {
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
            if (o->dgrams[i - 1].len == seg && len <= seg && g->nseg < GSO_MAX_SEGS &&
                bytes + len <= GSO_MAX_BYTES) {
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
                snprintf(r->err_msg, sizeof r->err_msg,
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

static int out_flush(RunObject *r, out_t *o) {
    if (o->fd < 0 || !o->ndgrams) {
        return 0;
    }
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
 * block quantized at the agreed exponent, a cut last block zero-padded). */
static int emit(RunObject *r, stream_t *s, int kind) {
    const size_t count = kind == P_VALUES ? r->block_size : 0;
    const size_t size = HEADER_LEN + 4 * count + (r->keyed ? MAC_LEN : 0);
    unsigned flags = 0;
    if (r->shard_blocks && kind != P_QUERY) { /* Stream._header: SCATTER and the owner */
        const uint32_t owner = s->block == NONE_BLOCK ? 0 : s->block / r->shard_blocks;
        if (owner >= MAX_WORKERS) {
            r->err = ERR_VALUE;
            snprintf(r->err_msg, sizeof r->err_msg, "owner %u outside 0..%d", owner, MAX_WORKERS - 1);
            return -1;
        }
        flags = F_SCATTER | owner << OWNER_SHIFT;
    }
    out_t *o = &r->outs[s->endpoint];
    unsigned char *p = out_reserve(o, size);
    if (!p) {
        r->err = ERR_MEMORY;
        return -1;
    }
    const uint32_t nxt = mine(r, s);
    p[0] = PROTOCOL_VERSION;
    p[1] = kind == P_QUERY ? T_QUERY : T_DATA;
    put16(p + 2, r->job_id);
    p[4] = (unsigned char)r->worker_id;
    p[5] = (unsigned char)flags;
    put16(p + 6, (uint32_t)(s->round & 1) << 15 | s->slot);
    put32(p + 8, r->epoch);
    put32(p + 12, s->block);
    put32(p + 16, nxt);
    p[20] = s->exp;
    p[21] = nxt == NONE_BLOCK ? 0 : ((const uint8_t *)r->exps.buf)[nxt];
    put16(p + 22, (uint32_t)count);
    put32(p + 24, o->session);
    put32(p + 28, r->blocks_field);
    put32(p + 32, r->fingerprint);
    if (count) {
        const uint32_t b = s->block;
        const size_t n = block_len(r, b);
        const char *src = (const char *)r->tensor.buf + 4 * (size_t)b * r->block_size;
        char *dst = (char *)p + HEADER_LEN;
        if (r->is_float) {
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
        if (r->err == ERR_NONE) r->err = ERR_MEMORY;
        return -1;
    }
    return 0;
}

static int flush_all(RunObject *r) {
    for (int i = 0; i < r->nouts; i++) {
        if (out_flush(r, &r->outs[i]) < 0) {
            if (r->err == ERR_NONE) r->err = ERR_MEMORY;
            return -1;
        }
    }
    return 0;
}

static inline void set_timer(stream_t *s, double now, double rto) {
    s->started = now;
    s->timeout = rto;
    s->deadline = now + rto;
}

/* ---------------------------------------------------------------------------
 * Received packets: HostAgent._process_packets and Stream.on_result/on_pending
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

/* Stream._check_repeat: a copy of the previous round's RESULT must be the one taken. */
static int check_repeat(RunObject *r, stream_t *s, const unsigned char *p, uint32_t ip, uint16_t port) {
    const uint32_t shadow = get16(p + 6) >> 15, block = get32(p + 12), next_block = get32(p + 16);
    const unsigned flags = p[5], next_exp = p[21], count = get16(p + 22);
    if (!s->has_prev || shadow != s->prev_shadow || block != s->prev_block || get32(p + 8) != r->epoch ||
        get32(p + 32) != r->fingerprint || (flags & F_MISMATCH)) {
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
    if (s->prev_delivered && count == r->block_size && !same_values(r, block, s->prev_exp, p + HEADER_LEN)) {
        fail_result(r, ip, port, s->slot, block, "a second RESULT for block %u has other values", block);
        return -1;
    }
    return 0;
}

/* One packet from ip:port on receiver `in` (HostAgent._process_packets and Stream). */
static int process_packet(RunObject *r, const in_t *in, const unsigned char *p, size_t len, uint32_t ip,
                          uint16_t port, double now, double rto) {
    r->packets_received++;
    r->payload_bytes_received += len;
    const unsigned type = p[1];
    if ((p[0] & ~VERSION_AUTH) != PROTOCOL_VERSION || type < 1 || type > T_MAX) { /* AggHeader.unpack */
        r->ignored_packets++;
        return 0;
    }
    /* An authenticated job's packets sealed with a valid MAC, any other job's not sealed. */
    if (r->keyed ? !mac_ok(r->key, p, len) : (p[0] & VERSION_AUTH) != 0) {
        r->unauthenticated++;
        r->ignored_packets++;
        return 0;
    }
    /* Addressed to this worker by unicast, or to the job's group on the group's socket. */
    const uint32_t worker = p[4];
    if (get16(p + 2) != r->job_id || worker != (in->endpoint >= 0 ? r->worker_id : ALL_WORKERS)) {
        r->ignored_packets++;
        return 0;
    }
    const uint32_t epoch = get32(p + 8), block = get32(p + 12), next_block = get32(p + 16);
    const uint32_t session = get32(p + 24);
    if (type == T_ERROR) { /* about the job, whichever slot it names */
        /* Only an answer to one of ours (its session echoed) from the aggregator itself. */
        if (in->endpoint < 0 || session != r->outs[in->endpoint].session) {
            r->ignored_packets++;
            return 0;
        }
        fail_job(r, block, next_block, epoch);
        return -1;
    }
    const uint32_t pool = get16(p + 6), slot = pool & 0x7fff, shadow = pool >> 15;
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
    /* Stream.on_result */
    if (shadow != (s->round & 1) || block != s->block) {
        r->ignored_packets++;
        return check_repeat(r, s, p, ip, port);
    }
    const unsigned flags = p[5];
    if (flags & F_MISMATCH) {
        fail_job(r, E_TENSOR, -1, r->epoch);
        return -1;
    }
    if (epoch != r->epoch || get32(p + 32) != r->fingerprint) {
        r->ignored_packets++;
        return 0;
    }
    const uint32_t m = mine(r, s), stream = slot - r->slot_base;
    const unsigned next_exp = p[21];
    if (next_block != NONE_BLOCK && (next_block >= r->nblocks || next_block % r->num_slots != stream)) {
        fail_result(r, ip, port, slot, block, "next_block %u is outside stream %u of a %u-block tensor", next_block,
                    stream, r->nblocks);
        return -1;
    }
    if (next_block != NONE_BLOCK && block != NONE_BLOCK && next_block <= block) {
        fail_result(r, ip, port, slot, block, "next_block %u goes back from block %u", next_block, block);
        return -1;
    }
    if (next_block > m) {
        char a[16];
        fail_result(r, ip, port, slot, block, "next_block %s skips block %u, which this worker announced and never sent",
                    block_name(next_block, a, sizeof a), m);
        return -1;
    }
    const uint8_t *exps = r->exps.buf;
    if (next_block == m && m != NONE_BLOCK && next_exp < exps[m]) {
        fail_result(r, ip, port, slot, block, "next_exp %u is below this worker's %u for block %u", next_exp,
                    (unsigned)exps[m], m);
        return -1;
    }
    int delivered = 0;
    if (block != NONE_BLOCK) {
        const uint32_t count = get16(p + 22);
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
        } else {
            if (block >= r->nblocks) {
                fail_protocol(r, "result for block %u of a %u-block tensor", block, r->nblocks, 0);
                return -1;
            }
            const size_t n = out_len(r, block);
            char *dst = (char *)r->out.buf + 4 * (size_t)(block - r->first_block) * r->block_size;
            const char *src = (const char *)p + HEADER_LEN;
            if (r->is_float) {
                r->float_overflow |= dequantize_f32(src, 1, (Py_ssize_t)n, shift_of(r, s->exp), dst);
            } else {
                copy_i32(src, 1, (Py_ssize_t)n, dst, PY_BIG_ENDIAN);
            }
            delivered = 1;
        }
        s->overflow |= (flags & F_OVERFLOW) != 0; /* every worker raises, whoever holds the block */
    }
    s->has_prev = 1;
    s->prev_shadow = (uint8_t)shadow;
    s->prev_block = block;
    s->prev_exp = s->exp;
    s->prev_next_block = next_block;
    s->prev_next_exp = (uint8_t)next_exp;
    s->prev_overflow = (flags & F_OVERFLOW) != 0;
    s->prev_delivered = (uint8_t)delivered;
    const uint32_t retried = s->retries;
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
        return retried ? 0 : push_sample(r, now - s->started); /* Karn: only clean rounds */
    }
    if (!retried && push_sample(r, now - s->started) < 0) {
        return -1;
    }
    if (m == s->block) {
        s->cursor = m + r->num_slots;
        s->pending = P_VALUES;
    } else if (r->dense) {
        s->pending = P_HEADER;
    } else { /* sparse: stay silent; on timeout ask for the result instead */
        s->pending = P_QUERY;
    }
    if (s->pending != P_QUERY && emit(r, s, s->pending) < 0) {
        return -1;
    }
    set_timer(s, now, rto);
    return 0;
}

static int source_ok(const in_t *in, uint32_t ip, uint16_t port) {
    for (int i = 0; i < in->npeers; i++) {
        if (in->peers[i].ip == ip && in->peers[i].port == port) {
            return 1;
        }
    }
    return 0;
}

/* One received datagram (HostAgent._process): its packets back to back, a tail
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
static int process_buffer(RunObject *r, const in_t *in, const unsigned char *d, size_t len, size_t seg,
                          uint32_t ip, uint16_t port, double now, double rto) {
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

/* ---------------------------------------------------------------------------
 * Python methods
 */

static int enter(RunObject *r) {
    if (r->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Run is in use by another thread");
        return -1;
    }
    r->busy = 1;
    r->err = ERR_NONE;
    r->finished = 0;
    r->nsamples = 0;
    return 0;
}

/* Leaves a call: the exception for an error, else None (the caller builds the result). */
static int leave(RunObject *r) {
    r->busy = 0;
    switch (r->err) {
    case ERR_NONE:
        return 0;
    case ERR_JOB:
        PyErr_SetObject(Failed, Py_BuildValue("(sLLL)", "job", r->err_code, r->err_detail, r->err_epoch));
        return -1;
    case ERR_PROTOCOL:
        PyErr_SetObject(Failed, Py_BuildValue("(ss)", "protocol", r->err_msg));
        return -1;
    case ERR_TIMEOUT:
        PyErr_SetObject(Failed, Py_BuildValue("(sLd)", "timeout", r->err_code, (double)r->err_detail / 1e9));
        return -1;
    case ERR_VALUE:
        PyErr_SetString(PyExc_ValueError, r->err_msg);
        return -1;
    case ERR_OS:
        errno = (int)r->err_code;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    default:
        PyErr_NoMemory();
        return -1;
    }
}

static PyObject *call_result(RunObject *r) {
    if (leave(r) < 0) {
        return NULL;
    }
    /* native float64, for RtoEstimator.sample_all and StreamWindow.on_rounds (in C too) */
    PyObject *samples = PyBytes_FromStringAndSize((const char *)r->samples, (Py_ssize_t)(r->nsamples * sizeof(double)));
    if (!samples) {
        return NULL;
    }
    return Py_BuildValue("(IN)", r->finished, samples);
}

PyDoc_STRVAR(start_doc,
"start(count, now, rto, /)\n--\n\n"
"Start up to `count` more streams, in stream order: queue their bootstrap DATA\n"
"and set their timers (`now`: time.monotonic(), `rto`: the timeout). Returns how\n"
"many started. Nothing is sent before flush().");

static PyObject *Run_start(RunObject *r, PyObject *args) {
    Py_ssize_t count;
    double now, rto;
    if (!PyArg_ParseTuple(args, "ndd:start", &count, &now, &rto) || enter(r) < 0) {
        return NULL;
    }
    uint32_t started = 0;
    while (count-- > 0 && r->next_start < r->nstreams) {
        stream_t *s = &r->streams[r->next_start++];
        s->state = S_ACTIVE;
        s->pending = P_HEADER;
        r->active++;
        started++;
        set_timer(s, now, rto);
        if (emit(r, s, P_HEADER) < 0) {
            break;
        }
    }
    if (leave(r) < 0) {
        return NULL;
    }
    return PyLong_FromUnsignedLong(started);
}

PyDoc_STRVAR(feed_doc,
"feed(receiver, datagrams, now, rto, /)\n--\n\n"
"Handle `datagrams` (a list of (bytes-like, (host, port)[, GRO segment size]);\n"
"with a segment size, a buffer split as a UDP_GRO one is) as if the agent's\n"
"receiver number `receiver` had received them at `now`. Returns (streams\n"
"finished, latencies of rounds completed without retransmission as bytes of\n"
"native float64); replies are\n"
"queued. Raises Failed(kind, ...) where the Python engine raises.");

static PyObject *Run_feed(RunObject *r, PyObject *args) {
    int receiver;
    PyObject *list;
    double now, rto;
    if (!PyArg_ParseTuple(args, "iO!dd:feed", &receiver, &PyList_Type, &list, &now, &rto)) {
        return NULL;
    }
    if (receiver < 0 || receiver >= r->nins) {
        PyErr_Format(PyExc_ValueError, "receiver %d outside 0..%d", receiver, r->nins - 1);
        return NULL;
    }
    if (enter(r) < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list) && r->err == ERR_NONE; i++) {
        const char *host;
        int port;
        Py_ssize_t seg = 0;
        Py_buffer view;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "y*(si)|n", &view, &host, &port, &seg)) {
            r->busy = 0;
            return NULL;
        }
        struct in_addr a;
        if (inet_pton(AF_INET, host, &a) != 1) {
            PyBuffer_Release(&view);
            r->busy = 0;
            PyErr_Format(PyExc_ValueError, "not an IPv4 address: %s", host);
            return NULL;
        }
        process_buffer(r, &r->ins[receiver], view.buf, (size_t)view.len, seg > 0 ? (size_t)seg : 0,
                       ntohl(a.s_addr), (uint16_t)port, now, rto);
        PyBuffer_Release(&view);
    }
    return call_result(r);
}

static double next_deadline(const RunObject *r) {
    double d = INFINITY;
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].state == S_ACTIVE && r->streams[i].deadline < d) {
            d = r->streams[i].deadline;
        }
    }
    return d;
}

static int ensure_recv(RunObject *r) {
    if (r->rbuf) {
        return 0;
    }
    r->rbuf = malloc((size_t)RECV_BATCH * RECV_BUFSIZE);
    r->pfds = calloc(r->nins ? r->nins : 1, sizeof *r->pfds);
    r->rmsgs = calloc(RECV_BATCH, sizeof *r->rmsgs);
    r->riov = calloc(RECV_BATCH, sizeof *r->riov);
    r->rnames = calloc(RECV_BATCH, sizeof *r->rnames);
    r->rctl = malloc((size_t)RECV_BATCH * RCTL_LEN);
    if (!r->rbuf || !r->pfds || !r->rmsgs || !r->riov || !r->rnames || !r->rctl) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < RECV_BATCH; i++) {
        r->riov[i].iov_base = r->rbuf + (size_t)i * RECV_BUFSIZE;
        r->riov[i].iov_len = RECV_BUFSIZE;
        r->rmsgs[i].msg_hdr.msg_iov = &r->riov[i];
        r->rmsgs[i].msg_hdr.msg_iovlen = 1;
        r->rmsgs[i].msg_hdr.msg_name = &r->rnames[i];
    }
    return 0;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Whether a frame waits in some receiver's RX ring. */
static int rings_ready(const RunObject *r) {
    for (int i = 0; i < r->nins; i++) {
        const in_t *in = &r->ins[i];
        if (in->ring.obj && in->ring.ops->usable(in->ring.obj) && in->ring.ops->rx_ready(in->ring.obj)) {
            return 1;
        }
    }
    return 0;
}

/* A batch of the datagrams waiting in receiver `in`'s RX ring, handled as recvmmsg's are. */
static void drain_ring(RunObject *r, const in_t *in, double rto) {
    PyObject *ring = in->ring.obj;
    const ring_ops_t *ops = in->ring.ops;
    const unsigned char *payload;
    size_t len;
    uint32_t ip;
    uint16_t port;
    const double now = monotonic();
    for (int k = 0; k < RING_BUDGET && r->err == ERR_NONE && ops->rx_next(ring, &payload, &len, &ip, &port); k++) {
        process_buffer(r, in, payload, len, 0, ip, port, now, rto);
        ops->rx_release(ring);
    }
}

/* Without the GIL: wait up to `wait` seconds for a socket (first spinning up to spin_us on
 * the RX rings, if any), take one batch from each readable one, handle it, send the replies. */
static void poll_nogil(RunObject *r, double wait, double rto) {
    struct pollfd *fds = r->pfds;
    const int nfds = r->nins;
    for (int i = 0; i < nfds; i++) {
        const in_t *in = &r->ins[i];
        fds[i].fd = in->ring.obj && !in->ring.ops->usable(in->ring.obj) ? -1 : in->fd;
        fds[i].events = POLLIN;
        fds[i].revents = 0;
    }
    if (wait < 0) {
        wait = 0;
    }
    int ringed = r->nrings && rings_ready(r);
    if (r->nrings && !ringed && r->spin_us && wait > 0) {
        const double spin = (double)r->spin_us * 1e-6;
        const double end = monotonic() + (spin < wait ? spin : wait);
        while (!(ringed = rings_ready(r)) && monotonic() < end) {
            cpu_relax();
        }
    }
    if (ringed) {
        wait = 0; /* only look at the other sockets */
    }
    struct timespec ts;
    ts.tv_sec = (time_t)wait;
    ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
    int ready = ppoll(fds, (nfds_t)nfds, &ts, NULL);
    if (ready < 0 || (ready == 0 && !ringed)) {
        return; /* timeout, or EINTR: the caller checks signals and timers */
    }
    for (int i = 0; i < nfds && r->err == ERR_NONE; i++) {
        if (r->ins[i].ring.obj) {
            if (fds[i].fd >= 0) {
                drain_ring(r, &r->ins[i], rto);
            }
            continue;
        }
        if (!fds[i].revents) {
            continue;
        }
        for (int k = 0; k < RECV_BATCH; k++) { /* (the kernel shrinks both to what it wrote) */
            r->rmsgs[k].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
            r->rmsgs[k].msg_hdr.msg_control = r->rctl + (size_t)k * RCTL_LEN;
            r->rmsgs[k].msg_hdr.msg_controllen = RCTL_LEN;
        }
        int n = recvmmsg(fds[i].fd, r->rmsgs, RECV_BATCH, MSG_DONTWAIT, NULL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED) {
                continue;
            }
            r->err = ERR_OS;
            r->err_code = errno;
            return;
        }
        const double now = monotonic();
        for (int k = 0; k < n && r->err == ERR_NONE; k++) {
            const struct sockaddr_in *sa = &r->rnames[k];
            process_buffer(r, &r->ins[i], (const unsigned char *)r->riov[k].iov_base, r->rmsgs[k].msg_len,
                           udp_gro_segment(&r->rmsgs[k].msg_hdr), ntohl(sa->sin_addr.s_addr), ntohs(sa->sin_port),
                           now, rto);
        }
    }
    if (r->err == ERR_NONE) {
        flush_all(r);
    }
}

PyDoc_STRVAR(poll_doc,
"poll(rto, max_wait, /)\n--\n\n"
"Wait for the agent's sockets until the earliest retransmission deadline (at\n"
"most `max_wait` seconds), take a batch of datagrams (recvmmsg) from each one\n"
"that is readable, handle them and send the replies (sendmmsg), with the GIL\n"
"released. New round timers run for `rto` seconds. Returns (streams finished,\n"
"latencies of rounds completed without retransmission, as bytes of native\n"
"float64).");

static PyObject *Run_poll(RunObject *r, PyObject *args) {
    double rto, max_wait;
    if (!PyArg_ParseTuple(args, "dd:poll", &rto, &max_wait)) {
        return NULL;
    }
    if (ensure_recv(r) < 0 || enter(r) < 0) {
        return NULL;
    }
    double wait = r->active ? next_deadline(r) - monotonic() : 0.0;
    if (wait > max_wait) {
        wait = max_wait;
    }
    Py_BEGIN_ALLOW_THREADS
    poll_nogil(r, wait, rto);
    Py_END_ALLOW_THREADS
    PyObject *result = call_result(r);
    if (result && PyErr_CheckSignals() < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

PyDoc_STRVAR(flush_doc,
"flush()\n--\n\n"
"Hand the queued datagrams to the kernel (sendmmsg, GIL released); refused ones\n"
"are dropped (the timers cover them).");

static PyObject *Run_flush(RunObject *r, PyObject *unused) {
    (void)unused;
    if (enter(r) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    flush_all(r);
    Py_END_ALLOW_THREADS
    if (leave(r) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(take_output_doc,
"take_output()\n--\n\n"
"The queued datagrams as a list of (endpoint index, bytes), removed from the\n"
"queue (for endpoints built without a socket: tests).");

static PyObject *Run_take_output(RunObject *r, PyObject *unused) {
    (void)unused;
    if (r->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Run is in use by another thread");
        return NULL;
    }
    PyObject *list = PyList_New(0);
    if (!list) {
        return NULL;
    }
    for (int e = 0; e < r->nouts; e++) {
        out_t *o = &r->outs[e];
        for (size_t i = 0; i < o->ndgrams; i++) {
            PyObject *item = Py_BuildValue("(iy#)", e, o->buf + o->dgrams[i].start, (Py_ssize_t)o->dgrams[i].len);
            if (!item || PyList_Append(list, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(item);
        }
        o->used = 0;
        o->ndgrams = 0;
    }
    return list;
}

PyDoc_STRVAR(expire_doc,
"expire(now, max_timeout, failure_timeout, /)\n--\n\n"
"HostAgent._expire: every stream in flight whose timer ran out resends what it\n"
"sent last (or a QUERY) and doubles its timeout up to `max_timeout`. Returns\n"
"the start times of the rounds presumed lost (for the window), in stream order.\n"
"A round waiting `failure_timeout` raises Failed('timeout', stream, waited).\n"
"Nothing is sent before flush().");

static PyObject *Run_expire(RunObject *r, PyObject *args) {
    double now, cap, failure;
    if (!PyArg_ParseTuple(args, "ddd:expire", &now, &cap, &failure) || enter(r) < 0) {
        return NULL;
    }
    PyObject *lost = PyList_New(0);
    if (!lost) {
        r->busy = 0;
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams && r->err == ERR_NONE; i++) {
        stream_t *s = &r->streams[i];
        if (s->state != S_ACTIVE || s->deadline > now) {
            continue;
        }
        if (now - s->started >= failure) {
            r->err = ERR_TIMEOUT;
            r->err_code = i;
            r->err_detail = (long long)((now - s->started) * 1e9);
            break;
        }
        PyObject *f = PyFloat_FromDouble(s->started);
        if (!f || PyList_Append(lost, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(lost);
            r->busy = 0;
            return NULL;
        }
        Py_DECREF(f);
        s->retries++;
        if (emit(r, s, s->pending) < 0) {
            break;
        }
        s->expiries++;
        if (s->pending == P_QUERY) {
            r->queries++;
        } else {
            r->retransmissions++;
        }
        s->timeout = s->timeout * 2 < cap ? s->timeout * 2 : cap;
        s->deadline = now + s->timeout;
    }
    if (leave(r) < 0) {
        Py_DECREF(lost);
        return NULL;
    }
    return lost;
}

static PyObject *Run_next_deadline(RunObject *r, PyObject *unused) {
    (void)unused;
    return PyFloat_FromDouble(next_deadline(r));
}

static const char *state_names[] = {"waiting", "active", "done"};
static const char *pending_names[] = {"none", "data", "header", "query"};

PyDoc_STRVAR(stream_doc,
"stream(index, /)\n--\n\n"
"Stream `index`'s state: (slot, round, block, exp, state, pending, retries,\n"
"missing_workers or None, overflow, timer started, timer deadline); state\n"
"'waiting'/'active'/'done', pending what a timeout resends: 'none', 'data',\n"
"'header' or 'query'.");

static PyObject *Run_stream(RunObject *r, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (i < 0 || i >= (Py_ssize_t)r->nstreams) {
        PyErr_Format(PyExc_IndexError, "stream %zd outside 0..%u", i, r->nstreams);
        return NULL;
    }
    const stream_t *s = &r->streams[i];
    PyObject *missing = s->missing < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(s->missing);
    if (!missing) {
        return NULL;
    }
    return Py_BuildValue("(IKIissINOdd)", s->slot, (unsigned long long)s->round, s->block, (int)s->exp,
                         state_names[s->state], pending_names[s->pending], s->retries, missing,
                         s->overflow ? Py_True : Py_False, s->started, s->deadline);
}

static PyObject *Run_rounds(RunObject *r, PyObject *unused) {
    (void)unused;
    PyObject *list = PyList_New(r->nstreams);
    if (!list) {
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(r->streams[i].round);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* {slot: timer expiries of this allreduce} of the streams that had any. */
static PyObject *per_slot_retries(const RunObject *r) {
    PyObject *per_slot = PyDict_New();
    if (!per_slot) {
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].expiries) {
            PyObject *k = PyLong_FromUnsignedLong(r->streams[i].slot);
            PyObject *v = PyLong_FromUnsignedLong(r->streams[i].expiries);
            if (!k || !v || PyDict_SetItem(per_slot, k, v) < 0) {
                Py_XDECREF(k);
                Py_XDECREF(v);
                Py_DECREF(per_slot);
                return NULL;
            }
            Py_DECREF(k);
            Py_DECREF(v);
        }
    }
    return per_slot;
}

static PyObject *Run_counters(RunObject *r, PyObject *unused) {
    (void)unused;
    const struct {
        const char *name;
        uint64_t value;
    } counts[] = {
        {"packets_received", r->packets_received}, {"payload_bytes_received", r->payload_bytes_received},
        {"ignored_packets", r->ignored_packets},   {"packets_sent", r->packets_sent},
        {"payload_bytes_sent", r->payload_bytes_sent}, {"retransmissions", r->retransmissions},
        {"queries", r->queries},                   {"gso_sends", r->gso_sends},
        {"gso_segments", r->gso_segments},         {"gso_fallbacks", r->gso_fallbacks},
        {"gro_buffers", r->gro_buffers},           {"gro_segments", r->gro_segments},
        {"unauthenticated", r->unauthenticated},
    };
    PyObject *d = PyDict_New(), *per_slot = d ? per_slot_retries(r) : NULL;
    if (!per_slot || PyDict_SetItemString(d, "per_slot_retries", per_slot) < 0) {
        Py_XDECREF(per_slot);
        Py_XDECREF(d);
        return NULL;
    }
    Py_DECREF(per_slot);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(counts[i].value);
        if (!v || PyDict_SetItemString(d, counts[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *Run_get_active(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->active);
}
static PyObject *Run_get_waiting(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->nstreams - r->next_start);
}
static PyObject *Run_get_unfinished(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->unfinished);
}
static PyObject *Run_get_gso_errno(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromLong(r->gso_errno);
}
static PyObject *Run_get_float_overflow(RunObject *r, void *c) {
    (void)c;
    return PyBool_FromLong(r->float_overflow);
}
static PyObject *Run_get_overflow(RunObject *r, void *c) {
    (void)c;
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].overflow) {
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

/* ---------------------------------------------------------------------------
 * Construction
 */

static void Run_dealloc(RunObject *r) {
    if (r->held & 1) PyBuffer_Release(&r->tensor);
    if (r->held & 2) PyBuffer_Release(&r->out);
    if (r->held & 4) PyBuffer_Release(&r->nonzero);
    if (r->held & 8) PyBuffer_Release(&r->exps);
    free(r->streams);
    for (int i = 0; i < r->nouts; i++) {
        if (r->outs[i].ring.obj) r->outs[i].ring.ops->unuse(r->outs[i].ring.obj);
        free(r->outs[i].buf);
        free(r->outs[i].dgrams);
        free(r->outs[i].msgs);
        free(r->outs[i].iov);
        free(r->outs[i].gmsgs);
        free(r->outs[i].ctl);
    }
    free(r->outs);
    for (int i = 0; i < r->nins; i++) {
        if (r->ins[i].ring.obj) r->ins[i].ring.ops->unuse(r->ins[i].ring.obj);
        free(r->ins[i].peers);
    }
    free(r->ins);
    free(r->rbuf);
    free(r->pfds);
    free(r->rmsgs);
    free(r->riov);
    free(r->rnames);
    free(r->rctl);
    free(r->samples);
    free(r->scratch);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

/* float32 or int32, native byte order, C-contiguous. */
static int get_values(PyObject *obj, const char *name, int writable, Py_buffer *v, int *is_float) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || (*f == (PY_BIG_ENDIAN ? '>' : '<'))) {
        f++;
    }
    int fl = v->itemsize == 4 && !strcmp(f, "f");
    int in = v->itemsize == 4 && (!strcmp(f, "i") || !strcmp(f, "l"));
    if (!fl && !in) {
        PyErr_Format(PyExc_TypeError, "%s must be float32 or int32 in native byte order, not format '%s'", name,
                     v->format ? v->format : "B");
        PyBuffer_Release(v);
        return -1;
    }
    *is_float = fl;
    return 0;
}

static int get_bytes(PyObject *obj, const char *name, Py_buffer *v) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return -1;
    }
    if (v->itemsize != 1) {
        PyErr_Format(PyExc_TypeError, "%s must be a bool or uint8 buffer", name);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static long long seq_int(PyObject *seq, Py_ssize_t i) {
    PyObject *o = PySequence_GetItem(seq, i);
    if (!o) {
        return -1;
    }
    long long v = PyLong_AsLongLong(o);
    Py_DECREF(o);
    return v;
}

/* The ring functions of `o`: PacketRing's, or those its type hands over as the capsule
 * `_ring_ops` (p4reduce._xdp's XskSocket); NULL without an error for anything else. */
static const ring_ops_t *ring_ops_of(PyObject *o) {
    if (PyObject_TypeCheck(o, &PacketRingType)) {
        return &pring_ops;
    }
    if (PyLong_Check(o)) {
        return NULL;
    }
    PyObject *capsule = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "_ring_ops");
    if (!capsule) {
        PyErr_Clear();
        return NULL;
    }
    const ring_ops_t *ops = PyCapsule_GetPointer(capsule, RING_OPS_CAPSULE);
    Py_DECREF(capsule);
    if (!ops) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s's ring functions are of another version (rebuild p4reduce)",
                     Py_TYPE(o)->tp_name);
    }
    return ops;
}

/* A socket's fd (an int; -1: none) or a raw transport's ring (PacketRing, XskSocket: its
 * fd; *ring then holds it). */
static int take_socket(RunObject *r, PyObject *o, ring_ref_t *ring, long long *fd) {
    const ring_ops_t *ops = ring_ops_of(o);
    if (ops) {
        if (!ops->usable(o)) {
            PyErr_Format(PyExc_ValueError, "the %s ring is closed", ops->transport);
            return -1;
        }
        ops->use(o);
        ring->obj = o;
        ring->ops = ops;
        *fd = ops->fd(o);
        const uint32_t spin = ops->spin_us(o);
        if (spin > r->spin_us) r->spin_us = spin;
        r->nrings++;
        return 0;
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    *fd = PyLong_AsLongLong(o);
    return *fd == -1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *Run_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"tensor", "out", "nonzero", "exps", "job_id", "worker_id", "num_workers",
                             "block_size", "num_slots", "slot_base", "dense", "epoch", "fingerprint",
                             "rounds", "sessions", "limits", "send_fds", "receivers", "first_block",
                             "shard_blocks", "gso", "group_sessions", "key", NULL};
    PyObject *tensor, *out, *nonzero, *exps, *rounds, *sessions, *limits, *send_fds, *receivers;
    PyObject *group_sessions = NULL, *key = Py_None;
    unsigned job_id, worker_id, num_workers, block_size, num_slots, slot_base, epoch, fp;
    unsigned first_block = 0, shard_blocks = 0;
    int dense, gso = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOIIIIIIpIIOOOOO|IIpOO:Run", kwlist, &tensor, &out, &nonzero,
                                     &exps, &job_id, &worker_id, &num_workers, &block_size, &num_slots,
                                     &slot_base, &dense, &epoch, &fp, &rounds, &sessions, &limits, &send_fds,
                                     &receivers, &first_block, &shard_blocks, &gso, &group_sessions, &key)) {
        return NULL;
    }
    if (block_size < 1 || num_slots < 1 || num_workers < 1 || slot_base + num_slots > 0x8000 || job_id > 0xffff ||
        worker_id > 0xff) {
        PyErr_SetString(PyExc_ValueError, "job geometry outside what the wire carries");
        return NULL;
    }
    RunObject *r = (RunObject *)type->tp_alloc(type, 0);
    if (!r) {
        return NULL;
    }
    int out_float;
    if (get_values(tensor, "tensor", 0, &r->tensor, &r->is_float) < 0) goto error;
    r->held |= 1;
    if (get_values(out, "out", 1, &r->out, &out_float) < 0) goto error;
    r->held |= 2;
    if (get_bytes(nonzero, "nonzero", &r->nonzero) < 0) goto error;
    r->held |= 4;
    if (get_bytes(exps, "exps", &r->exps) < 0) goto error;
    r->held |= 8;
    r->length = r->tensor.len / 4;
    r->out_count = r->out.len / 4;
    const Py_ssize_t nblocks = r->length ? (r->length - 1) / block_size + 1 : 0;
    if (out_float != r->is_float || (!shard_blocks && (r->out.len != r->tensor.len || first_block)) ||
        r->nonzero.len != nblocks || r->exps.len != nblocks || nblocks > 0xfffffffeLL) {
        PyErr_SetString(PyExc_ValueError, "out, nonzero and exps must match the tensor");
        goto error;
    }
    if (shard_blocks && (first_block % shard_blocks || first_block / shard_blocks != worker_id)) {
        PyErr_SetString(PyExc_ValueError, "a reduce-scatter's output starts at this worker's first block");
        goto error;
    }
    if (key != Py_None) {
        Py_buffer kv;
        if (PyObject_GetBuffer(key, &kv, PyBUF_SIMPLE) < 0) goto error;
        if (kv.len != 16) {
            PyBuffer_Release(&kv);
            PyErr_SetString(PyExc_ValueError, "a job key is 16 bytes");
            goto error;
        }
        r->key = sip_key(kv.buf);
        r->keyed = 1;
        PyBuffer_Release(&kv);
    }
    r->first_block = first_block;
    r->shard_blocks = shard_blocks;
    r->nblocks = (uint32_t)nblocks;
    r->block_size = block_size;
    r->num_slots = num_slots;
    r->slot_base = slot_base;
    r->job_id = job_id;
    r->worker_id = worker_id;
    r->epoch = epoch;
    r->fingerprint = fp;
    r->blocks_field = (uint32_t)nblocks;
    r->dense = dense;
    for (unsigned m = num_workers - 1; m; m >>= 1) {
        r->log2n++;
    }
    Py_ssize_t ns = PySequence_Size(rounds), ne = PySequence_Size(sessions);
    if (ns < 0 || ne < 0) goto error;
    if (ns > num_slots || ns > nblocks || ne < 1 || PySequence_Size(limits) != ne ||
        PySequence_Size(send_fds) != ne || (group_sessions && PySequence_Size(group_sessions) != ne)) {
        PyErr_SetString(PyExc_ValueError,
                        "rounds: one per stream; sessions, limits, send_fds, group_sessions: one per endpoint");
        goto error;
    }
    r->nstreams = r->unfinished = (uint32_t)ns;
    r->streams = calloc(ns ? ns : 1, sizeof *r->streams);
    r->nouts = (int)ne;
    r->outs = calloc(ne, sizeof *r->outs);
    if (!r->streams || !r->outs) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t e = 0; e < ne; e++) {
        out_t *o = &r->outs[e];
        long long session = seq_int(sessions, e), limit = seq_int(limits, e), fd;
        if (PyErr_Occurred()) goto error;
        PyObject *sock = PySequence_GetItem(send_fds, e);
        if (!sock) goto error;
        const int taken = take_socket(r, sock, &o->ring, &fd);
        Py_DECREF(sock);
        if (taken < 0) goto error;
        o->session = (uint32_t)session;
        o->group_session = group_sessions ? (uint32_t)seq_int(group_sessions, e) : 0;
        if (PyErr_Occurred()) goto error;
        o->limit = limit > 0 ? (uint32_t)limit : 0;
        o->fd = (int)fd;
        o->gso = gso;
        o->cap = FLUSH_BYTES + HEADER_LEN + 4 * (size_t)block_size;
        o->buf = malloc(o->cap);
        if (!o->buf) {
            PyErr_NoMemory();
            goto error;
        }
    }
    for (Py_ssize_t i = 0; i < ns; i++) {
        stream_t *s = &r->streams[i];
        PyObject *o = PySequence_GetItem(rounds, i);
        if (!o) goto error;
        s->round = PyLong_AsUnsignedLongLongMask(o);
        Py_DECREF(o);
        if (PyErr_Occurred()) goto error;
        s->slot = slot_base + (uint32_t)i;
        s->block = NONE_BLOCK;
        s->exp = EXP_BIAS;
        s->cursor = (uint32_t)i;
        s->missing = -1;
        s->endpoint = (int)(i % ne);
        s->state = S_WAITING;
    }
    Py_ssize_t ni = PySequence_Size(receivers);
    if (ni < 0) goto error;
    r->ins = calloc(ni ? ni : 1, sizeof *r->ins);
    if (!r->ins) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < ni; i++) {
        PyObject *item = PySequence_GetItem(receivers, i), *peers = NULL, *sock;
        if (!item) goto error;
        in_t *in = &r->ins[i];
        r->nins = (int)i + 1;
        long long fd = -1;
        /* (item holds sock and peers until it is released) */
        int ok = PyArg_ParseTuple(item, "OO", &sock, &peers) && take_socket(r, sock, &in->ring, &fd) == 0;
        Py_XINCREF(peers);
        Py_DECREF(item);
        Py_ssize_t np = ok ? PySequence_Size(peers) : -1;
        if (np < 0) {
            Py_XDECREF(peers);
            goto error;
        }
        in->fd = (int)fd;
        in->endpoint = i < ne ? (int)i : -1; /* the endpoints' sockets, then the group's */
        in->peers = calloc(np ? np : 1, sizeof *in->peers);
        if (!in->peers) {
            PyErr_NoMemory();
            goto error;
        }
        for (Py_ssize_t k = 0; k < np; k++) {
            PyObject *peer = PySequence_GetItem(peers, k);
            unsigned long ip;
            int port;
            if (!peer) {
                Py_DECREF(peers);
                goto error;
            }
            ok = PyArg_ParseTuple(peer, "ki", &ip, &port);
            Py_DECREF(peer);
            if (!ok) {
                Py_DECREF(peers);
                goto error;
            }
            in->peers[k].ip = (uint32_t)ip;
            in->peers[k].port = (uint16_t)port;
            in->npeers = (int)k + 1;
        }
        Py_DECREF(peers);
    }
    return (PyObject *)r;
error:
    Py_DECREF(r);
    return NULL;
}

static PyMethodDef Run_methods[] = {
    {"start", (PyCFunction)Run_start, METH_VARARGS, start_doc},
    {"feed", (PyCFunction)Run_feed, METH_VARARGS, feed_doc},
    {"poll", (PyCFunction)Run_poll, METH_VARARGS, poll_doc},
    {"flush", (PyCFunction)Run_flush, METH_NOARGS, flush_doc},
    {"take_output", (PyCFunction)Run_take_output, METH_NOARGS, take_output_doc},
    {"expire", (PyCFunction)Run_expire, METH_VARARGS, expire_doc},
    {"next_deadline", (PyCFunction)Run_next_deadline, METH_NOARGS,
     "next_deadline()\n--\n\nThe earliest timer deadline of the streams in flight (inf: none)."},
    {"stream", (PyCFunction)Run_stream, METH_O, stream_doc},
    {"rounds", (PyCFunction)Run_rounds, METH_NOARGS, "rounds()\n--\n\nEach stream's slot round counter."},
    {"counters", (PyCFunction)Run_counters, METH_NOARGS,
     "counters()\n--\n\nAllreduceStats' counts so far, as a dict (per_slot_retries: {slot: expiries}),\n"
     "and the UDP offload's: gso_sends/gso_segments (UDP_SEGMENT messages, their datagrams),\n"
     "gso_fallbacks (such messages sent datagram by datagram), gro_buffers/gro_segments."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Run_getset[] = {
    {"active", (getter)Run_get_active, NULL, "streams started and not finished", NULL},
    {"waiting", (getter)Run_get_waiting, NULL, "streams not started yet", NULL},
    {"unfinished", (getter)Run_get_unfinished, NULL, "streams not finished", NULL},
    {"overflow", (getter)Run_get_overflow, NULL, "some RESULT was flagged OVERFLOW", NULL},
    {"float_overflow", (getter)Run_get_float_overflow, NULL, "some float32 sum is Inf", NULL},
    {"gso_errno", (getter)Run_get_gso_errno, NULL,
     "why the kernel refused a UDP_SEGMENT send (GSO then off for that endpoint); 0: it never did", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Run_doc,
"Run(tensor, out, nonzero, exps, *, job_id, worker_id, num_workers, block_size,\n"
"    num_slots, slot_base, dense, epoch, fingerprint, rounds, sessions, limits,\n"
"    send_fds, receivers, first_block=0, shard_blocks=0, gso=False)\n--\n\n"
"The streams of one allreduce. `tensor`, `out`: flat float32 or int32 (may be the\n"
"same array); `nonzero`, `exps`: BlockPlan's per-block flags and exponent bytes;\n"
"`num_workers`: what fixed point scales by; `rounds`: each used stream's slot\n"
"round; per aggregator endpoint (stream s goes to s mod len): its session, the\n"
"agreed datagram payload size (0: a packet per datagram) and its connected\n"
"socket's fd or its PacketRing (-1: datagrams stay queued for take_output());\n"
"`receivers`: a (fd or PacketRing, [(IPv4 as int, port), ...]) per socket results\n"
"arrive on, with the sources it accepts (fd -1: only feed() uses it). `gso`: send each endpoint's runs of\n"
"equal-size datagrams as UDP_SEGMENT messages (off for good on an endpoint\n"
"where the kernel refuses one). Received UDP_GRO buffers are split whenever a\n"
"socket has UDP_GRO on.");

static PyTypeObject RunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "p4reduce._worker.Run",
    .tp_basicsize = sizeof(RunObject),
    .tp_dealloc = (destructor)Run_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Run_doc,
    .tp_methods = Run_methods,
    .tp_getset = Run_getset,
    .tp_new = Run_new,
};

static int exec_module(PyObject *m) {
    if (PyType_Ready(&RunType) < 0 || pring_add_to_module(m) < 0) {
        return -1;
    }
    if (!Failed) {
        Failed = PyErr_NewExceptionWithDoc(
            "p4reduce._worker.Failed",
            "An allreduce cannot go on: args ('job', code, detail, epoch), ('protocol', message) or "
            "('timeout', stream index, seconds waited). p4reduce.hostagent.fastpath raises the "
            "Python engine's exception for it.",
            NULL, NULL);
        if (!Failed) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "Run", (PyObject *)&RunType) < 0 ||
        PyModule_AddObjectRef(m, "Failed", Failed) < 0 ||
        PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "p4reduce._worker",
    .m_doc = "The host agent's per-round state machine in C; import p4reduce._native_worker instead.",
    .m_size = 0,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__worker(void) { return PyModuleDef_Init(&module); }
