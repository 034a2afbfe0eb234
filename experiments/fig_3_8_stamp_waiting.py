#!/usr/bin/env python3
"""Pot thesis Figure 3.8 (STAMP): the share of each thread's time spent
waiting for its turn, Pot next to DeSTM, 2 threads (every STAMP
application; quick: the small inputs, full: the published evaluation's).

Runs experiment 'fig-3.8' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/fig_3_8_stamp_waiting.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("fig-3.8", default_lib_dir=ROOT / "build"))
