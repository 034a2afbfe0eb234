#!/usr/bin/env python3
"""Pot thesis Figure 3.14: Pot-HTM on the STAMP applications, execution time
of pot-rot (and of tl2 and pot) relative to POWER8 HTM with a lock
fallback (needs a POWER8 machine and the rot backends).

    python3 experiments/fig_3_14_pot_htm_stamp.py --quick
    python3 experiments/fig_3_14_pot_htm_stamp.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.14'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Grid, NormalizedBars, stamp_cases  # noqa: E402

EXPERIMENT = Experiment(
    id="fig-3.14",
    title="Pot on IBM POWER8 HTM: STAMP execution time relative to ROT",
    reproduces="Pot thesis Figure 3.14: Pot-HTM on the STAMP applications, execution "
               "time of Pot on POWER8 HTM (speculative transactions in hardware, the fast "
               "mode a rollback-only transaction) and of the software backends, "
               "normalized to POWER8 HTM with a global-lock fallback",
    quick=Grid(cases=stamp_cases("small"), variants=("rot", "pot-rot", "tl2", "pot"),
               threads=(2,), repeat=3),
    full=Grid(cases=stamp_cases("paper"), variants=("rot", "pot-rot", "tl2", "pot"),
              threads=(2,), repeat=5),
    render=NormalizedBars(baseline="rot", value="elapsed",
                          ylabel="execution time / rot's (lower is better)"),
    requires=("rot", "pot-rot"),
    provisional=True,
    notes="Needs a POWER8 machine: here the rot backends are cross-built for "
          "powerpc64le and tested under qemu-user, where tbegin. always fails, so "
          "there are no timings to plot.  Execution time, lower is better.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
