#!/usr/bin/env python3
"""Pot thesis Figure 3.11, scalability: speedup over 1-thread TL2 on intset
(red-black tree, hash set) and bank, 1-2 threads (4 and 8 with --full).

    python3 experiments/fig_3_11_scalability.py --quick
    python3 experiments/fig_3_11_scalability.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.11'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Grid, Speedup  # noqa: E402
from _micro import QUICK_MS, QUICK_REPEAT, FULL_MS, FULL_REPEAT, intset, BANK  # noqa: E402


EXPERIMENT = Experiment(
    id="fig-3.11",
    title="Scalability: speedup over 1-thread TL2 (intset rb and hash set, bank)",
    reproduces="Pot thesis Figure 3.11: speedup over single-threaded TL2 as threads grow, "
               "Pot next to TL2 (the thesis on its applications and a many-core machine)",
    quick=Grid(cases=(intset("rb"), intset("hs"), BANK), variants=("gl", "tl2", "pot"),
               threads=(1, 2), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=(intset("rb"), intset("hs"), BANK),
              variants=("gl", "tl2", "pot", "pot-fast", "rtm"),
              threads=(1, 2, 4, 8), repeat=FULL_REPEAT, params={"duration": FULL_MS}),
    render=Speedup(baseline="tl2", xlabel="threads",
                   ylabel="speedup over 1-thread tl2 (throughput ratio)"),
    requires=("tl2",),
    notes="2 cores: 4 and 8 threads (full grid only) oversubscribe the machine; the "
          "thesis's figure goes to many more cores and uses applications, not "
          "microbenchmarks.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
