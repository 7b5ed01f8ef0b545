// SPDX-License-Identifier: Apache-2.0
/*
 * p4reduce/_worker_scan.c (in p4reduce._worker): the scan of a Run's tensor, a chunk at a
 * time as its streams need it, so that the first streams' packets leave before the scan
 * has read the whole tensor (the Python engine scans it all first: BlockPlan.build).
 *
 * A Run built with scanned = 0 (BlockPlan.unscanned) fills its nonzero and exps buffers
 * itself: nonzero_from (p4reduce/_worker.h) scans on past the block it needs, after handing
 * the queued datagrams to the kernel; a poll that would wait scans ahead instead. Blocks
 * 0 .. scanned - 1 are known; nothing reads past them.
 *
 * NaN or Inf (docs/protocol.md 5): found before any datagram left, the queued ones are
 * dropped and the call fails (ValueError, nothing sent, as the Python engine). Found later,
 * the worker cannot take back what it announced, so it makes the allreduce fail everywhere
 * instead: every round it starts from then on carries its fingerprint XOR POISON in its
 * DATA (the bad block's values as zeros, every later block as zero), and the first such
 * round to complete comes back flagged MISMATCH or with the poisoned fingerprint, which
 * fails every other worker with TENSOR (p4reduce/_worker.c) and this one with the
 * ValueError. The bad block is one of this worker's blocks that no round has reached (it was
 * past the scan), so such a round always comes.
 */
#include "_worker.h"

/* Blocks [from, to) into nonzero and exps; the flat index of the first NaN/Inf, or -1. */
static int64_t scan_range(RunObject *r, uint32_t from, uint32_t to) {
    const size_t start = (size_t)from * r->block_size;
    size_t end = (size_t)to * r->block_size;
    if (end > (size_t)r->length) {
        end = (size_t)r->length;
    }
    const char *src = (const char *)r->tensor.buf + 4 * start;
    uint8_t *nz = (uint8_t *)r->nonzero.buf + from, *ex = (uint8_t *)r->exps.buf + from;
    if (!r->is_float) {
        scan_i32(src, (Py_ssize_t)(end - start), r->block_size, nz, ex);
        return -1;
    }
    const Py_ssize_t bad = scan_f32(src, (Py_ssize_t)(end - start), r->block_size, nz, ex);
    return bad < 0 ? -1 : (int64_t)start + bad;
}

static void found_nonfinite(RunObject *r, int64_t index) {
    const uint32_t bad = (uint32_t)(index / r->block_size);
    uint8_t *nz = r->nonzero.buf, *ex = r->exps.buf;
    r->nonfinite = index;
    if (!r->sent_any) { /* nothing left yet: nothing will */
        for (int i = 0; i < r->nouts; i++) {
            r->outs[i].used = 0;
            r->outs[i].ndgrams = 0;
        }
        r->scanned = bad;
        r->err = ERR_NONFINITE;
        return;
    }
    r->poisoned = 1;
    nz[bad] = 1; /* still this worker's block: its round carries the poison */
    ex[bad] = EXP_BIAS;
    memset(nz + bad + 1, 0, r->nblocks - bad - 1);
    memset(ex + bad + 1, EXP_BIAS, r->nblocks - bad - 1);
    r->scanned = r->nblocks;
}

/* One chunk from r->scanned on. */
static void scan_chunk(RunObject *r) {
    uint64_t to = (uint64_t)r->scanned + r->scan_chunk;
    if (to > r->nblocks) {
        to = r->nblocks;
    }
    const int64_t bad = scan_range(r, r->scanned, (uint32_t)to);
    if (bad >= 0) {
        found_nonfinite(r, bad);
    } else {
        r->scanned = (uint32_t)to;
    }
}

void wk_scan_past(RunObject *r, uint64_t b) {
    if (b >= r->nblocks || b < r->scanned) {
        return;
    }
    /* What the started streams queued goes out before the scan reads on. */
    if (wk_flush_all(r) < 0) {
        return;
    }
    while (b >= r->scanned && r->err == ERR_NONE) {
        scan_chunk(r);
    }
}

int wk_scan_ahead(RunObject *r) {
    if (r->scanned >= r->nblocks || r->err != ERR_NONE) {
        return 0;
    }
    scan_chunk(r);
    return 1;
}
