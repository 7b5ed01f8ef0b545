# SPDX-License-Identifier: Apache-2.0
"""WorkerConfig(transport="packet"): a worker's datagrams on AF_PACKET rings (p4reduce/_packet_ring.c).

The ring builds the Ethernet, IPv4 and UDP headers the kernel would: from the worker's
UDP socket's address and port (the socket keeps the port, with a filter that drops what
reaches it), the MAC of the interface of the route to the aggregator, to the MAC of the
route's next hop (a gateway, or the aggregator on a connected route; on a switch setup the
static ARP entry of the aggregation address). Where the route or the neighbour cannot be
found, WorkerConfig's `interface` and `gateway_mac` say them.
"""

from __future__ import annotations

import ipaddress
import select
import socket
import struct
import time
from dataclasses import dataclass

from p4reduce.transport.interfaces import _ifreq, _interface_mac, local_ip_towards

_SIOCGIFMTU = 0x8921  # linux/sockios.h
_SIOCGIFHWADDR = 0x8927
_ARPHRD_ETHER = 1
_ETH_P_ARP = 0x0806
_ATF_COM = 0x02  # /proc/net/arp flags: a complete entry
ARP_WAIT = 1.0  # seconds an ARP request for the next hop waits for its answer
DEFAULT_SPIN_US = 0  # how long the native engine polls the RX ring before it blocks (WorkerConfig.spin_us)


@dataclass(frozen=True)
class Route:
    """Where a ring's frames go: out of `interface` (its index, MAC and MTU) to `next_hop`,
    whose MAC is `next_hop_mac`."""

    interface: str
    ifindex: int
    mac: bytes
    mtu: int
    next_hop: str
    next_hop_mac: bytes

    @property
    def max_payload(self) -> int:
        """The largest datagram in one frame: the MTU less the IPv4 and UDP headers."""
        return self.mtu - 28


def parse_mac(text: str) -> bytes:
    """'aa:bb:cc:dd:ee:ff' (or with '-') as 6 bytes; ValueError otherwise."""
    parts = text.replace("-", ":").split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        raise ValueError(f"{text!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
    try:
        return bytes(int(p, 16) for p in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a MAC address (aa:bb:cc:dd:ee:ff)") from None


def format_mac(mac: bytes) -> str:
    return ":".join(f"{b:02x}" for b in mac)


_RTF_UP, _RTF_GATEWAY = 0x1, 0x2


def _routes() -> list[tuple[str, int, int, int, int, int]]:
    """The main routing table of this network namespace (/proc/net/route): (interface,
    destination, gateway, flags, mask, metric), addresses as host-order integers."""
    routes = []
    with open("/proc/net/route") as f:
        for line in f.read().splitlines()[1:]:
            cols = line.split()
            if len(cols) < 8:
                continue
            dest, gateway, flags, metric, mask = (int(cols[i], 16) for i in (1, 2, 3, 6, 7))
            swap = socket.ntohl  # the kernel prints them in network byte order as read on this host
            routes.append((cols[0], swap(dest), swap(gateway), flags, swap(mask), metric))
    return routes


def kernel_route(peer_ip: str, transport: str = "packet") -> tuple[str, str]:
    """(interface, next hop) of the route to `peer_ip`: the longest match of the main routing
    table (policy routing aside: set interface and gateway_mac for that), its gateway or the
    peer itself on a connected route."""
    peer = int(ipaddress.IPv4Address(peer_ip))
    if ipaddress.IPv4Address(peer_ip).is_loopback or local_ip_towards((peer_ip, 9)) == peer_ip:
        raise OSError(
            f"the route to {peer_ip} is local: transport '{transport}' needs one through an Ethernet interface"
        )
    best: tuple[int, int, str, int] | None = None  # (prefix length, -metric, interface, gateway)
    for iface, dest, gateway, flags, mask, metric in _routes():
        if flags & _RTF_UP and peer & mask == dest:
            key = (bin(mask).count("1"), -metric, iface, gateway if flags & _RTF_GATEWAY else 0)
            if best is None or key[:2] > best[:2]:
                best = key
    if best is None:
        raise OSError(f"no route to {peer_ip} in the main routing table: set interface and gateway_mac")
    return best[2], str(ipaddress.IPv4Address(best[3])) if best[3] else peer_ip


def interface_mtu(name: str) -> int:
    return int(struct.unpack_from("i", _ifreq(name, _SIOCGIFMTU), 16)[0])


def _check_ethernet(name: str, transport: str = "packet") -> None:
    family = struct.unpack_from("H", _ifreq(name, _SIOCGIFHWADDR), 16)[0]
    if family != _ARPHRD_ETHER:
        raise OSError(
            f"interface {name} is not Ethernet (ARP hardware type {family}): transport '{transport}' needs one"
        )


def neighbour_mac(ip: str, interface: str) -> bytes | None:
    """The MAC the neighbour table (/proc/net/arp, this network namespace's) holds for `ip`."""
    try:
        with open("/proc/net/arp") as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        cols = line.split()
        if len(cols) >= 6 and cols[0] == ip and cols[5] == interface and int(cols[2], 16) & _ATF_COM:
            mac = parse_mac(cols[3])
            if any(mac):
                return mac
    return None


def arp_request(interface: str, mac: bytes, src_ip: str, target: str, wait: float = ARP_WAIT) -> bytes | None:
    """Ask `target` for its MAC on `interface` (an ARP request, repeated while waiting)."""
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ARP)) as s:
        s.bind((interface, _ETH_P_ARP))
        request = (
            b"\xff" * 6
            + mac
            + struct.pack("!H", _ETH_P_ARP)
            + struct.pack(
                "!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, mac, socket.inet_aton(src_ip), bytes(6), socket.inet_aton(target)
            )
        )
        deadline = time.monotonic() + wait
        resend = 0.0
        while (left := deadline - time.monotonic()) > 0:
            if time.monotonic() >= resend:
                s.send(request)
                resend = time.monotonic() + wait / 4
            ready, _, _ = select.select([s], [], [], min(left, max(0.0, resend - time.monotonic())))
            if not ready:
                continue
            frame = s.recv(2048)
            if len(frame) < 42:
                continue
            op, sender_mac, sender_ip = struct.unpack_from("!6xH6s4s", frame, 14)
            if op == 2 and socket.inet_ntoa(sender_ip) == target:
                return bytes(sender_mac)
    return None


