// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_udp.h: UDP GSO and GRO for the two native data paths, p4reduce/_engine.c
 * (the aggregator) and p4reduce/_worker.c (the host agent): the names older headers
 * lack, the kernel's limits on a segmented send, and its two control messages.
 *
 * GSO: a run of equal-size datagrams to one address (the last one may be shorter) goes
 * as one buffer with a UDP_SEGMENT cmsg naming the size; the kernel cuts it up.
 * GRO: a socket with UDP_GRO on may hand over several datagrams of one flow as one
 * buffer, with a UDP_GRO cmsg naming the size to split it at.
 * (p4reduce.transport.udp_offload probes a socket for both.)
 */
#ifndef P4REDUCE_UDP_H
#define P4REDUCE_UDP_H

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* UDP GSO (Linux >= 4.18) and GRO (>= 5.0); older headers lack the names. */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's own "not supported", which can leak to user space */
#endif

#define GSO_MAX_SEGS  64                           /* UDP_MAX_SEGMENTS of kernels before 6.9 (later ones: 128) */
#define GSO_MAX_BYTES 65507                        /* one IPv4 datagram's UDP payload */
#define RCTL_LEN      64                           /* control buffer per received message (the UDP_GRO cmsg) */
#define SCTL_LEN      CMSG_SPACE(sizeof(uint16_t)) /* per sent message (UDP_SEGMENT) */

/* Makes `h` a segmented send of `seg`-byte datagrams: its UDP_SEGMENT cmsg is written
 * at `ctl` (SCTL_LEN bytes, aligned as malloc aligns). */
static inline void udp_set_segment(struct msghdr *h, void *ctl, uint16_t seg) {
    struct cmsghdr *cm = (struct cmsghdr *)ctl;
    memset(cm, 0, SCTL_LEN);
    cm->cmsg_level = SOL_UDP;
    cm->cmsg_type = UDP_SEGMENT;
    cm->cmsg_len = CMSG_LEN(sizeof seg);
    memcpy(CMSG_DATA(cm), &seg, sizeof seg);
    h->msg_control = cm;
    h->msg_controllen = SCTL_LEN;
}

/* The segment size a received message's UDP_GRO cmsg gives (0: one datagram). Parse it
 * whoever turned UDP_GRO on for the socket: a coalesced buffer must be split either way. */
static inline uint32_t udp_gro_segment(struct msghdr *h) {
    uint32_t seg = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
        if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO && cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int v;
            memcpy(&v, CMSG_DATA(cm), sizeof v);
            seg = v > 0 ? (uint32_t)v : 0;
        }
    }
    return seg;
}

/* Errors of a segmented send that the same datagrams sent one by one would not get: no
 * checksum offload on the route's device (EIO), a segment over the path MTU or a socket
 * with SO_NO_CHECK (EINVAL), a kernel or device without UDP GSO. */
static inline int udp_gso_refused(int err) {
    return err == EIO || err == EINVAL || err == EMSGSIZE || err == EOPNOTSUPP || err == ENOPROTOOPT || err == ENOTSUPP;
}

#endif
