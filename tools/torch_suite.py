# SPDX-License-Identifier: Apache-2.0
"""PyTorch's own distributed test suite on the "p4reduce" backend.

Drives torch's `torch/testing/_internal/distributed/distributed_test.py` (the class
`DistributedTest._DistTestBase`) the way torch's `test/distributed/test_distributed_spawn.py`
does for gloo, with BACKEND=p4reduce, and changes no upstream test:

    python3 tools/torch_suite.py                        # every test, at 2 and 3 ranks
    python3 tools/torch_suite.py --selection ci         # the selection CI runs
    python3 tools/torch_suite.py -k all_reduce -w 3     # tests whose name contains a substring
    python3 tools/torch_suite.py --write-expected       # record this run as the expected outcomes

Each test prints pass / fail / skip with its reason, then a summary. The expected outcomes
(tools/torch_suite_expected.txt) say, per test and world size, `pass`, `skip` (upstream
skips it here), `pending` (fails because the backend lacks the collective) or `fail`
(fails for another reason). The exit status is 1 when a test expected to `pass` does not.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import unittest
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPECTED = pathlib.Path(__file__).with_name("torch_suite_expected.txt")
WORKER_ENV = "P4REDUCE_TORCH_SUITE_WORKER"  # set in the worker and inherited by the ranks it spawns
SKIP_LOG_ENV = "P4REDUCE_TORCH_SUITE_SKIP_LOG"
START_METHOD_ENV = "P4REDUCE_TORCH_SUITE_START"
CLAIMS_ENV = "P4REDUCE_TORCH_SUITE_CLAIMS"
# What the backend implements, in the names of upstream's table: DDP, CPU and CUDA tensors,
# new_group subgroups. Upstream lists only nccl, gloo and ucc there, so without a claim their
# tests skip by backend name.
CLAIMS = "ddp,gpu,cuda,subgroup"
STATUSES = ("pass", "skip", "pending", "fail")

# A representative CI selection (about a minute at 2 ranks on 2 cores): every collective the
# backend carries, sync and async, groups, objects, complex tensors, and DDP on CPU.
CI_SELECTION = (
    "test_all_reduce_sum",
    "test_all_reduce_sum_async",
    "test_all_reduce_sum_complex",
    "test_all_reduce_full_group_sum",
    "test_all_reduce_complex_unsupported_ops",
    "test_broadcast",
    "test_broadcast_full_group",
    "test_all_gather",
    "test_all_gather_complex",
    "test_all_gather_object_subgroup",
    "test_barrier",
    "test_destroy_group",
    "test_get_rank_size_group",
    "test_DistributedDataParallelCPU",
    "test_DistributedDataParallelCPU_grad_is_view",
    "test_ddp_create_graph",
    "test_ddp_logging_data_cpu",
    "test_static_graph_api_cpu",
    # through the internal gloo group (p4reduce.torch.fallback)
    "test_reduce_sum",
    "test_gather",
    "test_scatter",
    "test_send_recv",
    "test_all_reduce_max",
)

# A test that fails on a collective the backend lacks (NotImplementedError) is `pending`,
# not hidden (none is, since the backend routes what the aggregator does not run to gloo).
NOT_IMPLEMENTED = re.compile(r"NotImplementedError")


# -- the worker: runs inside one process per world size, and is re-imported by every rank ----
if os.environ.get(WORKER_ENV):
    import torch

    # Upstream's own table of which backend implements what (DistTestCases.backend_feature) gates
    # tests by name at import: "plugin" marks an out-of-tree backend as available, and each
    # claimed feature (CLAIMS) lets its tests run instead of skipping. No test changes.
    from torch.testing._internal.common_distributed import DistTestCases

    import p4reduce.torch  # noqa: F401 - registers the "p4reduce" backend (in every spawned rank too)

    for _feature in ["plugin", *filter(None, os.environ.get(CLAIMS_ENV, "").split(","))]:
        DistTestCases.backend_feature[_feature].add("p4reduce")

    # Reads BACKEND, WORLD_SIZE and INIT_METHOD at import: the worker's environment sets them.
    from torch.testing._internal.distributed.distributed_test import DistributedTest, TestDistBackend

    torch.backends.cuda.matmul.allow_tf32 = False

    class TestDistBackendWithSpawn(TestDistBackend, DistributedTest._DistTestBase):  # type: ignore[misc]
        """Upstream's test_distributed_spawn.py class, as it defines it for gloo, nccl and ucc."""

        def setUp(self) -> None:
            super().setUp()
            if os.environ.get(START_METHOD_ENV) == "fork":
                # Ranks forked from this process start in milliseconds where spawned ones import
                # torch again (seconds each): upstream's former test_distributed_fork.py did this.
                self._start_processes(torch.multiprocessing.get_context("fork").Process)
            else:
                self._spawn_processes()
            torch.backends.cudnn.flags(enabled=True, allow_tf32=False).__enter__()

    if os.environ.get(SKIP_LOG_ENV):
        # A rank that skips a test logs why and exits with a generic code; keep the reason.
        _handler = logging.FileHandler(os.environ[SKIP_LOG_ENV])
        _handler.setLevel(logging.INFO)
        _handler.addFilter(lambda record: "skipping test" in record.getMessage())
        _log = logging.getLogger("torch.testing._internal.common_distributed")
        _log.addHandler(_handler)
        _log.setLevel(logging.INFO)


