// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_xdp.c: WorkerConfig(transport="xdp"), the worker's datagrams on an AF_XDP
 * socket (extension p4reduce._xdp, optional: built only where libxdp's and libbpf's
 * headers are, `apt-get install libxdp-dev libbpf-dev`; p4reduce.transport.xdp says so
 * when it is absent).
 *
 * One XskSocket per aggregator endpoint, on the interface of the route to it:
 *  - a UMEM (one anonymous mapping of 4096-byte chunks): rx_frames chunks lent to the
 *    kernel through the fill ring, tx_frames chunks for sending (a free list, refilled
 *    from the completion ring);
 *  - an AF_XDP socket (libxdp's xsk_socket__create, its own program load inhibited)
 *    bound to the interface's queue `queue` (0: veth has one RX queue; a NIC with more
 *    must steer the flow there). Bind flags 0: the kernel takes zero-copy where the
 *    driver offers it, else copies (XDP_COPY; veth) -- `bind` says which;
 *  - an XDP program, written here as eBPF instructions (no clang at build time), loaded
 *    with libbpf's bpf_prog_load: it redirects into the socket (an XSKMAP) only the
 *    worker's own flow -- IPv4 with a 20-byte header, UDP, to the worker's address and
 *    port, not a fragment -- and passes every other frame to the kernel (ARP, other UDP,
 *    TCP, IPv4 with options). Attached through a BPF link (bpf_link_create, BPF_XDP):
 *    native (driver) mode where the driver has it (veth does; an attached program
 *    turns on veth's NAPI receive path), else generic (SKB) mode -- `mode` says which.
 *    A link detaches the program when its last descriptor closes: at close(), and when
 *    the process exits, however it exits.
 * Frames are built and parsed by p4reduce/_frame.h, as the AF_PACKET ring's; a Run
 * drives the socket through the same table of functions (p4reduce/_ring.h).
 */
#include "_frame.h"
#include "_ring.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/xsk.h>

#define ABI_VERSION 1 /* p4reduce/transport/xdp.py refuses a build of another version */

#define CHUNK      4096u                 /* a UMEM frame (XSK_UMEM__DEFAULT_FRAME_SIZE) */
#define RX_OFFSET  256u                  /* XDP_PACKET_HEADROOM: where a received frame starts */
#define MAX_FRAME  (CHUNK - RX_OFFSET)   /* the longest frame a chunk takes */
#define MAX_MTU    (MAX_FRAME - ETH_LEN) /* 3826 */
#define MAX_RING   (1u << 15)
#define KICK_TRIES 256 /* sendto calls a kick makes at most (a copy-mode send takes 32 frames a call) */

typedef struct {
    int fd; /* the AF_XDP socket, -1 once closed */
    int ifindex;
    uint32_t queue, mtu;
    char ifname[IF_NAMESIZE];
    uint8_t src_mac[6], dst_mac[6];
    uint32_t src_ip, dst_ip; /* host order */
    uint16_t src_port, dst_port;
    uint16_t ip_id;
    uint32_t spin_us;
    unsigned char *area; /* the UMEM */
    size_t area_len;
    uint32_t rx_count, tx_count;
    struct xsk_umem *umem;
    struct xsk_socket *xsk;
    struct xsk_ring_prod fill, tx;
    struct xsk_ring_cons comp, rx;
    uint64_t *tx_free; /* chunks free for sending */
    uint32_t tx_nfree;
    uint64_t tx_addr; /* the chunk tx_frame handed out */
    uint32_t tx_idx;  /* its descriptor, reserved */
    uint32_t tx_queued;
    uint64_t rx_addr; /* the chunk rx_next handed out, returned to the fill ring by rx_release */
    int map_fd, prog_fd, link_fd;
    int native, zerocopy;
    uint64_t rx_frames, rx_refused, tx_frames, tx_full;
} xsk_t;

typedef struct {
    PyObject_HEAD xsk_t s;
    int users, closing;
} XskObject;

static PyTypeObject XskType;

/* ---------------------------------------------------------------------------
 * The XDP program
 */

#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define LDX(size, d, s, o)  INSN(BPF_LDX | (size) | BPF_MEM, d, s, o, 0)
#define MOV_REG(d, s)       INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i)       INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)       INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define JGT_REG(d, s, o)    INSN(BPF_JMP | BPF_JGT | BPF_X, d, s, o, 0)
#define JNE32(d, i, o)      INSN(BPF_JMP32 | BPF_JNE | BPF_K, d, 0, o, i)
#define JSET32(d, i, o)     INSN(BPF_JMP32 | BPF_JSET | BPF_K, d, 0, o, i)
#define CALL(f)             INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()              INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define PASS_AT    23
#define TO_PASS(i) (PASS_AT - (i) - 1)

/* Big-endian bytes as the value a little- or big-endian load of them gives. */
static int32_t be16_loaded(uint16_t v) {
    const uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    uint16_t x;
    memcpy(&x, b, 2);
    return x;
}
static int32_t be32_loaded(uint32_t v) {
    const uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    int32_t x;
    memcpy(&x, b, 4);
    return x;
}

/* The program for the flow to ip:port (host order), redirecting into XSKMAP `map_fd`
 * at the frame's RX queue (its entry: the socket bound to that queue; none: XDP_PASS). */
static size_t flow_program(struct bpf_insn *p, int map_fd, uint32_t ip, uint16_t port) {
    const struct bpf_insn prog[] = {
        LDX(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),           /* 0 */
        LDX(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),       /* 1 */
        MOV_REG(BPF_REG_4, BPF_REG_2),                                             /* 2 */
        ADD_IMM(BPF_REG_4, FRAME_OVERHEAD),                                        /* 3 */
        JGT_REG(BPF_REG_4, BPF_REG_3, TO_PASS(4)),                                 /* 4: shorter than the headers */
        LDX(BPF_H, BPF_REG_4, BPF_REG_2, 12),                                      /* 5: EtherType */
        JNE32(BPF_REG_4, be16_loaded(ETH_P_IP), TO_PASS(6)),                       /* 6 */
        LDX(BPF_B, BPF_REG_4, BPF_REG_2, ETH_LEN),                                 /* 7: version, IHL */
        JNE32(BPF_REG_4, 0x45, TO_PASS(8)),                                        /* 8 */
        LDX(BPF_B, BPF_REG_4, BPF_REG_2, ETH_LEN + 9),                             /* 9: protocol */
        JNE32(BPF_REG_4, IPPROTO_UDP, TO_PASS(10)),                                /* 10 */
        LDX(BPF_H, BPF_REG_4, BPF_REG_2, ETH_LEN + 6),                             /* 11: flags, offset */
        JSET32(BPF_REG_4, be16_loaded(0x3fff), TO_PASS(12)),                       /* 12: MF or an offset */
        LDX(BPF_W, BPF_REG_4, BPF_REG_2, ETH_LEN + 16),                            /* 13: destination */
        JNE32(BPF_REG_4, be32_loaded(ip), TO_PASS(14)),                            /* 14 */
        LDX(BPF_H, BPF_REG_4, BPF_REG_2, ETH_LEN + IPV4_LEN + 2),                  /* 15: UDP destination port */
        JNE32(BPF_REG_4, be16_loaded(port), TO_PASS(16)),                          /* 16 */
        LDX(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, rx_queue_index)), /* 17 */
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),  /* 18: the XSKMAP */
        INSN(0, 0, 0, 0, 0),                                                       /* 19 */
        MOV_IMM(BPF_REG_3, XDP_PASS),                                              /* 20: no socket there */
        CALL(BPF_FUNC_redirect_map),                                               /* 21 */
        EXIT(),                                                                    /* 22 */
        MOV_IMM(BPF_REG_0, XDP_PASS),                                              /* 23: PASS_AT */
        EXIT(),                                                                    /* 24 */
    };
    memcpy(p, prog, sizeof prog);
    return sizeof prog / sizeof prog[0];
}

