"""What Figures 3.10 and 3.12 share: STMBench7's cases and the grid of
its three mixes.  The two must stay one definition: Figure 3.12 reuses the
2-thread runs of Figure 3.10.  Not an experiment itself (the registry
skips files named _*).

    >>> mixes(("tl2",), (2,), full=False).params
    {'duration': 300}
"""

from __future__ import annotations

from potm.experiments import Case, Grid
from potm.experiments.variants import VariantSpec


def stmbench7(mix: str) -> Case:
    """STMBench7, small structure, long traversals on, structural
    modifications off (stmbench7/README.md), one operation mix: r
    (read-dominated), rw (read-write), w (write-dominated)."""
    return Case(f"sb7-{mix}", "stmbench7", {"mix": mix, "size": "small",
                                            "traversals": "true", "structural": "false"})


def mixes(variants: tuple[VariantSpec, ...], threads: tuple[int, ...], full: bool) -> Grid:
    """The three mixes, 3 repeats: full, runs of 10 s (stmbench7/README.md's);
    quick, 0.3 s (a few hundred operations)."""
    return Grid(cases=(stmbench7("r"), stmbench7("rw"), stmbench7("w")), variants=variants,
                threads=threads, repeat=3, params={"duration": 10000 if full else 300})
