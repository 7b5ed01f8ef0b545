// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_ring.h: what p4reduce._worker's Run needs of a raw transport's flow, the
 * same for an AF_PACKET ring (PacketRing, p4reduce/_packet_ring.c, in p4reduce._worker)
 * and an AF_XDP socket (XskSocket, p4reduce/_xdp.c, the optional p4reduce._xdp): a table
 * of functions on the Python object. PacketRing's table is linked in; another type
 * hands its table to the Run as a capsule, its type's attribute `_ring_ops`
 * (RING_OPS_CAPSULE), so that p4reduce._worker does not link libxdp.
 *
 * All but use/unuse are called without the GIL, by the one thread running the Run.
 */
#ifndef P4REDUCE_RING_H
#define P4REDUCE_RING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

/* The capsule's name: a build of another version of this table is refused. */
#define RING_OPS_CAPSULE "p4reduce._ring_ops.v1"

typedef struct ring_ops {
    const char *transport; /* "packet", "xdp": in error messages */
    /* Open and not closing: a Run skips a ring that is not. */
    int (*usable)(PyObject *ring);
    /* What poll() waits on (readable: a frame waits). */
    int (*fd)(PyObject *ring);
    /* How long a Run spins on the RX side before it blocks (microseconds). */
    uint32_t (*spin_us)(PyObject *ring);
    /* The largest datagram (the MTU less 28). */
    size_t (*max_payload)(PyObject *ring);
    /* The payload area of the next free TX frame, or NULL when none becomes free (the
     * datagram is dropped and counted). */
    unsigned char *(*tx_frame)(PyObject *ring);
    /* The frame tx_frame returned, with `len` payload bytes, queued to be sent. */
    void (*tx_commit)(PyObject *ring, size_t len);
    /* Sends the committed frames. -1 and errno on error. */
    int (*kick)(PyObject *ring, int wait);
    /* Whether a received frame waits. */
    int (*rx_ready)(PyObject *ring);
    /* The next datagram of the flow (1), or 0 when none waits; rx_release once read. */
    int (*rx_next)(PyObject *ring, const unsigned char **payload, size_t *len, uint32_t *src_ip, uint16_t *src_port);
    void (*rx_release)(PyObject *ring);
    /* With the GIL: a Run holds the ring (a reference and a use) from its construction to
     * its deallocation; close() while in use closes it once the last Run lets go. */
    void (*use)(PyObject *ring);
    void (*unuse)(PyObject *ring);
} ring_ops_t;

typedef struct {
    PyObject *obj; /* NULL: a plain socket */
    const ring_ops_t *ops;
} ring_ref_t;

#endif
