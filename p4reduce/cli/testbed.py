# SPDX-License-Identifier: Apache-2.0
"""`p4reduce testbed bmv2`: the BMv2 switch, its worker hosts and one job, in one command.

Builds a network namespace per worker with a veth pair to a BMv2 port (10.0.0.<port>,
MAC 02:00:00:00:00:<port>, a static ARP entry for the switch's aggregation address),
starts simple_switch_grpc with the packaged program, installs the job through the
controller library, runs `p4reduce worker` in each namespace, checks every result
against numpy and prints the switch's counters. Everything it made is removed when
it ends: after success, an error, Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

from p4reduce.cli import args as a

MAX_TESTBED_WORKERS = 32  # veths and BMv2 ports on one machine; 10.0.0.1..32
TAG = re.compile(r"[a-z0-9]{1,8}")
JOB_ID = 1
T = TypeVar("T")


def _tag(text: str) -> str:
    if not TAG.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: 1 to 8 lower-case letters or digits")
    return text


def add_testbed_parser(sub: argparse._SubParsersAction[a.Parser]) -> None:
    tb = sub.add_parser(
        "testbed",
        help="build a switch and its worker hosts on this machine and run a job through it (root)",
        description="Build a test network on this machine, run one job through it, check the results "
        "and remove everything again.",
    )
    kinds = tb.add_subparsers(dest="action", required=True, metavar="SWITCH")
    p = kinds.add_parser(
        "bmv2",
        help="BMv2 (simple_switch_grpc) with N workers in network namespaces",
        description=__doc__.split("\n\n", 1)[1].replace("\n", " ").strip(),
    )
    p.add_argument(
        "--workers",
        type=a.int_range(1, MAX_TESTBED_WORKERS),
        default=2,
        metavar="N",
        help="workers, one namespace and BMv2 port each (default: %(default)s)",
    )
    a.add_tensor_options(p, "each worker's synthetic tensor", elements=10_000, max_elements=1 << 24, density=0.3)
    p.add_argument(
        "--iterations",
        type=a.int_range(1),
        default=2,
        metavar="N",
        help="allreduces each worker runs (default: %(default)s)",
    )
    p.add_argument(
        "--slots",
        type=a.int_range(1, 64),
        default=8,
        metavar="N",
        help="the job's switch slots, streams in flight (default: %(default)s)",
    )
    p.add_argument(
        "--time-limit",
        type=a.float_range(1.0),
        default=600.0,
        metavar="SECONDS",
        help="give the run up (exit 1) when the workers have not finished by then (default: %(default)s)",
    )
    p.add_argument(
        "--tag",
        type=_tag,
        default=None,
        metavar="TAG",
        help="suffix of every namespace and interface name made (1-8 of a-z0-9; default: random)",
    )
    p.add_argument(
        "--log-dir",
        metavar="DIR",
        default=None,
        help="keep BMv2's log and each worker's output in DIR (default: a temporary folder, removed)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=_cmd_bmv2)


def _progress(text: str) -> None:
    print(f"testbed: {text}", file=sys.stderr, flush=True)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _run_cleaning_up(run: Callable[[contextlib.ExitStack], T]) -> T:
    """run(stack), then stack's cleanup, whatever happened: SIGTERM raises KeyboardInterrupt
    as SIGINT does, and while the cleanup runs both are ignored (a second Ctrl-C must not
    leave half of it undone)."""
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, _interrupted) for s in signals}
    stack = contextlib.ExitStack()
    try:
        return run(stack)
    finally:
        for s in signals:
            signal.signal(s, signal.SIG_IGN)
        try:
            stack.close()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _cmd_bmv2(args: argparse.Namespace) -> int:
    from p4reduce.testbed.netns import missing_requirements

    try:
        from p4reduce.testbed.veth import veth_switch_missing
    except ImportError as exc:
        raise ImportError(
            f"the controller extra is not installed ({exc}): pip install 'p4reduce[controller]'"
        ) from None
    reason = veth_switch_missing() or missing_requirements()
    if reason is not None:
        raise RuntimeError(f"{reason} (building BMv2: docs/switch.md)" if "simple_switch" in reason else reason)
    summary = _run_cleaning_up(lambda stack: _run_bmv2(args, stack))
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{args.workers} workers, {args.iterations} allreduce(s) of {args.elements} {args.dtype} elements "
            f"through BMv2: every result matches numpy (max |error| {summary['max_error']:.3g})"
        )
        print("switch counters (non-zero):")
        counters: dict[str, int] = summary["counters"]  # type: ignore[assignment]
        for name, value in counters.items():
            if value:
                print(f"  {name:<24} {value}")
    return 0


def _run_bmv2(args: argparse.Namespace, stack: contextlib.ExitStack) -> dict[str, object]:
    import numpy as np

    from p4reduce.testbed.bmv2 import Pipeline
    from p4reduce.testbed.check import check_results
    from p4reduce.testbed.synthetic import worker_tensor
    from p4reduce.testbed.veth import VethSwitch, job_config, make_workers, worker_command, worker_namespaces

    tag = args.tag or uuid.uuid4().hex[:5]
    if args.log_dir is not None:
        work = pathlib.Path(args.log_dir)
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix=f"p4reduce-testbed-{tag}-"))
        stack.callback(shutil.rmtree, work, ignore_errors=True)
    stack.callback(_progress, f"removed the namespaces, veths and BMv2 of tag {tag}")  # runs last
    switch = VethSwitch(num_ports=args.workers, tag=tag)
    stack.callback(switch.stop)
    switch.start(Pipeline.installed(), log_dir=work if args.log_dir is not None else None)
    assert switch.process is not None
    workers = make_workers(switch, args.workers)
    namespaces = stack.enter_context(worker_namespaces(workers, f"p4r-tb-{tag}"))
    stack.callback(switch.stop)  # first: BMv2 lets go of the veths before their namespaces go
    _progress(
        f"BMv2 on ports 1..{args.workers} (P4Runtime {switch.process.grpc_addr}, thrift "
        f"{switch.thrift_port}); workers' namespaces {', '.join(namespaces)}"
    )
    switch.install({"jobs": [job_config(JOB_ID, workers, slot_base=0, num_slots=args.slots)]})
    _progress(f"job {JOB_ID} installed: {args.workers} workers, slots 0..{args.slots - 1}")
    procs: list[subprocess.Popen[bytes]] = []
    for w, ns in zip(workers, namespaces, strict=True):
        argv = worker_command(
            w,
            ns,
            len(workers),
            *("--elements", str(args.elements), "--density", str(args.density), "--dtype", args.dtype),
            *("--seed", str(args.seed), "--iterations", str(args.iterations)),
            *("--output", str(work / f"result-{w.worker_id}.npy")),
            job_id=JOB_ID,
            num_slots=args.slots,
        )
        out = stack.enter_context(open(work / f"worker-{w.worker_id}.out", "wb"))
        # A session of their own: a Ctrl-C at the terminal reaches this process, which stops them.
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        stack.callback(_stop, proc)
        procs.append(proc)
    _progress(f"{len(procs)} workers running ({args.iterations} allreduce(s) each)")
    deadline = time.monotonic() + args.time_limit
    for w, proc in zip(workers, procs, strict=True):
        try:
            rc = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the workers did not finish within --time-limit {args.time_limit:g} s") from None
        if rc != 0:
            lines = (work / f"worker-{w.worker_id}.out").read_text(errors="replace").strip().splitlines()
            raise RuntimeError(f"worker {w.worker_id} failed (exit {rc}): {lines[-1] if lines else 'no output'}")
    inputs = [worker_tensor(args.seed, w.worker_id, args.elements, 32, args.density, args.dtype) for w in workers]
    results = [np.load(work / f"result-{w.worker_id}.npy") for w in workers]
    max_error = check_results(inputs, results, 32)
    seconds = []
    for w in workers:  # each worker prints one JSON line per allreduce
        lines = (work / f"worker-{w.worker_id}.out").read_text(errors="replace").splitlines()
        stats = [json.loads(line) for line in lines if line.startswith('{"iteration"')]
        seconds.append(stats[-1]["seconds"] if stats else None)
    counters = switch.counters()
    return {
        "workers": args.workers,
        "elements": args.elements,
        "dtype": args.dtype,
        "iterations": args.iterations,
        "max_error": max_error,
        "last_seconds": seconds,
        "counters": counters,
        "namespaces": namespaces,
    }
