#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The worker transports side by side (WorkerConfig(transport="udp" | "packet" | "xdp")),
in one run: frames per second and per CPU-second on a veth pair into a packet sink and
out of a packet source, allreduces through BMv2 on veth pairs, and allreduces through
BMv2 in Mininet.

    sudo python3 benchmarks/transport_rates.py --markdown
    sudo python3 benchmarks/transport_rates.py --seconds 1 --repeats 1 --allreduce-repeats 1 --skip-mininet

Every cell runs the transport's own code: a HostAgent (p4reduce.hostagent) built with
the transport, its native engine's Run made by NativeEngine.make_run (hostagent/fastpath.py), as an
allreduce makes it; nothing here re-implements a transport. A transport that cannot
run (`xdp` while it is refused, "not implemented" or "built without AF_XDP") gets
"n/a" in its cells and its reason under the table; it is measured as soon as its
WorkerConfig and HostAgent work. Columns: `udp` (one datagram per frame, no GSO, as
towards a switch), `udp + GSO` (the same datagrams handed to the kernel as UDP_SEGMENT
buffers, as towards a software aggregator, and segmented in software on the veth
(gso_max_segs 1) as for a NIC without UDP segmentation offload: a veth would carry a
buffer whole; only the TX cells: receiving, a switch and Mininet's BMv2 runs have no
GSO), `packet` (AF_PACKET rings), `xdp` (AF_XDP).

Cells (each the median of `--repeats` runs, default 3, for the veth cells and of
`--allreduce-repeats`, default 5, for BMv2 and Mininet; the transports interleaved):

* **veth → sink, V values** (`--values`, default 32 and 256: 206- and 1102-byte
  frames): network namespaces A and B joined by a veth pair (MTU 1500, static ARP).
  In A a worker (job 1, dense, block size V, `--batch` slots, default 64) sends DATA
  packets of V values to B for `--seconds` (default 2) after 0.5 s of warm-up: its
  Run is started (every stream's opening DATA carries its block's V values) and then
  asked to resend every stream's
  last packet (Run.expire + Run.flush) over and over: `--batch` frames per flush, the
  engine's own send path (sendmmsg, UDP GSO, or the TX ring). B only counts: an
  nftables rule on its interface's ingress hook counts and drops the UDP datagrams
  (before IP, so the sink costs next to nothing). Rows: frames per second that
  reached the sink (in brackets, their share of the frames the worker queued: the
  rest the kernel or ring refused), and those frames per CPU-second of the worker
  process (user + system from getrusage; this kernel has no IRQ time accounting, so
  the softirq work veth does on the sender's CPU, B's ingress included, is in it).
