# SPDX-License-Identifier: Apache-2.0
"""simple_switch_grpc running the p4reduce pipeline: start, program, stop.

Shared by the BMv2 tests (veth pairs) and the Mininet switch node: one place
knows how the switch is launched and where its control ports listen.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from p4reduce.controller.client import SwitchClient
from p4reduce.p4src import BMV2_JSON, P4INFO, build_artifact
from p4reduce.protocol.switch import SWITCH_CPU_PORT
from p4reduce.testbed.ports import free_port

# The aggregator address workers send to: the switch answers for it (workers
# get a static ARP entry), as docs/protocol.md section 8 describes.
AGG_IP = "10.0.0.254"
AGG_MAC = "02:00:00:00:00:fe"


@dataclass(frozen=True)
class Pipeline:
    """A compiled program: what SetForwardingPipelineConfig pushes."""

    p4info: pathlib.Path
    bmv2_json: pathlib.Path

    @classmethod
    def installed(cls) -> Pipeline:
        """The package's own compiled program (p4src/build)."""
        return cls(build_artifact(P4INFO), build_artifact(BMV2_JSON))


def simple_switch_missing() -> str | None:
    """Why simple_switch_grpc cannot be started here, or None."""
    if shutil.which("simple_switch_grpc") is None:
        return "simple_switch_grpc (BMv2 built with P4Runtime) is not on PATH"
    return None


class Bmv2Process:
    """One simple_switch_grpc process; P4Runtime and thrift listen on loopback only.

    `interfaces` maps BMv2 port numbers to Linux interface names.
    """

    def __init__(self, interfaces: Mapping[int, str], log_file: pathlib.Path | None = None) -> None:
        self.interfaces = dict(interfaces)
        self.log_file = log_file
        self.grpc_port = free_port()
        self.thrift_port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.client: SwitchClient | None = None

    @property
    def grpc_addr(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def switch_config(self) -> dict[str, object]:
        """The `switch` section of a controller configuration for this process."""
        return {"grpc_addr": self.grpc_addr, "thrift_port": self.thrift_port}

    def start(self, pipeline: Pipeline, timeout: float = 20.0) -> SwitchClient:
        """Launch the switch, connect as primary controller and push `pipeline`."""
        argv = ["simple_switch_grpc", "--device-id", "0", "--thrift-port", str(self.thrift_port)]
        if self.log_file is not None:
            # BMv2 appends ".log" to the name it is given.
            argv += ["--log-file", str(self.log_file.with_suffix("")), "--log-flush"]
        for port, name in sorted(self.interfaces.items()):
            argv += ["-i", f"{port}@{name}"]
        argv += ["--no-p4", "--", "--grpc-server-addr", self.grpc_addr]
        argv += ["--cpu-port", str(SWITCH_CPU_PORT)]  # PacketIn: unknown workers' JOINs
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.client = SwitchClient.connect(self.grpc_addr, timeout=timeout, thrift_port=self.thrift_port)
            self.client.push_pipeline(pipeline.p4info, pipeline.bmv2_json)
        except BaseException:
            self.stop()
            raise
        return self.client

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
