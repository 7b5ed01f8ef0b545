# SPDX-License-Identifier: Apache-2.0
"""Regenerate jobs_pb2.py and jobs_pb2_grpc.py from jobs.proto (needs grpcio-tools):

    python -m p4reduce.jobapi.generate

The stubs are committed so that installing p4reduce needs no protobuf compiler;
tests/service/test_jobapi_stubs.py checks that they are what jobs.proto compiles to.
"""

from __future__ import annotations

import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
STUBS = ("jobs_pb2.py", "jobs_pb2_grpc.py")


def compile_stubs(out: pathlib.Path) -> None:
    """jobs.proto's stubs into `out`, importing each other from this package."""
    from grpc_tools import protoc  # the 'grpcio-tools' package

    status = protoc.main(["protoc", f"-I{HERE}", f"--python_out={out}", f"--grpc_python_out={out}", "jobs.proto"])
    if status != 0:
        raise RuntimeError(f"protoc failed on {HERE / 'jobs.proto'} (status {status})")
    grpc_stub = out / "jobs_pb2_grpc.py"
    text = re.sub(r"^import jobs_pb2 as", "from p4reduce.jobapi import jobs_pb2 as", grpc_stub.read_text(), flags=re.M)
    grpc_stub.write_text(text)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        compile_stubs(pathlib.Path(tmp))
        for name in STUBS:
            (HERE / name).write_text((pathlib.Path(tmp) / name).read_text())
    print(f"wrote {', '.join(STUBS)} in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
