# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller serve`: a banner naming where it listens, the service until
SIGTERM, and one-line errors (exit 2) for bad input."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import grpc
import pytest

from p4reduce.jobapi import jobs_pb2 as pb
from p4reduce.jobapi import jobs_pb2_grpc as pb_grpc


def serve(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "p4reduce", "controller", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_serves_until_sigterm(tmp_path):
    config = tmp_path / "service.yaml"
    config.write_text("fallback: {host: 127.0.0.1, port: 0}\njobs: {num_slots: 8}\n")
    proc = serve("--config", str(config), "--bind", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
    try:
        banner = proc.stdout.readline()
        m = re.fullmatch(
            r"p4reduce job service on 127\.0\.0\.1:(\d+); fallback software aggregator on 127\.0\.0\.1:\d+; "
            r"metrics on http://127\.0\.0\.1:\d+/metrics\n",
            banner,
        )
        assert m is not None, banner
        with grpc.insecure_channel(f"127.0.0.1:{m[1]}") as channel:
            job = pb_grpc.JobServiceStub(channel).CreateJob(pb.CreateJobRequest(name="a", num_workers=2))
        assert job.target == pb.SOFTWARE and job.num_slots == 8
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    "text, args, message",
    [
        ("fallback: {port: 70000}\n", (), "fallback.port: 70000 is not an integer in 0..65535"),
        ("{}\n", (), "neither 'switch' nor 'fallback'"),
        (None, (), "cannot read"),
        ("fallback: embedded\n", ("--bind", "nowhere"), "--bind: expected HOST:PORT"),
        ("fallback: embedded\n", ("--metrics", "1.2.3.4:99999"), "--metrics: expected HOST:PORT"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, text, args, message):
    config = tmp_path / "service.yaml"
    if text is not None:
        config.write_text(text)
    proc = serve("--config", str(config), *args)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    assert out == "" and err.count("\n") == 1 and message in err
