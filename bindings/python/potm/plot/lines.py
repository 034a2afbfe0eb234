"""Line plots: a measure against a parameter, and speedup over a baseline.

``param_curves`` draws value against x, one line per series (optionally
one panel per value of a panel column); ``speedup_lines`` does the same
with value divided by the median of one baseline point of each panel
(e.g. 1-thread tl2), with the ideal linear speedup dotted and the number
of cores marked.  Marks are medians over the repeats, error bars their
min..max.

Example:
    >>> from potm.plot.stats import synthetic_table
    >>> t = synthetic_table({"backend": ["gl", "tl2"], "threads": [1, 2, 4]},
    ...                     lambda p: 100.0 * (p["threads"] if p["backend"] == "tl2" else 1))
    >>> fig = speedup_lines(t, baseline={"backend": "tl2", "threads": 1})
    >>> from potm.plot.figure import series_labels
    >>> series_labels(fig)
    ['gl', 'tl2']
    >>> s = speedups(t, "throughput", x="threads", series="backend",
    ...              baseline={"backend": "tl2", "threads": 1})
    >>> s[("", "tl2", 4)].median
    4.0
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from potm.plot.figure import (PathLike, maybe_save, new_figure, panel_title,
                              place_legend, series_color)
from potm.plot.stats import PointStats, check_columns, point_stats, unique
from potm.table import SweepTable

#: A point's statistics keyed by (panel, series, x); panel is "" when the
#: figure has one panel.
Curves = dict[tuple[Any, Any, Any], PointStats]


def curves(table: SweepTable, value: str, *, x: str, series: str,
           panel: Optional[str] = None) -> Curves:
    """(panel, series, x) -> statistics of value."""
    by = [x, series] + ([panel] if panel else [])
    stats = point_stats(table, value, by)
    return {(key[2] if panel else "", key[1], key[0]): st for key, st in stats.items()}


def speedups(table: SweepTable, value: str, *, x: str, series: str,
             baseline: Union[Mapping[str, Any], Any], panel: Optional[str] = None) -> Curves:
    """(panel, series, x) -> statistics of value divided by the median of
    the baseline point of the same panel.

    baseline: conditions selecting one point in each panel, e.g.
    {"backend": "tl2", "threads": 1}; a plain value v means
    {series: v, x: smallest x}.  ValueError if it selects no point or several.
    """
    conditions = _baseline_conditions(table, x, series, baseline)
    check_columns(table, list(conditions))
    out: Curves = {}
    for name in unique(table, panel) if panel else [""]:
        part = table.filter(**{panel: name}) if panel else table
        base_table = part.filter(**conditions)
        base = point_stats(base_table, value, [x, series]) if len(base_table) else {}
        where = f" in panel {panel} = {name!r}" if panel else ""
        if len(base) != 1:
            raise ValueError(f"baseline {dict(conditions)} selects {len(base)} points{where}; "
                             f"it must select exactly one")
        [reference] = base.values()
        factor = 1.0 / reference.median if reference.median > 0 else np.nan
        for key, st in curves(part, value, x=x, series=series).items():
            out[(name, key[1], key[2])] = st.scaled(factor)
    return out


def _baseline_conditions(table: SweepTable, x: str, series: str,
                         baseline: Union[Mapping[str, Any], Any]) -> dict[str, Any]:
    if isinstance(baseline, Mapping):
        return dict(baseline)
    check_columns(table, [x])
    return {series: baseline, x: min(unique(table, x))}


def _draw(ax: Axes, data: Curves, panel_name: Any, *, logx: bool) -> None:
    """One line per series of one panel, with min..max error bars."""
    names = list(dict.fromkeys(s for p, s, _ in data if p == panel_name))
    for name in names:
        points = sorted((xv, st) for (p, s, xv), st in data.items()
                        if p == panel_name and s == name)
        xs = np.array([float(xv) for xv, _ in points])
        med = np.array([st.median for _, st in points])
        err = np.vstack([[st.median - st.low for _, st in points],
                         [st.high - st.median for _, st in points]])
        spread = any(st.runs > 1 for _, st in points)
        ax.errorbar(xs, med, yerr=err if spread else None, label=str(name), marker="o",
                    markersize=4, capsize=3, color=series_color(str(name)))
    if logx:
        ax.set_xscale("log", base=2)
    xs_all = sorted({float(xv) for p, _, xv in data if p == panel_name})
    if xs_all and all(v == int(v) for v in xs_all):
        ax.set_xticks(xs_all, [str(int(v)) for v in xs_all])
    ax.grid(alpha=0.3)


def _finish(fig: Figure, axes: list[Axes], panels: list[Any], panel: Optional[str],
            series: str, xlabel: str, ylabel: str) -> None:
    for ax, name in zip(axes, panels):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if panel:
            ax.set_title(panel_title(panel, name), fontsize=10)
    place_legend(axes, series)


def param_curves(table: SweepTable, x: str, value: str = "throughput", *,
                 series: str = "backend", panel: Optional[str] = None,
                 title: Optional[str] = None, xlabel: Optional[str] = None,
                 ylabel: Optional[str] = None, logx: bool = False, logy: bool = False,
                 save: Optional[PathLike] = None) -> Figure:
    """A Figure of value against the parameter x, one line per series
    (one panel per value of panel, if given).  save: a path stem for
    <stem>.png and <stem>.svg."""
    data = curves(table, value, x=x, series=series, panel=panel)
    panels = list(dict.fromkeys(p for p, _, _ in data))
    fig, axes = new_figure(len(panels), title=title or f"{value} by {x}")
    for ax, name in zip(axes, panels):
        _draw(ax, data, name, logx=logx)
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
    _finish(fig, axes, panels, panel, series, xlabel or x, ylabel or value)
    return maybe_save(fig, save)


def speedup_lines(table: SweepTable, value: str = "throughput", *, x: str = "threads",
                  series: str = "backend", baseline: Union[Mapping[str, Any], Any],
                  panel: Optional[str] = None, title: Optional[str] = None,
                  xlabel: Optional[str] = None, ylabel: Optional[str] = None,
                  ideal: bool = True, cores: Optional[int] = None,
                  save: Optional[PathLike] = None) -> Figure:
    """A Figure of the speedup of value over the baseline point (see
    ``speedups``) against x, one line per series, one panel per value of
    panel.  ideal: dotted line of linear speedup (x / smallest x);
    cores: a vertical line at that many cores (beyond it threads
    oversubscribe the machine).  save: a path stem for PNG + SVG."""
    data = speedups(table, value, x=x, series=series, baseline=baseline, panel=panel)
    panels = list(dict.fromkeys(p for p, _, _ in data))
    conditions = _baseline_conditions(table, x, series, baseline)
    shown = ", ".join(f"{k}={v}" for k, v in conditions.items())
    fig, axes = new_figure(len(panels), title=title or f"speedup of {value} over {shown}")
    for ax, name in zip(axes, panels):
        _draw(ax, data, name, logx=False)
        xs = sorted({float(xv) for p, _, xv in data if p == name})
        if ideal and xs and xs[0] > 0:
            ax.plot(xs, [v / xs[0] for v in xs], linestyle=":", color="gray",
                    linewidth=1, label="_ideal")
        if cores is not None and xs and xs[-1] > cores:
            ax.axvline(cores, color="gray", linestyle="--", linewidth=0.8)
            ax.text(cores, 0, f" {cores} cores", fontsize=7, color="gray",
                    va="bottom", ha="left")
        ax.set_ylim(bottom=0)
    _finish(fig, axes, panels, panel, series, xlabel or x,
            ylabel or f"speedup over {shown}")
    return maybe_save(fig, save)
