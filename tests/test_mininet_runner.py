# SPDX-License-Identifier: Apache-2.0
"""The Mininet experiment runner: runs on a tiny configuration (root and Debian's mininet), and its
result check alone."""

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


needs_mininet = pytest.mark.skipif(_mininet_missing() is not None, reason=str(_mininet_missing()))


@needs_mininet
@pytest.mark.parametrize(
    "extra",
    [
        ["--switch", "lxbr"],
        ["--switch", "lxbr", "--topo", "leafspine"],
        ["--switch", "lxbr", "--multicast"],
        # workers told only the job service's address and a job name
        ["--switch", "lxbr", "--service"],
        ["--switch", "bmv2"],
        # the switch configured only by the job service (workers register; no per-worker file)
        ["--switch", "bmv2", "--service"],
        # nftables drop on the worker links (this kernel has no netem)
        ["--switch", "bmv2", "--loss", "0.02"],
        # the workers on AF_PACKET rings: 4 of them through the P4 switch, and to a software aggregator
        ["--switch", "bmv2", "--transport", "packet", "--workers", "4"],
        ["--switch", "lxbr", "--transport", "packet"],
        # and on AF_XDP sockets (skipped where p4reduce was built without libxdp)
        ["--switch", "bmv2", "--transport", "xdp", "--workers", "4"],
        # two BMv2 leaves under a BMv2 spine, then the same workers under one BMv2 switch
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--compare-star"],
        # four BMv2 leaves (one worker each) under a BMv2 spine
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--leaves", "4"],
        # the job service alone programs the tree; the workers know only its address and a job name
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--service"],
        # nftables loss on the leaf-spine links: the sums stay exact (the runner checks them)
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--uplink-loss", "0.05"],
    ],
)
def test_runner_writes_csv(tmp_path, extra):
    """Every run's results are checked by the runner itself (same sum on every
    worker, numpy's within the bound): a wrong one fails it with a non-zero exit."""
    if "bmv2" in extra and shutil.which("simple_switch_grpc") is None:
        pytest.skip("simple_switch_grpc is not installed")
    if "xdp" in extra:
        from p4reduce.transport.xdp import available

        if available() is not None:
            pytest.skip(str(available()))
    out = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--workers",
            "2",
            "--no-gloo",
            "--densities",
            "0.1",
            "1",
            "--elements",
            "4000",
            "--block-size",
            "64",
            "--slots",
            "8",
            "--iterations",
            "1",
            "--bw",
            "100",
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    if "--uplink-loss" in extra:  # its drops went with the topology: none on the next run's links
        tables = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, check=True).stdout
        assert "p4r_impair_s" not in tables, tables
    rows = list(csv.DictReader(open(out.with_suffix(".csv"))))
    if "--compare-star" in extra:  # the star's rows after the tree's
        star, rows = [r for r in rows if r["topo"] == "star"], [r for r in rows if r["topo"] == "leafspine"]
        assert [float(r["density"]) for r in star] == [0.1, 1.0]
    if "bmv2" in extra and "leafspine" in extra:
        leaves = int(extra[extra.index("--leaves") + 1]) if "--leaves" in extra else 2
        for r in rows:  # the spine took one DATA per leaf per round; each leaf sent one per round
            assert int(r["rounds"]) > 0 and int(r["spine_data_packets"]) == leaves * int(r["rounds"])
            assert float(r["upstream_packets_per_leaf"]) >= int(r["rounds"])  # (and re-sends)
            assert 0 < float(r["uplink_bytes_per_leaf"])
    assert [float(r["density"]) for r in rows] == [0.1, 1.0]
    assert all(float(r["median_ms"]) > 0 for r in rows)
    assert float(rows[0]["wire_bytes_per_worker"]) < float(rows[1]["wire_bytes_per_worker"])
    assert all(0 <= int(r["retransmissions"]) < int(r["packets"]) for r in rows)
    # one count per measured allreduce, adding up to the total
    assert all(
        sum(map(int, r["retransmissions_by_allreduce"].split())) == int(r["retransmissions"])
        and len(r["retransmissions_by_allreduce"].split()) == 1
        for r in rows
    )
    assert out.with_suffix(".png").stat().st_size > 0


@pytest.fixture
def runner(monkeypatch):
    """The runner script as a module (no network: needs neither root nor Mininet)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("p4reduce_mininet", RUNNER)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_runner_refuses_results_that_differ_or_are_wrong(tmp_path, runner):
    """The runner's result check alone."""
    import numpy as np

    from p4reduce.testbed.check import WrongResult

    inputs = [np.arange(64, dtype=np.int32), np.ones(64, dtype=np.int32)]

    def saved(name: str, results: list) -> list[pathlib.Path]:
        folder = tmp_path / name
        folder.mkdir()
        for r, x in enumerate(results):
            np.save(folder / f"r{r}.npy", x)
        return [folder / f"r{r}.npy" for r in range(len(results))]

    good = sum(inputs)
    reports = [[{"checksum": 1.0}, {"checksum": 2.0}]] * 2
    assert runner._checked(reports, saved("good", [good, good]), inputs, 32) is reports
    with pytest.raises(WrongResult, match="iteration 1"):
        runner._checked([reports[0], [{"checksum": 1.0}, {"checksum": 3.0}]], saved("differ", [good, good]), inputs, 32)
    with pytest.raises(WrongResult):
        runner._checked(reports, saved("wrong", [good + 1, good + 1]), inputs, 32)


@needs_mininet
def test_three_ddp_trainings_share_a_switch_through_the_job_service():
    """mininet/shared_switch.py: two DDP trainings at once on one BMv2 switch set up only by
    the job service, a third on its fallback; it fails unless each ran where meant and every
    loss and parameter equals gloo's."""
    if shutil.which("simple_switch_grpc") is None:
        pytest.skip("simple_switch_grpc is not installed")
    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "mininet" / "shared_switch.py")], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("training ")]
    assert [line.split(":")[0] for line in lines] == ["training a", "training b", "training c"]
    assert "on the switch" in lines[0] and "on the switch" in lines[1] and "on the software" in lines[2]
    assert all(line.endswith("equal to gloo's") for line in lines)


@needs_mininet
def test_drops_left_on_switch_port_names_are_removed_before_a_run(tmp_path):
    """A netdev table outlives its device and binds again to the next one of that name: the
    runner removes p4reduce drop tables a crashed run left on its switches' port names
    before anything runs (here: nine in ten UDP frames s1-eth1 sends, dropped)."""
    if shutil.which("nft") is None:
        pytest.skip("needs nftables (`nft`)")
    from p4reduce.testbed.impairment import Impairment
    from p4reduce.testbed.netns import egress_table_name, nft_egress

    subprocess.run(["nft", "-f", "-"], input=nft_egress("s1-eth1", Impairment(loss=0.9)), text=True, check=True)
    argv = [sys.executable, str(RUNNER), "--workers", "2", "--no-gloo", "--densities", "0.1", "--elements", "4000"]
    argv += ["--block-size", "64", "--slots", "8", "--iterations", "1", "--switch", "lxbr"]
    argv += ["--out", str(tmp_path / "r")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    tables = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, check=True).stdout
    subprocess.run(["nft", "delete", "table", "netdev", egress_table_name("s1-eth1")], capture_output=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert egress_table_name("s1-eth1") not in tables
    (row,) = csv.DictReader(open(tmp_path / "r.csv"))
    assert int(row["retransmissions"]) == 0
