// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_engine_py.c (in p4reduce._engine): the Python side of the extension, the
 * type Core (p4reduce.aggregator.native wraps it): its job and member tables, the
 * receive batch (recv: recvmmsg, a UDP_GRO buffer counted as its datagrams; load: a
 * batch from Python), run, queue/flush/take_output, the counters and the events, and
 * the module (ABI_VERSION). The data path run drives is p4reduce/_engine.c, the send
 * queue p4reduce/_engine_send.c; what the files share is p4reduce/_engine.h.
 */
#include "_engine.h"

#define ABI_VERSION 8 /* p4reduce/aggregator/native.py refuses a build of another version */

/* The names of the counters (C_*) and of the I/O statistics (IO_*), p4reduce/_engine.h. */
static const char *counter_names[C_N] = {
    "datagrams_in",
    "packets_in",
    "bytes_in",
    "packets_out",
    "bytes_out",
    "counted",
    "completed",
    "resent",
    "failed",
    "drop_stale",
    "drop_pending",
    "drop_duplicate",
    "drop_unexpected",
    "drop_bad_exp",
    "drop_bad_count",
    "streams_completed",
    "allreduces_completed",
    "jobs_failed",
    "drop_no_address",
    "send_errors",
    "answers_limited",
    "drop_replay",
};
static const char *io_names[IO_N] = {
    "recv_calls", "send_calls", "gro_buffers", "gro_segments", "gso_sends", "gso_segments", "gso_fallbacks",
};

/* ---------------------------------------------------------------------------
 * Python interface
 */
static void lock(Core *c) {
    if (pthread_mutex_trylock(&c->mu) != 0) {
        Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&c->mu);
        Py_END_ALLOW_THREADS
    }
}
static void unlock(Core *c) {
    pthread_mutex_unlock(&c->mu);
}

static job_t *need_job(Core *c, long job_id) {
    if (job_id < 0 || job_id >= MAX_JOBS || !c->jobs[job_id]) {
        PyErr_Format(PyExc_KeyError, "the native core has no job %ld", job_id);
        return NULL;
    }
    return c->jobs[job_id];
}

static void free_job(job_t *job) {
    if (!job) {
        return;
    }
    for (uint32_t i = 0; i < job->num_slots; i++) {
        eng_free_slot(job->slots[i]);
    }
    free(job->slots);
    free(job);
}

static void reset_job_state(job_t *job) {
    for (uint32_t i = 0; i < job->num_slots; i++) {
        eng_free_slot(job->slots[i]);
        job->slots[i] = NULL;
    }
    memset(job->members, 0, sizeof(job->members));
    job->failed = job->started = 0;
    job->fail_code = 0;
    job->fail_detail = 0;
    job->sd_len = 0;
}

static int parse_ipv4(const char *text, uint32_t *out) {
    struct in_addr a;
    if (inet_pton(AF_INET, text, &a) != 1) {
        PyErr_Format(PyExc_ValueError, "%s is not an IPv4 address", text);
        return -1;
    }
    *out = a.s_addr;
    return 0;
}

static PyObject *ip_string(uint32_t ip) {
    const uint8_t *b = (const uint8_t *)&ip;
    return PyUnicode_FromFormat("%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

static int Core_init(Core *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"batch", NULL};
    int batch = 64;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwlist, &batch)) {
        return -1;
    }
    if (batch < 1 || batch > 1024) {
        PyErr_SetString(PyExc_ValueError, "batch outside 1..1024");
        return -1;
    }
    if (self->jobs) {
        PyErr_SetString(PyExc_RuntimeError, "Core is already initialised");
        return -1;
    }
    pthread_mutex_init(&self->mu, NULL);
    self->batch = batch;
    self->idle_horizon = 60.0; /* IDLE_HORIZON in p4reduce/aggregator/slot.py */
    self->jobs = calloc(MAX_JOBS, sizeof(job_t *));
    self->rbuf = malloc((size_t)batch * RECV_BUF);
    self->rmsgs = calloc(batch, sizeof(struct mmsghdr));
    self->riovs = calloc(batch, sizeof(struct iovec));
    self->rnames = calloc(batch, sizeof(struct sockaddr_in));
    self->rlen = calloc(batch, sizeof(uint32_t));
    self->rip = calloc(batch, sizeof(uint32_t));
    self->rport = calloc(batch, sizeof(uint16_t));
    self->rctl = calloc(batch, RCTL_LEN);
    self->rseg = calloc(batch, sizeof(uint32_t));
    self->omap_cap = 1024;
    self->omap_key = calloc(self->omap_cap, sizeof(uint64_t));
    self->omap_val = calloc(self->omap_cap, sizeof(uint32_t));
    if (!self->jobs || !self->rbuf || !self->rmsgs || !self->riovs || !self->rnames || !self->rlen || !self->rip ||
        !self->rport || !self->rctl || !self->rseg || !self->omap_key || !self->omap_val) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < batch; i++) {
        self->riovs[i].iov_base = self->rbuf + (size_t)i * RECV_BUF;
        self->riovs[i].iov_len = RECV_BUF;
        self->rmsgs[i].msg_hdr.msg_iov = &self->riovs[i];
        self->rmsgs[i].msg_hdr.msg_iovlen = 1;
        self->rmsgs[i].msg_hdr.msg_name = &self->rnames[i];
    }
    return 0;
}

