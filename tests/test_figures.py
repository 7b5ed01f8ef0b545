# SPDX-License-Identifier: Apache-2.0
"""The figures the Mininet runner and the benchmark scripts write: titled with what was
measured (what aggregated, workers, tensor size in human units, link rate), gloo's line
drawn where gloo was measured."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

from p4reduce.testbed.results import human_bytes, plot_panels

ROOT = pathlib.Path(__file__).resolve().parents[1]
pytest.importorskip("matplotlib")


def _script(monkeypatch, path: pathlib.Path):
    """A script as a module, as it imports its neighbours (no network, no root)."""
    monkeypatch.syspath_prepend(str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def runner(monkeypatch):
    return _script(monkeypatch, ROOT / "mininet" / "p4reduce_mininet.py")


def _rows(switch: str, gloo_ms: float | None) -> list[dict]:
    common = dict(switch=switch, topo="star", multicast=False, workers=3, elements=20_000, bw_mbit=100.0, loss=0.0)
    rows = [dict(common, method="p4reduce", density=d, median_ms=10 * d + 1, goodput_mbit=5 / d) for d in (1.0, 0.1)]
    if gloo_ms is not None:
        rows.insert(0, dict(common, method="gloo_dense", density=1.0, median_ms=gloo_ms, goodput_mbit=0.64 / gloo_ms))
    return rows


@pytest.mark.parametrize(
    ("switch", "named"), [("bmv2", "BMv2 switch aggregates"), ("lxbr", "Linux bridge + software aggregator")]
)
def test_figure_says_what_was_measured(tmp_path, runner, switch, named):
    """The figure's title names what aggregated, the workers, the tensor in human units (20,000
    float32 values: 80 kB, not "0 MB") and the link rate; gloo's line is drawn when it was
    measured, at its measured value, and absent when it was not."""
    panels, title = runner.panels(_rows(switch, gloo_ms=42.0))
    assert title == f"{named}: 3 workers, 80 kB tensor, 100 Mbit/s links"
    figure = plot_panels(tmp_path / "f.png", panels, title)
    time_axis = figure.axes[0]
    drawn = {line.get_label(): list(line.get_ydata()) for line in time_axis.get_lines()}
    assert drawn == {"p4reduce": [2.0, 11.0], "gloo allreduce (dense)": [42.0, 42.0]}
    assert figure.get_suptitle() == title and (tmp_path / "f.png").stat().st_size > 0

    panels, _ = runner.panels(_rows(switch, gloo_ms=None))
    assert [line.get_label() for line in plot_panels(tmp_path / "g.png", panels).axes[0].get_lines()] == ["p4reduce"]


@pytest.mark.parametrize(
    ("size", "shown"), [(0, "0 B"), (999, "999 B"), (80_000, "80 kB"), (4 * 2**20, "4.19 MB"), (3e9, "3 GB")]
)
def test_sizes_in_human_units(size, shown):
    assert human_bytes(size) == shown


def test_benchmark_figure_titles_sizes_and_draws_gloo(tmp_path, monkeypatch):
    """benchmarks/allreduce_vs_gloo.py: one panel per (workers, size), its size in human
    units, p4reduce's and both gloo lines over density, under a title naming the setup."""
    pytest.importorskip("torch")
    bench = _script(monkeypatch, ROOT / "benchmarks" / "allreduce_vs_gloo.py")
    rows = [
        dict(workers=2, size_mb=mb, density=d, p4reduce_ms=1.0 + d, gloo_dense_ms=9.0, gloo_sparse_ms=3.0 + d)
        for mb in (0.078125, 4)
        for d in (0.01, 0.1)
    ]
    panels = bench.panels(rows)
    assert [p.title for p in panels] == [
        "2 workers, 81.9 kB tensor",
        "2 workers, 4.19 MB tensor",
        "speed-up over gloo dense",
    ]
    assert panels[-1].lines == {
        "2 workers, 81.9 kB": ([1.0, 10.0], [9.0 / 1.01, 9.0 / 1.1]),
        "2 workers, 4.19 MB": ([1.0, 10.0], [9.0 / 1.01, 9.0 / 1.1]),
    }
    assert panels[-1].baselines == {"as fast as gloo": 1.0}
    figure = plot_panels(tmp_path / "b.png", panels, bench.FIGURE_TITLE)
    drawn = {line.get_label(): list(line.get_ydata()) for line in figure.axes[0].get_lines()}
    assert drawn == {"p4reduce": [1.01, 1.1], "gloo dense": [9.0, 9.0], "gloo sparse COO": [3.01, 3.1]}
    assert "gloo" in figure.get_suptitle() and "software aggregator" in figure.get_suptitle()
