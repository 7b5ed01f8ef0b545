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
 * the final slot state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "_udp.h"  /* UDP GSO and GRO */
#include "_siphash.h" /* the MAC of authenticated jobs */
#include "_wire.h" /* the slot registers' int64 sums of wire values */

#define ABI_VERSION 5 /* p4reduce/aggregator/native.py refuses a build of another version */

#define HEADER_LEN 36
#define PROTOCOL_VERSION 2
#define T_DATA 1
#define T_RESULT 2
#define T_QUERY 3
#define T_PENDING 4
#define T_ERROR 8
#define NONE_BLOCK 0xFFFFFFFFu
#define ALL_WORKERS 0xFF
#define F_OVERFLOW 1
#define F_MISMATCH 2
#define F_SCATTER 4       /* a reduce-scatter's DATA (echoed in RESULT): bits 3..7 the owner */
#define OWNER_SHIFT 3
#define SCATTER_MASK 0xFC
#define NO_OWNER 0xFF
#define MAX_WORKERS 32
#define MAX_JOBS 65536
#define E_TENSOR 5
#define E_SEQUENCE 6
#define E_BAD_BLOCKS 7
#define E_TOO_LARGE 11
#define IOV_PARTS 1024           /* the kernel's IOV_MAX: packets one datagram may gather */
#define FLUSH_BYTES (128 << 10)  /* as BatchSender.full */
#define RECV_BUF 65536
#define STREAMS_DONE_KEPT 4      /* epochs whose stream count is remembered (as engine.py) */
#define END_KEY (((uint64_t)NONE_BLOCK << 8) | 255u)

/* ---------------------------------------------------------------------------
 * Counters: the Python engine's names and meanings (p4reduce.aggregator.engine).
 */
enum {
    C_DATAGRAMS_IN, C_PACKETS_IN, C_BYTES_IN, C_PACKETS_OUT, C_BYTES_OUT,
    C_COUNTED, C_COMPLETED, C_RESENT, C_FAILED,
    C_DROP_STALE, C_DROP_PENDING, C_DROP_DUPLICATE, C_DROP_UNEXPECTED, C_DROP_BAD_EXP,
    C_DROP_BAD_COUNT,
    C_STREAMS_COMPLETED, C_ALLREDUCES_COMPLETED, C_JOBS_FAILED, C_DROP_NO_ADDRESS, C_SEND_ERRORS,
    C_ANSWERS_LIMITED,
    C_N
};
static const char *counter_names[C_N] = {
    "datagrams_in", "packets_in", "bytes_in", "packets_out", "bytes_out",
    "counted", "completed", "resent", "failed",
    "drop_stale", "drop_pending", "drop_duplicate", "drop_unexpected", "drop_bad_exp",
    "drop_bad_count",
    "streams_completed", "allreduces_completed", "jobs_failed", "drop_no_address", "send_errors",
    "answers_limited",
};

/* Per-job counters: the switch's job_events cells (JOB_EVENT_NAMES; AggregatorEngine.job_counters
 * says which event goes where). The core counts the packets it handles itself. */
enum { J_PACKETS, J_DROPS, J_RETRANSMISSIONS, J_ROUNDS, J_N };

/* Batched-I/O statistics (not engine counters: they tell how the datagrams moved). */
enum {
    IO_RECV_CALLS, IO_SEND_CALLS, IO_GRO_BUFFERS, IO_GRO_SEGMENTS, IO_GSO_SENDS, IO_GSO_SEGMENTS,
    IO_GSO_FALLBACKS, IO_N
};
static const char *io_names[IO_N] = {
    "recv_calls", "send_calls", "gro_buffers", "gro_segments", "gso_sends", "gso_segments",
    "gso_fallbacks",
};

/* Events for the Python side's log (drained by `events()`). */
enum { L_ALLREDUCE = 1, L_FAILED = 2, L_STREAM = 3, L_DROP = 4, L_GSO_OFF = 5 };
typedef struct {
    uint32_t kind, job, a, b, c;
} logevent_t;

/* ---------------------------------------------------------------------------
 * State
 */
typedef struct {
    uint32_t epoch, block, fingerprint, len;
    uint8_t shadow;
    uint8_t owner;    /* a SCATTER data round's owner (the only copy with values), or NO_OWNER */
    uint8_t *payload; /* the RESULT; worker_id is rewritten per copy */
} stored_t;

typedef struct {
    uint64_t round;
    uint32_t epoch, prev_epoch;
    uint8_t has_epoch, has_prev;
    uint32_t blocks, fingerprint;
    uint8_t mismatch_code; /* 0: the round's packets agree */
    uint32_t mismatch_detail;
    uint8_t scatter;       /* SCATTER/owner bits of the round's first counted DATA */
    uint32_t block;
    uint8_t exp;
    uint32_t expected, seen;
    uint8_t acc_empty;
    uint64_t keys[MAX_WORKERS];
    stored_t *hist;
    uint32_t hist_len, hist_cap;
    uint8_t hist_sorted; /* entries: one epoch, blocks ascending after the first */
    /* Result buffers (each room for a header and a block) of finished allreduces, kept
     * for the next ones: a malloc and a free per round cost more than its other work. */
    uint8_t **spare;
    uint32_t spare_len, spare_cap;
    double heard; /* CLOCK_MONOTONIC of its last packet (SlotState.heard) */
    int64_t acc[];
} slot_t;

typedef struct {
    uint8_t present;
    uint32_t session, ip; /* ip in network byte order */
    uint16_t port;        /* host byte order */
    int32_t pack;
} member_t;

typedef struct {
    uint32_t job_id, n, dense, slot_base, num_slots, block_size, shard_index, shard_count;
    uint32_t max_blocks; /* JobSpec.max_blocks: bounds the results kept for re-sends */
    uint32_t all_workers;
    uint8_t multicast;
    uint32_t group_ip;
    uint16_t group_port;
    uint32_t group_session; /* the session of results sent to the group (engine.py's _Job) */
    uint8_t keyed;          /* an authenticated job (JobSpec.key): every packet sealed both ways */
    sipkey_t key;
    member_t members[MAX_WORKERS];
    uint8_t failed, started;
    uint8_t fail_code;
    uint32_t fail_detail;
    uint32_t sd_epoch[STREAMS_DONE_KEPT + 1], sd_count[STREAMS_DONE_KEPT + 1];
    uint32_t sd_len;
    uint64_t counts[J_N]; /* per-job counters: kept by reset_job, zero in a new job */
    slot_t **slots;
} job_t;

typedef struct {
    uint32_t off, len, next;
} opkt_t;
typedef struct {
    uint32_t ip;
    uint16_t port;
    uint32_t size, npkts, head, tail;
} odgram_t;

/* A sendmmsg message: datagrams (linked by gnext) to one address, all of `seg` bytes but a
 * shorter last one, sent as one UDP_SEGMENT buffer when there are several. */
typedef struct {
    uint32_t head, tail, seg, nseg, bytes, niov;
    uint8_t closed; /* a shorter datagram ended it */
} gmsg_t;

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    job_t **jobs;
    uint64_t counters[C_N];
    int debug;
    /* upstream (parent aggregator) addresses: their packets always go to Python */
    uint32_t *up_ip;
    uint16_t *up_port;
    Py_ssize_t n_up;
    /* receive batch */
    int batch;
    uint8_t *rbuf;
    struct mmsghdr *rmsgs;
    struct iovec *riovs;
    struct sockaddr_in *rnames;
    uint32_t *rlen, *rip;
    uint16_t *rport;
    uint8_t *rctl;    /* control buffers (UDP_GRO cmsg) */
    uint32_t *rseg;   /* segment size of a GRO buffer (0: one datagram) */
    int rn, cur, phase;
    uint64_t datagram_seq; /* datagrams (GRO segments) started so far */
    uint64_t answered;     /* the datagram that got an ERROR from here (one per datagram) */
    double now, idle_horizon; /* the batch's clock; a slot idle longer forgets its allreduces */
    uint32_t seg_off; /* the current datagram's offset in buffer cur */
    uint32_t off, good_end;
    /* UDP GSO: merge each address's run of equal-size datagrams into one message */
    int gso, gso_errno; /* gso_errno: why the kernel refused it at run time (GSO then off) */
    uint32_t *gnext;
    uint32_t gnext_cap;
    gmsg_t *gmsgs;
    uint32_t gmsgs_cap;
    uint8_t *sctl;
    uint32_t sctl_cap;
    uint64_t io[IO_N];
    /* send queue: packets copied into an arena, datagrams as linked lists of them */
    uint8_t *arena;
    size_t arena_len, arena_cap;
    opkt_t *pkts;
    uint32_t npkts, pkts_cap;
    odgram_t *dgrams;
    uint32_t ndgrams, dgrams_cap;
    size_t queued_bytes;
    uint64_t *omap_key; /* open datagram per address (packing): key ip<<16|port, +1 */
    uint32_t *omap_val;
    uint32_t omap_cap, omap_used;
    struct mmsghdr *smsgs;
    struct iovec *siovs;
    struct sockaddr_in *snames;
    uint32_t smsgs_cap, snames_cap, siovs_cap;
    /* test / benchmark output (fd -1): records ip(4) port(2) len(4) bytes */
    uint8_t *out;
    size_t out_len, out_cap;
    logevent_t *log;
    uint32_t log_len, log_cap;
    int nomem;
} Core;