/* ---------------------------------------------------------------------------
 * The socket
 */

static void xsk_close(xsk_t *s) {
    if (s->link_fd >= 0) { /* detaches the program */
        close(s->link_fd);
        s->link_fd = -1;
    }
    if (s->xsk) {
        xsk_socket__delete(s->xsk);
        s->xsk = NULL;
    }
    if (s->umem) {
        xsk_umem__delete(s->umem);
        s->umem = NULL;
    }
    if (s->area) {
        munmap(s->area, s->area_len);
        s->area = NULL;
    }
    if (s->prog_fd >= 0) {
        close(s->prog_fd);
        s->prog_fd = -1;
    }
    if (s->map_fd >= 0) {
        close(s->map_fd);
        s->map_fd = -1;
    }
    free(s->tx_free);
    s->tx_free = NULL;
    s->fd = -1;
}

static uint32_t ring_size(uint32_t n) {
    uint32_t size = 64;
    while (size < n && size < MAX_RING) {
        size <<= 1;
    }
    return size;
}

/* Opens the socket of `s`'s flow; -1 with errno and `*what` naming what failed (the
 * verifier's log in `log` when the program was refused). `mode`: 0 native else generic,
 * 1 native only, 2 generic only. */
static int xsk_open(xsk_t *s, int mode, const char **what, char *log, size_t log_len) {
    s->fd = s->map_fd = s->prog_fd = s->link_fd = -1;
    s->area_len = (size_t)(s->rx_count + s->tx_count) * CHUNK;
    *what = "mmap of the UMEM";
    s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (s->area == MAP_FAILED) {
        s->area = NULL;
        return -1;
    }
    s->tx_free = malloc(s->tx_count * sizeof *s->tx_free);
    if (!s->tx_free) {
        *what = "malloc";
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 0; i < s->tx_count; i++) {
        s->tx_free[i] = (uint64_t)(s->rx_count + i) * CHUNK;
    }
    s->tx_nfree = s->tx_count;
    const struct xsk_umem_config ucfg = {
        .fill_size = s->rx_count, .comp_size = s->tx_count, .frame_size = CHUNK, .frame_headroom = 0, .flags = 0};
    *what = "xsk_umem__create";
    int rc = xsk_umem__create(&s->umem, s->area, s->area_len, &s->fill, &s->comp, &ucfg);
    if (rc) {
        s->umem = NULL;
        errno = -rc;
        return -1;
    }
    const struct xsk_socket_config xcfg = {.rx_size = s->rx_count,
                                           .tx_size = s->tx_count,
                                           .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
                                           .xdp_flags = 0,
                                           .bind_flags = 0}; /* zero-copy where offered, else copy */
    *what = "xsk_socket__create";
    rc = xsk_socket__create(&s->xsk, s->ifname, s->queue, s->umem, &s->rx, &s->tx, &xcfg);
    if (rc) {
        s->xsk = NULL;
        errno = -rc;
        return -1;
    }
    s->fd = xsk_socket__fd(s->xsk);
    struct xdp_options opts = {0};
    socklen_t ol = sizeof opts;
    if (getsockopt(s->fd, SOL_XDP, XDP_OPTIONS, &opts, &ol) == 0) {
        s->zerocopy = !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
    }
    /* Every RX chunk to the kernel. */
    uint32_t idx;
    *what = "the fill ring";
    if (xsk_ring_prod__reserve(&s->fill, s->rx_count, &idx) != s->rx_count) {
        errno = ENOSPC;
        return -1;
    }
    for (uint32_t i = 0; i < s->rx_count; i++) {
        *xsk_ring_prod__fill_addr(&s->fill, idx + i) = (uint64_t)i * CHUNK;
    }
    xsk_ring_prod__submit(&s->fill, s->rx_count);

    *what = "bpf_map_create(XSKMAP)";
    s->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "p4r_xsk", sizeof(uint32_t), sizeof(int), s->queue + 1, NULL);
    if (s->map_fd < 0) {
        return -1;
    }
    *what = "bpf_map_update_elem(XSKMAP)";
    if (bpf_map_update_elem(s->map_fd, &s->queue, &s->fd, 0) < 0) {
        return -1;
    }
    struct bpf_insn insns[32];
    const size_t n = flow_program(insns, s->map_fd, s->src_ip, s->src_port);
    LIBBPF_OPTS(bpf_prog_load_opts, popts, .log_buf = log, .log_size = (uint32_t)log_len, .log_level = 0);
    *what = "bpf_prog_load(XDP)";
    s->prog_fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "p4r_flow", "GPL", insns, n, &popts);
    if (s->prog_fd < 0) {
        const int e = errno;
        popts.log_level = 1; /* again, for the verifier's reasons */
        const int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "p4r_flow", "GPL", insns, n, &popts);
        if (fd >= 0) {
            close(fd);
        }
        errno = e;
        return -1;
    }
    log[0] = 0;
    const uint32_t modes[2] = {XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE};
    for (int m = mode == 2 ? 1 : 0; m < (mode == 1 ? 1 : 2); m++) {
        LIBBPF_OPTS(bpf_link_create_opts, lopts, .flags = modes[m]);
        *what = m == 0 ? "bpf_link_create(BPF_XDP, native mode)" : "bpf_link_create(BPF_XDP, generic mode)";
        s->link_fd = bpf_link_create(s->prog_fd, s->ifindex, BPF_XDP, &lopts);
        if (s->link_fd >= 0) {
            s->native = m == 0;
            return 0;
        }
        if (errno == EBUSY || errno == EEXIST) {
            return -1; /* another program holds the interface */
        }
    }
    return -1;
}

