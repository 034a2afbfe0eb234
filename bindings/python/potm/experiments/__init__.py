"""Experiments: the machinery that runs and draws a published figure.

An ``Experiment`` (potm.experiments.model) is a title, the published
result it reproduces, quick and full grids of cases x variants x threads,
the backends it requires and the renderer that draws it
(potm.experiments.render).  This package holds that machinery only; each
experiment is defined in a file of its own, ``experiments/<name>.py`` in
the repository (potm.experiments.registry says where it is read from),
which also runs it as a script.  Run them with ``potm reproduce``
(potm.reproduce); list them with ``potm experiments``.

A new experiment is a new file in experiments/, e.g.

    from potm.experiments import Case, Experiment, Grid, Curves

    EXPERIMENT = Experiment(
        id="bank-contention", title="Bank: throughput by number of accounts",
        reproduces="(our own) contention on the bank",
        quick=Grid(cases=(Case("bank", "bank", {"accounts": [16, 1024]}),),
                   variants=("gl", "tl2", "pot"), threads=(2,), params={"duration": 150}),
        full=Grid(...), render=Curves(x="accounts", ylabel="throughput (tx/s)"),
        requires=("tl2",))

Example:
    >>> list(experiments())[:3]
    ['determinism-cost', 'fig-3.6', 'fig-3.7']
    >>> experiment("fig-3.11").requires
    ('tl2',)
"""

from __future__ import annotations

from typing import Any

from potm.experiments.model import (SCALES, Case, Experiment, Grid, Rendered, Sweep,
                                    stamp_cases)
from potm.experiments.registry import experiment, experiments, select
from potm.experiments.render import (Bars, Combined, Curves, Derived, KeyNumber,
                                     LatencyTable, NormalizedBars, Speedup, Timeline)
from potm.experiments.tables import Column
from potm.experiments.variants import POT_MODES, PotModes, Variant, variant


def __getattr__(name: str) -> Any:
    """EXPERIMENTS: every experiment by id (potm.experiments.registry),
    read on first use, so that importing the machinery reads no file."""
    if name == "EXPERIMENTS":
        return experiments()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Bars", "Case", "Column", "Combined", "Curves", "Derived", "EXPERIMENTS", "Experiment",
    "Grid", "KeyNumber", "LatencyTable", "NormalizedBars", "POT_MODES", "PotModes", "Rendered",
    "SCALES", "Speedup", "Sweep", "Timeline", "Variant", "experiment", "experiments", "select",
    "stamp_cases", "variant",
]
