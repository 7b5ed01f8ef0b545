# SPDX-License-Identifier: Apache-2.0
"""Markdown output shared by the benchmark scripts: their `--markdown` option.

A script run with `--markdown` prints its result table as Markdown, headed by the exact
command, the machine (CPUs, memory, kernel), the date, the git commit of the
checkout (and whether tracked files had uncommitted changes) and the load average, so
that the block can be pasted into the documentation as it is:

    report = MarkdownReport(["kind", "frames/s"])   # prints the header and the table head
    report.row("l2", "61,569")                      # one table row, printed at once
    report.end(["BMv2 built with -O3."])            # load average after, then notes

Rows are printed as they are measured, so an interrupted run still leaves a valid table.

For a program that prints its own results (an example, a Mininet experiment), run it
through this module: `python3 benchmarks/_report.py python3 examples/NAME.py ARGS` prints
the same header, then the program's output as a text block, and exits with its status
(`--stdout`: its standard output only; `--as-markdown`: output that is Markdown already,
printed as it is).
The scripts import this module by its bare name (`python3 benchmarks/NAME.py` puts
`benchmarks/` first on the module path).
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def add_markdown_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print the results as a Markdown table headed by the command, the machine, the date and the git commit",
    )


def command(argv: Sequence[str] | None = None) -> str:
    """The command line as run from the repository root: `python3 benchmarks/NAME.py ARGS`."""
    script = pathlib.Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(ROOT))
    except ValueError:
        shown = sys.argv[0]
    args = sys.argv[1:] if argv is None else list(argv)
    return shlex.join(["python3", shown, *args])


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> str:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return "unknown memory"


def machine() -> str:
    """CPU count and model, memory, OS and kernel, Python."""
    return (
        f"{os.cpu_count()} CPUs ({_cpu_model()}), {_memory_gib()}, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def commit() -> str:
    """The checkout's commit, with a note when tracked files differ from it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{head} (with uncommitted changes)" if dirty else head


def header(argv: Sequence[str] | None = None, shown: str | None = None) -> str:
    """The lines that say where a table comes from (Markdown list); `shown`: the command, as is."""
    now = datetime.datetime.now().astimezone().isoformat(timespec="minutes")
    return "\n".join(
        [
            f"- Command: `{shown or command(argv)}`",
            f"- Machine: {machine()}",
            f"- Date: {now}; commit {commit()}; load average {os.getloadavg()[0]:.1f} at the start",
        ]
    )


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def table(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A whole Markdown table."""
    lines = [table_row(columns), "|" + "---|" * len(columns)]
    lines += [table_row(r) for r in rows]
    return "\n".join(lines)


class MarkdownReport:
    """A results table printed as it is measured: header and table head at once,
    each row when it is known, the load average and notes at the end."""

    def __init__(self, columns: Sequence[str], argv: Sequence[str] | None = None, intro: Sequence[str] = ()) -> None:
        self.columns = list(columns)
        print(header(argv))
        print()
        for line in intro:  # what the run measured, before the table
            print(line)
            print()
        print(table(self.columns, []), flush=True)

    def row(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        print(table_row(cells), flush=True)

    def end(self, notes: Sequence[str] = ()) -> None:
        print()  # a blank line ends the table
        print(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
        for note in notes:
            print()
            print(note)
        sys.stdout.flush()


def emit_row(report: MarkdownReport | None, cells: Sequence[object]) -> None:
    """A row of `report`'s table, or, without a report, the same row printed bare."""
    if report is not None:
        report.row(*cells)
    else:
        print(table_row(cells), flush=True)


def sum_check(got: np.ndarray, exact: np.ndarray, n: int) -> str:
    """`err E <= T` when a float32 sum of `n` workers' tensors is within the fixed-point
    bound of the exact sum (docs/protocol.md 5) plus float32 rounding, else `WRONG (err E)`."""
    biggest = float(np.abs(exact).max()) if exact.size else 0.0
    bound = n * 2.0 ** (np.frexp(biggest)[1] + (n - 1).bit_length() - 31) if biggest else 0.0
    err = float(np.abs(got - exact).max()) if got.size else 0.0
    tolerance = bound + 2.0**-23 * biggest * n
    return f"err {err:.1e} <= {tolerance:.1e}" if err <= tolerance else f"WRONG (err {err:.1e})"


def main(argv: Sequence[str]) -> int:
    """Run a command, its output under the provenance header.

    Options before the command: `--stdout`: only the command's standard output goes into
    the block (its standard error passes through to ours); `--as-markdown`: the command
    prints Markdown (a table), which is printed as it is instead of as a text block.
    """
    args = list(argv)
    only_stdout = as_markdown = False
    while args and args[0] in ("--stdout", "--as-markdown"):
        only_stdout |= args[0] == "--stdout"
        as_markdown |= args[0] == "--as-markdown"
        args.pop(0)
    if not args or args[0] in ("-h", "--help"):
        print("usage: python3 benchmarks/_report.py [--stdout] [--as-markdown] COMMAND [ARG...]", file=sys.stderr)
        return 2
    print(header(shown=shlex.join(args)))
    print(flush=True)
    proc = subprocess.run(
        args, stdout=subprocess.PIPE, stderr=None if only_stdout else subprocess.STDOUT, text=True, check=False
    )
    output = proc.stdout.rstrip("\n")
    print(output if as_markdown else f"```text\n{output}\n```")
    if proc.returncode:
        print()
        print(f"Exit status {proc.returncode}.")
    print()
    print(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
