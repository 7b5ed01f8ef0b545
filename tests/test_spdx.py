# SPDX-License-Identifier: Apache-2.0
"""Every source file names its licence (pyproject.toml: Apache-2.0) with an SPDX line."""

from __future__ import annotations

import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINE = "SPDX-License-Identifier: Apache-2.0"
SOURCES = (".py", ".c", ".h", ".p4", ".lua", ".proto", ".css")
SCRIPTS = (".ci/run", ".ci/sanitize", "p4src/Makefile", "p4src/tna/Makefile", "p4src/testgen.mk")
# Written by a generator byte for byte (tests/service/test_jobapi_stubs.py compares them).
GENERATED = (
    "p4reduce/jobapi/jobs_pb2.py",
    "p4reduce/jobapi/jobs_pb2_grpc.py",
    "controller/bfrt/bfruntime_pb2.py",
    "controller/bfrt/bfruntime_pb2_grpc.py",
    "tests/data/p4testgen/tna/tna.py",  # p4testgen's, read as data (make -C p4src/tna testgen)
)


def _sources() -> list[str]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [
        f
        for f in tracked.stdout.split()
        if (f.endswith(SOURCES) or f in SCRIPTS) and f not in GENERATED and "/build/" not in f
    ]


def test_every_source_file_carries_the_licence_identifier() -> None:
    sources = _sources()
    assert len(sources) > 200  # the listing works
    missing = []
    for name in sources:
        lines = (ROOT / name).read_text().splitlines()
        # First lines (after a shebang). P4 files carry it as their last line: the compiled
        # outputs in p4src/build record source line numbers, which a first line would shift.
        where = lines[-1:] if name.endswith(".p4") else lines[:2]
        if not any(LINE in line for line in where):
            missing.append(name)
    assert not missing, f"no '{LINE}' line where expected in: {missing}"