static void Core_dealloc(Core *self) {
    if (self->jobs) {
        for (long i = 0; i < MAX_JOBS; i++) {
            free_job(self->jobs[i]);
        }
        free(self->jobs);
        pthread_mutex_destroy(&self->mu);
    }
    free(self->rbuf);
    free(self->rmsgs);
    free(self->riovs);
    free(self->rnames);
    free(self->rlen);
    free(self->rip);
    free(self->rport);
    free(self->rctl);
    free(self->rseg);
    free(self->gnext);
    free(self->gmsgs);
    free(self->sctl);
    free(self->arena);
    free(self->pkts);
    free(self->dgrams);
    free(self->omap_key);
    free(self->omap_val);
    free(self->smsgs);
    free(self->siovs);
    free(self->snames);
    free(self->out);
    free(self->log);
    free(self->up_ip);
    free(self->up_port);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define CHECK_INIT(self)                                                                                               \
    if (!(self)->jobs) {                                                                                               \
        PyErr_SetString(PyExc_RuntimeError, "Core not initialised");                                                   \
        return NULL;                                                                                                   \
    }

static PyObject *Core_add_job(Core *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"job_id",      "num_workers", "dense", "slot_base",  "num_slots", "block_size",
                             "shard_index", "shard_count", "group", "max_blocks", NULL};
    long job_id;
    unsigned int n, slot_base, num_slots, block_size, shard_index, shard_count, max_blocks = 0xFFFFFFFEu;
    int dense;
    PyObject *group = Py_None;
    CHECK_INIT(self);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "lIpIIIII|OI", kwlist, &job_id, &n, &dense, &slot_base, &num_slots,
                                     &block_size, &shard_index, &shard_count, &group, &max_blocks)) {
        return NULL;
    }
    if (job_id < 0 || job_id >= MAX_JOBS || n < 1 || n > MAX_WORKERS || num_slots < 1 ||
        slot_base + num_slots > MAX_SLOTS || block_size < 1 || block_size > MAX_BLOCK_SIZE || shard_count < 1 ||
        shard_index >= shard_count) {
        PyErr_SetString(PyExc_ValueError, "job geometry outside what the wire format carries");
        return NULL;
    }
    uint32_t gip = 0;
    int gport = 0;
    if (group != Py_None) {
        const char *host;
        if (!PyArg_ParseTuple(group, "si", &host, &gport)) {
            return NULL;
        }
        if (parse_ipv4(host, &gip)) {
            return NULL;
        }
    }
    job_t *job = calloc(1, sizeof(job_t));
    if (!job || !(job->slots = calloc(num_slots, sizeof(slot_t *)))) {
        free(job);
        return PyErr_NoMemory();
    }
    job->job_id = (uint32_t)job_id;
    job->n = n;
    job->max_blocks = max_blocks;
    job->all_workers = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
    job->dense = dense;
    job->slot_base = slot_base;
    job->num_slots = num_slots;
    job->block_size = block_size;
    job->shard_index = shard_index;
    job->shard_count = shard_count;
    job->multicast = group != Py_None;
    job->group_ip = gip;
    job->group_port = (uint16_t)gport;
    lock(self);
    job_t *old = self->jobs[job_id];
    self->jobs[job_id] = old ? old : job;
    unlock(self);
    if (old) {
        free_job(job);
        PyErr_Format(PyExc_ValueError, "job %ld already exists", job_id);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Core_remove_job(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!need_job(self, job_id)) {
        return NULL;
    }
    lock(self);
    job_t *job = self->jobs[job_id];
    self->jobs[job_id] = NULL;
    unlock(self);
    free_job(job);
    Py_RETURN_NONE;
}

