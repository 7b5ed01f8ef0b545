// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_frame.h: the Ethernet/IPv4/UDP frames of the raw transports ("packet",
 * p4reduce/_packet_ring.c, and "xdp", p4reduce/_xdp.c): built and parsed the same way
 * for both (static inline: each extension compiles its own copy), and the small
 * Python argument helpers their types share.
 */
#ifndef P4REDUCE_FRAME_H
#define P4REDUCE_FRAME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_be.h"

#define ETH_LEN        14
#define IPV4_LEN       20
#define UDP_LEN        8
#define FRAME_OVERHEAD (ETH_LEN + IPV4_LEN + UDP_LEN) /* before the UDP payload */
#define IP_OVERHEAD    (IPV4_LEN + UDP_LEN)           /* a datagram's payload: at most MTU - 28 */

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

/* The Internet checksum of an IPv4 header (`len` bytes, its checksum field included). */
static inline uint32_t ip_checksum(const unsigned char *p, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += get16(p + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}

static inline size_t frame_build(unsigned char *f, const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t src_ip,
                                 uint16_t src_port, uint32_t dst_ip, uint16_t dst_port, uint16_t ip_id, size_t len) {
    memcpy(f, dst_mac, 6);
    memcpy(f + 6, src_mac, 6);
    put16(f + 12, ETH_P_IP);
    unsigned char *ip = f + ETH_LEN;
    ip[0] = 0x45; /* version 4, 20-byte header */
    ip[1] = 0;    /* DSCP/ECN as the kernel's default socket */
    put16(ip + 2, (uint32_t)(IP_OVERHEAD + len));
    put16(ip + 4, ip_id);
    put16(ip + 6, 0x4000); /* DF, no fragment offset */
    ip[8] = 64;            /* TTL */
    ip[9] = IPPROTO_UDP;
    put16(ip + 10, 0);
    put32(ip + 12, src_ip);
    put32(ip + 16, dst_ip);
    put16(ip + 10, ip_checksum(ip, IPV4_LEN));
    unsigned char *udp = ip + IPV4_LEN;
    put16(udp, src_port);
    put16(udp + 2, dst_port);
    put16(udp + 4, (uint32_t)(UDP_LEN + len));
    put16(udp + 6, 0); /* no checksum (IPv4 allows it; Ethernet's CRC covers the link) */
    return FRAME_OVERHEAD + len;
}

static inline int frame_parse(const unsigned char *f, size_t len, uint32_t dst_ip, uint16_t dst_port,
                              const unsigned char **payload, size_t *payload_len, uint32_t *src_ip,
                              uint16_t *src_port) {
    if (len < ETH_LEN + IPV4_LEN) {
        return FRAME_SHORT;
    }
    const unsigned char *ip = f + ETH_LEN;
    if (get16(f + 12) != ETH_P_IP || ip[0] >> 4 != 4) {
        return FRAME_NOT_IPV4;
    }
    const size_t ihl = (size_t)(ip[0] & 0xf) * 4, total = get16(ip + 2);
    if (ihl < IPV4_LEN) {
        return FRAME_BAD_IHL;
    }
    /* The IPv4 packet within the frame (which may carry Ethernet padding after it). */
    if (total < ihl + UDP_LEN || ETH_LEN + total > len) {
        return FRAME_SHORT;
    }
    if (ip_checksum(ip, ihl) != 0) {
        return FRAME_CHECKSUM;
    }
    if (ip[9] != IPPROTO_UDP) {
        return FRAME_NOT_UDP;
    }
    if (get16(ip + 6) & 0x3fff) {
        return FRAME_FRAGMENT;
    }
    const unsigned char *udp = ip + ihl;
    if (get32(ip + 16) != dst_ip || get16(udp + 2) != dst_port) {
        return FRAME_NOT_MINE;
    }
    const size_t ulen = get16(udp + 4);
    if (ulen < UDP_LEN || ulen > total - ihl) {
        return FRAME_UDP_LENGTH;
    }
    *payload = udp + UDP_LEN;
    *payload_len = ulen - UDP_LEN;
    *src_ip = get32(ip + 12);
    *src_port = (uint16_t)get16(udp);
    return FRAME_OK;
}

/* "a.b.c.d" -> host order; -1 with ValueError. */
static inline int parse_ip(const char *s, uint32_t *ip) {
    struct in_addr a;
    if (inet_pton(AF_INET, s, &a) != 1) {
        PyErr_Format(PyExc_ValueError, "not an IPv4 address: %s", s);
        return -1;
    }
    *ip = ntohl(a.s_addr);
    return 0;
}

static inline int parse_mac(Py_buffer *b, const char *name, uint8_t mac[6]) {
    if (b->len != 6) {
        PyErr_Format(PyExc_ValueError, "%s must be 6 bytes", name);
        return -1;
    }
    memcpy(mac, b->buf, 6);
    return 0;
}

static inline PyObject *address(uint32_t ip, uint16_t port) {
    char host[INET_ADDRSTRLEN];
    struct in_addr a = {htonl(ip)};
    inet_ntop(AF_INET, &a, host, sizeof host);
    return Py_BuildValue("(sI)", host, (unsigned)port);
}

#endif
