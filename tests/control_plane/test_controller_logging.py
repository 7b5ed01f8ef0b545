# SPDX-License-Identifier: Apache-2.0
"""Logging of the controller: every P4Runtime request at DEBUG on
p4reduce.controller.grpc (a gRPC interceptor), the session's steps at INFO."""

from __future__ import annotations

import logging
import pathlib

import pytest
from fake_bmv2_thrift import serve as serve_thrift
from fake_p4runtime import fake, write_bmv2_json  # noqa: F401 (fake: a fixture)

from p4reduce.controller.client import SwitchClient, WriteError
from p4reduce.controller.config import load_config
from p4reduce.controller.grpc_log import MAX_TEXT, describe
from p4reduce.controller.proto import code_pb2, p4r

HERE = pathlib.Path(__file__).resolve().parent
SMALL = HERE / "p4info_small.txtpb"
GRPC_LOG = "p4reduce.controller.grpc"
CONFIG = load_config(
    {
        "jobs": [
            {
                "job_id": 1,
                "slot_base": 4,
                "num_slots": 2,
                "mgid": 1,
                "workers": [
                    {"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 40000}
                ],
            }
        ],
        "l2": [{"mac": "02:00:00:00:00:01", "port": 1}],
    }
)


@pytest.fixture
def bmv2_json(tmp_path) -> pathlib.Path:
    return write_bmv2_json(tmp_path, {"I.seen": 2048})


def grpc_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == GRPC_LOG]


def test_a_write_is_logged_at_debug_with_its_update(fake, caplog):
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(SMALL)
        caplog.set_level(logging.DEBUG, logger=GRPC_LOG)
        client.write_table_entry("l2", {"hdr.ethernet.dst_addr": 0x020000000005}, "to_port", {"port": 5})
    (record,) = [r for r in grpc_records(caplog) if r.getMessage().startswith("Write ")]
    assert record.levelno == logging.DEBUG
    message = record.getMessage()
    assert "\n" not in message
    assert (
        "updates { type: INSERT entity { table_entry { table_id: 102 match { field_id: 1 exact "
        '{ value: "\\002\\000\\000\\000\\000\\005" } } action { action { action_id: 203 params '
        '{ param_id: 1 value: "\\005" } } } } }' in message
    )
    assert "election_id { low: 1 }" in message


def test_a_read_logs_nothing_at_info_or_above(fake, caplog):
    fake.counters = {0: 3}
    with SwitchClient.connect(fake.addr, arbitrate=False) as client:
        client.use_pipeline(SMALL)
        caplog.set_level(logging.DEBUG, logger="p4reduce")
        caplog.clear()  # from here on, only the read
        assert client.read_counters()["data_counted"] == 3
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO] == []
    # The Read itself is there, at DEBUG (a Read is unary-stream: its own interceptor method).
    (read,) = [r for r in grpc_records(caplog) if r.getMessage().startswith("Read ")]
    assert read.levelno == logging.DEBUG and "counter_entry { counter_id:" in read.getMessage()


def test_a_refused_write_logs_its_status_code(fake, caplog):
    fake.refuse = lambda u: (code_pb2.RESOURCE_EXHAUSTED, "table full")
    caplog.set_level(logging.DEBUG, logger=GRPC_LOG)
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(SMALL)
        with pytest.raises(WriteError):
            client.write_multicast_group(7, [(1, 0)], update="insert")
    assert "Write ended with UNKNOWN: Write failure." in [r.getMessage() for r in grpc_records(caplog)]


def test_stream_channel_messages_are_logged(fake, caplog):
    caplog.set_level(logging.DEBUG, logger=GRPC_LOG)
    with SwitchClient.connect(fake.addr, device_id=2, election_id=9):
        pass
    assert "StreamChannel > arbitration { device_id: 2 election_id { low: 9 } }" in [
        r.getMessage() for r in grpc_records(caplog)
    ]


def test_pipeline_push_leaves_out_the_device_config(fake, caplog, bmv2_json):
    caplog.set_level(logging.DEBUG, logger=GRPC_LOG)
    with SwitchClient.connect(fake.addr) as client:
        client.push_pipeline(SMALL, bmv2_json)
    (push,) = [
        r.getMessage() for r in grpc_records(caplog) if r.getMessage().startswith("SetForwardingPipelineConfig ")
    ]
    size = bmv2_json.stat().st_size
    assert push.endswith(f"[p4_device_config: {size} bytes omitted]")
    assert "register_arrays" not in push and "action: VERIFY_AND_COMMIT" in push
    # The request sent is untouched by the logging.
    assert fake.pipelines[0].config.p4_device_config == bmv2_json.read_bytes()


def test_long_requests_are_truncated():
    req = p4r.WriteRequest(device_id=1)
    for port in range(500):
        req.updates.add(type=p4r.Update.INSERT).entity.table_entry.table_id = port
    text = describe(req)
    assert text.startswith("device_id: 1 updates {") and len(text) < MAX_TEXT + 100
    assert text.endswith("more characters]")


def test_nothing_is_formatted_unless_debug_is_on(fake, caplog, monkeypatch):
    def boom(msg, limit=MAX_TEXT):
        raise AssertionError("formatted a request with DEBUG off")

    monkeypatch.setattr("p4reduce.controller.grpc_log.describe", boom)
    caplog.set_level(logging.INFO, logger="p4reduce")
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(SMALL)
        client.write_multicast_group(7, [(1, 0)])
    assert fake.writes  # the write went through


def test_session_steps_are_logged_at_info(fake, caplog, bmv2_json):
    caplog.set_level(logging.INFO, logger="p4reduce")
    with serve_thrift() as thrift:
        thrift.add_register("I.seen", 2048)
        with SwitchClient.connect(fake.addr, election_id=3, thrift_port=thrift.port) as client:
            client.push_pipeline(SMALL, bmv2_json)
            client.install(CONFIG)
            client.reset_job(CONFIG.job(1))
    messages = [r.getMessage() for r in caplog.records if r.name == "p4reduce.controller.client"]
    assert messages[:2] == [
        f"connected to P4Runtime server {fake.addr}",
        f"{fake.addr}: primary controller for device 0 (election id 3)",
    ]
    assert messages[2].startswith(f"{fake.addr}: pipeline pushed to device 0 ({SMALL}, {bmv2_json}; cookie 0x")
    assert messages[3:] == [
        f"{fake.addr}: installed 4 entities (1 job(s), 1 L2 entries)",
        f"{fake.addr}: job 1: new session in its 1 worker entries",
        f"job 1: zeroed 4 cells of 1 registers (slots 4..5, both shadow copies) via BMv2 thrift "
        f"127.0.0.1:{thrift.port}",
    ]
    assert all(r.levelno == logging.INFO for r in caplog.records)