/* ---------------------------------------------------------------------------
 * Helpers
 */
static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void count(Core *c, int i, uint64_t v) {
    /* One writer (the thread holding the mutex); readers load without it. */
    __atomic_store_n(&c->counters[i], c->counters[i] + v, __ATOMIC_RELAXED);
}
static inline void job_count(job_t *job, int i) {
    /* As count(): one writer; Core.job_counters reads under the mutex (jobs get freed). */
    __atomic_store_n(&job->counts[i], job->counts[i] + 1, __ATOMIC_RELAXED);
}
/* The per-job cell of a slot's event (engine.py's _job_cells for what the core handles). */
static inline int job_cell(int event) {
    switch (event) {
    case C_COUNTED: return -1;
    case C_COMPLETED: return J_ROUNDS;
    case C_RESENT: case C_DROP_STALE: case C_DROP_PENDING: case C_DROP_DUPLICATE: return J_RETRANSMISSIONS;
    default: return J_DROPS; /* unexpected, bad exp, bad count */
    }
}
static inline int epoch_is_newer(uint32_t candidate, uint32_t current) {
    uint32_t d = candidate - current;
    return d != 0 && d < 0x80000000u;
}

typedef struct {
    uint8_t type, worker, flags, shadow, exp, next_exp;
    uint16_t job, slot, count;
    uint32_t epoch, block, next_block, session, blocks, fingerprint;
} hdr_t;

static inline void parse(const uint8_t *p, hdr_t *h) {
    h->type = p[1];
    h->job = be16(p + 2);
    h->worker = p[4];
    h->flags = p[5];
    uint16_t pool = be16(p + 6);
    h->slot = pool & 0x7FFF;
    h->shadow = (uint8_t)(pool >> 15);
    h->epoch = be32(p + 8);
    h->block = be32(p + 12);
    h->next_block = be32(p + 16);
    h->exp = p[20];
    h->next_exp = p[21];
    h->count = be16(p + 22);
    h->session = be32(p + 24);
    h->blocks = be32(p + 28);
    h->fingerprint = be32(p + 32);
}

static inline void write_header(uint8_t *p, uint8_t type, uint32_t job, uint8_t worker, uint8_t flags,
                                uint32_t slot, uint32_t shadow, uint32_t epoch, uint32_t block,
                                uint32_t next_block, uint8_t exp, uint8_t next_exp, uint32_t count_,
                                uint32_t session, uint32_t blocks, uint32_t fingerprint) {
    p[0] = PROTOCOL_VERSION;
    p[1] = type;
    put16(p + 2, job);
    p[4] = worker;
    p[5] = flags;
    put16(p + 6, (shadow & 1) << 15 | slot);
    put32(p + 8, epoch);
    put32(p + 12, block);
    put32(p + 16, next_block);
    p[20] = exp;
    p[21] = next_exp;
    put16(p + 22, count_);
    put32(p + 24, session);
    put32(p + 28, blocks);
    put32(p + 32, fingerprint);
}

