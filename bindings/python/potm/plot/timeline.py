"""Throughput over time: a run's count per interval, drawn against time.

Some runs report a time series as a list-valued count: doppel's
``timeline`` is the number of commits in each interval of ``interval`` ms
(a text column ``count_timeline`` of the SweepTable, see potm.table).
``time_series`` turns each run's list into rates (count per second of
each *complete* interval: the last one, cut short by the end of the run,
and any the benchmark appends after it, are dropped) and reduces the ok
repeats of each series to the median rate per interval with its min..max;
``timeline_lines`` draws one line per series, the min..max as a band, and
optionally a dotted line at every multiple of a period (the moves of a
hot key).

Example:
    >>> interval_rates([50, 60, 7], interval_ms=100, elapsed_s=0.21)
    [500.0, 600.0]
    >>> t = timeline_table({"occ": ["10 10 1", "12 14 0"], "doppel": ["30 40 2", "30 60 0"]},
    ...                    interval_ms=100, elapsed_s=0.2)
    >>> s = time_series(t, series="variant")
    >>> s[("", "doppel")].times, s[("", "doppel")].median, s[("", "doppel")].runs
    ([0.05, 0.15], [300.0, 500.0], 2)
    >>> from potm.plot.figure import series_labels
    >>> series_labels(timeline_lines(t, series="variant"))
    ['occ', 'doppel']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np
from matplotlib.figure import Figure

from potm.plot.figure import (PathLike, maybe_save, new_figure, panel_title,
                              place_legend, series_color)
from potm.plot.stats import check_columns, check_single_valued
from potm.table import SweepTable, parse_series

#: The column of doppel's timeline and the key column of its interval (ms).
TIMELINE_COLUMN = "count_timeline"
INTERVAL_COLUMN = "interval"


@dataclass(frozen=True)
class TimeSeries:
    """One series over time: the middle of each interval (s), the median
    rate of the ok repeats there, their min and max, how many runs, and
    the length of an interval (s)."""

    times: list[float]
    median: list[float]
    low: list[float]
    high: list[float]
    runs: int
    interval: float


def interval_rates(counts: Sequence[float], *, interval_ms: float,
                   elapsed_s: float) -> list[float]:
    """Count per second of each interval that ended before elapsed_s (all
    of them if elapsed_s is NaN)."""
    complete = len(counts)
    if math.isfinite(elapsed_s):
        complete = min(complete, int(elapsed_s * 1000.0 / interval_ms + 1e-9))
    return [c * 1000.0 / interval_ms for c in counts[:complete]]


def time_series(table: SweepTable, column: str = TIMELINE_COLUMN, *,
                interval: str = INTERVAL_COLUMN, series: str = "variant",
                panel: Optional[str] = None) -> dict[tuple[Any, Any], TimeSeries]:
    """(panel, series) -> TimeSeries of the ok runs ("" as panel when
    there is none).  interval: the column holding each run's interval in
    ms.  Runs of one series are cut to the shortest of them; a series
    whose runs all failed or have no intervals is left out."""
    by = [series] + ([panel] if panel else [])
    check_columns(table, [column, interval, "elapsed", *by])
    check_single_valued(table, by)
    runs: dict[tuple[Any, Any], list[list[float]]] = {}
    widths: dict[tuple[Any, Any], float] = {}
    ok = table.array["ok"] if "ok" in table.columns else np.ones(len(table), dtype=bool)
    for row, good in zip(table.array, ok):
        key = (row[panel].item() if panel else "", row[series].item())
        rates = interval_rates(parse_series(str(row[column])),
                               interval_ms=float(row[interval]),
                               elapsed_s=float(row["elapsed"]))
        if good and rates:
            runs.setdefault(key, []).append(rates)
            widths[key] = float(row[interval]) / 1000.0
    out = {}
    for key, lists in runs.items():
        n = min(len(r) for r in lists)
        matrix = np.array([r[:n] for r in lists])
        out[key] = TimeSeries(times=[round((i + 0.5) * widths[key], 9) for i in range(n)],
                              median=[float(v) for v in np.median(matrix, axis=0)],
                              low=[float(v) for v in matrix.min(axis=0)],
                              high=[float(v) for v in matrix.max(axis=0)],
                              runs=len(lists), interval=widths[key])
    return out


def timeline_lines(table: SweepTable, column: str = TIMELINE_COLUMN, *,
                   interval: str = INTERVAL_COLUMN, series: str = "variant",
                   panel: Optional[str] = None, period: Optional[str] = None,
                   title: Optional[str] = None, ylabel: str = "throughput (tx/s)",
                   save: Optional[PathLike] = None) -> Figure:
    """A Figure of the rate per interval against time, one line per series
    (median of the repeats, min..max as a band), one panel per value of
    panel.  period: a column holding a period in ms (e.g. the hot key's
    change): a dotted vertical line at each multiple of it."""
    data = time_series(table, column, interval=interval, series=series, panel=panel)
    panels = list(dict.fromkeys(p for p, _ in data))
    fig, axes = new_figure(len(panels), title=title or f"{column} over time")
    periods = _periods(table, period, panel) if period else {}
    for ax, name in zip(axes, panels):
        end = 0.0
        for (p, s), ts in data.items():
            if p != name:
                continue
            color = series_color(str(s))
            ax.plot(ts.times, ts.median, label=str(s), color=color, linewidth=1.2)
            if ts.runs > 1:
                ax.fill_between(ts.times, ts.low, ts.high, color=color, alpha=0.2,
                                linewidth=0)
            end = max(end, len(ts.times) * ts.interval)
        step = periods.get(name, 0.0)
        if step > 0:
            for moment in np.arange(step, end, step):
                ax.axvline(moment, color="gray", linestyle=":", linewidth=0.8)
        ax.set_xlim(0, end or None)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if panel:
            ax.set_title(panel_title(panel, name), fontsize=10)
    place_legend(axes, series)
    return maybe_save(fig, save)


def _periods(table: SweepTable, period: str, panel: Optional[str]) -> dict[Any, float]:
    """panel value -> the period column's value in seconds (0 if none)."""
    check_columns(table, [period])
    out: dict[Any, float] = {}
    for row in table.array:
        name = row[panel].item() if panel else ""
        value = row[period].item()
        out[name] = float(value) / 1000.0 if isinstance(value, (int, float)) else 0.0
    return out


def timeline_table(runs: Mapping[str, Sequence[str]], *, interval_ms: int,
                   elapsed_s: float) -> SweepTable:
    """A SweepTable of timelines for examples and tests: series name ->
    one timeline text (numbers separated by spaces) per repeat."""
    width = max([len(t) for texts in runs.values() for t in texts] + [1])
    dtype = [("workload", "U6"), ("variant", f"U{max(len(n) for n in runs)}"),
             ("interval", "i8"), ("repeat", "i8"), ("ok", "?"), ("failure", "U1"),
             ("verified", "?"), (TIMELINE_COLUMN, f"U{width}"), ("elapsed", "f8")]
    rows = [("doppel", name, interval_ms, r, True, "", True, text, elapsed_s)
            for name, texts in runs.items() for r, text in enumerate(texts)]
    return SweepTable(np.array(rows, dtype=dtype), ["workload", "variant", "interval"])
