# SPDX-License-Identifier: Apache-2.0
"""The `p4reduce` command: demo, aggregator, worker, controller, testbed, wireshark-plugin.

Exit codes: 0 success; 1 the operation failed (timeout, switch error, wrong
result); 2 a mistake in the command line or an input file (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import traceback
from typing import TYPE_CHECKING

import numpy as np

import p4reduce
from p4reduce.cli import args as a
from p4reduce.cli.args import UsageError
from p4reduce.cli.credentials import add_client_options, add_server_options, client_credentials, server_security
from p4reduce.cli.pcap import add_pcap_option, recording

if TYPE_CHECKING:
    from p4reduce.aggregator import JobSpec
from p4reduce.protocol import AGG_UDP_PORT, MAX_BLOCK_SIZE, MAX_JOB_ID, MAX_SLOTS, MAX_WORKERS, Mode

log = logging.getLogger("p4reduce.cli")


def _job_spec(text: str) -> JobSpec:
    from p4reduce.aggregator import JobSpec

    try:
        return JobSpec.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _group(text: str) -> tuple[str, int]:
    from p4reduce.aggregator.config import parse_group

    try:
        return parse_group(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _endpoints(text: str) -> tuple[tuple[str, int], ...]:
    """Aggregator addresses: HOST:PORT[,HOST:PORT...], each with a port a server can have."""
    endpoints = tuple(a.host_port(part) for part in text.split(","))
    for host, port in endpoints:
        if port == 0:
            raise argparse.ArgumentTypeError(f"{host}:0: port 0 is no aggregator's port (1..65535)")
    return endpoints


def _message_size(text: str) -> int:
    from p4reduce.protocol.geometry import check_message_size

    value = a.int_range(0)(text)
    try:
        check_message_size(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _add_spin_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--spin-us, WorkerConfig.spin_us: `what` it does, for the parser's reader."""
    parser.add_argument(
        "--spin-us",
        type=a.int_range(0, 10_000),
        default=0,
        metavar="US",
        help=f"{what} (default: %(default)s, block at once)",
    )


def _add_job_geometry(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=[m.value for m in Mode],
        default="sparse",
        help="sparse: OmniReduce look-ahead, silent workers; dense: every worker "
        "answers every round (what the P4 switch runs) (default: %(default)s)",
    )
    p.add_argument(
        "--block-size",
        type=a.int_range(1, MAX_BLOCK_SIZE),
        default=256,
        metavar="N",
        help="values per block and packet; 32 for the P4 switch (default: %(default)s)",
    )
    p.add_argument(
        "--slots",
        type=a.int_range(1, MAX_SLOTS),
        default=256,
        metavar="N",
        help="slots = streams in flight (default: %(default)s)",
    )


# -- commands ----------------------------------------------------------------------------
def _cmd_demo(args: argparse.Namespace) -> int:
    from p4reduce.cli.demo import DemoConfig, format_summary, run_demo
    from p4reduce.protocol.auth import JobKey

    cfg = DemoConfig(
        workers=args.workers,
        elements=args.elements,
        density=args.density,
        block_size=args.block_size,
        slots=args.slots,
        mode=Mode(args.mode),
        dtype=args.dtype,
        iterations=args.iterations,
        seed=args.seed,
        loss=args.loss,
        multicast=args.multicast,
        key=JobKey.random() if args.authenticated else None,
        spin_us=args.spin_us,
    )
    summary = run_demo(cfg)
    print(json.dumps(summary, default=str) if args.json else format_summary(summary))
    return 0


