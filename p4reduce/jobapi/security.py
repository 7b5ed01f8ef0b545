# SPDX-License-Identifier: Apache-2.0
"""Who calls the job service (and an aggregator's admin API), and how clients prove it.

Server side, `ServerSecurity`: TLS with client certificates (the tenant is the
certificate's subject CN) and/or bearer tokens (`authorization: Bearer TOKEN`) checked
against a tenants file, which maps tenants to a role, the sha256 digests of their tokens
and their quota overrides:

    tenants:
      alice: {tokens: [SHA256HEX, ...], quota: {jobs: 4, slots: 256}}
      bob: {role: isolated}
      ops: {role: admin, tokens: [SHA256HEX]}

A certificate tenant not in the file has role `tenant`. Without credentials every caller
is the anonymous admin, and the server binds loopback only unless told `insecure`.

Client side, `ClientCredentials`: a CA, a client certificate and key, a token file; it
builds the channel. Reading files and checking fields needs no grpc (WorkerConfig holds
one, under TYPE_CHECKING only: a worker without a service needs no grpc).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import hmac
import ipaddress
import logging
import pathlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from p4reduce.jobapi.listen import listen
from p4reduce.secretfile import read_secret

log = logging.getLogger(__name__)

_DIGEST = re.compile(r"[0-9a-f]{64}")
MAX_TENANT = 64


class Role(enum.StrEnum):
    TENANT = "tenant"  # its own jobs fully; other tenants' jobs listed without secrets
    ISOLATED = "isolated"  # sees its own jobs only
    ADMIN = "admin"  # sees and releases every job; the role an aggregator's admin API needs


@dataclass(frozen=True)
class Caller:
    """Who made a request: `tenant` ("" when the server runs without credentials) and its role."""

    tenant: str
    role: Role

    @property
    def admin(self) -> bool:
        return self.role is Role.ADMIN

    def __str__(self) -> str:
        return f"tenant {self.tenant}" if self.tenant else "the anonymous caller"


ANONYMOUS = Caller("", Role.ADMIN)  # a server without credentials trusts whoever reaches it (loopback)


class AccessError(Exception):
    """A request refused for who made it; `status` names a grpc.StatusCode member."""

    status = "PERMISSION_DENIED"


class Unauthenticated(AccessError):
    status = "UNAUTHENTICATED"


class PermissionDenied(AccessError):
    status = "PERMISSION_DENIED"


def token_digest(token: str | bytes) -> str:
    """What the tenants file stores for a token: sha256 hex (`printf %s TOKEN | sha256sum`)."""
    return hashlib.sha256(token.encode() if isinstance(token, str) else token).hexdigest()


@dataclass(frozen=True)
class Tenant:
    name: str
    role: Role = Role.TENANT
    digests: tuple[str, ...] = ()
    quota: Mapping[str, Any] = field(default_factory=dict)  # checked by the service (service/quota.py)


@dataclass(frozen=True)
class Tenants:
    """The tenants file: tenant by name, and by token."""

    by_name: Mapping[str, Tenant]
    source: str = "tenants"

    def role(self, tenant: str) -> Role:
        entry = self.by_name.get(tenant)
        return entry.role if entry else Role.TENANT

    def by_token(self, token: str) -> Tenant | None:
        digest = token_digest(token)
        found = None
        for entry in self.by_name.values():  # every digest compared, in constant time each
            for stored in entry.digests:
                if hmac.compare_digest(stored, digest):
                    found = entry
        return found

    @classmethod
    def parse(cls, data: Any, source: str = "tenants") -> Tenants:
        """A tenants document; ValueError naming the field."""
        if not isinstance(data, dict) or set(data) != {"tenants"} or not isinstance(data["tenants"], dict):
            raise ValueError(f"{source}: expected a mapping with one key, 'tenants': {{NAME: {{role, tokens, quota}}}}")
        out: dict[str, Tenant] = {}
        seen: dict[str, str] = {}
        for name, entry in data["tenants"].items():
            where = f"{source}: tenants.{name}"
            if not isinstance(name, str) or not 1 <= len(name) <= MAX_TENANT or not name.isprintable():
                raise ValueError(f"{where}: a tenant's name is 1..{MAX_TENANT} printable characters")
            entry = {} if entry is None else entry
            if not isinstance(entry, dict) or not set(entry) <= {"role", "tokens", "quota"}:
                raise ValueError(f"{where}: expected a mapping of role, tokens, quota")
            try:
                role = Role(entry.get("role", "tenant"))
            except ValueError:
                raise ValueError(f"{where}.role: {entry['role']!r}: one of {', '.join(Role)}") from None
            tokens = entry.get("tokens", [])
            if not isinstance(tokens, list) or not all(isinstance(t, str) and _DIGEST.fullmatch(t) for t in tokens):
                raise ValueError(
                    f"{where}.tokens: a list of sha256 hex digests of tokens (printf %s TOKEN | sha256sum), "
                    "never the tokens themselves"
                )
            for digest in tokens:
                if digest in seen:
                    raise ValueError(f"{where}.tokens: a digest of tenant {seen[digest]}'s too")
                seen[digest] = name
            quota = entry.get("quota", {})
            if not isinstance(quota, dict):
                raise ValueError(f"{where}.quota: expected a mapping")
            out[name] = Tenant(name, role, tuple(tokens), quota)
        return cls(out, source)

    @classmethod
    def load(cls, path: str | pathlib.Path) -> Tenants:
        from p4reduce.controller.config import read_document

        try:
            return cls.parse(read_document(pathlib.Path(path)), str(path))
        except ValueError as exc:
            raise ValueError(str(exc)) from None


def _read(path: pathlib.Path | None, what: str, secret: bool = False) -> bytes | None:
    if path is None:
        return None
    if secret:
        return read_secret(path, what)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{what} {path}: {exc.strerror or exc}") from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerSecurity:
    """A server's credentials: TLS (cert, key, and the CA its clients' certificates must
    chain to) and/or a tenants file for tokens; `insecure`: no credentials on a
    non-loopback address, knowingly."""

    tls_cert: pathlib.Path | None = None
    tls_key: pathlib.Path | None = None
    tls_client_ca: pathlib.Path | None = None
    tenants: Tenants | None = None
    insecure: bool = False

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("--tls-cert and --tls-key go together (the server's certificate and its private key)")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise ValueError("--tls-client-ca needs --tls-cert and --tls-key (client certificates need TLS)")
        if self.tls_cert is not None and self.tls_client_ca is None and self.tenants is None:
            raise ValueError(
                "--tls-cert without --tls-client-ca needs --tenants: without client certificates, tokens say who calls"
            )

    @property
    def configured(self) -> bool:
        return self.tls_cert is not None or self.tenants is not None

    def replace(self, **changes: Any) -> ServerSecurity:
        return dataclasses.replace(self, **changes)

    def listen(self, server: grpc.Server, host: str, port: int, what: str = "job service") -> int:
        """Add the port (TLS when configured); without credentials, a non-loopback `host`
        needs `insecure` (ValueError otherwise). Returns the port bound."""
        if not self.configured:
            if not is_loopback(host) and not self.insecure:
                raise ValueError(
                    f"{what} on {host}: without credentials (--tls-cert/--tls-key/--tls-client-ca or --tenants) "
                    "it binds loopback only; --insecure lets anyone who reaches it do anything"
                )
            if self.insecure and not is_loopback(host):
                log.warning(
                    "%s on %s:%d WITHOUT authentication (--insecure): anyone who reaches it is admin", what, host, port
                )
            else:
                log.info("%s unauthenticated, on loopback only (every caller is the admin)", what)
            return listen(server, host, port)
        if self.tls_cert is None:
            if not is_loopback(host):
                log.warning("%s on %s:%d: bearer tokens travel in clear without --tls-cert", what, host, port)
            return listen(server, host, port)
        return listen(server, host, port, self._credentials())

    def _credentials(self) -> grpc.ServerCredentials:
        key = _read(self.tls_key, "TLS private key", secret=True)
        cert = _read(self.tls_cert, "TLS certificate")
        ca = _read(self.tls_client_ca, "TLS client CA")
        return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)

    def authenticate(self, context: grpc.ServicerContext) -> Caller:
        """The caller of a request: its certificate's CN, else its bearer token's tenant;
        Unauthenticated when neither."""
        if not self.configured:
            return ANONYMOUS
        names = context.auth_context().get("x509_common_name") or []
        if names:
            tenant = names[0].decode(errors="replace")
            return Caller(tenant, self.tenants.role(tenant) if self.tenants else Role.TENANT)
        token = _bearer(context.invocation_metadata() or ())
        if token is None:
            raise Unauthenticated("no client certificate and no bearer token: this service needs credentials")
        entry = self.tenants.by_token(token) if self.tenants else None
        if entry is None:
            raise Unauthenticated("the bearer token is not in the tenants file")
        return Caller(entry.name, entry.role)


def _bearer(metadata: Sequence[Any]) -> str | None:
    for item in metadata:
        key, value = item
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return None


@dataclass(frozen=True)
class ClientCredentials:
    """How a client proves itself: `ca` (the server's CA: TLS), `cert` and `key` (a client
    certificate), `token_file` (a bearer token; over TLS, or a plain channel to loopback)."""

    ca: pathlib.Path | None = None
    cert: pathlib.Path | None = None
    key: pathlib.Path | None = None
    token_file: pathlib.Path | None = None

    def __post_init__(self) -> None:
        for name in ("ca", "cert", "key", "token_file"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, pathlib.Path(value))
        if (self.cert is None) != (self.key is None):
            raise ValueError("--tls-cert and --tls-key go together (the client's certificate and its private key)")
        if self.cert is not None and self.ca is None:
            raise ValueError("--tls-cert needs --tls-ca (the CA of the server's certificate)")

    @property
    def tls(self) -> bool:
        return self.ca is not None

    def token(self) -> str | None:
        raw = _read(self.token_file, "token file", secret=True)
        if raw is None:
            return None
        token = raw.decode(errors="replace").strip()
        if not token or any(c.isspace() for c in token):
            raise ValueError(f"token file {self.token_file}: expected one token (no blanks inside)")
        return token

    def channel(self, address: str) -> grpc.Channel:
        """A channel to `address` with these credentials."""
        token = self.token()
        if not self.tls:
            channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
            # grpc refuses call credentials on a plain channel: the header is added by hand
            return channel if token is None else grpc.intercept_channel(channel, _BearerInterceptor(token))
        creds = grpc.ssl_channel_credentials(
            root_certificates=_read(self.ca, "TLS CA"),
            private_key=_read(self.key, "TLS private key", secret=True),
            certificate_chain=_read(self.cert, "TLS certificate"),
        )
        if token is not None:
            creds = grpc.composite_channel_credentials(creds, grpc.access_token_call_credentials(token))
        return grpc.secure_channel(address, creds, options=CHANNEL_OPTIONS)

    @classmethod
    def from_options(
        cls, ca: str | None, cert: str | None, key: str | None, token_file: str | None
    ) -> ClientCredentials | None:
        """None when no option is given (a plain channel)."""
        if ca is None and cert is None and key is None and token_file is None:
            return None
        return cls(*(pathlib.Path(p) if p else None for p in (ca, cert, key, token_file)))


# A job service or aggregator that restarts must be found again within about a second:
# gRPC's reconnection backoff otherwise grows to 120 s, and by default channels to one
# address share their connections process-wide, so one channel's backoff (a worker's,
# while the service was away) fails every new channel's calls at once with the last
# "connection refused".
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.use_local_subchannel_pool", 1),
)


def channel(address: str, credentials: ClientCredentials | None) -> grpc.Channel:
    """A channel to a server of jobs.proto at `address` (plain without `credentials`)."""
    if credentials is None:
        return grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
    return credentials.channel(address)


class _BearerInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    def __init__(self, token: str) -> None:
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details: Any) -> Any:
        metadata = [*(details.metadata or ()), self._header]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)


__all__ = [
    "ANONYMOUS",
    "CHANNEL_OPTIONS",
    "AccessError",
    "Caller",
    "ClientCredentials",
    "PermissionDenied",
    "Role",
    "ServerSecurity",
    "Tenant",
    "Tenants",
    "Unauthenticated",
    "channel",
    "is_loopback",
    "token_digest",
]
