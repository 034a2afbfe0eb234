#!/usr/bin/env python3
"""Pot thesis Figure 3.10: STMBench7 throughput of the Pot modes relative to
TL2, read-dominated, read-write and write-dominated (size small, structural
modifications off; quick: 0.3 s runs, full: 10 s runs).

    python3 experiments/fig_3_10_stmbench7.py --quick
    python3 experiments/fig_3_10_stmbench7.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.10'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, NormalizedBars, POT_MODES  # noqa: E402
from _stmbench7 import mixes  # noqa: E402


EXPERIMENT = Experiment(
    id="fig-3.10",
    title="STMBench7: throughput of the Pot modes relative to TL2",
    reproduces="Pot thesis Figure 3.10: STMBench7 throughput of Pot and its variants "
               "normalized to TL2 on the read-dominated, read-write and write-dominated "
               "mixes",
    quick=mixes(("tl2", "pot", "pot-fast", "pot-ordered", "pot-round-robin"), (2,),
                full=False),
    full=mixes(("tl2", POT_MODES, "pot-round-robin"), (2,), full=True),
    render=NormalizedBars(baseline="tl2",
                          ylabel="throughput (ops/s) / tl2's (higher is better)"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="Throughput: successful operations per second, 2 threads.  Full: the runs of "
          "stmbench7/README.md (10 s, 3 repeats); quick: 0.3 s runs, a few hundred "
          "operations per run, so expect a wide spread.  STMBench7 runs Pot's modes "
          "under the weighted order (not in the thesis), each operation weighted by its "
          "run time; pot-round-robin is pot in the thesis's own order.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
