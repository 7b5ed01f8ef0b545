"""`p4reduce controller ...` / `python -m controller ...`: install, counters, reset."""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from controller.client import NotPrimary, SwitchClient, SwitchUnreachable
from controller.config import ConfigError, load_config
from controller.p4info import P4InfoError

BUILD = pathlib.Path(__file__).resolve().parents[1] / "p4src" / "build"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="p4reduce controller",
                                 description="P4Runtime controller for the p4reduce switch")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, help_ in (("install", "push the pipeline and install jobs, L2 and multicast"),
                        ("counters", "print the switch's event counters as JSON"),
                        ("reset", "forget a job's aggregation state")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--config", required=True, help="JSON or YAML switch configuration")
        p.add_argument("--p4info", default=str(BUILD / "p4reduce.p4info.txtpb"))
        p.add_argument("--json", default=str(BUILD / "p4reduce.json"), help="BMv2 JSON")
        p.add_argument("--timeout", type=float, default=5.0)
        if name == "reset":
            p.add_argument("--job", type=int, required=True)
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config)
        sw = cfg.switch
        with SwitchClient.connect(sw.grpc_addr, sw.device_id, sw.election_id, args.timeout) as client:
            if args.command == "install":
                client.push_pipeline(args.p4info, args.json)
                client.install(cfg)
                print(f"installed {len(cfg.jobs)} job(s) on {sw.grpc_addr}")
            elif args.command == "counters":
                client.use_pipeline(args.p4info)
                print(json.dumps(client.read_counters()))
            else:
                client.use_pipeline(args.p4info, args.json)
                client.reset_job(cfg.job(args.job), sw.thrift_port)
                print(f"job {args.job} reset")
    except (ConfigError, P4InfoError, SwitchUnreachable, NotPrimary, FileNotFoundError,
            RuntimeError) as exc:
        print(f"p4reduce controller: error: {exc}", file=sys.stderr)
        return 1
    return 0
