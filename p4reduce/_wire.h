// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_wire.h: the element loops that both C extensions need, shared as
 * source (each extension compiles its own copy): big-endian wire values,
 * fixed-point conversion into and out of datagrams (docs/protocol.md section 5).
 *
 * Included by p4reduce/_kernels.c (the per-block kernels), p4reduce/_worker.h
 * (the host agent's state machine) and p4reduce/_engine.h (the aggregator's slots). No Python API here: everything runs
 * without the GIL. p4reduce.hostagent.fixedpoint's reference_* functions are
 * the readable model these match bit for bit (tests/test_native.py).
 * Include <Python.h> first (Py_ssize_t, PY_BIG_ENDIAN).
 */
#ifndef P4REDUCE_WIRE_H
#define P4REDUCE_WIRE_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* baseline on x86-64: the byte swap below */
#endif

#include "_wire_gen.h" /* EXP_BIAS */

#if defined(__FAST_MATH__)
#error "p4reduce/_wire.h relies on IEEE float rounding: do not build it with -ffast-math"
#endif

/* The block loops below are compiled twice on x86-64 with GCC: for AVX2 and for
 * the SSE2 baseline, picked at load time (an ifunc). SSE2 has no 32-bit integer
 * max, so the scan's magnitude loop barely vectorises without AVX2; the AVX2
 * copy runs it at memory speed. "avx2" does not enable FMA, so float rounding,
 * and with it every result, stays bit-identical between the two copies. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define HOT_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define HOT_LOOP
#endif

/* Each extension uses only some of the loops below. */
#if defined(__GNUC__) || defined(__clang__)
#define WIRE_UNUSED_OK __attribute__((unused))
#else
#define WIRE_UNUSED_OK
#endif

/* ---------------------------------------------------------------------------
 * Element access. memcpy keeps unaligned views (a datagram's values start at
 * byte 36 of whatever the allocator gave) well defined; compilers turn it into
 * plain loads and stores. The arithmetic loops swap the bytes of big-endian wire
 * values on the fly (a byte shuffle in the AVX2 copies; baseline x86-64 has no
 * vector byte shuffle, so there it is scalar); a plain byte-swapping copy uses
 * SSE2 (swap_copy).
 */

static inline uint32_t bswap32(uint32_t u) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap32(u);
#else
    return (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
#endif
}

HOT_LOOP WIRE_UNUSED_OK static void swap_copy(const char *src, Py_ssize_t count, char *dst) {
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    /* Four values at a time: swap the bytes of each 16-bit half, then the halves. */
    for (; i + 4 <= count; i += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i));
        v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
        v = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1); /* 0xb1: (1, 0, 3, 2) */
        _mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), v);
    }
#endif
    for (; i < count; i++) {
        uint32_t u;
        memcpy(&u, src + 4 * i, 4);
        u = bswap32(u);
        memcpy(dst + 4 * i, &u, 4);
    }
}

static inline int32_t load_i32(const char *p, Py_ssize_t i) {
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}

