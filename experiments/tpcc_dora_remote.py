#!/usr/bin/env python3
"""New-Order alone with a rising share of lines from a remote warehouse:
DORA (remote lines become stock actions on the other warehouse's
executor) against conventional tl2, 2pl and silo and against a
partitioned store (a lock per warehouse, a transaction taking those of
every warehouse it touches), warehouses = threads.

    python3 experiments/tpcc_dora_remote.py --quick
    python3 experiments/tpcc_dora_remote.py --full

--quick (the default) makes short runs on a reduced population into
results/quick/, --full TPC-C's own population into plots/; also --out
DIR, --lib-dir DIR, --resume.  The same as
'potm reproduce tpcc-dora-remote'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid, Variant  # noqa: E402
from _dora import VARIANTS as _DORA  # noqa: E402

#: DORA's systems, Silo's own (conventional silo) and its Figure 8 baseline:
#: the partitioned store (no TM in the workers; tl2 only loads and checks).
VARIANTS = _DORA + (
    Variant("silo", "silo", params={"execution": "conventional"}),
    Variant("partitioned", "tl2", params={"execution": "partitioned"}),
)


def _case(remote: list[int]) -> Case:
    return Case("new-order", "tpcc", {"mix": "new-order", "warehouses": 0,
                                      "remote_lines": remote})


EXPERIMENT = Experiment(
    id="tpcc-dora-remote",
    title="New-Order with cross-warehouse lines: DORA, conventional execution and a "
          "partitioned store",
    reproduces="Silo (SOSP 2013) Figure 8 (New-Order alone, a rising share of remote "
               "items; silo against a partitioned store that takes one lock per "
               "warehouse), with DORA against conventional tl2 and 2pl: DORA sends a "
               "remote line's stock update to the owning executor instead of running "
               "a distributed transaction (its report, section 4.1)",
    quick=Grid(cases=(_case([0, 10, 50]),), variants=VARIANTS, threads=(2,), repeat=3,
               params={"duration": 200, "items": 1000, "customers": 300}),
    full=Grid(cases=(_case([0, 1, 2, 5, 10, 20, 50, 100]),), variants=VARIANTS,
              threads=(2,), repeat=5, params={"duration": 2000}),
    render=Curves(x="remote_lines", panel="threads",
                  xlabel="% of New-Order lines from a remote warehouse",
                  ylabel="New-Order transactions per second (tx/s)"),
    requires=("tl2",),
    notes="2 cores, 2 warehouses (one per thread).  Silo's Figure 8 compares its "
          "shared-everything store with a partitioned one: here the variant "
          "partitioned (private tables per warehouse, a mutex each, taken in "
          "ascending order); DORA's executors own warehouses logically (dora) or "
          "physically (dora-private).",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