static int grow(void **buf, uint32_t *cap, uint32_t need, size_t item) {
    if (need <= *cap) return 0;
    uint32_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *p = realloc(*buf, (size_t)n * item);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

static void log_event(Core *c, uint32_t kind, uint32_t job, uint32_t a, uint32_t b, uint32_t cc) {
    if (c->log_len >= 1u << 20) return; /* nobody drains it: keep memory bounded */
    if (grow((void **)&c->log, &c->log_cap, c->log_len + 1, sizeof(logevent_t))) return;
    c->log[c->log_len++] = (logevent_t){kind, job, a, b, cc};
}

/* ---------------------------------------------------------------------------
 * Send queue: the same packing as p4reduce.transport.batchio.BatchSender.add
 */
static void omap_clear(Core *c) {
    if (c->omap_used) memset(c->omap_key, 0, c->omap_cap * sizeof(uint64_t));
    c->omap_used = 0;
}

static uint32_t *omap_slot(Core *c, uint32_t ip, uint16_t port, int insert) {
    uint64_t key = ((uint64_t)ip << 16 | port) + 1;
    uint32_t mask = c->omap_cap - 1;
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    for (;;) {
        if (c->omap_key[i] == key) return &c->omap_val[i];
        if (c->omap_key[i] == 0) {
            if (!insert || c->omap_used * 2 >= c->omap_cap) return NULL;
            c->omap_key[i] = key;
            c->omap_used++;
            return &c->omap_val[i];
        }
        i = (i + 1) & mask;
    }
}

/* Room for a packet of `len` bytes to (ip, port), packed with earlier ones up to `pack`
 * bytes (0: a datagram of its own). Returns where to write it (valid until the next call). */
static uint8_t *out_packet(Core *c, uint32_t ip, uint16_t port, uint32_t pack, uint32_t len) {
    if (c->arena_len + len > c->arena_cap) {
        size_t n = c->arena_cap ? c->arena_cap : (1 << 20);
        while (n < c->arena_len + len) n *= 2;
        uint8_t *a = realloc(c->arena, n);
        if (!a) { c->nomem = 1; return NULL; }
        c->arena = a;
        c->arena_cap = n;
    }
    if (grow((void **)&c->pkts, &c->pkts_cap, c->npkts + 1, sizeof(opkt_t))) { c->nomem = 1; return NULL; }
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
    if (grow((void **)&c->dgrams, &c->dgrams_cap, c->ndgrams + 1, sizeof(odgram_t))) { c->nomem = 1; return NULL; }
    uint32_t di = c->ndgrams++;
    c->dgrams[di] = (odgram_t){ip, port, len, 1, pi, pi};
    if (pack) {
        if (open) *open = di;
        else if ((open = omap_slot(c, ip, port, 1)) != NULL) *open = di;
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

static inline void io_add(Core *c, int i, uint64_t v) {
    __atomic_store_n(&c->io[i], c->io[i] + v, __ATOMIC_RELAXED);
}

/* Groups the queued datagrams into sendmmsg messages. Without GSO each datagram is one.
 * With GSO, a datagram joins the message of the last one to its address while that stays
 * one UDP_SEGMENT buffer: every segment of the first one's size but a shorter last, at
 * most GSO_MAX_SEGS segments, GSO_MAX_BYTES bytes and IOV_PARTS buffers. Each address's
 * datagrams keep their order (messages to different addresses may pass each other).
 * Returns the number of messages, or -1 without memory. */
static int64_t group_messages(Core *c) {
    if (grow((void **)&c->gnext, &c->gnext_cap, c->ndgrams, sizeof(uint32_t)) ||
        grow((void **)&c->gmsgs, &c->gmsgs_cap, c->ndgrams, sizeof(gmsg_t)))
        return -1;
    uint32_t nm = 0;
    omap_clear(c); /* the packing map is done with: reset_queue follows every flush */
    for (uint32_t i = 0; i < c->ndgrams; i++) {
        odgram_t *d = &c->dgrams[i];
        c->gnext[i] = UINT32_MAX;
        uint32_t *open = c->gso ? omap_slot(c, d->ip, d->port, 0) : NULL;
        if (open) {
            gmsg_t *g = &c->gmsgs[*open];
            if (!g->closed && d->size <= g->seg && g->nseg < GSO_MAX_SEGS &&
                g->bytes + d->size <= GSO_MAX_BYTES && g->niov + d->npkts <= IOV_PARTS) {
                c->gnext[g->tail] = i;
                g->tail = i;
                g->nseg++;
                g->bytes += d->size;
                g->niov += d->npkts;
                if (d->size < g->seg) g->closed = 1;
                continue;
            }
        }
        uint32_t m = nm++;
        c->gmsgs[m] = (gmsg_t){i, i, d->size, 1, d->size, d->npkts, 0};
        if (c->gso) {
            if (open) *open = m;
            else if ((open = omap_slot(c, d->ip, d->port, 1)) != NULL) *open = m;
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
        if (r < 0) count(c, C_SEND_ERRORS, 1);
    }
}

/* sendmmsg's the queue: one message per datagram, or per GSO run (group_messages). */
static void send_queue(Core *c, int fd) {
    int64_t n = group_messages(c);
    if (n < 0 ||
        grow((void **)&c->smsgs, &c->smsgs_cap, (uint32_t)n, sizeof(struct mmsghdr)) ||
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
        for (uint32_t i = g->head; i != UINT32_MAX; i = c->gnext[i])
            for (uint32_t p = c->dgrams[i].head; p != UINT32_MAX; p = c->pkts[p].next) {
                c->siovs[iv].iov_base = c->arena + c->pkts[p].off;
                c->siovs[iv].iov_len = c->pkts[p].len;
                iv++;
            }
        if (g->nseg > 1) udp_set_segment(&mh->msg_hdr, c->sctl + (size_t)m * SCTL_LEN, (uint16_t)g->seg);
    }
    uint32_t done = 0;
    while (done < nm) {
        int sent = sendmmsg(fd, &c->smsgs[done], nm - done, 0);
        io_add(c, IO_SEND_CALLS, 1);
        if (sent > 0) {
            for (uint32_t m = done; m < done + (uint32_t)sent; m++)
                if (c->gmsgs[m].nseg > 1) {
                    io_add(c, IO_GSO_SENDS, 1);
                    io_add(c, IO_GSO_SEGMENTS, c->gmsgs[m].nseg);
                }
            done += (uint32_t)sent;
            continue;
        }
        int err = sent < 0 ? errno : 0;
        if (sent < 0 && err == EINTR) continue;
        gmsg_t *g = &c->gmsgs[done];
        if (g->nseg > 1 && udp_gso_refused(err)) {
            /* The kernel would not segment it (a route whose device lacks checksum offload:
             * EIO; a segment over the path MTU: EINVAL): the same datagrams one by one. */
            io_add(c, IO_GSO_FALLBACKS, 1);
            if (err == EIO || err == EOPNOTSUPP || err == ENOPROTOOPT) {
                c->gso = 0; /* for good: the next flushes would fail the same way */
                c->gso_errno = err;
                log_event(c, L_GSO_OFF, 0, (uint32_t)err, 0, 0);
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
static void flush(Core *c, int fd) {
    if (!c->ndgrams) { reset_queue(c); return; }
    if (fd == -1) {
        size_t need = c->out_len;
        for (uint32_t i = 0; i < c->ndgrams; i++) need += 10 + c->dgrams[i].size;
        if (need > c->out_cap) {
            size_t n = c->out_cap ? c->out_cap : 65536;
            while (n < need) n *= 2;
            uint8_t *o = realloc(c->out, n);
            if (!o) { c->nomem = 1; reset_queue(c); return; }
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

/* ---------------------------------------------------------------------------
 * Slots (the model: p4reduce/aggregator/slot.py, SlotState)
 */
#define MAX_SPARE 64 /* result buffers a slot keeps for reuse */

static void free_slot(slot_t *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->hist_len; i++) free(s->hist[i].payload);
    for (uint32_t i = 0; i < s->spare_len; i++) free(s->spare[i]);
    free(s->hist);
    free(s->spare);
    free(s);
}

/* A buffer for one of the slot's results: a spare, or a new one. */
static uint8_t *result_buffer(slot_t *s, uint32_t block_size) {
    return s->spare_len ? s->spare[--s->spare_len] : malloc(HEADER_LEN + 4 * (size_t)block_size);
}

static void recycle(slot_t *s, uint8_t *payload) {
    if (s->spare_len < MAX_SPARE && !grow((void **)&s->spare, &s->spare_cap, s->spare_len + 1, sizeof(uint8_t *)))
        s->spare[s->spare_len++] = payload;
    else
        free(payload);
}

static slot_t *get_slot(job_t *job, uint32_t index) {
    slot_t *s = job->slots[index];
    if (s) return s;
    s = calloc(1, sizeof(slot_t) + (size_t)job->block_size * sizeof(int64_t));
    if (!s) return NULL;
    s->block = NONE_BLOCK;
    s->exp = EXP_BIAS;
    s->expected = job->all_workers;
    s->acc_empty = 1;
    for (int w = 0; w < MAX_WORKERS; w++) s->keys[w] = END_KEY;
    s->hist_sorted = 1;
    job->slots[index] = s;
    return s;
}

/* SlotState.heard: a slot between allreduces that heard nothing for `horizon` seconds
 * forgets their epochs and kept results, so its next bootstrap is new whatever its epoch
 * (no epoch horizon: fewer than 2^31 allreduces fit in that time). */
static void clear_history(slot_t *s);
static void heard(slot_t *s, double now, double horizon) {
    if (s->heard && now - s->heard > horizon && s->block == NONE_BLOCK && s->seen == 0) {
        clear_history(s);
        s->has_epoch = s->has_prev = 0;
    }
    s->heard = now;
}

static int is_current(slot_t *s, const hdr_t *h) {
    if (h->shadow != (s->round & 1) || h->block != s->block) return 0;
    if (s->block == NONE_BLOCK && s->seen == 0)
        return !s->has_epoch || epoch_is_newer(h->epoch, s->epoch);
    if (s->block == NONE_BLOCK && h->epoch != s->epoch)
        return !s->has_prev || epoch_is_newer(h->epoch, s->prev_epoch);
    return h->epoch == s->epoch;
}

static stored_t *find_stored(slot_t *s, uint32_t epoch, uint32_t block) {
    if (!s->hist_len) return NULL;
    if (s->hist_sorted) { /* one epoch; NONE first, then blocks ascending */
        if (s->hist[0].epoch != epoch) return NULL;
        if (block == NONE_BLOCK) return s->hist[0].block == NONE_BLOCK ? &s->hist[0] : NULL;
        uint32_t lo = s->hist[0].block == NONE_BLOCK ? 1 : 0, hi = s->hist_len;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (s->hist[mid].block < block) lo = mid + 1;
            else hi = mid;
        }
        return lo < s->hist_len && s->hist[lo].block == block ? &s->hist[lo] : NULL;
    }
    for (uint32_t i = s->hist_len; i-- > 0;)
        if (s->hist[i].epoch == epoch && s->hist[i].block == block) return &s->hist[i];
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
    if (grow((void **)&s->hist, &s->hist_cap, s->hist_len + 1, sizeof(stored_t))) return -1;
    s->hist[s->hist_len++] = e;
    return 0;
}

static void clear_history(slot_t *s) {
    for (uint32_t i = 0; i < s->hist_len; i++) recycle(s, s->hist[i].payload);
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
static inline uint32_t sealed_len(const job_t *job, uint32_t len) { return len + (job->keyed ? MAC_LEN : 0); }
/* The job's MAC after the `len` bytes written at p (room made by sealed_len). */
static inline void seal(const job_t *job, uint8_t *p, uint32_t len) {
    if (job->keyed) mac_seal(job->key, p, len);
}

/* A unicast of a `len`-byte packet (its MAC not counted) to member w of the job (the
 * server's `destination`), or drop_no_address. */
static uint8_t *to_member(Core *c, job_t *job, uint32_t w, uint32_t len) {
    member_t *m = &job->members[w];
    if (!m->present) {
        count(c, C_DROP_NO_ADDRESS, 1);
        return NULL;
    }
    return out_packet(c, m->ip, m->port, (uint32_t)m->pack, sealed_len(job, len));
}

static uint32_t group_pack(job_t *job) {
    int32_t best = -1;
    for (uint32_t w = 0; w < job->n; w++)
        if (job->members[w].present && (best < 0 || job->members[w].pack < best)) best = job->members[w].pack;
    return best < 0 ? 0 : (uint32_t)best;
}

typedef struct {
    int event;       /* counter index */
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
    uint8_t *p = to_member(c, job, h->worker, HEADER_LEN);
    if (p) {
        write_header(p, T_PENDING, job->job_id, h->worker, 0, h->slot, h->shadow, h->epoch, h->block,
                     s->expected & ~s->seen, h->exp, 0, 0, h->session, h->blocks, h->fingerprint);
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
    dst[4] = (uint8_t)w;
    put32(dst + 24, w == ALL_WORKERS ? job->group_session : job->members[w].session);
    if (len != st->len) dst[22] = dst[23] = 0;
    seal(job, dst, len);
}

static void resend(Core *c, job_t *job, slot_t *s, const hdr_t *h, outcome_t *o) {
    stored_t *st = find_stored(s, h->epoch, h->block);
    if (!st || st->shadow != h->shadow || st->fingerprint != h->fingerprint) {
        o->event = C_DROP_STALE;
        return;
    }
    o->event = C_RESENT;
    o->out_packets = 1;
    uint32_t len = copy_len(st, h->worker);
    o->out_bytes = sealed_len(job, len);
    uint8_t *p = to_member(c, job, h->worker, len);
    if (p) copy_for(p, job, st, h->worker);
}

static void complete(Core *c, job_t *job, slot_t *s, const hdr_t *last, outcome_t *o) {
    uint64_t key = s->keys[0];
    for (uint32_t w = 1; w < job->n; w++)
        if (s->keys[w] < key) key = s->keys[w];
    uint32_t next_block = (uint32_t)(key >> 8);
    uint8_t next_exp = (uint8_t)(255 - (key & 0xFF));
    /* like the switch's: the SCATTER/owner bits of the packet that completed the round */
    uint8_t flags = last->flags & F_SCATTER ? last->flags & SCATTER_MASK : 0;
    if (s->mismatch_code) {
        flags |= F_MISMATCH;
        o->round_failed = 1;
        o->fail_code = s->mismatch_code;
        o->fail_detail = s->mismatch_detail;
    }
    uint32_t cnt = s->block == NONE_BLOCK ? 0 : job->block_size;
    uint32_t len = HEADER_LEN + 4 * cnt;
    uint8_t *payload = result_buffer(s, job->block_size);
    if (!payload) { c->nomem = 1; o->event = C_COMPLETED; return; }
    if (cnt) {
        if (s->acc_empty) memset(s->acc, 0, cnt * sizeof(int64_t));
        if (write_sums((const char *)s->acc, (Py_ssize_t)cnt, (char *)payload + HEADER_LEN, 1)) flags |= F_OVERFLOW;
    }
    write_header(payload, T_RESULT, job->job_id, job->multicast ? ALL_WORKERS : 0, flags, last->slot,
                 (uint32_t)(s->round & 1), last->epoch, s->block, next_block, s->exp, next_exp, cnt,
                 last->session, last->blocks, last->fingerprint);
    /* publish: keep it for re-sends, address a copy to every worker */
    uint8_t owner = s->block != NONE_BLOCK && (flags & F_SCATTER) ? flags >> OWNER_SHIFT : NO_OWNER;
    if (s->block == NONE_BLOCK) clear_history(s);
    stored_t e = {s->epoch, s->block, s->fingerprint, len, (uint8_t)(s->round & 1), owner, payload};
    if (store_result(s, e)) { recycle(s, payload); payload = NULL; c->nomem = 1; }
    const stored_t *st = payload ? &s->hist[s->hist_len - 1] : NULL;
    if (st && (st->block != e.block || st->epoch != e.epoch)) st = find_stored(s, e.epoch, e.block);
    o->event = C_COMPLETED;
    if (job->multicast) {
        o->out_packets = 0;
        o->out_bytes = 0;
        if (owner != NO_OWNER) { /* the values by unicast to their owner */
            o->out_packets++;
            o->out_bytes += sealed_len(job, len);
            uint8_t *p = st ? to_member(c, job, owner, len) : NULL;
            if (p) copy_for(p, job, st, owner);
        }
        uint32_t glen = owner != NO_OWNER ? HEADER_LEN : len; /* one copy to the group */
        o->out_packets++;
        o->out_bytes += sealed_len(job, glen);
        uint8_t *p = st ? out_packet(c, job->group_ip, job->group_port, group_pack(job), sealed_len(job, glen)) : NULL;
        if (p) copy_for(p, job, st, ALL_WORKERS);
    } else {
        o->out_packets = job->n;
        o->out_bytes = 0;
        for (uint32_t w = 0; w < job->n; w++) {
            uint32_t wlen = st ? copy_len(st, w) : len;
            o->out_bytes += sealed_len(job, wlen);
            uint8_t *p = st ? to_member(c, job, w, wlen) : NULL;
            if (p) copy_for(p, job, st, w);
        }
    }
    /* advance */
    s->round++;
    s->seen = 0;
    s->scatter = 0;
    s->acc_empty = 1;
    s->block = next_block;
    if (next_block == NONE_BLOCK) {
        s->exp = EXP_BIAS;
        s->expected = job->all_workers;
        return;
    }
    s->exp = next_exp;
    if (job->dense) {
        s->expected = job->all_workers;
    } else {
        uint32_t e2 = 0;
        for (uint32_t w = 0; w < job->n; w++)
            if ((uint32_t)(s->keys[w] >> 8) == next_block) e2 |= 1u << w;
        s->expected = e2;
    }
}

static void on_data(Core *c, job_t *job, slot_t *s, const hdr_t *h, const uint8_t *values, outcome_t *o) {
    if (!is_current(s, h)) { resend(c, job, s, h, o); return; }
    uint32_t bit = 1u << h->worker;
    if (!(s->expected & bit)) { o->event = C_DROP_UNEXPECTED; return; }
    if (s->seen & bit) { pending(c, job, s, h, C_DROP_DUPLICATE, o); return; }
    if (h->exp != s->exp) { o->event = C_DROP_BAD_EXP; return; }
    if (s->block == NONE_BLOCK && h->count) { o->event = C_DROP_BAD_COUNT; return; }
    uint32_t stream = h->slot - job->slot_base;
    /* the allreduce's epoch, tensor and fingerprint: adopted or compared */
    if (s->seen == 0 && s->block == NONE_BLOCK) {
        s->blocks = h->blocks;
        s->fingerprint = h->fingerprint;
        s->mismatch_code = 0;
        if (h->blocks > job->max_blocks) { o->fail_code = E_TOO_LARGE; o->fail_detail = h->worker; return; }
        if (stream >= h->blocks) { o->fail_code = E_BAD_BLOCKS; o->fail_detail = h->worker; return; }
    } else {
        uint8_t problem = 0;
        if (h->epoch != s->epoch) problem = E_SEQUENCE;
        else if (h->blocks != s->blocks || h->fingerprint != s->fingerprint) problem = E_TENSOR;
        if (problem) {
            if (s->block != NONE_BLOCK) { o->fail_code = problem; o->fail_detail = h->worker; return; }
            if (!s->mismatch_code) {
                s->mismatch_code = problem;
                s->mismatch_detail = h->worker;
            }
        }
    }
    /* the look-ahead stays in the stream, inside the tensor, and moves forward */
    uint32_t nxt = h->next_block;
    if (nxt != NONE_BLOCK &&
        (nxt >= h->blocks || nxt % job->num_slots != stream || (s->block != NONE_BLOCK && nxt <= s->block))) {
        o->fail_code = E_BAD_BLOCKS;
        o->fail_detail = h->worker;
        return;
    }
    /* every DATA of a round names the same owner (or none), like a fingerprint */
    uint8_t bits = h->flags & F_SCATTER ? h->flags & SCATTER_MASK : 0;
    if (bits && (uint32_t)(h->flags >> OWNER_SHIFT) >= job->n) {
        o->fail_code = E_BAD_BLOCKS;
        o->fail_detail = h->worker;
        return;
    }
    if (s->seen == 0) {
        s->scatter = bits;
    } else if (bits != s->scatter && !s->mismatch_code) {
        s->mismatch_code = E_TENSOR;
        s->mismatch_detail = h->worker;
    }
    if (s->seen == 0) {
        if (s->block == NONE_BLOCK) {
            s->prev_epoch = s->epoch;
            s->has_prev = s->has_epoch;
        }
        s->epoch = h->epoch;
        s->has_epoch = 1;
    }
    if (values) {
        uint32_t cnt = h->count;
        accumulate((const char *)values, 1, (Py_ssize_t)cnt, (char *)s->acc, s->acc_empty);
        s->acc_empty = 0;
    }
    s->keys[h->worker] = (uint64_t)h->next_block << 8 | (uint8_t)(255 - h->next_exp);
    s->seen |= bit;
    if (s->seen != s->expected) { o->event = C_COUNTED; return; }
    complete(c, job, s, h, o);
}

/* engine.py's _Job.stream_ended: True when the allreduce's last stream (of this shard) ended */
static int stream_ended(job_t *job, uint32_t epoch, uint32_t blocks) {
    uint32_t i = 0;
    while (i < job->sd_len && job->sd_epoch[i] != epoch) i++;
    if (i == job->sd_len) {
        job->sd_epoch[i] = epoch;
        job->sd_count[i] = 0;
        job->sd_len++;
    }
    uint32_t done = ++job->sd_count[i];
    uint32_t used = job->num_slots < blocks ? job->num_slots : blocks;
    int64_t want = ((int64_t)used - job->shard_index + job->shard_count - 1) / job->shard_count;
    if (want < 0) want = 0;
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
    for (Py_ssize_t i = 0; i < c->n_up; i++)
        if (c->up_ip[i] == ip && c->up_port[i] == port) return 1;
    return 0;
}

/* One packet (exactly HEADER_LEN + 4*count bytes). 1: handled here; 0: for Python.
 * Takes exactly what engine.py's _dispatch hands to a slot of a non-relay job. */
static int fast_packet(Core *c, const uint8_t *p, uint32_t len, uint32_t ip, uint16_t port) {
    if (len < HEADER_LEN || (p[0] & ~VERSION_AUTH) != PROTOCOL_VERSION || (p[1] != T_DATA && p[1] != T_QUERY))
        return 0;
    job_t *job = c->jobs[be16(p + 2)];
    if (!job) return 0;
    /* an authenticated job's packets sealed with a valid MAC, any other job's not sealed */
    if (job->keyed ? !mac_ok(job->key, p, len) : (p[0] & VERSION_AUTH) != 0) return 0;
    hdr_t h;
    parse(p, &h);
    if (h.worker >= job->n) return 0;
    if (h.count && (h.count != job->block_size || h.type != T_DATA)) return 0;
    if (h.slot < job->slot_base || h.slot - job->slot_base >= job->num_slots) return 0;
    member_t *m = &job->members[h.worker];
    if (!m->present || m->session != h.session || m->ip != ip || m->port != port) return 0;
    if ((h.slot - job->slot_base) % job->shard_count != job->shard_index) return 0;
    if (job->failed || (c->n_up && from_upstream(c, ip, port))) return 0;
    slot_t *s = get_slot(job, h.slot - job->slot_base);
    if (!s) return 0; /* out of memory: Python's path will fail loudly */
    heard(s, c->now, c->idle_horizon);

    outcome_t o = {0};
    if (h.type == T_QUERY) {
        if (is_current(s, &h)) pending(c, job, s, &h, C_DROP_PENDING, &o);
        else resend(c, job, s, &h, &o);
    } else {
        on_data(c, job, s, &h, h.count ? p + HEADER_LEN : NULL, &o);
    }
    count(c, C_PACKETS_IN, 1);
    count(c, C_BYTES_IN, len);
    job_count(job, J_PACKETS);
    if (o.fail_code && !o.round_failed) {
        /* JobFailure: the job fails (first cause wins); the sender gets an ERROR */
        if (!job->failed) {
            job->failed = 1;
            job->fail_code = o.fail_code;
            job->fail_detail = o.fail_detail;
        }
        /* One ERROR per datagram (p4reduce/aggregator/replies.py): Python's answers to the
         * same datagram are refused, and this one if Python answered it already. */
        uint8_t *e = NULL;
        if (c->answered == c->datagram_seq) count(c, C_ANSWERS_LIMITED, 1);
        else e = out_packet(c, ip, port, 0, sealed_len(job, HEADER_LEN));
        c->answered = c->datagram_seq;
        if (e) {
            write_header(e, T_ERROR, job->job_id, h.worker, 0, h.slot, h.shadow, h.epoch, job->fail_code,
                         job->fail_detail, h.exp, h.next_exp, 0, h.session, h.blocks, h.fingerprint);
            seal(job, e, HEADER_LEN);
        }
        count(c, C_FAILED, 1);
        job_count(job, J_DROPS); /* refused: it failed the job */
        count(c, C_PACKETS_OUT, 1);
        count(c, C_BYTES_OUT, sealed_len(job, HEADER_LEN));
        count(c, C_JOBS_FAILED, 1);
        log_event(c, L_FAILED, job->job_id, job->fail_code, job->fail_detail, 0);
        return 1;
    }
    count(c, o.event, 1);
    int cell = job_cell(o.event);
    if (cell >= 0) job_count(job, cell);
    if (o.out_packets) {
        count(c, C_PACKETS_OUT, o.out_packets);
        count(c, C_BYTES_OUT, o.out_bytes);
    }
    if (o.event == C_COUNTED || o.event == C_COMPLETED) job->started = 1;
    if (c->debug && o.event >= C_DROP_STALE && o.event <= C_DROP_BAD_COUNT)
        log_event(c, L_DROP, ip, port, (uint32_t)o.event, 0);
    if (o.round_failed) { /* the MISMATCH RESULT went to everyone: now fail the job */
        if (!job->failed) {
            job->failed = 1;
            job->fail_code = o.fail_code;
            job->fail_detail = o.fail_detail;
        }
        count(c, C_JOBS_FAILED, 1);
        log_event(c, L_FAILED, job->job_id, job->fail_code, job->fail_detail, 0);
        return 1;
    }
    if (o.event == C_COMPLETED && s->block == NONE_BLOCK) {
        count(c, C_STREAMS_COMPLETED, 1);
        if (c->debug) log_event(c, L_STREAM, job->job_id, h.slot, h.epoch, 0);
        if (stream_ended(job, h.epoch, s->blocks)) {
            count(c, C_ALLREDUCES_COMPLETED, 1);
            log_event(c, L_ALLREDUCE, job->job_id, h.epoch, 0, 0);
        }
    }
    return 1;
}

/* ---------------------------------------------------------------------------
 * The batch loop
 */
typedef struct {
    const uint8_t *p;
    uint32_t len, ip;
    uint16_t port;
    uint64_t datagram; /* which datagram it came in (the Python side answers each at most once) */
} slow_t;

/* Handles the batch from the cursor on. Returns 1 with *slow set when a packet is for
 * Python (the cursor is past it), 0 when the batch is done (replies flushed). */
static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* what time.monotonic() reads on Linux */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int process(Core *c, int fd, slow_t *slow) {
    c->now = monotonic();
    while (c->cur < c->rn) {
        /* A GRO buffer holds datagrams of rseg bytes, the last one possibly shorter:
         * each is handled as if it had come alone. */
        uint32_t total = c->rlen[c->cur], seg = c->rseg[c->cur];
        const uint8_t *d = c->rbuf + (size_t)c->cur * RECV_BUF + c->seg_off;
        uint32_t dlen = total - c->seg_off, ip = c->rip[c->cur];
        if (seg && dlen > seg) dlen = seg;
        uint16_t port = c->rport[c->cur];
        if (c->phase == 0) {
            c->datagram_seq++;
            uint32_t off = 0, npk = 0;
            while (dlen - off >= HEADER_LEN) {
                uint32_t end = off + (uint32_t)packet_len(d + off);
                if (end > dlen) break;
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
        if (c->queued_bytes >= FLUSH_BYTES) flush(c, fd);
    }
    flush(c, fd);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Python interface
 */
static void lock(Core *c) {
    if (pthread_mutex_trylock(&c->mu) != 0) {
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&c->mu);
        Py_END_ALLOW_THREADS
    }
}
static void unlock(Core *c) { pthread_mutex_unlock(&c->mu); }

static job_t *need_job(Core *c, long job_id) {
    if (job_id < 0 || job_id >= MAX_JOBS || !c->jobs[job_id]) {
        PyErr_Format(PyExc_KeyError, "the native core has no job %ld", job_id);
        return NULL;
    }
    return c->jobs[job_id];
}

static void free_job(job_t *job) {
    if (!job) return;
    for (uint32_t i = 0; i < job->num_slots; i++) free_slot(job->slots[i]);
    free(job->slots);
    free(job);
}

static void reset_job_state(job_t *job) {
    for (uint32_t i = 0; i < job->num_slots; i++) {
        free_slot(job->slots[i]);
        job->slots[i] = NULL;
    }
    memset(job->members, 0, sizeof(job->members));
    job->failed = job->started = 0;
    job->fail_code = 0;
    job->fail_detail = 0;
    job->sd_len = 0;
}

static int parse_ipv4(const char *text, uint32_t *out) {
    struct in_addr a;
    if (inet_pton(AF_INET, text, &a) != 1) {
        PyErr_Format(PyExc_ValueError, "%s is not an IPv4 address", text);
        return -1;
    }
    *out = a.s_addr;
    return 0;
}

static PyObject *ip_string(uint32_t ip) {
    const uint8_t *b = (const uint8_t *)&ip;
    return PyUnicode_FromFormat("%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

static int Core_init(Core *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"batch", NULL};
    int batch = 64;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwlist, &batch)) return -1;
    if (batch < 1 || batch > 1024) {
        PyErr_SetString(PyExc_ValueError, "batch outside 1..1024");
        return -1;
    }
    if (self->jobs) {
        PyErr_SetString(PyExc_RuntimeError, "Core is already initialised");
        return -1;
    }
    pthread_mutex_init(&self->mu, NULL);
    self->batch = batch;
    self->idle_horizon = 60.0; /* IDLE_HORIZON in p4reduce/aggregator/slot.py */
    self->jobs = calloc(MAX_JOBS, sizeof(job_t *));
    self->rbuf = malloc((size_t)batch * RECV_BUF);
    self->rmsgs = calloc(batch, sizeof(struct mmsghdr));
    self->riovs = calloc(batch, sizeof(struct iovec));
    self->rnames = calloc(batch, sizeof(struct sockaddr_in));
    self->rlen = calloc(batch, sizeof(uint32_t));
    self->rip = calloc(batch, sizeof(uint32_t));
    self->rport = calloc(batch, sizeof(uint16_t));
    self->rctl = calloc(batch, RCTL_LEN);
    self->rseg = calloc(batch, sizeof(uint32_t));
    self->omap_cap = 1024;
    self->omap_key = calloc(self->omap_cap, sizeof(uint64_t));
    self->omap_val = calloc(self->omap_cap, sizeof(uint32_t));
    if (!self->jobs || !self->rbuf || !self->rmsgs || !self->riovs || !self->rnames || !self->rlen ||
        !self->rip || !self->rport || !self->rctl || !self->rseg || !self->omap_key || !self->omap_val) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < batch; i++) {
        self->riovs[i].iov_base = self->rbuf + (size_t)i * RECV_BUF;
        self->riovs[i].iov_len = RECV_BUF;
        self->rmsgs[i].msg_hdr.msg_iov = &self->riovs[i];
        self->rmsgs[i].msg_hdr.msg_iovlen = 1;
        self->rmsgs[i].msg_hdr.msg_name = &self->rnames[i];
    }
    return 0;
}

static void Core_dealloc(Core *self) {
    if (self->jobs) {
        for (long i = 0; i < MAX_JOBS; i++) free_job(self->jobs[i]);
        free(self->jobs);
        pthread_mutex_destroy(&self->mu);
    }
    free(self->rbuf); free(self->rmsgs); free(self->riovs); free(self->rnames);
    free(self->rlen); free(self->rip); free(self->rport); free(self->rctl); free(self->rseg);
    free(self->gnext); free(self->gmsgs); free(self->sctl);
    free(self->arena); free(self->pkts); free(self->dgrams);
    free(self->omap_key); free(self->omap_val);
    free(self->smsgs); free(self->siovs); free(self->snames);
    free(self->out); free(self->log);
    free(self->up_ip); free(self->up_port);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define CHECK_INIT(self) \
    if (!(self)->jobs) { PyErr_SetString(PyExc_RuntimeError, "Core not initialised"); return NULL; }

static PyObject *Core_add_job(Core *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"job_id", "num_workers", "dense", "slot_base", "num_slots", "block_size",
                             "shard_index", "shard_count", "group", "max_blocks", NULL};
    long job_id;
    unsigned int n, slot_base, num_slots, block_size, shard_index, shard_count, max_blocks = 0xFFFFFFFEu;
    int dense;
    PyObject *group = Py_None;
    CHECK_INIT(self);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "lIpIIIII|OI", kwlist, &job_id, &n, &dense, &slot_base,
                                     &num_slots, &block_size, &shard_index, &shard_count, &group,
                                     &max_blocks))
        return NULL;
    if (job_id < 0 || job_id >= MAX_JOBS || n < 1 || n > MAX_WORKERS || num_slots < 1 ||
        slot_base + num_slots > 0x8000 || block_size < 1 || block_size > 16367 || shard_count < 1 ||
        shard_index >= shard_count) {
        PyErr_SetString(PyExc_ValueError, "job geometry outside what the wire format carries");
        return NULL;
    }
    uint32_t gip = 0;
    int gport = 0;
    if (group != Py_None) {
        const char *host;
        if (!PyArg_ParseTuple(group, "si", &host, &gport)) return NULL;
        if (parse_ipv4(host, &gip)) return NULL;
    }
    job_t *job = calloc(1, sizeof(job_t));
    if (!job || !(job->slots = calloc(num_slots, sizeof(slot_t *)))) {
        free(job);
        return PyErr_NoMemory();
    }
    job->job_id = (uint32_t)job_id;
    job->n = n;
    job->max_blocks = max_blocks;
    job->all_workers = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
    job->dense = dense;
    job->slot_base = slot_base;
    job->num_slots = num_slots;
    job->block_size = block_size;
    job->shard_index = shard_index;
    job->shard_count = shard_count;
    job->multicast = group != Py_None;
    job->group_ip = gip;
    job->group_port = (uint16_t)gport;
    lock(self);
    job_t *old = self->jobs[job_id];
    self->jobs[job_id] = old ? old : job;
    unlock(self);
    if (old) {
        free_job(job);
        PyErr_Format(PyExc_ValueError, "job %ld already exists", job_id);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Core_remove_job(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) return NULL;
    if (!need_job(self, job_id)) return NULL;
    lock(self);
    job_t *job = self->jobs[job_id];
    self->jobs[job_id] = NULL;
    unlock(self);
    free_job(job);
    Py_RETURN_NONE;
}

static PyObject *Core_reset_job(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) return NULL;
    if (!need_job(self, job_id)) return NULL;
    lock(self);
    reset_job_state(self->jobs[job_id]);
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_member(Core *self, PyObject *args) {
    long job_id;
    unsigned int worker, session;
    const char *host;
    int port, pack;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lIIsii", &job_id, &worker, &session, &host, &port, &pack)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    if (worker >= job->n || port < 0 || port > 65535 || pack < 0) {
        PyErr_SetString(PyExc_ValueError, "worker, port or pack limit out of range");
        return NULL;
    }
    uint32_t ip;
    if (parse_ipv4(host, &ip)) return NULL;
    lock(self);
    job->members[worker] = (member_t){1, session, ip, (uint16_t)port, pack};
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_group_session(Core *self, PyObject *args) {
    long job_id;
    unsigned int session;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &session)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    lock(self);
    job->group_session = session;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_key(Core *self, PyObject *args) {
    long job_id;
    PyObject *key;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lO", &job_id, &key)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    if (key == Py_None) {
        lock(self);
        job->keyed = 0;
        unlock(self);
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(key, &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len != 16) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "a job key is 16 bytes");
        return NULL;
    }
    lock(self);
    job->key = sip_key(view.buf);
    job->keyed = 1;
    unlock(self);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *Core_clear_member(Core *self, PyObject *args) {
    long job_id;
    unsigned int worker;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &worker)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    if (worker < MAX_WORKERS) {
        lock(self);
        memset(&job->members[worker], 0, sizeof(member_t));
        unlock(self);
    }
    Py_RETURN_NONE;
}

static PyObject *Core_set_failure(Core *self, PyObject *args) {
    long job_id;
    PyObject *failure;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lO", &job_id, &failure)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    unsigned int code = 0, detail = 0;
    if (failure != Py_None && !PyArg_ParseTuple(failure, "II", &code, &detail)) return NULL;
    if (failure != Py_None && (code < 1 || code > 255)) {
        PyErr_SetString(PyExc_ValueError, "error code outside 1..255");
        return NULL;
    }
    lock(self);
    job->failed = failure != Py_None;
    job->fail_code = (uint8_t)code;
    job->fail_detail = detail;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_failure(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    lock(self);
    int failed = job->failed;
    unsigned code = job->fail_code, detail = job->fail_detail;
    unlock(self);
    if (!failed) Py_RETURN_NONE;
    return Py_BuildValue("(II)", code, detail);
}

static PyObject *Core_started(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    return PyBool_FromLong(job->started);
}

static PyObject *Core_set_started(Core *self, PyObject *args) {
    long job_id;
    int started;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lp", &job_id, &started)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    lock(self);
    job->started = (uint8_t)started;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_upstreams(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    PyObject *seq = PySequence_Fast(arg, "upstreams: a sequence of (ip, port)");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint32_t *ips = calloc(n ? n : 1, sizeof(uint32_t));
    uint16_t *ports = calloc(n ? n : 1, sizeof(uint16_t));
    if (!ips || !ports) { free(ips); free(ports); Py_DECREF(seq); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *host;
        int port;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "si", &host, &port) ||
            parse_ipv4(host, &ips[i])) {
            free(ips); free(ports); Py_DECREF(seq);
            return NULL;
        }
        ports[i] = (uint16_t)port;
    }
    Py_DECREF(seq);
    lock(self);
    free(self->up_ip);
    free(self->up_port);
    self->up_ip = ips;
    self->up_port = ports;
    self->n_up = n;
    unlock(self);
    Py_RETURN_NONE;
}

/* set_gso(bool): send each address's runs of equal-size datagrams as UDP_SEGMENT buffers
 * (the caller probed the socket: p4reduce.aggregator.server.probe_udp_offload). */
static PyObject *Core_set_gso(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    lock(self);
    self->gso = on;
    if (on) self->gso_errno = 0;
    unlock(self);
    Py_RETURN_NONE;
}

/* io_stats() -> {"gso": bool, "gso_errno": int, name: count}: how the datagrams moved. */
static PyObject *Core_io_stats(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < IO_N; i++) {
        PyObject *val = PyLong_FromUnsignedLongLong(__atomic_load_n(&self->io[i], __ATOMIC_RELAXED));
        if (!val || PyDict_SetItemString(d, io_names[i], val)) {
            Py_XDECREF(val);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(val);
    }
    PyObject *errno_ = PyLong_FromLong(self->gso_errno);
    if (!errno_ || PyDict_SetItemString(d, "gso", self->gso ? Py_True : Py_False) ||
        PyDict_SetItemString(d, "gso_errno", errno_)) {
        Py_XDECREF(errno_);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(errno_);
    return d;
}

static PyObject *Core_set_debug(Core *self, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    self->debug = on;
    Py_RETURN_NONE;
}

/* The datagrams in a received buffer of `len` bytes whose GRO segment size is `seg`
 * (0: not coalesced), counted in the I/O statistics. */
static uint64_t note_segments(Core *c, uint32_t len, uint32_t seg) {
    if (!seg || len <= seg) return 1;
    uint64_t n = (len + seg - 1) / seg;
    io_add(c, IO_GRO_BUFFERS, 1);
    io_add(c, IO_GRO_SEGMENTS, n);
    return n;
}

/* recv(fd) -> datagrams received (0: none queued). Starts a new batch. */
static PyObject *Core_recv(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) return NULL;
    int fd = (int)fdl;
    if (self->cur < self->rn) {
        PyErr_SetString(PyExc_RuntimeError, "recv() before the previous batch was run to its end");
        return NULL;
    }
    int n, err = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mu);
    for (int i = 0; i < self->batch; i++) {
        self->rmsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
        self->rmsgs[i].msg_hdr.msg_control = self->rctl + (size_t)i * RCTL_LEN;
        self->rmsgs[i].msg_hdr.msg_controllen = RCTL_LEN;
    }
    do {
        n = recvmmsg(fd, self->rmsgs, self->batch, MSG_DONTWAIT, NULL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) err = errno;
    io_add(self, IO_RECV_CALLS, 1);
    self->rn = n > 0 ? n : 0;
    self->cur = 0;
    self->seg_off = 0;
    self->phase = 0;
    uint64_t datagrams = 0;
    for (int i = 0; i < self->rn; i++) {
        const uint32_t seg = udp_gro_segment(&self->rmsgs[i].msg_hdr);
        self->rlen[i] = self->rmsgs[i].msg_len;
        self->rseg[i] = seg;
        self->rip[i] = self->rnames[i].sin_addr.s_addr;
        self->rport[i] = ntohs(self->rnames[i].sin_port);
        datagrams += note_segments(self, self->rlen[i], seg);
    }
    if (datagrams) count(self, C_DATAGRAMS_IN, datagrams);
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS
    if (n < 0) {
        if (err == EAGAIN || err == EWOULDBLOCK || err == ECONNREFUSED) return PyLong_FromLong(0);
        errno = err;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return PyLong_FromLong(n);
}

/* load([(datagram, (ip, port)), ...]): a batch from Python (tests, benchmarks) instead of
 * recv; the copy into the receive buffers runs with the GIL released, as recvmmsg's does. */
static PyObject *Core_load(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    if (self->cur < self->rn) {
        PyErr_SetString(PyExc_RuntimeError, "load() before the previous batch was run to its end");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(arg, "load: a sequence of (datagram, (ip, port))");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), held = 0;
    if (n > self->batch) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d datagrams per batch", self->batch);
        return NULL;
    }
    Py_buffer *views = PyMem_Calloc(n ? n : 1, sizeof(Py_buffer));
    uint32_t *ips = PyMem_Calloc(n ? n : 1, sizeof(uint32_t));
    uint16_t *ports = PyMem_Calloc(n ? n : 1, sizeof(uint16_t));
    uint32_t *segs = PyMem_Calloc(n ? n : 1, sizeof(uint32_t));
    if (!views || !ips || !ports || !segs) {
        PyErr_NoMemory();
        goto done;
    }
    for (; held < n; held++) {
        const char *host;
        int port;
        unsigned int seg = 0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, held), "y*(si)|I", &views[held], &host, &port, &seg))
            goto done;
        segs[held] = seg;
        if (views[held].len > RECV_BUF - 1 || port < 0 || port > 65535 || parse_ipv4(host, &ips[held])) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "datagram over 65535 bytes or bad port");
            held++;
            goto done;
        }
        ports[held] = (uint16_t)port;
    }
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mu);
    uint64_t datagrams = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        memcpy(self->rbuf + (size_t)i * RECV_BUF, views[i].buf, views[i].len);
        self->rlen[i] = (uint32_t)views[i].len;
        self->rseg[i] = segs[i];
        self->rip[i] = ips[i];
        self->rport[i] = ports[i];
        datagrams += note_segments(self, self->rlen[i], segs[i]);
    }
    self->rn = (int)n;
    self->cur = 0;
    self->seg_off = 0;
    self->phase = 0;
    if (datagrams) count(self, C_DATAGRAMS_IN, datagrams);
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS
done:
    for (Py_ssize_t i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(ips);
    PyMem_Free(ports);
    PyMem_Free(segs);
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* run(fd) -> None when the batch is done (replies flushed to fd; -1: kept for take_output,
 * -2: discarded), or (packet, (ip, port), datagram) for the Python engine (datagram: a
 * number that is the same for the packets of one datagram); call run again after. */
static PyObject *Core_run(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) return NULL;
    int fd = (int)fdl;
    slow_t slow;
    int got, nomem;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mu);
    got = process(self, fd, &slow);
    nomem = self->nomem;
    self->nomem = 0;
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS
    if (nomem) return PyErr_NoMemory();
    if (!got) Py_RETURN_NONE;
    PyObject *host = ip_string(slow.ip);
    if (!host) return NULL;
    return Py_BuildValue("(y#(Ni)K)", (const char *)slow.p, (Py_ssize_t)slow.len, host, (int)slow.port,
                         (unsigned long long)slow.datagram);
}

/* queue(packet, ip, port, pack_up_to): a reply of the Python engine, in order with ours. */
static PyObject *Core_queue(Core *self, PyObject *args) {
    Py_buffer view;
    const char *host;
    int port, pack;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "y*sii", &view, &host, &port, &pack)) return NULL;
    uint32_t ip;
    if (parse_ipv4(host, &ip) || view.len > RECV_BUF || pack < 0 || port < 0 || port > 65535) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad packet, port or pack limit");
        PyBuffer_Release(&view);
        return NULL;
    }
    lock(self);
    uint8_t *p = out_packet(self, ip, (uint16_t)port, (uint32_t)pack, (uint32_t)view.len);
    if (p) memcpy(p, view.buf, view.len);
    int nomem = self->nomem;
    self->nomem = 0;
    unlock(self);
    PyBuffer_Release(&view);
    if (nomem) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Core_flush(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) return NULL;
    int fd = (int)fdl;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mu);
    flush(self, fd);
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *Core_take_output(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    lock(self);
    size_t off = 0;
    while (off < self->out_len) {
        uint32_t ip, size;
        uint16_t port;
        memcpy(&ip, self->out + off, 4);
        memcpy(&port, self->out + off + 4, 2);
        memcpy(&size, self->out + off + 6, 4);
        PyObject *host = ip_string(ip);
        PyObject *item = host ? Py_BuildValue("(y#(Ni))", (const char *)self->out + off + 10,
                                              (Py_ssize_t)size, host, (int)port) : NULL;
        if (!item || PyList_Append(list, item)) {
            Py_XDECREF(item);
            Py_DECREF(list);
            unlock(self);
            return NULL;
        }
        Py_DECREF(item);
        off += 10 + size;
    }
    self->out_len = 0;
    if (self->out_cap > (16u << 20)) {
        free(self->out);
        self->out = NULL;
        self->out_cap = 0;
    }
    unlock(self);
    return list;
}

