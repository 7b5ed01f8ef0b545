// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce._kernels: the per-block loops of the host agent and the software
 * aggregator (docs/protocol.md sections 3 and 5), in plain C.
 *
 * Import it as `p4reduce._native` (p4reduce/_native.py), which says how to
 * rebuild it when it is missing. The numpy code in p4reduce.hostagent.fixedpoint
 * (reference_*) and p4reduce.hostagent.blocks (BlockPlan.build_reference) is
 * the readable model these loops must match bit for bit; tests/test_native.py
 * checks that.
 *
 * Buffers come through the buffer protocol (no numpy headers). What a buffer
 * holds is read from its format:
 *   float32   'f' in native byte order                    (tensors)
 *   int32     'i' (or a 4-byte 'l'), either byte order     (tensors, wire values)
 *   raw bytes any 1-byte format ('B', 'b', 'c', '?')       (datagrams: big-endian int32;
 *                                                           flags and exponent bytes)
 *   int64     'q' (or an 8-byte 'l') in native byte order  (the aggregator's sums)
 * Every buffer must be C-contiguous; outputs must be writable. An output must
 * not overlap an input unless it is the very same memory.
 *
 * Loops over at least GIL_THRESHOLD elements run with the GIL released. Shorter
 * ones (one 256-value block is ~100 ns of work) keep it: releasing it costs about
 * as much as the work, and taking it back behind a busy Python thread can wait a
 * whole switch interval (5 ms). numpy keeps it below 500 elements for the same reason.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_siphash.h" /* the MAC of authenticated jobs */
#include "_wire.h"    /* element access, HOT_LOOP, fixed-point conversion */

#define ABI_VERSION   4    /* p4reduce/_native.py refuses a build of another version */
#define GIL_THRESHOLD 4096 /* elements */

/* ---------------------------------------------------------------------------
 * Buffers
 */

enum kind { K_BYTES = 1, K_F32 = 2, K_I32 = 4, K_I64 = 8 };

typedef struct {
    Py_buffer view;
    int held;
    int kind;
    int big;          /* int32: values are big-endian */
    Py_ssize_t count; /* elements */
} arg_t;

static void release(arg_t *a) {
    if (a->held) {
        PyBuffer_Release(&a->view);
        a->held = 0;
    }
}

static const char *kind_names(int allowed) {
    switch (allowed) {
        case K_F32 | K_I32:
            return "a float32 (native byte order) or int32 buffer";
        case K_F32 | K_I32 | K_BYTES:
            return "a float32 (native byte order), int32 or raw-byte buffer";
        case K_I32 | K_BYTES:
            return "an int32 or raw-byte (big-endian int32) buffer";
        case K_I64:
            return "an int64 buffer (native byte order)";
        case K_BYTES:
            return "a bool or uint8 buffer";
        default:
            return "another buffer";
    }
}

/* Takes `obj`'s buffer and classifies it by its format; 0 on success, -1 with an
 * exception set. K_BYTES in `as_wire` mode counts 4-byte big-endian int32 values. */
static int get_arg(PyObject *obj, const char *name, int writable, int allowed, int as_wire, arg_t *a) {
    memset(a, 0, sizeof(*a));
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &a->view, flags) < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && !PyObject_CheckBuffer(obj)) {
            PyErr_Format(PyExc_TypeError, "%s must support the buffer protocol, not %.100s", name,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    a->held = 1;
    const char *fmt = a->view.format ? a->view.format : "B";
    char order = '@';
    if (*fmt && strchr("@=<>!", *fmt)) {
        order = *fmt++;
    }
    const int order_big = order == '>' || order == '!' || ((order == '@' || order == '=') && PY_BIG_ENDIAN);
    const Py_ssize_t size = a->view.itemsize;
    const char code = fmt[0];
    int kind = 0;
    if (code && fmt[1] == '\0') {
        if (size == 1 && strchr("Bbc?", code)) {
            kind = K_BYTES;
        } else if (size == 4 && code == 'f') {
            kind = order_big == PY_BIG_ENDIAN ? K_F32 : 0;
        } else if (size == 4 && (code == 'i' || code == 'l')) {
            kind = K_I32;
        } else if (size == 8 && (code == 'q' || code == 'l')) {
            kind = order_big == PY_BIG_ENDIAN ? K_I64 : 0;
        }
    }
    if (!(kind & allowed)) {
        PyErr_Format(PyExc_TypeError, "%s must be %s, not buffer format '%s' (item size %zd)", name,
                     kind_names(allowed), a->view.format ? a->view.format : "B", size);
        release(a);
        return -1;
    }
    a->kind = kind;
    if (kind == K_BYTES && as_wire) {
        if (a->view.len % 4) {
            PyErr_Format(PyExc_ValueError, "%s has %zd bytes, not a whole number of int32 values", name, a->view.len);
            release(a);
            return -1;
        }
        a->kind = K_I32;
        a->big = 1;
        a->count = a->view.len / 4;
    } else {
        a->big = kind == K_I32 ? order_big : 0;
        a->count = a->view.len / size;
    }
    return 0;
}

static int get_exp_workers(PyObject *exp_obj, PyObject *n_obj, int *exp, int *k) {
    long e = PyLong_AsLong(exp_obj);
    if (e == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (e < 0 || e > 255) {
        PyErr_Format(PyExc_ValueError, "exp must be a biased exponent byte 0..255, not %ld", e);
        return -1;
    }
    long long n = PyLong_AsLongLong(n_obj);
    if (n == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (n < 1) {
        PyErr_Format(PyExc_ValueError, "num_workers must be at least 1, not %lld", n);
        return -1;
    }
    int bits = 0; /* ceil(log2 n) = bit length of n - 1 */
    for (unsigned long long m = (unsigned long long)(n - 1); m; m >>= 1) {
        bits++;
    }
    *exp = (int)e;
    *k = bits;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Python functions
 */

#define RUN(count, stmt)                                                                                               \
    do {                                                                                                               \
        if ((count) >= GIL_THRESHOLD) {                                                                                \
            Py_BEGIN_ALLOW_THREADS stmt;                                                                               \
            Py_END_ALLOW_THREADS                                                                                       \
        } else {                                                                                                       \
            stmt;                                                                                                      \
        }                                                                                                              \
    } while (0)

static int check_nargs(const char *fname, Py_ssize_t nargs, Py_ssize_t want) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd positional arguments (%zd given)", fname, want, nargs);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(scan_doc, "scan($module, values, block_size, nonzero, exps, /)\n--\n\n"
                       "Per block of `block_size` elements of the flat float32 or int32 buffer `values`\n"
                       "(the last block may be short: read as zero-padded), write into the writable\n"
                       "one-byte buffers `nonzero` (1 if any element != 0, else 0; -0.0 is zero) and\n"
                       "`exps` (float32: the biased exponent byte clamp(frexp(max|x|)[1] + 127, 0, 255),\n"
                       "127 for a zero block; int32: 127), each exactly ceil(len(values) / block_size)\n"
                       "long. Returns -1, or for float32 input holding NaN or Inf the flat index of the\n"
                       "first one (the outputs are then unspecified).");

static PyObject *py_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("scan", nargs, 4) < 0) {
        return NULL;
    }
    Py_ssize_t block = PyLong_AsSsize_t(args[1]);
    if (block == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (block < 1) {
        PyErr_Format(PyExc_ValueError, "block_size must be at least 1, not %zd", block);
        return NULL;
    }
    arg_t src, nz, ex;
    PyObject *result = NULL;
    nz.held = ex.held = 0;
    if (get_arg(args[0], "values", 0, K_F32 | K_I32, 0, &src) < 0) {
        return NULL;
    }
    if (get_arg(args[2], "nonzero", 1, K_BYTES, 0, &nz) < 0 || get_arg(args[3], "exps", 1, K_BYTES, 0, &ex) < 0) {
        goto done;
    }
    Py_ssize_t nblocks = src.count ? (src.count - 1) / block + 1 : 0;
    if (nz.count != nblocks || ex.count != nblocks) {
        PyErr_Format(PyExc_ValueError, "%zd values make %zd blocks of %zd; nonzero has %zd bytes, exps %zd", src.count,
                     nblocks, block, nz.count, ex.count);
        goto done;
    }
    Py_ssize_t bad = -1;
    const char *p = src.view.buf;
    uint8_t *n = nz.view.buf, *e = ex.view.buf;
    if (src.kind == K_F32) {
        RUN(src.count, bad = scan_f32(p, src.count, block, n, e));
    } else {
        RUN(src.count, scan_i32(p, src.count, block, n, e));
    }
    result = PyLong_FromSsize_t(bad);
done:
    release(&src);
    release(&nz);
    release(&ex);
    return result;
}

PyDoc_STRVAR(quantize_doc, "quantize($module, values, exp, num_workers, out, /)\n--\n\n"
                           "float32 `values` -> int32 fixed point at the agreed biased exponent `exp` for\n"
                           "`num_workers` workers: round_half_even(x * 2^s), s = 30 - ceil(log2 n) - (exp - 127),\n"
                           "bit-identical to fixedpoint.reference_quantize. int32 `values` are copied as\n"
                           "they are. `out` is writable: raw bytes (a datagram's values: big-endian) or an\n"
                           "int32 array (its own byte order), with at least as many values as `values`;\n"
                           "the values past them are set to 0 (a short last block). Returns None.");

static PyObject *py_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("quantize", nargs, 4) < 0) {
        return NULL;
    }
    int exp, k;
    if (get_exp_workers(args[1], args[2], &exp, &k) < 0) {
        return NULL;
    }
    arg_t src, dst;
    PyObject *result = NULL;
    if (get_arg(args[0], "values", 0, K_F32 | K_I32, 0, &src) < 0) {
        return NULL;
    }
    if (get_arg(args[3], "out", 1, K_I32 | K_BYTES, 1, &dst) < 0) {
        goto done;
    }
    if (dst.count < src.count) {
        PyErr_Format(PyExc_ValueError, "out has room for %zd values, values has %zd", dst.count, src.count);
        goto done;
    }
    const char *p = src.view.buf;
    char *q = dst.view.buf;
    const int shift = 30 - k - (exp - EXP_BIAS);
    const Py_ssize_t n = src.count, pad = dst.count - src.count;
    const int big = dst.big, src_big = src.big;
    if (src.kind == K_F32) {
        RUN(n, quantize_f32(p, n, shift, q, big));
    } else {
        RUN(n, copy_i32(p, src_big, n, q, big));
    }
    memset(q + 4 * n, 0, 4 * (size_t)pad);
    result = Py_NewRef(Py_None);
done:
    release(&src);
    release(&dst);
    return result;
}

