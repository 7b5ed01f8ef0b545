# SPDX-License-Identifier: Apache-2.0
"""The `p4reduce` command (`p4reduce.cli.main`) and the demo behind `p4reduce demo`."""

from p4reduce.cli.main import main

__all__ = ["main"]
