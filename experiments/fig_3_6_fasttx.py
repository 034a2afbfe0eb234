#!/usr/bin/env python3
"""Pot thesis Figure 3.6: throughput of one transaction by size and kind on
one thread, Pot's fast mode vs TL2 vs uninstrumented code (needs fasttx).

    python3 experiments/fig_3_6_fasttx.py --quick
    python3 experiments/fig_3_6_fasttx.py --full

--quick (the default) makes short runs into results/quick/, --full the
real sizes into plots/; also --out DIR, --lib-dir DIR (default:
$POTMPY_LIB_DIR, else the checkout's build/), --resume.  The same as
'potm reproduce fig-3.6'.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout: its package, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

from potm.experiments import Case, Curves, Experiment, Grid  # noqa: E402

#: Access counts of the figure.
ACCESSES = (0, 1, 2, 4, 8, 16, 32, 64)


def fasttx(kind: str, accesses: tuple[int, ...] = ()) -> Case:
    """Transactions of one kind: r (reads), w (writes), rw (increments).

    An rw transaction is n/2 increments, so it takes only the even access
    counts of accesses (which then override the grid's).

    >>> fasttx("rw", (0, 1, 2, 4)).params
    {'kind': 'rw', 'accesses': [0, 2, 4]}
    """
    params: dict[str, object] = {"kind": kind}
    if kind == "rw" and accesses:
        params["accesses"] = [n for n in accesses if n % 2 == 0]
    return Case(f"fasttx-{kind}", "fasttx", params)


EXPERIMENT = Experiment(
    id="fig-3.6",
    title="Fast transactions: throughput by size and kind, 1 thread",
    reproduces="Pot thesis Figure 3.6: a transaction in Pot's fast mode against the same "
               "transaction on TL2, with uninstrumented code (seq) as the limit, by number "
               "of accesses (0..64) and kind (reads, writes, read-modify-writes)",
    quick=Grid(cases=(fasttx("r"), fasttx("w"), fasttx("rw")),
               variants=("seq", "tl2", "pot-fast"), threads=(1,), repeat=3,
               params={"accesses": [0, 4, 16, 64], "duration": 100}),
    full=Grid(cases=(fasttx("r"), fasttx("w"), fasttx("rw", ACCESSES)),
              variants=("seq", "tl2", "pot", "pot-fast"), threads=(1,), repeat=5,
              params={"accesses": list(ACCESSES), "duration": 1000}),
    render=Curves(x="accesses", logx=False, xlabel="accesses per transaction",
                  ylabel="throughput (tx/s)"),
    requires=("seq", "tl2", "pot"),
    notes="One thread, so every pot transaction runs in fast mode; rw (increments) "
          "takes even access counts only.",
)


if __name__ == "__main__":
    from potm.reproduce import script_main
    sys.exit(script_main(EXPERIMENT, default_lib_dir=Path(__file__).resolve().parents[1]
                         / "build"))
