#!/usr/bin/env python3
"""Pot thesis Figure 3.13: the persistent hardware aborts of the STAMP
applications on Intel RTM, rtm next to pot-rtm (needs a CPU with RTM).

    python3 experiments/fig_3_13_htm_aborts.py --quick
    python3 experiments/fig_3_13_htm_aborts.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.13'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Bars, Column, Derived, Experiment, Grid, stamp_cases  # noqa: E402

#: Share of hardware transactions that aborted persistently, in percent:
#: htm_persistent / htm_starts (the hardware said a retry would fail too:
#: capacity, an unsupported instruction, an explicit abort).
PERSISTENT_PERCENT = (Column("persistent_per_start", "htm_persistent", "htm_starts"),
                      Column("persistent_percent", "persistent_per_start", 0.01))

EXPERIMENT = Experiment(
    id="fig-3.13",
    title="STAMP on Intel RTM: share of hardware transactions aborted persistently",
    reproduces="Pot thesis Figure 3.13: the persistent aborts of best-effort HTM on the "
               "STAMP applications, transactions the hardware can never commit (capacity, "
               "unsupported instructions) and that must run in software: with Pot, in the "
               "fast mode at their turn",
    quick=Grid(cases=stamp_cases("small"), variants=("rtm", "pot-rtm"), threads=(2,),
               repeat=3),
    full=Grid(cases=stamp_cases("real"), variants=("rtm", "pot-rtm"), threads=(2,),
              repeat=3),
    render=Derived(PERSISTENT_PERCENT,
                   Bars(value="persistent_percent",
                        ylabel="% of HTM starts aborted persistently")),
    requires=("rtm", "pot-rtm"),
    needs_rtm_cpu=True,
    provisional=True,
    notes="Needs a CPU with Intel RTM (skipped elsewhere): the project's machines come "
          "with it (Intel Xeon) and without (AMD EPYC).  Persistent: the abort status "
          "said a retry would fail too (htm_persistent over htm_starts).  Full: STAMP's "
          "README inputs for real machines (a ratio of counts, not a time: the paper "
          "inputs' hours would add little).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
