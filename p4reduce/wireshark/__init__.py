# SPDX-License-Identifier: Apache-2.0
"""The Wireshark dissector shipped with p4reduce (p4reduce.lua, beside this file) and its
installation into a Wireshark plugin folder (`p4reduce wireshark-plugin`, docs/wireshark.md)."""

from __future__ import annotations

import importlib.resources
import os
import pathlib

PLUGIN_NAME = "p4reduce.lua"
# Where Wireshark (2.5 and later) looks for a user's own Lua plugins on Linux and macOS,
# under the home folder (`tshark -G folders`: "Personal Lua Plugins").
PERSONAL_PLUGIN_DIR = pathlib.PurePosixPath(".local/lib/wireshark/plugins")


def personal_plugin_dir() -> pathlib.Path:
    return pathlib.Path.home() / PERSONAL_PLUGIN_DIR


def dissector_source() -> str:
    """The dissector's Lua source, read from the installed package."""
    return importlib.resources.files(__package__).joinpath(PLUGIN_NAME).read_text(encoding="utf-8")


def install(folder: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Write the dissector into `folder` (default: the personal plugin folder, created if
    missing; a folder given must exist) and return the file's path. Replaces an older copy."""
    if folder is None:
        target_dir = personal_plugin_dir()
        target_dir.mkdir(parents=True, exist_ok=True)
    else:
        target_dir = pathlib.Path(folder)
        if not target_dir.is_dir():
            raise ValueError(f"plugin folder {target_dir} does not exist")
    target = target_dir / PLUGIN_NAME
    # Written beside the target and renamed: a Wireshark starting now never reads half a file.
    partial = target.with_name(f".{PLUGIN_NAME}.partial")
    partial.write_text(dissector_source(), encoding="utf-8")
    partial.replace(target)
    return target


__all__ = ["PERSONAL_PLUGIN_DIR", "PLUGIN_NAME", "dissector_source", "install", "personal_plugin_dir"]
