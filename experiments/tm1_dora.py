#!/usr/bin/env python3
"""TM1 (TATP) under DORA against conventional execution on tl2 and 2pl:
throughput against threads (executors) in the standard mix.

    python3 experiments/tm1_dora.py --quick
    python3 experiments/tm1_dora.py --full

--quick (the default) makes short runs on 10000 subscribers into
results/quick/, --full on 100000 (the description's smallest scale) into
plots/; also --out DIR, --lib-dir DIR, --resume.  The same as
'potm reproduce tm1-dora'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid, Variant  # noqa: E402
from _dora import VARIANTS, dora_over  # noqa: E402

CASES = (Case("tm1", "tm1", {}),)

#: The shared systems, and DORA over private tables with the executors as
#: terminals (TM1's alone).
_VARIANTS = VARIANTS + (Variant("dora-inline", "tl2", params={"execution": "dora-inline"}),
                        Variant("dora-inline-affine", "tl2",
                                params={"execution": "dora-inline", "affine": True}))

#: The point the key numbers compare at.
_AT = {"benchmark": "tm1", "threads": 2}


EXPERIMENT = Experiment(
    id="tm1-dora",
    title="TM1 under DORA and conventionally: throughput against threads",
    reproduces="DORA (Pandis et al., CMU-CS-10-101) Figures 8 and 12 for TM1: DORA's "
               "throughput against the conventional system's as load grows, with the "
               "target of DORA at 1.3x conventional or more at 2 executors",
    quick=Grid(cases=CASES, variants=_VARIANTS, threads=(1, 2), repeat=3,
               params={"duration": 200, "subscribers": 10000}),
    full=Grid(cases=CASES, variants=_VARIANTS, threads=(1, 2, 4), repeat=5,
              params={"duration": 2000, "subscribers": 100000}),
    render=Curves(x="threads", ylabel="TM1 transactions per second (standard mix)",
                  keys=(dora_over("2 executors", _AT, "occ"),
                        dora_over("2 executors", _AT, "2pl"),
                        dora_over("2 executors", _AT, "occ", "dora-private"),
                        dora_over("2 executors", _AT, "occ", "dora-inline"),
                        dora_over("2 executors", _AT, "occ", "dora-inline-affine"))),
    requires=("tl2",),
    notes="2 cores: 4 executors oversubscribe the machine, and an idle executor "
          "sleeps on a futex until work arrives (dora-inline's executors poll and "
          "yield instead).  DORA's baseline was Shore-MT's centralized "
          "lock manager, whose contention on TM1 DORA removes; a software TM has "
          "no such table.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
