// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_be.h: big-endian (network order) loads and stores of 16- and 32-bit fields,
 * one copy for every C file that reads or writes headers: the frames of the raw transports
 * (_frame.h), the host agent (_worker.h) and the aggregator (_engine.h).
 */
#ifndef P4REDUCE_BE_H
#define P4REDUCE_BE_H

#include <stdint.h>

static inline uint32_t get16(const unsigned char *p) {
    return (uint32_t)p[0] << 8 | p[1];
}
static inline uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void put16(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}
static inline void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

#endif
