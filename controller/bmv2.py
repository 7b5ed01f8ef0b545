"""Register access on BMv2 through its thrift CLI.

simple_switch_grpc answers P4Runtime register reads/writes with UNIMPLEMENTED,
so a job's slot state is cleared with `simple_switch_CLI --thrift-port N`
fed `register_write` commands on stdin. Register names come from the BMv2
JSON, so this works whatever the P4 program calls its registers.
"""
from __future__ import annotations

import shutil
import subprocess
from typing import Any, Iterable, Mapping

from p4reduce.controller.config import SWITCH_SLOTS, JobConfig
from p4reduce.controller.errors import ResetError

# What simple_switch_CLI prints (it exits 0 anyway) when a command fails.
_FAILURE_MARKS = ("Error:", "Invalid ", "Could not connect", "Traceback")


def slot_register_arrays(bmv2_json: Mapping[str, Any], slots: int = SWITCH_SLOTS) -> list[str]:
    """Names of the register arrays indexed by version * slots + slot (2 * slots cells).

    Arrays of other sizes are not per-slot state and are left alone.
    """
    arrays = bmv2_json.get("register_arrays")
    if arrays is None:
        raise ResetError("the BMv2 JSON has no 'register_arrays': is it a BMv2 JSON?")
    names = [r["name"] for r in arrays if r.get("size") == 2 * slots]
    if not names:
        have = ", ".join(f"{r['name']}[{r.get('size')}]" for r in arrays) or "none"
        raise ResetError(f"no register array of {2 * slots} cells (2 versions x {slots} slots) "
                         f"in the BMv2 JSON (have: {have})")
    return names


def reset_commands(job: JobConfig, registers: Iterable[str], slots: int = SWITCH_SLOTS) -> list[str]:
    """`register_write` commands zeroing both versions of every slot of `job`."""
    return [f"register_write {name} {version * slots + slot} 0"
            for name in registers for version in (0, 1) for slot in job.slots]


def run_cli(commands: list[str], thrift_port: int, thrift_ip: str | None = None,
            cli: str = "simple_switch_CLI") -> str:
    """Feed `commands` to the BMv2 CLI; return its output, raise ResetError on any failure."""
    exe = shutil.which(cli)
    if exe is None:
        raise ResetError(f"{cli} not found on PATH: it ships with BMv2 (behavioral-model) and is "
                         "needed to write registers, which simple_switch_grpc does not expose "
                         "over P4Runtime")
    argv = [exe, "--thrift-port", str(thrift_port)]
    if thrift_ip is not None:
        argv += ["--thrift-ip", thrift_ip]
    try:
        proc = subprocess.run(argv, input="\n".join(commands) + "\n", capture_output=True, text=True,
                              timeout=60 + 0.05 * len(commands))
    except subprocess.TimeoutExpired:
        raise ResetError(f"{cli} on thrift port {thrift_port} did not finish "
                         f"{len(commands)} register writes in time") from None
    bad = [line.strip() for line in proc.stdout.splitlines()
           if any(mark in line for mark in _FAILURE_MARKS)]
    if proc.returncode != 0 or bad:
        detail = "; ".join(bad[:3]) or (proc.stderr.strip() or proc.stdout.strip())[-500:]
        raise ResetError(f"{cli} --thrift-port {thrift_port} failed (exit {proc.returncode}): {detail}")
    return proc.stdout
