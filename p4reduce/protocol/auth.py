# SPDX-License-Identifier: Apache-2.0
"""Authenticated jobs (docs/protocol.md section 6.3): a key per job and a MAC on every
packet, both ways, for software-aggregator jobs on networks shared with others.

A sealed packet has the AUTH flag (0x80) in its version byte and an 8-byte MAC after its
values: SipHash-2-4 under the job's 16-byte key over everything before it (header, flag
included, and values), big-endian. Workers and the aggregator drop and count a packet of
an authenticated job without a valid MAC, and every packet they send for it is sealed.
Off by default: a switch cannot compute it. The MAC itself runs in C (p4reduce/_siphash.h).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pathlib
from collections.abc import Sequence

from p4reduce import _native
from p4reduce.protocol.codec import MAC_LEN, VERSION_AUTH
from p4reduce.secretfile import read_secret

KEY_LEN = 16
MIN_KEY_FILE_BYTES = 16


class JobKey:
    """A job's 16-byte SipHash key."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_LEN:
            raise ValueError(f"a job key is {KEY_LEN} bytes, not {len(key)}")
        self._key = bytes(key)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> JobKey:
        """The key of a key file: BLAKE2s-128 of its contents (at least 16 bytes; make one
        with `head -c 32 /dev/urandom > job.key` and give it to every worker and the
        aggregator). A file that is missing, unreadable or too short is a ValueError
        naming it."""
        path = pathlib.Path(path)
        secret = read_secret(path, "key file")  # a SecretFileError (ValueError) names what is wrong
        if len(secret) < MIN_KEY_FILE_BYTES:
            raise ValueError(
                f"key file {path}: {len(secret)} bytes; it needs at least {MIN_KEY_FILE_BYTES} "
                "random bytes (head -c 32 /dev/urandom > FILE)"
            )
        return cls(hashlib.blake2s(secret, digest_size=KEY_LEN, person=b"p4reduce").digest())

    @classmethod
    def random(cls) -> JobKey:
        """A fresh random key (a demo, a test; real jobs share a key file)."""
        return cls(os.urandom(KEY_LEN))

    @classmethod
    def from_env(cls, variable: str = "P4REDUCE_KEY_FILE") -> JobKey | None:
        path = os.environ.get(variable)
        return cls.from_file(path) if path else None

    def mac(self, data: bytes | bytearray | memoryview) -> bytes:
        return _native.siphash(self._key, data).to_bytes(MAC_LEN, "big")

    def seal(self, packet: bytes | bytearray | memoryview) -> bytes:
        """`packet` (header and values) with the AUTH flag set and its MAC appended."""
        sealed = bytearray(packet)
        sealed[0] |= VERSION_AUTH
        return bytes(sealed + self.mac(sealed))

    def seal_parts(self, parts: Sequence[bytes | bytearray | memoryview]) -> tuple[bytes | bytearray | memoryview, ...]:
        """`seal` for a packet given as the pieces of a gathering send (the first one the
        header); the values stay shared, the MAC is one more piece."""
        head = bytearray(parts[0])
        head[0] |= VERSION_AUTH
        return (head, *parts[1:], self.mac(b"".join(bytes(p) for p in (head, *parts[1:]))))

    def verify(self, packet: bytes | bytearray | memoryview) -> bool:
        """Whether `packet` (sealed: the MAC at its end) carries a valid MAC."""
        if len(packet) < MAC_LEN + 1 or not packet[0] & VERSION_AUTH:
            return False
        return hmac.compare_digest(self.mac(packet[:-MAC_LEN]), bytes(packet[-MAC_LEN:]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JobKey) and hmac.compare_digest(self._key, other._key)

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return "JobKey(...)"  # never the key itself (logs, tracebacks)

    @property
    def raw(self) -> bytes:
        """The 16 key bytes, for the native engines."""
        return self._key


def authentic(key: JobKey | None, packet: bytes | bytearray | memoryview) -> bool:
    """What a side of a job takes: with a key, sealed packets with a valid MAC; without
    one, unsealed packets."""
    if key is None:
        return not packet[0] & VERSION_AUTH
    return key.verify(packet)


__all__ = ["JobKey", "KEY_LEN", "MAC_LEN", "VERSION_AUTH", "authentic"]
