# SPDX-License-Identifier: Apache-2.0
"""An in-process P4Runtime server that records what a controller sends.

Enough of the service for the controller: StreamChannel arbitration (answer,
refuse as backup, stay silent, or abort the stream), Write (with per-update
errors in the grpc-status-details-bin trailer, as the P4Runtime spec
prescribes), Read of counters (whole, or cells by index), counter cell writes,
table entries and multicast groups,
Set/GetForwardingPipelineConfig. Like simple_switch_grpc, it forgets its
multicast groups and table entries on a pipeline push, and refuses to MODIFY a
table entry it does not have (NOT_FOUND).
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import threading
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc
import pytest

from p4reduce.controller.proto import code_pb2, p4r, p4runtime_pb2_grpc, status_pb2

# Refusal of one update: (canonical code, message), or None to accept it.
Refusal = Callable[[p4r.Update], "tuple[int, str] | None"]


class FakeP4Runtime(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self) -> None:
        self.arbitration = "primary"  # or "backup", "silent", "abort"
        self.arbitrations: list[p4r.MasterArbitrationUpdate] = []
        self.writes: list[p4r.WriteRequest] = []
        self.reads: list[p4r.ReadRequest] = []
        self.pipelines: list[p4r.SetForwardingPipelineConfigRequest] = []
        self.refuse: Refusal = lambda update: None
        self.counters: dict[int, int] = {}  # index -> packets, of any counter read whole
        self.cells: dict[tuple[int, int], int] = {}  # (counter id, index) -> packets: read by index, written
        self.groups: dict[int, p4r.MulticastGroupEntry] = {}
        self.tables: dict[tuple[int, bytes], p4r.TableEntry] = {}  # (table id, match) -> entry
        self.addr = ""
        self.stream_closed = threading.Event()

    # -- StreamChannel ---------------------------------------------------------------
    def StreamChannel(self, request_iterator, context):
        try:
            for req in request_iterator:
                if not req.HasField("arbitration"):
                    continue
                self.arbitrations.append(req.arbitration)
                if self.arbitration == "silent":
                    continue
                if self.arbitration == "abort":
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "Election id already exists")
                resp = p4r.StreamMessageResponse()
                resp.arbitration.CopyFrom(req.arbitration)
                if self.arbitration == "backup":
                    resp.arbitration.election_id.low = req.arbitration.election_id.low + 10
                    resp.arbitration.status.code = code_pb2.ALREADY_EXISTS
                    resp.arbitration.status.message = "a controller with a higher election id is primary"
                else:
                    resp.arbitration.status.code = code_pb2.OK
                yield resp
        finally:
            self.stream_closed.set()

    # -- unary RPCs ----------------------------------------------------------------------
    def Write(self, request, context):
        self.writes.append(request)
        verdicts = [self.refuse(u) or self._missing(u) for u in request.updates]
        if any(verdicts):
            status = status_pb2.Status(code=code_pb2.UNKNOWN, message="Write failure.")
            for verdict in verdicts:
                code, message = verdict or (code_pb2.OK, "")
                status.details.add().Pack(p4r.Error(canonical_code=code, message=message))
            context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
            context.abort(grpc.StatusCode.UNKNOWN, "Write failure.")
        for u in request.updates:
            if u.entity.HasField("packet_replication_engine_entry"):
                group = u.entity.packet_replication_engine_entry.multicast_group_entry
                if u.type == p4r.Update.DELETE:
                    self.groups.pop(group.multicast_group_id, None)
                else:
                    self.groups[group.multicast_group_id] = group
            if u.entity.HasField("counter_entry"):
                c = u.entity.counter_entry
                self.cells[c.counter_id, c.index.index] = c.data.packet_count
            if u.entity.HasField("table_entry"):
                if u.type == p4r.Update.DELETE:
                    self.tables.pop(_table_key(u.entity.table_entry), None)
                else:
                    self.tables[_table_key(u.entity.table_entry)] = u.entity.table_entry
        return p4r.WriteResponse()

    def _missing(self, update: p4r.Update) -> tuple[int, str] | None:
        if (
            update.type == p4r.Update.MODIFY
            and update.entity.HasField("table_entry")
            and _table_key(update.entity.table_entry) not in self.tables
        ):
            return code_pb2.NOT_FOUND, "Cannot find match entry"
        return None

    def Read(self, request, context):
        self.reads.append(request)
        resp = p4r.ReadResponse()
        for entity in request.entities:
            if entity.HasField("counter_entry") and entity.counter_entry.HasField("index"):
                c = resp.entities.add().counter_entry
                c.CopyFrom(entity.counter_entry)
                c.data.packet_count = self.cells.get((c.counter_id, c.index.index), 0)
            elif entity.HasField("counter_entry"):
                for index, packets in sorted(self.counters.items()):
                    e = resp.entities.add().counter_entry
                    e.counter_id = entity.counter_entry.counter_id
                    e.index.index = index
                    e.data.packet_count = packets
                    e.data.byte_count = 100 * packets
            if entity.HasField("table_entry"):
                wanted = entity.table_entry.table_id
                for (table_id, _), entry in self.tables.items():
                    if wanted in (0, table_id):
                        resp.entities.add().table_entry.CopyFrom(entry)
            if entity.HasField("packet_replication_engine_entry"):
                wanted = entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id
                for mgid, group in sorted(self.groups.items()):
                    if wanted in (0, mgid):
                        pre = resp.entities.add().packet_replication_engine_entry
                        pre.multicast_group_entry.CopyFrom(group)
        yield resp

    def SetForwardingPipelineConfig(self, request, context):
        self.pipelines.append(request)
        self.groups.clear()
        self.tables.clear()
        return p4r.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        resp = p4r.GetForwardingPipelineConfigResponse()
        if self.pipelines:
            resp.config.p4info.CopyFrom(self.pipelines[-1].config.p4info)
            resp.config.cookie.CopyFrom(self.pipelines[-1].config.cookie)
        return resp


def _table_key(entry: p4r.TableEntry) -> tuple[int, bytes]:
    return entry.table_id, b"".join(m.SerializeToString() for m in entry.match)


@contextlib.contextmanager
def serve() -> Iterator[FakeP4Runtime]:
    """A FakeP4Runtime listening on 127.0.0.1 (port chosen by the OS) for the `with` body."""
    servicer = FakeP4Runtime()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(servicer, server)
    servicer.addr = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    try:
        yield servicer
    finally:
        server.stop(0)


@pytest.fixture
def fake() -> Iterator[FakeP4Runtime]:
    """A FakeP4Runtime serving for one test (import this fixture into a test module)."""
    with serve() as servicer:
        yield servicer


def write_bmv2_json(directory: pathlib.Path, registers: dict[str, int] | None = None) -> pathlib.Path:
    """A minimal BMv2 JSON with the given register arrays (name -> cells)."""
    path = directory / "p4reduce.json"
    path.write_text(
        json.dumps(
            {
                "pipelines": [],
                "register_arrays": [{"name": name, "size": size} for name, size in (registers or {}).items()],
            }
        )
    )
    return path
