# SPDX-License-Identifier: Apache-2.0
"""The documentation: the MkDocs site builds with no warning, and the README stays a user's overview."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README_MAX_LINES = 260


def _mkdocs_missing() -> str | None:
    """Why the site cannot be built here, or None."""
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[docs]')"
    return None


def test_the_site_builds_strict_without_warnings(tmp_path: pathlib.Path) -> None:
    missing = _mkdocs_missing()
    if missing:
        pytest.skip(missing)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    warnings = [line for line in log.splitlines() if re.search(r"\bWARNING\b|\bERROR\b", line)]
    assert proc.returncode == 0 and not warnings, f"mkdocs build --strict failed:\n{log}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "protocol" / "index.html").is_file()
    # the API reference was rendered from the docstrings, the mapped subpackages included
    hostagent = (tmp_path / "site" / "api" / "hostagent" / "index.html").read_text()
    assert "p4reduce.hostagent.HostAgent" in hostagent and "allreduce" in hostagent
    controller = (tmp_path / "site" / "api" / "controller" / "index.html").read_text()
    assert "SwitchClient" in controller


def test_the_benchmark_tables_are_the_scripts_output() -> None:
    """Each included table was printed by a script: it starts with the command, the machine and the date."""
    measured = sorted((ROOT / "docs" / "measured").glob("*.md"))
    assert measured
    for path in measured:
        head = path.read_text().splitlines()[:3]
        assert head[0].startswith("- Command: `"), path
        assert head[1].startswith("- Machine: "), path
        assert head[2].startswith("- Date: ") and "commit" in head[2], path


def test_the_readme_table_is_the_benchmark_pages_table() -> None:
    """The README's headline table is the allreduce benchmark's output, as the docs include it."""
    measured = (ROOT / "docs" / "measured" / "allreduce.md").read_text().strip()
    assert measured in (ROOT / "README.md").read_text()


def test_the_readme_is_short_and_has_no_issue_references() -> None:
    text = (ROOT / "README.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines (at most {README_MAX_LINES})"
    found = re.findall(r"(?i)\bissues?\s*#?\s*\d+|#\d+\b", text)
    assert not found, f"README.md refers to issues: {found}"


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    command = "python3 -m pytest -q"
    assert re.search(rf"^{re.escape(command)}$", ci, re.M), ".ci/run no longer runs the README's test command"
    assert f"```sh\n{command}\n```" in (ROOT / "README.md").read_text()


def test_the_site_output_is_ignored() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    proc = subprocess.run(["git", "check-ignore", "-q", "site/index.html"], cwd=ROOT)
    assert proc.returncode == 0, "site/ (mkdocs build output) is not git-ignored"
