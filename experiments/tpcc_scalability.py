#!/usr/bin/env python3
"""TPC-C on the record store: throughput against threads for every
backend, at one warehouse (every worker on the same districts: high
contention) and at one warehouse per thread (each worker at its own home
warehouse: low contention); and at two warehouses for every thread count,
where the record store's targets are stated (tl2 at 2 threads over seq at
1 thread, silo over tl2 at 2 threads: the key numbers).

    python3 experiments/tpcc_scalability.py --quick
    python3 experiments/tpcc_scalability.py --full

--quick (the default) makes short runs on a reduced population (1000
items, 300 customers per district) into results/quick/, --full TPC-C's
own population (clause 4.3) into plots/; also --out DIR, --lib-dir DIR
(default: $POTMPY_LIB_DIR, else the checkout's build/), --resume.  The
same as 'potm reproduce tpcc'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (Case, Curves, Experiment, Grid, KeyNumber,  # noqa: E402
                              POT_MODES)

#: The two contention levels: every worker at warehouse 1, or each at its
#: own (warehouses = 0 asks the benchmark for one warehouse per thread).
CASES = (Case("tpcc-w=1", "tpcc", {"warehouses": 1}),
         Case("tpcc-w=threads", "tpcc", {"warehouses": 0}))

#: Two warehouses at every thread count: the database of the targets
#: (warehouses = threads = 2, and seq at 1 thread on the same two).
TARGET_CASE = Case("tpcc-w=2", "tpcc", {"warehouses": 2})


def _target(label: str, variant: str, threads: int, base: str,
            base_threads: int) -> KeyNumber:
    at = {"benchmark": TARGET_CASE.name}
    return KeyNumber(label, {**at, "variant": variant, "threads": threads},
                     over={**at, "variant": base, "threads": base_threads})


#: The targets: tl2 at 2 threads at least 1.6x seq at 1 thread; silo at
#: least tl2 at 2 threads.
TARGET_KEYS = (_target("w=2: tl2@2/seq@1", "tl2", 2, "seq", 1),
               _target("w=2: tl2@1/seq@1", "tl2", 1, "seq", 1),
               _target("w=2: silo@2/tl2@2", "silo", 2, "tl2", 2))

#: A population small enough that loading it takes a fraction of a run.
QUICK_POPULATION = {"items": 1000, "customers": 300}

EXPERIMENT = Experiment(
    id="tpcc",
    title="TPC-C: throughput against threads, 1 warehouse, 1 warehouse per thread, "
          "2 warehouses",
    reproduces="Silo (SOSP 2013) Figures 5 and 6 (TPC-C throughput and per-core "
               "throughput) and the Pot thesis's TPC-C runs (sections 4.4.1 and 5.3): "
               "the standard mix at high contention (1 warehouse) and low "
               "(a home warehouse per worker), every backend and Pot mode",
    quick=Grid(cases=CASES + (TARGET_CASE,), variants=("seq", "tl2", "silo", "pot"),
               threads=(1, 2), repeat=3,
               params={"duration": 200, **QUICK_POPULATION}),
    full=Grid(cases=CASES + (TARGET_CASE,),
              variants=("seq", "gl", "tl2", "silo", "2pl", POT_MODES, "rtm", "pot-rtm"),
              threads=(1, 2, 4), repeat=5, params={"duration": 2000}),
    render=Curves(x="threads", ylabel="TPC-C transactions per second (standard mix)",
                  keys=TARGET_KEYS),
    requires=("tl2",),
    notes="2 cores: 4 threads oversubscribe the machine.  Silo reports about 27,000 "
          "transactions per second for one worker on a 2013 Xeon (standard mix, "
          "its own tree and allocator); the Pot thesis runs TPC-C behind a "
          "replicated server, with clients over the network.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
