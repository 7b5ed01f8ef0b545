# SPDX-License-Identifier: Apache-2.0
"""P4Runtime session with one switch (grpcio + the official p4runtime stubs)."""

from __future__ import annotations

import hashlib
import json
import logging
import pathlib
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import grpc

from p4reduce.controller import bmv2
from p4reduce.controller.config import MAX_SESSION, Config, JobConfig, SwitchConfig
from p4reduce.controller.encoding import decode_value
from p4reduce.controller.errors import NotPrimary, P4InfoError, SwitchError, SwitchUnreachable, WriteError
from p4reduce.controller.grpc_log import LoggingInterceptor
from p4reduce.controller.p4info import P4Info
from p4reduce.controller.pipeline import (
    EVENT_NAMES,
    NAMES,
    LabeledEntity,
    PipelineNames,
    check_contract,
    decode_counters,
    decode_job_counters,
    install_entities,
    job_counter_cells,
    multicast_group,
    table_entry,
    worker_entities,
)
from p4reduce.controller.proto import code_pb2, p4r, p4runtime_pb2_grpc, status_pb2

__all__ = [
    "EVENT_NAMES",
    "JobReset",
    "NotPrimary",
    "SwitchClient",
    "SwitchError",
    "SwitchUnreachable",
    "WriteError",
    "load_pipeline_files",
    "new_session",
    "pipeline_cookie",
]

# INFO: the steps of a session (connected, primary, pipeline pushed, entities
# installed, job reset). Each request in full: DEBUG on p4reduce.controller.grpc.
log = logging.getLogger(__name__)

