// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_packet_ring.c: WorkerConfig(transport="packet"), the worker's datagrams on
 * memory-mapped AF_PACKET rings instead of a UDP socket (p4reduce/_packet_ring.h).
 *
 * One ring per aggregator endpoint, bound to the interface of the route to it:
 *  - socket(AF_PACKET, SOCK_RAW), bound to the interface for ETH_P_IP once a classic
 *    BPF filter is attached that takes only unfragmented IPv4/UDP to this worker's IP
 *    and UDP port (so nothing else is ever copied into the ring);
 *  - PACKET_RX_RING and PACKET_TX_RING, TPACKET_V2, one mmap;
 *  - PACKET_QDISC_BYPASS (frames go straight to the driver), PACKET_IGNORE_OUTGOING
 *    (our own frames are not looped back into the RX ring), PACKET_LOSS (a frame the
 *    kernel cannot send is skipped, not left blocking the TX ring).
 * Sending fills TX frames in place (Ethernet to the next hop's MAC, IPv4 with DF, TTL 64
 * and its checksum, UDP with checksum 0, the datagram) and hands a batch to the kernel
 * with one send(fd, NULL, 0, MSG_DONTWAIT). Receiving parses the ready RX frames
 * (lengths, IHL, checksum, no fragments) and hands each datagram's payload and source
 * to the same code that handles a UDP socket's.
 *
 * Why TPACKET_V2 and not V3 for RX: a V3 block reaches user space (and wakes poll) only
 * when it is full or its retire timer (at least 1 ms) fires; measured on a veth pair
 * (a UDP echo in another namespace, 2000 round trips), V3 with a 1 ms timeout gave a
 * median round trip of 1000 us whatever the block size (4 KiB or 64 KiB), V2 14 us. A
 * worker's rounds are request/response: V3 would add a millisecond to every round that
 * does not fill a block. V2 hands over each frame as it lands. (One socket has one
 * version for both rings, so TX is V2 too.)
 *
 * The worker's UDP socket stays bound to the port (so the kernel sends no ICMP port
 * unreachable for what the ring takes) with a drop-all filter (drop_all) so the kernel
 * never queues the job's datagrams there too.
 */
#include "_packet_ring.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define FRAMES_PER_BLOCK 32
#define MAX_FRAMES       (1u << 16)
#define TX_DATA_OFFSET   TPACKET_ALIGN(sizeof(struct tpacket2_hdr)) /* where the kernel reads a TX frame */
#define RX_HEADROOM      128    /* tpacket2_hdr, sockaddr_ll and the alignment before the MAC header */
#define SEND_TIMEOUT_US  100000 /* how long a full TX ring waits for its frames to leave */

/* ---------------------------------------------------------------------------
 * The rings
 */

static inline struct tpacket2_hdr *rx_hdr(const pring_t *r, uint32_t i) {
    return (struct tpacket2_hdr *)(r->rx + (size_t)i * r->frame_size);
}
static inline struct tpacket2_hdr *tx_hdr(const pring_t *r, uint32_t i) {
    return (struct tpacket2_hdr *)(r->tx + (size_t)i * r->frame_size);
}
static inline uint32_t status_of(const struct tpacket2_hdr *h) {
    return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}
static inline void set_status(struct tpacket2_hdr *h, uint32_t status) {
    __atomic_store_n(&h->tp_status, status, __ATOMIC_RELEASE);
}

/* The classic BPF program of the flow: IPv4, UDP, to dst_ip, not a fragment, to dst_port. */
static int attach_flow_filter(int fd, uint32_t ip, uint16_t port) {
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),                 /* 0: EtherType */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 10),   /* 1 */
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, ETH_LEN + 9),        /* 2: protocol */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 8), /* 3 */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ETH_LEN + 16),       /* 4: destination */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip, 0, 6),          /* 5 */
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, ETH_LEN + 6),        /* 6: flags, fragment offset */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 4, 0),     /* 7: MF or an offset */
        BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, ETH_LEN),           /* 8: X = IHL * 4 */
        BPF_STMT(BPF_LD | BPF_H | BPF_IND, ETH_LEN + 2),        /* 9: UDP destination port */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),        /* 10 */
        BPF_STMT(BPF_RET | BPF_K, 0x40000),                     /* 11: take (whole frame) */
        BPF_STMT(BPF_RET | BPF_K, 0),                           /* 12: drop */
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
}

