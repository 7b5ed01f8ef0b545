"""MkDocs hook: lets mkdocstrings read `p4reduce.hostagent`, `p4reduce.controller` and
`p4reduce.p4src` from the source tree.

Those subpackages live in the top-level folders `hostagent/`, `controller/` and `p4src/`,
mapped into the `p4reduce` namespace by `[tool.setuptools.package-dir]` in pyproject.toml.
Python's import system follows that mapping (installed or editable); griffe, which reads
the sources without importing them, does not. This hook lays out the package's Python
files as setuptools installs them, in a temporary folder (real folders, symbolic links to
the files, nothing copied), and puts that folder first on the Python handler's search path.
"""

from __future__ import annotations

import pathlib
import tempfile
import tomllib

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

ROOT = pathlib.Path(__file__).resolve().parents[1]
_tree: tempfile.TemporaryDirectory | None = None


def _link_sources(source: pathlib.Path, target: pathlib.Path) -> None:
    for path in source.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        link = target / path.relative_to(source)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(path)


def package_tree() -> pathlib.Path:
    """A folder holding `p4reduce/` with the layout of an installed package."""
    global _tree
    if _tree is None:
        _tree = tempfile.TemporaryDirectory(prefix="p4reduce-docs-")
        package = pathlib.Path(_tree.name) / "p4reduce"
        mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
        for name, folder in mapping.items():
            _link_sources(ROOT / folder, package / pathlib.Path(*name.split(".")[1:]))
        _link_sources(ROOT / "p4reduce", package)  # the rest of the package, where it is
    return pathlib.Path(_tree.name)


@event_priority(100)  # before mkdocstrings' on_config, which starts the Python handler
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [str(package_tree()), *python.get("paths", [])]
    return config
