"""Controller against an in-process fake P4Runtime server (no BMv2 needed)."""
from __future__ import annotations

import pathlib
import threading
import time
from concurrent import futures

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as p4r
from p4.v1 import p4runtime_pb2_grpc

from controller.client import NotPrimary, SwitchClient, SwitchUnreachable
from controller.config import load_config
from controller.p4info import P4Info, P4InfoError, encode_value
from sample_config import GOOD

BUILD = pathlib.Path(__file__).resolve().parents[2] / "p4src" / "build"


class FakeP4Runtime(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, primary: bool = True, answer: bool = True) -> None:
        self.primary, self.answer = primary, answer
        self.writes: list[p4r.WriteRequest] = []
        self.pipelines: list[p4r.SetForwardingPipelineConfigRequest] = []
        self.counter_values = {0: 5, 1: 2, 8: 7}

    def StreamChannel(self, request_iterator, context):
        for req in request_iterator:
            if req.HasField("arbitration") and self.answer:
                resp = p4r.StreamMessageResponse()
                resp.arbitration.CopyFrom(req.arbitration)
                resp.arbitration.status.code = 0 if self.primary else 6
                resp.arbitration.status.message = "" if self.primary else "backup"
                yield resp
            elif not self.answer:
                time.sleep(3)

    def SetForwardingPipelineConfig(self, request, context):
        self.pipelines.append(request)
        return p4r.SetForwardingPipelineConfigResponse()

    def Write(self, request, context):
        self.writes.append(request)
        return p4r.WriteResponse()

    def Read(self, request, context):
        resp = p4r.ReadResponse()
        cid = request.entities[0].counter_entry.counter_id
        for index, packets in self.counter_values.items():
            e = resp.entities.add().counter_entry
            e.counter_id = cid
            e.index.index = index
            e.data.packet_count = packets
        yield resp


@pytest.fixture
def fake():
    servicer = FakeP4Runtime()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    servicer.addr = f"127.0.0.1:{port}"
    yield servicer
    server.stop(0)


def test_install_writes_the_expected_entities(fake):
    cfg = load_config(GOOD)
    with SwitchClient.connect(fake.addr, timeout=5) as client:
        client.push_pipeline(BUILD / "p4reduce.p4info.txtpb", BUILD / "p4reduce.json")
        client.install(cfg)
    assert fake.pipelines[0].action == p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
    assert fake.pipelines[0].config.p4_device_config == (BUILD / "p4reduce.json").read_bytes()
    updates = [u for w in fake.writes for u in w.updates]
    assert all(u.type == p4r.Update.INSERT for u in updates)
    info = P4Info.load(BUILD / "p4reduce.p4info.txtpb")
    workers_id = info.table("P4ReduceIngress.worker_check.workers").id
    dest_id = info.table("P4ReduceEgress.result_dest").id
    l2_id = info.table("P4ReduceIngress.forwarding.l2").id
    tables = [u.entity.table_entry for u in updates if u.entity.HasField("table_entry")]
    groups = [u.entity.packet_replication_engine_entry.multicast_group_entry for u in updates
              if u.entity.HasField("packet_replication_engine_entry")]
    assert sum(t.table_id == workers_id for t in tables) == 3
    assert sum(t.table_id == dest_id for t in tables) == 3
    assert sum(t.table_id == l2_id for t in tables) == 2  # one port entry + broadcast
    # Worker 1 of job 1: port 2, MAC 02:..:02, 10.0.0.2, UDP 40001 -> (job 1, worker 1, 2 workers).
    entry = [t for t in tables if t.table_id == workers_id][1]
    assert [m.exact.value for m in entry.match] == [b"\x02", bytes.fromhex("020000000002"),
                                                   bytes([10, 0, 0, 2]), (40001).to_bytes(2, "big")]
    assert [p.value for p in entry.action.action.params] == [b"\x01", b"\x01", b"\x02", b"\x02",
                                                            b"\x00", b"\x10"]
    assert {g.multicast_group_id: [(r.egress_port, r.instance) for r in g.replicas] for g in groups} == \
        {2: [(1, 0), (2, 1)], 9: [(3, 0)], 1000: [(1, 0), (2, 0), (3, 0)]}


def test_counters_are_named(fake):
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(BUILD / "p4reduce.p4info.txtpb")
        counters = client.read_counters()
    assert counters["data_counted"] == 5 and counters["result_multicast"] == 2
    assert counters["forwarded"] == 7 and counters["bad_slot"] == 0


def test_backup_controller_is_refused(fake):
    fake.primary = False
    with pytest.raises(NotPrimary, match="backup"):
        SwitchClient.connect(fake.addr)


def test_unreachable_switch_fails_fast():
    start = time.monotonic()
    with pytest.raises(SwitchUnreachable, match="127.0.0.1:1"):
        SwitchClient.connect("127.0.0.1:1", timeout=0.5)
    assert time.monotonic() - start < 3


def test_silent_server_times_out_on_arbitration(fake):
    fake.answer = False
    with pytest.raises(SwitchUnreachable, match="no arbitration answer"):
        SwitchClient.connect(fake.addr, timeout=0.5)


def test_reset_commands_cover_both_versions_of_the_job_slots(fake):
    cfg = load_config(GOOD)
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(BUILD / "p4reduce.p4info.txtpb", BUILD / "p4reduce.json")
        cmds = client.reset_commands(cfg.job(2))
    assert len(cmds) == 32
    assert cmds[0] == "register_write P4ReduceIngress.seen_bitmap.seen 16 0"
    assert cmds[-1] == "register_write P4ReduceIngress.seen_bitmap.seen 1055 0"


def test_bad_p4info_is_reported(tmp_path, fake):
    (tmp_path / "bad.txtpb").write_text("tables { nonsense")
    with pytest.raises(P4InfoError, match="not a P4Info"):
        P4Info.load(tmp_path / "bad.txtpb")
    info = P4Info.load(BUILD / "p4reduce.p4info.txtpb")
    with pytest.raises(P4InfoError, match="table 'Ingress.workers' not in P4Info \\(have: P4Reduce"):
        info.table("Ingress.workers")


@pytest.mark.parametrize("value, width, expected", [(0, 9, b"\x00"), (1, 9, b"\x01"), (256, 9, b"\x01\x00"),
                                                    (0x0A000001, 32, b"\x0a\x00\x00\x01")])
def test_canonical_encoding(value, width, expected):
    assert encode_value(value, width) == expected


def test_value_too_wide():
    with pytest.raises(ValueError):
        encode_value(512, 9)
