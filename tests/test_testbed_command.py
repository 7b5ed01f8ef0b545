# SPDX-License-Identifier: Apache-2.0
"""`p4reduce testbed bmv2`: the switch, its worker namespaces and a job in one command,
and nothing of it left behind, whether it succeeds or is interrupted."""

from __future__ import annotations

import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import time
import uuid

import pytest

from p4reduce.testbed.veth import veth_switch_missing

ROOT = pathlib.Path(__file__).resolve().parents[1]
needs_switch = pytest.mark.skipif(veth_switch_missing() is not None, reason=str(veth_switch_missing()))


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "p4reduce", "testbed", "bmv2", *args]


def _leftovers(tag: str) -> list[str]:
    """Namespaces, interfaces, processes and folders of the run tagged `tag` still there."""
    found = []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    found += [f"netns {line.split()[0]}" for line in netns.splitlines() if f"-{tag}-" in line]
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    found += [f"link {line.split(':')[1].strip()}" for line in links.splitlines() if f"-{tag}" in line]
    # BMv2's argv names the veths (-i 1@sw1-TAG), the workers' their output folder (.../p4reduce-testbed-TAG-...)
    for proc in pathlib.Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"-{tag}" in argv and proc.name != str(os.getpid()):
            found.append(f"process {proc.name}: {argv[:120]}")
    found += [f"folder {p}" for p in pathlib.Path(os.environ.get("TMPDIR", "/tmp")).glob(f"p4reduce-testbed-{tag}-*")]
    return found


@needs_switch
def test_two_workers_allreduce_through_bmv2_and_nothing_is_left_behind() -> None:
    tag = uuid.uuid4().hex[:8]
    # A healthy run takes seconds; the bound is for a machine under heavy load.
    proc = subprocess.run(_command("--tag", tag, "--json"), capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    assert summary["workers"] == 2 and summary["max_error"] >= 0.0
    counters = summary["counters"]
    assert counters["joined"] >= 2 and counters["result_multicast"] > 0
    assert counters["unknown_worker"] == counters["bad_session"] == counters["malformed"] == 0
    assert "workers running" in proc.stderr and f"removed the namespaces, veths and BMv2 of tag {tag}" in proc.stderr
    assert _leftovers(tag) == []


@needs_switch
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_removes_everything(signum: signal.Signals) -> None:
    tag = uuid.uuid4().hex[:8]
    # Far more allreduces than finish before the signal: it arrives while the workers run.
    proc = subprocess.Popen(
        _command("--tag", tag, "--iterations", "1000000"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        seen, deadline = [], time.monotonic() + 300
        while not any("workers running" in line for line in seen):
            assert time.monotonic() < deadline, f"no workers running after 300 s: {seen}"
            ready, _, _ = select.select([proc.stderr], [], [], 5)
            if ready:
                line = proc.stderr.readline()
                assert line, f"the command ended before its workers ran: {seen}"
                seen.append(line)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert f"removed the namespaces, veths and BMv2 of tag {tag}" in err
    assert _leftovers(tag) == []


@needs_switch
def test_a_failed_run_says_why_in_one_line_and_removes_everything() -> None:
    """Workers that cannot finish a million allreduces within a second: exit 1, one line, nothing left."""
    tag = uuid.uuid4().hex[:8]
    proc = subprocess.run(
        _command("--tag", tag, "--iterations", "1000000", "--time-limit", "1"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("testbed: ")]
    assert errors == ["p4reduce testbed bmv2: error: the workers did not finish within --time-limit 1 s"]
    assert f"removed the namespaces, veths and BMv2 of tag {tag}" in proc.stderr
    assert _leftovers(tag) == []


def test_without_bmv2_one_line_says_so() -> None:
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    path = os.pathsep.join(d for d in dirs if d and not (pathlib.Path(d) / "simple_switch_grpc").exists())
    proc = subprocess.run(
        _command(), capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PATH": path}, timeout=120
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("p4reduce testbed bmv2: "), proc.stderr
    assert "simple_switch_grpc" in lines[0] and "not on PATH" in lines[0]
    assert proc.stdout == ""