def all_test_names() -> list[str]:
    """Every test of upstream's class (the worker's environment must be set)."""
    return sorted(unittest.TestLoader().getTestCaseNames(TestDistBackendWithSpawn))


class _Recorder(unittest.TestResult):
    """Writes one JSON line per test as it ends, so that a run cut short keeps what it did."""

    def __init__(self, out: pathlib.Path, skip_log: pathlib.Path) -> None:
        super().__init__()
        self.out, self.skip_log = out, skip_log
        self.started = 0.0

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self.started = time.monotonic()
        self.skip_log.write_text("")
        print(f"  {test.id().rsplit('.', 1)[-1]} ...", file=sys.stderr, flush=True)

    def _record(self, test: unittest.TestCase, status: str, reason: str) -> None:
        name = test.id().rsplit(".", 1)[-1]
        if status == "skip" and "subprocess level" in reason:
            logged = re.findall(r"following reason: (.*)", self.skip_log.read_text())
            reason = logged[0] if logged else reason
        line = {"test": name, "status": status, "reason": reason, "seconds": time.monotonic() - self.started}
        with self.out.open("a") as f:
            f.write(json.dumps(line) + "\n")

    def addSuccess(self, test: unittest.TestCase) -> None:
        self._record(test, "pass", "")

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self._record(test, "skip", reason)

    def addFailure(self, test: unittest.TestCase, err: object) -> None:
        self._record(test, "fail", self._exc_info_to_string(err, test))  # type: ignore[arg-type]

    def addError(self, test: unittest.TestCase, err: object) -> None:
        self._record(test, "fail", self._exc_info_to_string(err, test))  # type: ignore[arg-type]

    def addExpectedFailure(self, test: unittest.TestCase, err: object) -> None:
        self._record(test, "pass", "an expected failure (upstream's @expectedFailure)")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        self._record(test, "fail", "upstream expects this test to fail and it passed")


def worker(args: argparse.Namespace) -> int:
    out = pathlib.Path(args.results)
    names = all_test_names()
    if args.tests:
        wanted = pathlib.Path(args.tests).read_text().split()
        names = [n for n in names if n in wanted]
    if args.list:
        out.write_text("\n".join(names) + "\n")
        return 0
    suite = unittest.TestSuite(TestDistBackendWithSpawn(name) for name in names)
    suite.run(_Recorder(out, pathlib.Path(os.environ[SKIP_LOG_ENV])))
    return 0


