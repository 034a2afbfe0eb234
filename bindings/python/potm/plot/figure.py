"""Figures without pyplot: creation, colours, saving as PNG + SVG.

The figures are ``matplotlib.figure.Figure`` objects (of the subclass
``InlineFigure``), not pyplot ones: nothing opens a window, nothing needs a
display, no global figure list grows in a long sweep session; PNG is drawn
by Agg and SVG by the SVG backend.  In a notebook, a returned figure shows
as the cell's value (or with ``display(fig)``) without ``%matplotlib
inline``: it has ``_repr_png_`` (or ``_repr_svg_``, see
InlineFigure.inline_format), which Jupyter asks for.

Panel titles read as text: ``panel_title("benchmark", "fasttx-r")`` is
"fasttx, r", ``panel_title("threads", 4)`` is "threads 4".

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

import io
import os
import textwrap
from pathlib import Path
from typing import Any, Optional, Union

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


#: Pixels per inch of a figure shown in a notebook (CSS pixels), so that a
#: figure keeps its size in inches whatever the PNG's resolution.
INLINE_PIXELS_PER_INCH = 96

def _render_settings() -> Any:
    """The settings every image of a figure is drawn with: text stays text
    in SVG, and the SVG's ids are fixed (an unchanged figure is an
    unchanged file)."""
    return matplotlib.rc_context({"svg.hashsalt": "potm", "svg.fonttype": "none"})


class InlineFigure(Figure):
    """A Figure that a notebook shows as an image without ``%matplotlib
    inline``: IPython displays an object through its ``_repr_png_`` /
    ``_repr_svg_`` methods.  inline_format ("png" or "svg", on the class
    or on one figure) chooses which of the two answers; the other says
    None, so a notebook stores one image per figure."""

    inline_format: str = "png"

    def render(self, fmt: str) -> bytes:
        """The figure as a PNG or SVG file's bytes (as save_figure writes it)."""
        buffer = io.BytesIO()
        with _render_settings():
            if fmt == "png":
                self.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": None})
            else:
                self.savefig(buffer, format=fmt, metadata={"Date": None})
        return buffer.getvalue()

    def _repr_png_(self) -> Optional[tuple[bytes, dict[str, int]]]:
        """The PNG, with its display size in pixels (IPython's metadata)."""
        if self.inline_format != "png":
            return None
        width, height = self.get_size_inches()
        return self.render("png"), {"width": int(round(width * INLINE_PIXELS_PER_INCH)),
                                    "height": int(round(height * INLINE_PIXELS_PER_INCH))}

    def _repr_svg_(self) -> Optional[str]:
        """The SVG, if inline_format is "svg"."""
        if self.inline_format != "svg":
            return None
        return self.render("svg").decode("utf-8")


#: Key columns whose values name what a panel shows (a benchmark, a
#: workload): their panels are titled by the value alone.
NAME_COLUMNS = ("benchmark", "workload", "case", "app")


def panel_title(column: str, value: object) -> str:
    """The title of the panel where column has value, as text: a name's
    dash-separated parts separated by commas, another column's value after
    the column's name.

    >>> panel_title("benchmark", "fasttx-r"), panel_title("benchmark", "bank")
    ('fasttx, r', 'bank')
    >>> panel_title("threads", 4), panel_title("structure", "rb")
    ('threads 4', 'structure rb')
    """
    text = str(value)
    if column in NAME_COLUMNS:
        return ", ".join(part for part in text.split("-") if part) or text
    return f"{column.replace('_', ' ')} {text}"


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
    fig = InlineFigure(figsize=(width, PANEL_SIZE[1] * rows + 0.6), layout="constrained")
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
    with _render_settings():
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