/* Completed TX chunks back to the free list. */
static void reclaim(xsk_t *s) {
    uint32_t idx;
    const uint32_t n = xsk_ring_cons__peek(&s->comp, s->tx_count, &idx);
    for (uint32_t i = 0; i < n; i++) {
        s->tx_free[s->tx_nfree++] = *xsk_ring_cons__comp_addr(&s->comp, idx + i) & ~(uint64_t)(CHUNK - 1);
    }
    if (n) {
        xsk_ring_cons__release(&s->comp, n);
    }
}

/* Whether the kernel has taken every descriptor of the TX ring. */
static int tx_drained(xsk_t *s) {
    return xsk_prod_nb_free(&s->tx, s->tx_count) >= s->tx_count;
}

static int xsk_kick(xsk_t *s, int wait) {
    (void)wait; /* (a copy-mode send completes within sendto; a zero-copy one soon after) */
    int rc = 0;
    if (s->tx_queued) {
        for (int k = 0; k < KICK_TRIES; k++) {
            if (sendto(s->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN && errno != EBUSY &&
                errno != ENOBUFS && errno != EINTR) {
                rc = -1;
                break;
            }
            reclaim(s);
            if (tx_drained(s)) {
                break;
            }
        }
        s->tx_queued = 0;
    }
    reclaim(s);
    return rc;
}

static unsigned char *xsk_tx_frame(xsk_t *s) {
    if (!s->tx_nfree) {
        reclaim(s);
    }
    if (!s->tx_nfree) {
        xsk_kick(s, 1);
    }
    if (!s->tx_nfree || xsk_ring_prod__reserve(&s->tx, 1, &s->tx_idx) != 1) {
        s->tx_full++;
        return NULL;
    }
    s->tx_addr = s->tx_free[--s->tx_nfree];
    return s->area + s->tx_addr + FRAME_OVERHEAD;
}

static void xsk_tx_commit(xsk_t *s, size_t len) {
    struct xdp_desc *d = xsk_ring_prod__tx_desc(&s->tx, s->tx_idx);
    d->addr = s->tx_addr;
    d->len = (uint32_t)frame_build(s->area + s->tx_addr, s->dst_mac, s->src_mac, s->src_ip, s->src_port, s->dst_ip,
                                   s->dst_port, s->ip_id++, len);
    d->options = 0;
    xsk_ring_prod__submit(&s->tx, 1);
    s->tx_queued++;
    s->tx_frames++;
}

static int xsk_rx_ready(xsk_t *s) {
    return xsk_cons_nb_avail(&s->rx, 1) > 0;
}

static void xsk_rx_release(xsk_t *s) {
    uint32_t idx;
    xsk_ring_cons__release(&s->rx, 1);
    if (xsk_ring_prod__reserve(&s->fill, 1, &idx) == 1) { /* (room: the fill ring holds every RX chunk) */
        *xsk_ring_prod__fill_addr(&s->fill, idx) = s->rx_addr;
        xsk_ring_prod__submit(&s->fill, 1);
    }
}

static int xsk_rx_next(xsk_t *s, const unsigned char **payload, size_t *len, uint32_t *ip, uint16_t *port) {
    uint32_t idx;
    while (xsk_ring_cons__peek(&s->rx, 1, &idx) == 1) {
        const struct xdp_desc *d = xsk_ring_cons__rx_desc(&s->rx, idx);
        s->rx_addr = d->addr & ~(uint64_t)(CHUNK - 1);
        if (frame_parse(s->area + d->addr, d->len, s->src_ip, s->src_port, payload, len, ip, port) == FRAME_OK) {
            s->rx_frames++;
            return 1;
        }
        s->rx_refused++;
        xsk_rx_release(s);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * The table a Run calls (p4reduce/_ring.h)
 */

#define S(o) (&((XskObject *)(o))->s)
static int usable(const XskObject *o) {
    return o->s.fd >= 0 && !o->closing;
}
static int ops_usable(PyObject *o) {
    return usable((XskObject *)o);
}
static int ops_fd(PyObject *o) {
    return S(o)->fd;
}
static uint32_t ops_spin_us(PyObject *o) {
    return S(o)->spin_us;
}
static size_t ops_max_payload(PyObject *o) {
    return S(o)->mtu - IP_OVERHEAD;
}
static unsigned char *ops_tx_frame(PyObject *o) {
    return xsk_tx_frame(S(o));
}
static void ops_tx_commit(PyObject *o, size_t len) {
    xsk_tx_commit(S(o), len);
}
static int ops_kick(PyObject *o, int wait) {
    return xsk_kick(S(o), wait);
}
static int ops_rx_ready(PyObject *o) {
    return xsk_rx_ready(S(o));
}
static int ops_rx_next(PyObject *o, const unsigned char **payload, size_t *len, uint32_t *ip, uint16_t *port) {
    return xsk_rx_next(S(o), payload, len, ip, port);
}
static void ops_rx_release(PyObject *o) {
    xsk_rx_release(S(o));
}
static void ops_use(PyObject *o) {
    Py_INCREF(o);
    ((XskObject *)o)->users++;
}
static void ops_unuse(PyObject *o) {
    XskObject *x = (XskObject *)o;
    if (--x->users == 0 && x->closing) {
        xsk_close(&x->s);
    }
    Py_DECREF(o);
}

static const ring_ops_t xsk_ops = {"xdp",          ops_usable,    ops_fd,   ops_spin_us,  ops_max_payload,
                                   ops_tx_frame,   ops_tx_commit, ops_kick, ops_rx_ready, ops_rx_next,
                                   ops_rx_release, ops_use,       ops_unuse};

/* ---------------------------------------------------------------------------
 * Python: XskSocket
 */

static int closed(XskObject *self) {
    if (!usable(self)) {
        PyErr_SetString(PyExc_ValueError, "the xdp socket is closed");
        return 1;
    }
    return 0;
}

static PyObject *Xsk_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"interface", "src_mac",   "dst_mac",   "local",   "peer", "mtu",
                             "queue",     "rx_frames", "tx_frames", "spin_us", "mode", NULL};
    const char *ifname, *local_host, *peer_host, *mode = "auto";
    Py_buffer src_mac, dst_mac;
    int local_port, peer_port;
    unsigned mtu, queue = 0, rx_frames = 1024, tx_frames = 512, spin_us = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sy*y*(si)(si)I|IIIIs:XskSocket", kwlist, &ifname, &src_mac, &dst_mac,
                                     &local_host, &local_port, &peer_host, &peer_port, &mtu, &queue, &rx_frames,
                                     &tx_frames, &spin_us, &mode)) {
        return NULL;
    }
    XskObject *self = NULL;
    xsk_t s;
    memset(&s, 0, sizeof s);
    s.fd = s.map_fd = s.prog_fd = s.link_fd = -1;
    const int m = !strcmp(mode, "auto") ? 0 : !strcmp(mode, "native") ? 1 : !strcmp(mode, "generic") ? 2 : -1;
    if (m < 0) {
        PyErr_Format(PyExc_ValueError, "mode %s: use auto, native or generic", mode);
        goto done;
    }
    if (parse_mac(&src_mac, "src_mac", s.src_mac) < 0 || parse_mac(&dst_mac, "dst_mac", s.dst_mac) < 0 ||
        parse_ip(local_host, &s.src_ip) < 0 || parse_ip(peer_host, &s.dst_ip) < 0) {
        goto done;
    }
    if (local_port < 1 || local_port > 65535 || peer_port < 1 || peer_port > 65535) {
        PyErr_SetString(PyExc_ValueError, "ports must be in 1..65535");
        goto done;
    }
    if (mtu < 68 || mtu > MAX_MTU) {
        PyErr_Format(PyExc_ValueError,
                     "MTU %u: transport 'xdp' takes 68..%u (a frame fits one %u-byte UMEM chunk after the kernel's "
                     "%u bytes of headroom); lower the interface's MTU or use transport 'packet'",
                     mtu, MAX_MTU, CHUNK, RX_OFFSET);
        goto done;
    }
    if (strlen(ifname) >= IF_NAMESIZE || !(s.ifindex = (int)if_nametoindex(ifname))) {
        PyErr_Format(PyExc_OSError, "transport 'xdp': no interface %s", ifname);
        goto done;
    }
    if (queue > 1023) {
        PyErr_Format(PyExc_ValueError, "queue %u outside 0..1023", queue);
        goto done;
    }
    snprintf(s.ifname, sizeof s.ifname, "%s", ifname);
    s.queue = queue;
    s.mtu = mtu;
    s.src_port = (uint16_t)local_port;
    s.dst_port = (uint16_t)peer_port;
    s.spin_us = spin_us;
    s.rx_count = ring_size(rx_frames);
    s.tx_count = ring_size(tx_frames);
    s.ip_id = (uint16_t)(getpid() ^ (uintptr_t)&s);
    const char *what;
    char log[4096];
    log[0] = 0;
    int rc;
    /* Opened in the object itself, never in a copy: libxdp keeps pointers to the ring
     * structs it was given (the socket's rx/tx, the UMEM's fill/completion) and unmaps the
     * rings through them when the socket is deleted; rings opened in a local struct and
     * copied would leave it unmapping whatever the old stack frame holds by then. */
    self = (XskObject *)type->tp_alloc(type, 0);
    if (!self) {
        goto done;
    }
    self->s = s; /* the parameters; no ring exists yet */
    Py_BEGIN_ALLOW_THREADS rc = xsk_open(&self->s, m, &what, log, sizeof log);
    Py_END_ALLOW_THREADS if (rc < 0) {
        const int e = errno;
        xsk_close(&self->s);
        Py_CLEAR(self); /* (its dealloc closes again: nothing is left open) */
        if (e == EPERM || e == EACCES) {
            PyErr_Format(PyExc_PermissionError,
                         "transport 'xdp' needs CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF (run as root): %s: %s", what,
                         strerror(e));
        } else if (e == EBUSY || e == EEXIST) {
            PyErr_Format(PyExc_OSError,
                         "transport 'xdp': %s on %s: %s (another XDP program or AF_XDP socket holds the interface's "
                         "queue %u: one xdp endpoint per interface)",
                         what, ifname, strerror(e), queue);
        } else {
            PyErr_Format(PyExc_OSError, "transport 'xdp': %s on %s: %s%s%s", what, ifname, strerror(e),
                         log[0] ? "; verifier: " : "", log);
        }
        goto done;
    }
