// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_worker_recv.c (in p4reduce._worker): receiving for a Run's poll, without the
 * GIL: ppoll on the agent's sockets (first spinning on the raw transports' RX rings, if
 * any), a batch of datagrams per readable socket with recvmmsg (a UDP_GRO buffer split
 * by wk_process_buffer), a batch of frames per RX ring (p4reduce/_ring.h), then the
 * replies flushed; time it would wait scans the tensor on instead (p4reduce/_worker_out.c). The packets themselves go
 * to the state machine, p4reduce/_worker.c; what the files share is p4reduce/_worker.h.
 */
#include "_worker.h"

/* ---------------------------------------------------------------------------
 * Receiving
 */

int wk_ensure_recv(RunObject *r) {
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
        wk_process_buffer(r, in, payload, len, 0, ip, port, now, rto);
        ops->rx_release(ring);
    }
}

/* Without the GIL: wait up to `wait` seconds for a socket (first spinning up to spin_us on
 * the RX rings, if any), take one batch from each readable one, handle it, send the replies. */
void wk_poll_nogil(RunObject *r, double wait, double rto) {
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
    /* Time it would wait goes to the scan of the tensor's rest, a chunk at a time while
     * nothing has come (p4reduce/_worker_scan.c). */
    while (wait > 0 && r->scanned < r->nblocks && !(r->nrings && rings_ready(r))) {
        struct timespec zero = {0, 0};
        const int n = ppoll(fds, (nfds_t)nfds, &zero, NULL);
        if (n != 0) {
            wait = 0;
            break;
        }
        const double t0 = monotonic();
        wk_scan_ahead(r);
        if (r->err != ERR_NONE) {
            return;
        }
        wait -= monotonic() - t0;
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
    int ready = 0;
    if (!r->nrings && r->spin_us && wait > 0) {
        /* UDP: poll without sleeping for up to spin_us before blocking (WorkerConfig.spin_us:
         * a RESULT that comes within it is taken without a wake-up, at the cost of a core) */
        const double spin = (double)r->spin_us * 1e-6 < wait ? (double)r->spin_us * 1e-6 : wait;
        const double start = monotonic();
        struct timespec zero = {0, 0};
        while ((ready = ppoll(fds, (nfds_t)nfds, &zero, NULL)) == 0 && monotonic() - start < spin) {
            cpu_relax();
        }
        wait = ready ? 0 : wait - spin;
    }
    if (ready <= 0) {
        struct timespec ts;
        ts.tv_sec = (time_t)wait;
        ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
        ready = ppoll(fds, (nfds_t)nfds, &ts, NULL);
    }
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
            wk_process_buffer(r, &r->ins[i], (const unsigned char *)r->riov[k].iov_base, r->rmsgs[k].msg_len,
                              udp_gro_segment(&r->rmsgs[k].msg_hdr), ntohl(sa->sin_addr.s_addr), ntohs(sa->sin_port),
                              now, rto);
        }
    }
    if (r->err == ERR_NONE) {
        wk_flush_all(r);
    }
}
