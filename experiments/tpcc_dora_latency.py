#!/usr/bin/env python3
"""The response time of a single TPC-C transaction under DORA against
conventional execution: New-Order alone and Payment alone, each terminal
submitting one transaction at a time (-W 1), so that a latency is one
transaction's response time; DORA runs a transaction's actions on the
executors that own their data, in parallel where the flow graph allows
(Payment's warehouse, district and customer; New-Order's district and
its supplying warehouses' stock).

    python3 experiments/tpcc_dora_latency.py --quick
    python3 experiments/tpcc_dora_latency.py --full

--quick (the default) makes short runs on a reduced population (1000
items, 300 customers per district) into results/quick/, --full TPC-C's
own population into plots/; also --out DIR, --lib-dir DIR, --resume.  The
same as 'potm reproduce tpcc-dora-latency'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Column, Derived, Experiment, Grid, KeyNumber, LatencyTable, Variant)

#: Two warehouses, every remote choice on (a remote supplier for every
#: New-Order line, clause 2.4.1.5's 1 % raised to 100 %), so that the flow
#: graphs have actions on both executors to overlap.
CASES = (Case("new-order", "tpcc", {"mix": "new-order", "warehouses": 2,
                                    "remote_lines": 100}),
         Case("payment", "tpcc", {"mix": "payment", "warehouses": 2}))

#: Conventional tl2 runs one transaction per worker anyway; the DORA
#: variants with a window of one.
VARIANTS = (Variant("occ", "tl2", params={"execution": "conventional"}),
            Variant("occ-dora", "tl2", params={"execution": "dora", "window": 1}),
            Variant("dora-private", "tl2", params={"execution": "dora-private",
                                                   "window": 1}))

LATENCY = tuple(Column(f"{tx}_{q}_us", f"count_{tx}_{q}_ns", 1000.0)
                for tx in ("new_order", "payment") for q in ("p50", "p99"))


def _faster(tx: str, variant: str) -> KeyNumber:
    """Conventional's median latency over variant's: how many times lower
    variant's response time is (DORA reports up to 2.5x)."""
    return KeyNumber(f"{tx} occ/{variant}", {"benchmark": tx.replace("_", "-"),
                                             "variant": "occ"},
                     over={"benchmark": tx.replace("_", "-"), "variant": variant},
                     value=f"{tx}_p50_us")


EXPERIMENT = Experiment(
    id="tpcc-dora-latency",
    title="TPC-C New-Order and Payment response time: DORA against conventional",
    reproduces="DORA (Pandis et al., CMU-CS-10-101), the response time of a single "
               "transaction: DORA's intra-transaction parallelism against conventional "
               "execution (DORA reports up to 2.5x lower)",
    quick=Grid(cases=CASES, variants=VARIANTS, threads=(2,), repeat=3,
               params={"duration": 200, "items": 1000, "customers": 300}),
    full=Grid(cases=CASES, variants=VARIANTS, threads=(2,), repeat=5,
              params={"duration": 2000}),
    render=Derived(LATENCY, LatencyTable(
        values=tuple(c.name for c in LATENCY),
        labels=("New-Order p50 (us)", "New-Order p99 (us)", "Payment p50 (us)",
                "Payment p99 (us)"),
        keys=(_faster("new_order", "occ-dora"), _faster("new_order", "dora-private"),
              _faster("payment", "occ-dora"), _faster("payment", "dora-private")))),
    requires=("tl2",),
    notes="2 executors on 2 cores, each also a terminal: both submit, so a "
          "transaction's actions queue behind the other terminal's.  A latency runs "
          "from submission to the terminal reaping the outcome, retries included.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