static PyObject *Core_set_idle_horizon(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) return NULL;
    if (!(seconds > 0)) {
        PyErr_SetString(PyExc_ValueError, "idle horizon must be > 0 seconds");
        return NULL;
    }
    self->idle_horizon = seconds;
    Py_RETURN_NONE;
}

static PyObject *Core_answered(Core *self, PyObject *unused) {
    (void)unused;
    CHECK_INIT(self);
    return PyLong_FromUnsignedLongLong(self->answered);
}

static PyObject *Core_set_answered(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    unsigned long long datagram = PyLong_AsUnsignedLongLong(arg);
    if (datagram == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    self->answered = datagram;
    Py_RETURN_NONE;
}

static PyObject *Core_counters(Core *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < C_N; i++) {
        uint64_t v = __atomic_load_n(&self->counters[i], __ATOMIC_RELAXED);
        if (!v) continue;
        PyObject *val = PyLong_FromUnsignedLongLong(v);
        if (!val || PyDict_SetItemString(d, counter_names[i], val)) {
            Py_XDECREF(val);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(val);
    }
    return d;
}

/* job_counters(job_id) -> (packets, drops, retransmissions, rounds) of the packets handled here. */
static PyObject *Core_job_counters(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) return NULL;
    uint64_t v[J_N];
    lock(self); /* the serving thread may remove (free) the job meanwhile */
    job_t *job = need_job(self, job_id);
    if (job) memcpy(v, job->counts, sizeof(v));
    unlock(self);
    if (!job) return NULL;
    return Py_BuildValue("(KKKK)", (unsigned long long)v[J_PACKETS], (unsigned long long)v[J_DROPS],
                         (unsigned long long)v[J_RETRANSMISSIONS], (unsigned long long)v[J_ROUNDS]);
}

