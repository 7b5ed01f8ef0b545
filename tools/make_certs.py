# SPDX-License-Identifier: Apache-2.0
"""Make a test CA, a server certificate and client certificates for the job service.

    python tools/make_certs.py DIR [--tenant NAME ...] [--host NAME_OR_IP ...]

writes DIR/ca.pem (and ca.key), DIR/server.pem and server.key (SAN localhost, 127.0.0.1
and each --host), and for each tenant DIR/NAME.pem and NAME.key, a client certificate
whose subject CN is the tenant's name. Private keys are written mode 0600. For tests and
trials: a real deployment's CA is the site's own (docs/service.md shows the same with openssl).
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import pathlib
import sys
from collections.abc import Sequence

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

DAYS = 365


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write_key(path: pathlib.Path, key: ec.EllipticCurvePrivateKey) -> None:
    data = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool = False,
    usage: x509.ObjectIdentifier | None = None,
    names: list[x509.GeneralName] | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, issuer_key = issuer or (_name(subject), key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_certs(out: pathlib.Path, tenants: Sequence[str], hosts: Sequence[str] = ()) -> None:
    """The CA, the server's certificate and one client certificate per tenant in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("p4reduce test CA", ca_key, None, ca=True)
    _write_key(out / "ca.key", ca_key)
    (out / "ca.pem").write_bytes(_pem(ca))
    names: list[x509.GeneralName] = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    for cn, usage, san in [("localhost", ExtendedKeyUsageOID.SERVER_AUTH, names)] + [
        (t, ExtendedKeyUsageOID.CLIENT_AUTH, None) for t in tenants
    ]:
        key = ec.generate_private_key(ec.SECP256R1())
        stem = "server" if usage == ExtendedKeyUsageOID.SERVER_AUTH else cn
        _write_key(out / f"{stem}.key", key)
        (out / f"{stem}.pem").write_bytes(_pem(_certificate(cn, key, (ca.subject, ca_key), usage=usage, names=san)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", type=pathlib.Path, help="where the files go (made if missing)")
    p.add_argument("--tenant", action="append", default=[], help="a client certificate with this CN (repeatable)")
    p.add_argument("--host", action="append", default=[], help="another name or IP of the server (repeatable)")
    args = p.parse_args(argv)
    for tenant in args.tenant:
        if not tenant or "/" in tenant or tenant in ("ca", "server"):
            p.error(f"--tenant {tenant!r}: a file name other than ca and server")
    make_certs(args.dir, args.tenant, args.host)
    print(f"wrote {args.dir}/ca.pem, server.pem/.key" + "".join(f", {t}.pem/.key" for t in args.tenant))
    return 0


if __name__ == "__main__":
    sys.exit(main())
