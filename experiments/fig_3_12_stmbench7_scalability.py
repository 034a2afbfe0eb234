#!/usr/bin/env python3
"""Pot thesis Figure 3.12: STMBench7 scalability, speedup over 1-thread TL2,
read-dominated, read-write and write-dominated (size small, structural
modifications off; quick: 0.3 s runs at 1-2 threads, full: 10 s runs at
1, 2 and 4 threads, gl as the lock to beat).

    python3 experiments/fig_3_12_stmbench7_scalability.py --quick
    python3 experiments/fig_3_12_stmbench7_scalability.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.12'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Experiment, Speedup  # noqa: E402
from _stmbench7 import mixes  # noqa: E402


EXPERIMENT = Experiment(
    id="fig-3.12",
    title="STMBench7: speedup over 1-thread TL2",
    reproduces="Pot thesis Figure 3.12: STMBench7 scalability, the throughput of TL2 and "
               "Pot as threads grow over single-threaded TL2's, on the read-dominated, "
               "read-write and write-dominated mixes",
    quick=mixes(("tl2", "pot", "pot-round-robin"), (1, 2), full=False),
    full=mixes(("gl", "tl2", "pot", "pot-round-robin"), (1, 2, 4), full=True),
    render=Speedup(baseline="tl2", xlabel="threads",
                   ylabel="speedup over 1-thread tl2 (throughput ratio)"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="Successful operations per second over 1-thread tl2's.  2 cores: 4 threads "
          "(full grid) oversubscribe the machine.  gl, one global lock around each "
          "operation (no parallelism, plain loads inline), is the line an STM must "
          "beat; the wider matrix with the coarse and medium lock builds is "
          "'potm measure stmbench7'.  Reproduced with fig-3.10 (which the registry runs "
          "first), the 2-thread points the two share are fig-3.10's runs.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
