#!/usr/bin/env python3
"""TPC-C under DORA (data-oriented execution: the workers are executors
that own the warehouses, transactions are flow graphs of actions) against
conventional thread-to-transaction execution on tl2 and on 2pl:
throughput against threads (executors), at one warehouse per thread and
at one warehouse.

    python3 experiments/tpcc_dora.py --quick
    python3 experiments/tpcc_dora.py --full

--quick (the default) makes short runs on a reduced population (1000
items, 300 customers per district) into results/quick/, --full TPC-C's
own population into plots/; also --out DIR, --lib-dir DIR, --resume.  The
same as 'potm reproduce tpcc-dora'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402
from _dora import VARIANTS, dora_over  # noqa: E402

#: Warehouses = executors (DORA's partitioned case) and one warehouse (every
#: action on one executor).
CASES = (Case("tpcc-w=threads", "tpcc", {"warehouses": 0}),
         Case("tpcc-w=1", "tpcc", {"warehouses": 1}))

QUICK_POPULATION = {"items": 1000, "customers": 300}

#: The point the key numbers compare at.
_AT = {"benchmark": "tpcc-w=threads", "threads": 2}


EXPERIMENT = Experiment(
    id="tpcc-dora",
    title="TPC-C under DORA and conventionally: throughput against threads",
    reproduces="DORA (Pandis et al., CMU-CS-10-101) Figures 8 and 12: throughput of "
               "DORA against the conventional Shore-MT as load grows, and the peak "
               "throughput per workload (there TM1, TPC-B and TPC-C Order-Status; "
               "here the TPC-C standard mix), with the target of DORA at 1.2x "
               "conventional tl2 or more at 2 executors and 2 warehouses",
    quick=Grid(cases=CASES, variants=VARIANTS, threads=(1, 2), repeat=3,
               params={"duration": 200, **QUICK_POPULATION}),
    full=Grid(cases=CASES, variants=VARIANTS, threads=(1, 2, 4), repeat=5,
              params={"duration": 2000}),
    render=Curves(x="threads", ylabel="TPC-C transactions per second (standard mix)",
                  keys=(dora_over("2 executors, 2 warehouses", _AT, "occ"),
                        dora_over("2 executors, 2 warehouses", _AT, "2pl"),
                        dora_over("2 executors, 2 warehouses", _AT, "occ", "dora-private"))),
    requires=("tl2",),
    notes="2 cores: 4 executors oversubscribe the machine, and an idle executor "
          "sleeps on a futex until work arrives.  DORA "
          "ran Shore-MT on a 64-context Niagara II with a centralized lock manager "
          "as the baseline; here the baseline is a software TM, whose "
          "concurrency control has no centralized lock table to relieve.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