static PyObject *Core_reset_job(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!need_job(self, job_id)) {
        return NULL;
    }
    lock(self);
    reset_job_state(self->jobs[job_id]);
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_member(Core *self, PyObject *args) {
    long job_id;
    unsigned int worker, session;
    const char *host;
    int port, pack;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lIIsii", &job_id, &worker, &session, &host, &port, &pack)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    if (worker >= job->n || port < 0 || port > 65535 || pack < 0) {
        PyErr_SetString(PyExc_ValueError, "worker, port or pack limit out of range");
        return NULL;
    }
    uint32_t ip;
    if (parse_ipv4(host, &ip)) {
        return NULL;
    }
    lock(self);
    job->members[worker] = (member_t){1, session, ip, (uint16_t)port, pack, 0, 0}; /* a new session: no epoch yet */
    unlock(self);
    Py_RETURN_NONE;
}

/* engine.py's Member.newest: the newest epoch the core took from the member's session,
 * read when a new process replaces it (an authenticated job then tells a replay of the
 * retired session's packets from the old process going on, docs/protocol.md 6.3) */
static PyObject *Core_member_newest(Core *self, PyObject *args) {
    long job_id;
    unsigned int worker;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &worker)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    if (worker >= job->n) {
        PyErr_SetString(PyExc_ValueError, "worker out of range");
        return NULL;
    }
    lock(self);
    member_t m = job->members[worker];
    unlock(self);
    if (!m.present || !m.has_newest) {
        Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLong(m.newest);
}

static PyObject *Core_set_group_session(Core *self, PyObject *args) {
    long job_id;
    unsigned int session;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &session)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    lock(self);
    job->group_session = session;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_key(Core *self, PyObject *args) {
    long job_id;
    PyObject *key;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lO", &job_id, &key)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    if (key == Py_None) {
        lock(self);
        job->keyed = 0;
        unlock(self);
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(key, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (view.len != 16) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "a job key is 16 bytes");
        return NULL;
    }
    lock(self);
    job->key = sip_key(view.buf);
    job->keyed = 1;
    unlock(self);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *Core_clear_member(Core *self, PyObject *args) {
    long job_id;
    unsigned int worker;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &worker)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    if (worker < MAX_WORKERS) {
        lock(self);
        memset(&job->members[worker], 0, sizeof(member_t));
        unlock(self);
    }
    Py_RETURN_NONE;
}

static PyObject *Core_set_failure(Core *self, PyObject *args) {
    long job_id;
    PyObject *failure;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lO", &job_id, &failure)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    unsigned int code = 0, detail = 0;
    if (failure != Py_None && !PyArg_ParseTuple(failure, "II", &code, &detail)) {
        return NULL;
    }
    if (failure != Py_None && (code < 1 || code > 255)) {
        PyErr_SetString(PyExc_ValueError, "error code outside 1..255");
        return NULL;
    }
    lock(self);
    job->failed = failure != Py_None;
    job->fail_code = (uint8_t)code;
    job->fail_detail = detail;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_failure(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    lock(self);
    int failed = job->failed;
    unsigned code = job->fail_code, detail = job->fail_detail;
    unlock(self);
    if (!failed) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(II)", code, detail);
}

static PyObject *Core_started(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    return PyBool_FromLong(job->started);
}

static PyObject *Core_set_started(Core *self, PyObject *args) {
    long job_id;
    int started;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lp", &job_id, &started)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    lock(self);
    job->started = (uint8_t)started;
    unlock(self);
    Py_RETURN_NONE;
}

static PyObject *Core_set_upstreams(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    PyObject *seq = PySequence_Fast(arg, "upstreams: a sequence of (ip, port)");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint32_t *ips = calloc(n ? n : 1, sizeof(uint32_t));
    uint16_t *ports = calloc(n ? n : 1, sizeof(uint16_t));
    if (!ips || !ports) {
        free(ips);
        free(ports);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *host;
        int port;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "si", &host, &port) || parse_ipv4(host, &ips[i])) {
            free(ips);
            free(ports);
            Py_DECREF(seq);
            return NULL;
        }
        ports[i] = (uint16_t)port;
    }
    Py_DECREF(seq);
    lock(self);
    free(self->up_ip);
    free(self->up_port);
    self->up_ip = ips;
    self->up_port = ports;
    self->n_up = n;
    unlock(self);
    Py_RETURN_NONE;
}

