/*
 * p4reduce/_packet_ring.h: the worker's raw transport, WorkerConfig(transport="packet")
 * (p4reduce/_packet_ring.c, compiled into p4reduce._worker): an AF_PACKET socket with
 * memory-mapped TPACKET_V2 RX and TX rings on one interface, carrying one UDP flow
 * (this worker's IP and port <-> one aggregator's), Ethernet/IPv4/UDP built and
 * parsed here. p4reduce/_worker.c's Run fills the TX ring and drains the RX ring
 * with the GIL released; Python (hostagent/endpoint.py) uses the same ring through
 * the PacketRing type for the JOIN handshake.
 */
#ifndef P4REDUCE_PACKET_RING_H
#define P4REDUCE_PACKET_RING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#define ETH_LEN 14
#define IPV4_LEN 20
#define UDP_LEN 8
#define FRAME_OVERHEAD (ETH_LEN + IPV4_LEN + UDP_LEN) /* before the UDP payload */
#define IP_OVERHEAD (IPV4_LEN + UDP_LEN)              /* a datagram's payload: at most MTU - 28 */

/* Why frame_parse refused a frame (0: taken). */
enum {
    FRAME_OK = 0,
    FRAME_SHORT = -1,     /* shorter than its headers or than what they announce */
    FRAME_NOT_IPV4 = -2,  /* EtherType or IP version */
    FRAME_BAD_IHL = -3,   /* IPv4 header length below 20 bytes */
    FRAME_CHECKSUM = -4,  /* IPv4 header checksum */
    FRAME_NOT_UDP = -5,   /* protocol */
    FRAME_FRAGMENT = -6,  /* MF set or a fragment offset */
    FRAME_NOT_MINE = -7,  /* destination address or port */
    FRAME_UDP_LENGTH = -8 /* UDP length below 8 or beyond the IPv4 packet */
};

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
    PyObject_HEAD
    pring_t ring;
    int users;   /* Runs holding the ring (pring_use) */
    int closing; /* close() was called while Runs held it: closed when the last one lets go */
} PacketRingObject;

extern PyTypeObject PacketRingType;

/* A Run holds the ring (a reference and a use) from its construction to its deallocation. */
void pring_use(PacketRingObject *o);
void pring_unuse(PacketRingObject *o);
static inline int pring_usable(const PacketRingObject *o) { return o->ring.fd >= 0 && !o->closing; }

/* Adds PacketRing, build_frame, parse_frame and drop_all to the module. */
int pring_add_to_module(PyObject *m);

/* Builds Ethernet/IPv4/UDP headers in the first FRAME_OVERHEAD bytes of `f`, for a payload of
 * `len` bytes that follows them; returns the frame's length. Addresses in host order. */
size_t frame_build(unsigned char *f, const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t src_ip,
                   uint16_t src_port, uint32_t dst_ip, uint16_t dst_port, uint16_t ip_id, size_t len);

/* An Ethernet frame of `len` bytes: FRAME_OK and its UDP payload and source when it is an
 * unfragmented IPv4/UDP datagram to dst_ip:dst_port, else why not (FRAME_*). */
int frame_parse(const unsigned char *f, size_t len, uint32_t dst_ip, uint16_t dst_port, const unsigned char **payload,
                size_t *payload_len, uint32_t *src_ip, uint16_t *src_port);

static inline size_t pring_max_payload(const pring_t *r) { return r->mtu - IP_OVERHEAD; }

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
