// SPDX-License-Identifier: Apache-2.0
/*
 * SipHash-2-4 with a 64-bit output (Aumasson and Bernstein), the MAC of authenticated
 * jobs (docs/protocol.md section 6.3), shared by the three extensions: p4reduce._kernels
 * exposes it to Python (p4reduce.protocol.auth), p4reduce._worker and p4reduce._engine
 * seal and verify packets with it on their data paths.
 *
 * The key is 16 bytes read as two little-endian 64-bit words, the message is read in
 * little-endian 64-bit words, as in the reference implementation; the MAC goes on the
 * wire big-endian (mac_put).
 */
#ifndef P4REDUCE_SIPHASH_H
#define P4REDUCE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_wire_gen.h" /* MAC_LEN, VERSION_AUTH, the header's layout */

typedef struct {
    uint64_t k0, k1;
} sipkey_t;

static inline uint64_t sip_le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline sipkey_t sip_key(const uint8_t key[16]) {
    sipkey_t k = {sip_le64(key), sip_le64(key + 8)};
    return k;
}

#define SIP_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND                                                                                                      \
    do {                                                                                                               \
        v0 += v1;                                                                                                      \
        v1 = SIP_ROTL(v1, 13);                                                                                         \
        v1 ^= v0;                                                                                                      \
        v0 = SIP_ROTL(v0, 32);                                                                                         \
        v2 += v3;                                                                                                      \
        v3 = SIP_ROTL(v3, 16);                                                                                         \
        v3 ^= v2;                                                                                                      \
        v0 += v3;                                                                                                      \
        v3 = SIP_ROTL(v3, 21);                                                                                         \
        v3 ^= v0;                                                                                                      \
        v2 += v1;                                                                                                      \
        v1 = SIP_ROTL(v1, 17);                                                                                         \
        v1 ^= v2;                                                                                                      \
        v2 = SIP_ROTL(v2, 32);                                                                                         \
    } while (0)

static inline uint64_t siphash24(sipkey_t k, const uint8_t *in, size_t len) {
    uint64_t v0 = 0x736f6d6570736575ULL ^ k.k0, v1 = 0x646f72616e646f6dULL ^ k.k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k.k0, v3 = 0x7465646279746573ULL ^ k.k1;
    const uint8_t *end = in + (len & ~(size_t)7);
    for (; in != end; in += 8) {
        uint64_t m = sip_le64(in);
        v3 ^= m;
        SIP_ROUND;
        SIP_ROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    switch (len & 7) {
        case 7:
            b |= (uint64_t)in[6] << 48; /* fall through */
        case 6:
            b |= (uint64_t)in[5] << 40; /* fall through */
        case 5:
            b |= (uint64_t)in[4] << 32; /* fall through */
        case 4:
            b |= (uint64_t)in[3] << 24; /* fall through */
        case 3:
            b |= (uint64_t)in[2] << 16; /* fall through */
        case 2:
            b |= (uint64_t)in[1] << 8; /* fall through */
        case 1:
            b |= (uint64_t)in[0];
            break;
        case 0:
            break;
    }
    v3 ^= b;
    SIP_ROUND;
    SIP_ROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIP_ROUND;
    SIP_ROUND;
    SIP_ROUND;
    SIP_ROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Seal `len` bytes of packet at p (header and values): the version byte's AUTH flag set
 * and the MAC written at p + len (room for MAC_LEN more bytes). */
static inline void mac_seal(sipkey_t k, uint8_t *p, size_t len) {
    p[HDR_OFF_VERSION] |= VERSION_AUTH;
    uint64_t mac = siphash24(k, p, len);
    for (int i = 0; i < MAC_LEN; i++) {
        p[len + i] = (uint8_t)(mac >> (56 - 8 * i));
    }
}

/* Whether the packet at p (`len` bytes, the MAC included) carries a valid MAC. */
static inline int mac_ok(sipkey_t k, const uint8_t *p, size_t len) {
    if (len < MAC_LEN || !(p[HDR_OFF_VERSION] & VERSION_AUTH)) {
        return 0;
    }
    uint64_t mac = siphash24(k, p, len - MAC_LEN), got = 0;
    for (int i = 0; i < MAC_LEN; i++) {
        got = got << 8 | p[len - MAC_LEN + i];
    }
    return mac == got;
}

/* Bytes of the packet that starts at p (a header is there): header, values, MAC if sealed. */
static inline size_t packet_len(const uint8_t *p) {
    return HEADER_LEN + 4 * (size_t)get16(p + HDR_OFF_COUNT) + (p[HDR_OFF_VERSION] & VERSION_AUTH ? MAC_LEN : 0);
}

#endif
