#!/usr/bin/env python3
"""Doppel thesis Figure 7-4: INCRZ throughput of Doppel, OCC and locking by
Zipf skew alpha, and how many records Doppel split.

    python3 experiments/fig_7_4_incrz.py --quick
    python3 experiments/fig_7_4_incrz.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-4'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Column, Combined, Curves, Derived, Experiment, Grid, KeyNumber)
from _doppel import (  # noqa: E402
    QUICK_REPEAT, FULL_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, GL, SETUP_NOTE,
    versus)


#: alpha as a number for the figures (the benchmark takes alpha x 100).
ALPHA = Column("alpha", "alpha_x100", 100.0, key=True)

EXPERIMENT = Experiment(
    id="fig-7-4",
    title="INCRZ: throughput by Zipf skew, 2 threads",
    reproduces="Doppel thesis Figure 7-4: INCRZ (increments of Zipf-distributed keys) "
               "throughput of Doppel, OCC and 2PL as the skew alpha grows; Doppel splits "
               "the most popular keys and pulls ahead at high skew",
    quick=Grid(cases=(Case("incrz", "doppel", {"kind": "incrz", "alpha_x100": [0, 140]}),),
               variants=(DOPPEL_QUICK, OCC, GL), threads=(2,), repeat=QUICK_REPEAT,
               params=QUICK),
    full=Grid(cases=(Case("incrz", "doppel",
                          {"kind": "incrz", "alpha_x100": list(range(0, 201, 20))}),),
              variants=(DOPPEL, OCC, GL), threads=(2,), repeat=FULL_REPEAT,
              params=FULL),
    render=Derived((ALPHA,), Combined(
        Curves(x="alpha", xlabel="Zipf alpha", ylabel="throughput (tx/s)",
               keys=(versus("alpha 1.4", {"alpha": 1.4}),
                     versus("alpha 1.4", {"alpha": 1.4}, b="gl"),
                     KeyNumber("doppel split records at alpha 1.4",
                               {"variant": "doppel", "alpha": 1.4},
                               value="count_split_records"),
                     KeyNumber("splits", {"variant": "doppel", "alpha": 1.4},
                               value="count_splits"))),
        {"splits": Curves(x="alpha", value="count_split_records", xlabel="Zipf alpha",
                          ylabel="records split at the end of the run (records)",
                          title="INCRZ: records split by the classifier")})),
    requires=("tl2",),
    notes=SETUP_NOTE + "  The -splits figure: split records at the end of each run "
                       "(split_records; 'splits' counts every split during the run).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
