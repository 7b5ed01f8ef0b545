# SPDX-License-Identifier: Apache-2.0
"""The P4 programs as package data (`p4reduce.p4src`): the v1model sources and
what p4c compiles them to in `build/` (BMv2 JSON, P4Info). `make -C p4src`
regenerates `build/`; an installed wheel carries it, so the controller needs
no checkout."""

from __future__ import annotations

import pathlib
from importlib.resources import files

BMV2_JSON = "p4reduce.json"
P4INFO = "p4reduce.p4info.txtpb"


def build_artifact(name: str) -> pathlib.Path:
    """Path of a compiled artifact (`BMV2_JSON`, `P4INFO`) of the installed package."""
    path = pathlib.Path(str(files(__name__).joinpath("build", name)))
    if not path.is_file():
        raise FileNotFoundError(
            f"compiled P4 artifact {name} not found in {path.parent} (regenerate it with `make -C p4src`)"
        )
    return path
