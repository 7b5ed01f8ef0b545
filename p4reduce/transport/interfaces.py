# SPDX-License-Identifier: Apache-2.0
"""This host's address towards a peer, and the MAC of the interface that has it: what a
worker registers with the job service, so that a switch can admit its packets."""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct

_SIOCGIFADDR = 0x8915  # linux/sockios.h
_SIOCGIFHWADDR = 0x8927
_NO_MAC = "00:00:00:00:00:00"  # loopback, tunnels


def local_ip_towards(peer: tuple[str, int]) -> str:
    """The source address the kernel picks for datagrams to `peer` (nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(peer)
        return str(probe.getsockname()[0])


def _ifreq(name: str, request: int) -> bytes:
    """An interface ioctl's answer (struct ifreq). Ioctls, not /sys/class/net: sysfs shows
    the namespace it was mounted in, which a process in another network namespace (a
    Mininet host) does not share."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        return fcntl.ioctl(s.fileno(), request, struct.pack("256s", name.encode()[:15]))


def _interface_ip(name: str) -> str | None:
    try:
        return socket.inet_ntoa(_ifreq(name, _SIOCGIFADDR)[20:24])
    except OSError:  # no IPv4 address
        return None


def _interface_mac(name: str) -> str:
    return ":".join(f"{b:02x}" for b in _ifreq(name, _SIOCGIFHWADDR)[18:24])


def mac_of(ip: str) -> str:
    """The MAC of the interface holding `ip` (lower case); all zeros for loopback."""
    if ipaddress.ip_address(ip).is_loopback:
        return _NO_MAC
    for _, name in socket.if_nameindex():
        if _interface_ip(name) == ip:
            return _interface_mac(name)
    raise OSError(f"no interface of this host has the address {ip}")
