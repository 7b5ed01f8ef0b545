#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The commands the documentation gives for the scripts in mininet/: list, check or run them.

    python3 tools/run_doc_commands.py               # list them, each with the file and line it is in
    python3 tools/run_doc_commands.py --check       # each script checks its options (--check-args): nothing runs
    sudo python3 tools/run_doc_commands.py --run    # run each as written where its tools are here

A command is a line (with its backslash continuations) of a fenced code block, or an inline
code span, in README.md or a page under docs/ (docs/measured/ included), that runs a script
of mininet/: `python3 mininet/NAME.py ...` (after `sudo`, if any), or `mininet/NAME.py`
followed by options, as prose names a combination of options. `--check` checks them all.
`--run` runs the full ones (those of code blocks, and inline ones that start with python3
or sudo), one after the other from the repository's root, with this interpreter in place of
`python3` (their results go where their --out says, by default under results/), skips those
whose tools are missing here (root, Mininet, BMv2, PyTorch) and says why, and exits non-zero
if one failed. `--match TEXT` keeps the commands containing TEXT, or those of files whose
name (or file:line) contains it. The test suite checks every command's options
(tests/test_mininet_runner.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = re.compile(r"mininet/[\w-]+\.py")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"`([^`\n]+)`")


@dataclasses.dataclass(frozen=True)
class DocCommand:
    """One documented command: where it is written, as written, and the script with its options."""

    path: pathlib.Path  # relative to the repository's root
    line: int
    text: str
    script: str  # mininet/NAME.py
    options: tuple[str, ...]
    full: bool  # copy-pastable (a code block's, or `python3 ...`), not options named in prose

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def doc_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _command(path: pathlib.Path, line: int, text: str, fenced: bool) -> DocCommand | None:
    """The command `text` (of a code block if `fenced`) is, if it runs a script of mininet/."""
    text = re.sub(r"\s+#.*$", "", text.strip())  # a trailing shell comment
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if words[:1] == ["sudo"]:
        words = words[1:]
    ran = words[:1] == ["python3"] and len(words) > 1
    if ran:
        words = words[1:]
    if not words or not SCRIPT.fullmatch(words[0]) or (not ran and len(words) == 1):
        return None  # not a script of mininet/, or one named in prose
    return DocCommand(path, line, text, words[0], tuple(words[1:]), full=fenced or ran)


def doc_commands(root: pathlib.Path = ROOT) -> list[DocCommand]:
    """Every command of the docs that runs a script of mininet/, in file and line order."""
    found = []
    for file in doc_files(root):
        rel = file.relative_to(root)
        lines = file.read_text().splitlines()
        fenced = False
        i = 0
        while i < len(lines):
            text, start = lines[i], i + 1
            if FENCE.match(text):
                fenced = not fenced
            elif fenced:
                while text.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text.rstrip()[:-1].rstrip() + " " + lines[i].strip()
                command = _command(rel, start, text, fenced=True)
                if command is not None:
                    found.append(command)
            else:
                for span in INLINE.findall(text):
                    command = _command(rel, start, span, fenced=False)
                    if command is not None:
                        found.append(command)
            i += 1
    return found


def check_argv(command: DocCommand, python: str = sys.executable) -> list[str]:
    """The command with --check-args: its script checks the options and exits."""
    return [python, str(ROOT / command.script), *command.options, "--check-args"]


def check_all(commands: list[DocCommand], python: str = sys.executable) -> list[str | None]:
    """For each command, why its options are refused (its script's words), or None when they
    are accepted; the scripts check them all at once."""
    procs = [
        subprocess.Popen(check_argv(c, python), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if (ROOT / c.script).is_file()
        else None
        for c in commands
    ]
    problems: list[str | None] = []
    for command, proc in zip(commands, procs, strict=True):
        if proc is None:
            problems.append(f"{command.script} does not exist")
            continue
        _, err = proc.communicate(timeout=120)
        problems.append((err.strip().splitlines() or [f"exit {proc.returncode}"])[-1] if proc.returncode else None)
    return problems


def missing_tools(command: DocCommand) -> str | None:
    """What this machine lacks to run `command` (None: nothing)."""
    if os.geteuid() != 0:
        return "needs root"
    name = pathlib.Path(command.script).name
    if name in ("p4reduce_mininet.py", "shared_switch.py") and shutil.which("mnexec") is None:
        return "needs Mininet (mnexec)"
    if name == "shared_switch.py" or (name == "p4reduce_mininet.py" and _resolved_switch(command) == "bmv2"):
        if shutil.which("simple_switch_grpc") is None:
            return "needs BMv2 (simple_switch_grpc)"
    if name == "shared_switch.py":
        try:
            import torch  # noqa: F401
        except ImportError:
            return "needs PyTorch"
    return None


def _resolved_switch(command: DocCommand) -> str:
    """The runner's --switch, `auto` resolved as the runner does it (its --check-args line)."""
    proc = subprocess.run(check_argv(command), cwd=ROOT, capture_output=True, text=True, timeout=120)
    match = re.search(r"--switch (\w+)", proc.stdout)
    return match[1] if match else "bmv2"


def _run(command: DocCommand, timeout: float) -> str:
    """Run `command` (this interpreter for python3) from the repository's root; "ok" or why not.
    One that runs past `timeout` is sent SIGTERM, so that it cleans up after itself."""
    proc = subprocess.Popen([sys.executable, command.script, *command.options], cwd=ROOT)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return f"FAILED (still running after {timeout:g} s: stopped)"
    return "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="check every command's options (no root needed)")
    what.add_argument("--run", action="store_true", help="run every command whose tools are here (root)")
    ap.add_argument(
        "--match", default="", metavar="TEXT", help="only the commands containing TEXT (or in a file whose name does)"
    )
    ap.add_argument("--timeout", type=float, default=3600, help="seconds each command may run (default: 3600)")
    args = ap.parse_args(argv)
    commands = [c for c in doc_commands() if args.match in f"{c.where}: {c.text}"]
    failed = 0
    if args.check:
        for command, problem in zip(commands, check_all(commands), strict=True):
            failed += problem is not None
            print(f"{command.where}: {'ok' if problem is None else 'REFUSED: ' + problem}: {command.text}")
        return 1 if failed else 0
    for command in commands:
        if args.run:
            missing = missing_tools(command) if command.full else "options named in prose: checked, not run"
            if missing is not None:
                print(f"{command.where}: skipped ({missing}): {command.text}", flush=True)
                continue
            print(f"{command.where}: running: {command.text}", flush=True)
            start = time.monotonic()
            status = _run(command, args.timeout)
            failed += status != "ok"
            print(f"{command.where}: {status} in {time.monotonic() - start:.0f} s: {command.text}", flush=True)
        else:
            print(f"{command.where}: {command.text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
