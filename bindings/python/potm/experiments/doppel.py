"""The Doppel thesis's figures and table (chapter 7): phase reconciliation.

They need the Doppel microbenchmarks (incr1, incrz, like, bid), not built
yet: registered so that they are listed as skipped with that reason and
run once the workloads exist.  Grids are provisional, written from the
published description: Doppel (split records) against OCC (TL2) and a
locking baseline (gl, which stands in for 2PL).  The variant's parameter
``doppel`` (1: split contended records, 0: plain transactions) and the
workloads' parameter names are assumptions to check when they land.
Doppel's numbers come from a 20-core machine; ours have 2 cores.

Example:
    >>> [e.id for e in DOPPEL_EXPERIMENTS]
    ['fig-7-1', 'fig-7-2', 'fig-7-3', 'fig-7-4', 'fig-7-6', 'table-7.3']
    >>> [v.name for v in FIG_7_1.quick.resolved_variants()]
    ['doppel', 'occ', 'gl']
"""

from __future__ import annotations

from potm.experiments.model import Case, Experiment, Grid
from potm.experiments.render import Curves, LatencyTable, NormalizedBars
from potm.experiments.variants import Variant

#: Doppel on TL2, plain TL2 (OCC) and the global lock (for 2PL).
DOPPEL = Variant("doppel", "tl2", params={"doppel": 1})
OCC = Variant("occ", "tl2", params={"doppel": 0})
LOCK = Variant("gl", "gl", params={"doppel": 0})
SYSTEMS = (DOPPEL, OCC, LOCK)

FIG_7_1 = Experiment(
    id="fig-7-1",
    title="INCR1: throughput by share of transactions on the hot key",
    reproduces="Doppel thesis Figure 7-1: INCR1 throughput of Doppel, OCC and 2PL as the "
               "percentage of transactions incrementing the single hot key grows; Doppel "
               "stays flat while OCC and 2PL collapse",
    quick=Grid(cases=(Case("incr1", "incr1", {"hot": [0, 50, 100]}),), variants=SYSTEMS,
               params={"duration": 200},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("incr1", "incr1", {"hot": list(range(0, 101, 10))}),),
              variants=SYSTEMS, params={"duration": 2000},
              threads=(2,), repeat=5),
    render=Curves(x="hot"),
    requires=("tl2",),
    provisional=True,
)

FIG_7_2 = Experiment(
    id="fig-7-2",
    title="INCR1: throughput over time as the hot key changes",
    reproduces="Doppel thesis Figure 7-2: throughput over time when the hot key changes "
               "every few seconds; Doppel re-detects contention and re-splits",
    quick=Grid(cases=(Case("incr1", "incr1", {"hot": 10}),), variants=SYSTEMS,
               params={"duration": 2000},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("incr1", "incr1", {"hot": 10}),), variants=SYSTEMS,
              params={"duration": 30000},
              threads=(2,), repeat=5),
    render=Curves(x="hot"),
    requires=("tl2",),
    blocked="needs a throughput time series (per interval) from incr1 and a hot key that "
            "moves during the run; the benchmark JSON reports one total per run",
    provisional=True,
)

FIG_7_3 = Experiment(
    id="fig-7-3",
    title="INCRZ: throughput by Zipf skew",
    reproduces="Doppel thesis Figure 7-3: INCRZ (increments of Zipf-distributed keys) "
               "throughput of Doppel, OCC and 2PL as the skew alpha grows",
    quick=Grid(cases=(Case("incrz", "incrz", {"alpha": ["0.0", "1.0", "1.4"]}),),
               variants=SYSTEMS, params={"duration": 200},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("incrz", "incrz", {"alpha": ["0.0", "0.4", "0.8", "1.0", "1.2",
                                                        "1.4", "1.6", "2.0"]}),),
              variants=SYSTEMS, params={"duration": 2000},
              threads=(2,), repeat=5),
    render=Curves(x="alpha"),
    requires=("tl2",),
    provisional=True,
)

FIG_7_4 = Experiment(
    id="fig-7-4",
    title="LIKE: throughput by share of write transactions (alpha 1.4)",
    reproduces="Doppel thesis Figure 7-4: LIKE throughput of Doppel, OCC and 2PL as the "
               "fraction of transactions that write (like a page) grows, Zipf alpha 1.4",
    quick=Grid(cases=(Case("like", "like", {"alpha": "1.4", "write": [10, 50, 90]}),),
               variants=SYSTEMS, params={"duration": 200},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("like", "like", {"alpha": "1.4",
                                           "write": list(range(0, 101, 10))}),),
              variants=SYSTEMS, params={"duration": 2000},
              threads=(2,), repeat=5),
    render=Curves(x="write"),
    requires=("tl2",),
    provisional=True,
)

FIG_7_6 = Experiment(
    id="fig-7-6",
    title="Auction (bid): throughput of Doppel, OCC and locking",
    reproduces="Doppel thesis Figure 7-6: an auction workload (bids on popular items: "
               "max-bid, bid count and top bidders are split records), Doppel vs OCC/2PL",
    quick=Grid(cases=(Case("bid", "bid", {}),), variants=SYSTEMS,
               params={"duration": 200},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("bid", "bid", {}),), variants=SYSTEMS,
              params={"duration": 2000},
              threads=(2,), repeat=5),
    render=NormalizedBars(baseline="occ"),
    requires=("tl2",),
    provisional=True,
    notes="The figure's exact content is to be checked against the thesis.",
)

#: Latency measures the like benchmark is expected to report (microseconds).
LATENCIES = ("read_lat_avg_us", "read_lat_p99_us", "write_lat_avg_us", "write_lat_p99_us")

TABLE_7_3 = Experiment(
    id="table-7.3",
    title="LIKE: read and write latency (average, 99th percentile)",
    reproduces="Doppel thesis Table 7.3: average and 99th-percentile latencies of read "
               "and write transactions for Doppel, OCC and 2PL on a uniform and a "
               "skewed (alpha 1.4) LIKE workload",
    quick=Grid(cases=(Case("like-uniform", "like", {"alpha": "0.0", "write": 50}),
                      Case("like-skewed", "like", {"alpha": "1.4", "write": 50})),
               variants=SYSTEMS, params={"duration": 200},
               threads=(2,), repeat=3),
    full=Grid(cases=(Case("like-uniform", "like", {"alpha": "0.0", "write": 50}),
                     Case("like-skewed", "like", {"alpha": "1.4", "write": 50})),
              variants=SYSTEMS, params={"duration": 2000},
              threads=(2,), repeat=5),
    render=LatencyTable(values=LATENCIES,
                        labels=("read avg (us)", "read p99 (us)", "write avg (us)",
                                "write p99 (us)")),
    requires=("tl2",),
    provisional=True,
)

DOPPEL_EXPERIMENTS: tuple[Experiment, ...] = (
    FIG_7_1, FIG_7_2, FIG_7_3, FIG_7_4, FIG_7_6, TABLE_7_3,
)
