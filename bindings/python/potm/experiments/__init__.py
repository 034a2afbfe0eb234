"""The experiment registry: every figure and table potm can reproduce.

``EXPERIMENTS`` maps an id (``overhead``, ``fig-3.11``, ``table-7.3``...)
to an ``Experiment`` (potm.experiments.model): its title, the published
result it reproduces, quick and full grids of cases x variants x threads,
the backends it requires and the renderer that draws it.  Run them with
``potm reproduce`` (potm.reproduce); list them with ``potm experiments``.

Today's workloads support ``overhead``, ``fig-3.11`` and
``determinism-cost`` (intset, bank: potm.experiments.micro), ``fig-3.6``
(fasttx), ``fig-3.7``/``fig-3.8`` (the STAMP applications), ``fig-3.10``
and ``fig-3.12`` (stmbench7) and the Doppel thesis's figures (doppel, rubis:
potm.experiments.doppel); the Pot-on-HTM figures (fig-3.13, fig-3.14) are
registered and skipped, with the reason, where the hardware is missing.

Adding an experiment takes a few lines: define it next to its relatives
and add it to their tuple, e.g.

    MY_EXP = Experiment(
        id="bank-contention", title="Bank: throughput by number of accounts",
        reproduces="(our own) contention on the bank",
        quick=Grid(cases=(Case("bank", "bank", {"accounts": [16, 1024]}),),
                   variants=("gl", "tl2", "pot"), threads=(2,), params={"duration": 150}),
        full=Grid(...), render=Curves(x="accounts"), requires=("tl2",))

Example:
    >>> list(EXPERIMENTS)[:3]
    ['overhead', 'fig-3.11', 'determinism-cost']
    >>> experiment("fig-3.11").requires
    ('tl2',)
    >>> [e.id for e in select(["fig-3.1*"])]
    ['fig-3.11', 'fig-3.10', 'fig-3.12', 'fig-3.13', 'fig-3.14']
"""

from __future__ import annotations

import fnmatch
from typing import Optional, Sequence

from potm.experiments.doppel import DOPPEL_EXPERIMENTS
from potm.experiments.micro import MICRO_EXPERIMENTS
from potm.experiments.model import Case, Experiment, Grid, Rendered, Sweep
from potm.experiments.pot_thesis import POT_THESIS_EXPERIMENTS
from potm.experiments.variants import Variant, variant


def _registry(*groups: Sequence[Experiment]) -> dict[str, Experiment]:
    """The experiments by id, in order; ValueError on a duplicate id."""
    out: dict[str, Experiment] = {}
    for group in groups:
        for exp in group:
            if exp.id in out:
                raise ValueError(f"experiment id {exp.id!r} is defined twice")
            out[exp.id] = exp
    return out


EXPERIMENTS: dict[str, Experiment] = _registry(
    MICRO_EXPERIMENTS, POT_THESIS_EXPERIMENTS, DOPPEL_EXPERIMENTS)


def experiment(experiment_id: str) -> Experiment:
    """The experiment with this id; ValueError listing the ids otherwise."""
    try:
        return EXPERIMENTS[experiment_id]
    except KeyError:
        raise ValueError(f"unknown experiment {experiment_id!r}; known: "
                         f"{', '.join(EXPERIMENTS)}") from None


def select(patterns: Optional[Sequence[str]] = None) -> list[Experiment]:
    """The experiments whose ids match any of the patterns (exact ids or
    shell patterns such as 'fig-3.*'), in registry order; all of them when
    patterns is empty.  ValueError for a pattern that matches none."""
    if not patterns:
        return list(EXPERIMENTS.values())
    chosen: dict[str, Experiment] = {}
    for pattern in patterns:
        matched = [e for i, e in EXPERIMENTS.items() if fnmatch.fnmatchcase(i, pattern)]
        if not matched:
            raise ValueError(f"no experiment matches {pattern!r}; known: "
                             f"{', '.join(EXPERIMENTS)}")
        chosen.update((e.id, e) for e in matched)
    return [e for e in EXPERIMENTS.values() if e.id in chosen]


__all__ = [
    "Case", "EXPERIMENTS", "Experiment", "Grid", "Rendered", "Sweep", "Variant",
    "experiment", "select", "variant",
]
