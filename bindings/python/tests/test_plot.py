"""potm.plot: every figure function on synthetic tables, saving, errors."""

from __future__ import annotations

import doctest
import importlib
import math
import pkgutil
from pathlib import Path

import numpy as np
import pytest
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

import potm
import potm.plot
from potm.plot import (latency_table, latency_text, normalized_bars, param_curves,
                       point_stats, series_labels, speedup_lines, synthetic_table)
from potm.table import SweepTable

SPEED = {"seq": 100.0, "gl": 90.0, "tl2": 40.0}


def bars_table() -> SweepTable:
    """structure x backend at 1 thread, 3 repeats (+-1 around the value)."""
    return synthetic_table({"structure": ["rb", "hs"], "backend": ["seq", "gl", "tl2"]},
                           lambda p: SPEED[p["backend"]])


def threads_table() -> SweepTable:
    """tl2 scales linearly, gl stays flat; two structures."""
    return synthetic_table(
        {"structure": ["rb", "hs"], "backend": ["gl", "tl2"], "threads": [1, 2, 4]},
        lambda p: 100.0 * (p["threads"] if p["backend"] == "tl2" else 1))


def bar_heights(fig: Figure) -> dict[str, list[float]]:
    """The heights of each labelled bar series of the first axes."""
    ax = fig.axes[0]
    return {str(c.get_label()): [b.get_height() for b in c.patches]
            for c in ax.containers if isinstance(c, BarContainer)}


def test_normalized_bars_series_and_heights() -> None:
    fig = normalized_bars(bars_table(), "throughput", group="structure", series="backend",
                          baseline="seq")
    assert isinstance(fig, Figure)
    assert series_labels(fig) == ["seq", "gl", "tl2"]
    heights = bar_heights(fig)
    assert heights["seq"] == pytest.approx([1.0, 1.0])
    assert heights["gl"] == pytest.approx([0.9, 0.9])
    assert heights["tl2"] == pytest.approx([0.4, 0.4])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["rb", "hs"]
    assert ax.get_xlabel() == "structure" and "seq" in ax.get_ylabel()
    assert fig.get_suptitle() == "throughput normalized to seq"


def test_normalized_bars_error_bars_are_min_max() -> None:
    stats = potm.plot.bar_ratios(bars_table(), "throughput", group="structure",
                                 series="backend", baseline="seq")
    tl2 = stats[("rb", "tl2")]
    assert (tl2.low, tl2.median, tl2.high) == pytest.approx((0.39, 0.40, 0.41))
    assert tl2.runs == 3


def test_normalized_bars_unknown_baseline() -> None:
    with pytest.raises(ValueError, match="baseline backend = 'rtm' is not in the table"):
        normalized_bars(bars_table(), group="structure", series="backend", baseline="rtm")


def test_speedup_lines_series_panels_values() -> None:
    t = threads_table()
    fig = speedup_lines(t, baseline={"backend": "tl2", "threads": 1}, panel="structure",
                        cores=2, title="speedup")
    assert series_labels(fig) == ["gl", "tl2"]
    assert [ax.get_title() for ax in fig.axes] == ["structure rb", "structure hs"]
    assert fig.get_suptitle() == "speedup" and fig.axes[0].get_xlabel() == "threads"
    s = potm.plot.speedups(t, "throughput", x="threads", series="backend",
                           baseline="tl2", panel="structure")
    assert s[("hs", "tl2", 4)].median == pytest.approx(4.0)
    assert s[("rb", "gl", 4)].median == pytest.approx(1.0)


def test_speedup_baseline_must_select_one_point() -> None:
    with pytest.raises(ValueError, match="selects 3 points"):
        speedup_lines(threads_table().filter(structure="rb"), baseline={"backend": "tl2"})


