# SPDX-License-Identifier: Apache-2.0
"""Type-check the `p4reduce` package with mypy, configured by pyproject.toml's [tool.mypy].

    python3 tools/typecheck.py [MYPY OPTIONS]

mypy runs on the installed layout (tools/package_tree.py) and its report names the
checkout's files. Exits with mypy's status.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile

from package_tree import ROOT, link_tree

LOCATION = re.compile(r"^(p4reduce/[^:]+\.pyi?)(?=:)", re.M)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="p4reduce-mypy-") as tmp:
        tree = link_tree(pathlib.Path(tmp))
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *argv, "-p", "p4reduce"]
        env = dict(os.environ, MYPY_CACHE_DIR=str(ROOT / ".mypy_cache"))
        proc = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)

        def in_checkout(match: re.Match[str]) -> str:
            return str((tree / match[1]).resolve().relative_to(ROOT))

        sys.stdout.write(LOCATION.sub(in_checkout, proc.stdout))
        sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