def _cmd_aggregator(args: argparse.Namespace) -> int:
    from p4reduce.aggregator import sharded_servers

    if not args.job and args.admin is None:
        a.fail("--job SPEC is needed (or --admin HOST:PORT, for a job service to add jobs)")
    if args.admin is not None and args.threads > 1:
        a.fail("--admin serves one aggregator thread: leave --threads at 1")
    for job in args.job:  # a leaf's parent, named if it cannot be resolved
        if job.upstream is not None:
            a.resolve(f"--job {job.job_id} upstream", job.upstream.host)
    servers = sharded_servers(
        args.job,
        args.threads,
        host=args.bind[0],
        port=args.bind[1],
        engine=args.engine,
        udp_offload=not args.no_udp_offload,
    )
    addresses = ",".join(f"{s.address[0]}:{s.address[1]}" for s in servers)
    admin = None
    if args.admin is not None:
        from p4reduce.aggregator.admin import AdminServer

        try:
            admin = AdminServer(servers[0], args.admin, server_security(args))
        except (OSError, ValueError) as exc:
            for server in servers:
                server.stop()
            a.fail(f"--admin: {exc}")
    serving = ", ".join(j.describe() for j in args.job) or "no job yet"
    print(
        f"p4reduce aggregator on {addresses} serving {serving}"
        + (f" in {args.threads} shards" if args.threads > 1 else "")
        + (f"; admin on {admin.address[0]}:{admin.address[1]}" if admin else ""),
        flush=True,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    for server in servers:
        server.start()
    if admin is not None:
        admin.start()

    def counters() -> str:
        total: dict[str, int] = {}
        for server in servers:
            for key, value in server.counters().items():
                total[key] = total.get(key, 0) + value
        return json.dumps(total)

    try:
        while not done.wait(args.stats_interval or None):
            print(counters(), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        if admin is not None:
            admin.stop()
        for server in servers:
            server.stop()
        print(counters(), flush=True)
    return 0


def _load_tensor(path: str) -> np.ndarray:
    """A float32/int32 .npy file, checked before anything is sent."""
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError as exc:
        a.fail(f"--input {path}: {exc.strerror or exc}")
    if magic != b"\x93NUMPY" and not magic.startswith(b"PK"):  # numpy would give pickle advice
        a.fail(f"--input {path}: not an .npy file (save the tensor with numpy.save)")
    try:
        # Memory-mapped first: a header that claims more data than the file holds
        # fails here instead of allocating the claimed size.
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        a.fail(f"--input {path}: not a readable .npy file ({exc})")
    if not isinstance(mapped, np.ndarray):  # an .npz archive of several arrays
        mapped.close()
        a.fail(f"--input {path}: an .npz archive, not one array in an .npy file")
    if mapped.dtype not in (np.float32, np.int32):
        a.fail(f"--input {path}: dtype {mapped.dtype}; allreduce takes float32 or int32")
    if mapped.size == 0:
        a.fail(f"--input {path}: the array is empty (shape {mapped.shape})")
    return np.array(mapped)


def _cmd_worker(args: argparse.Namespace) -> int:
    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.protocol.auth import JobKey
    from p4reduce.testbed.synthetic import worker_tensor

    if args.controller is None and args.job is None:
        a.fail("--job ID is needed with --aggregator")
    if args.controller is not None and (args.job is not None or not args.job_name):
        a.fail("--controller takes --job-name NAME (the service assigns the job id), not --job")
    if args.controller is None and args.job_name:
        a.fail("--job-name goes with --controller")
    if args.controller is None and client_credentials(args) is not None:
        a.fail("--tls-ca, --tls-cert, --tls-key and --token-file go with --controller")
    if args.workers < 1 or not 0 <= args.rank < args.workers:
        a.fail(f"--rank {args.rank} with --workers {args.workers}: ranks are 0..{args.workers - 1}")
    aggregators: tuple[tuple[str, int], ...] = tuple(args.aggregator or [("127.0.0.1", AGG_UDP_PORT)])
    cfg = WorkerConfig(
        args.job or 0,
        args.rank,
        args.workers,
        aggregator=aggregators[0],
        aggregators=aggregators if len(aggregators) > 1 else (),
        controller=args.controller,
        credentials=client_credentials(args),
        job_name=args.job_name or "",
        mode=Mode(args.mode),
        slot_base=args.slot_base,
        num_slots=args.slots,
        block_size=args.block_size,
        bind=args.bind,
        timeout=args.timeout,
        total_workers=args.total_workers,
        group=args.group,
        message_size=args.message_size,
        udp_offload=not args.no_udp_offload,
        key=JobKey.from_file(args.key_file) if args.key_file else None,
        transport=args.transport,
        interface=args.interface,
        gateway_mac=args.gateway_mac,
        spin_us=args.spin_us,
    )
    # Everything the command line names is checked before anything is sent.
    output = a.output_file("--output", args.output) if args.output else None
    for host, _ in args.aggregator or ():
        a.resolve("--aggregator", host)
    if args.controller is not None:
        a.resolve("--controller", args.controller[0])
    if args.input:
        tensor = _load_tensor(args.input)
    else:
        tensor = worker_tensor(args.seed, args.rank, args.elements, args.block_size, args.density, args.dtype)
    result = None
    with recording(args.pcap) as start_recording, HostAgent(cfg) as agent:
        start_recording()  # the agent's sockets exist, nothing is sent yet (it joins in allreduce)
        for i in range(args.iterations):
            result = agent.allreduce(tensor)
            s = agent.last_stats
            print(
                json.dumps(
                    {
                        "iteration": i,
                        "seconds": s.seconds,
                        "density": s.density,
                        "packets_sent": s.packets_sent,
                        "wire_bytes_sent": s.wire_bytes_sent,
                        "retransmissions": s.retransmissions,
                        "queries": s.queries,
                        "packets_received": s.packets_received,
                        "ignored_packets": s.ignored_packets,
                        "checksum": float(np.sum(result, dtype=np.float64)),
                        # where the job service placed the job (--controller): switch or software
                        **({"target": agent.placement.target} if agent.placement is not None else {}),
                    }
                ),
                flush=True,
            )
    if output is not None:
        assert result is not None  # iterations >= 1 (checked with the arguments)
        with open(output, "wb") as f:  # the name as given (np.save would append .npy)
            np.save(f, result)
    return 0


# -- parser --------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = a.Parser(prog="p4reduce", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="-v: progress at INFO and tracebacks of errors; -vv: DEBUG "
        "(every P4Runtime request, every dropped packet)",
    )
    parser.add_argument("--version", action="version", version=f"p4reduce {p4reduce.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="aggregator + N local worker processes, checked against numpy",
        description="A software aggregator and N worker processes on this machine; "
        "every result is checked against numpy.",
    )
    demo.add_argument(
        "--workers",
        type=a.int_range(1, MAX_WORKERS),
        default=4,
        metavar="N",
        help="worker processes (default: %(default)s)",
    )
    a.add_tensor_options(demo, "each worker's tensor")
    demo.add_argument(
        "--iterations", type=a.int_range(1), default=3, metavar="N", help="timed allreduces (default: %(default)s)"
    )
    demo.add_argument(
        "--loss",
        type=a.float_range(0.0, 0.9),
        default=0.0,
        metavar="FRACTION",
        help="simulated packet loss both ways, 0..0.9 (default: %(default)s)",
    )
    demo.add_argument("--json", action="store_true", help="print the summary as JSON")
    demo.add_argument(
        "--authenticated",
        action="store_true",
        help="an authenticated job: every packet carries a MAC under a random key",
    )
    demo.add_argument(
        "--multicast", action="store_true", help="results go once to an IP multicast group instead of once per worker"
    )
    _add_spin_option(demo, "each worker polls its sockets without sleeping this long before it blocks")
    _add_job_geometry(demo)
    demo.set_defaults(func=_cmd_demo)

    agg = sub.add_parser(
        "aggregator",
        help="run a software aggregator",
        description="Serve one or more jobs on a UDP socket until SIGTERM or Ctrl-C.",
    )
    agg.add_argument(
        "--bind",
        type=a.host_port,
        default=("0.0.0.0", AGG_UDP_PORT),
        metavar="HOST:PORT",
        help=f"address to serve on (default: 0.0.0.0:{AGG_UDP_PORT})",
    )
    agg.add_argument(
        "--job",
        type=_job_spec,
        action="append",
        default=[],
        metavar="SPEC",
        help="JOB:WORKERS[:key=value,...] (repeatable; needed unless --admin); keys: mode=sparse|dense, "
        "block_size=N, slot_base=N, num_slots=N, message_size=BYTES (0: one packet "
        "per datagram); workers=IP[:PORT]/... admits only those (one per rank); "
        "group=ADDR:PORT sends results once to an IP multicast group; max_blocks=N caps "
        "a tensor's blocks (default 1048576); key_file=PATH authenticates every packet "
        "with the key in PATH; a leaf of a hierarchy adds upstream=HOST[:PORT],up_job=J,"
        "up_rank=R",
    )
    agg.add_argument(
        "--admin",
        type=a.host_port,
        metavar="HOST:PORT",
        help="also serve the AggregatorAdmin gRPC API there, through which a job service "
        "(`controller serve`, fallback.aggregators) adds and removes jobs; callers need role admin "
        "(the credentials options below; without any it binds loopback only) (needs the controller extra)",
    )
    agg.add_argument(
        "--threads",
        type=a.int_range(1, 64),
        default=1,
        metavar="N",
        help="split every job's streams over N aggregator threads on ports PORT.."
        "PORT+N-1 (workers list all of them in --aggregator; default: %(default)s)",
    )
    agg.add_argument(
        "--engine",
        choices=["native", "python"],
        default="native",
        help="native: the C data path (p4reduce._engine); python: the reference model "
        "it is tested against (default: %(default)s)",
    )
    agg.add_argument(
        "--no-udp-offload",
        action="store_true",
        help="native engine: do not use UDP GSO/GRO even where the kernel has them "
        "(e.g. a path whose MTU is below the datagrams' size)",
    )
    agg.add_argument(
        "--stats-interval",
        type=a.float_range(0.0),
        default=0.0,
        metavar="SECONDS",
        help="print counters every SECONDS (0: only at exit; default: %(default)s)",
    )
    add_server_options(agg, "--admin")
    agg.set_defaults(func=_cmd_aggregator)

    wk = sub.add_parser(
        "worker",
        help="run one worker: allreduce a .npy file or a synthetic tensor",
        description="One worker of a job: allreduce a .npy file (or a synthetic "
        "block-sparse tensor) through an aggregator or the P4 switch.",
    )
    where = wk.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--aggregator",
        type=_endpoints,
        metavar="HOST:PORT[,HOST:PORT...]",
        help="the aggregator (or the switch's aggregation address); several, comma-separated, "
        "in shard order, when the job is sharded (stream s goes to the (s mod k)-th)",
    )
    where.add_argument(
        "--controller",
        type=a.host_port,
        metavar="HOST:PORT",
        help="the job service (p4reduce controller serve): it places the job called --job-name on "
        "the switch or a software aggregator and gives its id and geometry",
    )
    wk.add_argument(
        "--job",
        type=a.int_range(0, MAX_JOB_ID),
        metavar="ID",
        help=f"job id, 0..{MAX_JOB_ID} (with --aggregator)",
    )
    wk.add_argument(
        "--job-name",
        metavar="NAME",
        help="the job's name at the job service, the same on every worker (with --controller)",
    )
    wk.add_argument(
        "--rank",
        type=a.int_range(0, MAX_WORKERS - 1),
        required=True,
        metavar="R",
        help="this worker's rank within the job, 0..WORKERS-1",
    )
    wk.add_argument(
        "--workers", type=a.int_range(1, MAX_WORKERS), required=True, metavar="N", help="workers in the job"
    )
    wk.add_argument(
        "--slot-base",
        type=a.int_range(0, MAX_SLOTS - 1),
        default=0,
        metavar="N",
        help="first slot of the job (default: %(default)s)",
    )
    wk.add_argument(
        "--group",
        type=_group,
        default=None,
        metavar="ADDR:PORT",
        help="IP multicast group the aggregator sends results to",
    )
    wk.add_argument(
        "--total-workers",
        type=a.int_range(1, 1 << 16),
        default=None,
        metavar="N",
        help="workers in the whole hierarchy when the aggregator is a leaf",
    )
    wk.add_argument(
        "--bind",
        type=a.host_port,
        default=("0.0.0.0", 0),
        metavar="HOST:PORT",
        help="local address (default: any, ephemeral port)",
    )
    wk.add_argument(
        "--timeout",
        type=a.float_range(0.0, 0.5, low_open=True),
        default=0.05,
        metavar="SECONDS",
        help="minimum retransmission timeout (default: %(default)s)",
    )
    wk.add_argument(
        "--key-file",
        metavar="PATH",
        default=None,
        help="the job's key file: every packet carries a MAC, packets without a valid one "
        "are dropped (the aggregator's job needs key_file= with the same file)",
    )
    wk.add_argument(
        "--message-size",
        type=_message_size,
        default=65000,
        metavar="BYTES",
        help="largest datagram payload: packets travel several per datagram up to it "
        "(0: one per datagram; 1472 on a 1500-byte link; default: %(default)s)",
    )
    wk.add_argument(
        "--no-udp-offload",
        action="store_true",
        help="do not use UDP GSO/GRO even where the kernel has them (e.g. a path whose "
        "MTU is below the datagrams' size)",
    )
    wk.add_argument(
        "--transport",
        choices=("udp", "packet", "xdp"),
        default="udp",
        help="how datagrams travel: udp (a UDP socket per aggregator), packet (AF_PACKET "
        "rings on the interface towards it, the native engine building the frames; needs "
        "CAP_NET_RAW), xdp (an AF_XDP socket and XDP program on that interface; needs root and "
        "p4reduce built with libxdp/libbpf) (default: %(default)s)",
    )
    wk.add_argument(
        "--interface",
        metavar="IF",
        default=None,
        help="--transport packet/xdp: the interface to send on (default: that of the route to the aggregator)",
    )
    wk.add_argument(
        "--gateway-mac",
        metavar="MAC",
        default=None,
        help="--transport packet/xdp: the next hop's MAC (default: the neighbour table's entry for "
        "the route's next hop, e.g. a static ARP entry of the switch's aggregation address, "
        "else an ARP request)",
    )
    _add_spin_option(
        wk,
        "how long the native engine polls its sockets (or receive rings) without sleeping before it blocks "
        "(on a machine with fewer cores than processes spinning takes the CPU the others need)",
    )
    wk.add_argument("--input", metavar="FILE.npy", help="float32 or int32 .npy file (default: a synthetic tensor)")
    wk.add_argument("--output", metavar="FILE.npy", help="write the last result to this file")
    add_pcap_option(wk)
    a.add_tensor_options(wk, "the synthetic tensor")
    wk.add_argument(
        "--iterations",
        type=a.int_range(1),
        default=1,
        metavar="N",
        help="allreduces of the same tensor (default: %(default)s)",
    )
    _add_job_geometry(wk)
    add_client_options(wk)
    wk.set_defaults(func=_cmd_worker)

    from p4reduce.cli.controller import add_controller_parser

    add_controller_parser(sub)
    from p4reduce.cli.testbed import add_testbed_parser

    add_testbed_parser(sub)
    from p4reduce.cli.wireshark import add_wireshark_parser

    add_wireshark_parser(sub)
    return parser


def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _configure_logging(args.verbose)
    prog = " ".join(filter(None, ["p4reduce", args.command, getattr(args, "action", None)]))
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except (UsageError, ValueError) as exc:
        # Validation of arguments, configuration files and input tensors.
        if args.verbose:
            traceback.print_exc()
        a.stderr_line(prog, str(exc))
        return a.USAGE_ERROR
    except (OSError, RuntimeError, OverflowError, ImportError) as exc:
        # The operation failed: unreachable peer, timeout, switch error, wrong result, missing extra.
        if args.verbose:
            traceback.print_exc()
        a.stderr_line(prog, str(exc) or type(exc).__name__)
        return 1
    except Exception as exc:  # a bug: never hidden, the traceback is one -v away
        if args.verbose:
            raise
        a.stderr_line(prog, f"internal error {type(exc).__name__}: {exc} (run with -v for the traceback)")
        return 1


if __name__ == "__main__":
    sys.exit(main())
