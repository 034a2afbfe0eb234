#!/usr/bin/env python3
"""Doppel thesis Figure 7-6: LIKE throughput by share of write transactions,
Zipf alpha 1.4.

    python3 experiments/fig_7_6_like.py --quick
    python3 experiments/fig_7_6_like.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-6'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402
from _doppel import (  # noqa: E402
    QUICK_REPEAT, FULL_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, GL, SETUP_NOTE,
    versus)


#: LIKE's parameters: 100k users liking the grid's keys (pages, Zipf-popular).
LIKE = {"kind": "like", "users": 100000}

EXPERIMENT = Experiment(
    id="fig-7-6",
    title="LIKE: throughput by share of write transactions, alpha 1.4, 2 threads",
    reproduces="Doppel thesis Figure 7-6: LIKE (users like Zipf-popular pages, or read a "
               "page's likes and their own last like) throughput of Doppel, OCC and 2PL as "
               "the fraction of write transactions grows, alpha 1.4",
    quick=Grid(cases=(Case("like", "doppel", {**LIKE, "alpha_x100": 140,
                                              "write": [50, 90]}),),
               variants=(DOPPEL_QUICK, OCC, GL), threads=(2,), repeat=QUICK_REPEAT,
               params=QUICK),
    full=Grid(cases=(Case("like", "doppel", {**LIKE, "alpha_x100": 140,
                                             "write": list(range(0, 101, 10))}),),
              variants=(DOPPEL, OCC, GL), threads=(2,), repeat=FULL_REPEAT,
              params=FULL),
    render=Curves(x="write", xlabel="% of write transactions", ylabel="throughput (tx/s)",
                  keys=(versus("50% writes", {"write": 50}),
                        versus("50% writes", {"write": 50}, b="gl"))),
    requires=("tl2",),
    notes=SETUP_NOTE,
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
