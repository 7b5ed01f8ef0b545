# SPDX-License-Identifier: Apache-2.0
"""The pure-Python thrift client against a real simple_switch_grpc running the
committed p4src/build/p4reduce.json (no interfaces, no root needed).

Skipped, with the reason, when simple_switch_grpc is not installed.
"""

from __future__ import annotations

import pathlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from fake_bmv2_thrift import closed_port, python_with_thrift

from p4reduce.controller.bmv2 import Bmv2Thrift
from p4reduce.controller.client import SwitchClient
from p4reduce.controller.config import load_config
from p4reduce.controller.errors import ResetError

BUILT_JSON = pathlib.Path(__file__).resolve().parents[2] / "p4src" / "build" / "p4reduce.json"
SEEN = "P4ReduceIngress.seen_bitmap.seen"
MIN_KEY = "P4ReduceIngress.lookahead.min_key"  # 40 bits wide: more than an i32
VALUE = "P4ReduceIngress.values.value_31"

pytestmark = [
    pytest.mark.skipif(shutil.which("simple_switch_grpc") is None, reason="simple_switch_grpc (BMv2) is not installed"),
    pytest.mark.skipif(not BUILT_JSON.exists(), reason="p4src/build/p4reduce.json not built"),
]


@pytest.fixture(scope="module")
def thrift_port(tmp_path_factory) -> Iterator[int]:
    port = closed_port()
    log = tmp_path_factory.mktemp("bmv2") / "simple_switch_grpc.out"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                "simple_switch_grpc",
                "--thrift-port",
                str(port),
                "--device-id",
                "0",
                str(BUILT_JSON),
                "--",
                "--grpc-server-addr",
                f"127.0.0.1:{closed_port()}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"simple_switch_grpc exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"simple_switch_grpc: no thrift server on port {port} within 30 s")
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_write_range_and_read_back(thrift_port):
    with Bmv2Thrift("127.0.0.1", thrift_port, timeout=5) as switch:
        switch.register_write_range(MIN_KEY, 10, 13, 2**39 + 3)
        assert [switch.register_read(MIN_KEY, i) for i in range(9, 14)] == [0, 2**39 + 3, 2**39 + 3, 2**39 + 3, 0]
        switch.register_write_range(MIN_KEY, 0, 2048, 0)
        assert switch.register_read(MIN_KEY, 11) == 0 and switch.register_read(MIN_KEY, 2047) == 0


def test_clear_job_registers_zeroes_exactly_the_jobs_slots(thrift_port):
    job = load_config(
        {
            "jobs": [
                {
                    "job_id": 1,
                    "slot_base": 100,
                    "num_slots": 2,
                    "workers": [
                        {"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 1}
                    ],
                }
            ]
        }
    ).job(1)
    with Bmv2Thrift("127.0.0.1", thrift_port, timeout=5) as switch:
        for name in (SEEN, VALUE):
            switch.register_write_range(name, 0, 2048, 5)  # state of every slot, both copies
        client = SwitchClient("127.0.0.1:1", thrift_port=thrift_port)  # no P4Runtime needed
        client.use_bmv2_json(BUILT_JSON)
        cells = client.clear_job_registers(job)
        assert cells == 2 * len(client.reset_ranges(job)) >= 35 * 2 * 2  # 2 slots x 2 copies each
        for name in (SEEN, VALUE):
            assert [switch.register_read(name, i) for i in (99, 100, 101, 102)] == [5, 0, 0, 5]
            assert [switch.register_read(name, i) for i in (1123, 1124, 1125, 1126)] == [5, 0, 0, 5]


def test_simple_switch_cli_sees_what_was_written(thrift_port):
    """An independent reader: BMv2's own CLI (Apache Thrift's Python library)."""
    cli, python = shutil.which("simple_switch_CLI"), python_with_thrift()
    if cli is None or python is None:
        pytest.skip("simple_switch_CLI, or a python3 with the thrift module to run it, is missing")
    with Bmv2Thrift("127.0.0.1", thrift_port, timeout=5) as switch:
        switch.register_write_range(VALUE, 199, 202, 0)
        switch.register_write_range(VALUE, 200, 202, 123456)
        switch.register_write_range(MIN_KEY, 201, 202, 2**39 + 1)
    proc = subprocess.run(
        [python, cli, "--thrift-port", str(thrift_port)],
        capture_output=True,
        text=True,
        timeout=60,
        input=f"register_read {VALUE} 199\nregister_read {VALUE} 200\n"
        f"register_read {VALUE} 201\nregister_read {MIN_KEY} 201\n",
    )
    assert proc.returncode == 0, proc.stderr
    for line in (f"{VALUE}[199]= 0", f"{VALUE}[200]= 123456", f"{VALUE}[201]= 123456", f"{MIN_KEY}[201]= {2**39 + 1}"):
        assert line in proc.stdout, proc.stdout


def test_the_switch_refusals_are_reset_errors(thrift_port):
    address = f"127.0.0.1:{thrift_port}"
    with Bmv2Thrift("127.0.0.1", thrift_port, timeout=5) as switch:
        with pytest.raises(
            ResetError,
            match=rf"^BMv2 thrift {address}, bm_register_write_range on register "
            r"NoSuch.register\[0:1\]: InvalidRegisterOperation "
            r"INVALID_REGISTER_NAME$",
        ):
            switch.register_write_range("NoSuch.register", 0, 1)
        with pytest.raises(ResetError, match=rf"{SEEN}\[2047:2049\]: InvalidRegisterOperation INVALID_INDEX"):
            switch.register_write_range(SEEN, 2047, 2049)
        with pytest.raises(ResetError, match=rf"{SEEN}\[2048\]: InvalidRegisterOperation INVALID_INDEX"):
            switch.register_read(SEEN, 2048)
        assert switch.register_read(SEEN, 0) in (0, 5)  # the connection is still usable
