# SPDX-License-Identifier: Apache-2.0
"""The credentials options of the commands that serve or call the job service's gRPC APIs
(docs/service.md, "Securing the service")."""

from __future__ import annotations

import argparse
import pathlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # grpc: imported by the commands that use them
    from p4reduce.jobapi.security import ClientCredentials, ServerSecurity


def add_client_options(p: argparse.ArgumentParser) -> None:
    """--tls-ca, --tls-cert, --tls-key, --token-file: how a client proves itself."""
    g = p.add_argument_group("credentials (a job service with TLS or tokens)")
    g.add_argument("--tls-ca", metavar="FILE", help="the CA of the service's certificate: TLS")
    g.add_argument("--tls-cert", metavar="FILE", help="this client's certificate (its subject CN is the tenant)")
    g.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert")
    g.add_argument("--token-file", metavar="FILE", help="a file holding a bearer token of the service's tenants file")


def client_credentials(args: argparse.Namespace) -> ClientCredentials | None:
    """The options' credentials; None without any (ValueError naming a bad combination)."""
    files = (args.tls_ca, args.tls_cert, args.tls_key, args.token_file)
    if not any(files):
        return None  # and no grpc imported: a worker without a service needs none
    from p4reduce.jobapi.security import ClientCredentials

    return ClientCredentials.from_options(*files)


def add_server_options(p: argparse.ArgumentParser, what: str) -> None:
    """--tls-cert, --tls-key, --tls-client-ca, --tenants, --insecure: how `what`'s callers prove themselves."""
    g = p.add_argument_group(f"credentials of {what} (without any it binds loopback only)")
    g.add_argument("--tls-cert", metavar="FILE", type=pathlib.Path, help="the server's certificate (PEM): TLS")
    g.add_argument("--tls-key", metavar="FILE", type=pathlib.Path, help="the private key of --tls-cert (PEM)")
    g.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        type=pathlib.Path,
        help="clients need a certificate of this CA; its subject CN is the caller's tenant",
    )
    g.add_argument(
        "--tenants",
        metavar="FILE",
        type=pathlib.Path,
        help="tenants file: each tenant's role (tenant, isolated, admin), sha256 digests of its bearer tokens, "
        "quota overrides",
    )
    g.add_argument(
        "--insecure",
        action="store_true",
        help="serve a non-loopback address without credentials: anyone who reaches it may do anything",
    )


def server_security(args: argparse.Namespace, base: ServerSecurity | None = None) -> ServerSecurity:
    """`base` (a configuration's) with the options given replacing its fields."""
    from p4reduce.jobapi.security import ServerSecurity, Tenants

    security = base or ServerSecurity()
    changes: dict[str, object] = {
        name: getattr(args, name) for name in ("tls_cert", "tls_key", "tls_client_ca") if getattr(args, name)
    }
    if args.tenants is not None:
        changes["tenants"] = Tenants.load(args.tenants)
    if args.insecure:
        changes["insecure"] = True
    return security.replace(**changes) if changes else security
