"""Experiments on the microbenchmarks (intset, bank): they run today.

* ``overhead``: single-thread cost of each backend, throughput relative
  to seq (no concurrency control) on a red-black tree;
* ``fig-3.11``: scalability, speedup over 1-thread TL2 (the Pot thesis's
  Figure 3.11 view, on microbenchmarks instead of its applications);
* ``determinism-cost``: each Pot mode relative to TL2 at 2 threads (the
  Pot thesis's Figure 3.7 view, on microbenchmarks).

Quick grids take about a minute or less on 2 cores (short runs, 3
repeats); full grids use 1-second runs, 5 repeats, more structures and
oversubscribed thread counts.

Example:
    >>> [e.id for e in MICRO_EXPERIMENTS]
    ['overhead', 'fig-3.11', 'determinism-cost']
    >>> len(OVERHEAD.quick.sweeps())
    5
"""

from __future__ import annotations

from potm.experiments.model import Case, Experiment, Grid
from potm.experiments.render import NormalizedBars, Speedup
from potm.experiments.variants import POT_MODES

#: Run lengths (ms) and repeats of the two scales.
QUICK_MS, QUICK_REPEAT = 150, 3
FULL_MS, FULL_REPEAT = 1000, 5

#: The intset of the overhead and scalability experiments: 4096 keys drawn
#: from 8192, 20% updates (half inserts, half removals: the size stays).
SET_SIZE = {"initial": 4096, "range": 8192, "update": 20}


def intset(structure: str) -> Case:
    """The standard integer set on one structure (rb, ll, hs, sl)."""
    return Case(f"intset-{structure}", "intset", {"structure": structure, **SET_SIZE})


#: The bank: 1024 accounts, 20% read-only total-balance transactions.
BANK = Case("bank", "bank", {"accounts": 1024, "readonly": 20})

OVERHEAD = Experiment(
    id="overhead",
    title="Single-thread overhead: throughput relative to seq (intset, 4096/8192, 20% updates)",
    reproduces="the uninstrumented (seq) throughput as the limit each TM backend is "
               "measured against at one thread: the cost of instrumentation alone",
    quick=Grid(cases=(intset("rb"),), variants=("seq", "gl", "tl2", "pot", "rtm"),
               threads=(1,), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=tuple(intset(s) for s in ("rb", "hs", "sl", "ll")),
              variants=("seq", "gl", "tl2", *POT_MODES, "rtm"),
              threads=(1,), repeat=FULL_REPEAT, params={"duration": FULL_MS}),
    render=NormalizedBars(baseline="seq"),
    requires=("seq",),
    notes="Every built backend at 1 thread; a backend that is not built is left out.",
)

SCALABILITY = Experiment(
    id="fig-3.11",
    title="Scalability: speedup over 1-thread TL2 (intset rb and hash set, bank)",
    reproduces="Pot thesis Figure 3.11: speedup over single-threaded TL2 as threads grow, "
               "Pot next to TL2 (the thesis on its applications and a many-core machine)",
    quick=Grid(cases=(intset("rb"), intset("hs"), BANK), variants=("gl", "tl2", "pot"),
               threads=(1, 2), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=(intset("rb"), intset("hs"), BANK),
              variants=("gl", "tl2", "pot", "pot-fast", "rtm"),
              threads=(1, 2, 4, 8), repeat=FULL_REPEAT, params={"duration": FULL_MS}),
    render=Speedup(baseline="tl2"),
    requires=("tl2",),
    notes="2 cores: 4 and 8 threads (full grid only) oversubscribe the machine; the "
          "thesis's figure goes to many more cores and uses applications, not "
          "microbenchmarks.",
)

DETERMINISM_COST = Experiment(
    id="determinism-cost",
    title="Cost of determinism: Pot modes relative to TL2, 2 threads",
    reproduces="Pot thesis Figure 3.7 (microbenchmark view): performance of Pot, Pot* "
               "(pot-fast), Pot- (pot-ordered), PoGL and DeSTM normalized to TL2",
    quick=Grid(cases=(intset("rb"), BANK), variants=("tl2", *POT_MODES),
               threads=(2,), repeat=QUICK_REPEAT, params={"duration": QUICK_MS}),
    full=Grid(cases=(intset("rb"), intset("hs"), intset("sl"), BANK),
              variants=("tl2", *POT_MODES), threads=(2,), repeat=FULL_REPEAT,
              params={"duration": FULL_MS}),
    render=NormalizedBars(baseline="tl2"),
    requires=("tl2", "pot"),
    notes="The thesis measures STAMP execution times (fig-3.7 here, once STAMP is "
          "built); this is the same comparison on microbenchmark throughput.",
)

MICRO_EXPERIMENTS: tuple[Experiment, ...] = (OVERHEAD, SCALABILITY, DETERMINISM_COST)
