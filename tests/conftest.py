from __future__ import annotations

import json
import pathlib
import threading
from typing import Callable, Sequence

import numpy as np
import pytest

from p4reduce.aggregator import AggregatorEngine, AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import AggHeader, MsgType
from p4reduce.testbed.synthetic import block_sparse  # noqa: F401  (re-exported for tests)

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN_PATH = ROOT / "docs" / "golden_packets.json"
# What a retransmitted packet or a query for an open round is counted as.
RETRANSMISSION_DROPS = {"drop_duplicate", "drop_pending", "drop_stale"}


SESSION = 0x5E551015  # what joined_engine() hands every worker


def join_packet(spec: JobSpec, worker: int, incarnation: int = 1) -> bytes:
    """The JOIN a worker of `spec` sends (docs/protocol.md section 6.1)."""
    return AggHeader(MsgType.JOIN, spec.job_id, worker, spec.slot_base, 0, incarnation, spec.block_size,
                     spec.num_slots, spec.mode.code, spec.num_workers).pack()


def joined_engine(jobs: Sequence[JobSpec]) -> AggregatorEngine:
    """An engine whose every worker has joined (from nowhere in particular) with SESSION."""
    engine = AggregatorEngine(jobs, new_session=lambda job, worker: SESSION)
    for spec in jobs:
        for w in range(spec.num_workers):
            assert engine.handle(join_packet(spec, w)).event == "joined"
    return engine


@pytest.fixture(scope="session")
def golden() -> dict:
    return json.loads(GOLDEN_PATH.read_text())


def run_workers(fn: Callable[[int], object], n: int, timeout: float = 60.0) -> list:
    """Run fn(rank) in n threads; re-raise the first failure."""
    results: list = [None] * n
    errors: list[BaseException] = []

    def target(rank: int) -> None:
        try:
            results[rank] = fn(rank)
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(r,), daemon=True) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    if any(t.is_alive() for t in threads):
        raise TimeoutError("workers did not finish")
    if errors:
        raise errors[0]
    return results


def allreduce_all(arrays: Sequence[np.ndarray], *, mode: str = "sparse", block_size: int = 16,
                  num_slots: int = 8, repeat: int = 1, server: AggregatorServer | None = None,
                  job_id: int = 1, **cfg: object) -> tuple[list[np.ndarray], list[HostAgent], dict]:
    """Allreduce `arrays` (one per worker) through a software aggregator on loopback."""
    n = len(arrays)
    own = server is None
    if own:
        server = AggregatorServer([JobSpec(job_id, n, mode=mode, num_slots=num_slots,
                                           block_size=block_size)], port=0).start()
    agents = [HostAgent(WorkerConfig(job_id, r, n, aggregator=server.address, mode=mode,
                                     num_slots=num_slots, block_size=block_size, **cfg))
              for r in range(n)]
    try:
        def work(rank: int) -> np.ndarray:
            out = None
            for _ in range(repeat):
                out = agents[rank].allreduce(arrays[rank])
            return out
        results = run_workers(work, n)
        return results, agents, server.counters()
    finally:
        for a in agents:
            a.close()
        if own:
            server.stop()
