"""Figures without pyplot: creation, colours, saving as PNG + SVG.

The figures are plain ``matplotlib.figure.Figure`` objects, not pyplot
ones: nothing opens a window, nothing needs a display, no global figure
list grows in a long sweep session; PNG is drawn by Agg and SVG by the
SVG backend.  In a notebook, a returned Figure shows as the cell's value
(or with ``display(fig)``).

Every series name has one colour in every figure (tl2 is always the same
blue), so figures side by side read alike.

Example:
    >>> fig, axes = new_figure(2, title="two panels")
    >>> len(axes), fig.get_suptitle()
    (2, 'two panels')
    >>> series_color("tl2") == series_color("tl2")
    True
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Optional, Union

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

PathLike = Union[str, "os.PathLike[str]"]

#: Panels per row before a figure wraps to a new row.
MAX_COLUMNS = 3
#: Size of one panel, inches.
PANEL_SIZE = (4.6, 3.4)
#: PNG resolution.
PNG_DPI = 150

#: Fixed colours of the project's backends, modes and Doppel systems; other series take
#: the colours of FALLBACK_COLORS in order of first use.
SERIES_COLORS: dict[str, str] = {
    "seq": "#000000", "gl": "#7f7f7f", "tl2": "#1f77b4",
    "pot": "#d62728", "pot-fast": "#ff7f0e", "pot-ordered": "#e377c2",
    "pogl": "#8c564b", "destm": "#9467bd",
    "rtm": "#2ca02c", "rtm-fallback": "#2ca02c", "pot-rtm": "#98df8a",
    "rot": "#17becf", "pot-rot": "#9edae5",
    # Doppel's systems: occ is plain tl2, so it takes tl2's colour.
    "doppel": "#e6550d", "occ": "#1f77b4", "atomic": "#7b4173", "split": "#31a354",
}
FALLBACK_COLORS = ("#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#c5b0d5", "#c49c94",
                   "#f7b6d2", "#dbdb8d")
_assigned: dict[str, str] = {}


def series_color(name: str) -> str:
    """The colour of a series (a backend, a mode or anything else)."""
    if name in SERIES_COLORS:
        return SERIES_COLORS[name]
    if name not in _assigned:
        _assigned[name] = FALLBACK_COLORS[len(_assigned) % len(FALLBACK_COLORS)]
    return _assigned[name]


#: Characters of a title per inch of figure width, before it wraps.
TITLE_CHARS_PER_INCH = 9
#: Width of the legend placed right of the panels, inches.
LEGEND_WIDTH = 1.4


def new_figure(panels: int = 1, *, title: str = "",
               panel_width: float = PANEL_SIZE[0]) -> tuple[Figure, list[Axes]]:
    """A figure with panels subplots (wrapping after MAX_COLUMNS per row),
    room on the right for a legend (see place_legend) and the title
    wrapped to the figure's width."""
    panels = max(panels, 1)
    columns = min(panels, MAX_COLUMNS)
    rows = (panels + columns - 1) // columns
    width = panel_width * columns + LEGEND_WIDTH
    fig = Figure(figsize=(width, PANEL_SIZE[1] * rows + 0.6), layout="constrained")
    grid = fig.subplots(rows, columns, squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[panels:]:
        ax.set_visible(False)
    if title:
        fig.suptitle(textwrap.fill(title, int(width * TITLE_CHARS_PER_INCH)), fontsize=11)
    return fig, axes[:panels]


def place_legend(axes: list[Axes], title: str) -> None:
    """The legend of the first panel's series, right of the first row."""
    handles, labels = axes[0].get_legend_handles_labels()
    last_of_row = axes[min(len(axes), MAX_COLUMNS) - 1]
    last_of_row.legend(handles, labels, title=title, fontsize=8, loc="upper left",
                       bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def save_figure(fig: Figure, stem: PathLike) -> list[Path]:
    """Write fig as <stem>.png and <stem>.svg (directories are created);
    returns the two paths.  The SVG keeps its text as text (searchable,
    editable), has no date and fixed ids, so that an unchanged figure is an
    unchanged file."""
    base = Path(stem)
    if base.suffix in (".png", ".svg"):
        base = base.with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    png, svg = base.with_name(base.name + ".png"), base.with_name(base.name + ".svg")
    with matplotlib.rc_context({"svg.hashsalt": "potm", "svg.fonttype": "none"}):
        fig.savefig(png, dpi=PNG_DPI, metadata={"Software": None})
        fig.savefig(svg, metadata={"Date": None})
    return [png, svg]


def maybe_save(fig: Figure, save: Optional[PathLike]) -> Figure:
    """fig, after saving it as PNG + SVG if save (a path stem) is given."""
    if save is not None:
        save_figure(fig, save)
    return fig


def series_labels(fig: Figure) -> list[str]:
    """The legend entries of a figure (of its first legend), in order: the
    series it draws.  Empty if it has no legend."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            return [t.get_text() for t in legend.get_texts()]
    if fig.legends:
        return [t.get_text() for t in fig.legends[0].get_texts()]
    return []
