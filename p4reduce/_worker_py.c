// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_worker_py.c (in p4reduce._worker): the Python side of the extension, the
 * type Run (its methods: start, feed, poll, flush, take_output, expire and the state and
 * counters tests read; its construction from a RunSpec: the agent's buffers, sockets and rings),
 * the exception Failed and the module (ABI_VERSION). What a method does with packets is
 * in p4reduce/_worker.c (the state machine), p4reduce/_worker_out.c (sending) and
 * p4reduce/_worker_recv.c (receiving); what the files share is p4reduce/_worker.h.
 */
#include "_worker.h"

#define ABI_VERSION 10 /* p4reduce/_native_worker.py refuses a build of another version */

static PyObject *Failed; /* p4reduce._worker.Failed(kind, ...) */

/* ---------------------------------------------------------------------------
 * Python methods
 */

static int enter(RunObject *r) {
    if (r->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Run is in use by another thread");
        return -1;
    }
    r->busy = 1;
    r->err = ERR_NONE;
    r->finished = 0;
    r->nsamples = 0;
    return 0;
}

/* Leaves a call: the exception for an error, else None (the caller builds the result). */
static int leave(RunObject *r) {
    r->busy = 0;
    switch (r->err) {
        case ERR_NONE:
            return 0;
        case ERR_JOB:
            PyErr_SetObject(Failed, Py_BuildValue("(sLLL)", "job", r->err_code, r->err_detail, r->err_epoch));
            return -1;
        case ERR_PROTOCOL:
            PyErr_SetObject(Failed, Py_BuildValue("(ss)", "protocol", r->err_msg));
            return -1;
        case ERR_TIMEOUT:
            PyErr_SetObject(Failed, Py_BuildValue("(sLd)", "timeout", r->err_code, (double)r->err_detail / 1e9));
            return -1;
        case ERR_VALUE:
            PyErr_SetString(PyExc_ValueError, r->err_msg);
            return -1;
        case ERR_NONFINITE:
            PyErr_SetObject(
                Failed, Py_BuildValue("(sLO)", "nonfinite", (long long)r->nonfinite, r->poisoned ? Py_True : Py_False));
            return -1;
        case ERR_OS:
            errno = (int)r->err_code;
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        default:
            PyErr_NoMemory();
            return -1;
    }
}

static PyObject *call_result(RunObject *r) {
    if (leave(r) < 0) {
        return NULL;
    }
    /* native float64, for RtoEstimator.sample_all and StreamWindow.on_rounds (in C too) */
    PyObject *samples = PyBytes_FromStringAndSize((const char *)r->samples, (Py_ssize_t)(r->nsamples * sizeof(double)));
    if (!samples) {
        return NULL;
    }
    return Py_BuildValue("(IN)", r->finished, samples);
}

PyDoc_STRVAR(start_doc, "start(count, now, rto, /)\n--\n\n"
                        "Start up to `count` more streams, in stream order: queue their opening DATA\n"
                        "(each its own first non-zero block of the stream, or header-only) and set their timers "
                        "(`now`: time.monotonic(), `rto`: the timeout). Returns how\n"
                        "many started. Nothing is sent before flush().");

static PyObject *Run_start(RunObject *r, PyObject *args) {
    Py_ssize_t count;
    double now, rto;
    if (!PyArg_ParseTuple(args, "ndd:start", &count, &now, &rto) || enter(r) < 0) {
        return NULL;
    }
    uint32_t started = 0;
    while (count-- > 0 && r->next_start < r->nstreams) {
        stream_t *s = &r->streams[r->next_start++];
        s->state = S_ACTIVE;
        open_stream(r, s); /* its first round: the opening round, about its own first block */
        if (r->err != ERR_NONE) {
            break;
        }
        s->poisoned = (uint8_t)r->poisoned;
        s->pending = s->block == NONE_BLOCK ? P_HEADER : P_VALUES;
        r->active++;
        started++;
        set_timer(s, now, rto);
        if (wk_emit(r, s, s->pending) < 0) {
            break;
        }
    }
    if (leave(r) < 0) {
        return NULL;
    }
    return PyLong_FromUnsignedLong(started);
}

PyDoc_STRVAR(feed_doc, "feed(receiver, datagrams, now, rto, /)\n--\n\n"
                       "Handle `datagrams` (a list of (bytes-like, (host, port)[, GRO segment size]);\n"
                       "with a segment size, a buffer split as a UDP_GRO one is) as if the agent's\n"
                       "receiver number `receiver` had received them at `now`. Returns (streams\n"
                       "finished, latencies of rounds that sent a packet of ours and completed\n"
                       "without retransmission, as bytes of native float64); replies are\n"
                       "queued. Raises Failed(kind, ...) where the Python engine raises.");

static PyObject *Run_feed(RunObject *r, PyObject *args) {
    int receiver;
    PyObject *list;
    double now, rto;
    if (!PyArg_ParseTuple(args, "iO!dd:feed", &receiver, &PyList_Type, &list, &now, &rto)) {
        return NULL;
    }
    if (receiver < 0 || receiver >= r->nins) {
        PyErr_Format(PyExc_ValueError, "receiver %d outside 0..%d", receiver, r->nins - 1);
        return NULL;
    }
    if (enter(r) < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list) && r->err == ERR_NONE; i++) {
        const char *host;
        int port;
        Py_ssize_t seg = 0;
        Py_buffer view;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "y*(si)|n", &view, &host, &port, &seg)) {
            r->busy = 0;
            return NULL;
        }
        struct in_addr a;
        if (inet_pton(AF_INET, host, &a) != 1) {
            PyBuffer_Release(&view);
            r->busy = 0;
            PyErr_Format(PyExc_ValueError, "not an IPv4 address: %s", host);
            return NULL;
        }
        wk_process_buffer(r, &r->ins[receiver], view.buf, (size_t)view.len, seg > 0 ? (size_t)seg : 0, ntohl(a.s_addr),
                          (uint16_t)port, now, rto);
        PyBuffer_Release(&view);
    }
    return call_result(r);
}

