#!/usr/bin/env python3
"""Doppel thesis Figure 7-3: INCR1 throughput over time while the hot key
moves, Doppel against OCC.

    python3 experiments/fig_7_3_hot_key_change.py --quick
    python3 experiments/fig_7_3_hot_key_change.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-3'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Experiment, Grid, KeyNumber, Timeline  # noqa: E402
from _doppel import (  # noqa: E402
    QUICK_REPEAT, FULL_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, SETUP_NOTE)


EXPERIMENT = Experiment(
    id="fig-7-3",
    title="INCR1 with a moving hot key: throughput over time, 2 threads",
    reproduces="Doppel thesis Figure 7-3: throughput over time while the hot key changes "
               "periodically; Doppel's throughput drops at each change and recovers once "
               "the classifier has split the new hot key, OCC stays low",
    quick=Grid(cases=(Case("incr1-moving", "doppel",
                           {"kind": "incr1", "hot": 100, "change": 250, "interval": 50}),),
               variants=(DOPPEL_QUICK, OCC), threads=(2,), repeat=QUICK_REPEAT,
               params={**QUICK, "duration": 1000}),
    full=Grid(cases=(Case("incr1-moving", "doppel",
                          {"kind": "incr1", "hot": 100, "change": 2000, "interval": 100}),),
              variants=(DOPPEL, OCC), threads=(2,), repeat=FULL_REPEAT,
              params={**FULL, "duration": 10000}),
    render=Timeline(period="change", ylabel="throughput (tx/s)",
                    keys=(KeyNumber("doppel/occ over the run", {"variant": "doppel"},
                                    over={"variant": "occ"}),)),
    requires=("tl2",),
    notes=SETUP_NOTE + "  Dotted lines: the hot key moves (every transaction is on it). "
                       "The classifier splits the new hot key after a period or two "
                       "(200 ms; quick: 50 ms).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
