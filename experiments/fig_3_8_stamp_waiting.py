#!/usr/bin/env python3
"""Pot thesis Figure 3.8 (STAMP): the share of each thread's time spent
waiting for its turn, Pot next to DeSTM, 2 threads (every STAMP
application; quick: the small inputs, full: the published evaluation's).

    python3 experiments/fig_3_8_stamp_waiting.py --quick
    python3 experiments/fig_3_8_stamp_waiting.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.8'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Bars, Column, Derived, Experiment, Grid, stamp_cases  # noqa: E402

#: Share of each thread's time spent waiting in the sequencer, in percent:
#: wait_turn_ns summed over the threads / (threads x elapsed).
WAIT_PERCENT = (Column("wait_ns_per_thread", "wait_turn_ns", "threads"),
                Column("wait_ns_per_s", "wait_ns_per_thread", "elapsed"),
                Column("wait_percent", "wait_ns_per_s", 1e7))

EXPERIMENT = Experiment(
    id="fig-3.8",
    title="STAMP: share of time waiting for the turn, Pot next to DeSTM",
    reproduces="Pot thesis Figure 3.8: the time threads spend waiting for their turn in "
               "DeSTM and in Pot on the STAMP applications (DeSTM's rounds make every "
               "thread wait for the slowest; Pot's fast mode and live promotion let the "
               "turn move on)",
    quick=Grid(cases=stamp_cases("small"), variants=("pot", "pot-ordered", "destm"),
               threads=(2,), repeat=3),
    full=Grid(cases=stamp_cases("paper"), variants=("pot", "pot-fast", "pot-ordered", "destm"),
              threads=(2,), repeat=3),
    render=Derived(WAIT_PERCENT, Bars(value="wait_percent",
                                      ylabel="% of thread time waiting for the turn")),
    requires=("pot",),
    provisional=False,
    notes="Waiting: time in the sequencer (the turn; in destm also rounds and round-mates), "
          "summed over the threads, over threads x execution time.  2 threads on 2 cores: "
          "a descheduled turn holder makes the others wait longer than on a dedicated "
          "machine.  Reproduced with fig-3.7 (which the registry runs first), it takes "
          "fig-3.7's runs of its points: one set of runs for both figures.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