static inline int64_t load_i64(const char *p, Py_ssize_t i) {
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

static inline float load_f32(const char *p, Py_ssize_t i) {
    float x;
    memcpy(&x, p + 4 * i, 4);
    return x;
}

static inline uint32_t f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* 2^e for -126 <= e <= 127 (normal float32) and -1022 <= e <= 1023 (normal double). */
static inline float pow2f(int e) {
    uint32_t u = (uint32_t)(e + 127) << 23;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static inline double pow2(int e) {
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &u, 8);
    return x;
}

/* Round half to even, as np.rint: below 2^23 (2^52) adding and subtracting that
 * power of two with the value's sign leaves the value rounded to an integer in
 * the default rounding mode; from there on every float is an integer (c = 0). */
static inline float rint_f32(float s) {
    const float c = fabsf(s) < 8388608.0f ? copysignf(8388608.0f, s) : 0.0f;
    return (s + c) - c; /* no select after the arithmetic: vectorizes without -fno-trapping-math */
}

static inline double rint_f64(double s) {
    const double c = fabs(s) < 4503599627370496.0 ? copysign(4503599627370496.0, s) : 0.0;
    return (s + c) - c;
}

/* float -> int32 as numpy's cast does on x86-64: INT32_MIN for NaN and anything
 * outside the int32 range (never reached with an agreed exponent: |q| <= 2^30). */
static inline int32_t to_i32_f32(float r) {
    const int inside = (r >= -2147483648.0f) & (r < 2147483648.0f); /* false for NaN */
    return (int32_t)(inside ? r : -2147483648.0f);                  /* no branch: vectorizes */
}

static inline int32_t to_i32_f64(double r) {
    const int inside = (r >= -2147483648.0) & (r < 2147483648.0);
    return (int32_t)(inside ? r : -2147483648.0);
}

/* The conversion loops take `swap` as a constant: each HOT_LOOP wrapper below
 * inlines its own copy, so the wire's byte swap (big-endian values on a
 * little-endian host) is part of the one vectorized pass over the values instead
 * of a second pass through a swap buffer. */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

static ALWAYS_INLINE void store_i32(char *p, Py_ssize_t i, int32_t q, const int swap) {
    uint32_t u = (uint32_t)q;
    if (swap) {
        u = bswap32(u);
    }
    memcpy(p + 4 * i, &u, 4);
}

static ALWAYS_INLINE int32_t load_i32_as(const char *p, Py_ssize_t i, const int swap) {
    uint32_t u;
    memcpy(&u, p + 4 * i, 4);
    return (int32_t)(swap ? bswap32(u) : u);
}

static ALWAYS_INLINE void quantize_loop(const char *src, Py_ssize_t count, int shift, char *dst, const int swap) {
    if (shift >= -126 && shift <= 127) {
        /* x * 2^shift is exact unless it is subnormal, and then it rounds to 0 like
         * the exact value: the same integers as the float64 path below. */
        const float f = pow2f(shift);
        for (Py_ssize_t i = 0; i < count; i++) {
            store_i32(dst, i, to_i32_f32(rint_f32(load_f32(src, i) * f)), swap);
        }
    } else {
        const double f = pow2(shift); /* exact in float64 for every float32 and shift */
        for (Py_ssize_t i = 0; i < count; i++) {
            store_i32(dst, i, to_i32_f64(rint_f64((double)load_f32(src, i) * f)), swap);
        }
    }
}

/* Native byte order out. */
HOT_LOOP WIRE_UNUSED_OK static void quantize_f32_native(const char *src, Py_ssize_t count, int shift, char *dst) {
    quantize_loop(src, count, shift, dst, 0);
}

/* The other byte order out. */
HOT_LOOP WIRE_UNUSED_OK static void quantize_f32_swapped(const char *src, Py_ssize_t count, int shift, char *dst) {
    quantize_loop(src, count, shift, dst, 1);
}

WIRE_UNUSED_OK static void quantize_f32(const char *src, Py_ssize_t count, int shift, char *dst, int big) {
    (big == PY_BIG_ENDIAN ? quantize_f32_native : quantize_f32_swapped)(src, count, shift, dst);
}

/* Returns whether some result is not finite. */
static ALWAYS_INLINE int dequantize_loop(const char *src, Py_ssize_t count, int shift, char *dst, const int swap) {
    uint32_t special = 0;
    if (-shift >= -126 && -shift <= 127) {
        /* Rounds once (int32 -> float32), then scales exactly: |q| >= 1, so the
         * product is normal, or it overflows on both paths alike. */
        const float f = pow2f(-shift);
        for (Py_ssize_t i = 0; i < count; i++) {
            float y = (float)load_i32_as(src, i, swap) * f;
            special |= (f32_bits(y) & 0x7f800000u) == 0x7f800000u;
            memcpy(dst + 4 * i, &y, 4);
        }
    } else {
        const double f = pow2(-shift); /* exact in float64; one rounding to float32 */
        for (Py_ssize_t i = 0; i < count; i++) {
            float y = (float)((double)load_i32_as(src, i, swap) * f);
            special |= (f32_bits(y) & 0x7f800000u) == 0x7f800000u;
            memcpy(dst + 4 * i, &y, 4);
        }
    }
    return special != 0;
}

/* Native byte order in. */
HOT_LOOP WIRE_UNUSED_OK static int dequantize_f32_native(const char *src, Py_ssize_t count, int shift, char *dst) {
    return dequantize_loop(src, count, shift, dst, 0);
}

/* The other byte order in. */
HOT_LOOP WIRE_UNUSED_OK static int dequantize_f32_swapped(const char *src, Py_ssize_t count, int shift, char *dst) {
    return dequantize_loop(src, count, shift, dst, 1);
}

WIRE_UNUSED_OK static int dequantize_f32(const char *src, int src_big, Py_ssize_t count, int shift, char *dst) {
    return src_big == PY_BIG_ENDIAN ? dequantize_f32_native(src, count, shift, dst)
                                    : dequantize_f32_swapped(src, count, shift, dst);
}

WIRE_UNUSED_OK static void copy_i32(const char *src, int src_big, Py_ssize_t count, char *dst, int dst_big) {
    if (src_big != dst_big) {
        swap_copy(src, count, dst);
    } else if (src != dst) {
        memmove(dst, src, 4 * (size_t)count);
    }
}

/* int64 sums of int32 values (the aggregator's slot registers): add `count` wire
 * values into `acc`, or overwrite it with them (`first`, a round's first packet). */
static ALWAYS_INLINE void accumulate_loop(const char *src, Py_ssize_t count, char *acc, int first, const int swap) {
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t v = load_i32_as(src, i, swap);
        /* unsigned: a sum past int64 (impossible from int32 packets) wraps instead of UB */
        int64_t a = first ? v : (int64_t)((uint64_t)load_i64(acc, i) + (uint64_t)v);
        memcpy(acc + 8 * i, &a, 8);
    }
}

