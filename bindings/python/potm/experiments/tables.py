"""One table per experiment, from the tables of its sweeps.

Each sweep of an experiment (a case on a variant) gives a SweepTable;
``labelled`` adds the key columns ``benchmark`` (the case) and ``variant``
after ``workload``, and ``merge`` stacks the tables although their columns
differ: backends report different abort causes, intset and bank have
different parameters.  In the merged table

* a measure missing from a table is NaN in its rows;
* a key column missing from a table becomes a text column, empty in its
  rows (bank rows have structure "");
* the other columns keep their type (text widened as needed).

``with_columns`` adds computed columns (``Column``): a measure divided by
a number or by another column (throughput per thread, nanoseconds as
microseconds), or a key column scaled for a figure's axis (alpha from
the benchmark's alpha x 100).

Example:
    >>> from potm.plot.stats import synthetic_table
    >>> a = labelled(synthetic_table({"structure": ["rb"]}, lambda p: 1.0, repeat=1),
    ...              benchmark="intset-rb", variant="tl2")
    >>> b = labelled(synthetic_table({"accounts": [64]}, lambda p: 2.0, repeat=1,
    ...                              workload="bank"), benchmark="bank", variant="tl2")
    >>> m = merge([a, b])
    >>> m.keys
    ('workload', 'benchmark', 'variant', 'structure', 'accounts')
    >>> [row["accounts"] for row in m]
    ['', '64']
    >>> w = with_columns(a, [Column("per_ms", "throughput", 1000.0)])
    >>> float(w["per_ms"][0])
    0.001
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np

from potm.table import STATUS_COLUMNS, SweepTable

#: The key columns an experiment adds to its sweeps' tables.
LABEL_COLUMNS = ("benchmark", "variant")


def _text_dtype(width: int) -> np.dtype:
    return np.dtype(f"U{max(width, 1)}")


def labelled(table: SweepTable, *, benchmark: str, variant: str) -> SweepTable:
    """The table with key columns benchmark and variant (constant) after
    workload."""
    old = table.array
    names = list(table.columns)
    at = names.index("workload") + 1 if "workload" in names else 0
    dtype = [(n, old.dtype[n]) for n in names[:at]]
    dtype += [("benchmark", _text_dtype(len(benchmark))), ("variant", _text_dtype(len(variant)))]
    dtype += [(n, old.dtype[n]) for n in names[at:]]
    new = np.zeros(len(old), dtype=dtype)
    for n in names:
        new[n] = old[n]
    new["benchmark"] = benchmark
    new["variant"] = variant
    keys = list(table.keys)
    key_at = keys.index("workload") + 1 if "workload" in keys else 0
    keys[key_at:key_at] = list(LABEL_COLUMNS)
    return SweepTable(new, keys, table.results)


def _union(lists: Sequence[Sequence[str]]) -> list[str]:
    return list(dict.fromkeys(name for names in lists for name in names))


def _column_dtype(tables: Sequence[SweepTable], name: str, is_key: bool) -> np.dtype:
    """The merged dtype of one column (see the module docstring)."""
    present = [t.array.dtype[name] for t in tables if name in t.columns]
    if len(present) < len(tables) and is_key:
        width = max(len(str(v)) for t in tables if name in t.columns for v in t.array[name])
        return _text_dtype(width)
    if all(d.kind == "U" for d in present):
        return _text_dtype(max(d.itemsize // 4 for d in present))
    if any(d.kind == "U" for d in present):
        width = max(len(str(v)) for t in tables if name in t.columns for v in t.array[name])
        return _text_dtype(width)
    return np.result_type(*present)


def _missing(dtype: np.dtype) -> Any:
    """The value of a column in rows of a table that lacks it."""
    if dtype.kind == "U":
        return ""
    if dtype.kind == "f":
        return np.nan
    return 0


def merge(tables: Sequence[SweepTable]) -> SweepTable:
    """The rows of every table, in order, under the union of their columns."""
    if not tables:
        raise ValueError("merge: no tables")
    keys = _union([t.keys for t in tables])
    measures = _union([t.measures for t in tables])
    others = [c for c in _union([t.columns for t in tables])
              if c not in keys and c not in measures]
    status = [c for c in STATUS_COLUMNS if c in others] + \
        [c for c in others if c not in STATUS_COLUMNS]
    order = [*keys, *status, *measures]
    dtype = []
    for name in order:
        if name in measures:  # a counter stays int64 where every table has it
            found = [t.array.dtype[name] for t in tables if name in t.columns]
            dtype.append((name, np.result_type(*found) if len(found) == len(tables)
                          else np.dtype("f8")))
        else:
            dtype.append((name, _column_dtype(tables, name, is_key=name in keys)))
    out = np.zeros(sum(len(t) for t in tables), dtype=dtype)
    start = 0
    for t in tables:
        rows = slice(start, start + len(t))
        for name, dt in dtype:
            if name in t.columns:
                column = t.array[name]
                out[name][rows] = column.astype(str) if dt.kind == "U" else column
            else:
                out[name][rows] = _missing(dt)
        start += len(t)
    results = None
    if all(t.results is not None for t in tables):
        results = [r for t in tables for r in (t.results or [])]
    return SweepTable(out, keys, results)


@dataclass(frozen=True)
class Column:
    """A computed column: source / divide_by, where divide_by is a number or
    the name of a column (row by row).  key: a key column (an axis of a
    figure, such as alpha), else a measure."""

    name: str
    source: str
    divide_by: Union[float, str] = 1.0
    key: bool = False


def with_columns(table: SweepTable, columns: Sequence[Column]) -> SweepTable:
    """The table with the computed columns after its own (float64), in
    order: a column may divide columns computed before it.  ValueError
    naming a column that is missing or already there."""
    old = table.array
    have = list(table.columns)
    for c in columns:
        if c.name in have:
            raise ValueError(f"column {c.name!r} is already in the table")
        for needed in (c.source, *([c.divide_by] if isinstance(c.divide_by, str) else [])):
            if needed not in have:
                raise ValueError(f"column {c.name!r}: no column {needed!r} in the table; "
                                 f"columns: {', '.join(have)}")
        have.append(c.name)   # a later column may use it
    dtype = [(n, old.dtype[n]) for n in table.columns] + [(c.name, "f8") for c in columns]
    new = np.zeros(len(old), dtype=dtype)
    for n in table.columns:
        new[n] = old[n]
    for c in columns:
        divisor = new[c.divide_by].astype(float) if isinstance(c.divide_by, str) \
            else float(c.divide_by)
        new[c.name] = new[c.source].astype(float) / divisor
    keys = [*table.keys, *(c.name for c in columns if c.key)]
    return SweepTable(new, keys, table.results)
