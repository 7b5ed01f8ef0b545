# SPDX-License-Identifier: Apache-2.0
"""PyTorch's own distributed test suite on the "p4reduce" backend (tools/torch_suite.py).

CI runs the runner's CI selection (a representative part of upstream's distributed_test.py,
at 2 ranks) and fails on any failure; the full list runs with `python3 tools/torch_suite.py`.
Skipped without PyTorch.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'p4reduce[torch]')")

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import torch_suite  # noqa: E402


def _needs_expecttest() -> None:
    # torch's test helpers import expecttest (the [test] extra installs it): CI must not skip.
    if importlib.util.find_spec("expecttest") is None:
        if os.environ.get("CI"):
            pytest.fail("expecttest is missing: pip install -e '.[test]'")
        pytest.skip("expecttest is not installed (pip install -e '.[test]')")


def test_the_ci_selection_passes_as_listed(tmp_path: pathlib.Path) -> None:
    _needs_expecttest()
    expected = torch_suite.read_expected(torch_suite.EXPECTED)
    # the selection is tests the list says pass at 2 ranks: a failure here is a regression
    assert all(expected.get((t, 2)) == "pass" for t in torch_suite.CI_SELECTION)
    out = tmp_path / "outcomes.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "torch_suite.py"), "--selection", "ci", "-w", "2"]
        + ["--test-timeout", "120", "--timeout", "540", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr[-6000:]
    assert proc.returncode == 0, log
    outcomes = {o["test"]: o["status"] for o in json.loads(out.read_text())}
    assert outcomes == dict.fromkeys(torch_suite.CI_SELECTION, "pass"), log


def _outcome(test: str, status: str, reason: str = "") -> torch_suite.Outcome:
    return torch_suite.Outcome(test, 2, status, reason, 0.1)


def test_the_exit_status_fails_only_on_an_expected_pass(capsys: pytest.CaptureFixture[str]) -> None:
    expected = {("a", 2): "pass", ("b", 2): "pending", ("c", 2): "skip"}
    ok = [_outcome("a", "pass"), _outcome("b", "fail", "NotImplementedError: reduce"), _outcome("c", "skip")]
    assert torch_suite.report(ok, expected) == 0
    assert torch_suite.report([_outcome("a", "fail", "RuntimeError: boom"), *ok[1:]], expected) == 1
    assert torch_suite.report([_outcome("a", "skip", "no"), *ok[1:]], expected) == 1
    # a pending test that starts passing is reported, not failed
    assert torch_suite.report([ok[0], _outcome("b", "pass"), ok[2]], expected) == 0
    assert "now passes" in capsys.readouterr().out


def test_the_expected_list_round_trips(tmp_path: pathlib.Path) -> None:
    outcomes = [
        _outcome("t1", "pass"),
        _outcome("t2", "fail", "Traceback...\nNotImplementedError: p4reduce does not implement reduce"),
        _outcome("t3", "fail", "Traceback...\nRuntimeError: mismatch"),
        _outcome("t4", "skip", "Only gloo backend supports timeouts"),
    ]
    path = tmp_path / "expected.txt"
    torch_suite.write_expected(path, outcomes)
    assert torch_suite.read_expected(path) == {
        ("t1", 2): "pass",
        ("t2", 2): "pending",
        ("t3", 2): "fail",
        ("t4", 2): "skip",
    }
    assert "# Only gloo backend supports timeouts" in path.read_text()
