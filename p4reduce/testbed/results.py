# SPDX-License-Identifier: Apache-2.0
"""Writing experiment results (benchmarks, Mininet runs): CSV and line plots."""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def write_csv(path: pathlib.Path, fields: list[str], rows: Iterable[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def human_bytes(size: float) -> str:
    """A byte count as a reader says it: 81920 -> "82 kB", 4194304 -> "4.19 MB" (SI units,
    three significant digits), so a small tensor is never titled "0 MB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size:.0f} B"


def link_rate(mbit: float | None) -> str:
    """A link rate as titled on a figure: None is an unshaped link."""
    if mbit is None:
        return "unshaped links"
    return f"{mbit / 1000:g} Gbit/s links" if mbit >= 1000 else f"{mbit:g} Mbit/s links"


def setup_title(setup: str, workers: int, tensor_bytes: float, link_mbit: float | None) -> str:
    """A figure's title: what aggregated, how many workers, the tensor's size and the links, so a
    figure shown on its own says what was measured."""
    return f"{setup}: {workers} workers, {human_bytes(tensor_bytes)} tensor, {link_rate(link_mbit)}"


@dataclass
class Panel:
    """One plot: lines over x, plus horizontal baselines (e.g. a dense collective's time)."""

    title: str
    xlabel: str
    ylabel: str
    lines: dict[str, tuple[Sequence[float], Sequence[float]]] = field(default_factory=dict)
    baselines: dict[str, float] = field(default_factory=dict)
    ylog: bool = False


def save_results(
    out: pathlib.Path,
    fields: list[str],
    rows: list[Mapping[str, object]],
    panels: Sequence[Panel],
    title: str | None = None,
) -> None:
    """`out`.csv and `out`.png (the panels), and say where they are."""
    write_csv(out.with_suffix(".csv"), fields, rows)
    plot_panels(out.with_suffix(".png"), panels, title)
    print(f"wrote {out.with_suffix('.csv')} and {out.with_suffix('.png')}")


def plot_panels(path: pathlib.Path, panels: Sequence[Panel], title: str | None = None) -> Figure:
    """Panels side by side, x on a log scale, written as a PNG (needs matplotlib); returns the
    figure (closed: it only describes what was drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 4), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        for label, (xs, ys) in panel.lines.items():
            ax.plot(xs, ys, marker="o", label=label)
        for label, y in panel.baselines.items():
            ax.axhline(y, color="gray", ls="--", label=label)
        ax.set_xscale("log")
        if panel.ylog:
            ax.set_yscale("log")
        ax.set_xlabel(panel.xlabel)
        ax.set_ylabel(panel.ylabel)
        ax.set_title(panel.title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return fig
