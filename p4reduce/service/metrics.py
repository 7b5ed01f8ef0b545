# SPDX-License-Identifier: Apache-2.0
"""The job service's counters in Prometheus' text format (version 0.0.4) over HTTP.

`render` turns a coordinator Snapshot into the exposition text; `MetricsServer` serves
it at /metrics from a thread. Per job: its workers, slots, lease and its own packets,
drops, retransmissions and rounds (the switch's job_events cells, or the software
aggregator's job counters); per target: everything it counts, all its jobs together.
"""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Callable, Iterable

from p4reduce.service.coordinator import Snapshot
from p4reduce.service.registry import Job, Target

log = logging.getLogger(__name__)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Counters of the software aggregator that a retransmission or a query shows up as.
RETRANSMISSION_DROPS = ("drop_duplicate", "drop_pending", "drop_stale")
# A job's own counters (p4reduce.protocol.switch.JOB_EVENT_NAMES), as exported.
JOB_COUNTER_HELP = {
    "packets": "Aggregation packets from the job's workers (or for the job, on a software aggregator).",
    "drops": "Packets of the job refused (malformed, not admitted, bad session or slot...).",
    "retransmissions": "Retransmitted data and queries of the job: re-sent a stored result, or dropped.",
    "rounds": "Rounds of the job completed (the result sent to every worker).",
}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: dict[str, str]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items()) + "}"


class _Family:
    """One metric: its HELP and TYPE lines, then its samples."""

    def __init__(self, name: str, kind: str, help_: str) -> None:
        self.lines = [f"# HELP {name} {help_}", f"# TYPE {name} {kind}"]
        self.name = name

    def add(self, value: float, **labels: str) -> _Family:
        text = repr(value) if isinstance(value, float) else str(value)  # ints exact, however large
        self.lines.append(f"{self.name}{_labels(labels)} {text}")
        return self


def render(snap: Snapshot) -> str:
    """The exposition text of `snap`."""
    families: list[_Family] = []

    def family(name: str, kind: str, help_: str) -> _Family:
        families.append(_Family(f"p4reduce_{name}", kind, help_))
        return families[-1]

    jobs = family("jobs", "gauge", "Live jobs by target.")
    for target in Target:
        jobs.add(sum(1 for j in snap.jobs if j.target is target), target=target.value)
    family("jobs_failed", "gauge", "Live jobs whose switch was lost.").add(
        sum(1 for j in snap.jobs if j.failed is not None)
    )
    family("slots_total", "gauge", "Slots in the switch's pool.").add(snap.slots_total)
    family("slots_free", "gauge", "Free slots in the switch's pool.").add(snap.slots_free)
    family("switch_up", "gauge", "1 while the switch is connected and programmed.").add(int(snap.switch_up))

    per_job: list[tuple[_Family, Callable[[Job], float]]] = [
        (family("job_workers", "gauge", "Workers of a job."), lambda j: j.num_workers),
        (family("job_workers_registered", "gauge", "Workers of a job registered so far."), lambda j: len(j.workers)),
        (family("job_slots", "gauge", "Slots of a job."), lambda j: j.num_slots),
        (
            family("job_lease_seconds", "gauge", "Seconds until the job's lease expires."),
            lambda j: j.expires_in(snap.now),
        ),
    ]
    job_packets = {name: family(f"job_{name}_total", "counter", help_) for name, help_ in JOB_COUNTER_HELP.items()}
    for job in snap.jobs:
        labels = {"job": str(job.job_id), "name": job.name, "target": job.target.value}
        for fam, measure in per_job:
            fam.add(measure(job), **labels)
        for name, value in snap.job_counters.get(job.job_id, {}).items():
            if name in job_packets:
                job_packets[name].add(value, **labels)

    _tenants(family, snap)
    software = snap.counters.get(Target.SOFTWARE)
    if software is not None:
        _software_counters(family, software)
    switch = snap.counters.get(Target.SWITCH)
    if switch is not None:
        events = family("switch_events_total", "counter", "Packets of the switch by event (all jobs).")
        for name, value in sorted(switch.items()):
            events.add(value, event=name)
    return "".join(line + "\n" for f in families for line in f.lines)


def _tenants(family: Callable[[str, str, str], _Family], snap: Snapshot) -> None:
    """Per tenant ("" without credentials): its jobs, the slots they hold, its refusals."""
    tenants = sorted({j.tenant for j in snap.jobs} | {tenant for tenant, _ in snap.refusals})
    jobs = family("tenant_jobs", "gauge", "Live jobs of a tenant.")
    slots = family("tenant_slots", "gauge", "Slots the live jobs of a tenant hold.")
    for tenant in tenants:
        own = [j for j in snap.jobs if j.tenant == tenant]
        jobs.add(len(own), tenant=tenant)
        slots.add(sum(j.num_slots for j in own), tenant=tenant)
    refusals = family(
        "tenant_refusals_total",
        "counter",
        "Requests of a tenant refused: UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED (quota or no room).",
    )
    for (tenant, status), count in sorted(snap.refusals.items()):
        refusals.add(count, tenant=tenant, status=status)


def _software_counters(family: Callable[[str, str, str], _Family], counters: dict[str, int]) -> None:
    family("aggregator_packets_in_total", "counter", "Packets the software aggregator received (all jobs).").add(
        counters.get("packets_in", 0)
    )
    family("aggregator_packets_out_total", "counter", "Packets the software aggregator sent (all jobs).").add(
        counters.get("packets_out", 0)
    )
    family(
        "aggregator_retransmissions_total",
        "counter",
        "Retransmitted data and queries the software aggregator answered from its results (all jobs).",
    ).add(sum(counters.get(name, 0) for name in RETRANSMISSION_DROPS))
    drops = family("aggregator_drops_total", "counter", "Packets the software aggregator dropped, by reason.")
    for name, value in _drops(counters.items()):
        drops.add(value, reason=name)


def _drops(items: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    return sorted((k.removeprefix("drop_"), v) for k, v in items if k.startswith("drop_"))


class MetricsServer:
    """GET /metrics (or /) answers `render(source())`; anything else 404."""

    def __init__(self, source: Callable[[], Snapshot], bind: tuple[str, int]) -> None:
        self._source = source

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path.split("?")[0] not in ("/", "/metrics"):
                    self.send_error(404, "only /metrics is served")
                    return
                try:
                    body = render(outer._source()).encode()
                except Exception as exc:  # answered, logged; the server goes on
                    log.exception("metrics failed")
                    self.send_error(500, f"{type(exc).__name__}: {exc}")
                    return
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
                log.debug("metrics: " + format, *args)

        outer = self
        self._httpd = http.server.ThreadingHTTPServer(bind, Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    def start(self) -> MetricsServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="p4reduce-metrics", daemon=True
        )  # 0.05 s: how long stop() waits for the loop to notice
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()


__all__ = ["CONTENT_TYPE", "MetricsServer", "render"]