/* set_gso(bool): send each address's runs of equal-size datagrams as UDP_SEGMENT buffers
 * (the caller probed the socket: p4reduce.aggregator.server.probe_udp_offload). */
static PyObject *Core_set_gso(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    int on = PyObject_IsTrue(arg);
    if (on < 0) {
        return NULL;
    }
    lock(self);
    self->gso = on;
    if (on) {
        self->gso_errno = 0;
    }
    unlock(self);
    Py_RETURN_NONE;
}

/* io_stats() -> {"gso": bool, "gso_errno": int, name: count}: how the datagrams moved. */
static PyObject *Core_io_stats(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    PyObject *d = PyDict_New();
    if (!d) {
        return NULL;
    }
    for (int i = 0; i < IO_N; i++) {
        PyObject *val = PyLong_FromUnsignedLongLong(__atomic_load_n(&self->io[i], __ATOMIC_RELAXED));
        if (!val || PyDict_SetItemString(d, io_names[i], val)) {
            Py_XDECREF(val);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(val);
    }
    PyObject *errno_ = PyLong_FromLong(self->gso_errno);
    if (!errno_ || PyDict_SetItemString(d, "gso", self->gso ? Py_True : Py_False) ||
        PyDict_SetItemString(d, "gso_errno", errno_)) {
        Py_XDECREF(errno_);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(errno_);
    return d;
}

static PyObject *Core_set_debug(Core *self, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) {
        return NULL;
    }
    self->debug = on;
    Py_RETURN_NONE;
}

/* The datagrams in a received buffer of `len` bytes whose GRO segment size is `seg`
 * (0: not coalesced), counted in the I/O statistics. */
static uint64_t note_segments(Core *c, uint32_t len, uint32_t seg) {
    if (!seg || len <= seg) {
        return 1;
    }
    uint64_t n = (len + seg - 1) / seg;
    io_add(c, IO_GRO_BUFFERS, 1);
    io_add(c, IO_GRO_SEGMENTS, n);
    return n;
}

/* recv(fd) -> datagrams received (0: none queued). Starts a new batch. */
static PyObject *Core_recv(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int fd = (int)fdl;
    if (self->cur < self->rn) {
        PyErr_SetString(PyExc_RuntimeError, "recv() before the previous batch was run to its end");
        return NULL;
    }
    int n, err = 0;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&self->mu);
    for (int i = 0; i < self->batch; i++) {
        self->rmsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
        self->rmsgs[i].msg_hdr.msg_control = self->rctl + (size_t)i * RCTL_LEN;
        self->rmsgs[i].msg_hdr.msg_controllen = RCTL_LEN;
    }
    do {
        n = recvmmsg(fd, self->rmsgs, self->batch, MSG_DONTWAIT, NULL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        err = errno;
    }
    io_add(self, IO_RECV_CALLS, 1);
    self->rn = n > 0 ? n : 0;
    self->cur = 0;
    self->seg_off = 0;
    self->phase = 0;
    uint64_t datagrams = 0;
    for (int i = 0; i < self->rn; i++) {
        const uint32_t seg = udp_gro_segment(&self->rmsgs[i].msg_hdr);
        self->rlen[i] = self->rmsgs[i].msg_len;
        self->rseg[i] = seg;
        self->rip[i] = self->rnames[i].sin_addr.s_addr;
        self->rport[i] = ntohs(self->rnames[i].sin_port);
        datagrams += note_segments(self, self->rlen[i], seg);
    }
    if (datagrams) {
        count(self, C_DATAGRAMS_IN, datagrams);
    }
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS if (n < 0) {
        if (err == EAGAIN || err == EWOULDBLOCK || err == ECONNREFUSED) {
            return PyLong_FromLong(0);
        }
        errno = err;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return PyLong_FromLong(n);
}

/* load([(datagram, (ip, port)), ...]): a batch from Python (tests, benchmarks) instead of
 * recv; the copy into the receive buffers runs with the GIL released, as recvmmsg's does. */
static PyObject *Core_load(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    if (self->cur < self->rn) {
        PyErr_SetString(PyExc_RuntimeError, "load() before the previous batch was run to its end");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(arg, "load: a sequence of (datagram, (ip, port))");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), held = 0;
    if (n > self->batch) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d datagrams per batch", self->batch);
        return NULL;
    }
    Py_buffer *views = PyMem_Calloc(n ? n : 1, sizeof(Py_buffer));
    uint32_t *ips = PyMem_Calloc(n ? n : 1, sizeof(uint32_t));
    uint16_t *ports = PyMem_Calloc(n ? n : 1, sizeof(uint16_t));
    uint32_t *segs = PyMem_Calloc(n ? n : 1, sizeof(uint32_t));
    if (!views || !ips || !ports || !segs) {
        PyErr_NoMemory();
        goto done;
    }
    for (; held < n; held++) {
        const char *host;
        int port;
        unsigned int seg = 0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, held), "y*(si)|I", &views[held], &host, &port, &seg)) {
            goto done;
        }
        segs[held] = seg;
        if (views[held].len > RECV_BUF - 1 || port < 0 || port > 65535 || parse_ipv4(host, &ips[held])) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "datagram over 65535 bytes or bad port");
            }
            held++;
            goto done;
        }
        ports[held] = (uint16_t)port;
    }
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&self->mu);
    uint64_t datagrams = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        memcpy(self->rbuf + (size_t)i * RECV_BUF, views[i].buf, views[i].len);
        self->rlen[i] = (uint32_t)views[i].len;
        self->rseg[i] = segs[i];
        self->rip[i] = ips[i];
        self->rport[i] = ports[i];
        datagrams += note_segments(self, self->rlen[i], segs[i]);
    }
    self->rn = (int)n;
    self->cur = 0;
    self->seg_off = 0;
    self->phase = 0;
    if (datagrams) {
        count(self, C_DATAGRAMS_IN, datagrams);
    }
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS done : for (Py_ssize_t i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(ips);
    PyMem_Free(ports);
    PyMem_Free(segs);
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* run(fd) -> None when the batch is done (replies flushed to fd; -1: kept for take_output,
 * -2: discarded), or (packet, (ip, port), datagram) for the Python engine (datagram: a
 * number that is the same for the packets of one datagram); call run again after. */
static PyObject *Core_run(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int fd = (int)fdl;
    slow_t slow;
    int got, nomem;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&self->mu);
    got = eng_process(self, fd, &slow);
    nomem = self->nomem;
    self->nomem = 0;
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS if (nomem) return PyErr_NoMemory();
    if (!got) {
        Py_RETURN_NONE;
    }
    PyObject *host = ip_string(slow.ip);
    if (!host) {
        return NULL;
    }
    return Py_BuildValue("(y#(Ni)K)", (const char *)slow.p, (Py_ssize_t)slow.len, host, (int)slow.port,
                         (unsigned long long)slow.datagram);
}

