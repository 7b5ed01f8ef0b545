#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A shared switch in Mininet: three DDP trainings through one job service.

    sudo python3 mininet/shared_switch.py

One BMv2 switch, six worker hosts and the job service on a host of the root namespace (it
reaches BMv2's P4Runtime on loopback; the workers reach it through the switch). The
service's slot pool holds two jobs: trainings "a" and "b" (two ranks each) run at the same
time on the switch, configured by the service alone; training "c", created once they hold
the pool, lands on the service's fallback software aggregator. Each rank trains the same
model with DDP over p4reduce and over gloo side by side (mininet/ddp_rank.py). Exits 0 when
a and b ran on the switch, c on the fallback, and every loss and parameter equals gloo's.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import p4reduce_mininet  # beside this script
from p4reduce_mininet import FALLBACK_PORT, SERVICE_PORT, listed_jobs, run_cleanly, start_network, start_service

HERE = pathlib.Path(__file__).resolve().parent
PY = sys.executable
SLOTS = 8  # per job; the switch's pool holds two
JOBS = {"a": (0, 1), "b": (2, 3), "c": (4, 5)}  # training -> worker hosts


def _service(ctl, switch, hosts: list) -> subprocess.Popen:
    """The job service on `ctl`, for `switch` and its `hosts`, its pool two jobs large."""
    section = switch.service_section(hosts, SLOTS)
    section["slots"] = [0, 2 * SLOTS]
    proc, banner = start_service(
        ctl,
        {
            "switch": section,
            "fallback": {"host": ctl.IP(), "port": FALLBACK_PORT, "advertise": ctl.IP()},
            "jobs": {"num_slots": SLOTS, "lease_seconds": 30},
        },
    )
    if "switch" not in banner or "up" not in banner:
        raise SystemExit(f"the job service did not come up with the switch: {banner.strip()!r}")
    return proc


def _train(hosts: list, name: str, ctl, hold: pathlib.Path) -> list[subprocess.Popen]:
    """Training `name` on `hosts`: its ranks know the job service and the job's name, and
    keep the job until `hold` exists (closing their process group releases it)."""
    master = f"{hosts[0].IP()}:29500"
    env = dict(os.environ, P4REDUCE_CONTROLLER=f"{ctl.IP()}:{SERVICE_PORT}", P4REDUCE_JOB_NAME=name)
    env["P4REDUCE_FAILURE_TIMEOUT"] = "60"
    return [
        p4reduce_mininet.RUN.track(
            h.popen(
                [PY, str(HERE / "ddp_rank.py"), "--master", master, "--rank", str(r), "--world", str(len(hosts))]
                + ["--seed", str(list(JOBS).index(name)), "--hold", str(hold)],  # each training its own data
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                # gloo would otherwise pick the hostname's address (loopback)
                env=dict(env, GLOO_SOCKET_IFNAME=h.defaultIntf().name),
            )
        )
        for r, h in enumerate(hosts)
    ]


def _reports(procs: list[subprocess.Popen], name: str) -> list[dict]:
    reports = []
    for r, proc in enumerate(procs):
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            raise SystemExit(f"training {name} rank {r} failed:\n{err[-3000:]}")
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check-args", action="store_true", help="check the options and exit: nothing is run")
    if ap.parse_args().check_args:
        print("options consistent (there are none)")
        return 0
    if os.geteuid() != 0:
        raise SystemExit("Mininet needs root: run with sudo")
    from bmv2_node import bmv2_available
    from mininet.log import setLogLevel

    if not bmv2_available():
        raise SystemExit("simple_switch_grpc (BMv2) is not installed")
    setLogLevel("warning")
    return run_cleanly(_trainings)


def _trainings() -> int:
    """The network, the service and the three trainings (stopped, whatever ends this, by the run's cleanup)."""
    from bmv2_node import Bmv2Switch
    from mininet.net import Mininet

    net = Mininet(controller=None, autoSetMacs=True)
    p4reduce_mininet.RUN.nets.append(net)
    s1 = net.addSwitch("s1", cls=Bmv2Switch)
    workers = [net.addHost(f"w{i}") for i in range(6)]
    for h in workers:
        net.addLink(h, s1)
    ctl = net.addHost("ctl", inNamespace=False)
    net.addLink(ctl, s1)
    start_network(net)
    # The trainings keep their jobs until this file exists: every job is looked at while it
    # is held (a training that ends closes its process group, which releases its job).
    hold = p4reduce_mininet.RUN.tmpdir("p4reduce-shared-") / "done"
    try:
        s1.prepare_hosts([*workers, ctl])
        _service(ctl, s1, [*workers, ctl])
        running = {n: _train([workers[i] for i in JOBS[n]], n, ctl, hold) for n in ("a", "b")}
        deadline = time.monotonic() + 120
        while not {"a", "b"} <= set(listed_jobs(ctl)):  # both hold the switch's pool before c asks
            if time.monotonic() > deadline:
                raise SystemExit(f"trainings a and b never created their jobs: {sorted(listed_jobs(ctl))}")
            time.sleep(0.5)
        running["c"] = _train([workers[i] for i in JOBS["c"]], "c", ctl, hold)
        placed = {}
        deadline = time.monotonic() + 120
        while "c" not in placed:
            placed = listed_jobs(ctl)
            if time.monotonic() > deadline:
                raise SystemExit("training c never created its job")
            time.sleep(0.5)
        hold.touch()
        failures = []
        for name, procs in running.items():
            job = placed[name]
            expected = "software" if name == "c" else "switch"
            reports = _reports(procs, name)
            differ = [
                (rep["rank"], step, losses)
                for rep in reports
                for step, losses in enumerate(rep["losses"])
                if abs(losses[0] - losses[1]) > 1e-5 * max(abs(losses[1]), 1e-12)
            ]
            where = f"{job['target']} ({job['reason']})" if job["reason"] else job["target"]
            print(
                f"training {name}: job {job['job_id']} on the {where} at {job['host']}:{job['port']}, "
                f"slots {job['slot_base']}..{job['slot_base'] + job['num_slots'] - 1}; losses "
                f"{[round(step[0], 6) for step in reports[0]['losses']]} "
                f"{'equal to' if not differ else 'DIFFERENT from'} gloo's",
                flush=True,
            )
            if job["target"] != expected:
                failures.append(f"training {name} ran on the {job['target']}, not the {expected}")
            if differ or not all(rep["parameters_equal"] for rep in reports):
                failures.append(f"training {name}: p4reduce and gloo differ: {differ[:3]}")
        for failure in failures:
            print(failure, file=sys.stderr)
        return 1 if failures else 0
    finally:
        hold.touch()  # (trainings still waiting end now; the run's cleanup stops the rest)


if __name__ == "__main__":
    sys.exit(main())
