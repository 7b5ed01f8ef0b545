"""UDP GSO and GRO (Linux): which of them a socket may use, for the native data paths.

GSO (send): a run of equal-size datagrams to one peer goes to the kernel as one buffer
with a UDP_SEGMENT cmsg naming the segment size; the kernel (or the NIC) cuts it up.
GRO (receive): with UDP_GRO on, the kernel may hand over several datagrams of one flow as
one buffer, with a UDP_GRO cmsg giving the segment size to split it at. Only the native
cores (p4reduce/_engine.c, p4reduce/_worker.c) send and split such buffers; a socket read
datagram by datagram in Python must keep GRO off.
"""
from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass, field

SOL_UDP, UDP_SEGMENT, UDP_GRO = 17, 103, 104  # <linux/udp.h> (Python names them only from 3.12)


@dataclass(frozen=True)
class UdpOffload:
    """Which batched I/O a data path uses besides recvmmsg/sendmmsg: UDP GSO on the send
    side (each peer's run of equal-size datagrams handed to the kernel as one buffer), UDP
    GRO on the receive side (a buffer of equal-size datagrams split back by the native
    core). `why_not` says, per feature that is off, why (absent in the kernel, turned off,
    Python engine). Off is not an error: the native cores run either way."""
    gso: bool
    gro: bool
    why_not: dict[str, str] = field(default_factory=dict)

    @classmethod
    def off(cls, why: str) -> UdpOffload:
        return cls(False, False, {"gso": why, "gro": why})

    def describe(self) -> str:
        return ", ".join(f"UDP {name.upper()} " + ("on" if on else f"off ({self.why_not[name]})")
                         for name, on in (("gso", self.gso), ("gro", self.gro)))


def probe_udp_offload(sock: socket.socket, enable: bool = True) -> UdpOffload:
    """Turns UDP GRO on for `sock` and checks that the kernel knows UDP_SEGMENT (Linux >= 5.0
    and 4.18); with `enable` False, leaves both off."""
    if not enable:
        return UdpOffload.off("turned off")
    why_not: dict[str, str] = {}
    try:  # 0: no default segment size; each sendmmsg message names its own
        sock.setsockopt(SOL_UDP, UDP_SEGMENT, 0)
    except OSError as exc:
        why_not["gso"] = f"the kernel has no UDP_SEGMENT: {os.strerror(exc.errno or errno.ENOPROTOOPT)}"
    try:
        sock.setsockopt(SOL_UDP, UDP_GRO, 1)
    except OSError as exc:
        why_not["gro"] = f"the kernel has no UDP_GRO: {os.strerror(exc.errno or errno.ENOPROTOOPT)}"
    return UdpOffload("gso" not in why_not, "gro" not in why_not, why_not)
