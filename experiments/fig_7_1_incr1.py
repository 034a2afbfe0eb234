#!/usr/bin/env python3
"""Doppel thesis Figure 7-1: INCR1 throughput of Doppel, OCC, locking and
atomic increments as the share of transactions on the hot key grows.

    python3 experiments/fig_7_1_incr1.py --quick
    python3 experiments/fig_7_1_incr1.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-1'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402
from _doppel import (  # noqa: E402
    QUICK_REPEAT, FULL_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, GL, ATOMIC,
    SETUP_NOTE, versus)


EXPERIMENT = Experiment(
    id="fig-7-1",
    title="INCR1: throughput by share of transactions on the hot key, 2 threads",
    reproduces="Doppel thesis Figure 7-1: INCR1 throughput of Doppel, OCC, 2PL and atomic "
               "increments as the percentage of transactions incrementing the one hot key "
               "grows; Doppel stays high while OCC and 2PL collapse",
    quick=Grid(cases=(Case("incr1", "doppel", {"kind": "incr1", "hot": [10, 100]}),),
               variants=(DOPPEL_QUICK, OCC, GL, ATOMIC), threads=(2,), repeat=QUICK_REPEAT,
               params=QUICK),
    full=Grid(cases=(Case("incr1", "doppel",
                          {"kind": "incr1", "hot": list(range(0, 101, 10))}),),
              variants=(DOPPEL, OCC, GL, ATOMIC), threads=(2,), repeat=FULL_REPEAT,
              params=FULL),
    render=Curves(x="hot", xlabel="% of transactions on the hot key",
                  ylabel="throughput (tx/s)",
                  keys=(versus("100% hot", {"hot": 100}),
                        versus("100% hot", {"hot": 100}, b="gl"),
                        versus("100% hot", {"hot": 100}, b="atomic"),
                        versus("10% hot", {"hot": 10}))),
    requires=("tl2",),
    notes=SETUP_NOTE,
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
