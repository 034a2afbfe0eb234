#!/usr/bin/env python3
"""Pot thesis Figure 3.7: STAMP execution time of the Pot modes relative to
TL2 (every STAMP application; quick: the small inputs, full: the published
evaluation's).

    python3 experiments/fig_3_7_stamp.py --quick
    python3 experiments/fig_3_7_stamp.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.7'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Experiment, Grid, NormalizedBars, POT_MODES, stamp_cases)

EXPERIMENT = Experiment(
    id="fig-3.7",
    title="STAMP: execution time of the Pot modes relative to TL2",
    reproduces="Pot thesis Figure 3.7: the cost of determinism, execution time of Pot, "
               "Pot* (pot-fast), Pot- (pot-ordered), PoGL and DeSTM normalized to TL2 on "
               "the STAMP applications",
    quick=Grid(cases=stamp_cases("small"), variants=("tl2", POT_MODES), threads=(2,),
               repeat=3),
    full=Grid(cases=stamp_cases("paper"), variants=("tl2", POT_MODES), threads=(2,),
              repeat=3),
    render=NormalizedBars(baseline="tl2", value="elapsed",
                          ylabel="execution time / tl2's (lower is better)"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="2 cores instead of the thesis's many-core machine; execution time, lower is "
          "better.  Quick: STAMP's small (simulator) inputs, runs of milliseconds, so "
          "start-up costs weigh; full: the published evaluation's inputs (seconds to "
          "two minutes per run, about 2.5 hours for the grid on 2 cores, hence 3 "
          "repeats; the inputs are generated on first use).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
