# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller jobs`: the live jobs of a job service, as a table or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from p4reduce.cli import args as a
from p4reduce.cli.credentials import add_client_options, client_credentials
from p4reduce.protocol.switch import JOB_EVENT_NAMES


def add_jobs_action(actions: Any) -> None:
    """The `jobs` action on the controller's subcommands."""
    p = actions.add_parser(
        "jobs",
        help="list the live jobs of a job service (p4reduce controller serve)",
        description=(
            "List the jobs a job service holds: target, slots, workers, lease and the job's packet counters "
            "(packets, drops, retransmissions, rounds); --json adds its target's counters (all jobs together)."
        ),
    )
    p.add_argument(
        "--controller",
        type=a.host_port,
        required=True,
        metavar="HOST:PORT",
        help="the job service's address (what `controller serve --bind` listens on)",
    )
    a.add_answer_timeout(p, "the service")
    p.add_argument("--json", action="store_true", help="print the answer as JSON instead of a table")
    add_client_options(p)
    p.set_defaults(func=_jobs)


def format_jobs(listing: Any) -> str:
    """The table `controller jobs` prints (a JobList)."""
    rows = [("JOB", "NAME", "TARGET", "ADDRESS", "SLOTS", "WORKERS", "LEASE", "COUNTERS")]
    for status in listing.jobs:
        job = status.job
        slots = f"{job.slot_base}..{job.slot_base + job.num_slots - 1}"
        # The job's own counters in their fixed order; the target's (all jobs) are in --json.
        counters = " ".join(f"{k}={status.job_counters[k]}" for k in JOB_EVENT_NAMES if k in status.job_counters) or "-"
        target = job.target if not job.reason else f"{job.target} ({job.reason})"
        rows.append(
            (
                str(job.job_id),
                job.name,
                target,
                f"{job.host}:{job.port}",
                slots,
                f"{status.registered}/{job.num_workers}",
                f"{status.expires_in:.0f}s",
                counters,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1] for row in rows
    ]
    switch = "up" if listing.switch_up else "down or not configured"
    lines.append(f"switch {switch}; slots free {listing.slots_free} of {listing.slots_total}")
    return "\n".join(line.rstrip() for line in lines)


def _jobs(args: argparse.Namespace) -> int:
    from p4reduce.jobapi import JobClient

    credentials = client_credentials(args)
    with JobClient(args.controller, timeout=args.timeout, credentials=credentials) as client:  # errors: exit 1
        listing = client.list_jobs()
    if args.json:
        print(json.dumps(dataclasses.asdict(listing), default=_json))
    else:
        print(format_jobs(listing))
    return 0


def _json(value: object) -> str:
    """A job's key as hex (the caller's own jobs only); anything else as its text."""
    return value.hex() if isinstance(value, bytes) else str(value)
