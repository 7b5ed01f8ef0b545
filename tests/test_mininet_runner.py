# SPDX-License-Identifier: Apache-2.0
"""The Mininet experiment runner: runs on a tiny configuration (root and Debian's mininet), the
documented commands (their options all checked, the job service's run as written), a run
stopped midway that leaves nothing behind, and its result check and process handling alone."""

from __future__ import annotations

import csv
import importlib.util
import os
import pathlib
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time

import pytest

from p4reduce.testbed.netns import netem_supported

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUNNER = ROOT / "mininet" / "p4reduce_mininet.py"


def _doc_tool():
    """tools/run_doc_commands.py as a module."""
    spec = importlib.util.spec_from_file_location("run_doc_commands", ROOT / "tools" / "run_doc_commands.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # (its dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


def _mininet_missing() -> str | None:
    if os.geteuid() != 0:
        return "Mininet needs root"
    if shutil.which("mnexec") is None:
        return "Mininet is not installed (apt-get install mininet)"
    return None


needs_mininet = pytest.mark.skipif(_mininet_missing() is not None, reason=str(_mininet_missing()))


def _torch_installed() -> bool:
    return importlib.util.find_spec("torch") is not None


@needs_mininet
@pytest.mark.parametrize(
    "extra",
    [
        ["--switch", "lxbr"],
        ["--switch", "lxbr", "--topo", "leafspine"],
        ["--switch", "lxbr", "--multicast"],
        # workers told only the job service's address and a job name (--switch bmv2 --service:
        # test_the_documented_service_runs_run_as_written)
        ["--switch", "lxbr", "--service"],
        # nftables drop on the worker links (this kernel has no netem), beside a busy process
        # (--cpu-hogs): the switch's input drops are counted
        ["--switch", "bmv2", "--loss", "0.02", "--cpu-hogs", "1"],
        # the workers on AF_PACKET rings: 4 of them through the P4 switch, and to a software aggregator
        ["--switch", "bmv2", "--transport", "packet", "--workers", "4"],
        ["--switch", "lxbr", "--transport", "packet"],
        # and on AF_XDP sockets (skipped where p4reduce was built without libxdp)
        ["--switch", "bmv2", "--transport", "xdp", "--workers", "4"],
        # two BMv2 leaves under a BMv2 spine, then the same workers under one BMv2 switch
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--compare-star"],
        # four BMv2 leaves (one worker each) under a BMv2 spine, nftables loss on the leaf-spine
        # links: the sums stay exact (the runner checks them)
        # (the job service programming the tree: test_the_documented_service_runs_run_as_written)
        ["--switch", "bmv2", "--topo", "leafspine", "--workers", "4", "--leaves", "4", "--uplink-loss", "0.05"],
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
    assert all(int(r["ignored_packets"]) >= 0 for r in rows)
    hogs = int(extra[extra.index("--cpu-hogs") + 1]) if "--cpu-hogs" in extra else 0
    assert all(int(r["cpu_hogs"]) == hogs for r in rows)
    star_bmv2 = "bmv2" in extra and "leafspine" not in extra and "--service" not in extra
    assert all((r["switch_input_drops"] != "") == star_bmv2 for r in rows)
    assert all(int(r["switch_input_drops"]) >= 0 for r in rows if star_bmv2)
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


def test_every_documented_mininet_command_has_options_its_script_accepts():
    """Every command of README.md and docs/ that runs a script of mininet/ (code blocks, inline
    code, the measured tables' commands) passes its script's option checks (--check-args: the
    runner checks its options against each other too); nothing runs. A refused one is named
    by file and line."""
    tool = _doc_tool()
    commands = tool.doc_commands()
    where = {(str(c.path), c.script.removeprefix("mininet/")) for c in commands}
    assert {
        ("README.md", "p4reduce_mininet.py"),
        ("docs/mininet.md", "reliability_table.py"),
        ("docs/service.md", "p4reduce_mininet.py"),
        ("docs/service.md", "shared_switch.py"),
    } <= where, where
    problems = tool.check_all(commands)
    refused = [f"{c.where}: {c.text}\n    {problem}" for c, problem in zip(commands, problems, strict=True) if problem]
    assert not refused, "documented commands refused:\n" + "\n".join(refused)


def test_refused_options_are_named(runner, capsys):
    """What the option check refuses, with the reason (the docs' commands rely on it)."""
    cases = {
        ("--switch", "bmv2", "--multicast"): "--multicast is for software aggregators",
        ("--switch", "lxbr", "--service", "--multicast"): "not the job service's fallback",
        ("--switch", "lxbr", "--topo", "leafspine", "--service"): "--service runs with --topo star",
        ("--switch", "lxbr", "--uplink-loss", "0.1"): "--uplink-loss needs --switch bmv2",
        ("--switch", "lxbr", "--densities", "0", "1"): "in (0, 1]",
        ("--switch", "lxbr", "--topo", "leafspine", "--workers", "2", "--leaves", "3"): "every leaf needs a worker",
    }
    for argv, reason in cases.items():
        with pytest.raises(SystemExit) as exit_:
            runner.parse_args(list(argv))
        assert exit_.value.code == 2 and reason in capsys.readouterr().err, argv
    assert runner.parse_args(["--switch", "lxbr", "--multicast", "--check-args"]).check_args


@needs_mininet
@pytest.mark.parametrize("topo", ["star", "leafspine"])
def test_the_documented_service_runs_run_as_written(tmp_path, runner, topo):
    """docs/service.md's BMv2 commands, as written (from a scratch folder: their results go
    under results/ there): the job service, started with the network, programs the BMv2
    switch, or the leaves and the spine, before the gloo baseline (whose TCP crosses them)
    and places each density's job there; the workers know only its address and a job name."""
    if shutil.which("simple_switch_grpc") is None:
        pytest.skip("simple_switch_grpc is not installed")
    (command,) = [
        c
        for c in _doc_tool().doc_commands()
        if str(c.path) == "docs/service.md"
        and c.options[:2] == ("--switch", "bmv2")
        and "--service" in c.options
        and runner.parse_args(list(c.options)).topo == topo
    ]
    densities = runner.parse_args(list(command.options)).densities
    proc = subprocess.run(
        [sys.executable, str(ROOT / command.script), *command.options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader(open(tmp_path / "results" / "mininet.csv")))
    assert [r["method"] for r in rows] == ["gloo_dense"] * _torch_installed() + ["p4reduce"] * len(densities)
    assert [float(r["density"]) for r in rows if r["method"] == "p4reduce"] == densities
    assert all(r["service"] == "True" and float(r["median_ms"]) > 0 for r in rows)
    assert proc.stdout.count("': on the switch") == len(densities), proc.stdout


# ---- A run stopped midway: what it leaves behind is counted, nothing must be left.

TEST_MARK = "P4REDUCE_TEST_RUN"  # in the runner's environment, so in that of everything it starts


def _marked(token: str) -> dict[int, str]:
    """pid -> command line of every process whose environment holds TEST_MARK=token."""
    needle = f"{TEST_MARK}={token}".encode()
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if needle in pathlib.Path(entry.path, "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = pathlib.Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
    return found


def _net_namespaces(pids) -> set[str]:
    """The network namespaces of `pids` but the root one."""
    root = os.readlink("/proc/self/ns/net")
    spaces = set()
    for pid in pids:
        try:
            spaces.add(os.readlink(f"/proc/{pid}/ns/net"))
        except OSError:
            continue
    return spaces - {root}


def _all_net_namespaces() -> set[str]:
    return _net_namespaces(int(e.name) for e in os.scandir("/proc") if e.name.isdigit())


def _star_links() -> set[tuple[str, str]]:
    """(index, name) of the root namespace's links of the star's switch: bridge s1, ports s1-ethN."""
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    links = {tuple(part.strip() for part in line.split(":")[:2]) for line in out.splitlines()}
    return {(index, name.split("@")[0]) for index, name in links if re.fullmatch(r"s1(-eth\d+)?", name.split("@")[0])}


def _root_tables() -> str:
    if shutil.which("nft") is None:
        return ""
    return subprocess.run(["nft", "list", "tables"], capture_output=True, text=True).stdout


@needs_mininet
@pytest.mark.parametrize(
    ("signum", "when", "switch"),
    [
        (signal.SIGTERM, "workers", "lxbr"),  # both workers running: midway through the sweep
        # the network up (BMv2 running, where it is installed): being programmed, or starting processes
        (signal.SIGINT, "network", "bmv2" if shutil.which("simple_switch_grpc") else "lxbr"),
    ],
)
def test_a_run_stopped_midway_leaves_nothing_behind(tmp_path, signum, when, switch):
    """A run (2 workers, nftables loss on their links where there is no netem, allreduces
    enough for ever) gets a stop signal once its network (and, for SIGTERM, both its workers)
    run; it exits 128 + the signal, and then no process it started (marked in its
    environment: BMv2 too), host namespace, link of its switch or p4reduce nftables table of
    its switch's ports is left."""
    token = secrets.token_hex(8)
    argv = [sys.executable, str(RUNNER), "--switch", switch, "--workers", "2", "--no-gloo", "--densities", "1"]
    argv += ["--elements", "4000", "--block-size", "64", "--slots", "8", "--iterations", "1000000", "--loss", "0.01"]
    argv += ["--out", str(tmp_path / "run")]
    proc = subprocess.Popen(
        argv,
        env=dict(os.environ, **{TEST_MARK: token}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # the runner leaves an ignored SIGINT ignored (as pytest's may be, started in the background)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    links: set[tuple[str, str]] = set()
    try:
        deadline = time.monotonic() + 120
        while True:
            marked = _marked(token)
            shells = [pid for pid, cmd in marked.items() if "mininet:" in cmd]
            links = _star_links()
            workers = sum(" -m p4reduce worker " in cmd for cmd in marked.values())
            if switch == "lxbr":  # the star: bridge s1 and its ports to w0, w1 and agg; their three namespaces
                network_up = len(links) == 4 and len(_net_namespaces(shells)) == 3
            else:  # BMv2's ports to w0 and w1, their namespaces, and the switch's process
                bmv2 = sum(cmd.startswith("simple_switch_grpc ") for cmd in marked.values())
                network_up = len(links) == 2 and len(_net_namespaces(shells)) == 2 and bmv2 == 1
            if network_up and (when == "network" or workers == 2):
                break
            assert proc.poll() is None, f"the run ended before it was stopped: {proc.communicate()[1][-2000:]}"
            assert time.monotonic() < deadline, f"no network/workers after 120 s: {sorted(marked.values())}, {links}"
            time.sleep(0.05)
        spaces = _net_namespaces(marked)
        if when == "workers" and shutil.which("nft") and not netem_supported():
            # the worker links' loss is nftables' here: tables in the hosts' namespaces, to go with them
            (w0,) = [pid for pid, cmd in marked.items() if cmd.strip().endswith("mininet:w0")]
            in_w0 = subprocess.run(
                ["nsenter", "-t", str(w0), "-n", "nft", "list", "tables"], capture_output=True, text=True
            )
            assert "p4r_impair_w0_eth0" in in_w0.stdout, in_w0
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signum, err[-3000:]
        assert f"stopped by {signal.Signals(signum).name}" in err, err[-3000:]
        deadline = time.monotonic() + 10  # (the runner waited for all of it to go: this is a margin)
        while True:
            left = {
                "processes": sorted(_marked(token).values()),
                "namespaces": sorted(spaces & _all_net_namespaces()),
                "links": sorted(links & _star_links()),
                "nftables tables": re.findall(r"p4r_impair_s1_eth\d+", _root_tables()),
            }
            if not any(left.values()) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert not any(left.values()), f"left behind: {left}"
        assert "cleanup: removed leftover" not in err, err[-3000:]  # the orderly stop did it all
    finally:  # (if the runner failed to, so that nothing stays for the next tests)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _marked(token):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for _, name in links & _star_links():
            subprocess.run(["ip", "link", "del", name], capture_output=True)


def test_processes_waited_for_are_stopped_when_one_fails_or_time_runs_out(runner):
    """_json_reports: a process that fails, or a wait past its timeout, ends the wait with an
    error, and none of the processes waited for (nor what they started in their process
    group) runs on."""

    def start(script: str) -> subprocess.Popen:
        # a session of its own, as a process started in a Mininet host has (mnexec -d)
        return subprocess.Popen(
            ["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )

    def gone(pgid: int) -> bool:
        """No process of group `pgid` runs (a zombie waiting for init to reap it does not)."""
        for entry in os.scandir("/proc"):
            try:
                state, _, group = pathlib.Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[:3]
            except (OSError, IndexError):
                continue
            if int(group) == pgid and state != "Z":
                return False
        return True

    for scripts, timeout, error in (
        (["echo '{\"a\": 1}'", "sleep 60 & sleep 60"], 0.5, "1 of 2 had not finished after 0.5 s"),
        (["echo no >&2; exit 3", "sleep 60 & sleep 60"], 60, "0 failed \\(exit 3\\): no"),
    ):
        procs = [start(script) for script in scripts]
        try:
            with pytest.raises(RuntimeError, match=error):
                runner._json_reports(procs, "sleeper", timeout=timeout)
            assert all(p.returncode is not None for p in procs)
            deadline = time.monotonic() + 10
            while not all(gone(p.pid) for p in procs) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert all(gone(p.pid) for p in procs), "a process group waited for runs on"
        finally:  # (if _json_reports left them)
            for p in procs:
                if not gone(p.pid):
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
