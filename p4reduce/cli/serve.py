# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller serve`: the job service (p4reduce.service) until SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import signal
import time
from typing import Any

from p4reduce.cli import args as a
from p4reduce.cli.credentials import add_server_options, server_security

SERVICE_PORT = 9560  # the service's default gRPC port: next to P4Runtime's 9559


def add_serve_action(actions: Any) -> None:
    """The `serve` action on the controller's subcommands."""
    p = actions.add_parser(
        "serve",
        help="run the job service: workers ask it where to aggregate, it programs the switch",
        description="Run the job service (gRPC, p4reduce/jobapi/jobs.proto): jobs are created by name, "
        "placed on the switch when they fit (the service pushes the pipeline and writes every entry) "
        "and on the fallback software aggregator when not; leases free what a crashed job held.",
    )
    p.add_argument(
        "--config",
        required=True,
        metavar="FILE",
        help="service configuration (.yaml or .json): switch, fallback, job defaults (see p4reduce/service/config.py)",
    )
    p.add_argument(
        "--bind",
        type=a.host_port,
        default=None,
        metavar="HOST:PORT",
        help=f"address of the gRPC service (default: 0.0.0.0:{SERVICE_PORT} with credentials, "
        f"127.0.0.1:{SERVICE_PORT} without)",
    )
    p.add_argument(
        "--metrics",
        type=a.host_port,
        metavar="HOST:PORT",
        help="serve Prometheus text at http://HOST:PORT/metrics (default: no metrics endpoint)",
    )
    p.add_argument(
        "--state",
        metavar="FILE",
        help="keep the jobs, leases, placements and next job id in this sqlite3 file (created when "
        "missing) and, on start, take back the jobs recorded there and reconcile the aggregators with "
        "them (default: the config's 'state'; without either, a restart forgets every job)",
    )
    add_server_options(p, "the service")
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from p4reduce.service import JobServer, load_service_config  # grpc, PyYAML: the controller extra

    config = load_service_config(args.config)
    if args.state is not None:
        config = dataclasses.replace(config, state=pathlib.Path(args.state))
    config = dataclasses.replace(config, security=server_security(args, config.security))
    config.tenant_quotas()  # a --tenants file's bad quota named now
    bind = args.bind or ("0.0.0.0" if config.security.configured else "127.0.0.1", SERVICE_PORT)
    with JobServer(config, bind, metrics=args.metrics) as server:
        print(_banner(server), flush=True)
        # SIGTERM unwinds the main thread like Ctrl-C (an Event set from a signal handler can
        # deadlock on the lock the interrupted wait holds); stopping is then not interrupted.
        signal.signal(signal.SIGTERM, _terminate)
        try:
            while True:
                time.sleep(3600)
        except (KeyboardInterrupt, _Terminated):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    return 0


class _Terminated(Exception):
    """SIGTERM arrived."""


def _terminate(signum: int, frame: object) -> None:
    raise _Terminated


def _banner(server: Any) -> str:
    """One line: where the service listens, and the state of its targets."""
    parts = [f"p4reduce job service on {server.address[0]}:{server.address[1]}"]
    coordinator = server.coordinator
    if coordinator.switch is not None:
        down = coordinator.switch.down
        parts.append(f"{coordinator.switch.name} " + ("up" if down is None else f"down ({down})"))
    if coordinator.fallback is not None:
        parts.append("fallback software aggregator on {}:{}".format(*coordinator.fallback.address))
    if server.metrics_address is not None:
        parts.append("metrics on http://{}:{}/metrics".format(*server.metrics_address))
    return "; ".join(parts)