def test_param_curves_series_and_panels() -> None:
    t = threads_table()
    fig = param_curves(t, "threads", "throughput", series="backend", panel="structure")
    assert series_labels(fig) == ["gl", "tl2"]
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "throughput"
    [tl2] = [c for c in fig.axes[0].containers
             if isinstance(c, ErrorbarContainer) and c.get_label() == "tl2"]
    data_line = tl2.lines[0]
    assert np.asarray(data_line.get_xdata()).tolist() == [1.0, 2.0, 4.0]
    assert np.asarray(data_line.get_ydata()).tolist() == pytest.approx([100.0, 200.0, 400.0])


def test_latency_table_and_text() -> None:
    t = synthetic_table({"backend": ["tl2", "gl"]}, lambda p: 20.0)
    text = latency_text(t, ["throughput", "elapsed"], rows=["backend"])
    assert text.splitlines()[1].split() == ["tl2", "20", "[19..21]", "1"]
    fig = latency_table(t, ["throughput"], rows=["backend"], column_labels=["tp (ops/s)"])
    [table] = fig.axes[0].tables
    cells = {(r, c): cell.get_text().get_text() for (r, c), cell in table.get_celld().items()}
    assert cells[(0, 1)] == "tp (ops/s)" and cells[(1, 0)] == "tl2"
    assert cells[(1, 1)] == "20 [19..21]"


def test_save_writes_png_and_svg(tmp_path: Path) -> None:
    stem = tmp_path / "sub" / "bars"
    normalized_bars(bars_table(), group="structure", series="backend", baseline="seq",
                    save=stem)
    for suffix in (".png", ".svg"):
        path = stem.with_suffix(suffix)
        assert path.stat().st_size > 1000
    assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = stem.with_suffix(".svg").read_text()
    assert "<svg" in svg and ">tl2<" in svg  # text stays text
    written = potm.plot.save_figure(param_curves(threads_table(), "threads",
                                                 series="backend", panel="structure"),
                                    tmp_path / "curves.png")
    assert [p.name for p in written] == ["curves.png", "curves.svg"]


def test_points_must_not_pool_other_parameters() -> None:
    t = synthetic_table({"backend": ["gl", "tl2"], "update": [0, 20]}, lambda p: 1.0)
    with pytest.raises(ValueError, match="mixes rows with update = 0 and 20"):
        normalized_bars(t, group="backend", series="backend", baseline="gl")
    fig = normalized_bars(t.filter(update=20), group="update", series="backend",
                          baseline="gl")
    assert series_labels(fig) == ["gl", "tl2"]


def test_failed_runs_are_left_out_and_median_tables_work() -> None:
    t = bars_table()
    t.array["ok"][0] = False           # seq/rb repeat 0 (value 99)
    t.array["throughput"][1] = np.nan  # seq/rb repeat 1 (no number)
    stats = point_stats(t, "throughput", ["structure", "backend"])
    assert stats[("rb", "seq")].runs == 1 and stats[("rb", "seq")].median == 101.0
    medians = bars_table().median()
    stats = point_stats(medians, "throughput", ["structure", "backend"])
    assert stats[("hs", "tl2")].median == 40.0 and stats[("hs", "tl2")].runs == 3
    assert stats[("hs", "tl2")].low == stats[("hs", "tl2")].high
    fig = normalized_bars(medians, group="structure", series="backend", baseline="seq")
    assert series_labels(fig) == ["seq", "gl", "tl2"]


def test_point_with_no_ok_run_is_nan() -> None:
    t = bars_table()
    t.array["ok"][t.array["backend"] == "gl"] = False
    ratios = potm.plot.bar_ratios(t, "throughput", group="structure", series="backend",
                                  baseline="seq")
    assert math.isnan(ratios[("rb", "gl")].median) and ratios[("rb", "gl")].runs == 0
    normalized_bars(t, group="structure", series="backend", baseline="seq")  # draws


def test_unknown_column() -> None:
    with pytest.raises(ValueError, match="no column 'nope'"):
        param_curves(threads_table(), "nope", series="backend", panel="structure")


SUBMODULES = sorted(m.name for m in pkgutil.walk_packages(potm.plot.__path__, "potm.plot."))


@pytest.mark.parametrize("name", SUBMODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                             extraglobs={"potm": potm})
    assert result.failed == 0
