// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_worker.h: what the files of p4reduce._worker share (private to them): the
 * wire (p4reduce/_wire_gen.h), a stream's, an endpoint's and a receiver's state, RunObject, the small
 * inline helpers, and the functions one file calls in another (prefix wk_, so that
 * nothing collides within the extension, which links p4reduce/_packet_ring.c too).
 *
 *   p4reduce/_worker.c       the per-round state machine: received packets
 *   p4reduce/_worker_out.c   outgoing datagrams: the endpoints' queues, sendmmsg/UDP GSO,
 *                            the raw transports' TX rings
 *   p4reduce/_worker_recv.c  receiving: ppoll, recvmmsg/UDP GRO, the raw transports' RX rings
 *   p4reduce/_worker_scan.c  the tensor's scan, chunk by chunk as the streams need it, and
 *                            what a NaN or Inf found after packets left does
 *   p4reduce/_worker_py.c    the Python type Run, its methods, the module
 */
#ifndef P4REDUCE_WORKER_H
#define P4REDUCE_WORKER_H

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
#include "_siphash.h"     /* the MAC of authenticated jobs */
#include "_udp.h"         /* UDP GSO and GRO */
#include "_be.h"
#include "_wire.h"
#include "_wire_gen.h" /* the wire's constants, hdr_t, hdr_parse/hdr_emit (p4reduce/protocol/wire.toml) */

/* The last msg_type the data path takes for a packet (later ones, CHALLENGE, are ignored
 * before their MAC is checked). */
#define T_MAX T_ERROR

#define RECV_BATCH   64
#define RECV_BUFSIZE 65536
#define FLUSH_BYTES  (128 << 10) /* as BatchSender.full: hand the queue to the kernel */
#define RING_BUDGET  256         /* datagrams a poll takes from one RX ring before it sends the replies */
#define SCAN_CHUNK   (64 << 10)  /* elements the scan takes at a time by default (256 KB: some microseconds) */
/* A worker that found NaN or Inf after its first packets left puts fingerprint ^ POISON in its
 * later rounds (docs/protocol.md 5): those rounds fail every worker with TENSOR. */

enum { S_WAITING, S_ACTIVE, S_DONE };
/* What a stream (re)sends on timeout: nothing, DATA with its block's values (an opening
 * DATA too), header-only DATA (the opening DATA of a worker holding nothing in the stream,
 * a dense-mode non-holder), QUERY (sparse-mode non-holder). */
enum { P_NONE, P_VALUES, P_HEADER, P_QUERY };
/* Why a call failed. */
enum { ERR_NONE, ERR_JOB, ERR_PROTOCOL, ERR_TIMEOUT, ERR_OS, ERR_MEMORY, ERR_VALUE, ERR_NONFINITE };

