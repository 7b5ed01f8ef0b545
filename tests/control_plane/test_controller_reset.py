# SPDX-License-Identifier: Apache-2.0
"""reset_job: register names from the BMv2 JSON, the cell ranges, and the thrift
calls (clear_job_registers), against a fake BMv2 thrift server (fake_bmv2_thrift.py;
no BMv2 needed); the new session it installs first, against the fake P4Runtime server."""

from __future__ import annotations

import json
import pathlib
import subprocess
import time

import pytest
from fake_bmv2_thrift import Call, closed_port, python_with_thrift, serve

from p4reduce.controller import bmv2
from p4reduce.controller.bmv2 import Bmv2Thrift, RegisterRange
from p4reduce.controller.client import SwitchClient, SwitchError
from p4reduce.controller.config import load_config
from p4reduce.controller.errors import ResetError

BUILT_JSON = pathlib.Path(__file__).resolve().parents[2] / "p4src" / "build" / "p4reduce.json"
# Not a timing check (load makes those flaky): only a hang, far beyond the timeouts under
# test, fails; that the configured timeout was the one used is in the error message.
HANG = 30.0

# Whatever the P4 engineer calls them: every 2 x 1024-cell array is per-slot state.
BMV2_JSON = {
    "pipelines": [],
    "register_arrays": [
        {"name": "MyIngress.bits.seen", "id": 0, "size": 2048, "bitwidth": 32},
        {"name": "MyIngress.vals.v0", "id": 1, "size": 2048, "bitwidth": 32},
        {"name": "MyIngress.job_state", "id": 2, "size": 16, "bitwidth": 8},  # not per slot: untouched
    ],
}
JOB = load_config(
    {
        "jobs": [
            {
                "job_id": 3,
                "slot_base": 100,
                "num_slots": 2,
                "workers": [{"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 1}],
            }
        ]
    }
).job(3)
WRITE = "standard:bm_register_write_range"


@pytest.fixture
def fake():
    with serve() as server:
        for r in BMV2_JSON["register_arrays"]:
            server.add_register(r["name"], r["size"], fill=7)  # 7: what a half-done round left
        yield server


def client_with_json(thrift_port: int, data: dict = BMV2_JSON, **kwargs) -> SwitchClient:
    client = SwitchClient("127.0.0.1:1", thrift_port=thrift_port, **kwargs)  # no P4Runtime needed
    client.bmv2_json = data
    return client


def test_ranges_cover_both_shadow_copies_of_every_slot_register():
    assert client_with_json(9090).reset_ranges(JOB) == [
        RegisterRange("MyIngress.bits.seen", 100, 102),
        RegisterRange("MyIngress.bits.seen", 1124, 1126),
        RegisterRange("MyIngress.vals.v0", 100, 102),
        RegisterRange("MyIngress.vals.v0", 1124, 1126),
    ]


def test_register_subset_can_be_named():
    assert client_with_json(9090).reset_ranges(JOB, ["X.seen"]) == [
        RegisterRange("X.seen", 100, 102),
        RegisterRange("X.seen", 1124, 1126),
    ]


@pytest.mark.skipif(not BUILT_JSON.exists(), reason="p4src/build/p4reduce.json not built")
def test_built_program_registers():
    names = bmv2.slot_register_arrays(json.loads(BUILT_JSON.read_text()))
    # docs/protocol.md section 8: seen, remaining, min_key, value_00..31 (at least).
    assert {
        "P4ReduceIngress.seen_bitmap.seen",
        "P4ReduceIngress.countdown.remaining",
        "P4ReduceIngress.lookahead.min_key",
    } <= set(names)
    assert {f"P4ReduceIngress.values.value_{i:02d}" for i in range(32)} <= set(names)


def test_clear_job_registers_writes_one_range_per_register_and_shadow_copy(fake):
    assert client_with_json(fake.port).clear_job_registers(JOB) == 8
    assert fake.calls == [
        Call(WRITE, 1, {1: 0, 2: "MyIngress.bits.seen", 3: 100, 4: 102, 5: 0}),
        Call(WRITE, 2, {1: 0, 2: "MyIngress.bits.seen", 3: 1124, 4: 1126, 5: 0}),
        Call(WRITE, 3, {1: 0, 2: "MyIngress.vals.v0", 3: 100, 4: 102, 5: 0}),
        Call(WRITE, 4, {1: 0, 2: "MyIngress.vals.v0", 3: 1124, 4: 1126, 5: 0}),
    ]
    assert fake.connections == 1
    seen = fake.registers["MyIngress.bits.seen"]
    assert seen[100:102] == seen[1124:1126] == [0, 0]
    # Neighbouring slots (other jobs) and other registers keep their state.
    assert seen[99] == seen[102] == seen[1123] == seen[1126] == 7
    assert set(fake.registers["MyIngress.job_state"]) == {7}


def test_thrift_port_can_be_overridden(fake):
    assert client_with_json(closed_port()).clear_job_registers(JOB, fake.port, registers=["MyIngress.vals.v0"]) == 4
    assert [c.args[2] for c in fake.calls] == ["MyIngress.vals.v0"] * 2


def test_values_written_can_be_read_back(fake):
    with Bmv2Thrift("127.0.0.1", fake.port) as switch:
        switch.register_write_range("MyIngress.vals.v0", 10, 13, -(2**40))  # i64 on the wire
        assert [switch.register_read("MyIngress.vals.v0", i) for i in range(9, 14)] == [
            7,
            -(2**40),
            -(2**40),
            -(2**40),
            7,
        ]
    assert fake.connections == 1 and [c.seqid for c in fake.calls] == list(range(1, 7))


def test_unknown_register_is_the_declared_exception_and_keeps_the_connection(fake):
    del fake.registers["MyIngress.vals.v0"]
    port = fake.port
    with pytest.raises(ResetError) as info:
        client_with_json(port).clear_job_registers(JOB)
    assert str(info.value) == (
        f"BMv2 thrift 127.0.0.1:{port}, bm_register_write_range on register "
        "MyIngress.vals.v0[100:102]: InvalidRegisterOperation INVALID_REGISTER_NAME"
    )
    with Bmv2Thrift("127.0.0.1", port) as switch:
        with pytest.raises(ResetError, match=r"register MyIngress.bits.seen\[2048\]: .* INVALID_INDEX"):
            switch.register_read("MyIngress.bits.seen", 2048)
        assert switch.register_read("MyIngress.bits.seen", 0) == 7  # same connection still in step
    assert fake.connections == 2


def test_register_smaller_than_the_job_needs_is_invalid_index(fake):
    fake.add_register("MyIngress.bits.seen", 1024)  # e.g. a program with one shadow copy
    with pytest.raises(
        ResetError,
        match=r"MyIngress.bits.seen\[1124:1126\]: InvalidRegisterOperation "
        r"INVALID_INDEX",
    ):
        client_with_json(fake.port).clear_job_registers(JOB)


def test_a_switch_without_the_method_is_reported(fake):
    fake.answer_unknown = {"bm_register_write_range"}  # what an old BMv2 would answer
    with pytest.raises(
        ResetError,
        match=r"bm_register_write_range on register MyIngress.bits.seen\[100:102\]: "
        r"the switch answered UNKNOWN_METHOD: Invalid method name: "
        r"'bm_register_write_range'",
    ):
        client_with_json(fake.port).clear_job_registers(JOB)


def test_nothing_listening_is_a_reset_error_naming_the_address():
    port = closed_port()
    with pytest.raises(
        ResetError,
        match=rf"^BMv2 thrift 127.0.0.1:{port}, bm_register_write_range on "
        r"register MyIngress.bits.seen\[100:102\]: connection refused",
    ):
        client_with_json(port).clear_job_registers(JOB)


def test_silent_switch_times_out(fake):
    fake.mode = "silent"
    client = client_with_json(fake.port, rpc_timeout=0.3)
    start = time.monotonic()
    with pytest.raises(ResetError, match=rf"127.0.0.1:{fake.port}, .*seen\[100:102\]: no answer within 0.3 s"):
        client.clear_job_registers(JOB)
    assert time.monotonic() - start < HANG  # it gave up (the message names its timeout)


@pytest.mark.parametrize("mode, read", [("hangup", "0 of 4 bytes"), ("half", "10 of 23 bytes")])
def test_cut_answer_is_a_short_read_and_the_next_call_reconnects(fake, mode, read):
    fake.mode = mode
    with Bmv2Thrift("127.0.0.1", fake.port) as switch:
        with pytest.raises(ResetError, match=rf"seen\[0:1\]: connection closed after {read} \(short read\)"):
            switch.register_write_range("MyIngress.bits.seen", 0, 1)
        fake.mode = "normal"
        switch.register_write_range("MyIngress.bits.seen", 0, 1)
    assert fake.connections == 2 and fake.registers["MyIngress.bits.seen"][0] == 0


def test_garbage_answer_is_a_protocol_error(fake):
    fake.mode = "garbage"
    with pytest.raises(ResetError, match=r"seen\[0:1\]: bad thrift message header 0x48545450"):
        Bmv2Thrift("127.0.0.1", fake.port).register_write_range("MyIngress.bits.seen", 0, 1)


# Apache Thrift's own encoder, run by an interpreter that has it (Debian's python3-thrift).
REFERENCE_CALL = """
import sys
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.protocol.TMultiplexedProtocol import TMultiplexedProtocol
from thrift.Thrift import TMessageType, TType
from thrift.transport.TTransport import TMemoryBuffer

buf = TMemoryBuffer()
p = TMultiplexedProtocol(TBinaryProtocol(buf), "standard")
p.writeMessageBegin("bm_register_write_range", TMessageType.CALL, 1)
p.writeStructBegin("bm_register_write_range_args")
for ftype, fid, write, value in [(TType.I32, 1, p.writeI32, 0), (TType.STRING, 2, p.writeString, "I.seen"),
                                 (TType.I32, 3, p.writeI32, 100), (TType.I32, 4, p.writeI32, 102),
                                 (TType.I64, 5, p.writeI64, -5)]:
    p.writeFieldBegin("", ftype, fid); write(value); p.writeFieldEnd()
p.writeFieldStop(); p.writeStructEnd(); p.writeMessageEnd()
sys.stdout.write(buf.getvalue().hex())
"""


def test_call_bytes_are_those_of_apache_thrift(fake):
    exe = python_with_thrift()
    if exe is None:
        pytest.skip("no python3 with the thrift module to compare with")
    reference = bytes.fromhex(
        subprocess.run([exe, "-c", REFERENCE_CALL], capture_output=True, text=True, check=True).stdout
    )
    fake.mode = "hangup"  # only the bytes sent matter here
    with pytest.raises(ResetError):
        Bmv2Thrift("127.0.0.1", fake.port).register_write_range("I.seen", 100, 102, -5)
    assert fake.calls[0].raw == reference


def test_no_per_slot_registers_is_an_error():
    only_job_state = {"pipelines": [], "register_arrays": BMV2_JSON["register_arrays"][2:]}
    with pytest.raises(ResetError, match=r"no register array of 2048 cells .* \(have: MyIngress.job_state\[16\]\)"):
        client_with_json(9090, only_job_state).reset_ranges(JOB)
    with pytest.raises(ResetError, match="no 'register_arrays'"):
        client_with_json(9090, {"pipelines": []}).reset_ranges(JOB)


def test_reset_needs_the_bmv2_json():
    with pytest.raises(SwitchError, match="the BMv2 JSON is needed"):
        SwitchClient("127.0.0.1:1").clear_job_registers(JOB)