* **veth ← source, V values**: the other way: in B a `udp + GSO` worker (the cell
  above's sender, job 2: the fastest source there is) sends DATA frames of V values from the aggregator's address to A's
  worker, whose Run polls (Run.poll: ppoll, then recvmmsg or the RX ring) and takes
  them (as packets of another job: received, parsed to the header, ignored). Rows:
  frames per second the worker took (in brackets: share of what the source sent), and
  frames per CPU-second of the worker process (its own CPU only: the kernel's receive
  path runs in the source's softirq on veth).
* **BMv2, 2 workers**: simple_switch_grpc (p4reduce.testbed.veth, the package's
  p4src/build) on two veth pairs, each worker in a namespace of its own (static ARP
  for the aggregation address), job 1 dense with `--slots` (default 64) slots of 32
  values, session fixed; per transport two worker processes each run one warm-up
  allreduce and `--bmv2-iterations` (default 20) timed allreduces of the same int32
  tensor of `--bmv2-elements` (default 16384: 512 blocks) at `--bmv2-density`
  (default 1: every block), checked exact against numpy. Rows: the median over the
  runs of each run's median time per allreduce (slowest worker; in brackets:
  allreduces per second, the range of the runs' medians, the retransmissions and
  queries of all runs if any), and packets sent (retransmissions included) per
  worker CPU-second. The switch's registers are cleared between transports.
* **Mininet BMv2, 4 workers, density d** (`--densities`, default 0.1 and 1):
  `python3 mininet/p4reduce_mininet.py --switch bmv2 --transport T --workers 4
  --elements E --densities ... --iterations N --slots S --no-gloo` with
  `--mininet-elements` (default 32768), `--mininet-iterations` (default 10) and
  `--slots`, its output parsed (the runner checks every result): the median over
  the runs of the runner's median allreduce time (slowest worker), in brackets the
  range of the runs and their retransmissions (all workers, all iterations) if any.
  A transport the runner does not offer is n/a.

The CPU is shared with the machine's other work: the load average is printed with the
results. `--markdown` prints the table headed by the command, the machine, the date
and the git commit. Needs root (namespaces, AF_PACKET), iproute2 and nftables; BMv2
and Mininet cells need simple_switch_grpc and Mininet, and are n/a without them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from _report import MarkdownReport, add_markdown_option, table

ROOT = pathlib.Path(__file__).resolve().parents[1]
SELF = pathlib.Path(__file__).resolve()
PY = sys.executable

# (column, transport, UDP GSO): the variants measured side by side.
VARIANTS = [("udp", "udp", False), ("udp + GSO", "udp", True), ("packet", "packet", False), ("xdp", "xdp", False)]
NO_GSO = [v for v in VARIANTS if not v[2]]
SESSION = 0x7A11_0001
TAG = 0x5EED_F00D  # the fingerprint the sink cells' Runs carry (nobody checks it)
A_IP, B_IP = "10.77.0.1", "10.77.0.2"
WORKER_PORT, AGG_PORT = 40001, 9000
WARMUP = 0.5
UDP_IP_HEADERS = 28  # IPv4 + UDP header bytes of a datagram, as the ingress counter counts them


# -- the roles this script plays inside a network namespace ------------------------------------


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _agent(spec: dict):
    """A HostAgent of spec's transport, 'joined' without an aggregator: its endpoint's session
    set by hand, a datagram per packet (`gso`: equal-size datagrams as UDP_SEGMENT buffers)."""
    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.protocol import HEADER_LEN

    cfg = WorkerConfig(
        spec["job"],
        0,
        2,
        aggregator=tuple(spec["peer"]),
        bind=tuple(spec["local"]),
        mode="dense",
        block_size=spec["values"],
        num_slots=spec["batch"],
        message_size=0,
        transport=spec["transport"],
    )
    agent = HostAgent(cfg)
    e = agent.engine.io.endpoints[0]
    e.session = SESSION
    e.pack_up_to = HEADER_LEN + 4 * spec["values"] if spec.get("gso") else 0
    if spec.get("gso") and not agent.udp_offload.gso:
        agent.close()
        raise OSError(f"no UDP GSO here: {agent.udp_offload.why_not}")
    return agent


def _run_of(agent, values: int, batch: int):
    """A Run of a `batch`-block int32 tensor (one block per stream, every block non-zero),
    made as HostAgent.allreduce makes it."""
    import numpy as np

    from p4reduce.hostagent.blocks import BlockPlan

    tensor = np.ones(batch * values, dtype=np.int32)
    plan = BlockPlan.build(tensor, values, batch)
    out = np.zeros_like(tensor)
    return agent.engine.make_run(plan, out, 0, TAG, [0] * plan.num_streams), plan, (tensor, out)


def role_tx(spec: dict) -> dict:
    """Send DATA packets of spec['values'] values to spec['peer'] for warm-up + spec['seconds']:
    the frames queued in the measured window, its seconds and this process's CPU seconds."""
    batch = spec["batch"]
    with contextlib.closing(_agent(spec)) as agent:
        run, plan, _keep = _run_of(agent, spec["values"], batch)
        run.start(batch, 0.0, 1.0)  # each stream's opening DATA: its one block's values
        run.flush()
        if run.stream(0)[5] != "data" or run.counters()["packets_sent"] != batch:
            raise RuntimeError(f"the Run did not reach its DATA packets: {run.stream(0)}")
        now, k = time.perf_counter(), 0
        measure_at, end = now + WARMUP, now + WARMUP + spec["seconds"]
        sent0 = cpu0 = t0 = None
        while True:
            k += 1
            run.expire(k * 1000.0, 1.0, 1e15)  # every stream's timer ran out: resend its DATA
            run.flush()
            now = time.perf_counter()
            if t0 is None and now >= measure_at:
                sent0, cpu0, t0 = run.counters()["packets_sent"], _cpu(), now
            elif now >= end:
                break
        sent = run.counters()["packets_sent"]
        return {"frames": sent - sent0, "seconds": now - t0, "cpu": _cpu() - cpu0, "sent_total": sent}


def role_rx(spec: dict) -> dict:
    """Take the frames a source sends to this worker for warm-up + spec['seconds'] once the
    first arrived: frames taken in the window, its seconds and this process's CPU seconds.
    Prints a 'ready' line first (then the source may start)."""
    with contextlib.closing(_agent(spec)) as agent:
        run, _plan, _keep = _run_of(agent, spec["values"], spec["batch"])
        run.start(spec["batch"], time.monotonic(), 1e6)  # streams in flight, their timers far away
        run.flush()
        print(json.dumps({"ready": True}), flush=True)

        def received() -> int:
            return int(run.counters()["packets_received"])

        first = time.monotonic() + 20
        while received() == 0:
            if time.monotonic() > first:
                raise RuntimeError("no frame from the source in 20 s")
            run.poll(1e6, 0.05)
        now = time.perf_counter()
        measure_at, end = now + WARMUP, now + WARMUP + spec["seconds"]
        got0 = cpu0 = t0 = None
        while True:
            run.poll(1e6, 0.05)
            now = time.perf_counter()
            if t0 is None and now >= measure_at:
                got0, cpu0, t0 = received(), _cpu(), now
            elif now >= end:
                break
        return {"frames": received() - got0, "seconds": now - t0, "cpu": _cpu() - cpu0}


def role_allreduce(spec: dict) -> dict:
    """One BMv2 worker: a warm-up allreduce, then spec['iterations'] timed ones; their times,
    packets, retransmissions, this process's CPU seconds over them, and the result's checksum."""
    import numpy as np

    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.protocol import AGG_UDP_PORT
    from p4reduce.testbed.bmv2 import AGG_IP
    from p4reduce.testbed.synthetic import worker_tensor

    cfg = WorkerConfig(
        1,
        spec["rank"],
        spec["workers"],
        aggregator=(AGG_IP, AGG_UDP_PORT),
        bind=(spec["ip"], spec["port"]),
        mode="dense",
        block_size=32,
        num_slots=spec["slots"],
        transport=spec["transport"],
    )
    tensor = worker_tensor(0, spec["rank"], spec["elements"], 32, spec["density"], "int32")
    with HostAgent(cfg) as agent:
        agent.allreduce(tensor)  # warm-up: the JOIN, the window and the timeout settle
        seconds, packets, retx, checksums = [], 0, 0, set()
        cpu0 = _cpu()
        for _ in range(spec["iterations"]):
            result = agent.allreduce(tensor)
            s = agent.last_stats
            seconds.append(s.seconds)
            packets += s.packets_sent
            retx += s.retransmissions + s.queries
            checksums.add(float(np.sum(result, dtype=np.float64)))
        return {
            "seconds": seconds,
            "packets": packets,
            "retx": retx,
            "cpu": _cpu() - cpu0,
            "checksums": sorted(checksums),
        }


ROLES: dict[str, Callable[[dict], dict]] = {"tx": role_tx, "rx": role_rx, "allreduce": role_allreduce}


def role_main(role: str, spec_json: str) -> int:
    """Run a role; print its result (or {"error": ...}) as the last JSON line."""
    try:
        result = ROLES[role](json.loads(spec_json))
    except Exception as exc:  # the parent reports the cell as n/a with this reason
        result = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
    print(json.dumps(result), flush=True)
    return 0


# -- the parent: namespaces, the sink, the switch, the table ------------------------------------


class CellFailed(Exception):
    """A cell that could not be measured; its message is the reason."""


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True)


