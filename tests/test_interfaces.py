"""The address and MAC a worker registers with the job service (p4reduce.transport.interfaces)."""

from __future__ import annotations

import pathlib
import socket
import subprocess

import pytest

from p4reduce.transport.interfaces import local_ip_towards, mac_of


def _interfaces() -> list[tuple[str, str, str]]:
    """(name, IPv4 address, MAC) of this host's interfaces, as `ip` lists them."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        name, ip = fields[1], fields[3].split("/")[0]
        mac = pathlib.Path(f"/sys/class/net/{name}/address").read_text().strip()
        found.append((name, ip, mac))
    return found


def test_loopback_has_no_mac():
    assert local_ip_towards(("127.0.0.1", 9)) == "127.0.0.1"
    assert mac_of("127.0.0.1") == "00:00:00:00:00:00"


def test_every_interface_address_maps_to_its_mac():
    checked = [(ip, mac) for name, ip, mac in _interfaces() if name != "lo"]
    if not checked:
        pytest.skip("this host has no IPv4 interface besides loopback")
    for ip, mac in checked:
        assert mac_of(ip) == mac.lower()
        assert local_ip_towards((ip, 9)) == ip  # to itself, from itself


def test_an_address_of_no_interface_is_named():
    with pytest.raises(OSError, match="198.51.100.77"):  # TEST-NET-2: never configured here
        mac_of("198.51.100.77")


def test_towards_a_name_fails_like_the_socket():
    with pytest.raises(socket.gaierror):
        local_ip_towards(("no-such-host.invalid", 9))
