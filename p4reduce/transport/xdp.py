# SPDX-License-Identifier: Apache-2.0
"""WorkerConfig(transport="xdp"): a worker's datagrams on AF_XDP sockets (p4reduce/_xdp.c).

The same flow as transport "packet" (p4reduce.transport.packet: the route, the interface's
MAC and MTU, the next hop's MAC; the UDP socket keeps the port with a drop-all filter), on
an AF_XDP socket instead of AF_PACKET rings: an XDP program on the interface redirects the
worker's own flow (IPv4/UDP to its address and port, unfragmented) into the socket's UMEM
and passes everything else to the kernel. Attached natively where the driver has XDP (veth
does), else in generic (SKB) mode; zero-copy where the driver offers it, else copied (veth).

The extension p4reduce._xdp is optional: it is built only where libxdp's and libbpf's
headers are (Debian: libxdp-dev libbpf-dev). Without it, transport "xdp" is refused with
`unavailable()`'s message -- never a silent fallback to another transport.
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import logging
import socket
from types import ModuleType

from p4reduce.transport.packet import DEFAULT_SPIN_US, Route, resolve_route

log = logging.getLogger(__name__)

ABI = 1  # ABI_VERSION in p4reduce/_xdp.c
_REINSTALL = "apt-get install libxdp-dev libbpf-dev, then reinstall p4reduce (pip install -e . in a checkout)"


def unavailable(built: bool, error: str = "") -> str:
    """The one-line reason transport "xdp" cannot run: `built` False when this p4reduce was
    built without p4reduce._xdp (the headers were absent), else why the built one does not
    load (`error`)."""
    if not built:
        return f"transport 'xdp': this p4reduce was built without AF_XDP (no libxdp/libbpf headers): {_REINSTALL}"
    return f"transport 'xdp': p4reduce._xdp does not load ({error}): {_REINSTALL}"


def load() -> ModuleType:
    """p4reduce._xdp, or ImportError with `unavailable()`'s message."""
    if importlib.util.find_spec("p4reduce._xdp") is None:
        raise ImportError(unavailable(False), name="p4reduce._xdp")
    try:
        module = importlib.import_module("p4reduce._xdp")
    except ImportError as exc:
        raise ImportError(unavailable(True, str(exc)), name="p4reduce._xdp") from exc
    if getattr(module, "ABI_VERSION", None) != ABI:
        raise ImportError(
            unavailable(True, f"built from another version of p4reduce/_xdp.c, ABI {module.ABI_VERSION}, not {ABI}"),
            name="p4reduce._xdp",
        )
    return module


def available() -> str | None:
    """None where transport "xdp" can be used, else why not (one line)."""
    try:
        load()
    except ImportError as exc:
        return str(exc)
    return None


def rx_queues(interface: str) -> int:
    """How many RX queues `interface` has (sysfs; 1 where it does not say)."""
    return max(1, len(glob.glob(f"/sys/class/net/{interface}/queues/rx-*")))


def open_xsk(
    sock: socket.socket,
    interface: str | None = None,
    gateway_mac: str | None = None,
    spin_us: int = DEFAULT_SPIN_US,
    mode: str = "auto",
) -> tuple[object, Route]:
    """An XskSocket for the flow of the connected UDP socket `sock`, bound to queue 0 of the
    interface of its route, and that Route. The UDP socket keeps its port but receives
    nothing more (a drop-all filter): the XDP program hands the flow to the XskSocket."""
    from p4reduce._native_worker import drop_all

    xdp = load()
    local, peer = sock.getsockname(), sock.getpeername()
    route = resolve_route(local[0], peer[0], interface, gateway_mac, transport="xdp")
    if (queues := rx_queues(route.interface)) > 1:
        log.warning(
            "transport 'xdp': %s has %d RX queues and the AF_XDP socket is bound to queue 0: steer the flow there "
            "(ethtool -N %s flow-type udp4 dst-ip %s dst-port %d action 0) or use one queue (ethtool -L %s combined "
            "1); frames on other queues reach the kernel, which drops them",
            route.interface,
            queues,
            route.interface,
            local[0],
            local[1],
            route.interface,
        )
    xsk = xdp.XskSocket(
        route.interface, route.mac, route.next_hop_mac, local, peer, route.mtu, queue=0, spin_us=spin_us, mode=mode
    )
    try:
        drop_all(sock)
    except BaseException:
        xsk.close()
        raise
    log.debug("transport 'xdp' on %s: XDP %s mode, %s, queue 0", route.interface, xsk.mode, xsk.bind)
    return xsk, route