done:
    PyBuffer_Release(&src_mac);
    PyBuffer_Release(&dst_mac);
    return (PyObject *)self;
}

static void Xsk_dealloc(XskObject *self) {
    xsk_close(&self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Xsk_send(XskObject *self, PyObject *arg) {
    if (closed(self)) {
        return NULL;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    xsk_t *s = &self->s;
    if ((size_t)b.len > s->mtu - IP_OVERHEAD) {
        PyErr_Format(PyExc_ValueError, "a %zd-byte datagram exceeds the %u bytes a %u-byte MTU carries", b.len,
                     s->mtu - IP_OVERHEAD, s->mtu);
        PyBuffer_Release(&b);
        return NULL;
    }
    int ok = 0, rc;
    Py_BEGIN_ALLOW_THREADS unsigned char *p = xsk_tx_frame(s);
    if (p) {
        memcpy(p, b.buf, (size_t)b.len);
        xsk_tx_commit(s, (size_t)b.len);
        ok = 1;
    }
    rc = xsk_kick(s, 0);
    Py_END_ALLOW_THREADS PyBuffer_Release(&b);
    if (rc < 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return PyBool_FromLong(ok);
}

static PyObject *Xsk_recv(XskObject *self, PyObject *unused) {
    (void)unused;
    if (closed(self)) {
        return NULL;
    }
    const unsigned char *payload;
    size_t len;
    uint32_t ip;
    uint16_t port;
    if (!xsk_rx_next(&self->s, &payload, &len, &ip, &port)) {
        Py_RETURN_NONE;
    }
    PyObject *source = address(ip, port);
    PyObject *result = source ? Py_BuildValue("(y#N)", (const char *)payload, (Py_ssize_t)len, source) : NULL;
    xsk_rx_release(&self->s);
    return result;
}

static PyObject *Xsk_fileno(XskObject *self, PyObject *unused) {
    (void)unused;
    if (closed(self)) {
        return NULL;
    }
    return PyLong_FromLong(self->s.fd);
}

static void sock_close(XskObject *self) {
    if (self->users) {
        self->closing = 1;
    } else {
        xsk_close(&self->s);
    }
}

static PyObject *Xsk_close(XskObject *self, PyObject *unused) {
    (void)unused;
    sock_close(self);
    Py_RETURN_NONE;
}

static struct xdp_statistics kernel_stats(const xsk_t *s) {
    struct xdp_statistics st;
    memset(&st, 0, sizeof st);
    socklen_t sl = sizeof st;
    if (s->fd >= 0) {
        getsockopt(s->fd, SOL_XDP, XDP_STATISTICS, &st, &sl);
    }
    return st;
}

static PyObject *Xsk_counters(XskObject *self, PyObject *unused) {
    (void)unused;
    const xsk_t *s = &self->s;
    const struct xdp_statistics st = kernel_stats(s);
    return Py_BuildValue("{sKsKsKsKsKsKsKsK}", "rx_frames", (unsigned long long)s->rx_frames, "rx_refused",
                         (unsigned long long)s->rx_refused, "tx_frames", (unsigned long long)s->tx_frames, "tx_full",
                         (unsigned long long)s->tx_full, "kernel_rx_dropped", (unsigned long long)st.rx_dropped,
                         "kernel_rx_ring_full", (unsigned long long)st.rx_ring_full, "kernel_fill_empty",
                         (unsigned long long)st.rx_fill_ring_empty_descs, "kernel_tx_invalid",
                         (unsigned long long)st.tx_invalid_descs);
}

PyDoc_STRVAR(classify_doc, "classify(frame, /)\n--\n\n"
                           "What the attached XDP program does with `frame` (BPF_PROG_TEST_RUN, nothing sent):\n"
                           "'redirect' (into this socket) or 'pass' (to the kernel), or another XDP action's name.");

static PyObject *Xsk_classify(XskObject *self, PyObject *arg) {
    if (closed(self)) {
        return NULL;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    unsigned char out[CHUNK];
    LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = b.buf, .data_size_in = (uint32_t)b.len, .data_out = out,
                .data_size_out = sizeof out, .repeat = 1);
    const int rc = bpf_prog_test_run_opts(self->s.prog_fd, &opts);
    PyBuffer_Release(&b);
    if (rc < 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    static const char *names[] = {"aborted", "drop", "pass", "tx", "redirect"};
    if (opts.retval < 5) {
        return PyUnicode_FromString(names[opts.retval]);
    }
    return PyUnicode_FromFormat("action %u", opts.retval);
}

static PyObject *Xsk_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *Xsk_exit(XskObject *self, PyObject *args) {
    (void)args;
    sock_close(self);
    Py_RETURN_NONE;
}

static PyObject *get_local(XskObject *self, void *c) {
    (void)c;
    return address(self->s.src_ip, self->s.src_port);
}
static PyObject *get_peer(XskObject *self, void *c) {
    (void)c;
    return address(self->s.dst_ip, self->s.dst_port);
}
static PyObject *get_max_payload(XskObject *self, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(self->s.mtu - IP_OVERHEAD);
}
static PyObject *get_frames(XskObject *self, void *c) {
    (void)c;
    return Py_BuildValue("(III)", self->s.rx_count, self->s.tx_count, CHUNK);
}
static PyObject *get_rx_oversize(XskObject *self, void *c) {
    (void)c;
    return PyLong_FromUnsignedLongLong(kernel_stats(&self->s).rx_dropped);
}
static PyObject *get_closed(XskObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(!usable(self));
}
static PyObject *get_mode(XskObject *self, void *c) {
    (void)c;
    return PyUnicode_FromString(self->s.native ? "native" : "generic");
}
static PyObject *get_bind(XskObject *self, void *c) {
    (void)c;
    return PyUnicode_FromString(self->s.zerocopy ? "zerocopy" : "copy");
}
static PyObject *get_queue(XskObject *self, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(self->s.queue);
}
static PyObject *get_interface(XskObject *self, void *c) {
    (void)c;
    return PyUnicode_FromString(self->s.ifname);
}

static PyMethodDef Xsk_methods[] = {
    {"send", (PyCFunction)Xsk_send, METH_O,
     "send(payload, /)\n--\n\nSend one datagram to the peer (False: no TX frame became free, dropped)."},
    {"recv", (PyCFunction)Xsk_recv, METH_NOARGS,
     "recv()\n--\n\nThe next datagram of the flow, as (payload, (host, port)), or None (never blocks)."},
    {"fileno", (PyCFunction)Xsk_fileno, METH_NOARGS, "fileno()\n--\n\nThe AF_XDP socket (readable: a frame waits)."},
    {"close", (PyCFunction)Xsk_close, METH_NOARGS,
     "close()\n--\n\nDetach the XDP program, close the socket, free the UMEM."},
    {"counters", (PyCFunction)Xsk_counters, METH_NOARGS,
     "counters()\n--\n\nFrames taken (rx_frames), refused as malformed (rx_refused), sent (tx_frames),\n"
     "datagrams dropped on a full TX ring (tx_full), and the kernel's XDP_STATISTICS (kernel_*)."},
    {"classify", (PyCFunction)Xsk_classify, METH_O, classify_doc},
    {"__enter__", (PyCFunction)Xsk_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Xsk_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Xsk_getset[] = {
    {"local", (getter)get_local, NULL, "(host, port) the flow's frames go to and come from", NULL},
    {"peer", (getter)get_peer, NULL, "(host, port) of the aggregator", NULL},
    {"max_payload", (getter)get_max_payload, NULL, "the largest datagram: the MTU less 28 bytes", NULL},
    {"frames", (getter)get_frames, NULL, "(RX frames, TX frames, UMEM chunk size)", NULL},
    {"rx_oversize", (getter)get_rx_oversize, NULL,
     "frames the kernel dropped (XDP_STATISTICS rx_dropped: "
     "in copy mode, frames larger than a chunk)",
     NULL},
    {"closed", (getter)get_closed, NULL, "close() was called", NULL},
    {"mode", (getter)get_mode, NULL, "how the XDP program is attached: 'native' (driver) or 'generic' (SKB)", NULL},
    {"bind", (getter)get_bind, NULL, "'zerocopy' or 'copy' (XDP_COPY: the driver has no zero-copy, as veth)", NULL},
    {"queue", (getter)get_queue, NULL, "the RX queue the socket is bound to", NULL},
    {"interface", (getter)get_interface, NULL, "the interface's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Xsk_doc, "XskSocket(interface, src_mac, dst_mac, local, peer, mtu, queue=0, rx_frames=1024,\n"
                      "          tx_frames=512, spin_us=0, mode='auto')\n--\n\n"
                      "One UDP flow (local (host, port) <-> peer (host, port)) on an AF_XDP socket bound to\n"
                      "`interface`'s RX queue `queue`, with an XDP program that redirects only IPv4/UDP to\n"
                      "`local` into it and passes every other frame to the kernel. `mode`: how the program is\n"
                      "attached: 'native', 'generic', or 'auto' (native, else generic). Frames go to `dst_mac`\n"
                      "from `src_mac`; `mtu` at most 3826. Needs root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_BPF).\n"
                      "Pass it to Run as an endpoint's socket and receiver.");

static PyTypeObject XskType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "p4reduce._xdp.XskSocket",
    .tp_basicsize = sizeof(XskObject),
    .tp_dealloc = (destructor)Xsk_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Xsk_doc,
    .tp_methods = Xsk_methods,
    .tp_getset = Xsk_getset,
    .tp_new = Xsk_new,
};

static PyObject *py_program(PyObject *m, PyObject *args) {
    (void)m;
    const char *host;
    int port;
    uint32_t ip;
    if (!PyArg_ParseTuple(args, "(si):program", &host, &port) || parse_ip(host, &ip) < 0) {
        return NULL;
    }
    struct bpf_insn insns[32];
    const size_t n = flow_program(insns, -1, ip, (uint16_t)port);
    return PyBytes_FromStringAndSize((const char *)insns, (Py_ssize_t)(n * sizeof insns[0]));
}

static PyMethodDef functions[] = {
    {"program", py_program, METH_VARARGS,
     "program(local, /)\n--\n\nThe XDP program's eBPF instructions for the flow to `local` (host, port), map fd -1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_xdp",
    .m_doc = "AF_XDP sockets for WorkerConfig(transport='xdp') (p4reduce/_xdp.c).",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__xdp(void) {
    if (PyType_Ready(&XskType) < 0) {
        return NULL;
    }
    PyObject *capsule = PyCapsule_New((void *)&xsk_ops, RING_OPS_CAPSULE, NULL);
    if (!capsule) {
        return NULL;
    }
    /* (a static type's dict: set before the module is used, as PyType_Ready left it) */
    const int set = PyDict_SetItemString(XskType.tp_dict, "_ring_ops", capsule);
    Py_DECREF(capsule);
    if (set < 0) {
        return NULL;
    }
    PyType_Modified(&XskType);
    PyObject *m = PyModule_Create(&module);
    if (!m) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "XskSocket", (PyObject *)&XskType) < 0 ||
        PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "MAX_MTU", MAX_MTU) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
