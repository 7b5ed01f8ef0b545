# SPDX-License-Identifier: Apache-2.0
"""Writes p4src/tna/build's text files from the Tofino backend's output (p4src/tna/Makefile).

    python3 tofino_build.py resources OUT > build/resources.txt
    python3 tofino_build.py bfrt OUT/bfrt.json > build/bfrt.json
    python3 tofino_build.py p4info OUT/p4info.txtpb > build/p4reduce_tna.p4info.txtpb

OUT is p4c-barefoot's output directory, assembled by bfas. `resources` prints the backend's
own accounting (OUT/pipe/context.json, OUT/pipe/logs/resources.json and phv.json) as text;
`bfrt` copies the BF Runtime schema with its tables in name order and without the
`pipe.snapshot.*` debug tables, and `p4info` the P4Info without its Snapshot extern: the
backend lists and numbers the (debug-only) snapshots differently from run to run.
Neither carries dates, run ids or paths, so the same program and compiler give the same
files (p4src/tna/build is committed).
"""

from __future__ import annotations

import collections
import json
import pathlib
import sys
from typing import Any

# Per-stage resources: (column title, resources.json key).
_STAGE_COLUMNS = [
    ("SALU", "meter_alus"),
    ("stats ALU", "statistic_alus"),
    ("SRAM", "rams"),
    ("map RAM", "map_rams"),
    ("TCAM", "tcams"),
    ("gateway", "gateways"),
    ("logical tbl", "logical_tables"),
]


def _used(stage: dict[str, Any], key: str) -> int:
    part = stage[key]
    items = {
        "meter_alus": "meters",
        "statistic_alus": "stats",
        "rams": "srams",
        "map_rams": "maprams",
        "tcams": "tcams",
        "gateways": "gateways",
        "logical_tables": "ids",
    }[key]
    return len(part[items])


