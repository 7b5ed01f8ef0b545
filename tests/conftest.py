# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

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
    return AggHeader(
        MsgType.JOIN,
        spec.job_id,
        worker,
        spec.slot_base,
        0,
        incarnation,
        spec.block_size,
        spec.num_slots,
        spec.mode.code,
        spec.num_workers,
    ).pack()


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


def allreduce_all(
    arrays: Sequence[np.ndarray],
    *,
    mode: str = "sparse",
    block_size: int = 16,
    num_slots: int = 8,
    repeat: int = 1,
    server: AggregatorServer | None = None,
    job_id: int = 1,
    **cfg: object,
) -> tuple[list[np.ndarray], list[HostAgent], dict]:
    """Allreduce `arrays` (one per worker) through a software aggregator on loopback."""
    n = len(arrays)
    own = server is None
    if own:
        server = AggregatorServer(
            [JobSpec(job_id, n, mode=mode, num_slots=num_slots, block_size=block_size)], port=0
        ).start()
    agents = [
        HostAgent(
            WorkerConfig(
                job_id, r, n, aggregator=server.address, mode=mode, num_slots=num_slots, block_size=block_size, **cfg
            )
        )
        for r in range(n)
    ]
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


def p4_header_fields(p4_source: str, header: str) -> list[tuple[str, int]]:
    """(name, bits) of the fields of `header` in a P4 source text."""
    body = re.search(rf"header {header} \{{(.*?)\}}", p4_source, re.S)[1]
    return [(m[2], int(m[1])) for m in re.finditer(r"bit<(\d+)>\s+(\w+);", body)]


def codec_header_fields() -> list[tuple[str, int]]:
    """What a P4 aggregation header must declare: the codec's fields in order, with the
    codec's sizes, `pool` split into `shadow` and `slot`."""
    from p4reduce.protocol import HEADER, HEADER_LEN

    sizes = {"B": 8, "H": 16, "I": 32}
    names = [
        "version",
        "msg_type",
        "job_id",
        "worker_id",
        "flags",
        "pool",
        "epoch",
        "block",
        "next_block",
        "exp",
        "next_exp",
        "count",
        "session",
        "blocks",
        "fingerprint",
    ]
    fields = [(n, sizes[c]) for n, c in zip(names, HEADER.format.lstrip("!"), strict=True)]
    pool = fields.index(("pool", 16))
    fields[pool : pool + 1] = [("shadow", 1), ("slot", 15)]
    assert sum(width for _, width in fields) == 8 * HEADER_LEN
    return fields


@contextlib.contextmanager
def cli_aggregator(*args: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """`p4reduce aggregator --bind 127.0.0.1:0 ARGS...` as a process; yields it and the
    address(es) its banner names (comma-separated, as workers' --aggregator takes them)."""
    agg = subprocess.Popen(
        [sys.executable, "-m", "p4reduce", "aggregator", "--bind", "127.0.0.1:0", *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        banner = agg.stdout.readline()
        yield agg, banner.split(" on ")[1].split()[0]
    finally:
        agg.terminate()
        agg.wait(timeout=10)


def run_cli_workers(endpoints: str, job: int, n: int, out_dir: pathlib.Path, *args: str) -> list[np.ndarray]:
    """`p4reduce worker` processes of ranks 0..n-1 on synthetic int32 tensors of 500
    elements; returns their results (each checked to exit 0)."""
    outs = [out_dir / f"r{r}.npy" for r in range(n)]
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "p4reduce",
                "worker",
                "--aggregator",
                endpoints,
                "--job",
                str(job),
                "--rank",
                str(r),
                "--workers",
                str(n),
                "--elements",
                "500",
                "--dtype",
                "int32",
                "--output",
                str(outs[r]),
                *args,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for r in range(n)
    ]
    for w in workers:
        assert w.wait(timeout=60) == 0
    return [np.load(path) for path in outs]


def spoof_udp(source: tuple[str, int], dest: tuple[str, int], payloads: Sequence[bytes]) -> None:
    """Send UDP datagrams that claim to come from `source` (a raw IPv4 socket: root only),
    as an off-path attacker who knows the addresses would."""
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW) as raw:
        for payload in payloads:
            udp = struct.pack("!HHHH", source[1], dest[1], 8 + len(payload), 0)  # checksum 0: none
            ip = struct.pack(
                "!BBHHHBBH4s4s",
                0x45,
                0,
                20 + len(udp) + len(payload),
                0,
                0,
                64,
                socket.IPPROTO_UDP,
                0,
                socket.inet_aton(source[0]),
                socket.inet_aton(dest[0]),
            )
            raw.sendto(ip + udp + payload, (dest[0], 0))  # the kernel fills in the IP checksum


def can_spoof() -> str | None:
    """Why spoof_udp cannot run here, or None."""
    import os
    import socket

    if os.geteuid() != 0:
        return "forging source addresses needs root (a raw socket)"
    try:
        socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW).close()
    except OSError as exc:
        return f"no raw IPv4 socket here: {exc}"
    return None


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait for another thread or process to make `condition` true (checked every 5 ms);
    `timeout` only turns a hang into a failure naming `what`."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.005)


