# SPDX-License-Identifier: Apache-2.0
"""Compile a .proto of the package into committed Python stubs (needs grpcio-tools).

The stubs are committed so that installing p4reduce needs no protobuf compiler; each
package with a .proto has a `generate` module that calls `write_stubs`, and a test
calls `compile_stubs` and compares.
"""

from __future__ import annotations

import pathlib
import re
import tempfile


def stub_names(proto: str) -> tuple[str, str]:
    stem = proto.removesuffix(".proto")
    return f"{stem}_pb2.py", f"{stem}_pb2_grpc.py"


def compile_stubs(here: pathlib.Path, proto: str, package: str, out: pathlib.Path) -> None:
    """`here/proto`'s stubs into `out`, the gRPC one importing the messages from `package`."""
    from grpc_tools import protoc  # the 'grpcio-tools' package

    status = protoc.main(["protoc", f"-I{here}", f"--python_out={out}", f"--grpc_python_out={out}", proto])
    if status != 0:
        raise RuntimeError(f"protoc failed on {here / proto} (status {status})")
    messages, grpc_name = stub_names(proto)
    module = messages.removesuffix(".py")
    grpc_stub = out / grpc_name
    text = re.sub(rf"^import {module} as", f"from {package} import {module} as", grpc_stub.read_text(), flags=re.M)
    grpc_stub.write_text(text)


def write_stubs(here: pathlib.Path, proto: str, package: str) -> list[str]:
    """Regenerate the committed stubs of `here/proto`; the names written."""
    names = list(stub_names(proto))
    with tempfile.TemporaryDirectory() as tmp:
        compile_stubs(here, proto, package, pathlib.Path(tmp))
        for name in names:
            (here / name).write_text((pathlib.Path(tmp) / name).read_text())
    return names
