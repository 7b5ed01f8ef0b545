# SPDX-License-Identifier: Apache-2.0
"""Where the servers of jobs.proto's services (the job service, an aggregator's admin API)
take their port."""

from __future__ import annotations

import grpc

# gRPC servers set SO_REUSEPORT by default: a second service started on a port another
# process holds would then "start" and share the port's connections with it. Without it,
# a taken port is an error that names the address.
SERVER_OPTIONS = (("grpc.so_reuseport", 0),)


def listen(server: grpc.Server, host: str, port: int, credentials: grpc.ServerCredentials | None = None) -> int:
    """Add a port at host:port (0: any) to `server`, TLS with `credentials`; the port it
    got, or OSError naming the address."""
    address = f"{host}:{port}"
    try:
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
    except RuntimeError as exc:  # grpcio >= 1.60 raises where older ones returned 0
        raise OSError(f"cannot listen on {host}:{port}: {exc}") from None
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    return int(bound)


__all__ = ["SERVER_OPTIONS", "listen"]
