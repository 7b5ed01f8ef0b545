# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller serve` as a separate process with a state file: what restart tests
and experiments SIGKILL and start again on the same port."""

from __future__ import annotations

import contextlib
import pathlib
import re
import socket
import subprocess
import sys
from collections.abc import Iterator


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(
    config: pathlib.Path, state: pathlib.Path, port: int, *, verbose: bool = False
) -> Iterator[subprocess.Popen[str]]:
    """The service on 127.0.0.1:`port` with `config` and the state file `state`, once it has
    printed its banner; its log goes next to the state file (`state` with suffix .log). It is
    SIGKILLed at the end if still running."""
    log = state.with_suffix(".log")
    with log.open("a") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "p4reduce", *(["-v"] if verbose else []), "controller", "serve"]
            + ["--config", str(config), "--bind", f"127.0.0.1:{port}", "--state", str(state)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        if not re.match(rf"p4reduce job service on 127\.0\.0\.1:{port}", banner):
            raise RuntimeError(f"the job service did not start: {banner}{log.read_text()}")
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


__all__ = ["free_port", "serving"]