_UPDATE_TYPES = {"insert": p4r.Update.INSERT, "modify": p4r.Update.MODIFY, "delete": p4r.Update.DELETE}
_CHANNEL_OPTIONS = [
    # A BMv2 JSON or a P4Info of a big program exceeds gRPC's 4 MB default.
    ("grpc.max_send_message_length", 64 << 20),
    ("grpc.max_receive_message_length", 64 << 20),
    # Notice a switch that is still starting quickly (default backoff grows to 120 s).
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


class JobReset(NamedTuple):
    """What `SwitchClient.reset_job` did: the job's new session, the register cells zeroed."""

    session: int
    cells: int


def new_session(exclude: Iterable[int] = ()) -> int:
    """A random job session: non-zero (a JOIN carries 0) and none of `exclude`."""
    excluded = set(exclude) | {0}
    while (session := secrets.randbelow(MAX_SESSION + 1)) in excluded:
        pass
    return session


class SwitchClient:
    """One P4Runtime session with one device, normally as primary controller.

    Use `SwitchClient.connect(...)` (or `from_config`), then `push_pipeline`
    (or `use_pipeline` / `fetch_pipeline` for a switch already programmed),
    `install`, `read_counters`, `reset_job`; `close()` or use it as a context
    manager. `clear_job_registers` alone needs only BMv2's thrift port.
    """

    def __init__(
        self,
        grpc_addr: str,
        device_id: int = 0,
        election_id: int = 1,
        *,
        thrift_port: int = 9090,
        thrift_ip: str = "127.0.0.1",
        names: PipelineNames = NAMES,
        rpc_timeout: float = 60.0,
    ) -> None:
        self.grpc_addr = grpc_addr
        self.device_id = device_id
        self.election_id = election_id
        self.thrift_port = thrift_port  # BMv2's thrift server, for clear_job_registers
        self.thrift_ip = thrift_ip
        self.names = names
        self.rpc_timeout = rpc_timeout  # unary RPCs; a pipeline push on BMv2 takes seconds
        self.p4info: P4Info | None = None
        # Called on the stream's reader thread with each PacketIn: (ingress port, the frame).
        self.on_packet_in: Callable[[int, bytes], None] | None = None
        self.bmv2_json: dict[str, Any] | None = None
        self.sessions: dict[int, int] = {}  # job id -> the session this client installed last
        self.primary = False
        self._channel: grpc.Channel | None = None
        self._stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self._stream: Any = None
        self._requests: queue.Queue[p4r.StreamMessageRequest | None] = queue.Queue()
        self._arbitration: queue.Queue[Any] = queue.Queue()

    # -- session ---------------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        grpc_addr: str,
        device_id: int = 0,
        election_id: int = 1,
        timeout: float = 5.0,
        *,
        arbitrate: bool = True,
        **kwargs: Any,
    ) -> SwitchClient:
        """Open a session; with `arbitrate`, become primary or raise.

        Raises SwitchUnreachable if nothing answers (channel and arbitration
        together) within `timeout` seconds, NotPrimary if another controller is
        primary. Reads work without arbitration (`arbitrate=False`).
        """
        client = cls(grpc_addr, device_id, election_id, **kwargs)
        client.open(timeout, arbitrate)
        return client

    @classmethod
    def from_config(cls, switch: SwitchConfig, timeout: float = 5.0, **kwargs: Any) -> SwitchClient:
        return cls.connect(
            switch.grpc_addr,
            switch.device_id,
            switch.election_id,
            timeout,
            thrift_port=switch.thrift_port,
            thrift_ip=switch.thrift_ip,
            **kwargs,
        )

    def open(self, timeout: float = 5.0, arbitrate: bool = True) -> None:
        deadline = time.monotonic() + timeout
        self._channel = grpc.intercept_channel(
            grpc.insecure_channel(self.grpc_addr, options=_CHANNEL_OPTIONS), LoggingInterceptor()
        )
        try:
            grpc.channel_ready_future(self._channel).result(timeout=max(0.0, deadline - time.monotonic()))
        except grpc.FutureTimeoutError:
            self.close()
            raise SwitchUnreachable(
                f"no P4Runtime server answered at {self.grpc_addr} within {timeout:g} s (is the switch running?)"
            ) from None
        log.info("connected to P4Runtime server %s", self.grpc_addr)
        self._stub = p4runtime_pb2_grpc.P4RuntimeStub(self._channel)
        if arbitrate:
            try:
                self._arbitrate(deadline, timeout)
            except BaseException:
                self.close()
                raise

    def _arbitrate(self, deadline: float, timeout: float) -> None:
        assert self._stub is not None
        self._stream = self._stub.StreamChannel(_drain(self._requests))
        threading.Thread(target=self._pump, daemon=True, name=f"p4runtime-stream-{self.grpc_addr}").start()
        req = p4r.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.CopyFrom(_uint128(self.election_id))
        self._requests.put(req)
        try:
            msg = self._arbitration.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise SwitchUnreachable(
                f"{self.grpc_addr}: no arbitration answer for device {self.device_id} within {timeout:g} s"
            ) from None
        if isinstance(msg, grpc.RpcError):
            raise _stream_error(self.grpc_addr, self.device_id, msg)
        if msg.status.code != code_pb2.OK:
            primary = (msg.election_id.high << 64) | msg.election_id.low
            raise NotPrimary(
                f"{self.grpc_addr}: not primary for device {self.device_id} (our election "
                f"id {self.election_id}, primary's {primary}): {msg.status.message}"
            )
        self.primary = True
        log.info(
            "%s: primary controller for device %d (election id %d)", self.grpc_addr, self.device_id, self.election_id
        )

    def _pump(self) -> None:
        """Reader of the stream: arbitration answers go to a queue, PacketIns (an unknown
        worker's JOIN, with the port it came in on) to `on_packet_in`, the rest is dropped."""
        try:
            for msg in self._stream:
                if msg.HasField("arbitration"):
                    self.primary = msg.arbitration.status.code == code_pb2.OK
                    self._arbitration.put(msg.arbitration)
                elif msg.HasField("packet") and self.on_packet_in is not None:
                    self._packet_in(msg.packet)
        except grpc.RpcError as exc:
            self.primary = False
            self._arbitration.put(exc)

    def _packet_in(self, packet: Any) -> None:
        port = None
        for md in packet.metadata:
            if md.metadata_id == self._ingress_port_id():
                port = int.from_bytes(md.value, "big")
        if port is None or self.on_packet_in is None:
            log.warning("%s: a PacketIn without its ingress_port metadata, dropped", self.grpc_addr)
            return
        try:
            self.on_packet_in(port, bytes(packet.payload))
        except Exception:  # the stream must go on: one bad packet is logged, not fatal
            log.exception("%s: handling a PacketIn from port %d failed", self.grpc_addr, port)

    def _ingress_port_id(self) -> int:
        """The id of packet_in's ingress_port in the running program's P4Info."""
        if self.p4info is not None:
            for header in self.p4info.proto.controller_packet_metadata:
                if header.preamble.name == "packet_in":
                    for md in header.metadata:
                        if md.name == "ingress_port":
                            return int(md.id)
        return 1  # p4c's numbering: the header's first field

    def close(self) -> None:
        self._requests.put(None)  # ends the request iterator: a clean half-close
        if self._stream is not None:
            self._stream.cancel()
            self._stream = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        self._stub = None
        self.primary = False

    def __enter__(self) -> SwitchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"SwitchClient({self.grpc_addr!r}, device_id={self.device_id}, "
            f"election_id={self.election_id}, primary={self.primary})"
        )

    # -- pipeline ----------------------------------------------------------------------
    def push_pipeline(self, p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path) -> None:
        """SetForwardingPipelineConfig (VERIFY_AND_COMMIT) with the BMv2 JSON as device config.

        The P4Info is checked against the controller's contract first, so a
        mismatched program fails here with a P4InfoError, not at the first write.
        Multicast groups of the previous pipeline are deleted first (see
        `clear_multicast_groups`).
        """
        info, raw, bmv2_json = load_pipeline_files(p4info_path, bmv2_json_path, self.names)
        self.clear_multicast_groups()
        req = p4r.SetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            election_id=_uint128(self.election_id),
            action=p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
        )
        req.config.p4info.CopyFrom(info.proto)
        req.config.p4_device_config = raw
        # Cookie: lets a later GetForwardingPipelineConfig tell which build is running.
        req.config.cookie.cookie = pipeline_cookie(info, raw)
        self._call("SetForwardingPipelineConfig", req, "refused the pipeline")
        self.p4info, self.bmv2_json = info, bmv2_json
        log.info(
            "%s: pipeline pushed to device %d (%s, %s; cookie %#018x)",
            self.grpc_addr,
            self.device_id,
            p4info_path,
            bmv2_json_path,
            req.config.cookie.cookie,
        )

    def clear_multicast_groups(self) -> int:
        """Delete every multicast group the P4Runtime server knows; return how many.

        Why before a push: simple_switch_grpc forgets its multicast groups on
        SetForwardingPipelineConfig but BMv2's replication engine keeps them, so
        groups inserted again after a push would add a second set of replicas
        (every worker would get each result twice). Deleting them while the
        server still knows them removes them from BMv2 too.
        """
        req = p4r.ReadRequest(device_id=self.device_id)
        req.entities.add().packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 0  # all
        try:
            groups = [
                e
                for resp in self._stub_or_raise().Read(req, timeout=self.rpc_timeout)
                for e in resp.entities
                if e.HasField("packet_replication_engine_entry")
            ]
        except grpc.RpcError as exc:
            if exc.code() in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.FAILED_PRECONDITION):
                return 0  # nothing readable (e.g. no pipeline yet): nothing we could delete
            raise _rpc_error(self.grpc_addr, "refused to list multicast groups", exc) from None
        self.write([LabeledEntity(self._label(g), g) for g in groups], update="delete")
        if groups:
            log.info("%s: deleted %d multicast group(s) of the previous pipeline", self.grpc_addr, len(groups))
        return len(groups)

    def running_cookie(self) -> int | None:
        """The cookie of the pipeline the switch runs (`pipeline_cookie` of what was pushed);
        None when it runs none."""
        req = p4r.GetForwardingPipelineConfigRequest(
            device_id=self.device_id, response_type=p4r.GetForwardingPipelineConfigRequest.COOKIE_ONLY
        )
        try:
            resp = self._stub_or_raise().GetForwardingPipelineConfig(req, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:  # PI: "No forwarding pipeline config set"
                return None
            raise _rpc_error(self.grpc_addr, "did not return its pipeline's cookie", exc) from None
        return resp.config.cookie.cookie if resp.config.HasField("cookie") else None

    def adopt_pipeline(self, p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path) -> bool:
        """Use these files' names without a push if the switch already runs exactly them
        (same cookie: its entries and registers stay as they are); False, and nothing
        taken, if it runs another pipeline or none."""
        info, raw, bmv2_json = load_pipeline_files(p4info_path, bmv2_json_path, self.names)
        cookie = pipeline_cookie(info, raw)
        if self.running_cookie() != cookie:
            return False
        self.p4info, self.bmv2_json = info, bmv2_json
        log.info(
            "%s: device %d already runs this pipeline (cookie %#018x), kept", self.grpc_addr, self.device_id, cookie
        )
        return True

    def use_pipeline(self, p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path | None = None) -> None:
        """Use the names of a pipeline already on the switch (no push)."""
        self.p4info = P4Info.load(p4info_path)
        if bmv2_json_path is not None:
            self.use_bmv2_json(bmv2_json_path)

    def use_bmv2_json(self, bmv2_json_path: str | pathlib.Path) -> None:
        """Take register names from the BMv2 JSON of the running program (for reset_job)."""
        self.bmv2_json = _parse_bmv2_json(_read_bytes(bmv2_json_path, "BMv2 JSON"), bmv2_json_path)

    def fetch_pipeline(self) -> P4Info:
        """Take the P4Info from the switch itself (GetForwardingPipelineConfig)."""
        req = p4r.GetForwardingPipelineConfigRequest(
            device_id=self.device_id, response_type=p4r.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE
        )
        try:
            resp = self._stub_or_raise().GetForwardingPipelineConfig(req, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # PI: "No forwarding pipeline config set"
                raise _rpc_error(self.grpc_addr, "did not return its pipeline", exc) from None
            resp = p4r.GetForwardingPipelineConfigResponse()
        if not resp.config.p4info.tables:
            raise SwitchError(f"{self.grpc_addr}: device {self.device_id} has no pipeline (run `install` first)")
        self.p4info = P4Info(resp.config.p4info)
        return self.p4info

    def _info(self) -> P4Info:
        if self.p4info is None:
            raise SwitchError("no P4Info: call push_pipeline(), use_pipeline() or fetch_pipeline() first")
        return self.p4info

    # -- writes -------------------------------------------------------------------------
    def write(self, entities: Sequence[LabeledEntity | p4r.Entity], update: str = "insert") -> None:
        """One WriteRequest with all `entities`.

        `update` is insert, modify, delete or upsert (insert; what already
        exists is then modified). Raises WriteError naming every refused entity.
        """
        items = [e if isinstance(e, LabeledEntity) else LabeledEntity(self._label(e), e) for e in entities]
        if not items:
            return
        if update not in (*_UPDATE_TYPES, "upsert"):
            raise ValueError(f"update must be one of insert, modify, delete, upsert; got {update!r}")
        failures = self._write_once(items, _UPDATE_TYPES.get(update, p4r.Update.INSERT))
        if update == "upsert":
            retry = [i for i, code, _ in failures if code == code_pb2.ALREADY_EXISTS]
            failures = [f for f in failures if f[1] != code_pb2.ALREADY_EXISTS]
            modified = self._write_once([items[i] for i in retry], p4r.Update.MODIFY)
            failures = sorted(failures + [(retry[j], code, msg) for j, code, msg in modified])
        if failures:
            raise self._write_error(items, failures, update)

    def _write_once(self, items: Sequence[LabeledEntity], update_type: int) -> list[tuple[int, int, str]]:
        """Send one WriteRequest; return (index, canonical code, message) of refused updates."""
        if not items:
            return []
        req = p4r.WriteRequest(device_id=self.device_id, election_id=_uint128(self.election_id))
        for item in items:
            req.updates.add(type=update_type, entity=item.entity)
        try:
            self._stub_or_raise().Write(req, timeout=self.rpc_timeout)
            return []
        except grpc.RpcError as exc:
            per_update = _update_errors(exc)
            if per_update is None:
                raise _rpc_error(self.grpc_addr, "refused the Write", exc) from None
            return [(i, code, msg) for i, (code, msg) in enumerate(per_update) if code != code_pb2.OK]

    def _write_error(
        self, items: Sequence[LabeledEntity], failures: list[tuple[int, int, str]], update: str
    ) -> WriteError:
        listed = [(items[i].label, code_pb2.Code.Name(code), msg) for i, code, msg in failures]
        lines = "\n  ".join(f"{label}: {code}: {msg}" for label, code, msg in listed)
        return WriteError(
            f"{self.grpc_addr}: {len(listed)} of {len(items)} updates ({update}) refused:\n  {lines}", listed
        )

    def write_table_entry(
        self,
        table: str,
        match: Mapping[str, int],
        action: str,
        params: Mapping[str, int] | None = None,
        *,
        update: str = "upsert",
    ) -> None:
        """Write one exact-match entry; values are integers, encoded with the P4Info bit widths."""
        entity = table_entry(self._info(), table, match, action, params)
        key = ", ".join(f"{k}={v:#x}" for k, v in match.items())
        self.write([LabeledEntity(f"{table} entry ({key})", entity)], update)

    def write_multicast_group(self, mgid: int, replicas: Iterable[tuple[int, int]], *, update: str = "upsert") -> None:
        """Create (or, if it exists, replace) multicast group `mgid` with (port, rid) replicas."""
        self.write([LabeledEntity(f"multicast group {mgid}", multicast_group(mgid, replicas))], update)

    def install(self, config: Config) -> dict[int, int]:
        """Install every job (worker entries, result destinations, multicast group), the
        L2 entries and the broadcast entry + group of `config`, in one Write; return
        each job's session by job id.

        A job without a configured session gets a new random one (docs/protocol.md
        section 8): its workers must JOIN after the install. Upsert, so installing
        the same config again on the same pipeline modifies what exists.
        """
        sessions = {job.job_id: job.session if job.session is not None else new_session() for job in config.jobs}
        entities = install_entities(self._info(), config, self.names, sessions)
        self.write(entities, update="upsert")
        self.sessions.update(sessions)
        log.info(
            "%s: installed %d entities (%d job(s), %d L2 entries%s)",
            self.grpc_addr,
            len(entities),
            len(config.jobs),
            len(config.l2),
            ", broadcast" if config.broadcast is not None else "",
        )
        return sessions

    def install_session(self, job: JobConfig, session: int | None = None) -> int:
        """Give `job` a new session: MODIFY its worker entries (the job must be installed).

        From then on the switch drops every packet that carries another session
        (event bad_session), so processes that joined before cannot disturb the job.
        `session` defaults to a random one that differs from every session the job's
        entries hold now. Returns the session installed.
        """
        if session is None:
            session = new_session(self.read_sessions(job))
        elif not 1 <= session <= MAX_SESSION:
            raise ValueError(f"session {session} outside 1..{MAX_SESSION}")
        self.write(worker_entities(self._info(), job, session, self.names), update="modify")
        self.sessions[job.job_id] = session
        log.info("%s: job %d: new session in its %d worker entries", self.grpc_addr, job.job_id, job.num_workers)
        return session

    # -- reads ---------------------------------------------------------------------------
    def read_counters(self) -> dict[str, int]:
        """Packet counts of the events counter by name (docs/protocol.md section 8)."""
        counter = self._info().counter(self.names.events_counter)
        return decode_counters(self._read_counter(counter.id, counter.name, None), counter.size)

    def read_job_counters(self, slot_bases: Iterable[int]) -> dict[int, dict[str, int]]:
        """Per job (named by its slot_base), its cells of the job_events counter by name
        (packets, drops, retransmissions, rounds); one Read for all of them."""
        bases = list(slot_bases)
        if not bases:
            return {}
        counter = self._info().counter(self.names.job_events_counter)
        cells = [i for base in bases for i in job_counter_cells(base)]
        return decode_job_counters(self._read_counter(counter.id, counter.name, cells), bases)

    def clear_job_counters(self, slot_base: int) -> None:
        """Zero the job_events cells at `slot_base`, so that the next job given this slot
        range starts from 0."""
        counter = self._info().counter(self.names.job_events_counter)
        entities = []
        for i in job_counter_cells(slot_base):
            e = p4r.Entity()
            e.counter_entry.counter_id = counter.id
            e.counter_entry.index.index = i
            e.counter_entry.data.packet_count = 0
            entities.append(LabeledEntity(f"counter {counter.name}[{i}]", e))
        self.write(entities, update="modify")

    def _read_counter(self, counter_id: int, name: str, cells: Iterable[int] | None) -> list[p4r.CounterEntry]:
        """The entries of counter `counter_id`: every cell (None), or those indexes."""
        req = p4r.ReadRequest(device_id=self.device_id)
        if cells is None:
            req.entities.add().counter_entry.counter_id = counter_id  # no index: every cell
        for i in cells or ():
            entry = req.entities.add().counter_entry
            entry.counter_id = counter_id
            entry.index.index = i
        try:
            return [
                e.counter_entry
                for resp in self._stub_or_raise().Read(req, timeout=self.rpc_timeout)
                for e in resp.entities
                if e.HasField("counter_entry")
            ]
        except grpc.RpcError as exc:
            raise _rpc_error(self.grpc_addr, f"refused to read counter {name}", exc) from None

    def read_entities(self) -> list[p4r.Entity]:
        """Every table entry of the running program's tables (default actions aside) and
        every multicast group, in one Read."""
        req = p4r.ReadRequest(device_id=self.device_id)
        for table in self._info().proto.tables:
            req.entities.add().table_entry.table_id = table.preamble.id
        req.entities.add().packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 0  # all
        try:
            return [e for resp in self._stub_or_raise().Read(req, timeout=self.rpc_timeout) for e in resp.entities]
        except grpc.RpcError as exc:
            raise _rpc_error(self.grpc_addr, "refused to read its entries", exc) from None

    def read_sessions(self, job: JobConfig) -> set[int]:
        """The sessions the switch's worker entries of `job` hold (one, unless a write
        was cut short; none if the job is not installed)."""
        info = self._info()
        table = info.table(self.names.workers_table)
        action = info.action(self.names.set_worker)
        job_param = info.param(self.names.set_worker, "job_id").id
        session_param = info.param(self.names.set_worker, "session").id
        req = p4r.ReadRequest(device_id=self.device_id)
        req.entities.add().table_entry.table_id = table.id  # no match: every entry of the table
        try:
            entries = [
                e.table_entry
                for resp in self._stub_or_raise().Read(req, timeout=self.rpc_timeout)
                for e in resp.entities
                if e.HasField("table_entry")
            ]
        except grpc.RpcError as exc:
            raise _rpc_error(self.grpc_addr, f"refused to read table {table.name}", exc) from None
        sessions = set()
        for entry in entries:
            if entry.action.action.action_id != action.id:
                continue
            params = {p.param_id: decode_value(p.value) for p in entry.action.action.params}
            if params.get(job_param) == job.job_id and session_param in params:
                sessions.add(params[session_param])
        return sessions

    # -- BMv2 registers (thrift) -------------------------------------------------------------
    def reset_ranges(self, job: JobConfig, registers: Iterable[str] | None = None) -> list[bmv2.RegisterRange]:
        """The register cells holding `job`'s slots, both shadow copies.

        `registers` defaults to every register array of 2 x 1024 cells in the BMv2 JSON.
        """
        if registers is None:
            if self.bmv2_json is None:
                raise SwitchError(
                    "the BMv2 JSON is needed to name the registers: call "
                    "push_pipeline() or use_pipeline(p4info, bmv2_json) first"
                )
            registers = bmv2.slot_register_arrays(self.bmv2_json)
        return bmv2.reset_ranges(job, registers)

    def reset_job(
        self,
        job: JobConfig,
        thrift_port: int | None = None,
        *,
        registers: Iterable[str] | None = None,
        session: int | None = None,
    ) -> JobReset:
        """Reset `job` on the switch (docs/protocol.md sections 7 and 8): install a new
        session in its worker entries (`install_session`, over P4Runtime), then zero
        its slots' registers (`clear_job_registers`, over BMv2's thrift port).

        The session goes first: from then on packets of processes that joined
        before are dropped by the switch's session check, so none of them can
        write into the registers after they are zeroed. Stop the job's workers
        first, and let them JOIN again afterwards (`reset()` on each).
        """
        new = self.install_session(job, session)
        cells = self.clear_job_registers(job, thrift_port, registers=registers)
        return JobReset(new, cells)

    def clear_job_registers(
        self, job: JobConfig, thrift_port: int | None = None, *, registers: Iterable[str] | None = None
    ) -> int:
        """Forget all aggregation state of `job` by zeroing its slots' registers over
        BMv2's thrift port (P4Runtime register writes are not implemented there).
        Returns the number of cells zeroed; ResetError if the switch cannot be reached
        or refuses a write. Needs no P4Runtime session; `reset_job` also changes the
        job's session, which is what a job reset needs.
        """
        ranges = self.reset_ranges(job, registers)
        port = self.thrift_port if thrift_port is None else thrift_port
        with bmv2.Bmv2Thrift(self.thrift_ip, port, timeout=self.rpc_timeout) as switch:
            for r in ranges:
                switch.register_write_range(r.register, r.start, r.stop, 0)
            address = switch.address
        cells = sum(r.stop - r.start for r in ranges)
        log.info(
            "job %d: zeroed %d cells of %d registers (slots %d..%d, both shadow copies) via BMv2 thrift %s",
            job.job_id,
            cells,
            len(ranges) // 2,
            job.slot_base,
            job.slots.stop - 1,
            address,
        )
        return cells

    # -- helpers -----------------------------------------------------------------------------
    def _stub_or_raise(self) -> p4runtime_pb2_grpc.P4RuntimeStub:
        if self._stub is None:
            raise SwitchError(f"{self.grpc_addr}: not connected (closed, or never opened)")
        return self._stub

    def _call(self, method: str, request: Any, failure: str) -> Any:
        try:
            return getattr(self._stub_or_raise(), method)(request, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            raise _rpc_error(self.grpc_addr, failure, exc) from None

    def _label(self, entity: p4r.Entity) -> str:
        if entity.HasField("table_entry"):
            name = self.p4info.name_of(entity.table_entry.table_id) if self.p4info else str(entity.table_entry.table_id)
            return f"{name} entry"
        if entity.HasField("packet_replication_engine_entry"):
            group = entity.packet_replication_engine_entry.multicast_group_entry
            return f"multicast group {group.multicast_group_id}"
        return entity.WhichOneof("entity") or "entity"


def _drain(requests: queue.Queue[p4r.StreamMessageRequest | None]) -> Iterator[p4r.StreamMessageRequest]:
    while (item := requests.get()) is not None:
        yield item


def _uint128(value: int) -> p4r.Uint128:
    return p4r.Uint128(high=value >> 64, low=value & ((1 << 64) - 1))


def _update_errors(exc: grpc.RpcError) -> list[tuple[int, str]] | None:
    """Per-update (canonical code, message) of a failed Write, from the
    grpc-status-details-bin trailer (P4Runtime spec, "Error reporting")."""
    trailers = exc.trailing_metadata() if hasattr(exc, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            out = []
            for detail in status.details:
                err = p4r.Error()
                if not detail.Unpack(err):
                    return None
                out.append((err.canonical_code, err.message))
            return out or None
    return None


def _rpc_error(addr: str, failure: str, exc: grpc.RpcError) -> SwitchError:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    text = f"{addr} {failure}: {code.name if code else 'error'}: {details}"
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return SwitchUnreachable(text)
    if code == grpc.StatusCode.PERMISSION_DENIED:
        return NotPrimary(text)
    return SwitchError(text)


def _stream_error(addr: str, device_id: int, exc: grpc.RpcError) -> SwitchError:
    code = exc.code() if hasattr(exc, "code") else None
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.PERMISSION_DENIED):
        # e.g. another controller already uses our election id
        return NotPrimary(f"{addr}: arbitration for device {device_id} refused: {code.name}: {exc.details()}")
    return _rpc_error(addr, f"closed the stream during arbitration for device {device_id}", exc)


def pipeline_cookie(info: P4Info, bmv2_json: bytes) -> int:
    """The cookie `push_pipeline` gives a pipeline: 64 bits of a digest of both files."""
    digest = hashlib.sha256(info.proto.SerializeToString() + bmv2_json).digest()
    return int.from_bytes(digest[:8], "big")


def load_pipeline_files(
    p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path, names: PipelineNames = NAMES
) -> tuple[P4Info, bytes, dict[str, Any]]:
    """P4Info (contract-checked), raw BMv2 JSON and its parsed form; P4InfoError if unusable."""
    info = P4Info.load(p4info_path)
    check_contract(info, names)
    raw = _read_bytes(bmv2_json_path, "BMv2 JSON")
    return info, raw, _parse_bmv2_json(raw, bmv2_json_path)


def _read_bytes(path: str | pathlib.Path, what: str) -> bytes:
    try:
        return pathlib.Path(path).read_bytes()
    except OSError as exc:
        raise P4InfoError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def _parse_bmv2_json(raw: bytes, path: str | pathlib.Path) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise P4InfoError(f"{path} is not a BMv2 JSON: {exc}") from None
    if not isinstance(data, dict) or "pipelines" not in data:
        raise P4InfoError(f"{path} is not a BMv2 JSON (no 'pipelines')")
    return data