/* A frame size for the interface's MTU: a power of two >= what a V2 RX frame needs. */
static uint32_t frame_size_for(uint32_t mtu) {
    uint32_t size = 2048;
    while (size < RX_HEADROOM + ETH_LEN + mtu) {
        size <<= 1;
    }
    return size;
}

static uint32_t round_frames(uint32_t n) {
    if (n < FRAMES_PER_BLOCK) {
        n = FRAMES_PER_BLOCK;
    }
    if (n > MAX_FRAMES) {
        n = MAX_FRAMES;
    }
    return (n + FRAMES_PER_BLOCK - 1) / FRAMES_PER_BLOCK * FRAMES_PER_BLOCK;
}

static void pring_close(pring_t *r) {
    if (r->map) {
        munmap(r->map, r->map_len);
        r->map = NULL;
    }
    if (r->fd >= 0) {
        close(r->fd);
        r->fd = -1;
    }
}

/* Opens the ring of `r`'s flow (its addresses, MACs, ifindex and MTU set); -1 with errno and
 * `*what` naming the call that failed. */
static int pring_open(pring_t *r, uint32_t rx_frames, uint32_t tx_frames, const char **what) {
    r->fd = -1;
    r->frame_size = frame_size_for(r->mtu);
    r->rx_count = round_frames(rx_frames);
    r->tx_count = round_frames(tx_frames);
    const int version = TPACKET_V2, one = 1;
    const struct timeval tv = {0, SEND_TIMEOUT_US};
    struct tpacket_req rx = {r->frame_size * FRAMES_PER_BLOCK, r->rx_count / FRAMES_PER_BLOCK, r->frame_size,
                             r->rx_count};
    struct tpacket_req tx = {r->frame_size * FRAMES_PER_BLOCK, r->tx_count / FRAMES_PER_BLOCK, r->frame_size,
                             r->tx_count};
    /* Protocol 0: no frame reaches the socket before it is filtered and bound. */
    *what = "socket(AF_PACKET, SOCK_RAW)";
    if ((r->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) < 0) {
        return -1;
    }
    *what = "PACKET_VERSION TPACKET_V2";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) < 0) {
        goto fail;
    }
    *what = "PACKET_LOSS";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_LOSS, &one, sizeof one) < 0) {
        goto fail;
    }
    *what = "PACKET_QDISC_BYPASS";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one) < 0) {
        goto fail;
    }
    *what = "PACKET_IGNORE_OUTGOING";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0) {
        goto fail;
    }
    *what = "SO_SNDTIMEO";
    if (setsockopt(r->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0) {
        goto fail;
    }
    *what = "PACKET_RX_RING";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &rx, sizeof rx) < 0) {
        goto fail;
    }
    *what = "PACKET_TX_RING";
    if (setsockopt(r->fd, SOL_PACKET, PACKET_TX_RING, &tx, sizeof tx) < 0) {
        goto fail;
    }
    r->map_len = (size_t)r->frame_size * (r->rx_count + r->tx_count);
    *what = "mmap of the rings";
    void *map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, 0);
    if (map == MAP_FAILED) {
        goto fail;
    }
    r->map = map;
    r->rx = r->map;
    r->tx = r->map + (size_t)r->frame_size * r->rx_count;
    *what = "SO_ATTACH_FILTER";
    if (attach_flow_filter(r->fd, r->src_ip, r->src_port) < 0) {
        goto fail;
    }
    struct sockaddr_ll ll;
    memset(&ll, 0, sizeof ll);
    ll.sll_family = AF_PACKET;
    ll.sll_protocol = htons(ETH_P_IP);
    ll.sll_ifindex = r->ifindex;
    *what = "bind to the interface";
    if (bind(r->fd, (struct sockaddr *)&ll, sizeof ll) < 0) {
        goto fail;
    }
    return 0;
