"""`python -m controller ...` (and `p4reduce controller ...`): install, counters, reset."""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from p4reduce.controller.client import SwitchClient, load_pipeline_files
from p4reduce.controller.config import Config, load_config
from p4reduce.controller.errors import ControllerError



def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="p4reduce controller",
                                 description="P4Runtime controller for the p4reduce switch program")
    sub = ap.add_subparsers(dest="command", required=True)

    def command(name: str, help_: str, grpc: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--config", required=True, help="switch configuration (.json or .yaml)")
        if grpc:
            p.add_argument("--timeout", type=float, default=5.0,
                           help="seconds to wait for the switch to answer (default 5)")
        return p

    p = command("install", "push the pipeline, then install the jobs, L2 entries and broadcast")
    p.add_argument("--p4info", default=None, help="P4Info text protobuf")
    p.add_argument("--json", default=None, help="BMv2 JSON (device config)")
    p = command("counters", "print the switch's event counters as JSON")
    p.add_argument("--p4info", help="P4Info of the running program (default: ask the switch)")
    p = command("reset", "forget a job's aggregation state (BMv2 thrift port; stop its workers first)",
                grpc=False)
    p.add_argument("--job", type=int, required=True, help="job id")
    p.add_argument("--json", default=None, help="BMv2 JSON, for the register names")
    p.add_argument("--cli", default="simple_switch_CLI", help="BMv2 thrift CLI executable")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        cfg = load_config(args.config)
        return {"install": _install, "counters": _counters, "reset": _reset}[args.command](args, cfg)
    except ControllerError as exc:
        print(f"p4reduce controller: error: {exc}", file=sys.stderr)
        return 1


def _install(args: argparse.Namespace, cfg: Config) -> int:
    # Check the files before touching the switch: a bad P4Info must not
    # replace a working pipeline.
    load_pipeline_files(args.p4info, args.json)
    with SwitchClient.from_config(cfg.switch, args.timeout) as client:
        client.push_pipeline(args.p4info, args.json)
        client.install(cfg)
    workers = sum(j.num_workers for j in cfg.jobs)
    print(f"installed {len(cfg.jobs)} job(s), {workers} worker(s), {len(cfg.l2)} L2 entr"
          f"{'y' if len(cfg.l2) == 1 else 'ies'}{', broadcast' if cfg.broadcast else ''} "
          f"on {cfg.switch.grpc_addr}")
    return 0


def _counters(args: argparse.Namespace, cfg: Config) -> int:
    # Reads need no arbitration: do not take the primary role from a running controller.
    with SwitchClient.from_config(cfg.switch, args.timeout, arbitrate=False) as client:
        if args.p4info:
            client.use_pipeline(args.p4info)
        else:
            client.fetch_pipeline()
        print(json.dumps(client.read_counters()))
    return 0


def _reset(args: argparse.Namespace, cfg: Config) -> int:
    # Registers are reachable only over BMv2's thrift port: no P4Runtime session needed.
    job = cfg.job(args.job)
    client = SwitchClient(cfg.switch.grpc_addr, cfg.switch.device_id, cfg.switch.election_id,
                          thrift_port=cfg.switch.thrift_port)
    client.use_bmv2_json(args.json)
    cells = client.reset_job(job, cli=args.cli)
    print(f"job {job.job_id}: zeroed {cells} register cells (slots {job.slot_base}.."
          f"{job.slot_base + job.num_slots - 1}, both versions) via thrift port {cfg.switch.thrift_port}")
    return 0
