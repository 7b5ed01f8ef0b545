// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_packet_ring.h: the worker's raw transport, WorkerConfig(transport="packet")
 * (p4reduce/_packet_ring.c, compiled into p4reduce._worker): an AF_PACKET socket with
 * memory-mapped TPACKET_V2 RX and TX rings on one interface, carrying one UDP flow
 * (this worker's IP and port <-> one aggregator's), Ethernet/IPv4/UDP built and
 * parsed here. p4reduce._worker's Run fills the TX ring (p4reduce/_worker_out.c) and
 * drains the RX ring (p4reduce/_worker_recv.c) with the GIL released; Python
 * (hostagent/endpoint.py) uses the same ring through the PacketRing type for the JOIN
 * handshake.
 */
#ifndef P4REDUCE_PACKET_RING_H
#define P4REDUCE_PACKET_RING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include "_frame.h"
#include "_ring.h"

typedef struct {
    int fd; /* the AF_PACKET socket, -1 once closed */
    int ifindex;
    uint32_t mtu;
    uint8_t src_mac[6], dst_mac[6]; /* this interface's, the next hop's */
    uint32_t src_ip, dst_ip;        /* host order */
    uint16_t src_port, dst_port;
    uint16_t ip_id; /* the next frame's IPv4 identification (per flow, as the kernel's) */
    unsigned char *map;
    size_t map_len;
    unsigned char *rx, *tx;
    uint32_t frame_size, rx_count, tx_count, rx_head, tx_head, tx_queued;
    uint32_t spin_us; /* how long a Run polls the RX ring before it blocks */
    /* frames taken, frames refused (malformed), frames cut short by the ring (larger than a
     * frame: a sender's UDP GSO buffer that a virtual link carried unsegmented), frames sent,
     * datagrams dropped for want of a free TX frame */
    uint64_t rx_frames, rx_refused, rx_oversize, tx_frames, tx_full;
} pring_t;

typedef struct {
    PyObject_HEAD pring_t ring;
    int users;   /* Runs holding the ring (pring_use) */
    int closing; /* close() was called while Runs held it: closed when the last one lets go */
} PacketRingObject;

extern PyTypeObject PacketRingType;

/* A Run holds the ring (a reference and a use) from its construction to its deallocation. */
void pring_use(PacketRingObject *o);
void pring_unuse(PacketRingObject *o);
static inline int pring_usable(const PacketRingObject *o) {
    return o->ring.fd >= 0 && !o->closing;
}

/* PacketRing's functions for a Run (p4reduce/_ring.h). */
extern const ring_ops_t pring_ops;

/* Adds PacketRing, build_frame, parse_frame and drop_all to the module. */
int pring_add_to_module(PyObject *m);

static inline size_t pring_max_payload(const pring_t *r) {
    return r->mtu - IP_OVERHEAD;
}

/* The payload area of the next free TX frame (FRAME_OVERHEAD bytes of headers go before it),
 * waiting once for the frames in flight when none is free; NULL when the ring stays full
 * (the datagram is dropped and counted: the retransmission timers cover it). */
unsigned char *pring_tx_frame(pring_t *r);
/* Hands the frame pring_tx_frame returned, with `len` payload bytes, to the kernel's queue. */
void pring_tx_commit(pring_t *r, size_t len);
/* Sends the committed frames (one send(); `wait`: until they have left). -1 and errno on error. */
int pring_kick(pring_t *r, int wait);
/* Whether a received frame waits in the RX ring. */
int pring_rx_ready(const pring_t *r);
/* The next received datagram of the flow (frames that are not one are released and
 * counted): 1 with its payload and source, 0 when none waits. Release it with
 * pring_rx_release once its payload has been read. */
int pring_rx_next(pring_t *r, const unsigned char **payload, size_t *len, uint32_t *src_ip, uint16_t *src_port);
void pring_rx_release(pring_t *r);

#endif
