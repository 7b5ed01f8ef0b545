# SPDX-License-Identifier: Apache-2.0
"""Regenerate jobs_pb2.py and jobs_pb2_grpc.py from jobs.proto (needs grpcio-tools):

    python -m p4reduce.jobapi.generate

The stubs are committed so that installing p4reduce needs no protobuf compiler;
tests/service/test_jobapi_stubs.py checks that they are what jobs.proto compiles to.
"""

from __future__ import annotations

import pathlib
import sys

from p4reduce import protogen

HERE = pathlib.Path(__file__).resolve().parent
PROTO = "jobs.proto"
STUBS = protogen.stub_names(PROTO)


def compile_stubs(out: pathlib.Path) -> None:
    """jobs.proto's stubs into `out`, importing each other from this package."""
    protogen.compile_stubs(HERE, PROTO, "p4reduce.jobapi", out)


def main() -> int:
    names = protogen.write_stubs(HERE, PROTO, "p4reduce.jobapi")
    print(f"wrote {', '.join(names)} in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
