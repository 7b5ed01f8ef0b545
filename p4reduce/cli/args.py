# SPDX-License-Identifier: Apache-2.0
"""argparse pieces shared by every `p4reduce` subcommand: value types that turn
bad input into one-line usage errors, and a parser whose errors are one line."""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import pathlib
import socket
import sys
from collections.abc import Callable
from typing import NoReturn

USAGE_ERROR = 2  # exit code of every mistake in the command line or its input files


class UsageError(Exception):
    """A mistake of the user (arguments, input files): one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """Reports an error in one line, with a pointer to --help, and exits with 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An integer within [low, high] (no upper bound when `high` is None)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{value} outside {bound}")
        return value

    parse.__name__ = "integer"
    return parse


def float_range(low: float, high: float = math.inf, *, low_open: bool = False) -> Callable[[str], float]:
    """A finite number within [low, high] (or (low, high] with `low_open`)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or value > high or (low_open and value == low):
            left = "(" if low_open else "["
            raise argparse.ArgumentTypeError(f"{text} outside {left}{low:g}, {high:g}]")
        return value

    parse.__name__ = "number"
    return parse


def host_port(text: str, default_host: str = "0.0.0.0") -> tuple[str, int]:
    """`HOST:PORT` with an IPv4 address or a host name (the transport is IPv4 UDP)."""
    host, sep, port = text.rpartition(":")
    if host.startswith("[") or host.count(":"):
        raise argparse.ArgumentTypeError(f"{text!r}: IPv6 is not supported (p4reduce runs over IPv4 UDP)")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT with a port in 0..65535, got {text!r}")
    if host and not _valid_host(host):
        raise argparse.ArgumentTypeError(f"{host!r} is neither an IPv4 address nor a host name")
    return host or default_host, int(port)


def _valid_host(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
        return True
    except ValueError:
        labels = host.split(".")
        return all(label and len(label) <= 63 and label.replace("-", "").isalnum() for label in labels)


def resolve(option: str, host: str) -> str:
    """`host`'s IPv4 address, or a usage error naming the option and the host."""
    try:
        return socket.gethostbyname(host)
    except (OSError, UnicodeError) as exc:
        fail(f"{option}: cannot resolve host {host!r} ({getattr(exc, 'strerror', None) or exc})")


def output_file(option: str, path: str) -> pathlib.Path:
    """A file the command may write when it is done: its folder exists and is writable, and
    the name is not a folder (checked before the work, so that no work is lost)."""
    target = pathlib.Path(path)
    if path.endswith(("/", os.sep)) or target.is_dir():
        fail(f"{option} {path}: is a folder, not a file name")
    folder = target.parent
    if not folder.is_dir():
        fail(f"{option} {path}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        fail(f"{option} {path}: not writable")
    return target


def add_answer_timeout(parser: argparse.ArgumentParser, peer: str) -> None:
    """`--timeout SECONDS`: how long a request waits for `peer` (the switch, the service)."""
    parser.add_argument(
        "--timeout",
        type=float_range(0.0, 3600.0, low_open=True),
        default=5.0,
        metavar="SECONDS",
        help=f"seconds to wait for {peer} to answer (default: %(default)s)",
    )


def fail(message: str) -> NoReturn:
    """Report a usage error from inside a command (after parsing)."""
    raise UsageError(message)


def stderr_line(prog: str, message: str) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)


def add_tensor_options(
    p: argparse.ArgumentParser,
    what: str,
    *,
    elements: int = 1_000_000,
    max_elements: int = 1 << 31,
    density: float = 0.1,
) -> None:
    """--elements, --density, --dtype and --seed of the synthetic tensors (`what` they make),
    as every command that makes them takes them (with its own defaults)."""
    p.add_argument(
        "--elements",
        type=int_range(1, max_elements),
        default=elements,
        metavar="N",
        help=f"elements of {what} (default: %(default)s)",
    )
    p.add_argument(
        "--density",
        type=float_range(0.0, 1.0),
        default=density,
        metavar="FRACTION",
        help="fraction of non-zero blocks, 0..1 (default: %(default)s)",
    )
    p.add_argument(
        "--dtype", choices=["float32", "int32"], default="float32", help="element type (default: %(default)s)"
    )
    p.add_argument(
        "--seed",
        type=int_range(0),
        default=0,
        metavar="N",
        help="seed of the synthetic tensors (default: %(default)s)",
    )