# -- the driver -------------------------------------------------------------------------------
@dataclass
class Outcome:
    test: str
    world_size: int
    status: str  # pass, skip, fail
    reason: str
    seconds: float

    @property
    def short_reason(self) -> str:
        """The last line of a traceback that names an exception, or the skip's message."""
        lines = [line.strip() for line in self.reason.splitlines() if line.strip()]
        for line in reversed(lines):
            if re.match(r"^[\w.]*(Error|Exception|Exit|Interrupt)\b", line):
                return line[:200]
        return (lines[-1] if lines else "")[:200]

    def actual(self) -> str:
        """The status as the expected list records it."""
        if self.status == "fail" and NOT_IMPLEMENTED.search(self.reason):
            return "pending"
        return self.status


def read_expected(path: pathlib.Path) -> dict[tuple[str, int], str]:
    expected: dict[tuple[str, int], str] = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            status, world_size, test = line.split()[:3]
            assert status in STATUSES, f"{path}: unknown status in {raw!r}"
            expected[(test, int(world_size))] = status
    return expected


def write_expected(path: pathlib.Path, outcomes: Iterable[Outcome]) -> None:
    lines = [
        "# PyTorch's distributed_test.py on the p4reduce backend: the outcome of each test, per world size,",
        "# written by `python3 tools/torch_suite.py --write-expected` (CPU, no GPU). tools/torch_suite.py",
        "# fails when a `pass` test does not pass. skip: upstream skips it here; pending: fails because",
        "# the backend lacks the collective (NotImplementedError); fail: fails for another reason.",
        "# status  world_size  test  # reason",
    ]
    for o in sorted(outcomes, key=lambda o: (o.test, o.world_size)):
        note = f"  # {o.short_reason}" if o.actual() != "pass" else ""
        lines.append(f"{o.actual():8s} {o.world_size}  {o.test}{note}")
    path.write_text("\n".join(lines) + "\n")