/* events() -> [(kind, job_or_ip, a, b, c)]: what the Python side logs. */
static PyObject *Core_events(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    lock(self);
    PyObject *list = PyList_New(self->log_len);
    for (uint32_t i = 0; list && i < self->log_len; i++) {
        logevent_t *e = &self->log[i];
        PyObject *item;
        if (e->kind == L_DROP) {
            PyObject *host = ip_string(e->job);
            item = host ? Py_BuildValue("(s(Ni)s)", "drop", host, (int)e->a, counter_names[e->b] + 5) : NULL;
        } else {
            const char *kind = e->kind == L_ALLREDUCE ? "allreduce" : e->kind == L_FAILED ? "failed"
                             : e->kind == L_GSO_OFF ? "gso_off" : "stream";
            item = Py_BuildValue("(sIIII)", kind, e->job, e->a, e->b, e->c);
        }
        if (!item) { Py_CLEAR(list); break; }
        PyList_SET_ITEM(list, i, item);
    }
    if (list) self->log_len = 0;
    unlock(self);
    return list;
}

/* slot_state(job_id, slot) -> dict of a slot's state, or None if it was never used (tests). */
static PyObject *Core_slot_state(Core *self, PyObject *args) {
    long job_id;
    unsigned int slot;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &slot)) return NULL;
    job_t *job = need_job(self, job_id);
    if (!job) return NULL;
    if (slot < job->slot_base || slot - job->slot_base >= job->num_slots) {
        PyErr_SetString(PyExc_ValueError, "slot outside the job");
        return NULL;
    }
    lock(self);
    slot_t *s = job->slots[slot - job->slot_base];
    PyObject *res = NULL, *keys = NULL, *hist = NULL;
    if (!s) {
        unlock(self);
        Py_RETURN_NONE;
    }
    keys = PyList_New(job->n);
    hist = PyList_New(s->hist_len);
    if (!keys || !hist) goto done;
    for (uint32_t w = 0; w < job->n; w++) PyList_SET_ITEM(keys, w, PyLong_FromUnsignedLongLong(s->keys[w]));
    for (uint32_t i = 0; i < s->hist_len; i++) {
        stored_t *e = &s->hist[i];
        PyObject *owner = e->owner == NO_OWNER ? Py_NewRef(Py_None) : PyLong_FromLong(e->owner);
        PyList_SET_ITEM(hist, i, Py_BuildValue("((II)(IIy#N))", e->epoch, e->block, (unsigned)e->shadow,
                                               e->fingerprint, (const char *)e->payload, (Py_ssize_t)e->len,
                                               owner));
    }
    PyObject *epoch = s->has_epoch ? PyLong_FromUnsignedLong(s->epoch) : Py_NewRef(Py_None);
    PyObject *prev = s->has_prev ? PyLong_FromUnsignedLong(s->prev_epoch) : Py_NewRef(Py_None);
    res = Py_BuildValue("{sKsNsNsIsIsIsIsIsIsOsNsNsI}", "round", (unsigned long long)s->round, "epoch", epoch,
                        "previous_epoch", prev, "blocks", s->blocks, "fingerprint", s->fingerprint,
                        "block", s->block, "exp", (unsigned)s->exp, "expected", s->expected,
                        "seen", s->seen, "acc_empty", s->acc_empty ? Py_True : Py_False, "keys", keys,
                        "history", hist, "scatter", (unsigned)s->scatter);
    keys = hist = NULL;
