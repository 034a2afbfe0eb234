#!/usr/bin/env python3
"""Doppel thesis Figure 7-4: INCRZ throughput of Doppel, OCC and locking by
Zipf skew alpha, and how many records Doppel split.

    python3 experiments/fig_7_4_incrz.py --quick
    python3 experiments/fig_7_4_incrz.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-4'.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Mapping

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Column, Combined, Curves, Derived, Experiment, Grid, KeyNumber, Variant)

#: Run lengths (ms) and repeats of the two scales.
QUICK_MS, QUICK_REPEAT = 200, 3
FULL_MS, FULL_REPEAT = 2000, 3
#: The parameters of every run: the thesis's 1M keys (full), 100k (quick).
QUICK = {"duration": QUICK_MS, "keys": 100000}
FULL = {"duration": FULL_MS, "keys": 1000000}

#: The systems compared, variants of one benchmark: doppel splits hot
#: records (tl2 backend, mode doppel); occ runs the same transactions with
#: nothing split (TL2 alone); gl, the global-lock backend, stands in for
#: 2PL; atomic increments without a transaction.  Quick runs are short:
#: their doppel classifies every 50 ms (dp_classify_ms) instead of 200 ms.
DOPPEL = Variant("doppel", "tl2", params={"mode": "doppel"})
DOPPEL_QUICK = Variant(
    "doppel", "tl2", {"dp_classify_ms": 50}, {"mode": "doppel"},
    note="quick runs are short: the doppel variant classifies every 50 ms "
         "(dp_classify_ms) instead of every 200 ms")
OCC = Variant("occ", "tl2", params={"mode": "occ"})
GL = Variant("gl", "gl", params={"mode": "occ"})

#: How our setup differs from the thesis's.
SETUP_NOTE = ("2 cores shared with other jobs (the thesis: 20 cores; its Go prototype's "
              "2-core numbers are the comparable ones); gl, a global lock, stands in for "
              "2PL; our C layer is several times faster per transaction than the Go "
              "prototype, so compare ratios, not M tx/s.")


def versus(label: str, where: Mapping[str, object], a: str = "doppel", b: str = "occ",
           value: str = "throughput") -> KeyNumber:
    """The ratio of variant a to variant b at the same point.

    >>> versus("100% hot", {"hot": 100}).over
    {'hot': 100, 'variant': 'occ'}
    """
    return KeyNumber(f"{label} {a}/{b}", {**where, "variant": a},
                     over={**where, "variant": b}, value=value)


#: alpha as a number for the figures (the benchmark takes alpha x 100).
ALPHA = Column("alpha", "alpha_x100", 100.0, key=True)

EXPERIMENT = Experiment(
    id="fig-7-4",
    title="INCRZ: throughput by Zipf skew, 2 threads",
    reproduces="Doppel thesis Figure 7-4: INCRZ (increments of Zipf-distributed keys) "
               "throughput of Doppel, OCC and 2PL as the skew alpha grows; Doppel splits "
               "the most popular keys and pulls ahead at high skew",
    quick=Grid(cases=(Case("incrz", "doppel", {"kind": "incrz", "alpha_x100": [0, 140]}),),
               variants=(DOPPEL_QUICK, OCC, GL), threads=(2,), repeat=QUICK_REPEAT,
               params=QUICK),
    full=Grid(cases=(Case("incrz", "doppel",
                          {"kind": "incrz", "alpha_x100": list(range(0, 201, 20))}),),
              variants=(DOPPEL, OCC, GL), threads=(2,), repeat=FULL_REPEAT,
              params=FULL),
    render=Derived((ALPHA,), Combined(
        Curves(x="alpha", xlabel="Zipf alpha", ylabel="throughput (tx/s)",
               keys=(versus("alpha 1.4", {"alpha": 1.4}),
                     versus("alpha 1.4", {"alpha": 1.4}, b="gl"),
                     KeyNumber("doppel split records at alpha 1.4",
                               {"variant": "doppel", "alpha": 1.4},
                               value="count_split_records"),
                     KeyNumber("splits", {"variant": "doppel", "alpha": 1.4},
                               value="count_splits"))),
        {"splits": Curves(x="alpha", value="count_split_records", xlabel="Zipf alpha",
                          ylabel="records split at the end of the run (records)",
                          title="INCRZ: records split by the classifier")})),
    requires=("tl2",),
    notes=SETUP_NOTE + "  The -splits figure: split records at the end of each run "
                       "(split_records; 'splits' counts every split during the run).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
