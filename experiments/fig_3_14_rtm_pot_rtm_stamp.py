#!/usr/bin/env python3
"""Pot thesis Figure 3.14 on Intel RTM: Pot over hardware TM on the STAMP
applications, execution time of pot-rtm (and of tl2 and pot) relative to
rtm, RTM with a global-lock fallback.  The thesis measured it on POWER8
(fig-3.14, pot-rot against rot); this is the same figure on the hardware
TM this project can time.

    python3 experiments/fig_3_14_rtm_pot_rtm_stamp.py --quick
    python3 experiments/fig_3_14_rtm_pot_rtm_stamp.py --full

--quick (the default) makes short runs (``small`` inputs) into
results/quick/, --full STAMP's ``real`` inputs (the paper's take hours on
two cores) into plots/; also --out
DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR, else the checkout's
build/), --resume.  The same as 'potm reproduce fig-3.14-rtm'.  Skipped,
with the reason, on a CPU without RTM.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Grid, NormalizedBars, stamp_cases  # noqa: E402

VARIANTS = ("rtm", "pot-rtm", "tl2", "pot")

EXPERIMENT = Experiment(
    id="fig-3.14-rtm",
    title="Pot on Intel RTM: STAMP execution time relative to rtm",
    reproduces="Pot thesis Figure 3.14 (Pot-HTM on the STAMP applications) on Intel "
               "RTM instead of POWER8: execution time of Pot over RTM (speculative "
               "transactions in hardware, the fast mode in software in its turn) and "
               "of the software backends, normalized to RTM with a global-lock fallback",
    quick=Grid(cases=stamp_cases("small"), variants=VARIANTS, threads=(2,), repeat=3),
    full=Grid(cases=stamp_cases("real"), variants=VARIANTS, threads=(2,), repeat=3),
    render=NormalizedBars(baseline="rtm", value="elapsed",
                          ylabel="execution time / rtm's (lower is better)"),
    requires=("rtm", "pot-rtm"),
    needs_rtm_cpu=True,
    notes="Intel RTM has no suspended mode and no rollback-only transactions: a "
          "speculative transaction that reaches its commit before its turn aborts "
          "and re-runs in its turn in software (docs/DESIGN.md, Pot on HTM).  "
          "STAMP's real inputs, not the paper's, 2 threads.  Execution time, "
          "lower is better.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