PyDoc_STRVAR(dequantize_doc, "dequantize($module, values, exp, num_workers, out, /)\n--\n\n"
                             "Aggregated int32 fixed point -> float32: sum_q * 2^-s rounded once to float32,\n"
                             "s as in quantize, bit-identical to fixedpoint.reference_dequantize_into.\n"
                             "`values`: raw bytes (a received datagram's values: big-endian) or an int32 array\n"
                             "(its own byte order). `out`: a writable float32 array (or int32: the values are\n"
                             "copied as they are) of at most as many values; the first len(out) values are\n"
                             "converted. Returns True when some float32 result is Inf (the sum overflowed).");

static PyObject *py_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("dequantize", nargs, 4) < 0) {
        return NULL;
    }
    int exp, k;
    if (get_exp_workers(args[1], args[2], &exp, &k) < 0) {
        return NULL;
    }
    arg_t src, dst;
    PyObject *result = NULL;
    if (get_arg(args[0], "values", 0, K_I32 | K_BYTES, 1, &src) < 0) {
        return NULL;
    }
    if (get_arg(args[3], "out", 1, K_F32 | K_I32, 0, &dst) < 0) {
        goto done;
    }
    if (dst.count > src.count) {
        PyErr_Format(PyExc_ValueError, "out has %zd values, values only %zd", dst.count, src.count);
        goto done;
    }
    const char *p = src.view.buf;
    char *q = dst.view.buf;
    const int shift = 30 - k - (exp - EXP_BIAS);
    const Py_ssize_t n = dst.count;
    const int src_big = src.big, dst_big = dst.big;
    int special = 0;
    if (dst.kind == K_F32) {
        RUN(n, special = dequantize_f32(p, src_big, n, shift, q));
    } else {
        RUN(n, copy_i32(p, src_big, n, q, dst_big));
    }
    result = PyBool_FromLong(special);
