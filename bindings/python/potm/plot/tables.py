"""Tables of measures: as text, and as a figure (for latency tables).

Each cell is the median over a point's ok repeats, followed by the
min..max of the repeats when there are several: ``12.5 [12.1..13.0]``.
``latency_text`` returns the table as aligned text; ``latency_table`` draws
the same cells as a matplotlib table figure (Doppel's Table 7.3 is such a
table: average and 99th-percentile latencies by system).

Example:
    >>> from potm.plot.stats import synthetic_table
    >>> t = synthetic_table({"backend": ["tl2", "gl"]}, lambda p: 20.0)
    >>> print(latency_text(t, ["throughput"], rows=["backend"]))
    backend   throughput
    tl2      20 [19..21]
    gl       20 [19..21]
    >>> print(format_rows(["a", "bb"], [["1", "2"], ["333", "4"]]))
      a  bb
      1   2
    333   4
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from potm.plot.figure import InlineFigure, PathLike, maybe_save
from potm.plot.stats import PointStats, point_stats
from potm.table import SweepTable

#: Inches per character and per row of a table figure (8-point text).
CHAR_WIDTH = 0.075
ROW_HEIGHT = 0.25


def format_number(value: float) -> str:
    """A measure with 4 significant digits ("nan" for NaN)."""
    return "nan" if math.isnan(value) else f"{value:.4g}"


def format_cell(st: PointStats) -> str:
    """'median [min..max]', or just the median without a spread."""
    if st.runs <= 1 or math.isnan(st.median) or st.low == st.high:
        return format_number(st.median)
    return f"{format_number(st.median)} [{format_number(st.low)}..{format_number(st.high)}]"


def format_rows(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> str:
    """Rows of text cells as columns under the header: the first left
    columns (labels) aligned left, the others (numbers) right."""
    cells = [list(header), *[list(r) for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i < left else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def table_cells(table: SweepTable, values: Sequence[str],
                rows: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """The header and the text cells: one row per combination of the rows
    columns, one column per measure in values."""
    stats = [point_stats(table, v, rows) for v in values]
    keys = list(dict.fromkeys(k for s in stats for k in s))
    body = []
    for key in keys:
        cells = [str(k) for k in key]
        for s in stats:
            cells.append(format_cell(s[key]) if key in s else "")
        body.append(cells)
    return [*rows, *values], body


def latency_text(table: SweepTable, values: Sequence[str],
                 rows: Sequence[str] = ("backend",)) -> str:
    """The measures in values (e.g. latency columns) per row point, as
    aligned text."""
    header, body = table_cells(table, values, rows)
    return format_rows(header, body, left=len(rows))


def latency_table(table: SweepTable, values: Sequence[str],
                  rows: Sequence[str] = ("backend",), *, title: Optional[str] = None,
                  column_labels: Optional[Sequence[str]] = None,
                  save: Optional[PathLike] = None) -> Figure:
    """A Figure showing the table of latency_text (column_labels: headers
    for the values columns, e.g. "read avg (us)").  save: a path stem for
    <stem>.png and <stem>.svg."""
    header, body = table_cells(table, values, rows)
    if column_labels is not None:
        if len(column_labels) != len(values):
            raise ValueError(f"column_labels has {len(column_labels)} labels for "
                             f"{len(values)} values")
        header = [*rows, *column_labels]
    body = body or [[""] * len(header)]
    chars = [max(len(r[i]) for r in [header, *body]) + 2 for i in range(len(header))]
    size = (max(CHAR_WIDTH * sum(chars), 3.0), ROW_HEIGHT * (len(body) + 1) + 0.5)
    fig = InlineFigure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    ax.axis("off")
    shown = ax.table(cellText=body, colLabels=header, cellLoc="right",
                     bbox=Bbox.from_bounds(0, 0, 1, 1),
                     colWidths=[c / sum(chars) for c in chars])
    shown.auto_set_font_size(False)
    shown.set_fontsize(8)
    ax.set_title(title or ", ".join(values), fontsize=10)
    return maybe_save(fig, save)
