# SPDX-License-Identifier: Apache-2.0
"""`p4reduce wireshark-plugin`: print the Wireshark dissector, or install it (docs/wireshark.md)."""

from __future__ import annotations

import argparse
import sys

from p4reduce import wireshark
from p4reduce.cli import args as a


def add_wireshark_parser(sub: argparse._SubParsersAction[a.Parser]) -> None:
    p = sub.add_parser(
        "wireshark-plugin",
        help="print or install the Wireshark dissector (Lua)",
        description="Print the p4reduce Wireshark dissector (Lua) on stdout, or install it "
        "where Wireshark and tshark load plugins from; see docs/wireshark.md.",
    )
    p.add_argument(
        "--install",
        action="store_true",
        help=f"copy it into a plugin folder (default: ~/{wireshark.PERSONAL_PLUGIN_DIR}, created if "
        "missing) and print the file's path",
    )
    p.add_argument(
        "--dir",
        metavar="FOLDER",
        default=None,
        help="with --install: this existing folder instead (e.g. the global plugin folder "
        "that `tshark -G folders` names)",
    )
    p.set_defaults(func=_cmd_wireshark_plugin)


def _cmd_wireshark_plugin(args: argparse.Namespace) -> int:
    if args.dir is not None and not args.install:
        a.fail("--dir is only used with --install")
    if args.install:
        print(wireshark.install(args.dir))
    else:
        sys.stdout.write(wireshark.dissector_source())
    return 0