done:
    unlock(self);
    Py_XDECREF(keys);
    Py_XDECREF(hist);
    return res;
}

static PyMethodDef Core_methods[] = {
    {"add_job", (PyCFunction)(void (*)(void))Core_add_job, METH_VARARGS | METH_KEYWORDS,
     "add_job(job_id, num_workers, dense, slot_base, num_slots, block_size, shard_index, shard_count, group=None, "
     "max_blocks=0xFFFFFFFE)"},
    {"remove_job", (PyCFunction)Core_remove_job, METH_O, "remove_job(job_id)"},
    {"reset_job", (PyCFunction)Core_reset_job, METH_O, "reset_job(job_id): forget slots, members, failure"},
    {"set_member", (PyCFunction)Core_set_member, METH_VARARGS, "set_member(job_id, worker, session, ip, port, pack_up_to)"},
    {"set_group_session", (PyCFunction)Core_set_group_session, METH_VARARGS,
     "set_group_session(job_id, session): the session of results sent to the job's group"},
    {"set_key", (PyCFunction)Core_set_key, METH_VARARGS,
     "set_key(job_id, key16 | None): the job's packets sealed and checked with SipHash-2-4"},
    {"clear_member", (PyCFunction)Core_clear_member, METH_VARARGS, "clear_member(job_id, worker)"},
    {"set_failure", (PyCFunction)Core_set_failure, METH_VARARGS, "set_failure(job_id, (code, detail) | None)"},
    {"failure", (PyCFunction)Core_failure, METH_O, "failure(job_id) -> (code, detail) | None"},
    {"started", (PyCFunction)Core_started, METH_O, "started(job_id) -> bool: DATA was counted"},
    {"set_started", (PyCFunction)Core_set_started, METH_VARARGS, "set_started(job_id, bool)"},
    {"set_upstreams", (PyCFunction)Core_set_upstreams, METH_O, "set_upstreams([(ip, port), ...])"},
    {"set_debug", (PyCFunction)Core_set_debug, METH_O, "set_debug(bool): log drops and ended streams"},
    {"set_gso", (PyCFunction)Core_set_gso, METH_O, "set_gso(bool): UDP GSO on the send side"},
    {"io_stats", (PyCFunction)Core_io_stats, METH_NOARGS, "io_stats() -> {gso, gso_errno, system calls, GRO/GSO counts}"},
    {"recv", (PyCFunction)Core_recv, METH_O, "recv(fd) -> buffers received into a new batch (GRO ones split)"},
    {"load", (PyCFunction)Core_load, METH_O,
     "load([(datagram, (ip, port)[, gro_segment_size]), ...]): a new batch; a buffer with a segment "
     "size is split as a UDP_GRO buffer is"},
    {"run", (PyCFunction)Core_run, METH_O, "run(fd) -> None | (packet, (ip, port)) for Python"},
    {"queue", (PyCFunction)Core_queue, METH_VARARGS, "queue(packet, ip, port, pack_up_to)"},
    {"flush", (PyCFunction)Core_flush, METH_O, "flush(fd)"},
    {"take_output", (PyCFunction)Core_take_output, METH_NOARGS, "take_output() -> [(datagram, (ip, port))]"},
    {"counters", (PyCFunction)Core_counters, METH_NOARGS, "counters() -> {name: value}, non-zero only"},
    {"job_counters", (PyCFunction)Core_job_counters, METH_O,
     "job_counters(job_id) -> (packets, drops, retransmissions, rounds) of the packets the core handled"},
    {"answered", (PyCFunction)Core_answered, METH_NOARGS,
     "answered() -> the datagram (run's number) last answered with an ERROR"},
    {"set_idle_horizon", (PyCFunction)Core_set_idle_horizon, METH_O,
     "set_idle_horizon(seconds): a slot idle longer between allreduces forgets them"},
    {"set_answered", (PyCFunction)Core_set_answered, METH_O,
     "set_answered(datagram): the Python engine answered it (the core sends it no ERROR)"},
    {"events", (PyCFunction)Core_events, METH_NOARGS, "events() -> [(kind, ...)], drained"},
    {"slot_state", (PyCFunction)Core_slot_state, METH_VARARGS, "slot_state(job_id, slot) -> dict | None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4reduce._engine.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The software aggregator's data path: job tables, slot state machines, batched I/O.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};

static int exec_module(PyObject *m) {
    if (PyType_Ready(&CoreType) < 0) return -1;
    if (PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) < 0) return -1;
    if (PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0) return -1;
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "p4reduce._engine",
    "The software aggregator's data path in C (p4reduce.aggregator.native wraps it).", 0, NULL,
    module_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__engine(void) { return PyModuleDef_Init(&module); }
