#!/usr/bin/env python3
"""Doppel thesis Figure 7-6: LIKE throughput by share of write transactions,
Zipf alpha 1.4.

    python3 experiments/fig_7_6_like.py --quick
    python3 experiments/fig_7_6_like.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-7-6'.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Mapping

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid, KeyNumber, Variant  # noqa: E402

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

#: LIKE's parameters: 100k users liking the grid's keys (pages, Zipf-popular).
LIKE = {"kind": "like", "users": 100000}

EXPERIMENT = Experiment(
    id="fig-7-6",
    title="LIKE: throughput by share of write transactions, alpha 1.4, 2 threads",
    reproduces="Doppel thesis Figure 7-6: LIKE (users like Zipf-popular pages, or read a "
               "page's likes and their own last like) throughput of Doppel, OCC and 2PL as "
               "the fraction of write transactions grows, alpha 1.4",
    quick=Grid(cases=(Case("like", "doppel", {**LIKE, "alpha_x100": 140,
                                              "write": [50, 90]}),),
               variants=(DOPPEL_QUICK, OCC, GL), threads=(2,), repeat=QUICK_REPEAT,
               params=QUICK),
    full=Grid(cases=(Case("like", "doppel", {**LIKE, "alpha_x100": 140,
                                             "write": list(range(0, 101, 10))}),),
              variants=(DOPPEL, OCC, GL), threads=(2,), repeat=FULL_REPEAT,
              params=FULL),
    render=Curves(x="write", xlabel="% of write transactions", ylabel="throughput (tx/s)",
                  keys=(versus("50% writes", {"write": 50}),
                        versus("50% writes", {"write": 50}, b="gl"))),
    requires=("tl2",),
    notes=SETUP_NOTE,
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
