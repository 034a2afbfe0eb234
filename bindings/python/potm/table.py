"""SweepTable: the results of a sweep as a numpy structured array.

One row per run.  The *key* columns identify the point (workload, backend,
threads and every swept parameter, under its own name or, where a
measure has that name, ``<name>_param``: ``ops_param`` for ``ops=``,
the ``-n`` operations per thread); then ``repeat``, ``ok``, ``failure``,
``verified``; then the measures: ``throughput`` (operations per second),
``elapsed`` (s) and ``wall_time`` (s, the worker's whole life) as float64,
NaN for a run that reported nothing; the counters as int64 (0 for a run
that reported nothing: ``ok`` tells): ``ops``, every counter of the
benchmark's "stats" object (``commits``, ``aborts``, ...) and
``abort_<cause>`` for each abort cause; and ``count_<name>`` for each
number of the benchmark's "counts" object (``count_read_mean_ns``; the
prefix keeps doppel's counts.reads apart from stats.reads), int64 when it
is an integer in every run, else float64.  A count that is a list (doppel's
timeline) is a text column after the status columns, its numbers
separated by spaces ("" where a run has none); ``parse_series`` reads
one back.  A count that is null in every run is left out.

In a notebook a table shows as an HTML table (its first rows), and
``to_pandas()`` gives a pandas DataFrame (pandas installed separately).

Example:
    >>> t = potm.sweep("intset", backends=["gl", "tl2"], threads=[1, 2],
    ...                structure="rb", update=[0, 20], duration=100)  # doctest: +SKIP
    >>> med = t.median()                     # one row per point       # doctest: +SKIP
    >>> med.filter(backend="tl2", update=20)["throughput"]             # doctest: +SKIP
    array([1812345.,  3301234.])
    >>> t.to_csv("intset.csv")                                         # doctest: +SKIP
    >>> parse_series("120 80 0"), parse_series("")
    ([120.0, 80.0, 0.0], [])
"""

from __future__ import annotations

import csv
import html
import importlib
import math
import os
from typing import Any, Collection, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from potm.result import RunResult

#: Columns between the keys and the measures.
STATUS_COLUMNS = ("repeat", "ok", "failure", "verified")
#: Measures every table has, before the benchmark's counters.
BASE_MEASURES = ("throughput", "elapsed", "wall_time", "ops", "commits", "aborts")

#: The measures that are not counters (float64).
FLOAT_MEASURES = ("throughput", "elapsed", "wall_time")
#: Columns of a median table that count repeats, not a measure.
REPEAT_COUNTS = ("runs", "failures")
ABORT_PREFIX = "abort_"
COUNT_PREFIX = "count_"
#: Rows a table shows in a notebook (the first ones).
HTML_ROWS = 40

PathLike = Union[str, "os.PathLike[str]"]


def _str_dtype(values: Iterable[str]) -> str:
    """A numpy unicode dtype wide enough for values (at least 1)."""
    return f"U{max([1, *(len(v) for v in values)])}"


