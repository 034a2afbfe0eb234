#!/usr/bin/env python3
"""DORA against conventional (thread-to-transaction) execution, interleaved
medians: the runs behind docs/RESULTS.md's DORA section.

    python3 scripts/measure_dora.py [--build DIR] [--repeat N] [--duration MS]

TPC-C at 2 warehouses (= executors = threads) and at 1, and TM1 (100,000
subscribers), 2 threads, on tl2 and 2pl, each conventional and under
DORA; DORA over private tables (no TM in the executors: tl2 and seq
alike, run once), for TM1 also with inline executors (-e dora-inline, and
with affine terminals, -A);
seq at 1 thread as the limit.  Prints one line per
configuration.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import print_table, run_interleaved  # noqa: E402


def configs(build: Path, ms: int) -> list[tuple[str, list[str]]]:
    """The configurations, by name."""
    out: list[tuple[str, list[str]]] = []
    d = str(ms)
    for b in ("tl2", "2pl"):
        for e in ("conventional", "dora"):
            out.append((f"tpcc-w2 {b} {e}", [f"{build}/tpcc/tpcc-{b}", "-e", e, "-w", "2",
                                             "-t", "2", "-d", d]))
            out.append((f"tpcc-w1 {b} {e}", [f"{build}/tpcc/tpcc-{b}", "-e", e, "-w", "1",
                                             "-t", "2", "-d", d]))
            out.append((f"tm1 {b} {e}", [f"{build}/tpcc/tm1-{b}", "-e", e, "-s", "100000",
                                         "-t", "2", "-d", d]))
    for name, wh in (("tpcc-w2", "2"), ("tpcc-w1", "1")):
        out.append((f"{name} dora-private", [f"{build}/tpcc/tpcc-tl2", "-e", "dora-private",
                                             "-w", wh, "-t", "2", "-d", d]))
    out.append(("tm1 dora-private", [f"{build}/tpcc/tm1-tl2", "-e", "dora-private", "-s",
                                     "100000", "-t", "2", "-d", d]))
    # The executors as terminals: local flow graphs at submission, the rest
    # through rings (issue 39's TM1 DORA row).
    out.append(("tm1 dora-inline", [f"{build}/tpcc/tm1-tl2", "-e", "dora-inline", "-s",
                                    "100000", "-t", "2", "-d", d]))
    # The same with each executor drawing its own subscribers (-A: clients
    # routed to their partition; only the sub_nbr look-ups cross).
    out.append(("tm1 dora-inline affine", [f"{build}/tpcc/tm1-tl2", "-e", "dora-inline", "-A",
                                           "-s", "100000", "-t", "2", "-d", d]))
    out.append(("tpcc-w2 seq t1", [f"{build}/tpcc/tpcc-seq", "-w", "2", "-t", "1", "-d", d]))
    out.append(("tm1 seq t1", [f"{build}/tpcc/tm1-seq", "-s", "100000", "-t", "1", "-d", d]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", type=Path, default=Path("build"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--duration", type=int, default=2000, help="ms per run")
    a = p.parse_args()
    if not (a.build / "tpcc" / "tpcc-tl2").is_file():
        p.error(f"{a.build}/tpcc/tpcc-tl2 not found: build first (make build)")
    if a.repeat < 1 or a.duration < 1:
        p.error("--repeat and --duration must be positive")
    print_table(run_interleaved(configs(a.build, a.duration), a.repeat))


if __name__ == "__main__":
    main()
