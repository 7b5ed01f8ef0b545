"""The `p4reduce` command: demo, aggregator, worker, controller."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading

import numpy as np

from p4reduce.protocol import AGG_UDP_PORT, Mode


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host or "0.0.0.0", int(port)


def _density(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("density must be within [0, 1]")
    return value


def _group(text: str) -> tuple[str, int]:
    from p4reduce.aggregator.config import parse_group
    try:
        return parse_group(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_job_geometry(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=[m.value for m in Mode], default="sparse",
                   help="sparse: OmniReduce look-ahead, silent workers; dense: every worker "
                        "answers every round (what the P4 switch runs)")
    p.add_argument("--block-size", type=int, default=256, help="values per packet (32 for the P4 switch)")
    p.add_argument("--slots", type=int, default=256, help="slots = streams in flight")


def _cmd_demo(args: argparse.Namespace) -> int:
    from p4reduce.cli.demo import DemoConfig, format_summary, run_demo
    cfg = DemoConfig(workers=args.workers, elements=args.elements, density=args.density,
                     block_size=args.block_size, slots=args.slots, mode=Mode(args.mode),
                     dtype=args.dtype, iterations=args.iterations, seed=args.seed, loss=args.loss,
                     multicast=args.multicast)
    summary = run_demo(cfg)
    print(json.dumps(summary, default=str) if args.json else format_summary(summary))
    return 0


def _cmd_aggregator(args: argparse.Namespace) -> int:
    from p4reduce.aggregator import AggregatorServer, JobSpec
    jobs = [JobSpec.parse(text) for text in args.job]
    server = AggregatorServer(jobs, host=args.bind[0], port=args.bind[1])
    print(f"p4reduce aggregator on {server.address[0]}:{server.address[1]} serving "
          + ", ".join(f"job {j.job_id} ({j.num_workers} workers, {j.mode.value}, "
                      f"slots {j.slot_base}..{j.slot_base + j.num_slots - 1}, block {j.block_size})"
                      for j in jobs), flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    server.start()
    try:
        while not done.wait(args.stats_interval or None):
            print(json.dumps(server.counters()), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print(json.dumps(server.counters()), flush=True)
    return 0


def _cmd_worker(args: argparse.Namespace) -> int:
    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.testbed.synthetic import worker_tensor
    if args.input:
        tensor = np.load(args.input)
    else:
        tensor = worker_tensor(args.seed, args.rank, args.elements, args.block_size, args.density,
                               args.dtype)
    cfg = WorkerConfig(args.job, args.rank, args.workers, aggregator=args.aggregator,
                       mode=Mode(args.mode), slot_base=args.slot_base, num_slots=args.slots,
                       block_size=args.block_size, bind=args.bind, timeout=args.timeout,
                       total_workers=args.total_workers, group=args.group)
    with HostAgent(cfg) as agent:
        for i in range(args.iterations):
            result = agent.allreduce(tensor)
            s = agent.last_stats
            print(json.dumps({"iteration": i, "seconds": s.seconds, "density": s.density,
                              "packets_sent": s.packets_sent, "wire_bytes_sent": s.wire_bytes_sent,
                              "retransmissions": s.retransmissions, "queries": s.queries,
                              "checksum": float(np.sum(result, dtype=np.float64))}), flush=True)
    if args.output:
        np.save(args.output, result)
    return 0


def _cmd_controller(argv: list[str]) -> int:
    from p4reduce.cli.controller import main as controller_main
    return int(controller_main(argv) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p4reduce", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="aggregator + N local worker processes, checked against numpy")
    demo.add_argument("--workers", type=int, default=4)
    demo.add_argument("--elements", type=int, default=1_000_000)
    demo.add_argument("--density", type=_density, default=0.1, help="fraction of non-zero blocks")
    demo.add_argument("--dtype", choices=["float32", "int32"], default="float32")
    demo.add_argument("--iterations", type=int, default=3)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--loss", type=float, default=0.0, help="simulated packet loss (both ways)")
    demo.add_argument("--json", action="store_true", help="print the summary as JSON")
    demo.add_argument("--multicast", action="store_true",
                      help="results go once to an IP multicast group instead of once per worker")
    _add_job_geometry(demo)
    demo.set_defaults(func=_cmd_demo)

    agg = sub.add_parser("aggregator", help="run a software aggregator")
    agg.add_argument("--bind", type=_host_port, default=("0.0.0.0", AGG_UDP_PORT))
    agg.add_argument("--job", action="append", required=True,
                     help="JOB:WORKERS[:mode=sparse|dense,block_size=N,slot_base=N,num_slots=N]"
                          " (repeatable); a leaf of a hierarchy adds "
                          "upstream=HOST[:PORT],up_job=J,up_rank=R; group=ADDR:PORT sends results"
                          " once to an IP multicast group")
    agg.add_argument("--stats-interval", type=float, default=0.0,
                     help="print counters every N seconds (0: only at exit)")
    agg.set_defaults(func=_cmd_aggregator)

    wk = sub.add_parser("worker", help="run one worker: allreduce a .npy file or a synthetic tensor")
    wk.add_argument("--aggregator", type=_host_port, required=True)
    wk.add_argument("--job", type=int, required=True)
    wk.add_argument("--rank", type=int, required=True)
    wk.add_argument("--workers", type=int, required=True)
    wk.add_argument("--slot-base", type=int, default=0)
    wk.add_argument("--group", type=_group, default=None,
                    help="ADDRESS:PORT of the IP multicast group the aggregator sends results to")
    wk.add_argument("--total-workers", type=int, default=None,
                    help="workers in the whole hierarchy when the aggregator is a leaf")
    wk.add_argument("--bind", type=_host_port, default=("0.0.0.0", 0))
    wk.add_argument("--timeout", type=float, default=0.05, help="minimum retransmission timeout (s)")
    wk.add_argument("--input", help=".npy file (float32 or int32); default: synthetic tensor")
    wk.add_argument("--output", help="write the last result to this .npy file")
    wk.add_argument("--elements", type=int, default=1_000_000)
    wk.add_argument("--density", type=_density, default=0.1)
    wk.add_argument("--dtype", choices=["float32", "int32"], default="float32")
    wk.add_argument("--seed", type=int, default=0)
    wk.add_argument("--iterations", type=int, default=1)
    _add_job_geometry(wk)
    wk.set_defaults(func=_cmd_worker)

    sub.add_parser("controller", help="P4Runtime controller for the BMv2 switch "
                                      "(see `p4reduce controller --help`)", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["controller"]:
        return _cmd_controller(argv[1:])
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    try:
        return args.func(args)
    except (ValueError, TypeError, OverflowError, TimeoutError, OSError, RuntimeError) as exc:
        print(f"p4reduce {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
