# SPDX-License-Identifier: Apache-2.0
"""The address and MAC a worker registers with the job service (p4reduce.transport.interfaces)."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys

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


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason="network namespaces need root and ip(8)")
def test_inside_another_network_namespace(tmp_path):
    """A worker on a Mininet host: its interfaces are not in the sysfs it sees."""
    ns, here, there = f"p4r-mac-{os.getpid()}", f"p4rm{os.getpid() % 10000}a", f"p4rm{os.getpid() % 10000}b"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "link", "add", here, "type", "veth", "peer", "name", there], check=True)
        subprocess.run(["ip", "link", "set", there, "netns", ns], check=True)
        subprocess.run(["ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", there], check=True)
        subprocess.run(["ip", "-n", ns, "link", "set", there, "up"], check=True)
        shown = subprocess.run(["ip", "-n", ns, "-o", "link", "show", there], capture_output=True, text=True).stdout
        mac = shown.split("link/ether ")[1].split()[0]
        probe = "from p4reduce.transport.interfaces import mac_of; print(mac_of('10.77.0.2'))"
        got = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", probe], capture_output=True, text=True)
        assert got.stdout.strip() == mac, got.stderr
    finally:
        subprocess.run(["ip", "link", "del", here], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], check=True)
