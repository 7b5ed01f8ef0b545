# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller install|install-tree|counters|reset|serve`: the P4Runtime controller's command line.

The controller package is imported only when one of these runs, so the rest of
the command works without the `controller` extra.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from p4reduce.cli import args as a
from p4reduce.cli.jobs import add_jobs_action
from p4reduce.cli.serve import add_serve_action
from p4reduce.protocol import MAX_JOB_ID

if TYPE_CHECKING:
    from p4reduce.controller.bfrt.tofino import TofinoClient
    from p4reduce.controller.config import Config


def add_controller_parser(sub: argparse._SubParsersAction[a.Parser]) -> None:
    ctl = sub.add_parser(
        "controller",
        help="controller of the P4 switch (BMv2 over P4Runtime, Tofino over BF Runtime)",
        description="Program the p4reduce P4 switch: push the pipeline (BMv2), install jobs, read "
        "counters, reset a job; --target tofino (or switch.kind: tofino) drives the TNA program over BF Runtime.",
    )
    actions = ctl.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(
        name: str, help_: str, func: Callable[[argparse.Namespace], int], grpc: bool = True
    ) -> argparse.ArgumentParser:
        p = actions.add_parser(name, help=help_, description=help_)
        p.add_argument(
            "--config",
            required=True,
            metavar="FILE",
            help="switch configuration (.json or .yaml; see controller/example_config.yaml)",
        )
        if grpc:
            a.add_answer_timeout(p, "the switch")
            add_target(p)
        p.set_defaults(func=func)
        return p

    p = action(
        "install",
        "push the pipeline (BMv2; a Tofino runs what bf_switchd loaded: its ports are brought up and "
        "the controller's tables cleared instead), then install the jobs, L2 entries and broadcast",
        _install,
    )
    p.add_argument(
        "--p4info", metavar="FILE", help="P4Info text protobuf (default: the compiled program shipped with p4reduce)"
    )
    p.add_argument(
        "--json", metavar="FILE", help="BMv2 JSON device config (default: the compiled program shipped with p4reduce)"
    )
    p = actions.add_parser(
        "install-tree",
        help="program every switch of a job spanning several switches (leaves under a spine)",
        description="Push the pipeline to every switch of a tree document (see controller/examples/tree.yaml) "
        "and install its jobs: on each leaf the job of the workers under it, with its uplink to the spine; "
        "on the spine the job whose members are the leaves. Prints where each rank runs.",
    )
    p.add_argument(
        "--tree",
        required=True,
        metavar="FILE",
        help="tree document: switches, links, jobs (.json or .yaml; see controller/examples/tree.yaml)",
    )
    p.add_argument(
        "--p4info", metavar="FILE", help="P4Info text protobuf (default: the compiled program shipped with p4reduce)"
    )
    p.add_argument(
        "--json", metavar="FILE", help="BMv2 JSON device config (default: the compiled program shipped with p4reduce)"
    )
    a.add_answer_timeout(p, "each switch")
    p.set_defaults(func=_install_tree)
    p = action("counters", "print the switch's event counters as JSON", _counters)
    p.add_argument("--p4info", metavar="FILE", help="P4Info of the running program (default: ask the switch)")
    p.add_argument(
        "--jobs",
        action="store_true",
        help='also each configured job\'s own counters: {"switch": {event: n}, "jobs": {id: {packets, drops, '
        "retransmissions, rounds}}}",
    )
    p = action(
        "reset",
        "reset a job: a new session in its worker entries, then its registers zeroed (BMv2: over "
        "P4Runtime and its thrift port; Tofino: over BF Runtime). Stop the job's workers first",
        _reset,
    )
    p.add_argument(
        "--job", type=a.int_range(0, MAX_JOB_ID), required=True, metavar="ID", help="job id of the configuration"
    )
    p.add_argument(
        "--json",
        metavar="FILE",
        help="BMv2 JSON, for the register names (default: the compiled program shipped with p4reduce)",
    )
    add_serve_action(actions)
    add_jobs_action(actions)


def add_target(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--target",
        choices=("bmv2", "tofino"),
        help="the switch's kind: bmv2 (P4Runtime + thrift, the v1model program) or tofino (BF Runtime gRPC, "
        "the TNA program); default: the configuration's switch.kind, else bmv2",
    )


def _load(args: argparse.Namespace) -> Config:
    from p4reduce.controller.config import load_config

    return load_config(args.config, args.target)


def _tofino(cfg: Config, timeout: float) -> TofinoClient:
    from p4reduce.controller.bfrt.tofino import TofinoClient

    s = cfg.switch
    return TofinoClient.connect(
        s.bfrt_addr, s.device_id, s.client_id, s.program, timeout, rpc_timeout=max(timeout, 60.0)
    )


