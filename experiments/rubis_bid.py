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

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Experiment, Grid, NormalizedBars  # noqa: E402
from _doppel import (  # noqa: E402
    QUICK_MS, QUICK_REPEAT, FULL_MS, FULL_REPEAT, DOPPEL, DOPPEL_QUICK, OCC, GL,
    SETUP_NOTE, versus)


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
