# SPDX-License-Identifier: Apache-2.0
"""`p4reduce worker --pcap FILE`: record what the worker sends and receives (docs/wireshark.md).

A packet socket records it (p4reduce.testbed.capture): the native engine's datagrams never
pass through Python, so nothing on the Python side could. That needs root; without it the
command fails, saying so, before anything is sent or the file is created.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

from p4reduce.cli import args as a


def add_pcap_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pcap",
        metavar="FILE.pcap",
        default=None,
        help="record every datagram this worker sends and receives into a pcap file "
        "(needs root: a packet socket; open it with the dissector of "
        "`p4reduce wireshark-plugin`)",
    )


@contextlib.contextmanager
def recording(path: str | None) -> Iterator[Callable[[], None]]:
    """With a path: opens the capture now and yields the function that starts it, to call
    once the agent's sockets exist; at the end stops it and says on stderr what it wrote.
    Without one: yields a function that does nothing."""
    if path is None:
        yield lambda: None
        return
    from p4reduce.testbed.capture import CaptureUnavailable, DatagramCapture, own_udp_sockets

    a.output_file("--pcap", path)
    try:
        capture = DatagramCapture(path)
    except CaptureUnavailable as exc:
        a.fail(f"--pcap {path}: {exc.strerror}")
    try:
        yield lambda: capture.start(own_udp_sockets())
    finally:
        written = capture.stop()
        lost = capture.dropped + capture.unreadable
        note = f"; {lost} packets were lost by the capture, the file is incomplete" if lost else ""
        print(f"p4reduce worker: --pcap {path}: {written} datagrams recorded{note}", file=sys.stderr)
