#!/usr/bin/env python3
"""Single-thread overhead of every built backend: intset throughput
relative to seq, the uninstrumented limit (red-black tree, 4096 keys of
8192, 20% updates, 1 thread; a backend that is not built is left out).

    python3 experiments/overhead.py --quick
    python3 experiments/overhead.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce overhead'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Grid, NormalizedBars, POT_MODES  # noqa: E402
from _micro import QUICK_MS, QUICK_REPEAT, FULL_MS, FULL_REPEAT, intset  # noqa: E402


EXPERIMENT = Experiment(
    id="overhead",
    title="Single-thread overhead: throughput relative to seq (intset, 4096/8192, "
          "20% updates)",
    reproduces="the uninstrumented (seq) throughput as the limit each TM backend is "
               "measured against at one thread: the cost of instrumentation alone",
    quick=Grid(cases=(intset("rb"),), variants=("seq", "gl", "tl2", "pot", "rtm"),
               threads=(1,), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=tuple(intset(s) for s in ("rb", "hs", "sl", "ll")),
              variants=("seq", "gl", "tl2", POT_MODES, "rtm"),
              threads=(1,), repeat=FULL_REPEAT, params={"duration": FULL_MS}),
    render=NormalizedBars(baseline="seq",
                          ylabel="throughput / seq's throughput (higher is better)"),
    requires=("seq",),
    notes="Every built backend at 1 thread; a backend that is not built is left out.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
