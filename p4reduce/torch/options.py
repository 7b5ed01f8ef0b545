# SPDX-License-Identifier: Apache-2.0
"""Configuration of a p4reduce process group: backend options or P4REDUCE_* variables."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p4reduce.protocol import AGG_UDP_PORT, Mode
from p4reduce.protocol.auth import JobKey

if TYPE_CHECKING:  # imports grpc: only a group with a controller needs it
    from p4reduce.jobapi.security import ClientCredentials

ENV_PREFIX = "P4REDUCE_"
_CREDENTIALS = ("TLS_CA", "TLS_CERT", "TLS_KEY", "TOKEN_FILE")  # ClientCredentials' fields, in order


@dataclass(frozen=True)
class Options:
    """How a p4reduce process group reaches its aggregator.

    Pass one to ``dist.init_process_group("p4reduce", pg_options=Options(...))`` (or
    ``dist.new_group(..., pg_options=...)``); without one, ``Options.from_env`` reads the
    ``P4REDUCE_*`` environment variables.

    ``aggregators`` empty (the default): the group's rank 0 starts an embedded software
    aggregator (sparse mode unless ``mode`` says otherwise) and publishes its address
    through the process group's store. Otherwise every rank joins the job ``job_id`` at
    those addresses: one software aggregator or switch, or the shards of a sharded
    software aggregator in shard order (docs/protocol.md 6.2). Its geometry (``mode``,
    ``block_size``, ``num_slots``) must be the job's: a JOIN that differs fails at once,
    naming the field.
    """

    aggregators: tuple[tuple[str, int], ...] = ()
    job_id: int = 1
    mode: Mode = Mode.SPARSE
    block_size: int = 256
    num_slots: int = 256
    slot_base: int = 0
    # Largest datagram payload (several packets per datagram; 0: one per packet, as a switch needs).
    message_size: int = 65000
    # A round without progress for this long fails the collective. None: the process
    # group's timeout (init_process_group(timeout=...), 30 min by default), because ranks
    # may legitimately reach a collective that far apart, as with gloo.
    failure_timeout: float | None = None
    # Embedded aggregator: the address it listens on and publishes. None: MASTER_ADDR when
    # it is set, else 127.0.0.1 (single host).
    embedded_host: str | None = None
    # Embedded aggregator's engine: "native" (the C data path) or "python" (the reference
    # model, e.g. to compare the two).
    engine: str = "native"
    # Lossy mode (p4reduce.torch.lossy), opt-in: float32 all_reduce leaves out the blocks
    # whose largest |x| is under this and feeds them back into the next all_reduce of the
    # same tensor (same memory and length). 0: lossless.
    lossy_threshold: float = 0.0
    # Path of each float32 all_reduce (p4reduce.torch.policy): the aggregator when the
    # bucket's block density is under this, else a dense gloo allreduce. 1.0: always the
    # aggregator, 0.0: always dense; None: P4REDUCE_DENSE_THRESHOLD when set (also for
    # Options built in code), else measured at the first all_reduce (a switch: 1.0).
    dense_threshold: float | None = None
    # An authenticated job (docs/protocol.md 6.3): every packet carries a MAC under this
    # key (JobKey.from_file), also the embedded aggregator's. Every rank needs the same key.
    key: JobKey | None = None
    # The job service (`p4reduce controller serve`, docs/service.md) at this address places
    # the group's job, on the switch or a software aggregator, and gives its id and geometry
    # (the fields above then do not apply). `job_name`: the name every rank asks for; None:
    # rank 0 draws one and shares it through the group's store.
    controller: tuple[str, int] | None = None
    job_name: str | None = None
    # How each rank proves itself to a job service with credentials (WorkerConfig.credentials).
    credentials: ClientCredentials | None = None
    # How each rank's datagrams travel (WorkerConfig.transport, docs/library.md "Transports"):
    # "udp", "packet" (AF_PACKET rings; needs CAP_NET_RAW) or "xdp" (AF_XDP; root, an optional
    # build) on `interface` (default: the
    # route's) to `gateway_mac` (default: the neighbour table's, else asked by ARP).
    transport: str = "udp"
    interface: str | None = None
    gateway_mac: str | None = None

    def __post_init__(self) -> None:
        from p4reduce.torch.lossy import check_threshold

        object.__setattr__(self, "lossy_threshold", check_threshold(self.lossy_threshold, "lossy_threshold"))
        from p4reduce.torch.policy import check_dense_threshold

        if self.dense_threshold is not None:
            object.__setattr__(self, "dense_threshold", check_dense_threshold(self.dense_threshold))
        elif os.environ.get(ENV_PREFIX + "DENSE_THRESHOLD", "").strip():
            text = os.environ[ENV_PREFIX + "DENSE_THRESHOLD"]
            object.__setattr__(self, "dense_threshold", check_dense_threshold(text, ENV_PREFIX + "DENSE_THRESHOLD"))
        object.__setattr__(self, "mode", Mode(self.mode))
        object.__setattr__(self, "aggregators", tuple((str(h), int(p)) for h, p in self.aggregators))
        if self.engine not in ("native", "python"):
            raise ValueError(f"engine {self.engine!r}: expected native or python")
        if self.controller is not None:
            host, port = self.controller
            object.__setattr__(self, "controller", (str(host), int(port)))
            if self.aggregators:
                raise ValueError("a controller or aggregators: the job service says where the job aggregates")
        if self.failure_timeout is not None and self.failure_timeout <= 0:
            raise ValueError(f"failure_timeout {self.failure_timeout} must be positive")
        from p4reduce.hostagent.config import check_transport

        # (the workers' engine is always the native one: WorkerConfig's default)
        gateway_mac = check_transport(self.transport, "native", self.interface, self.gateway_mac)
        object.__setattr__(self, "gateway_mac", gateway_mac)

    @property
    def embedded(self) -> bool:
        return not self.aggregators and self.controller is None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Options:
        """Options from P4REDUCE_AGGREGATOR (HOST:PORT, or a comma-separated list of shards),
        P4REDUCE_JOB, P4REDUCE_MODE (sparse/dense), P4REDUCE_BLOCK_SIZE, P4REDUCE_SLOTS,
        P4REDUCE_SLOT_BASE, P4REDUCE_MESSAGE_SIZE, P4REDUCE_FAILURE_TIMEOUT (seconds) and
        P4REDUCE_HOST (where an embedded aggregator listens), P4REDUCE_ENGINE (its engine:
        native or python), P4REDUCE_LOSSY_THRESHOLD (lossy mode, 0: off),
        P4REDUCE_DENSE_THRESHOLD (the policy's block density threshold), P4REDUCE_KEY_FILE
        (an authenticated job's key file), P4REDUCE_CONTROLLER (HOST:PORT of the job service),
        P4REDUCE_JOB_NAME (the job's name there), P4REDUCE_TLS_CA, P4REDUCE_TLS_CERT,
        P4REDUCE_TLS_KEY and P4REDUCE_TOKEN_FILE (the credentials for it), P4REDUCE_TRANSPORT (udp or packet),
        P4REDUCE_INTERFACE and P4REDUCE_GATEWAY_MAC (transport packet's interface and next
        hop's MAC); unset ones keep the defaults."""
        env = os.environ if environ is None else environ
        kwargs: dict[str, object] = {}
        ints = {
            "JOB": "job_id",
            "BLOCK_SIZE": "block_size",
            "SLOTS": "num_slots",
            "SLOT_BASE": "slot_base",
            "MESSAGE_SIZE": "message_size",
        }
        for suffix, field in ints.items():
            text = env.get(ENV_PREFIX + suffix, "").strip()
            if text:
                try:
                    kwargs[field] = int(text)
                except ValueError:
                    raise ValueError(f"{ENV_PREFIX}{suffix}={text!r}: expected an integer") from None
        text = env.get(ENV_PREFIX + "MODE", "").strip()
        if text:
            try:
                kwargs["mode"] = Mode(text.lower())
            except ValueError:
                raise ValueError(f"{ENV_PREFIX}MODE={text!r}: expected sparse or dense") from None
        text = env.get(ENV_PREFIX + "FAILURE_TIMEOUT", "").strip()
        if text:
            try:
                kwargs["failure_timeout"] = float(text)
            except ValueError:
                raise ValueError(f"{ENV_PREFIX}FAILURE_TIMEOUT={text!r}: expected seconds") from None
        text = env.get(ENV_PREFIX + "AGGREGATOR", "").strip()
        if text:
            kwargs["aggregators"] = parse_addresses(text, f"{ENV_PREFIX}AGGREGATOR")
        text = env.get(ENV_PREFIX + "CONTROLLER", "").strip()
        if text:
            (kwargs["controller"],) = parse_addresses(text, f"{ENV_PREFIX}CONTROLLER", single=True)
        text = env.get(ENV_PREFIX + "JOB_NAME", "").strip()
        if text:
            kwargs["job_name"] = text
        text = env.get(ENV_PREFIX + "HOST", "").strip()
        if text:
            kwargs["embedded_host"] = text
        text = env.get(ENV_PREFIX + "ENGINE", "").strip()
        if text:
            if text.lower() not in ("native", "python"):
                raise ValueError(f"{ENV_PREFIX}ENGINE={text!r}: expected native or python")
            kwargs["engine"] = text.lower()
        text = env.get(ENV_PREFIX + "LOSSY_THRESHOLD", "").strip()
        if text:
            from p4reduce.torch.lossy import check_threshold

            kwargs["lossy_threshold"] = check_threshold(text, f"{ENV_PREFIX}LOSSY_THRESHOLD")
        text = env.get(ENV_PREFIX + "DENSE_THRESHOLD", "").strip()
        if text:
            from p4reduce.torch.policy import check_dense_threshold

            kwargs["dense_threshold"] = check_dense_threshold(text, f"{ENV_PREFIX}DENSE_THRESHOLD")
        transport = {"TRANSPORT": "transport", "INTERFACE": "interface", "GATEWAY_MAC": "gateway_mac"}
        for suffix, field in transport.items():
            text = env.get(ENV_PREFIX + suffix, "").strip()
            if text:
                kwargs[field] = text.lower() if suffix == "TRANSPORT" else text
        if any(field in kwargs for field in transport.values()):
            from p4reduce.hostagent.config import check_transport

            try:
                check_transport(
                    str(kwargs.get("transport", "udp")),
                    "native",
                    kwargs.get("interface"),  # type: ignore[arg-type]
                    kwargs.get("gateway_mac"),  # type: ignore[arg-type]
                )
            except ValueError as exc:
                names = "/".join(ENV_PREFIX + suffix for suffix in transport)
                raise ValueError(f"{names}: {exc}") from None
        files = [env.get(ENV_PREFIX + suffix, "").strip() or None for suffix in _CREDENTIALS]
        if any(files):
            from p4reduce.jobapi.security import ClientCredentials

            try:
                kwargs["credentials"] = ClientCredentials.from_options(*files)
            except ValueError as exc:
                raise ValueError(f"{'/'.join(ENV_PREFIX + s for s in _CREDENTIALS)}: {exc}") from None
        text = env.get(ENV_PREFIX + "KEY_FILE", "").strip()
        if text:
            try:
                kwargs["key"] = JobKey.from_file(text)
            except ValueError as exc:
                raise ValueError(f"{ENV_PREFIX}KEY_FILE: {exc}") from None
        return cls(**kwargs)  # type: ignore[arg-type]

    def replace(self, **changes: object) -> Options:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def parse_addresses(text: str, what: str = "aggregator", single: bool = False) -> tuple[tuple[str, int], ...]:
    """`HOST[:PORT][,HOST[:PORT]...]` (port 48864 when left out); `single`: exactly one."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        host, sep, port = item.rpartition(":")
        if not sep:
            host, port = item, str(AGG_UDP_PORT)
        if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"{what} {text!r}: expected HOST[:PORT][,HOST[:PORT]...]")
        out.append((host, int(port)))
    if not out:
        raise ValueError(f"{what} {text!r}: no address")
    if single and len(out) > 1:
        raise ValueError(f"{what} {text!r}: one HOST:PORT")
    return tuple(out)
