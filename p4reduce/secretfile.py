# SPDX-License-Identifier: Apache-2.0
"""Reading a secret from a file (a job's key file, a bearer token, a TLS private key).

A secret file must be a regular file: a FIFO would block the reader forever, and a device
such as /dev/zero would be read until memory runs out, so both are refused before a byte
is read, and a regular file is read with a size bound. A secret that the file's group or
others may read is taken, with a warning naming the file (the same check ssh makes).
"""

from __future__ import annotations

import logging
import os
import stat

log = logging.getLogger(__name__)

MAX_SECRET_BYTES = 1 << 16  # no key, token or PEM key of this project comes near 64 KiB


class SecretFileError(ValueError):
    """A secret file that cannot be used; the message names the file and why."""


def read_secret(path: str | os.PathLike[str], what: str = "secret file", *, max_bytes: int = MAX_SECRET_BYTES) -> bytes:
    """The contents of the secret file `path` (`what` names it in errors and warnings)."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of blocking;
        # it is refused below, before any read.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SecretFileError(f"{what} {name}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SecretFileError(f"{what} {name}: not a regular file ({_kind(info.st_mode)}); give a file")
        if info.st_size > max_bytes:
            raise SecretFileError(f"{what} {name}: {info.st_size} bytes, more than the {max_bytes} a secret may have")
        if info.st_mode & 0o077:
            log.warning(
                "%s %s can be read by its group or others (mode %o): chmod 600 it",
                what,
                name,
                stat.S_IMODE(info.st_mode),
            )
        chunks: list[bytes] = []
        size = 0
        while True:  # bounded even if the file grows while it is read
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise SecretFileError(f"{what} {name}: more than the {max_bytes} bytes a secret may have")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


__all__ = ["MAX_SECRET_BYTES", "SecretFileError", "read_secret"]
