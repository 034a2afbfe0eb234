#!/usr/bin/env python3
"""Pot thesis Figure 3.12: STMBench7 scalability, speedup over 1-thread TL2,
read-dominated, read-write and write-dominated (size small, structural
modifications off; quick: 0.3 s runs at 1-2 threads, full: 10 s runs at
1, 2 and 4 threads, gl as the lock to beat).

Runs experiment 'fig-3.12' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/fig_3_12_stmbench7_scalability.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("fig-3.12", default_lib_dir=ROOT / "build"))