def resolve_route(
    local_ip: str,
    peer_ip: str,
    interface: str | None = None,
    gateway_mac: str | None = None,
    arp: bool = True,
    transport: str = "packet",
) -> Route:
    """The Route of the frames from `local_ip` to `peer_ip`: the interface (given, or the
    main routing table's), its MAC and MTU, and the next hop's MAC (given, else the neighbour
    table's, else asked by ARP). `transport`: the one named in errors ("packet", "xdp")."""
    next_hop = peer_ip
    if interface is None or gateway_mac is None:
        routed, next_hop = kernel_route(peer_ip, transport)
        interface = interface or routed
    try:
        ifindex = socket.if_nametoindex(interface)
    except OSError:
        raise OSError(f"transport '{transport}': no interface {interface!r} in this network namespace") from None
    _check_ethernet(interface, transport)
    mac = bytes.fromhex(_interface_mac(interface).replace(":", ""))
    if gateway_mac is not None:
        hop_mac: bytes | None = parse_mac(gateway_mac)
    else:
        hop_mac = neighbour_mac(next_hop, interface) or (
            arp_request(interface, mac, local_ip, next_hop) if arp else None
        )
    if hop_mac is None:
        raise OSError(
            f"transport '{transport}': no MAC for the next hop {next_hop} on {interface} (the neighbour table has "
            f"none and it did not answer ARP): add a static entry (ip neigh replace {next_hop} lladdr MAC dev "
            f"{interface}) or set gateway_mac (--gateway-mac, P4REDUCE_GATEWAY_MAC)"
        )
    return Route(interface, ifindex, mac, interface_mtu(interface), next_hop, hop_mac)


def open_ring(
    sock: socket.socket, interface: str | None = None, gateway_mac: str | None = None, spin_us: int = DEFAULT_SPIN_US
) -> tuple[object, Route]:
    """A PacketRing for the flow of the connected UDP socket `sock` (its local address and
    port, its peer), and its Route. The socket keeps its port but receives nothing more
    (a drop-all filter): the ring takes the flow's datagrams."""
    from p4reduce._native_worker import PacketRing, drop_all

    local, peer = sock.getsockname(), sock.getpeername()
    route = resolve_route(local[0], peer[0], interface, gateway_mac)
    ring = PacketRing(route.ifindex, route.mac, route.next_hop_mac, local, peer, route.mtu, spin_us=spin_us)
    try:
        drop_all(sock)
    except BaseException:
        ring.close()
        raise
    return ring, route