done:
    release(&src);
    release(&dst);
    return result;
}

PyDoc_STRVAR(accumulate_doc, "accumulate($module, values, acc, first, /)\n--\n\n"
                             "The software aggregator's per-packet add: int32 `values` (raw bytes: big-endian,\n"
                             "or an int32 array) into the writable int64 array `acc` of as many values;\n"
                             "`first` true overwrites `acc` instead (a round's first packet). Returns None.");

static PyObject *py_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("accumulate", nargs, 3) < 0) {
        return NULL;
    }
    int first = PyObject_IsTrue(args[2]);
    if (first < 0) {
        return NULL;
    }
    arg_t src, acc;
    PyObject *result = NULL;
    if (get_arg(args[0], "values", 0, K_I32 | K_BYTES, 1, &src) < 0) {
        return NULL;
    }
    if (get_arg(args[1], "acc", 1, K_I64, 0, &acc) < 0) {
        goto done;
    }
    if (acc.count != src.count) {
        PyErr_Format(PyExc_ValueError, "acc has %zd values, values %zd", acc.count, src.count);
        goto done;
    }
    const char *p = src.view.buf;
    char *a = acc.view.buf;
    const Py_ssize_t n = src.count;
    const int src_big = src.big;
    RUN(n, accumulate(p, src_big, n, a, first));
    result = Py_NewRef(Py_None);
