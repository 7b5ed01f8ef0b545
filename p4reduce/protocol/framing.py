# SPDX-License-Identifier: Apache-2.0
"""Several aggregation packets in one UDP datagram (software aggregator only).

A datagram carries one packet or more back to back, each a full header and its
values (docs/protocol.md section 1). A switch takes and sends exactly one; a
software aggregator and its workers pack up to the message size they agreed on
in JOIN/JOINED, so that small blocks (what sparsity needs) do not each cost a
datagram.
"""

from __future__ import annotations

import struct

from p4reduce.protocol._wire_gen import HDR_OFF_COUNT, HDR_OFF_VERSION
from p4reduce.protocol.codec import HEADER_LEN, MAC_LEN, MAX_UDP_PAYLOAD, VERSION_AUTH

_COUNT = struct.Struct("!H")
IOV_PARTS = 1024  # the kernel's IOV_MAX: buffers one datagram may be gathered from


def split_datagram(buf: memoryview) -> tuple[list[memoryview], int]:
    """The packets of a datagram, and how many bytes at its end are not a whole packet
    (0 for a well-formed datagram). The packets are views of `buf`, not checked further."""
    packets: list[memoryview] = []
    offset, size = 0, len(buf)
    while size - offset >= HEADER_LEN:
        end = offset + HEADER_LEN + 4 * _COUNT.unpack_from(buf, offset + HDR_OFF_COUNT)[0]
        if buf[offset + HDR_OFF_VERSION] & VERSION_AUTH:  # a sealed packet: its MAC follows (docs/protocol.md 6.3)
            end += MAC_LEN
        if end > size:
            break
        packets.append(buf[offset:end])
        offset = end
    return packets, size - offset


def message_limit(ours: int, theirs: int) -> int:
    """The datagram payload both sides accept (0: one packet per datagram, as with a switch)."""
    if ours <= 0 or theirs <= 0:
        return 0
    return min(ours, theirs, MAX_UDP_PAYLOAD)