def _capacity(stage: dict[str, Any], key: str) -> int:
    part = stage[key]
    if key in ("meter_alus", "statistic_alus"):
        return int(part["nAlus"])
    if key in ("rams", "tcams"):
        return int(part["nRows"] * part["nColumns"])
    if key == "map_rams":
        return int(part["nRows"]) * 6  # Tofino: 6 map RAMs per SRAM row (resources.json omits it)
    if key == "gateways":
        return int(part["nRows"] * part["nUnits"])
    return int(part["size"])


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append(
            " | ".join(
                cell.rjust(w) if n and i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    return lines


def _stage_report(resources: dict[str, Any]) -> list[str]:
    stages = sorted(resources["mau"]["mau_stages"], key=lambda s: s["stage_number"])
    header = ["stage"] + [title for title, _ in _STAGE_COLUMNS]
    rows = [header]
    totals: collections.Counter[str] = collections.Counter()
    capacity: collections.Counter[str] = collections.Counter()
    for stage in stages:
        row = [str(stage["stage_number"])]
        for title, key in _STAGE_COLUMNS:
            used, cap = _used(stage, key), _capacity(stage, key)
            totals[title] += used
            capacity[title] += cap
            row.append(f"{used}/{cap}")
        rows.append(row)
    rows.append(["total"] + [f"{totals[t]}/{capacity[t]}" for t, _ in _STAGE_COLUMNS])
    return _table(rows)


def _placement(resources: dict[str, Any], gress_of: dict[str, str]) -> list[str]:
    lines = []
    for stage in sorted(resources["mau"]["mau_stages"], key=lambda s: s["stage_number"]):
        tables = collections.defaultdict(list)
        for entry in stage["logical_tables"]["ids"]:
            name = entry["table_name"]
            tables[gress_of.get(name, "?")].append(name)
        registers = sorted({u["used_by"] for m in stage["meter_alus"]["meters"] for u in m["usages"]})
        counters = sorted({u["used_by"] for m in stage["statistic_alus"]["stats"] for u in m["usages"]})
        lines.append(f"stage {stage['stage_number']}:")
        for gress in ("ingress", "egress", "?"):
            if tables[gress]:
                lines.append(f"  {gress} tables: " + ", ".join(sorted(set(tables[gress]))))
        if registers:
            lines.append("  registers (one stateful ALU each): " + ", ".join(registers))
        if counters:
            lines.append("  counters: " + ", ".join(counters))
    return lines


def _memories(resources: dict[str, Any], context: dict[str, Any]) -> list[str]:
    """SRAM, map RAM and TCAM blocks of each table, register and counter, summed over stages."""
    blocks: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    stages: dict[str, set[int]] = collections.defaultdict(set)
    for stage in resources["mau"]["mau_stages"]:
        for kind, key, items in (
            ("SRAM", "rams", "srams"),
            ("map RAM", "map_rams", "maprams"),
            ("TCAM", "tcams", "tcams"),
        ):
            for unit in stage[key][items]:
                for use in unit["usages"]:
                    blocks[use["used_by"]][kind] += 1
                    stages[use["used_by"]].add(stage["stage_number"])
    sizes = {t["name"]: t.get("size", 0) for t in context["tables"]}
    kinds = {t["name"]: t.get("table_type", "") for t in context["tables"]}
    rows = [["name", "type", "entries/cells", "stages", "SRAM", "map RAM", "TCAM"]]
    for name in sorted(blocks, key=lambda n: (min(stages[n]), n)):
        b = blocks[name]
        rows.append(
            [
                name,
                kinds.get(name, "-"),
                str(sizes.get(name, "-")),
                ",".join(str(s) for s in sorted(stages[name])),
                str(b["SRAM"]),
                str(b["map RAM"]),
                str(b["TCAM"]),
            ]
        )
    return _table(rows)


def _phv(phv: dict[str, Any], target: str) -> list[str]:
    available: collections.Counter[int] = collections.Counter()
    for group in phv["resources"]:
        if group["group_type"] == "mau":
            available[group["bit_width"]] += group["num_containers"]
    used: collections.Counter[tuple[str, str, int]] = collections.Counter()
    bits: collections.Counter[tuple[str, str, int]] = collections.Counter()
    for container in phv["containers"]:
        if not container["slices"]:
            continue
        key = (container["gress"], container["container_type"], container["bit_width"])
        used[key] += 1
        occupied: set[int] = set()
        for piece in container["slices"]:
            occupied.update(range(piece["slice_info"]["lsb"], piece["slice_info"]["msb"] + 1))
        bits[key] += len(occupied)
    rows = [["gress", "kind", "width", "containers", "bits occupied"]]
    for key in sorted(used):
        rows.append([key[0], key[1], f"{key[2]}b", str(used[key]), f"{bits[key]}/{used[key] * key[2]}"])
    lines = _table(rows)
    if target != "tofino":
        return lines
    # Tofino 1 gives each gress whole MAU groups of 16 normal containers of one size.
    groups: dict[tuple[str, int], set[int]] = collections.defaultdict(set)
    for container in phv["containers"]:
        if container["slices"] and container["container_type"] == "normal":
            groups[(container["gress"], container["bit_width"])].add(container["phv_mau_group_number"])
    lines.append("")
    lines.append("Tofino 1 has 64 x 8b, 96 x 16b and 64 x 32b normal (MAU-visible) containers and gives each")
    lines.append("gress whole groups of 16 of one size; the groups each gress holds here, and how full:")
    for gress in ("ingress", "egress"):
        parts = []
        for width in (8, 16, 32):
            held = 16 * len(groups[(gress, width)])
            parts.append(f"{used[(gress, 'normal', width)]}/{held} x {width}b")
        lines.append(f"  {gress}: " + ", ".join(parts))
    return lines


def report(out: pathlib.Path) -> str:
    context = json.loads((out / "pipe" / "context.json").read_text())
    resources = json.loads((out / "pipe" / "logs" / "resources.json").read_text())
    phv = json.loads((out / "pipe" / "logs" / "phv.json").read_text())
    gress_of = {t["name"]: t.get("direction", "?") for t in context["tables"]}
    # Gateways are named after their condition (cond-N); tbl_* hold one action.
    mau = resources["resources"]["mau"]
    used_stages = {
        gress: sorted(
            {
                s["stage_number"]
                for s in mau["mau_stages"]
                for e in s["logical_tables"]["ids"]
                if gress_of.get(e["table_name"]) == gress
            }
        )
        for gress in ("ingress", "egress")
    }
    lines = [
        f"# {context['program_name']} for {context['target']}: the Tofino backend's resource report",
        f"# p4c-barefoot {resources['compiler_version']}; written by p4src/tna/tofino_build.py from",
        "# context.json, resources.json and phv.json (regenerate: make -C p4src/tna).",
        "",
        f"MAU stages: {mau['nStages']}; used by ingress: {len(used_stages['ingress'])}"
        f" ({used_stages['ingress'][0]}-{used_stages['ingress'][-1]}), by egress: {len(used_stages['egress'])}"
        f" ({used_stages['egress'][0]}-{used_stages['egress'][-1]})",
        "",
        "## Per stage (used/available; ingress and egress share a stage's units)",
        "",
        *_stage_report(resources["resources"]),
        "",
        "## Placement",
        "",
        *_placement(resources["resources"], gress_of),
        "",
        "## Memories per table, register and counter",
        "",
        *_memories(resources["resources"], context),
        "",
        "## PHV",
        "",
        *_phv(phv, context["target"]),
    ]
    return "\n".join(lines) + "\n"


def bfrt(schema: pathlib.Path) -> str:
    data = json.loads(schema.read_text())
    data["tables"] = sorted(
        (t for t in data["tables"] if not t["name"].startswith("pipe.snapshot.")), key=lambda t: t["name"]
    )
    return json.dumps(data, indent=2) + "\n"


def p4info(text_proto: pathlib.Path) -> str:
    """The P4Info text without the top-level `externs` block of the Snapshot extern."""
    kept: list[str] = []
    block: list[str] = []
    for line in text_proto.read_text().splitlines(keepends=True):
        if block or line == "externs {\n":
            block.append(line)
            if line == "}\n":  # a top-level block closes in column 0
                if not any('extern_type_name: "Snapshot"' in b for b in block):
                    kept.extend(block)
                block = []
        else:
            kept.append(line)
    return "".join(kept + block)


def main(argv: list[str]) -> int:
    commands = {"resources": report, "bfrt": bfrt, "p4info": p4info}
    if len(argv) != 3 or argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(commands[argv[1]](pathlib.Path(argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