def _install_tofino(cfg: Config, timeout: float) -> None:
    """What a pipeline push and an install do on BMv2: the ports up, the controller's
    tables and the jobs' groups emptied, the jobs' registers and counters zeroed, then
    everything installed."""
    with _tofino(cfg, timeout) as client:
        if cfg.switch.ports:
            client.configure_ports(cfg.switch.ports)
        mgids = [j.mgid for j in cfg.jobs] + ([cfg.broadcast.mgid] if cfg.broadcast else [])
        client.clear_tables(mgids)
        for job in cfg.jobs:
            client.clear_job_registers(job)
            client.clear_job_counters(job.slot_base)
        client.install(cfg)


def _pipeline_files(args: argparse.Namespace) -> tuple[str, str]:
    from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact

    p4info = getattr(args, "p4info", None) or str(build_artifact(P4INFO))
    bmv2_json = args.json or str(build_artifact(BMV2_JSON))
    return p4info, bmv2_json


def _install(args: argparse.Namespace) -> int:
    from p4reduce.controller.client import SwitchClient, load_pipeline_files

    cfg = _load(args)
    if cfg.switch.kind == "tofino":
        _install_tofino(cfg, args.timeout)
    else:
        p4info, bmv2_json = _pipeline_files(args)
        # Check the files before touching the switch: a bad P4Info must not
        # replace a working pipeline.
        load_pipeline_files(p4info, bmv2_json)
        with SwitchClient.from_config(cfg.switch, args.timeout) as client:
            client.push_pipeline(p4info, bmv2_json)
            client.install(cfg)
    workers = sum(j.num_workers for j in cfg.jobs)
    print(
        f"installed {len(cfg.jobs)} job(s), {workers} worker(s), {len(cfg.l2)} L2 entr"
        f"{'y' if len(cfg.l2) == 1 else 'ies'}{', broadcast' if cfg.broadcast else ''} "
        f"on {cfg.switch.address}"
    )
    return 0


def _install_tree(args: argparse.Namespace) -> int:
    from p4reduce.controller.client import SwitchClient, load_pipeline_files, new_session
    from p4reduce.controller.tree import load_tree, placement, switch_configs, tree_sessions

    tree = load_tree(args.tree)
    configs = switch_configs(tree, tree_sessions(tree, new_session))  # every check before any write
    p4info, bmv2_json = _pipeline_files(args)
    load_pipeline_files(p4info, bmv2_json)
    for name in (*tree.leaves, tree.spine):  # the spine last: it answers only once every leaf is ready
        cfg = configs[name]
        with SwitchClient.from_config(cfg.switch, args.timeout) as client:
            client.push_pipeline(p4info, bmv2_json)
            client.install(cfg)
        role = "spine" if name == tree.spine else "leaf"
        print(f"{role} {name} ({cfg.switch.grpc_addr}): {len(cfg.jobs)} job(s)")
    for job in tree.jobs:
        total = len(job.workers)
        for place in placement(tree, job.job_id):
            print(
                f"job {job.job_id} rank {place.rank}: under {place.leaf}: --job {job.job_id} --rank {place.local_rank} "
                f"--workers {place.local_workers} --total-workers {total}"
            )
    return 0


def _counters(args: argparse.Namespace) -> int:
    from p4reduce.controller.client import SwitchClient

    cfg = _load(args)
    client: SwitchClient | TofinoClient
    if cfg.switch.kind == "tofino":
        client = _tofino(cfg, args.timeout)
    else:
        # Reads need no arbitration: do not take the primary role from a running controller.
        client = SwitchClient.from_config(cfg.switch, args.timeout, arbitrate=False)
        if args.p4info:
            client.use_pipeline(args.p4info)
        else:
            client.fetch_pipeline()
    with client:
        events = client.read_counters()
        if not args.jobs:
            print(json.dumps(events))
            return 0
        by_base = client.read_job_counters(job.slot_base for job in cfg.jobs)
        jobs = {str(job.job_id): by_base[job.slot_base] for job in cfg.jobs}
        print(json.dumps({"switch": events, "jobs": jobs}))
    return 0


def _reset(args: argparse.Namespace) -> int:
    from p4reduce.controller.client import SwitchClient

    cfg = _load(args)
    job = cfg.job(args.job)
    if cfg.switch.kind == "tofino":
        with _tofino(cfg, args.timeout) as tofino:
            cells = tofino.reset_job(job).cells
        print(
            f"job {job.job_id}: new session; zeroed {cells} register cells (slots {job.slot_base}.."
            f"{job.slot_base + job.num_slots - 1}, both shadow copies) via BF Runtime {cfg.switch.bfrt_addr}"
        )
        return 0
    _, bmv2_json = _pipeline_files(args)
    # The new session is a P4Runtime write (as primary, with the names of the
    # running program); the registers are reachable only over BMv2's thrift port.
    with SwitchClient.from_config(cfg.switch, args.timeout) as client:
        client.fetch_pipeline()
        client.use_bmv2_json(bmv2_json)
        cells = client.reset_job(job).cells
    print(
        f"job {job.job_id}: zeroed {cells} register cells (slots {job.slot_base}.."
        f"{job.slot_base + job.num_slots - 1}, both shadow copies) via thrift port "
        f"{cfg.switch.thrift_port}"
    )
    return 0