HOT_LOOP WIRE_UNUSED_OK static void accumulate_native(const char *src, Py_ssize_t count, char *acc, int first) {
    accumulate_loop(src, count, acc, first, 0);
}

HOT_LOOP WIRE_UNUSED_OK static void accumulate_swapped(const char *src, Py_ssize_t count, char *acc, int first) {
    accumulate_loop(src, count, acc, first, 1);
}

WIRE_UNUSED_OK static void accumulate(const char *src, int src_big, Py_ssize_t count, char *acc, int first) {
    (src_big == PY_BIG_ENDIAN ? accumulate_native : accumulate_swapped)(src, count, acc, first);
}

/* Returns whether some sum is outside int32. */
static ALWAYS_INLINE int write_sums_loop(const char *acc, Py_ssize_t count, char *dst, const int swap) {
    uint64_t outside = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        uint64_t a = (uint64_t)load_i64(acc, i);
        outside |= (a + 0x80000000u) >> 32;            /* non-zero unless INT32_MIN <= a <= INT32_MAX */
        store_i32(dst, i, (int32_t)(uint32_t)a, swap); /* low 32 bits, as numpy's unsafe cast */
    }
    return outside != 0;
}

HOT_LOOP WIRE_UNUSED_OK static int write_sums_native(const char *acc, Py_ssize_t count, char *dst) {
    return write_sums_loop(acc, count, dst, 0);
}

HOT_LOOP WIRE_UNUSED_OK static int write_sums_swapped(const char *acc, Py_ssize_t count, char *dst) {
    return write_sums_loop(acc, count, dst, 1);
}

WIRE_UNUSED_OK static int write_sums(const char *acc, Py_ssize_t count, char *dst, int big) {
    return big == PY_BIG_ENDIAN ? write_sums_native(acc, count, dst) : write_sums_swapped(acc, count, dst);
}

/* ---------------------------------------------------------------------------
 * The scan of a tensor's blocks (docs/protocol.md sections 3 and 5): per block of
 * `block` elements (the last one of `count` may be short) whether it is non-zero and
 * its exponent byte. p4reduce._native.scan runs it over a whole tensor; the native
 * worker (p4reduce/_worker_scan.c) chunk by chunk while its first streams run.
 */

/* Exponent byte E of a non-zero finite magnitude with float32 bits m (sign cleared):
 * frexp gives m < 2^e; E = clamp(e + 127, 0, 255). */
static inline uint8_t exp_byte(uint32_t m) {
    uint32_t field = m >> 23;
    if (field) {
        return (uint8_t)(field + 1); /* value in [2^(field-127), 2^(field-126)): e = field - 126 */
    }
    return m >> 22 ? 1 : 0; /* subnormal: e = bit_length(m) - 149, clamped at E = 0 */
}

static inline int32_t max_magnitude_bits(const char *p, Py_ssize_t len) {
    int32_t m = 0; /* max of |x|'s bits orders magnitudes like the floats; NaN > Inf */
    for (Py_ssize_t i = 0; i < len; i++) {
        int32_t u = (int32_t)(f32_bits(load_f32(p, i)) & 0x7fffffffu);
        m = u > m ? u : m;
    }
    return m;
}

HOT_LOOP WIRE_UNUSED_OK static Py_ssize_t scan_f32(const char *src, Py_ssize_t count, Py_ssize_t block,
                                                   uint8_t *nonzero, uint8_t *exps) {
    Py_ssize_t nblocks = count ? (count - 1) / block + 1 : 0;
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        const char *p = src + 4 * b * block;
        Py_ssize_t len = b == nblocks - 1 ? count - b * block : block;
        int32_t m = max_magnitude_bits(p, len);
        if (m >= 0x7f800000) { /* NaN or Inf: the first one's flat index */
            for (Py_ssize_t i = 0; i < len; i++) {
                if ((f32_bits(load_f32(p, i)) & 0x7fffffffu) >= 0x7f800000u) {
                    return b * block + i;
                }
            }
        }
        nonzero[b] = m != 0;
        exps[b] = m ? exp_byte((uint32_t)m) : EXP_BIAS;
    }
    return -1;
}

HOT_LOOP WIRE_UNUSED_OK static void scan_i32(const char *src, Py_ssize_t count, Py_ssize_t block, uint8_t *nonzero,
                                             uint8_t *exps) {
    Py_ssize_t nblocks = count ? (count - 1) / block + 1 : 0;
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        const char *p = src + 4 * b * block;
        Py_ssize_t len = b == nblocks - 1 ? count - b * block : block;
        int32_t any = 0;
        for (Py_ssize_t i = 0; i < len; i++) {
            any |= load_i32(p, i);
        }
        nonzero[b] = any != 0;
        exps[b] = EXP_BIAS;
    }
}

#endif /* P4REDUCE_WIRE_H */
