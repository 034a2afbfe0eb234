#!/usr/bin/env python3
"""Pot thesis Figure 4.8a/d: the hot-key microbenchmark.  A share of the
transactions decrement one hot counter while it stays >= 0, the others
touch only their private words; OCC, 2PL and Pot with and without LSD.

    python3 experiments/fig_4_8_hotkey.py --quick
    python3 experiments/fig_4_8_hotkey.py --full

--quick (the default) makes short runs into results/quick/, --full
longer ones into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-4.8-hotkey'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402
from _lsd import (  # noqa: E402
    FULL, FULL_REPEAT, QUICK, QUICK_REPEAT, SETUP_NOTE, VARIANTS, lsd_over_std)

#: Reads of the shared table per transaction (the transaction's length).
READS = 64


def _case(hot: list[int]) -> Case:
    return Case("hotkey", "lsd", {"kind": "hotkey", "hot": hot, "table_reads": READS})


AT_100 = {"hot": 100, "threads": 2}

EXPERIMENT = Experiment(
    id="fig-4.8-hotkey",
    title="Hot key: throughput by share of transactions on the hot counter",
    reproduces="Pot thesis Figure 4.8a/d: with LSD the decrements of the hot counter "
               "do not conflict (the condition 'counter >= 1' keeps holding), so "
               "OCC-LSD and 2PL-LSD keep their throughput as contention grows while "
               "OCC aborts and 2PL blocks",
    quick=Grid(cases=(_case([0, 100]),), variants=VARIANTS, threads=(1, 2),
               repeat=QUICK_REPEAT, params=QUICK),
    full=Grid(cases=(_case([0, 25, 50, 75, 100]),), variants=VARIANTS, threads=(1, 2),
              repeat=FULL_REPEAT, params=FULL),
    render=Curves(x="hot", panel="threads", xlabel="% of transactions on the hot counter",
                  ylabel="throughput (tx/s)",
                  keys=(lsd_over_std("100% hot", AT_100, "occ"),
                        lsd_over_std("100% hot", AT_100, "2pl"),
                        lsd_over_std("100% hot", AT_100, "pot"))),
    requires=("tl2",),
    notes=SETUP_NOTE,
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
