"""What an experiment is: cases x variants x threads, and how to draw it.

* A ``Case`` is one benchmark configuration: a label (the ``benchmark``
  column, e.g. ``intset-rb``), a workload and its parameters (a value or
  a list of values each).
* A ``Grid`` runs every case on every variant (potm.experiments.variants:
  a name, a Variant, or POT_MODES for every Pot mode) at every thread count, ``repeat`` times; ``params`` go to every case
  (e.g. the duration) unless the case sets them itself.  Single-thread
  backends (seq) run at 1 thread only.
* An ``Experiment`` has an id (``fig-3.11``), a title, the published result
  it reproduces (one line), a quick and a full grid, the backends it cannot
  do without, and a renderer: a function from the experiment's table to
  figures, a summary table and a line of key numbers (``Rendered``).

Example:
    >>> rb = Case("intset-rb", "intset", {"structure": "rb", "update": 20})
    >>> g = Grid(cases=(rb,), variants=("seq", "tl2"), threads=(1, 2), params={"duration": 100})
    >>> [(s.variant.name, s.threads) for s in g.sweeps()]
    [('seq', (1,)), ('tl2', (1, 2))]
    >>> g.sweeps()[1].params
    {'structure': 'rb', 'update': 20, 'duration': 100}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, Optional

from matplotlib.figure import Figure

from potm._lib import PathLike
from potm.experiments.variants import Variant, VariantSpec, expand
from potm.table import SweepTable
from potm.workloads import SINGLE_THREAD_BACKENDS, STAMP_CASES

#: quick: about a minute on 2 cores; full: the real sizes.
Scale = Literal["quick", "full"]
SCALES: tuple[str, ...] = ("quick", "full")


@dataclass(frozen=True)
class Case:
    """A benchmark configuration: label, workload, parameters."""

    name: str
    workload: str
    params: Mapping[str, Any] = field(default_factory=dict)


def stamp_cases(size: str) -> tuple[Case, ...]:
    """Every STAMP case (potm.workloads.STAMP_CASES: kmeans and vacation at
    low and high contention) at the input set size.

    >>> [c.params for c in stamp_cases("paper") if c.name.startswith("kmeans")]
    [{'size': 'paper'}, {'size': 'paper-high'}]
    """
    return tuple(Case(name, app, {"size": size + flavour})
                 for name, app, flavour in STAMP_CASES)


@dataclass(frozen=True)
class Sweep:
    """One potm.sweep call of a grid: a case on a variant."""

    case: Case
    variant: Variant
    threads: tuple[int, ...]
    params: dict[str, Any]


@dataclass(frozen=True)
class Grid:
    """Every case on every variant at every thread count, repeat times."""

    cases: tuple[Case, ...]
    variants: tuple[VariantSpec, ...]
    threads: tuple[int, ...] = (1,)
    repeat: int = 3
    params: Mapping[str, Any] = field(default_factory=dict)

    def resolved_variants(self, lib_dir: Optional[PathLike] = None) -> list[Variant]:
        """The variants, names resolved and POT_MODES expanded
        (potm.experiments.variants.expand) with the Pot modes of the
        library directory lib_dir."""
        return expand(self.variants, lib_dir)

    def workloads(self) -> list[str]:
        """The workloads of the cases, each once."""
        return list(dict.fromkeys(c.workload for c in self.cases))

    def sweeps(self, lib_dir: Optional[PathLike] = None) -> list[Sweep]:
        """The sweeps, case by case, variant by variant (lib_dir: as for
        resolved_variants)."""
        out = []
        variants = self.resolved_variants(lib_dir)
        for case in self.cases:
            for v in variants:
                threads = self.threads
                if v.backend in SINGLE_THREAD_BACKENDS:
                    threads = tuple(t for t in threads if t == 1)
                if not threads:
                    continue
                common = {k: x for k, x in self.params.items() if k not in case.params}
                params = {**case.params, **common, **v.params}
                out.append(Sweep(case, v, threads, params))
        return out


@dataclass
class Rendered:
    """What a renderer makes of an experiment's table.

    figures: file-name suffix -> figure ("" names the main figure
    <id>.png, "x" names <id>-x.png); summary: a text table of the numbers
    behind the figures; key_numbers: one line for the reproduce summary.
    """

    figures: dict[str, Figure]
    summary: str
    key_numbers: str


#: A renderer: (the experiment's table, the experiment) -> Rendered.
Renderer = Callable[[SweepTable, "Experiment"], Rendered]


@dataclass(frozen=True)
class Experiment:
    """A published figure or table, or one of the project's own experiments.

    requires: backends without which it is skipped (the others in its grid
    are dropped when not built).  needs_rtm_cpu: skipped on CPUs without
    Intel RTM.  blocked: a reason it cannot run whatever is built.
    provisional: its grid was written from the published description and
    has never run where it can be measured (its workload did not exist yet,
    or its hardware is not here); check it against the publication when it
    first runs.  notes:
    how our setup differs from the published one.
    """

    id: str
    title: str
    reproduces: str
    quick: Grid
    full: Grid
    render: Renderer
    requires: tuple[str, ...] = ()
    needs_rtm_cpu: bool = False
    blocked: str = ""
    provisional: bool = False
    notes: str = ""

    def grid(self, scale: str) -> Grid:
        """The quick or the full grid; ValueError for another scale."""
        if scale == "quick":
            return self.quick
        if scale == "full":
            return self.full
        raise ValueError(f"scale {scale!r}: expected one of {', '.join(SCALES)}")

    def workloads(self) -> list[str]:
        """The workloads of both grids, each once."""
        return list(dict.fromkeys([*self.quick.workloads(), *self.full.workloads()]))
