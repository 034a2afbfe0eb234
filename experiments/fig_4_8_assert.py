#!/usr/bin/env python3
"""Pot thesis Figure 4.8b/c/e/f: the assert microbenchmark.  Every
transaction asserts a condition over a shared level (level >= 1) and
decrements it, or restores it where it ran out; the x axis is the
condition-invalidation ratio (the share of transactions whose commit
turns the others' condition false).  At 0 nobody writes the level: no
contention, which measures what LSD's calls cost.

    python3 experiments/fig_4_8_assert.py --quick
    python3 experiments/fig_4_8_assert.py --full

--quick (the default) makes short runs into results/quick/, --full
longer ones into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-4.8-assert'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402
from _lsd import (  # noqa: E402
    FULL, FULL_REPEAT, QUICK, QUICK_REPEAT, SETUP_NOTE, VARIANTS, lsd_over_std)

#: Reads of the shared table per transaction, as in fig-4.8-hotkey.
READS = 64


def _case(invalidate: list[int]) -> Case:
    return Case("assert", "lsd", {"kind": "assert", "invalidate": invalidate,
                                  "table_reads": READS})


NO_CONTENTION = {"invalidate": 0, "threads": 1}
HIGH = {"invalidate": 1, "threads": 2}

EXPERIMENT = Experiment(
    id="fig-4.8-assert",
    title="Assert: throughput by condition-invalidation ratio",
    reproduces="Pot thesis Figure 4.8b/c/e/f: without contention LSD costs 1.1-1.25x "
               "its standard counterpart's time; when every transaction updates the "
               "shared level, OCC-LSD (2PL-LSD) reach up to 17x (2x) their standard "
               "counterparts as fewer commits invalidate the others' condition",
    quick=Grid(cases=(_case([0, 1, 20]),), variants=VARIANTS, threads=(1, 2),
               repeat=QUICK_REPEAT, params=QUICK),
    full=Grid(cases=(_case([0, 1, 5, 10, 20, 50, 100]),), variants=VARIANTS,
              threads=(1, 2), repeat=FULL_REPEAT, params=FULL),
    render=Curves(x="invalidate", panel="threads",
                  xlabel="% of transactions that invalidate the others' condition",
                  ylabel="throughput (tx/s)",
                  keys=(lsd_over_std("no contention", NO_CONTENTION, "occ"),
                        lsd_over_std("no contention", NO_CONTENTION, "2pl"),
                        lsd_over_std("no contention", NO_CONTENTION, "pot"),
                        lsd_over_std("1% invalidating", HIGH, "occ"),
                        lsd_over_std("1% invalidating", HIGH, "2pl"),
                        lsd_over_std("1% invalidating", HIGH, "pot"))),
    requires=("tl2",),
    notes=SETUP_NOTE,
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
