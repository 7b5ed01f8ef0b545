// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_engine.h: what the files of p4reduce._engine share (private to them): the
 * wire (p4reduce/_wire_gen.h), the counters' and events' numbers, the state (slots, jobs, the send
 * queue, Core), the small inline helpers, and the functions one file calls in another
 * (prefix eng_, so that nothing collides within the extension).
 *
 *   p4reduce/_engine.c       the data path: slots, packet handling, the batch loop, the log
 *   p4reduce/_engine_send.c  the send queue: arena, per-address packing, sendmmsg/UDP GSO
 *   p4reduce/_engine_py.c    the Python type Core (job tables, the receive batch), the module
 */
#ifndef P4REDUCE_ENGINE_H
#define P4REDUCE_ENGINE_H

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

#include "_udp.h"     /* UDP GSO and GRO */
#include "_siphash.h" /* the MAC of authenticated jobs */
#include "_be.h"
#include "_wire.h"     /* the slot registers' int64 sums of wire values */
#include "_wire_gen.h" /* the wire's constants, hdr_t, hdr_parse/hdr_emit (p4reduce/protocol/wire.toml) */

#define NO_OWNER          0xFF /* a round without a SCATTER owner (owners are < MAX_WORKERS) */
#define MAX_JOBS          (MAX_JOB_ID + 1)
#define IOV_PARTS         1024        /* the kernel's IOV_MAX: packets one datagram may gather */
#define FLUSH_BYTES       (128 << 10) /* as BatchSender.full */
#define RECV_BUF          65536
#define STREAMS_DONE_KEPT 4 /* epochs whose stream count is remembered (as engine.py) */
#define END_KEY           (((uint64_t)NONE_BLOCK << 8) | 255u)

/* ---------------------------------------------------------------------------
 * Counters: the Python engine's names and meanings (p4reduce.aggregator.engine); the
 * names are counter_names and io_names in p4reduce/_engine_py.c.
 */
enum {
    C_DATAGRAMS_IN,
    C_PACKETS_IN,
    C_BYTES_IN,
    C_PACKETS_OUT,
    C_BYTES_OUT,
    C_COUNTED,
    C_COMPLETED,
    C_RESENT,
    C_FAILED,
    C_DROP_STALE,
    C_DROP_PENDING,
    C_DROP_DUPLICATE,
    C_DROP_UNEXPECTED,
    C_DROP_BAD_EXP,
    C_DROP_BAD_COUNT,
    C_STREAMS_COMPLETED,
    C_ALLREDUCES_COMPLETED,
    C_JOBS_FAILED,
    C_DROP_NO_ADDRESS,
    C_SEND_ERRORS,
    C_ANSWERS_LIMITED,
    C_DROP_REPLAY,
    C_N
};

/* Per-job counters: the switch's job_events cells, JOB_EV_* and NUM_JOB_EVENTS of p4reduce/_wire_gen.h
 * (JOB_EVENT_NAMES; AggregatorEngine.job_counters says which event goes where). The core counts
 * the packets it handles itself. */

/* Batched-I/O statistics (not engine counters: they tell how the datagrams moved). */
enum {
    IO_RECV_CALLS,
    IO_SEND_CALLS,
    IO_GRO_BUFFERS,
    IO_GRO_SEGMENTS,
    IO_GSO_SENDS,
    IO_GSO_SEGMENTS,
    IO_GSO_FALLBACKS,
    IO_N
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
    uint32_t forgotten;    /* SlotState.forgotten: an authenticated job's epoch forgotten at */
    uint8_t has_forgotten; /* the idle horizon, whose opening replays are stale (spec 6.3) */
    uint32_t blocks, fingerprint;
    uint8_t mismatch_code; /* 0: the round's packets agree */
    uint32_t mismatch_detail;
    uint8_t scatter; /* SCATTER/owner bits of the round's first counted DATA */
    uint32_t block;  /* the data round's block; NONE_BLOCK: the opening round */
    uint8_t exp;
    uint32_t expected, seen;
    uint8_t acc_empty;
    uint64_t keys[MAX_WORKERS]; /* each worker's announced look-ahead key (in an opening
                                 * round: the next key of its opening DATA) */
    /* The opening round (docs/protocol.md 3): K1, the running minimum of the packets' own
     * keys; the SCATTER/owner bits of the packet that set it; the repeat bit; and each
     * worker's own key (its block and exponent). */
    uint64_t first_key;
    uint8_t first_bits, repeat;
    uint64_t own[MAX_WORKERS];
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
    /* engine.py's Member.newest: the newest epoch counted from this session; an
     * authenticated job drops its packets of older epochs (replays, docs/protocol.md 6.3) */
    uint8_t has_newest;
    uint32_t newest;
} member_t;