def run_world_size(
    world_size: int, tests: list[str] | None, timeout: float, test_timeout: int, start_method: str, claims: str
) -> list[Outcome]:
    """Runs the tests at one world size in a worker process; returns what it recorded."""
    with tempfile.TemporaryDirectory(prefix="p4reduce-torch-suite-") as tmp:
        results = pathlib.Path(tmp, "results.jsonl")
        results.touch()
        temp_dir = pathlib.Path(tmp, "temp")
        for sub in ("barrier", "test_dir", "init_dir"):
            (temp_dir / sub).mkdir(parents=True)
        env = dict(
            os.environ,
            **{
                WORKER_ENV: "1",
                START_METHOD_ENV: start_method,
                CLAIMS_ENV: claims,
                SKIP_LOG_ENV: str(pathlib.Path(tmp, "skips.log")),
                "BACKEND": "p4reduce",
                "WORLD_SIZE": str(world_size),
                # setUp points TEMP_DIR and INIT_METHOD at a fresh directory for each test; these
                # are what the module sees at import, as under upstream's run_test.py (file init).
                "TEMP_DIR": str(temp_dir),
                "INIT_METHOD": f"file://{temp_dir}/init_dir/shared_init_file",
                "DISTRIBUTED_TESTS_DEFAULT_TIMEOUT": str(test_timeout),
                "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            },
        )
        command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", "--results", str(results)]
        if tests is not None:
            listed = pathlib.Path(tmp, "tests.txt")
            listed.write_text("\n".join(tests) + "\n")
            command += ["--tests", str(listed)]
        proc = subprocess.Popen(command, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        stderr_tail: list[str] = []
        started = time.monotonic()
        assert proc.stderr is not None
        seen = 0
        for line in proc.stderr:  # progress and the ranks' own output
            stderr_tail = (stderr_tail + [line])[-60:]
            done = results.read_text().split("\n")[:-1]  # whole lines only: the worker may be mid-write
            for record in done[seen:]:
                print_outcome(Outcome(world_size=world_size, **json.loads(record)))
            seen = len(done)
            if time.monotonic() - started > timeout:
                proc.kill()
                break
        proc.wait()
        outcomes = [Outcome(world_size=world_size, **json.loads(r)) for r in results.read_text().splitlines()]
        for o in outcomes[seen:]:
            print_outcome(o)
        if proc.returncode != 0 or time.monotonic() - started > timeout:
            ran = {o.test for o in outcomes}
            missing = [t for t in (tests or []) if t not in ran]
            why = f"the worker ended with status {proc.returncode} after {time.monotonic() - started:.0f} s"
            print(f"world size {world_size}: {why}; its last output:\n{''.join(stderr_tail)}", file=sys.stderr)
            outcomes += [Outcome(t, world_size, "fail", why, 0.0) for t in missing]
        return outcomes


def print_outcome(o: Outcome) -> None:
    reason = f"  ({o.short_reason})" if o.status != "pass" else ""
    print(f"{o.status.upper():4s} w{o.world_size} {o.test} [{o.seconds:.1f} s]{reason}", flush=True)


def list_tests() -> list[str]:
    """Every upstream test name (a world size's worker lists them)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp, "names.txt")
        env = dict(os.environ, **{WORKER_ENV: "1", "BACKEND": "p4reduce", "WORLD_SIZE": "2", "TEMP_DIR": tmp})
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", "--list", "--results", str(out)]
        subprocess.run(command, env=env, cwd=tmp, check=True, timeout=300)
        return out.read_text().split()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-w", "--world-size", type=int, action="append", help="2 and 3 unless given (repeatable)")
    parser.add_argument("--selection", choices=("all", "ci"), default="all")
    parser.add_argument("-k", dest="substring", help="only tests whose name contains this")
    parser.add_argument("--expected", type=pathlib.Path, default=EXPECTED)
    parser.add_argument("--write-expected", action="store_true", help="record this run's outcomes as expected")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds for one world size's run")
    parser.add_argument("--test-timeout", type=int, default=300, help="seconds for one test (upstream: 300)")
    parser.add_argument(
        "--start-method",
        choices=("spawn", "fork"),
        default="fork",
        help="how the ranks start: fork (seconds less per test) or spawn (as upstream's test_distributed_spawn.py)",
    )
    parser.add_argument(
        "--claim",
        default=CLAIMS,
        help=f"features of upstream's DistTestCases.backend_feature the backend claims (default {CLAIMS}; '' for none)",
    )
    parser.add_argument("--json", type=pathlib.Path, help="write every outcome here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)
    parser.add_argument("--tests", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)

    world_sizes = args.world_size or [2, 3]
    tests: list[str] | None = list(CI_SELECTION) if args.selection == "ci" else None
    if args.substring:
        tests = [t for t in (tests or list_tests()) if args.substring in t]
    outcomes: list[Outcome] = []
    for world_size in world_sizes:
        print(f"== world size {world_size} ==", flush=True)
        outcomes += run_world_size(world_size, tests, args.timeout, args.test_timeout, args.start_method, args.claim)
    if args.json:
        args.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    if args.write_expected:
        write_expected(args.expected, outcomes)
    return report(outcomes, read_expected(args.expected) if args.expected.exists() else {})


def report(outcomes: list[Outcome], expected: dict[tuple[str, int], str]) -> int:
    """Prints the summary; 1 when a test expected to pass did not."""
    regressions = [o for o in outcomes if expected.get((o.test, o.world_size)) == "pass" and o.status != "pass"]
    improved = [
        o for o in outcomes if expected.get((o.test, o.world_size)) in ("pending", "fail") and o.status == "pass"
    ]
    for world_size in sorted({o.world_size for o in outcomes}):
        counts = Counter(o.actual() for o in outcomes if o.world_size == world_size)
        print(f"world size {world_size}: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES))
    for o in improved:
        print(f"now passes (update {EXPECTED.name}): w{o.world_size} {o.test}")
    for o in regressions:
        print(f"REGRESSION: w{o.world_size} {o.test} was expected to pass: {o.status}\n{o.reason}")
    unlisted = [o for o in outcomes if (o.test, o.world_size) not in expected]
    if expected and unlisted:
        print(f"{len(unlisted)} outcome(s) not in the expected list (a newer torch?): rerun with --write-expected")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
