#!/usr/bin/env python3
"""Doppel thesis, RUBiS: bids with a hot auction, Doppel and locking
relative to OCC (needs the rubis benchmark; skipped, saying so, without it).

    python3 experiments/rubis_bid.py --quick
    python3 experiments/rubis_bid.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce rubis'.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Mapping

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Experiment, Grid, KeyNumber, NormalizedBars, Variant)

#: Run lengths (ms) and repeats of the two scales.
QUICK_MS, QUICK_REPEAT = 200, 3
FULL_MS, FULL_REPEAT = 2000, 3

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

#: Percentages of transactions on the hot auction (item 0).
QUICK_HOT = (0, 50)
FULL_HOT = (0, 10, 50, 100)


def bids(hot: int, bid: int = 100) -> Case:
    """RUBiS with bid percent StoreBid (the rest ViewItem), hot percent of
    the transactions on the hot item.

    >>> bids(50, bid=50).name
    'bid50-hot-50'
    """
    name = f"bids-hot-{hot}" if bid == 100 else f"bid{bid}-hot-{hot}"
    return Case(name, "rubis", {"bid": bid, "hot": hot})


EXPERIMENT = Experiment(
    id="rubis",
    title="RUBiS with a hot auction: throughput relative to OCC, 2 threads",
    reproduces="Doppel thesis, RUBiS evaluation: StoreBid (the item's max bid, max "
               "bidder, bid count and its category's top bids) with a hot auction, "
               "Doppel splitting the hot auction's records, against OCC and 2PL",
    quick=Grid(cases=tuple(bids(h) for h in QUICK_HOT),
               variants=(DOPPEL_QUICK, OCC, GL), threads=(2,), repeat=QUICK_REPEAT,
               params={"duration": QUICK_MS}),
    full=Grid(cases=(*(bids(h) for h in FULL_HOT), bids(50, bid=50)),
              variants=(DOPPEL, OCC, GL), threads=(2,), repeat=FULL_REPEAT,
              params={"duration": FULL_MS}),
    render=NormalizedBars(baseline="occ",
                          ylabel="throughput / occ's throughput (higher is better)",
                          keys=(versus("50% hot bids", {"benchmark": "bids-hot-50"}),)),
    requires=("tl2",),
    notes=SETUP_NOTE + "  The thesis's RUBiS runs a full bidding mix; this is its StoreBid "
                       "transaction alone (bids-*) and half StoreBid, half ViewItem "
                       "(bid50-*), 100k items, 100k users, 16 categories.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
