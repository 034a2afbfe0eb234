#!/usr/bin/env python3
"""Doppel thesis, RUBiS: bids with a hot auction, Doppel and locking
relative to OCC (needs the rubis benchmark; skipped, saying so, without it).

Runs experiment 'rubis' of the potm package (see 'potm experiments -v'):
--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; --out DIR, --lib-dir DIR (default: $POTMPY_LIB_DIR,
else build/), --resume.

    python3 experiments/rubis_bid.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package of this checkout, without installing it.
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from potm.reproduce import script_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(script_main("rubis", default_lib_dir=ROOT / "build"))
