#!/usr/bin/env python3
"""Cost of determinism (Pot thesis Figure 3.7 view on microbenchmarks): each
Pot mode's throughput relative to TL2 at 2 threads, intset and bank.

    python3 experiments/determinism_cost.py --quick
    python3 experiments/determinism_cost.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce determinism-cost'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Grid, NormalizedBars, POT_MODES  # noqa: E402
from _micro import QUICK_MS, QUICK_REPEAT, FULL_MS, FULL_REPEAT, intset, BANK  # noqa: E402


EXPERIMENT = Experiment(
    id="determinism-cost",
    title="Cost of determinism: Pot modes relative to TL2, 2 threads",
    reproduces="Pot thesis Figure 3.7 (microbenchmark view): performance of Pot, Pot* "
               "(pot-fast), Pot- (pot-ordered), PoGL and DeSTM normalized to TL2",
    quick=Grid(cases=(intset("rb"), BANK), variants=("tl2", POT_MODES),
               threads=(2,), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=(intset("rb"), intset("hs"), intset("sl"), BANK),
              variants=("tl2", POT_MODES), threads=(2,), repeat=FULL_REPEAT,
              params={"duration": FULL_MS}),
    render=NormalizedBars(baseline="tl2",
                          ylabel="throughput / tl2's throughput (higher is better)"),
    requires=("tl2", "pot"),
    notes="The thesis measures STAMP execution times (fig-3.7 here, once STAMP is "
          "built); this is the same comparison on microbenchmark throughput.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