def _in_ns(ns: str, role: str, spec: dict, **popen: object) -> subprocess.Popen:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, PY, str(SELF), "--role", role, "--spec", json.dumps(spec)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,  # type: ignore[arg-type]
    )


def _result(proc: subprocess.Popen, timeout: float) -> dict:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise CellFailed(f"no result in {timeout:.0f} s") from None
    lines = [x for x in out.splitlines() if x.startswith("{")]
    if not lines:
        raise CellFailed(f"exit {proc.returncode}: {(err.strip().splitlines() or ['no output'])[-1]}")
    result = json.loads(lines[-1])
    if "error" in result:
        raise CellFailed(result["error"])
    return result


@dataclass
class VethPair:
    """Namespaces A and B joined by a veth pair, static ARP both ways; B's ingress counts
    and drops UDP to AGG_PORT (nftables, netdev family)."""

    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:5])

    @property
    def a(self) -> str:
        return f"p4rt-a-{self.tag}"

    @property
    def b(self) -> str:
        return f"p4rt-b-{self.tag}"

    def __enter__(self) -> VethPair:
        try:
            _ip("netns", "add", self.a)
            _ip("netns", "add", self.b)
            _ip("-n", self.a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", self.b)
            for ns, dev, ip in ((self.a, "va", A_IP), (self.b, "vb", B_IP)):
                subprocess.run(
                    ["ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1"],
                    capture_output=True,
                )
                _ip("-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
                # UDP GSO buffers leave as MTU-sized frames, segmented in software as for a NIC
                # without UDP segmentation offload (a veth would carry them whole).
                _ip("-n", ns, "link", "set", dev, "gso_max_segs", "1")
                _ip("-n", ns, "link", "set", dev, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
            mac = {
                dev: subprocess.run(
                    ["ip", "netns", "exec", ns, "cat", f"/sys/class/net/{dev}/address"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.strip()
                for ns, dev in ((self.a, "va"), (self.b, "vb"))
            }
            _ip("-n", self.a, "neigh", "replace", B_IP, "lladdr", mac["vb"], "dev", "va")
            _ip("-n", self.b, "neigh", "replace", A_IP, "lladdr", mac["va"], "dev", "vb")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def reset_sink(self) -> None:
        subprocess.run(
            ["ip", "netns", "exec", self.b, "nft", "delete", "table", "netdev", "p4rt_sink"], capture_output=True
        )
        rules = (
            'table netdev p4rt_sink {\n chain in {\n  type filter hook ingress device "vb" priority 0;\n'
            f"  ip protocol udp udp dport {AGG_PORT} counter drop\n }}\n}}\n"
        )
        subprocess.run(
            ["ip", "netns", "exec", self.b, "nft", "-f", "-"], input=rules, text=True, check=True, capture_output=True
        )

    def sink_counter(self) -> tuple[int, int]:
        """(skbs, bytes from the IPv4 header on) the sink's rule counted."""
        out = subprocess.run(
            ["ip", "netns", "exec", self.b, "nft", "-j", "list", "chain", "netdev", "p4rt_sink", "in"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for item in json.loads(out)["nftables"]:
            for expr in item.get("rule", {}).get("expr", []):
                if "counter" in expr:
                    return int(expr["counter"]["packets"]), int(expr["counter"]["bytes"])
        raise CellFailed("the sink's counter is missing")


def sink_cell(pair: VethPair, transport: str, gso: bool, values: int, args) -> dict:
    """One TX run into the sink: frames/s that reached it, their share of those queued, and
    frames per worker CPU-second."""
    from p4reduce.protocol import HEADER_LEN

    pair.reset_sink()
    spec = dict(
        job=1,
        transport=transport,
        gso=gso,
        values=values,
        batch=args.batch,
        seconds=args.seconds,
        local=[A_IP, WORKER_PORT],
        peer=[B_IP, AGG_PORT],
    )
    r = _result(_in_ns(pair.a, "tx", spec), timeout=args.seconds + 60)
    time.sleep(0.05)  # the last frames through veth's backlog
    skbs, nbytes = pair.sink_counter()
    # Datagrams from bytes: a GSO buffer is one skb carrying several datagrams' payloads
    # behind one IPv4 + UDP header; every datagram is one DATA with its values.
    payload = nbytes - UDP_IP_HEADERS * skbs
    delivered = payload / (HEADER_LEN + 4 * values)
    share = min(1.0, delivered / r["sent_total"])
    rate = r["frames"] / r["seconds"] * share
    return {"rate": rate, "per_cpu": rate * r["seconds"] / r["cpu"], "share": share}


def source_cell(pair: VethPair, transport: str, values: int, args) -> dict:
    """One RX run: a udp source in B sends to A's worker of `transport`."""
    spec = dict(
        job=1,
        transport=transport,
        values=values,
        batch=args.batch,
        seconds=args.seconds,
        local=[A_IP, WORKER_PORT],
        peer=[B_IP, AGG_PORT],
    )
    rx = _in_ns(pair.a, "rx", spec)
    first = rx.stdout.readline() if rx.stdout is not None else ""
    if '"ready"' not in first:
        _result_with_first(rx, first)
    source_spec = dict(
        job=2,
        transport="udp",
        gso=True,
        values=values,
        batch=args.batch,
        seconds=args.seconds + 2.5,
        local=[B_IP, AGG_PORT],
        peer=[A_IP, WORKER_PORT],
    )
    source = _in_ns(pair.b, "tx", source_spec)
    try:
        r = _result(rx, timeout=args.seconds + 60)
    finally:
        s = _result(source, timeout=args.seconds + 30)
    rate, sent = r["frames"] / r["seconds"], s["frames"] / s["seconds"]
    return {"rate": rate, "per_cpu": r["frames"] / r["cpu"], "share": min(1.0, rate / sent)}


def _result_with_first(proc: subprocess.Popen, first: str) -> None:
    """A role that printed its error before 'ready': raise it."""
    try:
        result = json.loads(first) if first.startswith("{") else None
    except ValueError:
        result = None
    if result and "error" in result:
        proc.wait()
        raise CellFailed(result["error"])
    _result(proc, timeout=30)
    raise CellFailed(f"the worker did not get ready: {first.strip()!r}")


# -- BMv2 on veth pairs -------------------------------------------------------------------------


@contextlib.contextmanager
def bmv2_workers(num: int, slots: int) -> Iterator[tuple[object, list[dict]]]:
    """simple_switch_grpc with `num` ports, job 1 (dense, `slots` slots, session fixed) of one
    worker per port, each in its own namespace with a static ARP entry for the aggregation
    address."""
    from p4reduce.testbed.bmv2 import AGG_IP, AGG_MAC, Pipeline
    from p4reduce.testbed.veth import VethSwitch

    switch = VethSwitch(num_ports=num).start(Pipeline.installed())
    namespaces: list[str] = []
    try:
        workers = [
            {
                "worker_id": i,
                "port": i + 1,
                "mac": f"02:00:00:00:01:{i + 1:02x}",
                "ip": f"10.0.0.{i + 1}",
                "udp_port": 41000 + i,
                "if": switch.host_if(i + 1),
                "ns": f"p4rt-w{i}-{switch.tag}",
            }
            for i in range(num)
        ]
        for w in workers:
            ns, dev = w["ns"], w["if"]
            namespaces.append(ns)
            _ip("netns", "add", ns)
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "link", "set", dev, "address", w["mac"])
            _ip("-n", ns, "addr", "add", f"{w['ip']}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "neigh", "replace", AGG_IP, "lladdr", AGG_MAC, "dev", dev)
        switch.install(
            {
                "jobs": [
                    {
                        "job_id": 1,
                        "mode": "dense",
                        "slot_base": 0,
                        "num_slots": slots,
                        "mgid": 2,
                        "session": SESSION,
                        "workers": [{k: w[k] for k in ("worker_id", "port", "mac", "ip", "udp_port")} for w in workers],
                    }
                ]
            }
        )
        yield switch, workers
    finally:
        switch.stop()  # BMv2 lets go of the veths before their namespaces go
        for ns in namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def bmv2_cell(switch, workers: list[dict], transport: str, args, expected: float) -> dict:
    from p4reduce.controller.config import JobConfig

    # New worker processes start at round 0 of every slot: forget what the last ones left.
    switch.client.clear_job_registers(JobConfig(1, 0, args.slots, (), 2))
    procs = [
        _in_ns(
            w["ns"],
            "allreduce",
            dict(
                rank=w["worker_id"],
                workers=len(workers),
                ip=w["ip"],
                port=w["udp_port"],
                slots=args.slots,
                elements=args.bmv2_elements,
                density=args.bmv2_density,
                iterations=args.bmv2_iterations,
                transport=transport,
            ),
        )
        for w in workers
    ]
    results = []
    errors = []
    for p in procs:
        try:
            results.append(_result(p, timeout=120))
        except CellFailed as exc:
            errors.append(str(exc))
    if errors:
        raise CellFailed(errors[0])
    sums = {c for r in results for c in r["checksums"]}
    if sums != {expected}:
        raise CellFailed(f"wrong sums: {sorted(sums)}, numpy's {expected}")
    per_iter = [max(it) for it in zip(*(r["seconds"] for r in results), strict=True)]
    median = statistics.median(per_iter)
    return {
        "ms": median * 1e3,
        "retx": sum(r["retx"] for r in results),
        "per_cpu": statistics.mean(r["packets"] / r["cpu"] for r in results),
    }


def bmv2_expected(args) -> float:
    import numpy as np

    from p4reduce.testbed.synthetic import worker_tensor

    total = sum(
        worker_tensor(0, r, args.bmv2_elements, 32, args.bmv2_density, "int32").astype(np.float64) for r in range(2)
    )
    return float(np.sum(total, dtype=np.float64))


# -- Mininet ------------------------------------------------------------------------------------

_MININET_LINE = re.compile(r"p4reduce density ([\d.]+)%: ([\d.]+) ms, .*?(\d+) retransmissions of (\d+) packets")


def mininet_missing() -> str | None:
    """Why the Mininet cells cannot run here, or None."""
    import importlib.util

    if importlib.util.find_spec("mininet") is None or shutil.which("mnexec") is None:
        return "Mininet (its Python module and mnexec) is not installed"
    return None if shutil.which("simple_switch_grpc") else "simple_switch_grpc (BMv2) is not on PATH"


def mininet_cell(transport: str, args, out_dir: pathlib.Path) -> dict[float, dict]:
    argv = [
        PY,
        "mininet/p4reduce_mininet.py",
        "--switch",
        "bmv2",
        "--transport",
        transport,
        "--workers",
        "4",
        "--elements",
        str(args.mininet_elements),
        "--densities",
        *map(str, args.densities),
        "--iterations",
        str(args.mininet_iterations),
        "--slots",
        str(args.slots),
        "--no-gloo",
        "--out",
        str(out_dir / f"mininet-{transport}"),
    ]
    try:
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        subprocess.run(["mn", "-c"], capture_output=True)
        raise CellFailed("the Mininet run took over 300 s") from None
    found = {
        float(m[1]) / 100: {"ms": float(m[2]), "retx": int(m[3]), "packets": int(m[4])}
        for m in _MININET_LINE.finditer(proc.stdout)
    }
    if proc.returncode or not found:
        lines = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()
        raise CellFailed(f"the Mininet runner: {lines[-1].strip()}")
    return found


# -- the table ------------------------------------------------------------------------------------


def _k(x: float) -> str:
    return f"{x / 1e3:,.0f}k" if x >= 1e4 else f"{x / 1e3:.1f}k"


@dataclass
class Cells:
    """Per column, the repeats of one measurement, or why it is n/a."""

    runs: dict[str, list[dict]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    missing: str | None = None  # a requirement of the whole row (BMv2, Mininet) is missing

    def skip(self, columns: list[str], reason: str) -> None:
        self.missing = reason
        self.why = dict.fromkeys(columns, reason)

    def add(self, column: str, measure: Callable[[], dict]) -> None:
        if column in self.why:
            return  # unavailable: not tried again
        try:
            self.runs.setdefault(column, []).append(measure())
        except CellFailed as exc:
            self.why[column] = str(exc)
            self.runs.pop(column, None)
        except Exception as exc:  # whatever went wrong, the other cells still run
            self.why[column] = f"{type(exc).__name__}: {exc}".splitlines()[0]
            self.runs.pop(column, None)

    def median(self, column: str, key: str) -> float | None:
        runs = self.runs.get(column)
        return statistics.median(r[key] for r in runs) if runs else None

    def timing(self, column: str, per_s: bool = False) -> str:
        """'median ms (allreduces/s; min–max of the runs; retransmissions)' of an allreduce cell."""
        runs = self.runs[column]
        ms = [r["ms"] for r in runs]
        median = statistics.median(ms)
        parts = [f"{1e3 / median:.1f}/s"] if per_s else []
        if len(ms) > 1:
            parts.append(f"{min(ms):.0f}–{max(ms):.0f}")
        retx = sum(r["retx"] for r in runs)
        if retx:
            parts.append(f"{retx} retx")
        return f"{median:.1f}" + (f" ({'; '.join(parts)})" if parts else "")


def _reason_note(reasons: dict[str, dict[str, str]]) -> list[str]:
    notes = []
    for column, by_cell in reasons.items():
        texts: dict[str, list[str]] = {}
        for cell, why in by_cell.items():
            texts.setdefault(why, []).append(cell)
        for why, cells in texts.items():
            notes.append(f"`{column}` n/a ({', '.join(cells)}): {why}")
    return notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="measured seconds of each veth cell (after 0.5 s)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each veth cell, transports interleaved; medians")
    ap.add_argument(
        "--allreduce-repeats", type=int, default=5, help="runs of each BMv2 and Mininet cell, transports interleaved"
    )
    ap.add_argument("--values", type=int, nargs="+", default=[32, 256], help="values per DATA packet (veth cells)")
    ap.add_argument("--batch", type=int, default=64, help="streams of the veth cells' Runs: frames per flush")
    ap.add_argument("--slots", type=int, default=64, help="slots of the BMv2 job (veth and Mininet)")
    ap.add_argument("--bmv2-elements", type=int, default=16384)
    ap.add_argument("--bmv2-density", type=float, default=1.0)
    ap.add_argument("--bmv2-iterations", type=int, default=20)
    ap.add_argument("--mininet-elements", type=int, default=32768)
    ap.add_argument("--mininet-iterations", type=int, default=10)
    ap.add_argument("--densities", type=float, nargs="+", default=[0.1, 1.0], help="Mininet cells")
    ap.add_argument("--skip-veth", action="store_true")
    ap.add_argument("--skip-bmv2", action="store_true")
    ap.add_argument("--skip-mininet", action="store_true")
    ap.add_argument("--role", choices=sorted(ROLES), help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    add_markdown_option(ap)
    args = ap.parse_args(argv)
    if args.role:
        return role_main(args.role, args.spec)
    if os.geteuid() != 0:
        print("transport_rates skipped: network namespaces and AF_PACKET need root")
        return 0
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            print(f"transport_rates skipped: `{tool}` is not on PATH")
            return 0

    columns = ["cell", *(v[0] for v in VARIANTS)]
    started = time.monotonic()
    report = MarkdownReport(columns) if args.markdown else None
    rows: list[list[str]] = []
    reasons: dict[str, dict[str, str]] = {}
    failed: list[str] = []  # udp and packet cells that failed (not a missing requirement)

    def emit(name: str, short: str, cells: Cells, fmt: Callable[[str], str], applies: list[str]) -> None:
        row = [name]
        for column, *_ in VARIANTS:
            if column not in applies:
                row.append("—")
            elif column in cells.why:
                row.append("n/a")
                reasons.setdefault(column, {})[short] = cells.why[column]
                if column != "xdp" and cells.missing is None:
                    failed.append(f"{column} ({short})")
            else:
                row.append(fmt(column))
        rows.append(row)
        if report is not None:
            report.row(*row)
        else:
            print(f"measured: {name}", file=sys.stderr, flush=True)

    all_columns = [v[0] for v in VARIANTS]
    no_gso_columns = [v[0] for v in NO_GSO]

    if not args.skip_veth:
        from p4reduce.protocol import HEADER_LEN

        with VethPair() as pair:
            for values in args.values:
                frame = 14 + UDP_IP_HEADERS + HEADER_LEN + 4 * values
                tx, rx = Cells(), Cells()
                for _ in range(args.repeats):
                    for column, transport, gso in VARIANTS:
                        tx.add(column, lambda t=transport, g=gso, v=values: sink_cell(pair, t, g, v, args))
                    for column, transport, _gso in NO_GSO:
                        rx.add(column, lambda t=transport, v=values: source_cell(pair, t, v, args))
                emit(
                    f"veth → sink, {values} values ({frame}-B frames): frames/s (share delivered)",
                    f"veth → sink {values}",
                    tx,
                    lambda c, t=tx: f"{_k(t.median(c, 'rate'))} ({t.median(c, 'share'):.0%})",
                    all_columns,
                )
                emit(
                    f"veth → sink, {values} values: frames per worker CPU-s",
                    f"veth → sink {values}",
                    tx,
                    lambda c, t=tx: _k(t.median(c, "per_cpu")),
                    all_columns,
                )
                emit(
                    f"veth ← source, {values} values ({frame}-B frames): frames/s taken (share of sent)",
                    f"veth ← source {values}",
                    rx,
                    lambda c, t=rx: f"{_k(t.median(c, 'rate'))} ({t.median(c, 'share'):.0%})",
                    no_gso_columns,
                )
                emit(
                    f"veth ← source, {values} values: frames per worker CPU-s",
                    f"veth ← source {values}",
                    rx,
                    lambda c, t=rx: _k(t.median(c, "per_cpu")),
                    no_gso_columns,
                )

    if not args.skip_bmv2:
        bm = Cells()
        missing = None
        try:
            from p4reduce.testbed.veth import veth_switch_missing

            missing = veth_switch_missing()
        except ImportError as exc:
            missing = f"the controller's dependencies are missing ({exc})"
        if missing is None:
            try:
                expected = bmv2_expected(args)
                with bmv2_workers(2, args.slots) as (switch, workers):
                    for _ in range(args.allreduce_repeats):
                        for column, transport, _gso in NO_GSO:
                            bm.add(column, lambda t=transport: bmv2_cell(switch, workers, t, args, expected))
            except Exception as exc:  # the switch or its namespaces: the other rows still run
                missing = f"the BMv2 switch did not start: {type(exc).__name__}: {exc}".splitlines()[0]
        if missing is not None:
            bm.skip(no_gso_columns, missing)
        blocks = -(-args.bmv2_elements // 32)
        emit(
            f"BMv2, 2 workers, {blocks} blocks × 32 int32, density {args.bmv2_density:g}: ms per allreduce "
            "(allreduces/s; range of the runs; retransmissions)",
            "BMv2",
            bm,
            lambda c: bm.timing(c, per_s=True),
            no_gso_columns,
        )
        emit(
            "BMv2, 2 workers: packets sent per worker CPU-s",
            "BMv2",
            bm,
            lambda c: _k(bm.median(c, "per_cpu")),
            no_gso_columns,
        )

    if not args.skip_mininet:
        by_density: dict[float, Cells] = {d: Cells() for d in args.densities}
        missing = mininet_missing()
        if missing is not None:
            for cells in by_density.values():
                cells.skip(no_gso_columns, missing)
        out_dir = pathlib.Path(tempfile.mkdtemp(prefix="p4rt-mininet-"))
        try:
            for _ in range(args.allreduce_repeats):
                for column, transport, _gso in NO_GSO:
                    if column in by_density[args.densities[0]].why:
                        continue
                    try:
                        found = mininet_cell(transport, args, out_dir)
                    except CellFailed as exc:
                        for cells in by_density.values():
                            cells.why[column] = str(exc)
                        continue
                    for d, cells in by_density.items():
                        if d in found:
                            cells.runs.setdefault(column, []).append(found[d])
                        else:
                            cells.why[column] = f"no result for density {d:g}"
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
        blocks = -(-args.mininet_elements // 32)
        for d, cells in by_density.items():
            emit(
                f"Mininet BMv2, 4 workers, {blocks} blocks × 32, density {d:g}: ms per allreduce "
                "(range of the runs; retransmissions)",
                f"Mininet {d:g}",
                cells,
                lambda c, cl=cells: cl.timing(c),
                no_gso_columns,
            )

    notes = [
        "veth → sink: the frames that reached the sink; CPU: the sending worker process's, user + system "
        "(veth's softirq work on the sending CPU included). `udp + GSO`: UDP_SEGMENT buffers segmented in "
        "software on the worker's interface (gso_max_segs 1), as for a NIC without UDP segmentation offload; "
        "towards a switch a worker never uses GSO. veth ← source: CPU of the receiving worker process only: on "
        "veth the kernel's receive path (IP/UDP and the socket queue, the ring copy, the XDP program) runs in "
        "the source's softirq, so it shows in the rate the source reaches, not in the receiver's CPU.",
        *_reason_note(reasons),
    ]
    notes.append(
        f"Total run time {time.monotonic() - started:.0f} s; medians of {args.repeats} runs per veth cell and of "
        f"{args.allreduce_repeats} per BMv2 and Mininet cell."
    )
    if report is not None:
        report.end(notes)
    else:
        print()
        print(table(columns, rows))
        for n in notes:
            print(n)
    # A failing udp or packet cell is an error; a transport that is not available is not.
    if failed:
        print(f"transport_rates: cells failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
