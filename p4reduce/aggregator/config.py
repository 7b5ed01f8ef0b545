# SPDX-License-Identifier: Apache-2.0
"""Job description for the software aggregator."""

from __future__ import annotations

import dataclasses
import ipaddress
from dataclasses import dataclass

from p4reduce.aggregator.relay import Upstream
from p4reduce.protocol import AGG_UDP_PORT, NONE, Mode
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.geometry import check_job_geometry, check_message_size

# Tensors of up to 2^20 blocks (256 Mi values at 256 per block) by default: the results a
# job keeps for re-sends stay below what such a tensor itself takes.
DEFAULT_MAX_BLOCKS = 1 << 20
MAX_BLOCKS_FIELD = NONE - 1  # `blocks` is 32 bits; a block index must stay below NONE


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
    # Admission, like the switch's worker table: rank r may only send from workers[r]
    # (IPv4 address, and UDP port unless None). None: any address, bound at JOIN. A rank
    # whose entry is None is admitted from nowhere until declared (AggregatorServer.
    # declare_worker: the job service pins each rank as it registers).
    workers: tuple[WorkerAddress | None, ...] | None = None
    # Largest datagram payload the aggregator takes and sends for this job (several
    # packets back to back); JOINED announces it. 0: one packet per datagram.
    message_size: int = 65000
    # Sharded aggregation: this aggregator serves only the job's streams s with
    # s mod count == index (several threads or processes share a job's work).
    shard: tuple[int, int] = (0, 1)
    # The most blocks an allreduce's tensor may have (the `blocks` its packets announce):
    # what bounds the results a slot keeps for re-sends. Larger fails the job (TOO_LARGE).
    max_blocks: int = DEFAULT_MAX_BLOCKS
    # An authenticated job (docs/protocol.md 6.3): every packet both ways carries a MAC
    # under this key; packets without a valid one are dropped and counted (`bad_mac`).
    key: JobKey | None = None
    # Members that never JOIN: a switch leaf (docs/protocol.md, Hierarchical aggregation)
    # is rank `rank` from its address with the session its controller configured.
    pinned: tuple[PinnedMember, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        if self.workers is not None:
            object.__setattr__(self, "workers", tuple(self.workers))
            if len(self.workers) != self.num_workers:
                raise ValueError(
                    f"job {self.job_id}: {len(self.workers)} worker addresses for {self.num_workers} workers"
                )
        check_job_geometry(self.job_id, self.num_workers, self.slot_base, self.num_slots, self.block_size)
        check_message_size(self.message_size)
        if not 1 <= self.max_blocks <= MAX_BLOCKS_FIELD:
            raise ValueError(f"job {self.job_id}: max_blocks {self.max_blocks} outside 1..{MAX_BLOCKS_FIELD}")
        index, count = self.shard
        if not (1 <= count <= self.num_slots and 0 <= index < count):
            raise ValueError(
                f"job {self.job_id}: shard {index}/{count} needs 0 <= index < count <= num_slots ({self.num_slots})"
            )
        if count > 1 and self.upstream is not None:
            raise ValueError(
                f"job {self.job_id}: a leaf of a hierarchy cannot be sharded (each shard "
                "would claim the same rank at the parent)"
            )
        if self.group is not None:
            object.__setattr__(self, "group", parse_group(f"{self.group[0]}:{self.group[1]}"))
        object.__setattr__(self, "pinned", tuple(self.pinned))
        ranks = [p.rank for p in self.pinned]
        if len(set(ranks)) != len(ranks) or any(r >= self.num_workers for r in ranks):
            raise ValueError(f"job {self.job_id}: pinned ranks {ranks} must be distinct, below {self.num_workers}")

    def pinned_member(self, worker_id: int) -> PinnedMember | None:
        """Rank `worker_id`'s pinned member (a switch leaf that never JOINs), if it is one."""
        return next((p for p in self.pinned if p.rank == worker_id), None)

    def admits(self, worker_id: int, source: tuple[str, int]) -> bool:
        """May a packet claiming `worker_id` come from `source`?"""
        pinned = self.pinned_member(worker_id)
        if pinned is not None:  # a switch leaf's rank: from its address only
            return source == (pinned.ip, pinned.port)
        if self.workers is None:
            return True
        declared = self.workers[worker_id]
        return declared is not None and declared.matches(source)

    @classmethod
    def parse(cls, text: str) -> JobSpec:
        """Parse the CLI form `JOB:WORKERS[:key=value,...]`, e.g. `1:4:mode=dense,block_size=32`.

        A leaf of a hierarchy adds `upstream=HOST[:PORT],up_job=J,up_rank=R`;
        `group=239.1.2.3:47000` sends results once to that IP multicast group;
        `workers=IP[:PORT]/IP[:PORT]/...` (one per rank, in rank order) admits only those;
        `max_blocks=N` caps the blocks of a tensor (and so the results kept for re-sends);
        `key_file=PATH` makes the job authenticated with the key in that file;
        `pin=RANK/IP:PORT/SESSION` (repeatable) makes rank RANK a member that never JOINs
        (a switch leaf) at that address with that session.
        """
        parts = text.split(":", 2)
        if len(parts) < 2:
            raise ValueError(f"job spec {text!r}: expected JOB:WORKERS[:key=value,...]")
        try:
            kwargs: dict[str, object] = {"job_id": int(parts[0]), "num_workers": int(parts[1])}
            up: dict[str, object] = {}
            for item in filter(None, parts[2].split(",") if len(parts) == 3 else []):
                key, _, value = item.partition("=")
                if key in ("mode", "slot_base", "num_slots", "block_size", "message_size", "max_blocks"):
                    kwargs[key] = value if key == "mode" else int(value)
                elif key == "upstream":
                    host, _, port = value.partition(":")
                    up.update(host=host, port=int(port) if port else AGG_UDP_PORT)
                elif key == "group":
                    kwargs["group"] = parse_group(value)
                elif key == "shard":
                    index, sep, count = value.partition("/")
                    if not sep:
                        raise ValueError(f"shard {value!r}: expected INDEX/COUNT")
                    kwargs["shard"] = (int(index), int(count))
                elif key == "key_file":
                    kwargs["key"] = JobKey.from_file(value)
                elif key == "workers":
                    kwargs["workers"] = tuple(WorkerAddress.parse(a) for a in value.split("/"))
                elif key == "pin":
                    kwargs["pinned"] = (*kwargs.get("pinned", ()), PinnedMember.parse(value))  # type: ignore[misc]
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

    def describe(self) -> str:
        """One line for logs and banners."""
        text = (
            f"job {self.job_id} ({self.num_workers} workers, {self.mode.value}, slots "
            f"{self.slot_base}..{self.slot_base + self.num_slots - 1}, block {self.block_size}"
        )
        if self.group is not None:
            text += f", multicast {self.group[0]}:{self.group[1]}"
        if self.shard[1] > 1:
            text += f", shard {self.shard[0]}/{self.shard[1]}"
        if self.workers is not None:
            text += ", workers " + "/".join("(undeclared)" if w is None else str(w) for w in self.workers)
        if self.key is not None:
            text += ", authenticated"
        if self.max_blocks != DEFAULT_MAX_BLOCKS:
            text += f", max_blocks {self.max_blocks}"
        if self.pinned:
            text += ", pinned " + "/".join(f"rank {p.rank} at {p.ip}:{p.port}" for p in self.pinned)
        if self.upstream is not None:
            text += (
                f", leaf of job {self.upstream.job_id} at {self.upstream.host}:{self.upstream.port}"
                f" as rank {self.upstream.rank}"
            )
        return text + ")"

    def slot_range(self) -> range:
        return range(self.slot_base, self.slot_base + self.num_slots)

    def serves(self, slot: int) -> bool:
        """Is `slot` one of this job's slots, in this aggregator's shard?"""
        index, count = self.shard
        return self.slot_base <= slot < self.slot_base + self.num_slots and (slot - self.slot_base) % count == index

    def shard_streams(self, blocks: int) -> int:
        """How many of an allreduce's streams this shard serves (it has min(slots, blocks))."""
        index, count = self.shard
        used = min(self.num_slots, blocks)
        return max(0, (used - index + count - 1) // count)

    def sharded(self, count: int) -> list[JobSpec]:
        """This job split over `count` aggregators."""
        return [dataclasses.replace(self, shard=(i, count)) for i in range(count)]


@dataclass(frozen=True)
class PinnedMember:
    """A member that never JOINs (a switch leaf): its rank, address and session."""

    rank: int
    ip: str
    port: int
    session: int

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "ip", str(ipaddress.IPv4Address(self.ip)))
        except ValueError:
            raise ValueError(f"pinned member address {self.ip!r} is not an IPv4 address") from None
        if not 1 <= self.port <= 65535 or not 1 <= self.session <= 0xFFFFFFFF or self.rank < 0:
            raise ValueError(f"pinned member {self}: port 1..65535, session 1..2^32-1, rank >= 0")

    @classmethod
    def parse(cls, text: str) -> PinnedMember:
        rank, _, rest = text.partition("/")
        address, _, session = rest.partition("/")
        ip, _, port = address.partition(":")
        if not (rank.isdigit() and port.isdigit() and session):
            raise ValueError(f"pin {text!r}: expected RANK/IP:PORT/SESSION")
        return cls(int(rank), ip, int(port), int(session, 0))


@dataclass(frozen=True)
class WorkerAddress:
    """Where one worker of a job sends from: an IPv4 address and, optionally, a UDP port."""

    ip: str
    port: int | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "ip", str(ipaddress.IPv4Address(self.ip)))
        except ValueError:
            raise ValueError(f"worker address {self.ip!r} is not an IPv4 address") from None
        if self.port is not None and not 1 <= self.port <= 65535:
            raise ValueError(f"worker port {self.port} outside 1..65535")

    @classmethod
    def parse(cls, text: str) -> WorkerAddress:
        ip, sep, port = text.partition(":")
        if sep and not port.isdigit():
            raise ValueError(f"worker address {text!r}: expected IP[:PORT]")
        return cls(ip, int(port) if sep else None)

    def matches(self, source: tuple[str, int]) -> bool:
        return source[0] == self.ip and (self.port is None or source[1] == self.port)

    def __str__(self) -> str:
        return self.ip if self.port is None else f"{self.ip}:{self.port}"


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
