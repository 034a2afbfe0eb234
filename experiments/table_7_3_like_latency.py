#!/usr/bin/env python3
"""Doppel thesis Table 7.3: LIKE read and write latency (mean, 99th
percentile) on uniform and skewed pages.

Runs experiment 'table-7.3' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/table_7_3_like_latency.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("table-7.3", default_lib_dir=ROOT / "build"))