fail: {
    const int err = errno;
    pring_close(r);
    errno = err;
    return -1;
}
}

unsigned char *pring_tx_frame(pring_t *r) {
    for (int attempt = 0; attempt < 2; attempt++) {
        struct tpacket2_hdr *h = tx_hdr(r, r->tx_head);
        const uint32_t status = status_of(h);
        if (status == TP_STATUS_AVAILABLE || status == TP_STATUS_WRONG_FORMAT) {
            return (unsigned char *)h + TX_DATA_OFFSET + FRAME_OVERHEAD;
        }
        /* Every frame in flight: send what is queued and wait for them to leave. */
        pring_kick(r, 1);
    }
    r->tx_full++;
    return NULL;
}

void pring_tx_commit(pring_t *r, size_t len) {
    struct tpacket2_hdr *h = tx_hdr(r, r->tx_head);
    unsigned char *f = (unsigned char *)h + TX_DATA_OFFSET;
    h->tp_len = (uint32_t)frame_build(f, r->dst_mac, r->src_mac, r->src_ip, r->src_port, r->dst_ip, r->dst_port,
                                      r->ip_id++, len);
    set_status(h, TP_STATUS_SEND_REQUEST);
    r->tx_head = (r->tx_head + 1) % r->tx_count;
    r->tx_queued++;
    r->tx_frames++;
}

