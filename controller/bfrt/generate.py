# SPDX-License-Identifier: Apache-2.0
"""Regenerate bfruntime_pb2.py and bfruntime_pb2_grpc.py from bfruntime.proto (needs
grpcio-tools):

    python -m p4reduce.controller.bfrt.generate

tests/control_plane/test_bfrt_stubs.py checks that the committed stubs are up to date.
"""

from __future__ import annotations

import pathlib
import sys

from p4reduce import protogen

HERE = pathlib.Path(__file__).resolve().parent
PROTO = "bfruntime.proto"
PACKAGE = "p4reduce.controller.bfrt"
STUBS = protogen.stub_names(PROTO)


def compile_stubs(out: pathlib.Path) -> None:
    protogen.compile_stubs(HERE, PROTO, PACKAGE, out)


def main() -> int:
    names = protogen.write_stubs(HERE, PROTO, PACKAGE)
    print(f"wrote {', '.join(names)} in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
