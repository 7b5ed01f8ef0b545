"""reset_job: register names from the BMv2 JSON, the simple_switch_CLI commands
and the subprocess call (mocked: no BMv2 needed)."""
from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

from p4reduce.controller import bmv2
from p4reduce.controller.client import SwitchClient
from p4reduce.controller.config import load_config
from p4reduce.controller.errors import ResetError

BUILT_JSON = pathlib.Path(__file__).resolve().parents[2] / "p4src" / "build" / "p4reduce.json"

# Whatever the P4 engineer calls them: every 2 x 1024-cell array is per-slot state.
BMV2_JSON = {"pipelines": [], "register_arrays": [
    {"name": "MyIngress.bits.seen", "id": 0, "size": 2048, "bitwidth": 32},
    {"name": "MyIngress.vals.v0", "id": 1, "size": 2048, "bitwidth": 32},
    {"name": "MyIngress.job_state", "id": 2, "size": 16, "bitwidth": 8},   # not per slot: untouched
]}
JOB = load_config({"jobs": [{"job_id": 3, "slot_base": 100, "num_slots": 2, "workers": [
    {"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 1}]}]}).job(3)


class FakeRun:
    """Stands in for subprocess.run; records argv and stdin."""

    def __init__(self, stdout: str = "RuntimeCmd: " * 3, returncode: int = 0) -> None:
        self.stdout, self.returncode = stdout, returncode
        self.calls: list[tuple[list[str], str]] = []

    def __call__(self, argv, input, capture_output, text, timeout):
        assert capture_output and text and timeout > 0
        self.calls.append((argv, input))
        return subprocess.CompletedProcess(argv, self.returncode, self.stdout, "")


@pytest.fixture
def run(monkeypatch) -> FakeRun:
    fake = FakeRun()
    monkeypatch.setattr(bmv2.shutil, "which", lambda name: f"/opt/bmv2/bin/{name}")
    monkeypatch.setattr(bmv2.subprocess, "run", fake)
    return fake


def client_with_json(data: dict = BMV2_JSON, grpc_addr: str = "127.0.0.1:9559") -> SwitchClient:
    client = SwitchClient(grpc_addr, thrift_port=9091)  # no connection needed for registers
    client.bmv2_json = data
    return client


def test_commands_zero_both_versions_of_every_slot_of_every_slot_register():
    assert client_with_json().reset_commands(JOB) == [
        "register_write MyIngress.bits.seen 100 0", "register_write MyIngress.bits.seen 101 0",
        "register_write MyIngress.bits.seen 1124 0", "register_write MyIngress.bits.seen 1125 0",
        "register_write MyIngress.vals.v0 100 0", "register_write MyIngress.vals.v0 101 0",
        "register_write MyIngress.vals.v0 1124 0", "register_write MyIngress.vals.v0 1125 0"]


def test_register_subset_can_be_named():
    assert client_with_json().reset_commands(JOB, ["X.seen"]) == [
        "register_write X.seen 100 0", "register_write X.seen 101 0",
        "register_write X.seen 1124 0", "register_write X.seen 1125 0"]


@pytest.mark.skipif(not BUILT_JSON.exists(), reason="p4src/build/p4reduce.json not built")
def test_built_program_registers():
    names = bmv2.slot_register_arrays(json.loads(BUILT_JSON.read_text()))
    assert "P4ReduceIngress.seen_bitmap.seen" in names
    assert len(names) == 35  # seen, remaining, min_key, value_00..31


def test_reset_job_feeds_simple_switch_cli(run):
    assert client_with_json().reset_job(JOB) == 8
    ((argv, stdin),) = run.calls
    assert argv == ["/opt/bmv2/bin/simple_switch_CLI", "--thrift-port", "9091"]
    assert stdin.splitlines() == client_with_json().reset_commands(JOB)
    assert stdin.endswith("\n")


def test_thrift_port_and_cli_can_be_overridden_and_remote_host_is_passed(run):
    client_with_json(grpc_addr="192.0.2.7:9559").reset_job(JOB, 9555, cli="runtime_CLI")
    ((argv, _),) = run.calls
    assert argv == ["/opt/bmv2/bin/runtime_CLI", "--thrift-port", "9555", "--thrift-ip", "192.0.2.7"]


def test_missing_cli_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(bmv2.shutil, "which", lambda name: None)
    with pytest.raises(ResetError, match="simple_switch_CLI not found on PATH: it ships with BMv2"):
        client_with_json().reset_job(JOB)


@pytest.mark.parametrize("stdout, returncode, message", [
    ("RuntimeCmd: Error: Invalid register array name (MyIngress.bits.seen)\nRuntimeCmd: ", 0,
     r"Error: Invalid register array name"),
    ("RuntimeCmd: Invalid register operation (INVALID_INDEX)\n", 0, r"INVALID_INDEX"),
    ("Could not connect to thrift client on port 9091\nMake sure the switch is running\n", 1,
     r"exit 1\): Could not connect to thrift client on port 9091"),
])
def test_cli_failures_are_reported(run, stdout, returncode, message):
    run.stdout, run.returncode = stdout, returncode
    with pytest.raises(ResetError, match=message):
        client_with_json().reset_job(JOB)


def test_no_per_slot_registers_is_an_error():
    only_job_state = {"pipelines": [], "register_arrays": BMV2_JSON["register_arrays"][2:]}
    with pytest.raises(ResetError,
                       match=r"no register array of 2048 cells .* \(have: MyIngress.job_state\[16\]\)"):
        client_with_json(only_job_state).reset_commands(JOB)
    with pytest.raises(ResetError, match="no 'register_arrays'"):
        client_with_json({"pipelines": []}).reset_commands(JOB)


def test_reset_needs_the_bmv2_json():
    from p4reduce.controller.errors import SwitchError
    with pytest.raises(SwitchError, match="the BMv2 JSON is needed"):
        SwitchClient("127.0.0.1:1").reset_commands(JOB)