int pring_kick(pring_t *r, int wait) {
    if (!r->tx_queued && !wait) {
        return 0;
    }
    r->tx_queued = 0;
    ssize_t n;
    do {
        n = send(r->fd, NULL, 0, wait ? 0 : MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    /* EAGAIN/ENOBUFS: the frames stay queued for the next kick; the timers cover the rest. */
    return n < 0 && errno != EAGAIN && errno != ENOBUFS ? -1 : 0;
}

int pring_rx_ready(const pring_t *r) {
    return (status_of(rx_hdr(r, r->rx_head)) & TP_STATUS_USER) != 0;
}

void pring_rx_release(pring_t *r) {
    set_status(rx_hdr(r, r->rx_head), TP_STATUS_KERNEL);
    r->rx_head = (r->rx_head + 1) % r->rx_count;
}

int pring_rx_next(pring_t *r, const unsigned char **payload, size_t *len, uint32_t *src_ip, uint16_t *src_port) {
    while (pring_rx_ready(r)) {
        const struct tpacket2_hdr *h = rx_hdr(r, r->rx_head);
        /* A frame cut short (snaplen below its length) is not the whole datagram. */
        if (h->tp_snaplen != h->tp_len || h->tp_mac + h->tp_snaplen > r->frame_size) {
            r->rx_oversize++;
        } else if (frame_parse((const unsigned char *)h + h->tp_mac, h->tp_snaplen, r->src_ip, r->src_port, payload,
                               len, src_ip, src_port) == FRAME_OK) {
            r->rx_frames++;
            return 1;
        } else {
            r->rx_refused++;
        }
        pring_rx_release(r);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Python: PacketRing
 */

void pring_use(PacketRingObject *o) {
    Py_INCREF(o);
    o->users++;
}

void pring_unuse(PacketRingObject *o) {
    if (--o->users == 0 && o->closing) {
        pring_close(&o->ring);
    }
    Py_DECREF(o);
}

/* The table a Run calls (p4reduce/_ring.h). */
#define PR(o) (&((PacketRingObject *)(o))->ring)
static int ops_usable(PyObject *o) {
    return pring_usable((PacketRingObject *)o);
}
static int ops_fd(PyObject *o) {
    return PR(o)->fd;
}
static uint32_t ops_spin_us(PyObject *o) {
    return PR(o)->spin_us;
}
static size_t ops_max_payload(PyObject *o) {
    return pring_max_payload(PR(o));
}
static unsigned char *ops_tx_frame(PyObject *o) {
    return pring_tx_frame(PR(o));
}
static void ops_tx_commit(PyObject *o, size_t len) {
    pring_tx_commit(PR(o), len);
}
static int ops_kick(PyObject *o, int wait) {
    return pring_kick(PR(o), wait);
}
static int ops_rx_ready(PyObject *o) {
    return pring_rx_ready(PR(o));
}
static int ops_rx_next(PyObject *o, const unsigned char **payload, size_t *len, uint32_t *ip, uint16_t *port) {
    return pring_rx_next(PR(o), payload, len, ip, port);
}
static void ops_rx_release(PyObject *o) {
    pring_rx_release(PR(o));
}
static void ops_use(PyObject *o) {
    pring_use((PacketRingObject *)o);
}
static void ops_unuse(PyObject *o) {
    pring_unuse((PacketRingObject *)o);
}
#undef PR

const ring_ops_t pring_ops = {"packet",       ops_usable,    ops_fd,   ops_spin_us,  ops_max_payload,
                              ops_tx_frame,   ops_tx_commit, ops_kick, ops_rx_ready, ops_rx_next,
                              ops_rx_release, ops_use,       ops_unuse};

static int closed(PacketRingObject *self) {
    if (!pring_usable(self)) {
        PyErr_SetString(PyExc_ValueError, "the packet ring is closed");
        return 1;
    }
    return 0;
}

static PyObject *PacketRing_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"ifindex", "src_mac",   "dst_mac",   "local",   "peer",
                             "mtu",     "rx_frames", "tx_frames", "spin_us", NULL};
    int ifindex;
    Py_buffer src_mac, dst_mac;
    const char *local_host, *peer_host;
    int local_port, peer_port;
    unsigned mtu, rx_frames = 1024, tx_frames = 512, spin_us = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iy*y*(si)(si)I|III:PacketRing", kwlist, &ifindex, &src_mac, &dst_mac,
                                     &local_host, &local_port, &peer_host, &peer_port, &mtu, &rx_frames, &tx_frames,
                                     &spin_us)) {
        return NULL;
    }
    PacketRingObject *self = NULL;
    pring_t r;
    memset(&r, 0, sizeof r);
    r.fd = -1;
    if (parse_mac(&src_mac, "src_mac", r.src_mac) < 0 || parse_mac(&dst_mac, "dst_mac", r.dst_mac) < 0 ||
        parse_ip(local_host, &r.src_ip) < 0 || parse_ip(peer_host, &r.dst_ip) < 0) {
        goto done;
    }
    if (local_port < 1 || local_port > 65535 || peer_port < 1 || peer_port > 65535) {
        PyErr_SetString(PyExc_ValueError, "ports must be in 1..65535");
        goto done;
    }
    if (mtu < 68 || mtu > 65535) {
        PyErr_Format(PyExc_ValueError, "mtu %u outside 68..65535", mtu);
        goto done;
    }
    r.ifindex = ifindex;
    r.mtu = mtu;
    r.src_port = (uint16_t)local_port;
    r.dst_port = (uint16_t)peer_port;
    r.spin_us = spin_us;
    r.ip_id = (uint16_t)(getpid() ^ (uintptr_t)&r); /* per flow, as the kernel starts it: arbitrary */
    const char *what;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = pring_open(&r, rx_frames, tx_frames, &what);
    Py_END_ALLOW_THREADS if (rc < 0) {
        if (errno == EPERM || errno == EACCES) {
            PyErr_Format(PyExc_PermissionError,
                         "transport 'packet' needs CAP_NET_RAW (run as root or grant the capability): %s: %s", what,
                         strerror(errno));
        } else {
            PyErr_Format(PyExc_OSError, "transport 'packet': %s: %s", what, strerror(errno));
        }
        goto done;
    }
    self = (PacketRingObject *)type->tp_alloc(type, 0);
    if (!self) {
        pring_close(&r);
        goto done;
    }
    self->ring = r;
done:
    PyBuffer_Release(&src_mac);
    PyBuffer_Release(&dst_mac);
    return (PyObject *)self;
}