typedef struct {
    uint32_t job_id, n, dense, slot_base, num_slots, block_size, shard_index, shard_count;
    uint32_t max_blocks; /* JobSpec.max_blocks: bounds the results kept for re-sends */
    uint32_t all_workers;
    uint8_t multicast;
    uint32_t group_ip;
    uint16_t group_port;
    uint32_t group_session; /* the session of results sent to the group (engine.py's JobState) */
    uint8_t keyed;          /* an authenticated job (JobSpec.key): every packet sealed both ways */
    sipkey_t key;
    member_t members[MAX_WORKERS];
    uint8_t failed, started;
    uint8_t fail_code;
    uint32_t fail_detail;
    uint32_t sd_epoch[STREAMS_DONE_KEPT + 1], sd_count[STREAMS_DONE_KEPT + 1];
    uint32_t sd_len;
    uint64_t counts[NUM_JOB_EVENTS]; /* per-job counters: kept by reset_job, zero in a new job */
    slot_t **slots;
} job_t;

typedef struct {
    uint32_t off, len, next;
} opkt_t;
typedef struct {
    uint32_t ip;
    uint16_t port;
    uint8_t single; /* to a destination of one packet per datagram (pack 0): never a GSO segment */
    uint32_t size, npkts, head, tail;
} odgram_t;

/* A sendmmsg message: datagrams (linked by gnext) to one address, all of `seg` bytes but a
 * shorter last one, sent as one UDP_SEGMENT buffer when there are several. */
typedef struct {
    uint32_t head, tail, seg, nseg, bytes, niov;
    uint8_t closed; /* a shorter datagram ended it */
} gmsg_t;

typedef struct {
    PyObject_HEAD pthread_mutex_t mu;
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
    uint8_t *rctl;  /* control buffers (UDP_GRO cmsg) */
    uint32_t *rseg; /* segment size of a GRO buffer (0: one datagram) */
    int rn, cur, phase;
    uint64_t datagram_seq;    /* datagrams (GRO segments) started so far */
    uint64_t answered;        /* the datagram that got an ERROR from here (one per datagram) */
    double now, idle_horizon; /* the batch's clock; a slot idle longer forgets its allreduces */
    uint32_t seg_off;         /* the current datagram's offset in buffer cur */
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
        case C_COUNTED:
            return -1;
        case C_COMPLETED:
            return JOB_EV_ROUNDS;
        case C_RESENT:
        case C_DROP_STALE:
        case C_DROP_PENDING:
        case C_DROP_DUPLICATE:
            return JOB_EV_RETRANSMISSIONS;
        default:
            return JOB_EV_DROPS; /* unexpected, bad exp, bad count */
    }
}
/* docs/protocol.md 3: the minimum key names the smallest block and, among equal blocks, the
 * largest exponent. */
static inline uint64_t lookahead_key(uint32_t block, uint8_t exp) {
    return (uint64_t)block << 8 | (uint8_t)(255 - exp);
}
static inline int epoch_is_newer(uint32_t candidate, uint32_t current) {
    uint32_t d = candidate - current;
    return d != 0 && d < 0x80000000u;
}

static inline int grow(void **buf, uint32_t *cap, uint32_t need, size_t item) {
    if (need <= *cap) {
        return 0;
    }
    uint32_t n = *cap ? *cap : 16;
    while (n < need) {
        n *= 2;
    }
    void *p = realloc(*buf, (size_t)n * item);
    if (!p) {
        return -1;
    }
    *buf = p;
    *cap = n;
    return 0;
}

static inline void io_add(Core *c, int i, uint64_t v) {
    __atomic_store_n(&c->io[i], c->io[i] + v, __ATOMIC_RELAXED);
}

/* A packet for the Python engine, where the batch loop stopped (Core.run returns it). */
typedef struct {
    const uint8_t *p;
    uint32_t len, ip;
    uint16_t port;
    uint64_t datagram; /* which datagram it came in (the Python side answers each at most once) */
} slow_t;

/* ---------------------------------------------------------------------------
 * Across the files
 */

/* p4reduce/_engine.c: an event for the Python side's log; a slot's memory; the batch loop. */
void eng_log_event(Core *c, uint32_t kind, uint32_t job, uint32_t a, uint32_t b, uint32_t cc);
void eng_free_slot(slot_t *s);
int eng_process(Core *c, int fd, slow_t *slow);

/* p4reduce/_engine_send.c: room for a packet in the send queue; the queue to the kernel. */
uint8_t *eng_out_packet(Core *c, uint32_t ip, uint16_t port, uint32_t pack, uint32_t len);
void eng_flush(Core *c, int fd);

#endif /* P4REDUCE_ENGINE_H */
