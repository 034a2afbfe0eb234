#!/usr/bin/env python3
"""Pot thesis Figure 3.13: the persistent hardware aborts of the STAMP
applications on Intel RTM, rtm next to pot-rtm (needs a CPU with RTM).

Runs experiment 'fig-3.13' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/fig_3_13_htm_aborts.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("fig-3.13", default_lib_dir=ROOT / "build"))
