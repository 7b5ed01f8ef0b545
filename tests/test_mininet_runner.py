"""The Mininet experiment runner on a tiny configuration (needs root and Debian's mininet)."""
from __future__ import annotations

import csv
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUNNER = ROOT / "mininet" / "p4reduce_mininet.py"


def _mininet_missing() -> str | None:
    if os.geteuid() != 0:
        return "Mininet needs root"
    if shutil.which("mnexec") is None:
        return "Mininet is not installed (apt-get install mininet)"
    return None


pytestmark = pytest.mark.skipif(_mininet_missing() is not None, reason=str(_mininet_missing()))


@pytest.mark.parametrize("extra", [["--switch", "lxbr"], ["--switch", "lxbr", "--topo", "leafspine"],
                                   ["--switch", "lxbr", "--multicast"], ["--switch", "bmv2"]])
def test_runner_writes_csv(tmp_path, extra):
    if "bmv2" in extra and shutil.which("simple_switch_grpc") is None:
        pytest.skip("simple_switch_grpc is not installed")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, str(RUNNER), "--workers", "2", "--no-gloo",
                           "--densities", "0.1", "1", "--elements", "4000", "--block-size", "64",
                           "--slots", "8", "--iterations", "1", "--bw", "100", "--out", str(out),
                           *extra], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(out.with_suffix(".csv"))))
    assert [float(r["density"]) for r in rows] == [0.1, 1.0]
    assert all(float(r["median_ms"]) > 0 for r in rows)
    assert float(rows[0]["wire_bytes_per_worker"]) < float(rows[1]["wire_bytes_per_worker"])
    assert out.with_suffix(".png").stat().st_size > 0
