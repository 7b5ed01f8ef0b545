# SPDX-License-Identifier: Apache-2.0
"""Recycling of result buffers in the software aggregator."""

import numpy as np
from conftest import allreduce_all, block_sparse

from p4reduce.aggregator.buffers import BufferPool


def test_retired_buffers_are_reused_only_after_a_flush():
    pool = BufferPool()
    a, b = pool.take(100), pool.take(100)
    pool.retire([a, b])
    early = pool.take(100)
    assert early is not a and early is not b  # they may still be queued for sending
    pool.flushed()
    reused = [pool.take(100), pool.take(100)]
    assert {id(r) for r in reused} == {id(a), id(b)}
    fresh = pool.take(100)  # the pool is empty again
    assert fresh is not a and fresh is not b


def test_buffers_are_matched_by_size_and_the_pool_is_bounded():
    pool = BufferPool(limit_bytes=250)
    bufs = [bytearray(100) for _ in range(3)]
    small = bytearray(22)
    pool.retire([small] + bufs)
    pool.flushed()
    assert pool.take(22) is small
    kept = [pool.take(100) for _ in range(3)]
    # 22 + 3 x 100 bytes exceed the limit: only the first two 100-byte buffers were kept.
    assert sum(any(k is b for b in bufs) for k in kept) == 2


def test_recycled_buffers_give_exact_results_over_many_allreduces():
    rng = np.random.default_rng(5)
    arrays = [block_sparse(rng, 4000, 64, 0.3, np.int32) for _ in range(3)]
    results, _, _ = allreduce_all(arrays, block_size=64, num_slots=4, repeat=6)
    for r in results:
        np.testing.assert_array_equal(r, np.sum(arrays, axis=0))
