"""Writing experiment results (benchmarks, Mininet runs)."""
from __future__ import annotations

import csv
import pathlib
from typing import Iterable, Mapping


def write_csv(path: pathlib.Path, fields: list[str], rows: Iterable[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
