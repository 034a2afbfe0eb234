#!/usr/bin/env python3
"""LSD against standard accesses, interleaved, medians: the runs behind
docs/RESULTS.md's LSD section (2 threads; OCC = tl2, 2PL = 2pl, Pot = pot).

    python3 scripts/measure_lsd.py [BUILD_DIR] [REPEATS] [WORKLOADS]

WORKLOADS: a comma-separated subset of hotkey, assert-c0, assert-c1,
tpcc-w1.  Prints one line per configuration: median throughput, median
abort rate, runs, and for Pot the share of commits in fast mode (begun in
the turn or promoted), which decides most of a Pot variant's cost.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import print_table, run_interleaved  # noqa: E402

WORKLOADS = ("hotkey", "assert-c0", "assert-c1", "tpcc-w1")


def configs(b: Path) -> list[tuple[str, list[str]]]:
    """Every configuration, by name (its first word is its workload)."""
    lsd = ["-p", "4", "-r", "64", "-t", "2", "-d", "1000"]
    out: list[tuple[str, list[str]]] = []
    for be in ("tl2", "2pl", "pot"):
        for m in ("std", "lsd"):
            prog = f"{b}/bench/lsd-{be}"
            out.append((f"hotkey {be} {m}", [prog, "-w", "hotkey", "-m", m, *lsd]))
            out.append((f"assert-c0 {be} {m}", [prog, "-w", "assert", "-m", m, *lsd]))
            out.append((f"assert-c1 {be} {m}", [prog, "-w", "assert", "-c", "1", "-m", m, *lsd]))
            out.append((f"tpcc-w1 {be} {m}", [f"{b}/tpcc/tpcc-{be}", "-a", m, "-w", "1",
                                              "-t", "2", "-d", "2000"]))
    out.append(("hotkey seq std", [f"{b}/bench/lsd-seq", "-w", "hotkey", "-m", "std", "-p", "4",
                                   "-r", "64", "-t", "1", "-d", "1000"]))
    out.append(("tpcc-w1 seq std", [f"{b}/tpcc/tpcc-seq", "-w", "1", "-t", "1", "-d", "2000"]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build", nargs="?", type=Path, default=Path("build"))
    p.add_argument("repeats", nargs="?", type=int, default=5)
    p.add_argument("workloads", nargs="?", default=",".join(WORKLOADS))
    a = p.parse_args()
    only = set(a.workloads.split(","))
    if not only <= set(WORKLOADS):
        p.error(f"workloads {','.join(sorted(only - set(WORKLOADS)))}: "
                f"expected a subset of {','.join(WORKLOADS)}")
    if not (a.build / "bench" / "lsd-tl2").is_file():
        p.error(f"{a.build}/bench/lsd-tl2 not found: build first (make build)")
    if a.repeats < 1:
        p.error("repeats must be positive")
    chosen = [c for c in configs(a.build) if c[0].split()[0] in only]
    print_table(run_interleaved(chosen, a.repeats))


if __name__ == "__main__":
    main()
