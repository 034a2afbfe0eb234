"""The numbers behind a figure: one median (and min..max) per point.

A figure draws one mark per *point*, a combination of the columns it plots
(its group, series, x, panel).  ``point_stats`` takes a SweepTable with one
row per run (``potm.sweep``) and reduces the ok repeats of each point to
their median, minimum and maximum: the mark and its error bar.  A table of
medians (``SweepTable.median()``) works too; its points have no spread.

The rows of one point must agree on every other key column: a figure of
throughput by backend must not silently pool two update rates.  Filter
the table first, or plot the column as a group, series or panel.

Example:
    >>> from potm.plot.stats import point_stats, synthetic_table
    >>> t = synthetic_table({"backend": ["gl", "tl2"], "threads": [1, 2]},
    ...                     lambda p: 100.0 * p["threads"], repeat=3)
    >>> s = point_stats(t, "throughput", ["backend", "threads"])
    >>> s[("tl2", 2)].median, s[("tl2", 2)].low, s[("tl2", 2)].runs
    (200.0, 199.0, 3)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from potm.table import SweepTable


@dataclass(frozen=True)
class PointStats:
    """The ok repeats of one point: median, min, max and how many there
    were (NaN and 0 when every repeat failed)."""

    median: float
    low: float
    high: float
    runs: int

    def scaled(self, factor: float) -> PointStats:
        """The same numbers multiplied by factor (e.g. 1 / baseline)."""
        return PointStats(self.median * factor, self.low * factor,
                          self.high * factor, self.runs)


def check_columns(table: SweepTable, columns: Sequence[str]) -> None:
    """ValueError naming the first column the table does not have."""
    for c in columns:
        if c not in table.columns:
            raise ValueError(f"no column {c!r} in the table; columns: "
                             f"{', '.join(table.columns)}")


def check_single_valued(table: SweepTable, plotted: Sequence[str]) -> None:
    """ValueError if the rows of one point (one combination of the plotted
    columns) differ in another key column: the figure would pool them.
    (A column that varies with the plotted ones is fine: the backend of
    each variant, the parameters of each benchmark.)"""
    seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    others = [k for k in table.keys if k not in plotted]
    for row in table.array:
        point = tuple(row[c].item() for c in plotted)
        rest = tuple(row[c].item() for c in others)
        first = seen.setdefault(point, rest)
        if first != rest:
            column, a, b = next((c, x, y) for c, x, y in zip(others, first, rest)
                                if x != y)
            shown = ", ".join(f"{c}={v!r}" for c, v in zip(plotted, point))
            raise ValueError(
                f"the point {shown} mixes rows with {column} = {a!r} and {b!r}: "
                f"filter the table first (table.filter({column}=...)) or plot "
                f"{column!r} as a group, series or panel")


def unique(table: SweepTable, column: str) -> list[Any]:
    """The values of a column in order of first appearance (Python values)."""
    return list(dict.fromkeys(v.item() for v in table.array[column]))


def point_stats(table: SweepTable, value: str,
                by: Sequence[str]) -> dict[tuple[Any, ...], PointStats]:
    """The statistics of value for each point (a tuple of the by columns),
    in order of first appearance.  Failed repeats (ok false) and NaN values
    are left out; a table of medians gives low = high = median."""
    check_columns(table, [value, *by])
    check_single_valued(table, by)
    is_median_table = "runs" in table.columns and "repeat" not in table.columns
    rows: dict[tuple[Any, ...], list[int]] = {}
    for i, row in enumerate(table.array):
        rows.setdefault(tuple(row[c].item() for c in by), []).append(i)
    ok = table.array["ok"] if "ok" in table.columns else np.ones(len(table), dtype=bool)
    if is_median_table:  # a point without ok repeats has no median (0 in a counter)
        ok = ok & (table.array["runs"] > 0)
    out: dict[tuple[Any, ...], PointStats] = {}
    for key, idx in rows.items():
        values = np.asarray(table.array[value][idx], dtype=float)
        values = values[ok[idx] & ~np.isnan(values)]
        if len(values) == 0:
            out[key] = PointStats(math.nan, math.nan, math.nan, 0)
            continue
        runs = int(table.array["runs"][idx].sum()) if is_median_table else len(values)
        out[key] = PointStats(float(np.median(values)), float(values.min()),
                              float(values.max()), runs)
    return out


def synthetic_table(axes: Mapping[str, Sequence[Any]],
                    throughput: Callable[[dict[str, Any]], float],
                    repeat: int = 3, workload: str = "intset") -> SweepTable:
    """A SweepTable for examples and tests, without running anything.

    One row per combination of the axes and repeat; the throughput of
    repeat r is throughput(point) + r - 1 (so the repeats spread by +-1).
    Every axis is a key column; measures: throughput and elapsed.

    Example:
        >>> t = synthetic_table({"backend": ["seq", "tl2"]}, lambda p: 10.0, repeat=2)
        >>> len(t), t.keys
        (4, ('workload', 'backend'))
    """
    names = list(axes)
    dtype: list[tuple[str, Any]] = [("workload", f"U{max(len(workload), 1)}")]
    for name in names:
        values = list(axes[name])
        if all(isinstance(v, int) for v in values):
            dtype.append((name, "i8"))
        else:
            dtype.append((name, f"U{max(len(str(v)) for v in values)}"))
    dtype += [("repeat", "i8"), ("ok", "?"), ("failure", "U1"), ("verified", "?"),
              ("throughput", "f8"), ("elapsed", "f8")]
    records = []
    for combo in itertools.product(*(axes[n] for n in names)):
        point = dict(zip(names, combo))
        for r in range(repeat):
            tp = throughput(point) + r - (1 if repeat > 1 else 0)
            records.append((workload, *combo, r, True, "", True, tp, 1.0))
    return SweepTable(np.array(records, dtype=dtype), ["workload", *names])