static double next_deadline(const RunObject *r) {
    double d = INFINITY;
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].state == S_ACTIVE && r->streams[i].deadline < d) {
            d = r->streams[i].deadline;
        }
    }
    return d;
}

PyDoc_STRVAR(poll_doc, "poll(rto, max_wait, /)\n--\n\n"
                       "Wait for the agent's sockets until the earliest retransmission deadline (at\n"
                       "most `max_wait` seconds), take a batch of datagrams (recvmmsg) from each one\n"
                       "that is readable, handle them and send the replies (sendmmsg), with the GIL\n"
                       "released. New round timers run for `rto` seconds. Returns (streams finished,\n"
                       "latencies of rounds that sent a packet of ours and completed without\n"
                       "retransmission, as bytes of native float64).");

static PyObject *Run_poll(RunObject *r, PyObject *args) {
    double rto, max_wait;
    if (!PyArg_ParseTuple(args, "dd:poll", &rto, &max_wait)) {
        return NULL;
    }
    if (wk_ensure_recv(r) < 0 || enter(r) < 0) {
        return NULL;
    }
    double wait = r->active ? next_deadline(r) - monotonic() : 0.0;
    if (wait > max_wait) {
        wait = max_wait;
    }
    Py_BEGIN_ALLOW_THREADS wk_poll_nogil(r, wait, rto);
    Py_END_ALLOW_THREADS PyObject *result = call_result(r);
    if (result && PyErr_CheckSignals() < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

PyDoc_STRVAR(flush_doc, "flush()\n--\n\n"
                        "Hand the queued datagrams to the kernel (sendmmsg, GIL released); refused ones\n"
                        "are dropped (the timers cover them).");

static PyObject *Run_flush(RunObject *r, PyObject *unused) {
    (void)unused;
    if (enter(r) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS wk_flush_all(r);
    Py_END_ALLOW_THREADS if (leave(r) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(take_output_doc, "take_output()\n--\n\n"
                              "The queued datagrams as a list of (endpoint index, bytes), removed from the\n"
                              "queue (for endpoints built without a socket: tests).");

static PyObject *Run_take_output(RunObject *r, PyObject *unused) {
    (void)unused;
    if (r->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Run is in use by another thread");
        return NULL;
    }
    PyObject *list = PyList_New(0);
    if (!list) {
        return NULL;
    }
    for (int e = 0; e < r->nouts; e++) {
        out_t *o = &r->outs[e];
        if (o->ndgrams) {
            wk_note_sent(r); /* taken to be sent */
        }
        for (size_t i = 0; i < o->ndgrams; i++) {
            PyObject *item = Py_BuildValue("(iy#)", e, o->buf + o->dgrams[i].start, (Py_ssize_t)o->dgrams[i].len);
            if (!item || PyList_Append(list, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(item);
        }
        o->used = 0;
        o->ndgrams = 0;
    }
    return list;
}

PyDoc_STRVAR(expire_doc, "expire(now, max_timeout, failure_timeout, /)\n--\n\n"
                         "StreamRun.expire_timers: every stream in flight whose timer ran out resends what it\n"
                         "sent last (or a QUERY) and doubles its timeout up to `max_timeout`. Returns\n"
                         "the start times of the rounds presumed lost (for the window), in stream order.\n"
                         "A round waiting `failure_timeout` raises Failed('timeout', stream, waited) once no\n"
                         "round of any stream has started for as long.\n"
                         "Nothing is sent before flush().");

/* StreamRun.last_round_start: the latest round any started stream began (its timer). */
static double last_round_start(const RunObject *r) {
    double latest = -INFINITY;
    for (uint32_t i = 0; i < r->nstreams; i++) {
        const stream_t *s = &r->streams[i];
        if (s->state != S_WAITING && s->started > latest) {
            latest = s->started;
        }
    }
    return latest;
}

static PyObject *Run_expire(RunObject *r, PyObject *args) {
    double now, cap, failure;
    if (!PyArg_ParseTuple(args, "ddd:expire", &now, &cap, &failure) || enter(r) < 0) {
        return NULL;
    }
    PyObject *lost = PyList_New(0);
    if (!lost) {
        r->busy = 0;
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams && r->err == ERR_NONE; i++) {
        stream_t *s = &r->streams[i];
        if (s->state != S_ACTIVE || s->deadline > now) {
            continue;
        }
        /* not while other rounds start (StreamRun.expire_timers says why) */
        if (now - s->started >= failure && now - last_round_start(r) >= failure) {
            r->err = ERR_TIMEOUT;
            r->err_code = i;
            r->err_detail = (long long)((now - s->started) * 1e9);
            break;
        }
        PyObject *f = PyFloat_FromDouble(s->started);
        if (!f || PyList_Append(lost, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(lost);
            r->busy = 0;
            return NULL;
        }
        Py_DECREF(f);
        s->retries++;
        if (wk_emit(r, s, s->pending) < 0) {
            break;
        }
        s->expiries++;
        if (s->pending == P_QUERY) {
            r->queries++;
        } else {
            r->retransmissions++;
        }
        s->timeout = s->timeout * 2 < cap ? s->timeout * 2 : cap;
        s->deadline = now + s->timeout;
    }
    if (leave(r) < 0) {
        Py_DECREF(lost);
        return NULL;
    }
    return lost;
}

static PyObject *Run_next_deadline(RunObject *r, PyObject *unused) {
    (void)unused;
    return PyFloat_FromDouble(next_deadline(r));
}

static const char *state_names[] = {"waiting", "active", "done"};
static const char *pending_names[] = {"none", "data", "header", "query"};

PyDoc_STRVAR(stream_doc, "stream(index, /)\n--\n\n"
                         "Stream `index`'s state: (slot, round, block, exp, state, pending, retries,\n"
                         "missing_workers or None, overflow, timer started, timer deadline, opening); state\n"
                         "'waiting'/'active'/'done', pending what a timeout resends: 'none', 'data',\n"
                         "'header' or 'query'; opening: not past its opening round (block and exp are then\n"
                         "the worker's own first block of the stream and its exponent, from start() on).");

static PyObject *Run_stream(RunObject *r, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (i < 0 || i >= (Py_ssize_t)r->nstreams) {
        PyErr_Format(PyExc_IndexError, "stream %zd outside 0..%u", i, r->nstreams);
        return NULL;
    }
    const stream_t *s = &r->streams[i];
    PyObject *missing = s->missing < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(s->missing);
    if (!missing) {
        return NULL;
    }
    return Py_BuildValue("(IKIissINOddO)", s->slot, (unsigned long long)s->round, s->block, (int)s->exp,
                         state_names[s->state], pending_names[s->pending], s->retries, missing,
                         s->overflow ? Py_True : Py_False, s->started, s->deadline, s->opening ? Py_True : Py_False);
}

static PyObject *Run_rounds(RunObject *r, PyObject *unused) {
    (void)unused;
    PyObject *list = PyList_New(r->nstreams);
    if (!list) {
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(r->streams[i].round);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* {slot: timer expiries of this allreduce} of the streams that had any. */
static PyObject *per_slot_retries(const RunObject *r) {
    PyObject *per_slot = PyDict_New();
    if (!per_slot) {
        return NULL;
    }
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].expiries) {
            PyObject *k = PyLong_FromUnsignedLong(r->streams[i].slot);
            PyObject *v = PyLong_FromUnsignedLong(r->streams[i].expiries);
            if (!k || !v || PyDict_SetItem(per_slot, k, v) < 0) {
                Py_XDECREF(k);
                Py_XDECREF(v);
                Py_DECREF(per_slot);
                return NULL;
            }
            Py_DECREF(k);
            Py_DECREF(v);
        }
    }
    return per_slot;
}

static PyObject *Run_counters(RunObject *r, PyObject *unused) {
    (void)unused;
    const struct {
        const char *name;
        uint64_t value;
    } counts[] = {
        {"packets_received", r->packets_received},
        {"payload_bytes_received", r->payload_bytes_received},
        {"ignored_packets", r->ignored_packets},
        {"packets_sent", r->packets_sent},
        {"payload_bytes_sent", r->payload_bytes_sent},
        {"retransmissions", r->retransmissions},
        {"queries", r->queries},
        {"gso_sends", r->gso_sends},
        {"gso_segments", r->gso_segments},
        {"gso_fallbacks", r->gso_fallbacks},
        {"gro_buffers", r->gro_buffers},
        {"gro_segments", r->gro_segments},
        {"unauthenticated", r->unauthenticated},
        {"scanned_at_send", r->scanned_at_send},
    };
    PyObject *d = PyDict_New(), *per_slot = d ? per_slot_retries(r) : NULL;
    if (!per_slot || PyDict_SetItemString(d, "per_slot_retries", per_slot) < 0) {
        Py_XDECREF(per_slot);
        Py_XDECREF(d);
        return NULL;
    }
    Py_DECREF(per_slot);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(counts[i].value);
        if (!v || PyDict_SetItemString(d, counts[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *Run_get_active(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->active);
}
static PyObject *Run_get_waiting(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->nstreams - r->next_start);
}
static PyObject *Run_get_unfinished(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->unfinished);
}
static PyObject *Run_get_gso_errno(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromLong(r->gso_errno);
}
static PyObject *Run_get_scanned(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->scanned);
}
static PyObject *Run_get_nonfinite(RunObject *r, void *c) {
    (void)c;
    return PyLong_FromLongLong(r->nonfinite);
}
static PyObject *Run_get_float_overflow(RunObject *r, void *c) {
    (void)c;
    return PyBool_FromLong(r->float_overflow);
}
static PyObject *Run_get_overflow(RunObject *r, void *c) {
    (void)c;
    for (uint32_t i = 0; i < r->nstreams; i++) {
        if (r->streams[i].overflow) {
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

/* ---------------------------------------------------------------------------
 * Construction
 */

static void Run_dealloc(RunObject *r) {
    if (r->held & 1) {
        PyBuffer_Release(&r->tensor);
    }
    if (r->held & 2) {
        PyBuffer_Release(&r->out);
    }
    if (r->held & 4) {
        PyBuffer_Release(&r->nonzero);
    }
    if (r->held & 8) {
        PyBuffer_Release(&r->exps);
    }
    free(r->streams);
    for (int i = 0; i < r->nouts; i++) {
        if (r->outs[i].ring.obj) {
            r->outs[i].ring.ops->unuse(r->outs[i].ring.obj);
        }
        free(r->outs[i].buf);
        free(r->outs[i].dgrams);
        free(r->outs[i].msgs);
        free(r->outs[i].iov);
        free(r->outs[i].gmsgs);
        free(r->outs[i].ctl);
    }
    free(r->outs);
    for (int i = 0; i < r->nins; i++) {
        if (r->ins[i].ring.obj) {
            r->ins[i].ring.ops->unuse(r->ins[i].ring.obj);
        }
        free(r->ins[i].peers);
    }
    free(r->ins);
    free(r->rbuf);
    free(r->pfds);
    free(r->rmsgs);
    free(r->riov);
    free(r->rnames);
    free(r->rctl);
    free(r->samples);
    free(r->scratch);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

/* float32 or int32, native byte order, C-contiguous. */
static int get_values(PyObject *obj, const char *name, int writable, Py_buffer *v, int *is_float) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || (*f == (PY_BIG_ENDIAN ? '>' : '<'))) {
        f++;
    }
    int fl = v->itemsize == 4 && !strcmp(f, "f");
    int in = v->itemsize == 4 && (!strcmp(f, "i") || !strcmp(f, "l"));
    if (!fl && !in) {
        PyErr_Format(PyExc_TypeError, "%s must be float32 or int32 in native byte order, not format '%s'", name,
                     v->format ? v->format : "B");
        PyBuffer_Release(v);
        return -1;
    }
    *is_float = fl;
    return 0;
}

static int get_bytes(PyObject *obj, const char *name, int writable, Py_buffer *v) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    if (v->itemsize != 1) {
        PyErr_Format(PyExc_TypeError, "%s must be a bool or uint8 buffer", name);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static long long seq_int(PyObject *seq, Py_ssize_t i) {
    PyObject *o = PySequence_GetItem(seq, i);
    if (!o) {
        return -1;
    }
    long long v = PyLong_AsLongLong(o);
    Py_DECREF(o);
    return v;
}

/* The ring functions of `o`: PacketRing's, or those its type hands over as the capsule
 * `_ring_ops` (p4reduce._xdp's XskSocket); NULL without an error for anything else. */
static const ring_ops_t *ring_ops_of(PyObject *o) {
    if (PyObject_TypeCheck(o, &PacketRingType)) {
        return &pring_ops;
    }
    if (PyLong_Check(o)) {
        return NULL;
    }
    PyObject *capsule = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "_ring_ops");
    if (!capsule) {
        PyErr_Clear();
        return NULL;
    }
    const ring_ops_t *ops = PyCapsule_GetPointer(capsule, RING_OPS_CAPSULE);
    Py_DECREF(capsule);
    if (!ops) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s's ring functions are of another version (rebuild p4reduce)",
                     Py_TYPE(o)->tp_name);
    }
    return ops;
}

/* A socket's fd (an int; -1: none) or a raw transport's ring (PacketRing, XskSocket: its
 * fd; *ring then holds it). */
static int take_socket(RunObject *r, PyObject *o, ring_ref_t *ring, long long *fd) {
    const ring_ops_t *ops = ring_ops_of(o);
    if (ops) {
        if (!ops->usable(o)) {
            PyErr_Format(PyExc_ValueError, "the %s ring is closed", ops->transport);
            return -1;
        }
        ops->use(o);
        ring->obj = o;
        ring->ops = ops;
        *fd = ops->fd(o);
        const uint32_t spin = ops->spin_us(o);
        if (spin > r->spin_us) {
            r->spin_us = spin;
        }
        r->nrings++;
        return 0;
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    *fd = PyLong_AsLongLong(o);
    return *fd == -1 && PyErr_Occurred() ? -1 : 0;
}

/* RunSpec (p4reduce/_native_worker.py): what Run(spec) is made from, read attribute by
 * attribute, by name, in read_spec. A new field is a RunSpec field, a member here and its
 * line in read_spec. */
typedef struct {
    /* the buffers: tensor and out flat float32 or int32 (may be one array); nonzero, exps
     * per block (BlockPlan's flags and exponent bytes) */
    PyObject *tensor, *out, *nonzero, *exps;
    /* sequences: a round per stream; per endpoint a session, a pack limit, an fd or ring, a
     * group session (NULL: RunSpec's None, all 0); receivers; key (NULL: None) */
    PyObject *rounds, *sessions, *limits, *send_fds, *receivers, *group_sessions, *key;
    uint32_t job_id, worker_id, num_workers, block_size, num_slots, slot_base, epoch, fingerprint;
    uint32_t first_block, shard_blocks, spin_us;
    int dense, gso;
    Py_ssize_t scanned, scan_chunk;
    PyObject *refs[16]; /* the attributes read as objects, released by spec_release */
    int nrefs;
} run_spec_t;

static void spec_release(run_spec_t *s) {
    for (int i = 0; i < s->nrefs; i++) {
        Py_DECREF(s->refs[i]);
    }
    s->nrefs = 0;
}

/* RunSpec attribute `name` as an object (held until spec_release); `optional`: None reads NULL. */
static int spec_object(PyObject *spec, run_spec_t *s, const char *name, int optional, PyObject **to) {
    if (s->nrefs == (int)(sizeof s->refs / sizeof s->refs[0])) {
        PyErr_Format(PyExc_SystemError, "RunSpec.%s: run_spec_t holds no more objects", name);
        return -1;
    }
    PyObject *v = PyObject_GetAttrString(spec, name);
    if (!v) {
        return -1;
    }
    s->refs[s->nrefs++] = v;
    *to = optional && v == Py_None ? NULL : v;
    return 0;
}

/* RunSpec attribute `name`, an integer from `min` to `max`. */
static int spec_int(PyObject *spec, const char *name, long long min, long long max, long long *to) {
    PyObject *v = PyObject_GetAttrString(spec, name), *i = v ? PyNumber_Index(v) : NULL;
    Py_XDECREF(v);
    if (!i) {
        return -1;
    }
    int overflow;
    const long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || x < min || x > max) {
        PyErr_Format(PyExc_OverflowError, "RunSpec.%s outside %lld..%lld", name, min, max);
        return -1;
    }
    *to = x;
    return 0;
}

static int spec_u32(PyObject *spec, const char *name, uint32_t *to) {
    long long x;
    if (spec_int(spec, name, 0, UINT32_MAX, &x) < 0) {
        return -1;
    }
    *to = (uint32_t)x;
    return 0;
}

static int spec_ssize(PyObject *spec, const char *name, Py_ssize_t *to) {
    long long x;
    if (spec_int(spec, name, PY_SSIZE_T_MIN, PY_SSIZE_T_MAX, &x) < 0) {
        return -1;
    }
    *to = (Py_ssize_t)x;
    return 0;
}

static int spec_bool(PyObject *spec, const char *name, int *to) {
    PyObject *v = PyObject_GetAttrString(spec, name);
    if (!v) {
        return -1;
    }
    *to = PyObject_IsTrue(v);
    Py_DECREF(v);
    return *to < 0 ? -1 : 0;
}

/* The spec's fields, one line each: 0, or -1 with an exception (spec_release after either).
 * spec_object's 1: None reads NULL. */
static int read_spec(PyObject *o, run_spec_t *s) {
    memset(s, 0, sizeof *s);
    const int failed = spec_object(o, s, "tensor", 0, &s->tensor) || spec_object(o, s, "out", 0, &s->out) ||
                       spec_object(o, s, "nonzero", 0, &s->nonzero) || spec_object(o, s, "exps", 0, &s->exps) ||
                       spec_u32(o, "job_id", &s->job_id) || spec_u32(o, "worker_id", &s->worker_id) ||
                       spec_u32(o, "num_workers", &s->num_workers) || spec_u32(o, "block_size", &s->block_size) ||
                       spec_u32(o, "num_slots", &s->num_slots) || spec_u32(o, "slot_base", &s->slot_base) ||
                       spec_bool(o, "dense", &s->dense) || spec_u32(o, "epoch", &s->epoch) ||
                       spec_u32(o, "fingerprint", &s->fingerprint) || spec_object(o, s, "rounds", 0, &s->rounds) ||
                       spec_object(o, s, "sessions", 0, &s->sessions) || spec_object(o, s, "limits", 0, &s->limits) ||
                       spec_object(o, s, "send_fds", 0, &s->send_fds) ||
                       spec_object(o, s, "receivers", 0, &s->receivers) ||
                       spec_u32(o, "first_block", &s->first_block) || spec_u32(o, "shard_blocks", &s->shard_blocks) ||
                       spec_bool(o, "gso", &s->gso) || spec_object(o, s, "group_sessions", 1, &s->group_sessions) ||
                       spec_object(o, s, "key", 1, &s->key) || spec_u32(o, "spin_us", &s->spin_us) ||
                       spec_ssize(o, "scanned", &s->scanned) || spec_ssize(o, "scan_chunk", &s->scan_chunk);
    return failed ? -1 : 0;
}

static PyObject *run_from_spec(PyTypeObject *type, const run_spec_t *spec);

static PyObject *Run_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"spec", NULL};
    PyObject *o;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Run", kwlist, &o)) {
        return NULL;
    }
    run_spec_t spec;
    PyObject *r = read_spec(o, &spec) < 0 ? NULL : run_from_spec(type, &spec);
    spec_release(&spec);
    return r;
}

/* A Run as `spec` says (the spec's objects are held by the caller). */
static PyObject *run_from_spec(PyTypeObject *type, const run_spec_t *spec) {
    PyObject *const tensor = spec->tensor, *const out = spec->out, *const nonzero = spec->nonzero;
    PyObject *const exps = spec->exps, *const rounds = spec->rounds, *const sessions = spec->sessions;
    PyObject *const limits = spec->limits, *const send_fds = spec->send_fds, *const receivers = spec->receivers;
    PyObject *const group_sessions = spec->group_sessions, *const key = spec->key;
    const uint32_t job_id = spec->job_id, worker_id = spec->worker_id, num_workers = spec->num_workers;
    const uint32_t block_size = spec->block_size, num_slots = spec->num_slots, slot_base = spec->slot_base;
    const uint32_t first_block = spec->first_block, shard_blocks = spec->shard_blocks;
    const int dense = spec->dense, gso = spec->gso;
    Py_ssize_t scanned = spec->scanned, scan_chunk = spec->scan_chunk;
    if (block_size < 1 || num_slots < 1 || num_workers < 1 || (uint64_t)slot_base + num_slots > MAX_SLOTS ||
        job_id > MAX_JOB_ID || worker_id > ALL_WORKERS) {
        PyErr_SetString(PyExc_ValueError, "job geometry outside what the wire carries");
        return NULL;
    }
    RunObject *r = (RunObject *)type->tp_alloc(type, 0);
    if (!r) {
        return NULL;
    }
    int out_float;
    r->spin_us = spec->spin_us; /* UDP sockets' (a raw transport's ring may ask for more) */
    if (get_values(tensor, "tensor", 0, &r->tensor, &r->is_float) < 0) {
        goto error;
    }
    r->held |= 1;
    if (get_values(out, "out", 1, &r->out, &out_float) < 0) {
        goto error;
    }
    r->held |= 2;
    r->length = r->tensor.len / 4;
    r->out_count = r->out.len / 4;
    const Py_ssize_t nblocks = r->length ? (r->length - 1) / block_size + 1 : 0;
    if (scanned < 0 || scanned > nblocks) {
        scanned = nblocks; /* (default) BlockPlan.build scanned it all */
    }
    const int lazy = scanned < nblocks; /* the Run fills nonzero and exps as it scans */
    if (get_bytes(nonzero, "nonzero", lazy, &r->nonzero) < 0) {
        goto error;
    }
    r->held |= 4;
    if (get_bytes(exps, "exps", lazy, &r->exps) < 0) {
        goto error;
    }
    r->held |= 8;
    r->scanned = (uint32_t)scanned;
    r->nonfinite = -1;
    scan_chunk = (scan_chunk > 0 ? scan_chunk : SCAN_CHUNK) / block_size;
    r->scan_chunk = scan_chunk > 0 ? (uint32_t)(scan_chunk < 0x7fffffff ? scan_chunk : 0x7fffffff) : 1;
    if (out_float != r->is_float || (!shard_blocks && (r->out.len != r->tensor.len || first_block)) ||
        r->nonzero.len != nblocks || r->exps.len != nblocks || nblocks >= (long long)NONE_BLOCK) {
        PyErr_SetString(PyExc_ValueError, "out, nonzero and exps must match the tensor");
        goto error;
    }
    if (shard_blocks && (first_block % shard_blocks || first_block / shard_blocks != worker_id)) {
        PyErr_SetString(PyExc_ValueError, "a reduce-scatter's output starts at this worker's first block");
        goto error;
    }
    if (key) {
        Py_buffer kv;
        if (PyObject_GetBuffer(key, &kv, PyBUF_SIMPLE) < 0) {
            goto error;
        }
        if (kv.len != 16) {
            PyBuffer_Release(&kv);
            PyErr_SetString(PyExc_ValueError, "a job key is 16 bytes");
            goto error;
        }
        r->key = sip_key(kv.buf);
        r->keyed = 1;
        PyBuffer_Release(&kv);
    }
    r->first_block = first_block;
    r->shard_blocks = shard_blocks;
    r->nblocks = (uint32_t)nblocks;
    r->block_size = block_size;
    r->num_slots = num_slots;
    r->slot_base = slot_base;
    r->job_id = job_id;
    r->worker_id = worker_id;
    r->epoch = spec->epoch;
    r->fingerprint = spec->fingerprint;
    r->blocks_field = (uint32_t)nblocks;
    r->dense = dense;
    for (unsigned m = num_workers - 1; m; m >>= 1) {
        r->log2n++;
    }
    Py_ssize_t ns = PySequence_Size(rounds), ne = PySequence_Size(sessions);
    if (ns < 0 || ne < 0) {
        goto error;
    }
    if (ns > num_slots || ns > nblocks || ne < 1 || PySequence_Size(limits) != ne || PySequence_Size(send_fds) != ne ||
        (group_sessions && PySequence_Size(group_sessions) != ne)) {
        PyErr_SetString(PyExc_ValueError,
                        "rounds: one per stream; sessions, limits, send_fds, group_sessions: one per endpoint");
        goto error;
    }
    r->nstreams = r->unfinished = (uint32_t)ns;
    r->streams = calloc(ns ? ns : 1, sizeof *r->streams);
    r->nouts = (int)ne;
    r->outs = calloc(ne, sizeof *r->outs);
    if (!r->streams || !r->outs) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t e = 0; e < ne; e++) {
        out_t *o = &r->outs[e];
        long long session = seq_int(sessions, e), limit = seq_int(limits, e), fd;
        if (PyErr_Occurred()) {
            goto error;
        }
        PyObject *sock = PySequence_GetItem(send_fds, e);
        if (!sock) {
            goto error;
        }
        const int taken = take_socket(r, sock, &o->ring, &fd);
        Py_DECREF(sock);
        if (taken < 0) {
            goto error;
        }
        o->session = (uint32_t)session;
        o->group_session = group_sessions ? (uint32_t)seq_int(group_sessions, e) : 0;
        if (PyErr_Occurred()) {
            goto error;
        }
        o->limit = limit > 0 ? (uint32_t)limit : 0;
        o->fd = (int)fd;
        o->gso = gso;
        o->cap = FLUSH_BYTES + HEADER_LEN + 4 * (size_t)block_size;
        o->buf = malloc(o->cap);
        if (!o->buf) {
            PyErr_NoMemory();
            goto error;
        }
    }
    for (Py_ssize_t i = 0; i < ns; i++) {
        stream_t *s = &r->streams[i];
        PyObject *o = PySequence_GetItem(rounds, i);
        if (!o) {
            goto error;
        }
        s->round = PyLong_AsUnsignedLongLongMask(o);
        Py_DECREF(o);
        if (PyErr_Occurred()) {
            goto error;
        }
        s->slot = slot_base + (uint32_t)i;
        s->block = NONE_BLOCK; /* until start(): its opening round's, open_stream() */
        s->exp = EXP_BIAS;
        s->opening = 1;
        s->cursor = (uint32_t)i;
        s->missing = -1;
        s->endpoint = (int)(i % ne);
        s->state = S_WAITING;
    }
    Py_ssize_t ni = PySequence_Size(receivers);
    if (ni < 0) {
        goto error;
    }
    r->ins = calloc(ni ? ni : 1, sizeof *r->ins);
    if (!r->ins) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < ni; i++) {
        PyObject *item = PySequence_GetItem(receivers, i), *peers = NULL, *sock;
        if (!item) {
            goto error;
        }
        in_t *in = &r->ins[i];
        r->nins = (int)i + 1;
        long long fd = -1;
        /* (item holds sock and peers until it is released) */
        int ok = PyArg_ParseTuple(item, "OO", &sock, &peers) && take_socket(r, sock, &in->ring, &fd) == 0;
        Py_XINCREF(peers);
        Py_DECREF(item);
        Py_ssize_t np = ok ? PySequence_Size(peers) : -1;
        if (np < 0) {
            Py_XDECREF(peers);
            goto error;
        }
        in->fd = (int)fd;
        in->endpoint = i < ne ? (int)i : -1; /* the endpoints' sockets, then the group's */
        in->peers = calloc(np ? np : 1, sizeof *in->peers);
        if (!in->peers) {
            PyErr_NoMemory();
            goto error;
        }
        for (Py_ssize_t k = 0; k < np; k++) {
            PyObject *peer = PySequence_GetItem(peers, k);
            unsigned long ip;
            int port;
            if (!peer) {
                Py_DECREF(peers);
                goto error;
            }
            ok = PyArg_ParseTuple(peer, "ki", &ip, &port);
            Py_DECREF(peer);
            if (!ok) {
                Py_DECREF(peers);
                goto error;
            }
            in->peers[k].ip = (uint32_t)ip;
            in->peers[k].port = (uint16_t)port;
            in->npeers = (int)k + 1;
        }
        Py_DECREF(peers);
    }
    return (PyObject *)r;
error:
    Py_DECREF(r);
    return NULL;
}

static PyMethodDef Run_methods[] = {
    {"start", (PyCFunction)Run_start, METH_VARARGS, start_doc},
    {"feed", (PyCFunction)Run_feed, METH_VARARGS, feed_doc},
    {"poll", (PyCFunction)Run_poll, METH_VARARGS, poll_doc},
    {"flush", (PyCFunction)Run_flush, METH_NOARGS, flush_doc},
    {"take_output", (PyCFunction)Run_take_output, METH_NOARGS, take_output_doc},
    {"expire", (PyCFunction)Run_expire, METH_VARARGS, expire_doc},
    {"next_deadline", (PyCFunction)Run_next_deadline, METH_NOARGS,
     "next_deadline()\n--\n\nThe earliest timer deadline of the streams in flight (inf: none)."},
    {"stream", (PyCFunction)Run_stream, METH_O, stream_doc},
    {"rounds", (PyCFunction)Run_rounds, METH_NOARGS, "rounds()\n--\n\nEach stream's slot round counter."},
    {"counters", (PyCFunction)Run_counters, METH_NOARGS,
     "counters()\n--\n\nAllreduceStats' counts so far, as a dict (per_slot_retries: {slot: expiries}),\n"
     "and the UDP offload's: gso_sends/gso_segments (UDP_SEGMENT messages, their datagrams),\n"
     "gso_fallbacks (such messages sent datagram by datagram), gro_buffers/gro_segments."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Run_getset[] = {
    {"active", (getter)Run_get_active, NULL, "streams started and not finished", NULL},
    {"waiting", (getter)Run_get_waiting, NULL, "streams not started yet", NULL},
    {"unfinished", (getter)Run_get_unfinished, NULL, "streams not finished", NULL},
    {"overflow", (getter)Run_get_overflow, NULL, "some RESULT was flagged OVERFLOW", NULL},
    {"float_overflow", (getter)Run_get_float_overflow, NULL, "some float32 sum is Inf", NULL},
    {"scanned", (getter)Run_get_scanned, NULL, "blocks of the tensor scanned so far (nonzero and exps hold them)",
     NULL},
    {"nonfinite", (getter)Run_get_nonfinite, NULL,
     "the flat index of the first NaN/Inf the scan found, -1: none (so far)", NULL},
    {"gso_errno", (getter)Run_get_gso_errno, NULL,
     "why the kernel refused a UDP_SEGMENT send (GSO then off for that endpoint); 0: it never did", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(
    Run_doc,
    "Run(spec)\n--\n\n"
    "The streams of one allreduce, as `spec` (a p4reduce._native_worker.RunSpec) says; its\n"
    "attributes are read by name, once. `tensor`, `out`: flat float32 or int32 (may be the\n"
    "same array); `nonzero`, `exps`: BlockPlan's per-block flags and exponent bytes;\n"
    "`num_workers`: what fixed point scales by; `rounds`: each used stream's slot\n"
    "round; per aggregator endpoint (stream s goes to s mod len): its session, the\n"
    "agreed datagram payload size (0: a packet per datagram) and its connected\n"
    "socket's fd or its PacketRing (-1: datagrams stay queued for take_output());\n"
    "`receivers`: a (fd or PacketRing, [(IPv4 as int, port), ...]) per socket results\n"
    "arrive on, with the sources it accepts (fd -1: only feed() uses it). `gso`: send each endpoint's runs of\n"
    "equal-size datagrams as UDP_SEGMENT messages (off for good on an endpoint\n"
    "where the kernel refuses one). Received UDP_GRO buffers are split whenever a\n"
    "socket has UDP_GRO on. `scanned`: how many blocks `nonzero` and `exps` already hold\n"
    "(-1: all); the Run scans the rest of the tensor into them as its streams need it,\n"
    "`scan_chunk` elements at a time (0: 64 Ki; at least a block)\n"
    "(p4reduce/_worker_scan.c: a NaN/Inf found after a datagram left fails the allreduce\n"
    "everywhere, Failed('nonfinite', index, True) here).");

static PyTypeObject RunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "p4reduce._worker.Run",
    .tp_basicsize = sizeof(RunObject),
    .tp_dealloc = (destructor)Run_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Run_doc,
    .tp_methods = Run_methods,
    .tp_getset = Run_getset,
    .tp_new = Run_new,
};

static int exec_module(PyObject *m) {
    if (PyType_Ready(&RunType) < 0 || pring_add_to_module(m) < 0) {
        return -1;
    }
    if (!Failed) {
        Failed = PyErr_NewExceptionWithDoc(
            "p4reduce._worker.Failed",
            "An allreduce cannot go on: args ('job', code, detail, epoch), ('protocol', message), "
            "('timeout', stream index, seconds waited) or ('nonfinite', flat index, whether packets had "
            "left). p4reduce.hostagent.fastpath raises the "
            "Python engine's exception for it.",
            NULL, NULL);
        if (!Failed) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "Run", (PyObject *)&RunType) < 0 || PyModule_AddObjectRef(m, "Failed", Failed) < 0 ||
        PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0) {
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
    .m_name = "p4reduce._worker",
    .m_doc = "The host agent's per-round state machine in C; import p4reduce._native_worker instead.",
    .m_size = 0,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__worker(void) {
    return PyModuleDef_Init(&module);
}
