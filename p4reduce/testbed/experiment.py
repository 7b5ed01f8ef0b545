# SPDX-License-Identifier: Apache-2.0
"""Real processes in network namespaces: one software aggregator host, N worker hosts."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from p4reduce.protocol import AGG_UDP_PORT
from p4reduce.testbed.check import WrongResult, check_results
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.netns import Testbed
from p4reduce.testbed.synthetic import worker_tensor


@dataclass(frozen=True)
class NetnsRun:
    workers: int = 3
    elements: int = 20_000
    density: float = 0.1
    dtype: str = "int32"
    mode: str = "sparse"
    block_size: int = 64
    slots: int = 32
    iterations: int = 3
    seed: int = 0
    timeout: float = 0.02  # min retransmission timeout of the workers
    message_size: int = 1472  # datagrams fit the veth links' 1500-byte MTU
    transport: str = "udp"  # the workers' (WorkerConfig.transport)
    # Per rank, a tensor length other than `elements` (a mismatch the job must fail on).
    elements_by_rank: tuple[tuple[int, int], ...] = ()


@dataclass
class NetnsResult:
    exact: bool  # int32: equal to numpy; float32: within the documented bound and identical bits
    seconds: list[float]  # per iteration, max over workers
    retransmissions: int
    queries: int
    mechanism: str
    aggregator: dict[str, int]


def run(cfg: NetnsRun, impairment: Impairment | None = None, time_limit: float = 120.0) -> NetnsResult:
    py = sys.executable
    with Testbed(cfg.workers + 1) as tb, tempfile.TemporaryDirectory() as tmp:
        agg_host, worker_hosts = tb.hosts[0], tb.hosts[1:]
        mechanism = "none"
        if cfg.transport != "udp":
            # What a NIC does on a real link: the aggregator's UDP GSO buffers leave as frames of
            # the MTU. A veth would carry them whole, larger than the workers' ring frames.
            tb.wire_segmentation(agg_host)
        if impairment is not None:
            for h in worker_hosts:
                # AF_XDP frames skip the worker's own egress hooks: impaired on their way to the aggregator.
                upstream = agg_host if cfg.transport == "xdp" else None
                mechanism = tb.impair(h, impairment, qdisc_bypass=cfg.transport != "udp", upstream=upstream)
        job = (
            f"1:{cfg.workers}:mode={cfg.mode},block_size={cfg.block_size},num_slots={cfg.slots},"
            f"message_size={cfg.message_size}"
        )
        agg = tb.popen(
            agg_host,
            [py, "-m", "p4reduce", "aggregator", "--bind", f"{agg_host.ip}:{AGG_UDP_PORT}", "--job", job],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs: list[subprocess.Popen[str]] = []
        try:
            assert agg.stdout is not None  # stdout=PIPE
            agg.stdout.readline()  # banner: the socket is bound
            for rank, h in enumerate(worker_hosts):
                argv = [
                    py,
                    "-m",
                    "p4reduce",
                    "worker",
                    "--aggregator",
                    f"{agg_host.ip}:{AGG_UDP_PORT}",
                    "--job",
                    "1",
                    "--rank",
                    str(rank),
                    "--workers",
                    str(cfg.workers),
                    "--mode",
                    cfg.mode,
                    "--block-size",
                    str(cfg.block_size),
                    "--slots",
                    str(cfg.slots),
                    "--elements",
                    str(dict(cfg.elements_by_rank).get(rank, cfg.elements)),
                    "--density",
                    str(cfg.density),
                    "--dtype",
                    cfg.dtype,
                    "--seed",
                    str(cfg.seed),
                    "--iterations",
                    str(cfg.iterations),
                    "--timeout",
                    str(cfg.timeout),
                    "--message-size",
                    str(cfg.message_size),
                    "--transport",
                    cfg.transport,
                    "--output",
                    f"{tmp}/r{rank}.npy",
                ]
                procs.append(tb.popen(h, argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            deadline = time.monotonic() + time_limit
            reports = []
            for rank, p in enumerate(procs):
                out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
                if p.returncode:
                    raise RuntimeError(f"worker {rank} failed: {err.strip()[-500:]}")
                reports.append([json.loads(line) for line in out.splitlines() if line.startswith("{")])
        finally:
            for p in procs:  # none left behind when one failed
                if p.poll() is None:
                    p.kill()
                    p.wait()
            agg.terminate()
            agg_out, _ = agg.communicate(timeout=10)
        lines = [line for line in agg_out.splitlines() if line.startswith("{")]
        counters = json.loads(lines[-1]) if lines else {}
        results = [np.load(Path(tmp) / f"r{r}.npy") for r in range(cfg.workers)]
    inputs = [
        worker_tensor(cfg.seed, r, cfg.elements, cfg.block_size, cfg.density, cfg.dtype) for r in range(cfg.workers)
    ]
    try:
        check_results(inputs, results, cfg.block_size)
        exact = True
    except WrongResult:
        exact = False
    return NetnsResult(
        exact=exact,
        seconds=[max(rep[i]["seconds"] for rep in reports) for i in range(cfg.iterations)],
        retransmissions=sum(it["retransmissions"] for rep in reports for it in rep),
        queries=sum(it["queries"] for rep in reports for it in rep),
        mechanism=mechanism,
        aggregator=counters,
    )
