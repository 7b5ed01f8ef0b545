# SPDX-License-Identifier: Apache-2.0
"""MkDocs hook: lets mkdocstrings read `p4reduce.hostagent`, `p4reduce.controller` and
`p4reduce.p4src` from the source tree.

Those subpackages live in the top-level folders `hostagent/`, `controller/` and `p4src/`,
mapped into the `p4reduce` namespace by `[tool.setuptools.package-dir]` in pyproject.toml;
griffe, which reads the sources without importing them, does not follow that mapping. The
package laid out as it is installed (tools/package_tree.py, symbolic links to the files)
goes first on the Python handler's search path.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from package_tree import link_tree  # noqa: E402  (tools/ is not a package)

_tree: tempfile.TemporaryDirectory[str] | None = None


@event_priority(100)  # before mkdocstrings' on_config, which starts the Python handler
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _tree
    if _tree is None:  # once per process (mkdocs serve rebuilds)
        _tree = tempfile.TemporaryDirectory(prefix="p4reduce-docs-")
        link_tree(pathlib.Path(_tree.name))
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [_tree.name, *python.get("paths", [])]
    return config