done:
    release(&src);
    release(&acc);
    return result;
}

PyDoc_STRVAR(write_sums_doc, "write_sums($module, acc, out, /)\n--\n\n"
                             "The int64 sums `acc` as int32 into the writable `out` (raw bytes: big-endian,\n"
                             "or an int32 array) of as many values, each wrapped to its low 32 bits like the\n"
                             "switch's registers. Returns True when some sum is outside the int32 range\n"
                             "(the RESULT's OVERFLOW flag).");

static PyObject *py_write_sums(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("write_sums", nargs, 2) < 0) {
        return NULL;
    }
    arg_t acc, dst;
    PyObject *result = NULL;
    if (get_arg(args[0], "acc", 0, K_I64, 0, &acc) < 0) {
        return NULL;
    }
    if (get_arg(args[1], "out", 1, K_I32 | K_BYTES, 1, &dst) < 0) {
        goto done;
    }
    if (acc.count != dst.count) {
        PyErr_Format(PyExc_ValueError, "out has %zd values, acc %zd", dst.count, acc.count);
        goto done;
    }
    const char *a = acc.view.buf;
    char *q = dst.view.buf;
    const Py_ssize_t n = acc.count;
    int outside = 0;
    const int big = dst.big;
    RUN(n, outside = write_sums(a, n, q, big));
    result = PyBool_FromLong(outside);
done:
    release(&acc);
    release(&dst);
    return result;
}

/* ---------------------------------------------------------------------------
 * Round latencies (the native worker hands them over a batch at a time): the
 * recurrences of RtoEstimator.sample and StreamWindow.on_round, hostagent/rto.py
 * and hostagent/window.py, in C; those are the readable models these match.
 */

/* A float64 buffer (format 'd'), or raw bytes read as native float64. */
static int get_latencies(PyObject *obj, Py_buffer *view, const double **values, Py_ssize_t *count) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    int doubles = view->itemsize == 8 && (strcmp(f, "d") == 0 || strcmp(f, "=d") == 0 || strcmp(f, "@d") == 0);
    int raw = view->itemsize == 1 && (strcmp(f, "B") == 0 || strcmp(f, "b") == 0 || strcmp(f, "c") == 0);
    if (!(doubles || (raw && view->len % 8 == 0))) {
        PyErr_SetString(PyExc_TypeError, "latencies must be a float64 buffer (or raw bytes of float64)");
        PyBuffer_Release(view);
        return -1;
    }
    *values = view->buf;
    *count = view->len / 8;
    return 0;
}

PyDoc_STRVAR(rto_feed_doc, "rto_feed($module, srtt, rttvar, latencies, /)\n--\n\n"
                           "RtoEstimator.sample for each of `latencies` (seconds, a float64 buffer) in turn,\n"
                           "from the state (`srtt`: None before the first sample, `rttvar`); returns the\n"
                           "new (srtt, rttvar), srtt None if there were no latencies and none before.");

static PyObject *py_rto_feed(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("rto_feed", nargs, 3) < 0) {
        return NULL;
    }
    int have = args[0] != Py_None;
    double srtt = have ? PyFloat_AsDouble(args[0]) : 0.0, rttvar = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer view;
    const double *x;
    Py_ssize_t n;
    if (get_latencies(args[2], &view, &x, &n) < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!have) {
            srtt = x[i];
            rttvar = x[i] / 2;
            have = 1;
        } else {
            rttvar = 0.75 * rttvar + 0.25 * fabs(srtt - x[i]);
            srtt = 0.875 * srtt + 0.125 * x[i];
        }
    }
    PyBuffer_Release(&view);
    if (!have) {
        return Py_BuildValue("(Od)", Py_None, rttvar);
    }
    return Py_BuildValue("(dd)", srtt, rttvar);
}

