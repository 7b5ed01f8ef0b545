# SPDX-License-Identifier: Apache-2.0
"""Loopback ports for the servers a test or benchmark starts (gloo rendezvous, BMv2 control)."""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]
