"""Renderers: from an experiment's table to figures, a summary, key numbers.

Each class is a renderer (``Experiment.render``) for one kind of figure of
``potm.plot``, configured by its fields; the experiment's title becomes the
figure's title.  The tables they take have the ``benchmark`` and
``variant`` columns of potm.experiments.tables.

* ``NormalizedBars(baseline="tl2")``: value of each variant normalized to
  the baseline variant, one group of bars per benchmark;
* ``Bars(value="wait_percent")``: the value itself, one group of bars per
  benchmark;
* ``Speedup(baseline="tl2")``: speedup over the baseline variant at its
  smallest thread count, one panel per benchmark;
* ``Curves(x="accesses")``: value against a parameter, one panel per benchmark;
* ``LatencyTable(values=(...), labels=(...))``: a table figure;
* ``Timeline()``: a rate per interval against time (doppel's timeline),
  one line per variant;

and three that combine others:

* ``Derived(columns, render)``: add computed columns (potm.experiments.
  tables.Column: throughput per thread, microseconds...) and render;
* ``Combined(main, extra)``: the main renderer's output plus the figures
  and summaries of others (``<id>-<name>.png``).

Each renderer's key numbers (the line ``potm reproduce`` prints) start
with the experiment's own ``KeyNumber``s, when it gives some: the median
of a value at one point, or the ratio of two points' medians
("doppel/occ at 100% hot 5.8x").

Example:
    >>> from potm.plot.stats import synthetic_table
    >>> from potm.experiments.model import Experiment, Grid
    >>> t = synthetic_table({"benchmark": ["intset-rb"], "variant": ["seq", "tl2"]},
    ...                     lambda p: {"seq": 100.0, "tl2": 50.0}[p["variant"]])
    >>> exp = Experiment("demo", "Demo", "nothing", Grid((), ()), Grid((), ()),
    ...                  NormalizedBars(baseline="seq"))
    >>> out = exp.render(t, exp)
    >>> out.key_numbers
    'throughput of seq: tl2 0.50x'
    >>> sorted(out.figures)
    ['']
    >>> key_text(t, [KeyNumber("tl2/seq", {"variant": "tl2"}, over={"variant": "seq"}),
    ...              KeyNumber("seq", {"variant": "seq"})])
    'tl2/seq 0.50x, seq 100'
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import numpy as np

from potm.experiments.model import Rendered
from potm.experiments.tables import Column, with_columns
from potm.plot import bar_ratios, grouped_bars, latency_table, latency_text, normalized_bars
from potm.plot import param_curves
from potm.plot import point_stats, speedup_lines, speedups, time_series, timeline_lines
from potm.plot.stats import unique
from potm.plot.tables import format_cell, format_number, format_rows
from potm.plot.timeline import INTERVAL_COLUMN, TIMELINE_COLUMN
from potm.table import SweepTable

if TYPE_CHECKING:
    from potm.experiments.model import Experiment, Renderer


def usable_cores() -> int:
    """The CPUs this process may run on (the machine is shared: 2 cores)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of the finite positive values (NaN if none)."""
    good = [v for v in values if v > 0 and math.isfinite(v)]
    if not good:
        return math.nan
    return math.exp(sum(math.log(v) for v in good) / len(good))


def ratio(value: float) -> str:
    """A ratio for the key numbers: two decimals and 'x'."""
    return "nan" if math.isnan(value) else f"{value:.2f}x"


@dataclass(frozen=True)
class KeyNumber:
    """One number of the key-numbers line: the median of value at the point
    where selects (column -> value), or, with over, its ratio to the median
    at that other point.  Each must select the rows of exactly one point."""

    label: str
    where: Mapping[str, Any]
    over: Optional[Mapping[str, Any]] = None
    value: str = "throughput"


def point_median(table: SweepTable, value: str, where: Mapping[str, Any]) -> float:
    """The median of value over the ok runs of the one point where selects
    (NaN if it selects no row; ValueError if it selects several points)."""
    part = table.filter(**where)
    if len(part) == 0:
        return math.nan
    try:
        [stats] = point_stats(part, value, []).values()
    except ValueError as exc:
        raise ValueError(f"key number at {dict(where)} selects more than one point: "
                         f"{exc}") from None
    return stats.median


def key_text(table: SweepTable, keys: Sequence[KeyNumber]) -> str:
    """The key numbers, comma-separated ("label 1.23x" or "label 4.5e+06")."""
    parts = []
    for k in keys:
        number = point_median(table, k.value, k.where)
        if k.over is None:
            parts.append(f"{k.label} {format_number(number)}")
        else:
            base = point_median(table, k.value, k.over)
            parts.append(f"{k.label} {ratio(number / base if base > 0 else math.nan)}")
    return ", ".join(parts)


def _with_keys(table: SweepTable, keys: Sequence[KeyNumber], line: str) -> str:
    """The renderer's own key line, after the experiment's key numbers."""
    return f"{key_text(table, keys)}; {line}" if keys else line


@dataclass(frozen=True)
class NormalizedBars:
    """Bars of value / value of the baseline variant, per benchmark
    (ylabel: instead of "<value> relative to <baseline>")."""

    baseline: str
    value: str = "throughput"
    group: str = "benchmark"
    series: str = "variant"
    ylabel: str = ""
    keys: tuple[KeyNumber, ...] = ()

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        fig = normalized_bars(table, self.value, group=self.group, series=self.series,
                              baseline=self.baseline, title=exp.title,
                              ylabel=self.ylabel or f"{self.value} relative to "
                                                    f"{self.baseline}")
        ratios = bar_ratios(table, self.value, group=self.group, series=self.series,
                            baseline=self.baseline)
        raw = point_stats(table, self.value, [self.group, self.series])
        rows = [[str(g), str(s), str(raw[(g, s)].runs), format_cell(raw[(g, s)]),
                 format_cell(r)] for (g, s), r in ratios.items()]
        summary = format_rows([self.group, self.series, "runs", self.value,
                               f"/ {self.baseline}"], rows, left=2)
        groups = unique(table, self.group)
        parts = []
        for name in dict.fromkeys(s for _, s in ratios):
            if name == self.baseline:
                continue
            mean = geomean([ratios[(g, name)].median for g in groups if (g, name) in ratios])
            parts.append(f"{name} {ratio(mean)}")
        where = f" (geomean of {len(groups)} {self.group}s)" if len(groups) > 1 else ""
        key = f"{self.value} of {self.baseline}{where}: " + ", ".join(parts)
        return Rendered({"": fig}, summary, _with_keys(table, self.keys, key))


@dataclass(frozen=True)
class Bars:
    """Bars of the value itself (median, min..max), one group per
    benchmark; the key numbers give each variant's median over the
    benchmarks (ylabel: instead of the column name)."""

    value: str
    group: str = "benchmark"
    series: str = "variant"
    ylabel: str = ""
    keys: tuple[KeyNumber, ...] = ()

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        label = self.ylabel or self.value
        fig = grouped_bars(table, self.value, group=self.group, series=self.series,
                           title=exp.title, ylabel=label)
        stats = point_stats(table, self.value, [self.group, self.series])
        rows = [[str(g), str(s), str(st.runs), format_cell(st)] for (g, s), st in stats.items()]
        summary = format_rows([self.group, self.series, "runs", self.value], rows, left=2)
        parts = []
        for name in dict.fromkeys(s for _, s in stats):
            medians = [st.median for (_, s), st in stats.items() if s == name]
            parts.append(f"{name} {format_number(float(np.nanmedian(medians)))}")
        key = f"{label}, median over {self.group}s: " + ", ".join(parts)
        return Rendered({"": fig}, summary, _with_keys(table, self.keys, key))


@dataclass(frozen=True)
class Speedup:
    """Speedup over the baseline variant at its smallest thread count
    (xlabel, ylabel: instead of the column name and "speedup over ...")."""

    baseline: str
    value: str = "throughput"
    x: str = "threads"
    series: str = "variant"
    panel: Optional[str] = "benchmark"
    xlabel: str = ""
    ylabel: str = ""

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        first = min(unique(table, self.x))
        base = {self.series: self.baseline, self.x: first}
        cores = usable_cores()
        fig = speedup_lines(table, self.value, x=self.x, series=self.series, baseline=base,
                            panel=self.panel, title=exp.title, cores=cores,
                            xlabel=self.xlabel or None,
                            ylabel=self.ylabel or f"speedup over {self.baseline}, "
                                                  f"{self.x}={first}")
        data = speedups(table, self.value, x=self.x, series=self.series, baseline=base,
                        panel=self.panel)
        rows = [[str(p), str(s), str(xv), str(st.runs), format_cell(st)]
                for (p, s, xv), st in data.items()]
        summary = format_rows([self.panel or "", self.series, self.x, "runs", "speedup"], rows,
                              left=2)
        xs = sorted({xv for _, _, xv in data})
        within = [xv for xv in xs if xv <= cores] or xs
        at = within[-1]
        parts = []
        for p in dict.fromkeys(p for p, _, _ in data):
            cells = [f"{s} {ratio(st.median)}" for (pp, s, xv), st in data.items()
                     if pp == p and xv == at]
            parts.append((f"{p}: " if p else "") + ", ".join(cells))
        key = f"speedup at {self.x}={at}: " + "; ".join(parts)
        return Rendered({"": fig}, summary, key)


@dataclass(frozen=True)
class Curves:
    """Value against the parameter x, one line per variant (title, xlabel,
    ylabel: instead of the experiment's title and the column names)."""

    x: str
    value: str = "throughput"
    series: str = "variant"
    panel: Optional[str] = "benchmark"
    logx: bool = False
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    keys: tuple[KeyNumber, ...] = ()

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        fig = param_curves(table, self.x, self.value, series=self.series, panel=self.panel,
                           title=self.title or exp.title, logx=self.logx,
                           xlabel=self.xlabel or None, ylabel=self.ylabel or None)
        by = [self.x, self.series] + ([self.panel] if self.panel else [])
        stats = point_stats(table, self.value, by)
        header = [*([self.panel] if self.panel else []), self.series, self.x, "runs",
                  self.value]
        rows = [[*([str(k[2])] if self.panel else []), str(k[1]), str(k[0]), str(st.runs),
                 format_cell(st)] for k, st in stats.items()]
        last = max(unique(table, self.x), key=_as_number)
        parts = [f"{k[1]}" + (f" ({k[2]})" if self.panel else "") +
                 f" {format_number(st.median)}" for k, st in stats.items() if k[0] == last]
        key = f"{self.value} at {self.x}={last}: " + ", ".join(parts)
        return Rendered({"": fig}, format_rows(header, rows, left=len(header) - 3),
                        _with_keys(table, self.keys, key))


def _as_number(value: Any) -> float:
    """A parameter value as a number for ordering (text that is not a
    number sorts first)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return -math.inf


@dataclass(frozen=True)
class LatencyTable:
    """A table figure of measures (latencies) per benchmark and variant.

    The key line gives the first measure's median per row, leaving out the
    rows where it is 0: a benchmark that runs no such transaction.

    Example:
        >>> from potm.plot.stats import synthetic_table
        >>> from potm.experiments.model import Experiment, Grid
        >>> t = synthetic_table({"benchmark": ["new-order", "payment"], "variant": ["occ"]},
        ...                     lambda p: 8.0 if p["benchmark"] == "new-order" else 0.0)
        >>> exp = Experiment("demo", "Demo", "nothing", Grid((), ()), Grid((), ()),
        ...                  LatencyTable(values=("throughput",), labels=("p50 (us)",)))
        >>> exp.render(t, exp).key_numbers
        'p50 (us): new-order/occ 8'
    """

    values: tuple[str, ...]
    labels: tuple[str, ...]
    rows: tuple[str, ...] = ("benchmark", "variant")
    keys: tuple[KeyNumber, ...] = ()

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        fig = latency_table(table, self.values, self.rows, title=exp.title,
                            column_labels=self.labels)
        summary = latency_text(table, self.values, self.rows)
        stats = point_stats(table, self.values[0], list(self.rows))
        parts = [f"{'/'.join(str(k) for k in key)} {format_number(st.median)}"
                 for key, st in stats.items() if st.median != 0]
        key = f"{self.labels[0]}: " + ", ".join(parts)
        return Rendered({"": fig}, summary, _with_keys(table, self.keys, key))


@dataclass(frozen=True)
class Timeline:
    """A rate per interval against time (potm.plot.timeline), one line per
    variant and one panel per benchmark; period: a key column in ms (the
    hot key's change) marked by dotted lines.  The summary has the median
    rate of each interval; the key numbers each variant's median and
    lowest interval."""

    column: str = TIMELINE_COLUMN
    interval: str = INTERVAL_COLUMN
    series: str = "variant"
    panel: Optional[str] = "benchmark"
    period: Optional[str] = None
    ylabel: str = "throughput (tx/s)"
    keys: tuple[KeyNumber, ...] = ()

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        fig = timeline_lines(table, self.column, interval=self.interval, series=self.series,
                             panel=self.panel, period=self.period, title=exp.title,
                             ylabel=self.ylabel)
        data = time_series(table, self.column, interval=self.interval, series=self.series,
                           panel=self.panel)
        names = list(dict.fromkeys(s for _, s in data))
        rows = []
        for p in dict.fromkeys(p for p, _ in data):
            longest = max((data[(p, s)] for s in names if (p, s) in data),
                          key=lambda ts: len(ts.times))
            for i, moment in enumerate(longest.times):
                cells = [format_number(data[(p, s)].median[i])
                         if (p, s) in data and i < len(data[(p, s)].times) else ""
                         for s in names]
                rows.append([*([str(p)] if self.panel else []), f"{moment:g}", *cells])
        header = [*([self.panel] if self.panel else []), "time (s)", *map(str, names)]
        summary = format_rows(header, rows, left=1 if self.panel else 0)
        parts = [f"{s}" + (f" ({p})" if self.panel else "") +
                 f" median {format_number(float(np.median(ts.median)))}"
                 f" lowest {format_number(min(ts.median))}"
                 for (p, s), ts in data.items()]
        key = f"{self.ylabel} per interval: " + ", ".join(parts)
        return Rendered({"": fig}, summary, _with_keys(table, self.keys, key))


@dataclass(frozen=True)
class Derived:
    """Add computed columns to the table, then hand it to render."""

    columns: tuple[Column, ...]
    render: Renderer

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        return self.render(with_columns(table, self.columns), exp)


@dataclass(frozen=True)
class Combined:
    """The main renderer's figures, summary and key numbers, plus the
    figures (named by extra's keys) and summaries of the extra renderers."""

    main: Renderer
    extra: Mapping[str, Renderer] = field(default_factory=dict)

    def __call__(self, table: SweepTable, exp: Experiment) -> Rendered:
        out = self.main(table, exp)
        for name, render in self.extra.items():
            more = render(table, exp)
            for suffix, fig in more.figures.items():
                out.figures[f"{name}-{suffix}" if suffix else name] = fig
            out.summary += f"\n\n{name}:\n{more.summary}"
        return out
