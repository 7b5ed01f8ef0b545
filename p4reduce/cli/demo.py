# SPDX-License-Identifier: Apache-2.0
"""`p4reduce demo`: a software aggregator plus N worker processes on this machine."""

from __future__ import annotations

import multiprocessing as mp
import os
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

from p4reduce.aggregator import AggregatorServer, JobSpec
from p4reduce.hostagent import HostAgent, WorkerConfig
from p4reduce.protocol import Mode
from p4reduce.protocol.auth import JobKey
from p4reduce.testbed.check import check_results
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.lossy_relay import LossyRelay
from p4reduce.testbed.synthetic import worker_tensor


@dataclass(frozen=True)
class DemoConfig:
    workers: int = 4
    elements: int = 1_000_000
    density: float = 0.1
    block_size: int = 256
    slots: int = 256
    mode: Mode = Mode.SPARSE
    dtype: str = "float32"
    iterations: int = 3
    seed: int = 0
    loss: float = 0.0
    start_method: str = "fork"  # "spawn" when the parent has started threads (e.g. torch)
    multicast: bool = False  # results to an IP multicast group (loopback) instead of per worker
    key: JobKey | None = None  # an authenticated job (docs/protocol.md 6.3): every packet has a MAC
    spin_us: int = 0  # workers poll without sleeping this long before they block (WorkerConfig.spin_us)


def demo_group(cfg: DemoConfig) -> tuple[str, int] | None:
    """A multicast group private to this process's demo (port derived from the pid)."""
    return ("239.77.0.1", 40000 + os.getpid() % 20000) if cfg.multicast else None


def _worker_main(
    cfg: DemoConfig,
    rank: int,
    aggregator: tuple[str, int],
    queue: mp.Queue[tuple[Any, ...]],
    group: tuple[str, int] | None = None,
) -> None:
    try:
        tensor = worker_tensor(cfg.seed, rank, cfg.elements, cfg.block_size, cfg.density, cfg.dtype)
        wcfg = WorkerConfig(
            1,
            rank,
            cfg.workers,
            aggregator=aggregator,
            mode=cfg.mode,
            num_slots=cfg.slots,
            block_size=cfg.block_size,
            group=group,
            key=cfg.key,
            spin_us=cfg.spin_us,
        )
        times, stats, result = [], [], None
        with HostAgent(wcfg) as agent:
            # Warm-up: one tiny allreduce lines the workers up, so process
            # start-up skew does not show as timeouts in the measured runs.
            barrier = np.ones(1, dtype=tensor.dtype)
            agent.allreduce(barrier)
            for _ in range(cfg.iterations):
                # Timed like the gloo baseline: on a fresh copy, reduced in
                # place, all workers lined up by a one-element allreduce first.
                work = tensor.copy()
                agent.allreduce(barrier)
                result = agent.allreduce(work, out=work)
                times.append(agent.last_stats.seconds)
                stats.append(agent.last_stats)
        queue.put((rank, None, result, times, stats))
    except BaseException as exc:  # noqa: BLE001 - reported by the parent
        queue.put((rank, f"{type(exc).__name__}: {exc}", None, [], []))


def run_demo(cfg: DemoConfig) -> dict[str, Any]:
    """Runs the demo; returns a summary dict and raises WrongResult if any result is wrong."""
    group = demo_group(cfg)
    if group is not None and cfg.loss:
        raise ValueError("--multicast and --loss cannot be combined (the relay only sees unicast)")
    job = JobSpec(
        1, cfg.workers, mode=cfg.mode, num_slots=cfg.slots, block_size=cfg.block_size, group=group, key=cfg.key
    )
    ctx: Any = mp.get_context(cfg.start_method)  # the stubs' BaseContext has no Process
    with AggregatorServer([job], port=0) as server:
        relay = LossyRelay(server.address, Impairment(loss=cfg.loss), seed=cfg.seed) if cfg.loss else None
        target = server.address
        if relay is not None:
            relay.__enter__()
            target = relay.address
        try:
            queue: mp.Queue[tuple[Any, ...]] = ctx.Queue()
            procs = [
                ctx.Process(target=_worker_main, args=(cfg, r, target, queue, group), daemon=True)
                for r in range(cfg.workers)
            ]
            for p in procs:
                p.start()
            reports = [queue.get(timeout=600) for _ in procs]
            for p in procs:
                p.join(timeout=10)
        finally:
            if relay is not None:
                relay.__exit__(None, None, None)
        counters = server.counters()
        aggregator_cpu = server.cpu_seconds()
    failures = [f"worker {r}: {err}" for r, err, *_ in reports if err]
    if failures:
        raise RuntimeError("; ".join(failures))
    reports.sort(key=lambda rep: rep[0])
    inputs = [
        worker_tensor(cfg.seed, r, cfg.elements, cfg.block_size, cfg.density, cfg.dtype) for r in range(cfg.workers)
    ]
    max_err = check_results(inputs, [rep[2] for rep in reports], cfg.block_size)
    last = [rep[4][-1] for rep in reports]
    # An allreduce is done when its slowest worker has the result.
    per_iteration = [max(rep[3][i] for rep in reports) for i in range(cfg.iterations)]
    dense_bytes = cfg.elements * 4
    return {
        "workers": cfg.workers,
        "elements": cfg.elements,
        "dtype": cfg.dtype,
        "mode": cfg.mode.value,
        "block_size": cfg.block_size,
        "authenticated": cfg.key is not None,
        "block_density": statistics.mean(s.density for s in last),
        "median_seconds": statistics.median(per_iteration),
        "wire_bytes_per_worker": statistics.mean(s.wire_bytes_sent for s in last),
        "dense_payload_bytes": dense_bytes,
        "packets_per_worker": statistics.mean(s.packets_sent for s in last),
        "retransmissions": sum(s.retransmissions + s.queries for rep in reports for s in rep[4]),
        "max_abs_error": max_err,
        "aggregator": counters,
        # CPU per allreduce: each worker's median (its process, its call), summed; the
        # aggregator's whole run over the timed allreduces (JOINs, warm-up and the
        # one-element barriers included: an upper bound)
        "worker_cpu_seconds": sum(statistics.median(s.cpu_seconds for s in rep[4]) for rep in reports),
        "aggregator_cpu_seconds": aggregator_cpu / cfg.iterations,
    }


def format_summary(s: dict[str, Any]) -> str:
    agg = s["aggregator"]
    assert isinstance(agg, dict)
    drops = {k: v for k, v in agg.items() if k.startswith("drop_")}
    lines = [
        f"p4reduce demo: {s['workers']} workers, {s['elements']:,} {s['dtype']} elements, "
        f"mode={s['mode']}, block={s['block_size']}" + (", authenticated" if s.get("authenticated") else ""),
        f"  result check      : OK (max |error| {s['max_abs_error']:.3g} vs numpy float64 sum)",
        f"  block density     : {s['block_density']:.2%}",
        f"  allreduce time    : {s['median_seconds'] * 1e3:.1f} ms (median)",
        f"  bytes on wire     : {s['wire_bytes_per_worker']:,.0f} per worker "
        f"(the dense tensor is {s['dense_payload_bytes']:,} bytes)",
        f"  packets           : {s['packets_per_worker']:,.0f} per worker, "
        f"{s['retransmissions']} retransmissions/queries",
        f"  aggregator        : {agg.get('packets_in', 0):,} in, {agg.get('packets_out', 0):,} out, "
        f"drops {drops or 'none'}",
    ]
    return "\n".join(lines)
