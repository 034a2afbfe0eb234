#!/usr/bin/env python3
"""Doppel thesis Figure 7-1: INCR1 throughput of Doppel, OCC, locking and
atomic increments as the share of transactions on the hot key grows.

Runs experiment 'fig-7-1' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/fig_7_1_incr1.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("fig-7-1", default_lib_dir=ROOT / "build"))