# -- a busy machine on demand --------------------------------------------------------------
# `--cpu-hogs N` runs N CPU-bound processes for the whole session, so that the suites whose
# tests wait on other threads, processes and the kernel (reliability, netns, service,
# transports) are checked on a loaded machine as well: every wait there must be a counted
# event or a bounded wait, not a window that only a quiet machine meets.
TIMING_SENSITIVE = (
    "tests/reliability",
    "tests/service",
    "tests/test_packet_transport.py",
    "tests/test_xdp_transport.py",
    "tests/test_udp_offload.py",
    "tests/test_batchio.py",
)


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--cpu-hogs",
        type=int,
        default=0,
        metavar="N",
        help="keep N CPU-bound processes running for the whole session (a loaded machine); "
        f"the timing-sensitive suites: {' '.join(TIMING_SENSITIVE)}",
    )


@pytest.fixture(scope="session", autouse=True)
def cpu_hogs(request) -> Iterator[int]:
    """The --cpu-hogs processes, started before the first test and stopped after the last."""
    count = request.config.getoption("--cpu-hogs")
    if count < 0:
        raise pytest.UsageError(f"--cpu-hogs: {count} is negative")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield count
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def pytest_report_header(config) -> str | None:
    count = config.getoption("--cpu-hogs")
    return f"cpu hogs: {count} CPU-bound processes run beside the tests" if count else None


# Suites whose tests need something the machine may lack (a switch, root, a kernel module,
# PyTorch): .ci/run's summary names each with what ran and why the rest skipped.
_SUITES = (
    ("bmv2_tests/", "BMv2"),
    ("tests/test_mininet_runner.py", "Mininet"),
    ("tests/reliability/test_netns.py", "netns"),
    ("tests/test_tna_program.py", "TNA"),
    ("tests/test_torch", "PyTorch"),
    ("tests/test_lossy.py", "PyTorch"),
    ("tests/reliability/test_spoofing.py", "raw sockets"),
    ("tests/test_wireshark.py", "tshark"),
    ("tests/test_docs.py", "mkdocs"),
)


def pytest_terminal_summary(terminalreporter, config) -> None:
    """One line, per suite, of how many tests ran and why the others skipped (written last,
    in pytest_unconfigure, after pytest's own summary)."""
    counts: dict[str, dict[str, int]] = {}
    reasons: dict[str, set[str]] = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            path = getattr(report, "nodeid", "") or ""
            suite = next((name for prefix, name in _SUITES if path.startswith(prefix)), "unit")
            ran = "skipped" if outcome == "skipped" else "ran"
            counts.setdefault(suite, {"ran": 0, "skipped": 0})[ran] += 1
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                reasons.setdefault(suite, set()).add(str(report.longrepr[2]).removeprefix("Skipped: "))
    parts = []
    for suite in sorted(counts, key=lambda s: (s != "unit", s)):
        c = counts[suite]
        text = f"{suite} {c['ran']} ran"
        if c["skipped"]:
            text += f", {c['skipped']} skipped ({'; '.join(sorted(reasons.get(suite, {'?'})))})"
        parts.append(text)
    config.stash[_SUITES_LINE] = "suites: " + " | ".join(parts)


_SUITES_LINE = pytest.StashKey[str]()


def pytest_unconfigure(config) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and _SUITES_LINE in config.stash:
        reporter.write_line(config.stash[_SUITES_LINE])


# The backend's tests check what the aggregator does: the dense-path policy
# (p4reduce.torch.policy) would send their dense tensors to gloo. Its own tests set it.
os.environ.setdefault("P4REDUCE_DENSE_THRESHOLD", "1.0")
