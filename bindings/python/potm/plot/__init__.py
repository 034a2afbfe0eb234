"""Figures of sweep results (matplotlib, no display needed).

Every function takes a SweepTable (``potm.sweep``: one row per run), draws
the median of the ok repeats of each point with their min..max as error
bars, returns a ``matplotlib.figure.Figure`` and, given ``save=<path
stem>``, writes ``<stem>.png`` and ``<stem>.svg``:

* ``normalized_bars(table, value, group=, series=, baseline=)``: bars of
  value normalized to a baseline series, e.g. each mode's throughput
  relative to tl2; ``grouped_bars`` draws the values themselves;
* ``speedup_lines(table, value, x="threads", series=, baseline=)``: speedup
  over one baseline point (e.g. 1-thread tl2) against x;
* ``param_curves(table, x, value, series=)``: value against a parameter;
* ``latency_table(table, values, rows=)`` (a figure) and ``latency_text``
  (the same as text);
* ``timeline_lines(table, series=)``: a rate per interval of each run (a
  list-valued count such as doppel's timeline) against time.

Key columns that a figure does not plot must hold one value (filter the
table first); a mistake is a ValueError that says which column.

Example:
    >>> import potm, potm.plot
    >>> t = potm.sweep("intset", backends=["gl", "tl2"], threads=[1, 2],
    ...                structure="rb", update=20, duration=200)       # doctest: +SKIP
    >>> fig = potm.plot.speedup_lines(t, baseline={"backend": "tl2", "threads": 1},
    ...                               save="plots/intset-speedup")     # doctest: +SKIP
"""

from __future__ import annotations

from potm.plot.bars import bar_ratios, grouped_bars, normalized_bars
from potm.plot.figure import InlineFigure, panel_title, save_figure, series_color, series_labels
from potm.plot.lines import param_curves, speedup_lines, speedups
from potm.plot.stats import PointStats, point_stats, synthetic_table
from potm.plot.tables import latency_table, latency_text
from potm.plot.timeline import TimeSeries, time_series, timeline_lines

__all__ = [
    "InlineFigure", "PointStats", "TimeSeries", "bar_ratios", "grouped_bars", "latency_table",
    "latency_text", "normalized_bars", "panel_title", "param_curves", "point_stats", "save_figure",
    "series_color",
    "series_labels", "speedup_lines", "speedups", "synthetic_table", "time_series",
    "timeline_lines",
]
