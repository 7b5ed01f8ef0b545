"""Job description for the software aggregator."""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from p4reduce.protocol import AGG_UDP_PORT, MAX_SLOTS, MAX_WORKERS, Mode
from p4reduce.aggregator.relay import Upstream


@dataclass(frozen=True)
class JobSpec:
    job_id: int
    num_workers: int
    mode: Mode = Mode.SPARSE
    slot_base: int = 0
    num_slots: int = 256
    block_size: int = 256
    upstream: Upstream | None = None  # set for a leaf of a hierarchical aggregation
    group: tuple[str, int] | None = None  # IP multicast group (address, port) for results

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        if not 0 <= self.job_id < 1 << 16:
            raise ValueError(f"job_id {self.job_id} outside 0..65535")
        if not 1 <= self.num_workers <= MAX_WORKERS:
            raise ValueError(
                f"job {self.job_id}: num_workers {self.num_workers} outside 1..{MAX_WORKERS}")
        if self.num_slots < 1 or self.slot_base < 0 or self.slot_base + self.num_slots > MAX_SLOTS:
            raise ValueError(
                f"job {self.job_id}: slots {self.slot_base}..{self.slot_base + self.num_slots - 1}"
                f" outside 0..{MAX_SLOTS - 1}")
        if not 1 <= self.block_size <= 16000:
            raise ValueError(f"job {self.job_id}: block_size {self.block_size} outside 1..16000")
        if self.group is not None:
            object.__setattr__(self, "group", parse_group(f"{self.group[0]}:{self.group[1]}"))

    @classmethod
    def parse(cls, text: str) -> JobSpec:
        """Parse the CLI form `JOB:WORKERS[:key=value,...]`, e.g. `1:4:mode=dense,block_size=32`.

        A leaf of a hierarchy adds `upstream=HOST[:PORT],up_job=J,up_rank=R`;
        `group=239.1.2.3:47000` sends results once to that IP multicast group.
        """
        parts = text.split(":", 2)
        if len(parts) < 2:
            raise ValueError(f"job spec {text!r}: expected JOB:WORKERS[:key=value,...]")
        try:
            kwargs: dict[str, object] = {"job_id": int(parts[0]), "num_workers": int(parts[1])}
            up: dict[str, object] = {}
            for item in filter(None, parts[2].split(",") if len(parts) == 3 else []):
                key, _, value = item.partition("=")
                if key in ("mode", "slot_base", "num_slots", "block_size"):
                    kwargs[key] = value if key == "mode" else int(value)
                elif key == "upstream":
                    host, _, port = value.partition(":")
                    up.update(host=host, port=int(port) if port else AGG_UDP_PORT)
                elif key == "group":
                    kwargs["group"] = parse_group(value)
                elif key in ("up_job", "up_rank"):
                    up["job_id" if key == "up_job" else "rank"] = int(value)
                else:
                    raise ValueError(f"unknown key {key!r}")
            if up:
                if "host" not in up:
                    raise ValueError("up_job/up_rank need upstream=HOST[:PORT]")
                kwargs["upstream"] = Upstream(**up)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"job spec {text!r}: {exc}") from None
        return cls(**kwargs)  # type: ignore[arg-type]

    def slot_range(self) -> range:
        return range(self.slot_base, self.slot_base + self.num_slots)


def parse_group(text: str) -> tuple[str, int]:
    """`ADDRESS:PORT` of an IPv4 multicast group."""
    address, _, port = text.rpartition(":")
    try:
        ip = ipaddress.IPv4Address(address)
        number = int(port)
    except ValueError:
        raise ValueError(f"multicast group {text!r}: expected ADDRESS:PORT") from None
    if not ip.is_multicast or not 1 <= number <= 65535:
        raise ValueError(f"multicast group {text!r}: not a multicast address and port")
    return str(ip), number
