# SPDX-License-Identifier: Apache-2.0
"""One BF Runtime gRPC session with a Tofino switch (bf_switchd's BF Runtime server).

The session follows the server's rules: a client first subscribes on the StreamChannel
with its client id (one live client per id), then binds to the P4 program by name
(SetForwardingPipelineConfig, action BIND); only a bound client may Write and Read. The
program's BF Runtime info (the compiler's bfrt.json) and the fixed tables' ($pre.*,
$PORT) come from GetForwardingPipelineConfig: every name the controller writes is
checked against them (schema.Schema) before a request leaves.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import grpc

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt import bfruntime_pb2_grpc
from p4reduce.controller.bfrt.schema import Schema, SchemaError
from p4reduce.controller.errors import NotPrimary, SwitchError, SwitchUnreachable, WriteError
from p4reduce.controller.grpc_log import LoggingInterceptor

log = logging.getLogger(__name__)

ALL_PIPES = 0xFFFF  # TargetDevice.pipe_id: the same entry in every pipe
DEFAULT_PROGRAM = "p4reduce_tna"
# Updates per WriteRequest: a job reset zeroes thousands of register cells; gRPC's
# default 4 MiB message limit holds about 20,000 of them.
WRITE_BATCH = 2000
_UPDATE_TYPES = {
    "insert": pb.Update.INSERT,
    "modify": pb.Update.MODIFY,
    "delete": pb.Update.DELETE,
    "upsert": pb.Update.INSERT_OR_MODIFY,
}
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]


class Labeled(NamedTuple):
    """An entity and what it is for, so that a refused update can be named."""

    label: str
    entity: pb.Entity


class BfrtSession:
    """Subscribed and bound client `client_id` of device `device_id` at `addr`.

    Use `BfrtSession.connect(...)`, then `write`/`read`; `schema` holds the running
    program's tables; `close()` (or a `with` block) ends the stream, which frees the
    client id on the switch.
    """

    def __init__(
        self,
        addr: str,
        device_id: int = 0,
        client_id: int = 0,
        program: str = DEFAULT_PROGRAM,
        *,
        rpc_timeout: float = 60.0,
    ) -> None:
        self.addr = addr
        self.device_id = device_id
        self.client_id = client_id
        self.program = program
        self.rpc_timeout = rpc_timeout
        self.schema: Schema | None = None
        self.bound = False
        self._channel: grpc.Channel | None = None
        self._stub: bfruntime_pb2_grpc.BfRuntimeStub | None = None
        self._stream: Any = None
        self._requests: queue.Queue[pb.StreamMessageRequest | None] = queue.Queue()
        self._answers: queue.Queue[Any] = queue.Queue()

    @classmethod
    def connect(
        cls,
        addr: str,
        device_id: int = 0,
        client_id: int = 0,
        program: str = DEFAULT_PROGRAM,
        timeout: float = 5.0,
        **kwargs: Any,
    ) -> BfrtSession:
        """Subscribe, bind to `program` and load its BF Runtime info, or raise
        SwitchUnreachable (nothing answered within `timeout`), NotPrimary (the client id
        is taken) or SwitchError (no such program, or a refusal)."""
        session = cls(addr, device_id, client_id, program, **kwargs)
        try:
            session.open(timeout)
        except BaseException:
            session.close()
            raise
        return session

    def open(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        self._channel = grpc.intercept_channel(
            grpc.insecure_channel(self.addr, options=_CHANNEL_OPTIONS), LoggingInterceptor()
        )
        try:
            grpc.channel_ready_future(self._channel).result(timeout=max(0.0, deadline - time.monotonic()))
        except grpc.FutureTimeoutError:
            raise SwitchUnreachable(
                f"no BF Runtime server answered at {self.addr} within {timeout:g} s (is bf_switchd running?)"
            ) from None
        self._stub = bfruntime_pb2_grpc.BfRuntimeStub(self._channel)
        self._subscribe(deadline, timeout)
        self.schema = self._fetch_schema()
        self._bind()
        log.info(
            "%s: BF Runtime client %d bound to %s on device %d", self.addr, self.client_id, self.program, self.device_id
        )

    def _subscribe(self, deadline: float, timeout: float) -> None:
        assert self._stub is not None
        self._stream = self._stub.StreamChannel(_drain(self._requests))
        threading.Thread(target=self._pump, daemon=True, name=f"bfrt-stream-{self.addr}").start()
        req = pb.StreamMessageRequest(client_id=self.client_id)
        req.subscribe.device_id = self.device_id
        self._requests.put(req)
        try:
            answer = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise SwitchUnreachable(f"{self.addr}: no answer to the subscription within {timeout:g} s") from None
        if isinstance(answer, grpc.RpcError):
            raise _rpc_error(self.addr, "refused the subscription", answer)
        if answer.status.code != grpc.StatusCode.OK.value[0]:
            raise NotPrimary(
                f"{self.addr}: subscription of client {self.client_id} to device {self.device_id} refused "
                f"({answer.status.message or 'code ' + str(answer.status.code)}): is another controller using this "
                "client id? (give another as switch.client_id)"
            )

    def _pump(self) -> None:
        """Reader of the stream: the subscription's answer to a queue; a closed stream
        leaves the session unbound (the switch forgot this client)."""
        try:
            for msg in self._stream:
                if msg.HasField("subscribe"):
                    self._answers.put(msg.subscribe)
        except grpc.RpcError as exc:
            self._answers.put(exc)
        self.bound = False

    def _fetch_schema(self) -> Schema:
        req = pb.GetForwardingPipelineConfigRequest(device_id=self.device_id, client_id=self.client_id)
        resp = self._call("GetForwardingPipelineConfig", req, "refused GetForwardingPipelineConfig")
        programs = {c.p4_name: c for c in resp.config}
        if self.program not in programs:
            raise SwitchError(
                f"{self.addr}: device {self.device_id} runs no program {self.program!r} "
                f"(it runs {sorted(programs) or 'none'}): load it with bf_switchd first"
            )
        texts = [programs[self.program].bfruntime_info]
        if resp.non_p4_config.bfruntime_info:
            texts.append(resp.non_p4_config.bfruntime_info)
        try:
            return Schema.from_json(*texts, program=self.program)
        except SchemaError as exc:
            raise SwitchError(f"{self.addr}: {exc}") from None

    def _bind(self) -> None:
        req = pb.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, client_id=self.client_id, action=pb.SetForwardingPipelineConfigRequest.BIND
        )
        req.config.add(p4_name=self.program)
        self._call("SetForwardingPipelineConfig", req, f"refused to bind client {self.client_id} to {self.program}")
        self.bound = True

    def close(self) -> None:
        self._requests.put(None)
        if self._stream is not None:
            self._stream.cancel()
            self._stream = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        self._stub = None
        self.bound = False

    def __enter__(self) -> BfrtSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BfrtSession({self.addr!r}, device {self.device_id}, client {self.client_id}, {self.program!r})"

    # -- requests --------------------------------------------------------------------
    def write(self, items: Sequence[Labeled], update: str = "insert") -> None:
        """Write `items` in order (in batches); WriteError naming the refused ones."""
        if update not in _UPDATE_TYPES:
            raise ValueError(f"update must be one of {', '.join(_UPDATE_TYPES)}; got {update!r}")
        for start in range(0, len(items), WRITE_BATCH):
            batch = items[start : start + WRITE_BATCH]
            req = pb.WriteRequest(client_id=self.client_id, p4_name=self.program)
            req.target.device_id = self.device_id
            req.target.pipe_id = ALL_PIPES
            for item in batch:
                req.updates.add(type=_UPDATE_TYPES[update], entity=item.entity)
            try:
                self._stub_or_raise().Write(req, timeout=self.rpc_timeout)
            except grpc.RpcError as exc:
                raise _write_error(self.addr, batch, update, exc) from None

    def read(self, entities: Sequence[pb.Entity], *, from_hw: bool = False) -> list[pb.Entity]:
        """The entities the switch holds for `entities` (a table entry without a key: the
        whole table); `from_hw` reads counters and registers from the hardware."""
        req = pb.ReadRequest(client_id=self.client_id, p4_name=self.program)
        req.target.device_id = self.device_id
        req.target.pipe_id = ALL_PIPES
        for e in entities:
            added = req.entities.add()
            added.CopyFrom(e)
            if from_hw:
                added.table_entry.table_flags.from_hw = True
        try:
            return [e for resp in self._stub_or_raise().Read(req, timeout=self.rpc_timeout) for e in resp.entities]
        except grpc.RpcError as exc:
            names = sorted({self._table_name(e.table_entry.table_id) for e in entities})
            raise _rpc_error(self.addr, f"refused to read {', '.join(names)}", exc) from None

    def _table_name(self, table_id: int) -> str:
        try:
            return self.schema.by_id(table_id).name if self.schema else str(table_id)
        except SchemaError:
            return f"table id {table_id}"

    def _stub_or_raise(self) -> bfruntime_pb2_grpc.BfRuntimeStub:
        if self._stub is None:
            raise SwitchError(f"{self.addr}: not connected (closed, or never opened)")
        return self._stub

    def _call(self, method: str, request: Any, failure: str) -> Any:
        try:
            return getattr(self._stub_or_raise(), method)(request, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            raise _rpc_error(self.addr, failure, exc) from None


def _drain(requests: queue.Queue[pb.StreamMessageRequest | None]) -> Iterator[pb.StreamMessageRequest]:
    while (req := requests.get()) is not None:
        yield req


def _rpc_error(addr: str, failure: str, exc: grpc.RpcError) -> SwitchError:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return SwitchUnreachable(f"{addr} {failure}: {code.name}: {details}")
    return SwitchError(f"{addr} {failure}: {code.name if code else 'error'}: {details}")


def _write_error(addr: str, batch: Sequence[Labeled], update: str, exc: grpc.RpcError) -> SwitchError:
    """The refusal of a Write, naming the updates the server's message or per-update
    errors point at (the server numbers updates from 0 within the request)."""
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return _rpc_error(addr, "did not take the Write", exc)
    details = exc.details() or ""
    failures = [(item.label, exc.code().name, details) for i, item in enumerate(batch) if f"update {i}:" in details]
    if not failures:
        failures = [(f"{len(batch)} updates from {batch[0].label}", exc.code().name, details)]
    lines = "\n  ".join(f"{label}: {code}: {msg}" for label, code, msg in failures)
    return WriteError(f"{addr}: Write ({update}) refused:\n  {lines}", failures)


__all__ = ["ALL_PIPES", "BfrtSession", "DEFAULT_PROGRAM", "Labeled", "WRITE_BATCH"]
