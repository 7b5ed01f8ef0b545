# SPDX-License-Identifier: Apache-2.0
"""Run a function on N local ranks (spawned processes) and collect what each returns.

Used by the examples, tests and benchmarks of the backend:

    results = run_ranks(train, 2, args=("p4reduce",))   # train(rank, world_size, "p4reduce")

Each rank gets MASTER_ADDR=127.0.0.1 and a free MASTER_PORT (plus `env`), so the
function only has to call ``dist.init_process_group(backend, rank=rank, world_size=n)``.
A rank that raises makes run_ranks raise with that rank's traceback.
"""

from __future__ import annotations

import os
import queue as queue_module
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from p4reduce.testbed.ports import free_port


def rank_device(rank: int, kind: str) -> Any:
    """Rank `rank`'s torch device for `kind` "cpu" or "cuda": the CPU, or a GPU (ranks share
    the GPUs round robin), made the rank's current CUDA device."""
    import torch

    if kind == "cpu":
        return torch.device("cpu")
    device = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    return device


class RankFailed(RuntimeError):
    """A rank raised or died; the message carries its traceback or exit code."""


def _child(
    fn: Callable[..., Any],
    rank: int,
    world_size: int,
    port: int,
    env: Mapping[str, str],
    results: Any,
    args: Sequence[Any],
) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), **env)
    try:
        import torch

        torch.set_num_threads(1)  # N ranks share this machine's cores
        results.put((rank, True, fn(rank, world_size, *args)))
    except BaseException:  # noqa: BLE001 - reported to the parent
        results.put((rank, False, traceback.format_exc()))


def run_ranks(
    fn: Callable[..., Any],
    world_size: int,
    args: Sequence[Any] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 600.0,
) -> list[Any]:
    """fn(rank, world_size, *args) on `world_size` spawned processes; their results by rank."""
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [
        ctx.Process(target=_child, args=(fn, r, world_size, port, dict(env or {}), results, tuple(args)), daemon=True)
        for r in range(world_size)
    ]
    for p in procs:
        p.start()
    got: dict[int, Any] = {}
    failures: list[str] = []
    dead: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while len(got) + len(failures) < world_size:  # one entry per rank
            try:
                rank, ok, value = results.get(timeout=0.5)
            except queue_module.Empty:
                if time.monotonic() > deadline:
                    break
                for r, p in enumerate(procs):  # died without reporting (killed, crashed in C++)
                    if p.exitcode not in (None, 0) and r not in got and r not in dead:
                        dead.add(r)
                        failures.append(f"rank {r} exited with code {p.exitcode}")
                        deadline = min(deadline, time.monotonic() + 5)
                continue
            if ok:
                got[rank] = value
            else:
                failures.append(f"rank {rank}:\n{value}")
                # The others may be stuck in a collective waiting for it: give them a little
                # while to report their own error, which usually says more.
                deadline = min(deadline, time.monotonic() + 10)
        missing = sorted(set(range(world_size)) - set(got))
        if failures or missing:
            reported = "\n".join(failures)
            raise RankFailed(
                f"ranks {missing} did not finish" + (f":\n{reported}" if reported else f" within {timeout:g} s")
            )
    finally:
        for p in procs:
            p.join(timeout=1 if failures else 30)
            if p.is_alive():
                p.kill()
                p.join()
    return [got[r] for r in range(world_size)]