/* queue(packet, ip, port, pack_up_to): a reply of the Python engine, in order with ours. */
static PyObject *Core_queue(Core *self, PyObject *args) {
    Py_buffer view;
    const char *host;
    int port, pack;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "y*sii", &view, &host, &port, &pack)) {
        return NULL;
    }
    uint32_t ip;
    if (parse_ipv4(host, &ip) || view.len > RECV_BUF || pack < 0 || port < 0 || port > 65535) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "bad packet, port or pack limit");
        }
        PyBuffer_Release(&view);
        return NULL;
    }
    lock(self);
    uint8_t *p = eng_out_packet(self, ip, (uint16_t)port, (uint32_t)pack, (uint32_t)view.len);
    if (p) {
        memcpy(p, view.buf, view.len);
    }
    int nomem = self->nomem;
    self->nomem = 0;
    unlock(self);
    PyBuffer_Release(&view);
    if (nomem) {
        return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
}

static PyObject *Core_flush(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long fdl = PyLong_AsLong(arg);
    if (fdl == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int fd = (int)fdl;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&self->mu);
    eng_flush(self, fd);
    pthread_mutex_unlock(&self->mu);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *Core_take_output(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    PyObject *list = PyList_New(0);
    if (!list) {
        return NULL;
    }
    lock(self);
    size_t off = 0;
    while (off < self->out_len) {
        uint32_t ip, size;
        uint16_t port;
        memcpy(&ip, self->out + off, 4);
        memcpy(&port, self->out + off + 4, 2);
        memcpy(&size, self->out + off + 6, 4);
        PyObject *host = ip_string(ip);
        PyObject *item =
            host ? Py_BuildValue("(y#(Ni))", (const char *)self->out + off + 10, (Py_ssize_t)size, host, (int)port)
                 : NULL;
        if (!item || PyList_Append(list, item)) {
            Py_XDECREF(item);
            Py_DECREF(list);
            unlock(self);
            return NULL;
        }
        Py_DECREF(item);
        off += 10 + size;
    }
    self->out_len = 0;
    if (self->out_cap > (16u << 20)) {
        free(self->out);
        self->out = NULL;
        self->out_cap = 0;
    }
    unlock(self);
    return list;
}

static PyObject *Core_set_idle_horizon(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    if (!(seconds > 0)) {
        PyErr_SetString(PyExc_ValueError, "idle horizon must be > 0 seconds");
        return NULL;
    }
    self->idle_horizon = seconds;
    Py_RETURN_NONE;
}

static PyObject *Core_answered(Core *self, PyObject *unused) {
    (void)unused;
    CHECK_INIT(self);
    return PyLong_FromUnsignedLongLong(self->answered);
}

static PyObject *Core_set_answered(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    unsigned long long datagram = PyLong_AsUnsignedLongLong(arg);
    if (datagram == (unsigned long long)-1 && PyErr_Occurred()) {
        return NULL;
    }
    self->answered = datagram;
    Py_RETURN_NONE;
}

static PyObject *Core_counters(Core *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *d = PyDict_New();
    if (!d) {
        return NULL;
    }
    for (int i = 0; i < C_N; i++) {
        uint64_t v = __atomic_load_n(&self->counters[i], __ATOMIC_RELAXED);
        if (!v) {
            continue;
        }
        PyObject *val = PyLong_FromUnsignedLongLong(v);
        if (!val || PyDict_SetItemString(d, counter_names[i], val)) {
            Py_XDECREF(val);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(val);
    }
    return d;
}

/* job_counters(job_id) -> (packets, drops, retransmissions, rounds) of the packets handled here. */
static PyObject *Core_job_counters(Core *self, PyObject *arg) {
    CHECK_INIT(self);
    long job_id = PyLong_AsLong(arg);
    if (job_id == -1 && PyErr_Occurred()) {
        return NULL;
    }
    uint64_t v[NUM_JOB_EVENTS];
    lock(self); /* the serving thread may remove (free) the job meanwhile */
    job_t *job = need_job(self, job_id);
    if (job) {
        memcpy(v, job->counts, sizeof(v));
    }
    unlock(self);
    if (!job) {
        return NULL;
    }
    return Py_BuildValue("(KKKK)", (unsigned long long)v[JOB_EV_PACKETS], (unsigned long long)v[JOB_EV_DROPS],
                         (unsigned long long)v[JOB_EV_RETRANSMISSIONS], (unsigned long long)v[JOB_EV_ROUNDS]);
}

/* events() -> [(kind, job_or_ip, a, b, c)]: what the Python side logs. */
static PyObject *Core_events(Core *self, PyObject *Py_UNUSED(ignored)) {
    CHECK_INIT(self);
    lock(self);
    PyObject *list = PyList_New(self->log_len);
    for (uint32_t i = 0; list && i < self->log_len; i++) {
        logevent_t *e = &self->log[i];
        PyObject *item;
        if (e->kind == L_DROP) {
            PyObject *host = ip_string(e->job);
            item = host ? Py_BuildValue("(s(Ni)s)", "drop", host, (int)e->a, counter_names[e->b] + 5) : NULL;
        } else {
            const char *kind = e->kind == L_ALLREDUCE ? "allreduce"
                               : e->kind == L_FAILED  ? "failed"
                               : e->kind == L_GSO_OFF ? "gso_off"
                                                      : "stream";
            item = Py_BuildValue("(sIIII)", kind, e->job, e->a, e->b, e->c);
        }
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    if (list) {
        self->log_len = 0;
    }
    unlock(self);
    return list;
}

/* slot_state(job_id, slot) -> dict of a slot's state, or None if it was never used (tests). */
static PyObject *Core_slot_state(Core *self, PyObject *args) {
    long job_id;
    unsigned int slot;
    CHECK_INIT(self);
    if (!PyArg_ParseTuple(args, "lI", &job_id, &slot)) {
        return NULL;
    }
    job_t *job = need_job(self, job_id);
    if (!job) {
        return NULL;
    }
    if (slot < job->slot_base || slot - job->slot_base >= job->num_slots) {
        PyErr_SetString(PyExc_ValueError, "slot outside the job");
        return NULL;
    }
    lock(self);
    slot_t *s = job->slots[slot - job->slot_base];
    PyObject *res = NULL, *keys = NULL, *own = NULL, *hist = NULL;
    if (!s) {
        unlock(self);
        Py_RETURN_NONE;
    }
    keys = PyList_New(job->n);
    own = PyList_New(job->n);
    hist = PyList_New(s->hist_len);
    if (!keys || !own || !hist) {
        goto done;
    }
    for (uint32_t w = 0; w < job->n; w++) {
        PyList_SET_ITEM(keys, w, PyLong_FromUnsignedLongLong(s->keys[w]));
        PyList_SET_ITEM(own, w, PyLong_FromUnsignedLongLong(s->own[w]));
    }
    for (uint32_t i = 0; i < s->hist_len; i++) {
        stored_t *e = &s->hist[i];
        PyObject *owner = e->owner == NO_OWNER ? Py_NewRef(Py_None) : PyLong_FromLong(e->owner);
        PyList_SET_ITEM(hist, i,
                        Py_BuildValue("((II)(IIy#N))", e->epoch, e->block, (unsigned)e->shadow, e->fingerprint,
                                      (const char *)e->payload, (Py_ssize_t)e->len, owner));
    }
    PyObject *epoch = s->has_epoch ? PyLong_FromUnsignedLong(s->epoch) : Py_NewRef(Py_None);
    PyObject *prev = s->has_prev ? PyLong_FromUnsignedLong(s->prev_epoch) : Py_NewRef(Py_None);
    res = Py_BuildValue("{sKsNsNsIsIsIsIsIsIsOsNsNsIsNsKsIsO}", "round", (unsigned long long)s->round, "epoch", epoch,
                        "previous_epoch", prev, "blocks", s->blocks, "fingerprint", s->fingerprint, "block", s->block,
                        "exp", (unsigned)s->exp, "expected", s->expected, "seen", s->seen, "acc_empty",
                        s->acc_empty ? Py_True : Py_False, "keys", keys, "history", hist, "scatter",
                        (unsigned)s->scatter, "own_keys", own, "first_key", (unsigned long long)s->first_key,
                        "first_flags", (unsigned)s->first_bits, "repeat", s->repeat ? Py_True : Py_False);
    keys = own = hist = NULL;
done:
    unlock(self);
    Py_XDECREF(keys);
    Py_XDECREF(own);
    Py_XDECREF(hist);
    return res;
}

static PyMethodDef Core_methods[] = {
    {"add_job", (PyCFunction)(void (*)(void))Core_add_job, METH_VARARGS | METH_KEYWORDS,
     "add_job(job_id, num_workers, dense, slot_base, num_slots, block_size, shard_index, shard_count, group=None, "
     "max_blocks=0xFFFFFFFE)"},
    {"remove_job", (PyCFunction)Core_remove_job, METH_O, "remove_job(job_id)"},
    {"reset_job", (PyCFunction)Core_reset_job, METH_O, "reset_job(job_id): forget slots, members, failure"},
    {"set_member", (PyCFunction)Core_set_member, METH_VARARGS,
     "set_member(job_id, worker, session, ip, port, pack_up_to)"},
    {"member_newest", (PyCFunction)Core_member_newest, METH_VARARGS,
     "member_newest(job_id, worker) -> int | None: the newest epoch taken from its session"},
    {"set_group_session", (PyCFunction)Core_set_group_session, METH_VARARGS,
     "set_group_session(job_id, session): the session of results sent to the job's group"},
    {"set_key", (PyCFunction)Core_set_key, METH_VARARGS,
     "set_key(job_id, key16 | None): the job's packets sealed and checked with SipHash-2-4"},
    {"clear_member", (PyCFunction)Core_clear_member, METH_VARARGS, "clear_member(job_id, worker)"},
    {"set_failure", (PyCFunction)Core_set_failure, METH_VARARGS, "set_failure(job_id, (code, detail) | None)"},
    {"failure", (PyCFunction)Core_failure, METH_O, "failure(job_id) -> (code, detail) | None"},
    {"started", (PyCFunction)Core_started, METH_O, "started(job_id) -> bool: DATA was counted"},
    {"set_started", (PyCFunction)Core_set_started, METH_VARARGS, "set_started(job_id, bool)"},
    {"set_upstreams", (PyCFunction)Core_set_upstreams, METH_O, "set_upstreams([(ip, port), ...])"},
    {"set_debug", (PyCFunction)Core_set_debug, METH_O, "set_debug(bool): log drops and ended streams"},
    {"set_gso", (PyCFunction)Core_set_gso, METH_O, "set_gso(bool): UDP GSO on the send side"},
    {"io_stats", (PyCFunction)Core_io_stats, METH_NOARGS,
     "io_stats() -> {gso, gso_errno, system calls, GRO/GSO counts}"},
    {"recv", (PyCFunction)Core_recv, METH_O, "recv(fd) -> buffers received into a new batch (GRO ones split)"},
    {"load", (PyCFunction)Core_load, METH_O,
     "load([(datagram, (ip, port)[, gro_segment_size]), ...]): a new batch; a buffer with a segment "
     "size is split as a UDP_GRO buffer is"},
    {"run", (PyCFunction)Core_run, METH_O, "run(fd) -> None | (packet, (ip, port)) for Python"},
    {"queue", (PyCFunction)Core_queue, METH_VARARGS, "queue(packet, ip, port, pack_up_to)"},
    {"flush", (PyCFunction)Core_flush, METH_O, "flush(fd)"},
    {"take_output", (PyCFunction)Core_take_output, METH_NOARGS, "take_output() -> [(datagram, (ip, port))]"},
    {"counters", (PyCFunction)Core_counters, METH_NOARGS, "counters() -> {name: value}, non-zero only"},
    {"job_counters", (PyCFunction)Core_job_counters, METH_O,
     "job_counters(job_id) -> (packets, drops, retransmissions, rounds) of the packets the core handled"},
    {"answered", (PyCFunction)Core_answered, METH_NOARGS,
     "answered() -> the datagram (run's number) last answered with an ERROR"},
    {"set_idle_horizon", (PyCFunction)Core_set_idle_horizon, METH_O,
     "set_idle_horizon(seconds): a slot idle longer between allreduces forgets them"},
    {"set_answered", (PyCFunction)Core_set_answered, METH_O,
     "set_answered(datagram): the Python engine answered it (the core sends it no ERROR)"},
    {"events", (PyCFunction)Core_events, METH_NOARGS, "events() -> [(kind, ...)], drained"},
    {"slot_state", (PyCFunction)Core_slot_state, METH_VARARGS, "slot_state(job_id, slot) -> dict | None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "p4reduce._engine.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The software aggregator's data path: job tables, slot state machines, batched I/O.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};

static int exec_module(PyObject *m) {
    if (PyType_Ready(&CoreType) < 0) {
        return -1;
    }
    if (PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) < 0) {
        return -1;
    }
    if (PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "p4reduce._engine",
    "The software aggregator's data path in C (p4reduce.aggregator.native wraps it).",
    0,
    NULL,
    module_slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__engine(void) {
    return PyModuleDef_Init(&module);
}
