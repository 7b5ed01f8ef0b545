# SPDX-License-Identifier: Apache-2.0
"""Integers <-> P4Runtime bytestrings, and address helpers."""

from __future__ import annotations

import ipaddress


def encode_value(value: int, bitwidth: int, what: str = "value") -> bytes:
    """Canonical P4Runtime bytestring of `value` for a `bitwidth`-bit field.

    P4Runtime (spec section "Bytestrings") defines the canonical form as the
    big-endian bytes with leading zero bytes removed; zero is one zero byte.
    Servers must accept padded strings too, but canonical ones compare equal
    to what a Read returns, so we always send those.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what}: {value!r} is not an integer")
    if not 0 <= value < 1 << bitwidth:
        raise ValueError(f"{what}: {value} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def decode_value(data: bytes) -> int:
    """Integer of a (canonical or zero-padded) P4Runtime bytestring."""
    return int.from_bytes(data, "big")


def mac_to_int(mac: str) -> int:
    return int(mac.replace(":", ""), 16)


def ip_to_int(ip: str) -> int:
    return int(ipaddress.IPv4Address(ip))
