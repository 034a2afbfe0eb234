#!/usr/bin/env python3
"""Doppel thesis Table 7.3: LIKE read and write latency (mean, 99th
percentile) on uniform and skewed pages.

    python3 experiments/table_7_3_like_latency.py --quick
    python3 experiments/table_7_3_like_latency.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce table-7.3'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import (  # noqa: E402
    Case, Column, Derived, Experiment, Grid, LatencyTable)
from _doppel import (  # noqa: E402
    QUICK_REPEAT, QUICK, FULL, DOPPEL, DOPPEL_QUICK, OCC, GL, SETUP_NOTE, versus)


#: LIKE's parameters: 100k users liking the grid's keys (pages, Zipf-popular).
LIKE = {"kind": "like", "users": 100000}

#: The LIKE latencies the benchmark reports (ns), as microseconds.
LATENCY_NS = ("read_mean", "read_p99", "write_mean", "write_p99")
LATENCY_US = tuple(Column(f"{name}_us", f"count_{name}_ns", 1000.0) for name in LATENCY_NS)
CASES = (Case("like-uniform", "doppel", {**LIKE, "alpha_x100": 0, "write": 50}),
         Case("like-skewed", "doppel", {**LIKE, "alpha_x100": 140, "write": 50}))
SKEWED = {"benchmark": "like-skewed"}

EXPERIMENT = Experiment(
    id="table-7.3",
    title="LIKE: read and write latency (mean, 99th percentile), 50% writes, 2 threads",
    reproduces="Doppel thesis Table 7.3: mean and 99th-percentile latencies of LIKE's read "
               "and write transactions for Doppel, OCC and 2PL on a uniform and a skewed "
               "(alpha 1.4) workload; Doppel's reads wait for split phases to end",
    quick=Grid(cases=CASES, variants=(DOPPEL_QUICK, OCC, GL), threads=(2,),
               repeat=QUICK_REPEAT, params=QUICK),
    full=Grid(cases=CASES, variants=(DOPPEL, OCC, GL), threads=(2,), repeat=5,
              params=FULL),
    render=Derived(LATENCY_US, LatencyTable(
        values=tuple(c.name for c in LATENCY_US),
        labels=("read mean (us)", "read p99 (us)", "write mean (us)", "write p99 (us)"),
        keys=(versus("skewed read p99", SKEWED, value="read_p99_us"),
              versus("skewed read mean", SKEWED, value="read_mean_us"),
              versus("skewed write mean", SKEWED, value="write_mean_us")))),
    requires=("tl2",),
    notes=SETUP_NOTE + "  A latency is one transaction's, retries included; a stashed "
                       "read counts until its re-run commits.  p99 comes from the "
                       "benchmark's histogram buckets.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
