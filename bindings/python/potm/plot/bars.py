"""Grouped bars of a measure, as it is or normalized to a baseline series.

``normalized_bars(table, "throughput", group="structure", series="backend",
baseline="seq")`` draws, for each group, one bar per series: the median
of the series divided by the median of the baseline series in the same
group, with the min..max of the repeats (also divided by the baseline's
median) as the error bar.  A dashed line marks 1.0, the baseline.
``grouped_bars(table, value, group=, series=)`` draws the medians
themselves (a share of time, a count).

Example:
    >>> from potm.plot.stats import synthetic_table
    >>> t = synthetic_table({"structure": ["rb", "hs"], "backend": ["seq", "gl", "tl2"]},
    ...                     lambda p: {"seq": 100.0, "gl": 90.0, "tl2": 40.0}[p["backend"]])
    >>> fig = normalized_bars(t, "throughput", group="structure", series="backend",
    ...                       baseline="seq")
    >>> from potm.plot.figure import series_labels
    >>> series_labels(fig)
    ['seq', 'gl', 'tl2']
    >>> bar_ratios(t, "throughput", group="structure", series="backend",
    ...            baseline="seq")[("rb", "tl2")].median
    0.4
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from matplotlib.figure import Figure

from potm.plot.figure import (PANEL_SIZE, PathLike, maybe_save, new_figure, place_legend,
                              series_color)
from potm.plot.stats import PointStats, point_stats
from potm.table import SweepTable

#: Inches of figure width per bar.
BAR_WIDTH = 0.32


def bar_ratios(table: SweepTable, value: str, *, group: str, series: str,
               baseline: Any) -> dict[tuple[Any, Any], PointStats]:
    """(group, series) -> the statistics of value divided by the median of
    the baseline series in the same group (NaN where the baseline has no
    ok run).  ValueError if the baseline series is not in the table."""
    stats = point_stats(table, value, [group, series])
    if not any(s == baseline for _, s in stats):
        found = ", ".join(str(v) for v in dict.fromkeys(s for _, s in stats))
        raise ValueError(f"baseline {series} = {baseline!r} is not in the table "
                         f"(its {series} values: {found})")
    ratios = {}
    for (g, s), st in stats.items():
        base = stats.get((g, baseline))
        factor = 1.0 / base.median if base is not None and base.median > 0 else np.nan
        ratios[(g, s)] = st.scaled(factor)
    return ratios


def normalized_bars(table: SweepTable, value: str = "throughput", *, group: str,
                    series: str = "backend", baseline: Any, title: Optional[str] = None,
                    ylabel: Optional[str] = None, xlabel: Optional[str] = None,
                    labels: bool = True, save: Optional[PathLike] = None) -> Figure:
    """A Figure of value normalized to the baseline series, grouped by group.

    table: one row per run (medians and min..max error bars are computed
    here) or a median table (no error bars).  group / series: key columns;
    every other key column must hold one value (see potm.plot.stats).
    labels: write each bar's ratio above it.  save: a path stem; writes
    <stem>.png and <stem>.svg.
    """
    ratios = bar_ratios(table, value, group=group, series=series, baseline=baseline)
    fig = _bars(ratios, title=title or f"{value} normalized to {baseline}",
                xlabel=xlabel or group, ylabel=ylabel or f"{value} / {value} of {baseline}",
                legend_title=series, labels=labels, reference=1.0)
    return maybe_save(fig, save)


def grouped_bars(table: SweepTable, value: str, *, group: str, series: str = "backend",
                 title: Optional[str] = None, ylabel: Optional[str] = None,
                 xlabel: Optional[str] = None, labels: bool = True,
                 save: Optional[PathLike] = None) -> Figure:
    """A Figure of the medians of value (min..max error bars), one bar per
    series in each group; arguments as normalized_bars.

    >>> from potm.plot.stats import synthetic_table
    >>> t = synthetic_table({"app": ["a", "b"], "backend": ["pot", "destm"]},
    ...                     lambda p: 5.0 if p["backend"] == "pot" else 30.0)
    >>> from potm.plot.figure import series_labels
    >>> series_labels(grouped_bars(t, "throughput", group="app"))
    ['pot', 'destm']
    """
    stats = point_stats(table, value, [group, series])
    fig = _bars(stats, title=title or value, xlabel=xlabel or group, ylabel=ylabel or value,
                legend_title=series, labels=labels, reference=None)
    return maybe_save(fig, save)


#: Width of one character of a tick label, inches (10-point sans serif).
TICK_CHAR_WIDTH = 0.1


def _crowded(ticks: list[str], panel_width: float) -> bool:
    """Whether horizontal tick labels would run into each other (then they
    are slanted): the longest wider than its group's share of the panel.

    >>> _crowded(["bayes", "kmeans-low", "vacation-high"] * 4, 12.0)
    True
    >>> _crowded(["r", "rw", "w"], 8.0)
    False
    """
    if not ticks:
        return False
    return max(map(len, ticks)) * TICK_CHAR_WIDTH > 0.9 * panel_width / len(ticks)


def bar_text(height: float) -> str:
    """A bar's label: three significant digits, at most two decimals, so
    that it fits its bar (an extra digit made neighbours overlap).

    >>> [bar_text(h) for h in (0.794, 1.1, 41.05, 150.4, 12345.0, float("nan"))]
    ['0.79', '1.10', '41.0', '150', '12345', '']
    """
    if np.isnan(height):
        return ""
    magnitude = int(np.floor(np.log10(abs(height)))) if height else 0
    return f"{height:.{min(2, max(0, 2 - magnitude))}f}"


def _bars(cells: dict[tuple[Any, Any], PointStats], *, title: str, xlabel: str, ylabel: str,
          legend_title: str, labels: bool, reference: Optional[float]) -> Figure:
    """Draw (group, series) -> statistics as grouped bars; a dashed line at
    reference unless it is None."""
    groups = list(dict.fromkeys(g for g, _ in cells))
    names = list(dict.fromkeys(s for _, s in cells))
    panel_width = max(PANEL_SIZE[0], BAR_WIDTH * len(groups) * len(names) + 1.0)
    fig, [ax] = new_figure(1, title=title, panel_width=panel_width)
    width = 0.8 / len(names)
    x = np.arange(len(groups), dtype=float)
    for i, name in enumerate(names):
        column = [cells.get((g, name), PointStats(np.nan, np.nan, np.nan, 0)) for g in groups]
        heights = np.array([c.median for c in column])
        below = np.array([c.median - c.low for c in column])
        above = np.array([c.high - c.median for c in column])
        has_spread = any(c.runs > 1 for c in column)
        bars = ax.bar(x - 0.4 + width * (i + 0.5), heights, width, label=str(name),
                      color=series_color(str(name)),
                      yerr=np.vstack([below, above]) if has_spread else None,
                      capsize=3 if has_spread else 0, edgecolor="white", linewidth=0.5)
        if labels:
            ax.bar_label(bars, labels=[bar_text(h) for h in heights],
                         label_type="center", fontsize=7,
                         bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                               "alpha": 0.8})
    if reference is not None:
        ax.axhline(reference, color="black", linestyle="--", linewidth=0.8)
    ticks = [str(g) for g in groups]
    if _crowded(ticks, panel_width):
        ax.set_xticks(x, ticks, rotation=30, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticks(x, ticks)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    place_legend([ax], legend_title)
    ax.grid(axis="y", alpha=0.3)
    return fig