static void PacketRing_dealloc(PacketRingObject *self) {
    pring_close(&self->ring);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(send_doc, "send(payload, /)\n--\n\n"
                       "Send one datagram to the peer: a TX frame is filled and handed to the kernel.\n"
                       "False when no TX frame became free (the datagram is dropped, as a full socket\n"
                       "buffer drops it).");

static PyObject *PacketRing_send(PacketRingObject *self, PyObject *arg) {
    if (closed(self)) {
        return NULL;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    pring_t *r = &self->ring;
    if ((size_t)b.len > pring_max_payload(r)) {
        PyErr_Format(PyExc_ValueError, "a %zd-byte datagram exceeds the %zu bytes a %u-byte MTU carries", b.len,
                     pring_max_payload(r), r->mtu);
        PyBuffer_Release(&b);
        return NULL;
    }
    int ok = 0, rc = 0;
    Py_BEGIN_ALLOW_THREADS unsigned char *p = pring_tx_frame(r);
    if (p) {
        memcpy(p, b.buf, (size_t)b.len);
        pring_tx_commit(r, (size_t)b.len);
        ok = 1;
    }
    rc = pring_kick(r, 0);
    Py_END_ALLOW_THREADS PyBuffer_Release(&b);
    if (rc < 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return PyBool_FromLong(ok);
}

PyDoc_STRVAR(recv_doc, "recv()\n--\n\n"
                       "The next datagram of the flow received, as (payload, (host, port)), or None\n"
                       "when none waits (never blocks: select on fileno()).");

static PyObject *PacketRing_recv(PacketRingObject *self, PyObject *unused) {
    (void)unused;
    if (closed(self)) {
        return NULL;
    }
    const unsigned char *payload;
    size_t len;
    uint32_t ip;
    uint16_t port;
    if (!pring_rx_next(&self->ring, &payload, &len, &ip, &port)) {
        Py_RETURN_NONE;
    }
    PyObject *source = address(ip, port);
    PyObject *result = source ? Py_BuildValue("(y#N)", (const char *)payload, (Py_ssize_t)len, source) : NULL;
    pring_rx_release(&self->ring);
    return result;
}

static PyObject *PacketRing_fileno(PacketRingObject *self, PyObject *unused) {
    (void)unused;
    if (closed(self)) {
        return NULL;
    }
    return PyLong_FromLong(self->ring.fd);
}

/* Closes the ring now, or once no Run holds it (a Run skips a closing ring). */
static void ring_close(PacketRingObject *self) {
    if (self->users) {
        self->closing = 1;
    } else {
        pring_close(&self->ring);
    }
}

static PyObject *PacketRing_close(PacketRingObject *self, PyObject *unused) {
    (void)unused;
    ring_close(self);
    Py_RETURN_NONE;
}

static PyObject *PacketRing_counters(PacketRingObject *self, PyObject *unused) {
    (void)unused;
    const pring_t *r = &self->ring;
    struct tpacket_stats st = {0, 0};
    socklen_t sl = sizeof st;
    if (r->fd >= 0) {
        getsockopt(r->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl); /* (read and reset by the kernel) */
    }
    return Py_BuildValue("{sKsKsKsKsKsI}", "rx_frames", (unsigned long long)r->rx_frames, "rx_refused",
                         (unsigned long long)r->rx_refused, "rx_oversize", (unsigned long long)r->rx_oversize,
                         "tx_frames", (unsigned long long)r->tx_frames, "tx_full", (unsigned long long)r->tx_full,
                         "kernel_drops", st.tp_drops);
}

static PyObject *PacketRing_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *PacketRing_exit(PacketRingObject *self, PyObject *args) {
    (void)args;
    ring_close(self);
    Py_RETURN_NONE;
}

static PyObject *PacketRing_get_local(PacketRingObject *self, void *c) {
    (void)c;
    return address(self->ring.src_ip, self->ring.src_port);
}
static PyObject *PacketRing_get_peer(PacketRingObject *self, void *c) {
    (void)c;
    return address(self->ring.dst_ip, self->ring.dst_port);
}
static PyObject *PacketRing_get_max_payload(PacketRingObject *self, void *c) {
    (void)c;
    return PyLong_FromSize_t(pring_max_payload(&self->ring));
}
static PyObject *PacketRing_get_frames(PacketRingObject *self, void *c) {
    (void)c;
    return Py_BuildValue("(III)", self->ring.rx_count, self->ring.tx_count, self->ring.frame_size);
}
static PyObject *PacketRing_get_rx_oversize(PacketRingObject *self, void *c) {
    (void)c;
    return PyLong_FromUnsignedLongLong(self->ring.rx_oversize);
}
static PyObject *PacketRing_get_closed(PacketRingObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(!pring_usable(self));
}

static PyMethodDef PacketRing_methods[] = {
    {"send", (PyCFunction)PacketRing_send, METH_O, send_doc},
    {"recv", (PyCFunction)PacketRing_recv, METH_NOARGS, recv_doc},
    {"fileno", (PyCFunction)PacketRing_fileno, METH_NOARGS,
     "fileno()\n--\n\nThe AF_PACKET socket (readable: a frame waits)."},
    {"close", (PyCFunction)PacketRing_close, METH_NOARGS, "close()\n--\n\nUnmap the rings and close the socket."},
    {"counters", (PyCFunction)PacketRing_counters, METH_NOARGS,
     "counters()\n--\n\nFrames taken (rx_frames), refused as malformed (rx_refused), larger than a\n"
     "frame (rx_oversize: a sender's UDP GSO buffer a virtual link carried unsegmented), sent (tx_frames),\n"
     "datagrams dropped on a full TX ring (tx_full), and the kernel's drops on a full RX ring\n"
     "since the last call (kernel_drops)."},
    {"__enter__", (PyCFunction)PacketRing_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)PacketRing_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef PacketRing_getset[] = {
    {"local", (getter)PacketRing_get_local, NULL, "(host, port) the flow's frames go to and come from", NULL},
    {"peer", (getter)PacketRing_get_peer, NULL, "(host, port) of the aggregator", NULL},
    {"max_payload", (getter)PacketRing_get_max_payload, NULL, "the largest datagram: the MTU less 28 bytes", NULL},
    {"frames", (getter)PacketRing_get_frames, NULL, "(RX frames, TX frames, frame size)", NULL},
    {"rx_oversize", (getter)PacketRing_get_rx_oversize, NULL, "frames larger than a ring frame, dropped", NULL},
    {"closed", (getter)PacketRing_get_closed, NULL, "close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(PacketRing_doc, "PacketRing(ifindex, src_mac, dst_mac, local, peer, mtu, rx_frames=1024, tx_frames=512,\n"
                             "           spin_us=0)\n--\n\n"
                             "One UDP flow (local (host, port) <-> peer (host, port)) on AF_PACKET TPACKET_V2\n"
                             "rings bound to interface `ifindex`: frames go to `dst_mac` (the next hop) from\n"
                             "`src_mac` (the interface's); only IPv4/UDP to `local` reaches the RX ring (classic\n"
                             "BPF). `mtu`: the interface's (a datagram carries at most mtu - 28 bytes).\n"
                             "`spin_us`: how long a Run polls the RX ring before it blocks. Needs CAP_NET_RAW\n"
                             "(PermissionError without). Pass it to Run as an endpoint's socket and receiver.");

PyTypeObject PacketRingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "p4reduce._worker.PacketRing",
    .tp_basicsize = sizeof(PacketRingObject),
    .tp_dealloc = (destructor)PacketRing_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PacketRing_doc,
    .tp_methods = PacketRing_methods,
    .tp_getset = PacketRing_getset,
    .tp_new = PacketRing_new,
};

/* ---------------------------------------------------------------------------
 * Python: frame functions (tests), drop_all
 */

static PyObject *py_build_frame(PyObject *m, PyObject *args, PyObject *kwds) {
    (void)m;
    static char *kwlist[] = {"dst_mac", "src_mac", "src", "dst", "payload", "ip_id", NULL};
    Py_buffer dm, sm, payload;
    const char *sh, *dh;
    int sp, dp;
    unsigned id = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*(si)(si)y*|I:build_frame", kwlist, &dm, &sm, &sh, &sp, &dh, &dp,
                                     &payload, &id)) {
        return NULL;
    }
    PyObject *result = NULL;
    uint8_t dmac[6], smac[6];
    uint32_t sip, dip;
    if (parse_mac(&dm, "dst_mac", dmac) < 0 || parse_mac(&sm, "src_mac", smac) < 0 || parse_ip(sh, &sip) < 0 ||
        parse_ip(dh, &dip) < 0) {
        goto done;
    }
    if (payload.len > 65535 - IP_OVERHEAD) {
        PyErr_SetString(PyExc_ValueError, "payload too large for an IPv4 datagram");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, FRAME_OVERHEAD + payload.len);
    if (result) {
        unsigned char *f = (unsigned char *)PyBytes_AS_STRING(result);
        memcpy(f + FRAME_OVERHEAD, payload.buf, (size_t)payload.len);
        frame_build(f, dmac, smac, sip, (uint16_t)sp, dip, (uint16_t)dp, (uint16_t)id, (size_t)payload.len);
    }
done:
    PyBuffer_Release(&dm);
    PyBuffer_Release(&sm);
    PyBuffer_Release(&payload);
    return result;
}

static const char *parse_reasons[] = {
    "",          "short", "not IPv4", "bad IHL", "IPv4 checksum", "not UDP", "fragment", "not to this address and port",
    "UDP length"};

static PyObject *py_parse_frame(PyObject *m, PyObject *args) {
    (void)m;
    Py_buffer f;
    const char *host;
    int port;
    if (!PyArg_ParseTuple(args, "y*(si):parse_frame", &f, &host, &port)) {
        return NULL;
    }
    PyObject *result = NULL;
    uint32_t ip, sip;
    uint16_t sport;
    const unsigned char *payload;
    size_t len;
    if (parse_ip(host, &ip) == 0) {
        const int rc = frame_parse(f.buf, (size_t)f.len, ip, (uint16_t)port, &payload, &len, &sip, &sport);
        if (rc == FRAME_OK) {
            PyObject *source = address(sip, sport);
            result = source ? Py_BuildValue("(y#N)", (const char *)payload, (Py_ssize_t)len, source) : NULL;
        } else {
            result = PyUnicode_FromString(parse_reasons[-rc]);
        }
    }
    PyBuffer_Release(&f);
    return result;
}

static PyObject *py_drop_all(PyObject *m, PyObject *arg) {
    (void)m;
    const int fd = PyObject_AsFileDescriptor(arg);
    if (fd < 0) {
        return NULL;
    }
    struct sock_filter code[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
    struct sock_fprog prog = {1, code};
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

static PyMethodDef functions[] = {
    {"build_frame", (PyCFunction)(void (*)(void))py_build_frame, METH_VARARGS | METH_KEYWORDS,
     "build_frame(dst_mac, src_mac, src, dst, payload, ip_id=0)\n--\n\n"
     "The Ethernet/IPv4/UDP frame a PacketRing sends for `payload` from src (host, port) to dst."},
    {"parse_frame", py_parse_frame, METH_VARARGS,
     "parse_frame(frame, local, /)\n--\n\n"
     "What a PacketRing bound to `local` (host, port) takes from `frame`: (payload, (host, port)),\n"
     "or a str saying why it refuses it."},
    {"drop_all", py_drop_all, METH_O,
     "drop_all(socket_or_fd, /)\n--\n\n"
     "Attach a classic BPF filter that drops every datagram to the socket (it keeps its port)."},
    {NULL, NULL, 0, NULL},
};

int pring_add_to_module(PyObject *m) {
    if (PyType_Ready(&PacketRingType) < 0 || PyModule_AddObjectRef(m, "PacketRing", (PyObject *)&PacketRingType) < 0 ||
        PyModule_AddFunctions(m, functions) < 0) {
        return -1;
    }
    return 0;
}