PyDoc_STRVAR(window_feed_doc, "window_feed($module, smoothed, base, cwnd, limit, grows, queue_factor, epoch_low,\n"
                              "            epoch_rounds, base_epoch, latencies, /)\n--\n\n"
                              "StreamWindow.on_round for each of `latencies` (a float64 buffer) in turn, from the\n"
                              "window's state (`base` inf before the first round; `grows`: not lossless; `epoch_low`\n"
                              "and `epoch_rounds`: the base latency's current epoch of `base_epoch` rounds);\n"
                              "returns the new (smoothed, base, cwnd, epoch_low, epoch_rounds).");

static PyObject *py_window_feed(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("window_feed", nargs, 10) < 0) {
        return NULL;
    }
    double smoothed = PyFloat_AsDouble(args[0]), base = PyFloat_AsDouble(args[1]);
    double cwnd = PyFloat_AsDouble(args[2]), limit = PyFloat_AsDouble(args[3]);
    int grows = PyObject_IsTrue(args[4]);
    double factor = PyFloat_AsDouble(args[5]), epoch_low = PyFloat_AsDouble(args[6]);
    long long epoch_rounds = PyLong_AsLongLong(args[7]), base_epoch = PyLong_AsLongLong(args[8]);
    if (PyErr_Occurred() || grows < 0) {
        return NULL;
    }
    if (base_epoch < 1 || epoch_rounds < 0) {
        PyErr_SetString(PyExc_ValueError, "window_feed: need base_epoch >= 1 and epoch_rounds >= 0");
        return NULL;
    }
    Py_buffer view;
    const double *x;
    Py_ssize_t n;
    if (get_latencies(args[9], &view, &x, &n) < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        smoothed = isinf(base) ? x[i] : 0.875 * smoothed + 0.125 * x[i];
        base = smoothed < base ? smoothed : base;
        epoch_low = smoothed < epoch_low ? smoothed : epoch_low;
        if (++epoch_rounds >= base_epoch) { /* the epoch before this one is forgotten */
            base = epoch_low;
            epoch_low = INFINITY;
            epoch_rounds = 0;
        }
        if (grows && x[i] <= factor * base) {
            cwnd = cwnd + 1.0 / cwnd < limit ? cwnd + 1.0 / cwnd : limit;
        }
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(ddddL)", smoothed, base, cwnd, epoch_low, epoch_rounds);
}

PyDoc_STRVAR(siphash_doc, "siphash($module, key, data, /)\n--\n\n"
                          "SipHash-2-4 of `data` (a bytes-like object) under the 16-byte `key`, as an unsigned\n"
                          "64-bit int: the MAC of authenticated packets (p4reduce/_siphash.h, protocol.auth).");

static PyObject *py_siphash(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs("siphash", nargs, 2) < 0) {
        return NULL;
    }
    Py_buffer key, data;
    if (PyObject_GetBuffer(args[0], &key, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (key.len != 16) {
        PyBuffer_Release(&key);
        PyErr_SetString(PyExc_ValueError, "siphash: the key is 16 bytes");
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&key);
        return NULL;
    }
    uint64_t mac = siphash24(sip_key(key.buf), data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    PyBuffer_Release(&key);
    return PyLong_FromUnsignedLongLong(mac);
}

static PyMethodDef methods[] = {
    {"siphash", (PyCFunction)(void (*)(void))py_siphash, METH_FASTCALL, siphash_doc},
    {"scan", (PyCFunction)(void (*)(void))py_scan, METH_FASTCALL, scan_doc},
    {"quantize", (PyCFunction)(void (*)(void))py_quantize, METH_FASTCALL, quantize_doc},
    {"dequantize", (PyCFunction)(void (*)(void))py_dequantize, METH_FASTCALL, dequantize_doc},
    {"accumulate", (PyCFunction)(void (*)(void))py_accumulate, METH_FASTCALL, accumulate_doc},
    {"write_sums", (PyCFunction)(void (*)(void))py_write_sums, METH_FASTCALL, write_sums_doc},
    {"rto_feed", (PyCFunction)(void (*)(void))py_rto_feed, METH_FASTCALL, rto_feed_doc},
    {"window_feed", (PyCFunction)(void (*)(void))py_window_feed, METH_FASTCALL, window_feed_doc},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *m) {
    if (PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "GIL_THRESHOLD", GIL_THRESHOLD) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "p4reduce._kernels",
    .m_doc = "Native per-block kernels of p4reduce; import p4reduce._native instead.",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    return PyModuleDef_Init(&module);
}
