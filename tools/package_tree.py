# SPDX-License-Identifier: Apache-2.0
"""The `p4reduce` package laid out as it is installed, for tools that read sources without
importing them (mypy; mkdocstrings in docs/_hooks.py).

`hostagent/`, `controller/` and `p4src/` are mapped into the `p4reduce` namespace by
`[tool.setuptools.package-dir]` in pyproject.toml. Python's import system follows that
mapping (installed or editable); tools that walk folders do not. `link_tree` builds the
installed layout out of symbolic links to the checkout's files (nothing copied), so what
those tools report points back at the real sources.
"""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".pyi", ".typed"}


def _link_sources(source: pathlib.Path, target: pathlib.Path) -> None:
    for path in source.rglob("*"):
        if path.suffix not in SUFFIXES or "__pycache__" in path.parts:
            continue
        link = target / path.relative_to(source)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(path)


def link_tree(folder: pathlib.Path) -> pathlib.Path:
    """Fill `folder` with `p4reduce/` in its installed layout; returns `folder`."""
    package = folder / "p4reduce"
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for name, source in mapping.items():
        _link_sources(ROOT / source, package / pathlib.Path(*name.split(".")[1:]))
    _link_sources(ROOT / "p4reduce", package)  # the rest of the package, where it is
    return folder
