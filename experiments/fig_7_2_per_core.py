#!/usr/bin/env python3
"""Doppel thesis Figure 7-2: INCR1 (all transactions on the hot key),
throughput per thread at 1 and 2 threads for each system.

    python3 experiments/fig_7_2_per_core.py --quick
    python3 experiments/fig_7_2_per_core.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-2'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Column, Curves, Derived, Experiment, Grid, KeyNumber)
from _doppel import (  # noqa: E402
    QUICK_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, GL, ATOMIC, SETUP_NOTE, versus)


def scaling(name: str) -> KeyNumber:
    """A variant's throughput at 2 threads over its throughput at 1."""
    return KeyNumber(f"{name} 2t/1t", {"variant": name, "threads": 2},
                     over={"variant": name, "threads": 1})


HOT = Case("incr1-hot", "doppel", {"kind": "incr1", "hot": 100})

EXPERIMENT = Experiment(
    id="fig-7-2",
    title="INCR1, 100% hot: throughput per thread at 1 and 2 threads",
    reproduces="Doppel thesis Figure 7-2: per-core throughput of INCR1 on the hot key as "
               "cores are added; Doppel's stays flat (it scales), OCC's and 2PL's fall",
    quick=Grid(cases=(HOT,), variants=(DOPPEL_QUICK, OCC, GL, ATOMIC), threads=(1, 2),
               repeat=QUICK_REPEAT, params=QUICK),
    full=Grid(cases=(HOT,), variants=(DOPPEL, OCC, GL, ATOMIC), threads=(1, 2), repeat=5,
              params=FULL),
    render=Derived((Column("throughput_per_thread", "throughput", "threads"),),
                   Curves(x="threads", value="throughput_per_thread", xlabel="threads",
                          ylabel="throughput per thread (tx/s)",
                          keys=(scaling("doppel"), scaling("occ"), scaling("gl"),
                                scaling("atomic"), versus("2 threads", {"threads": 2})))),
    requires=("tl2",),
    notes=SETUP_NOTE + "  Two cores: the thesis's curve goes to 20.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
