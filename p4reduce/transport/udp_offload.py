# SPDX-License-Identifier: Apache-2.0
"""UDP GSO and GRO (Linux): which of them a socket may use, for the native data paths.

GSO (send): a run of equal-size datagrams to one peer goes to the kernel as one buffer
with a UDP_SEGMENT cmsg naming the segment size; the kernel (or the NIC) cuts it up.
GRO (receive): with UDP_GRO on, the kernel may hand over several datagrams of one flow as
one buffer, with a UDP_GRO cmsg giving the segment size to split it at. The native
cores (p4reduce/_engine.c, p4reduce/_worker.c) send and split such buffers; in Python only
`send_datagrams` sends them, as the peer of a native core in tests and benchmarks. A socket
read datagram by datagram in Python must keep GRO off.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
from dataclasses import dataclass, field

SOL_UDP, UDP_SEGMENT, UDP_GRO = 17, 103, 104  # <linux/udp.h> (Python names them only from 3.12)
GSO_MAX_SEGS, GSO_MAX_BYTES = 64, 65507  # as p4reduce/_udp.h: one UDP_SEGMENT buffer's limits


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
        return ", ".join(
            f"UDP {name.upper()} " + ("on" if on else f"off ({self.why_not[name]})")
            for name, on in (("gso", self.gso), ("gro", self.gro))
        )


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


def send_datagrams(sock: socket.socket, datagrams: list[bytes], gso: bool, dest: tuple[str, int] | None = None) -> None:
    """`datagrams` in order (to `dest`, or the connected peer); with `gso`, each run of equal
    sizes (a shorter last one ends it) as one UDP_SEGMENT buffer, as the native cores group
    them."""
    i = 0
    while i < len(datagrams):
        seg, j, total = len(datagrams[i]), i + 1, len(datagrams[i])
        while (
            gso
            and j < len(datagrams)
            and j - i < GSO_MAX_SEGS
            and total + len(datagrams[j]) <= GSO_MAX_BYTES
            and len(datagrams[j]) <= seg
            and len(datagrams[j - 1]) == seg
        ):
            total += len(datagrams[j])
            j += 1
        if j - i > 1:
            cmsg = [(SOL_UDP, UDP_SEGMENT, struct.pack("=H", seg))]
            if dest is None:
                sock.sendmsg([b"".join(datagrams[i:j])], cmsg)
            else:
                sock.sendmsg([b"".join(datagrams[i:j])], cmsg, 0, dest)
        elif dest is None:
            sock.send(datagrams[i])
        else:
            sock.sendto(datagrams[i], dest)
        i = j