def _key_dtype(values: Sequence[Any]) -> str:
    """int64 for integer keys, unicode for anything else."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return "i8"
    return _str_dtype([str(v) for v in values])


def param_column(name: str, taken: Collection[str]) -> str:
    """The key column of a swept parameter: its name, or ``<name>_param``
    when another column of the table has that name (the ``ops``
    parameter, ``-n``, beside the ``ops`` measure, the operations a run
    did).

    >>> param_column("structure", BASE_MEASURES), param_column("ops", BASE_MEASURES)
    ('structure', 'ops_param')
    """
    return name + "_param" if name in taken else name


class SweepTable:
    """Rows of a sweep, as a numpy structured array (``.array``).

    ``keys`` names the columns that identify a point; ``results`` keeps the
    full RunResult of each row when the table comes from a sweep.
    """

    def __init__(self, array: np.ndarray, keys: Sequence[str],
                 results: Optional[list[RunResult]] = None) -> None:
        names = array.dtype.names or ()
        missing = [k for k in keys if k not in names]
        if missing:
            raise ValueError(f"key columns {missing} are not columns of the array")
        self.array = array
        self.keys = tuple(keys)
        self.results = results

    # ------------------------------------------------------------ building
    @staticmethod
    def from_results(rows: Sequence[tuple[int, RunResult]],
                     param_names: Sequence[str]) -> SweepTable:
        """A table of (repeat, result) rows; param_names are the swept
        parameters (key columns after workload, backend, threads)."""
        results = [r for _, r in rows]
        counters: list[str] = []
        causes: list[str] = []
        for r in results:
            counters += [c for c in r.stats if c not in counters and c not in BASE_MEASURES]
            causes += [c for c in r.aborts_by_cause if c not in causes]
        number_counts, series_counts = _count_columns(results)
        # Sorted: the columns must not depend on where the results came from
        # (a fresh run keeps the C library's key order, the cache does not).
        counters.sort()
        causes.sort()
        measures = [*BASE_MEASURES, *counters, *(ABORT_PREFIX + c for c in causes),
                    *(COUNT_PREFIX + c for c in number_counts)]
        series = [COUNT_PREFIX + c for c in series_counts]
        taken = {*measures, *series, *STATUS_COLUMNS}
        columns = {param_column(n, taken): n for n in param_names}
        keys = ("workload", "backend", "threads", *columns)

        def key_value(r: RunResult, name: str) -> Any:
            if name in ("workload", "backend", "threads"):
                return getattr(r, name)
            return r.params.get(columns[name], "")

        dtype: list[tuple[str, str]] = []
        for name in keys:
            dtype.append((name, _key_dtype([key_value(r, name) for r in results])))
        dtype += [("repeat", "i8"), ("ok", "?"),
                  ("failure", _str_dtype(r.failure for r in results)), ("verified", "?")]
        dtype += [(c, _str_dtype(_series_text(r, c) for r in results)) for c in series]
        integral = set(_integer_counts(results, number_counts))
        dtype += [(m, "f8" if m in FLOAT_MEASURES or
                   (m.startswith(COUNT_PREFIX) and m[len(COUNT_PREFIX):] not in integral)
                   else "i8") for m in measures]

        array = np.zeros(len(rows), dtype=dtype)
        for i, (repeat, r) in enumerate(rows):
            record: list[Any] = [key_value(r, name) for name in keys]
            record += [repeat, r.ok, r.failure, r.verified]
            record += [_series_text(r, c) for c in series]
            for m in measures:
                record.append(_measure(r, m))
            array[i] = tuple(record)
        return SweepTable(array, keys, results)

    @staticmethod
    def concat(tables: Sequence[SweepTable]) -> SweepTable:
        """The rows of several tables with the same columns, in order.

        Example: a seq baseline at one thread next to a thread sweep of the
        other backends: ``SweepTable.concat([seq_table, tl2_table])``.
        """
        if not tables:
            raise ValueError("concat: no tables")
        first = tables[0]
        for t in tables[1:]:
            if t.columns != first.columns or t.keys != first.keys:
                raise ValueError(f"concat: columns differ: {first.columns} vs {t.columns}")
        dtype = [(name, _widest(*(t.array.dtype[name] for t in tables)))
                 for name in first.columns]
        array = np.concatenate([t.array.astype(dtype) for t in tables])
        results = None
        if all(t.results is not None for t in tables):
            results = [r for t in tables for r in (t.results or [])]
        return SweepTable(array, first.keys, results)

    # ------------------------------------------------------------ access
    @property
    def columns(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(self.array.dtype.names or ())

    @property
    def measures(self) -> tuple[str, ...]:
        """The measure columns: float64 measures and int64 counters."""
        return tuple(c for c in self.columns
                     if c not in self.keys and c not in STATUS_COLUMNS
                     and c not in REPEAT_COUNTS and self.array.dtype[c].kind in "iuf")

    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Each row as a dict of plain Python values."""
        for row in self.array:
            yield {name: row[name].item() for name in self.columns}

    def __getitem__(self, column: str) -> np.ndarray:
        """One column as a numpy array."""
        self._check_column(column)
        return self.array[column]

    def __repr__(self) -> str:
        return f"<SweepTable {len(self)} rows; keys {', '.join(self.keys)}>"

    def _repr_html_(self) -> str:
        """The table as HTML (Jupyter shows it): its first HTML_ROWS rows,
        numbers as to_text writes them, and a caption with its size."""
        shown = min(len(self), HTML_ROWS)
        caption = f"SweepTable: {len(self)} rows x {len(self.columns)} columns"
        if shown < len(self):
            caption += f" (the first {shown} shown)"
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = []
        for i in range(shown):
            row = self.array[i]
            cells = "".join(
                f"<td>{html.escape(_format(row[c].item()))}</td>" for c in self.columns)
            body.append(f"<tr>{cells}</tr>")
        return (f'<table class="potm-sweep"><caption>{html.escape(caption)}</caption>'
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame, column for column (counters
        stay int64).  ImportError saying so if pandas is not installed."""
        try:
            pandas = importlib.import_module("pandas")
        except ImportError:
            raise ImportError("SweepTable.to_pandas needs pandas: pip install pandas") \
                from None
        return pandas.DataFrame({c: self.array[c] for c in self.columns})

    def _check_column(self, column: str) -> None:
        if column not in self.columns:
            raise KeyError(f"no column {column!r}; columns: {', '.join(self.columns)}")

    # ------------------------------------------------------------ operations
    def filter(self, **conditions: Any) -> SweepTable:
        """The rows where every column equals its value (or is one of a list,
        tuple or set of values).

        Example: ``t.filter(backend=["gl", "tl2"], threads=2, ok=True)``.
        """
        mask = np.ones(len(self.array), dtype=bool)
        for column, wanted in conditions.items():
            if column not in self.columns:
                raise ValueError(f"filter: no column {column!r}; "
                                 f"columns: {', '.join(self.columns)}")
            values = self.array[column]
            if isinstance(wanted, (list, tuple, set, frozenset)):
                mask &= np.isin(values, list(wanted))
            else:
                mask &= values == wanted
        results = None
        if self.results is not None:
            results = [r for r, keep in zip(self.results, mask) if keep]
        return SweepTable(self.array[mask], self.keys, results)

    def median(self) -> SweepTable:
        """One row per point: the median of each measure over the point's
        ok repeats (NaN if none), with ``runs`` (ok repeats) and
        ``failures`` (failed repeats).  A counter's median is the lower
        median, a count one of the repeats reported (0 if none)."""
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, row in enumerate(self.array):
            groups.setdefault(tuple(row[k].item() for k in self.keys), []).append(i)
        measures = self.measures
        dtype = [(k, self.array.dtype[k]) for k in self.keys]
        dtype += [("runs", np.dtype("i8")), ("failures", np.dtype("i8"))]
        dtype += [(m, self.array.dtype[m]) for m in measures]
        out = np.zeros(len(groups), dtype=dtype)
        ok_column = self.array["ok"] if "ok" in self.columns else np.ones(len(self), bool)
        for g, (key, rows) in enumerate(groups.items()):
            idx = np.asarray(rows)
            good = idx[ok_column[idx]]
            record: list[Any] = [*key, len(good), len(idx) - len(good)]
            for m in measures:
                values = self.array[m][good]
                if values.dtype.kind == "f":
                    record.append(float(np.median(values)) if len(good) else math.nan)
                else:
                    record.append(int(np.sort(values)[(len(values) - 1) // 2])
                                  if len(good) else 0)
            out[g] = tuple(record)
        return SweepTable(out, self.keys)

    def to_csv(self, path: PathLike) -> None:
        """Write the table as CSV with a header; NaN becomes an empty field."""
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(self.columns)
            for row in self:
                writer.writerow(["" if isinstance(v, float) and math.isnan(v) else v
                                 for v in row.values()])

    def to_text(self, columns: Optional[Sequence[str]] = None) -> str:
        """The table as aligned text (numbers with 4 significant digits)."""
        names = list(columns or self.columns)
        for c in names:
            self._check_column(c)
        cells = [names] + [[_format(row[c]) for c in names] for row in self]
        widths = [max(len(r[i]) for r in cells) for i in range(len(names))]
        return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(r, widths))
                         for r in cells)


def _measure(r: RunResult, name: str) -> Union[int, float]:
    """The value of a measure column for one result: a float measure or a
    count as it is, NaN for an absent float measure and 0 for an absent
    counter (the column's dtype makes the difference)."""
    if name == "throughput":
        return r.throughput
    if name == "elapsed":
        return r.elapsed
    if name == "wall_time":
        return r.wall_time
    if name.startswith(COUNT_PREFIX):
        value = r.counts.get(name[len(COUNT_PREFIX):])
        if isinstance(value, (int, float)) and not isinstance(value, bool) and \
                r.raw is not None:
            return value
        return math.nan
    if r.raw is None:
        return 0
    if name == "ops":
        return r.ops
    if name.startswith(ABORT_PREFIX) and name[len(ABORT_PREFIX):] in r.aborts_by_cause:
        return r.aborts_by_cause[name[len(ABORT_PREFIX):]]
    if name in r.stats:
        return r.stats[name]
    if name in ("commits", "aborts"):
        return int(getattr(r, name))
    return 0


def _integer_counts(results: Sequence[RunResult], names: Sequence[str]) -> list[str]:
    """The counts among names that are an integer in every result (they
    make int64 columns; the others float64, NaN where a run has none)."""
    return [n for n in names
            if all(isinstance(r.counts.get(n), int) and not isinstance(r.counts.get(n), bool)
                   and r.raw is not None for r in results)]


def _count_columns(results: Sequence[RunResult]) -> tuple[list[str], list[str]]:
    """The counts that become columns, sorted: those that are numbers (or
    null) in every run, and those that are a list in some run.  A count
    that is null everywhere is left out."""
    numbers: set[str] = set()
    lists: set[str] = set()
    for r in results:
        for name, value in r.counts.items():
            if isinstance(value, list):
                lists.add(name)
            elif value is not None:
                numbers.add(name)
    return sorted(numbers - lists), sorted(lists)


def _series_text(r: RunResult, column: str) -> str:
    """A list-valued count of one result as text: numbers separated by
    spaces ("" if the run has none; a plain number stands alone)."""
    value = r.counts.get(column[len(COUNT_PREFIX):])
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def parse_series(text: str) -> list[float]:
    """The numbers of a list-valued count's text cell (see the module
    docstring); [] for an empty cell."""
    return [float(item) for item in text.split()]


def _widest(*dtypes: np.dtype) -> np.dtype:
    """The common dtype of one column across tables."""
    return np.result_type(*dtypes)


def _format(value: Any) -> str:
    """A cell of to_text."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)

