# SPDX-License-Identifier: Apache-2.0
"""The P4Runtime protobuf and gRPC stubs, from one place.

finsy ships them generated for protobuf 6 (the `p4runtime` wheels on PyPI need
the protobuf 3.20 runtime, which current ML stacks cannot install). Only the
stubs are used: the session in client.py is plain synchronous grpcio.
"""

try:
    from finsy.proto import p4i as p4info_pb2
    from finsy.proto import p4r
    from finsy.proto import p4r_grpc as p4runtime_pb2_grpc
    from finsy.proto import rpc_code as code_pb2
    from finsy.proto import rpc_status as status_pb2
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("p4reduce.controller needs the 'controller' extra: pip install 'p4reduce[controller]'") from exc

__all__ = ["code_pb2", "p4info_pb2", "p4r", "p4runtime_pb2_grpc", "status_pb2"]