typedef struct {
    uint64_t round;               /* the slot's round counter (shadow bit = round & 1) */
    uint32_t slot, block, cursor; /* cursor: no non-zero block of this worker's before it is unsent */
    uint32_t retries;             /* timer expiries of the current round */
    uint32_t expiries;            /* of this allreduce (AllreduceStats.per_slot_retries) */
    int64_t missing;              /* bitmap of the last PENDING for this round, -1: none */
    uint8_t exp, state, pending, overflow;
    /* In the opening round (docs/protocol.md 3): block and exp are then the worker's own
     * first non-zero block b_w of the stream (NONE: it holds nothing) and its exponent,
     * first_next its next non-zero block after b_w (the opening DATA's look-ahead); the
     * cursor stays at b_w until a RESULT takes it. */
    uint8_t opening;
    uint8_t poisoned; /* this round's packets carry the poisoned fingerprint (_worker_scan.c) */
    uint32_t first_next;
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

typedef struct {     /* one aggregator endpoint's outgoing datagrams */
    int fd;          /* connected socket (or the ring's); -1: kept for take_output() */
    ring_ref_t ring; /* transports "packet", "xdp": the datagrams go into its TX ring */
    uint32_t limit;  /* payload packed up to (0: a packet per datagram) */
    uint32_t session;
    uint32_t group_session; /* what its results to the job's multicast group carry (JOINED) */
    int gso;                /* merge runs of equal-size datagrams (off for good once the kernel refused) */
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
    int endpoint;    /* the endpoint whose socket it is; -1: the multicast group's */
    int npeers;
    peer_t *peers;
} in_t;

typedef struct {
    PyObject_HEAD Py_buffer tensor, out, nonzero, exps;
    int held; /* buffers taken */
    int is_float;
    Py_ssize_t length, out_count;       /* elements of the tensor, of the output */
    uint32_t shard_blocks, first_block; /* a reduce-scatter: blocks per rank; out holds blocks from first_block */
    uint32_t nblocks, block_size, num_slots, slot_base;
    uint32_t job_id, worker_id, epoch, fingerprint, blocks_field;
    /* The scan (p4reduce/_worker_scan.c): nonzero and exps hold blocks 0 .. scanned - 1;
     * nonfinite: the flat index of the first NaN/Inf found (-1: none), poisoned once it was
     * found after a datagram had left (sent_any); scanned_at_send: blocks scanned then. */
    uint32_t scanned, scanned_at_send, scan_chunk; /* scan_chunk: blocks the scan takes at a time */
    int64_t nonfinite;
    int poisoned, sent_any;
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
    uint64_t packets_received, payload_bytes_received, ignored_packets, packets_sent, payload_bytes_sent,
        retransmissions, queries;
    /* UDP offload: messages sent as UDP_SEGMENT buffers and their datagrams, such messages
     * sent one datagram at a time instead, GRO buffers received and their datagrams */
    uint64_t gso_sends, gso_segments, gso_fallbacks, gro_buffers, gro_segments;
    int gso_errno;    /* why the kernel refused a segmented send (GSO then off for that endpoint) */
    uint32_t spin_us; /* transport "packet": how long a poll spins on the RX rings before it blocks */
    int nrings;
    int err;
    long long err_code, err_detail, err_epoch;
    char err_msg[256];
    int busy;
} RunObject;

/* ---------------------------------------------------------------------------
 * Wire helpers
 */

static inline double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* what time.monotonic() reads on Linux */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int shift_of(const RunObject *r, int exp) {
    return 30 - r->log2n - (exp - EXP_BIAS);
}

/* p4reduce/_worker_scan.c: scan the tensor on at least past block b. */
void wk_scan_past(RunObject *r, uint64_t b);

/* The worker's first non-zero block from block `from` on in its stream (from, from + S, ...),
 * or NONE; the tensor is scanned as far as that takes (NONE with r->err set when the scan
 * found NaN or Inf before anything was sent). */
static inline uint32_t nonzero_from(RunObject *r, uint64_t from) {
    const uint8_t *nz = r->nonzero.buf;
    uint64_t b = from;
    while (b < r->nblocks) {
        if (b >= r->scanned) {
            wk_scan_past(r, b);
            if (r->err != ERR_NONE) {
                return NONE_BLOCK;
            }
        }
        if (nz[b]) {
            return (uint32_t)b;
        }
        b += r->num_slots;
    }
    return NONE_BLOCK;
}

/* The worker's next non-zero block of stream `s` not sent yet, or NONE (Stream._mine[_pos]). */
static inline uint32_t mine(RunObject *r, stream_t *s) {
    const uint32_t b = nonzero_from(r, s->cursor);
    s->cursor = b == NONE_BLOCK ? r->nblocks : b; /* zero blocks are skipped once; NONE stays past the end */
    return b;
}

/* Stream s's opening round (docs/protocol.md 3): about its own first non-zero block b_w, at
 * its own exponent for it (NONE at 127: it holds nothing in the stream), with the block after
 * b_w as the look-ahead. */
static inline void open_stream(RunObject *r, stream_t *s) {
    const uint32_t b = mine(r, s);
    s->opening = 1;
    s->block = b;
    s->exp = b == NONE_BLOCK ? EXP_BIAS : ((const uint8_t *)r->exps.buf)[b];
    s->first_next = b == NONE_BLOCK ? NONE_BLOCK : nonzero_from(r, (uint64_t)b + r->num_slots);
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

static inline void set_timer(stream_t *s, double now, double rto) {
    s->started = now;
    s->timeout = rto;
    s->deadline = now + rto;
}

/* ---------------------------------------------------------------------------
 * Across the files
 */

/* p4reduce/_worker.c: a received buffer (a datagram, or a UDP_GRO buffer of them). */
int wk_process_buffer(RunObject *r, const in_t *in, const unsigned char *d, size_t len, size_t seg, uint32_t ip,
                      uint16_t port, double now, double rto);

/* p4reduce/_worker_out.c: queue a stream's packet; hand every endpoint's queue to the kernel. */
int wk_emit(RunObject *r, stream_t *s, int kind);
int wk_flush_all(RunObject *r);
void wk_note_sent(RunObject *r);

/* p4reduce/_worker_scan.c: scan one more chunk while waiting (nothing to do: 0). */
int wk_scan_ahead(RunObject *r);

/* p4reduce/_worker_recv.c: the receive buffers (first poll); one poll without the GIL. */
int wk_ensure_recv(RunObject *r);
void wk_poll_nogil(RunObject *r, double wait, double rto);

#endif /* P4REDUCE_WORKER_H */
