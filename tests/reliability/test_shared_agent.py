# SPDX-License-Identifier: Apache-2.0
"""One HostAgent shared by threads (issue 19, point 4): calls are serialized, each sees
a whole allreduce, and the sums pair up with the other worker's calls in call order."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig


@pytest.mark.parametrize("engine", ["native", "python"])
def test_two_threads_sharing_an_agent_get_whole_allreduces(engine):
    calls = 6
    length = 64 * 16  # many blocks and streams: unserialized calls would interleave rounds
    mine = [np.full(length, 1 + i, np.int32) for i in range(calls)]  # thread-shared agent's tensors
    theirs = [np.full(length, 1000 * (i + 1), np.int32) for i in range(calls)]
    with AggregatorServer([JobSpec(1, 2, num_slots=8, block_size=16)], port=0) as srv:
        cfg = dict(aggregator=srv.address, num_slots=8, block_size=16, engine=engine, failure_timeout=5.0)
        shared, other = HostAgent(WorkerConfig(1, 0, 2, **cfg)), HostAgent(WorkerConfig(1, 1, 2, **cfg))
        got: dict[int, np.ndarray] = {}
        errors: list[BaseException] = []

        def worker(indices: range) -> None:
            try:
                for i in indices:
                    got[i] = shared.allreduce(mine[i])
            except BaseException as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(range(k, calls, 2),)) for k in (0, 1)]
        for t in threads:
            t.start()
        other_results = [other.allreduce(t) for t in theirs]  # in call order
        for t in threads:
            t.join(60)
        shared.close()
        other.close()
    assert not errors, errors
    # The k-th call on the shared agent (whichever thread made it) met the other worker's k-th.
    used = []
    for i, out in got.items():
        assert len(set(out.tolist())) == 1, "a sum mixed two allreduces"
        k = (int(out[0]) - (1 + i)) // 1000 - 1
        assert 0 <= k < calls and np.array_equal(out, mine[i] + theirs[k])
        np.testing.assert_array_equal(other_results[k], out)
        used.append(k)
    assert sorted(used) == list(range(calls))
