#!/usr/bin/env python3
"""Silo's Figure 8 on two cores: New-Order alone, 2 warehouses = 2
threads, a rising share of remote order lines; silo and tl2 (shared
store, conventional execution) against the partitioned store (a lock per
warehouse) and DORA over private tables, interleaved medians: the runs
behind docs/RESULTS.md's Figure 8 rows.

    python3 scripts/measure_fig8.py [--build DIR] [--repeat N] [--duration MS]
        [--remote 0 10 50 100]

(`potm reproduce tpcc-dora-remote --full` draws the whole figure, every
DORA series included, with 2 s runs.)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import print_table, run_interleaved  # noqa: E402

#: (series name, program, execution)
SERIES = (("silo", "tpcc-silo", "conventional"), ("tl2", "tpcc-tl2", "conventional"),
          ("partitioned", "tpcc-tl2", "partitioned"),
          ("dora-private", "tpcc-tl2", "dora-private"))


def configs(build: Path, ms: int, remote: list[int]) -> list[tuple[str, list[str]]]:
    """The configurations, by name: every series at every remote share."""
    return [(f"x={x:3d} {name}", [str(build / "tpcc" / prog), "-e", e, "-m", "new-order",
                                   "-x", str(x), "-w", "2", "-t", "2", "-d", str(ms)])
            for x in remote for name, prog, e in SERIES]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", type=Path, default=Path("build"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--duration", type=int, default=1000, help="ms per run")
    p.add_argument("--remote", type=int, nargs="+", default=[0, 10, 50, 100])
    a = p.parse_args()
    for _, prog, _ in SERIES:
        if not (a.build / "tpcc" / prog).is_file():
            p.error(f"{a.build}/tpcc/{prog} not found: build first (make build)")
    if a.repeat < 1 or a.duration < 1 or any(not 0 <= x <= 100 for x in a.remote):
        p.error("--repeat and --duration must be positive, --remote within 0..100")
    print_table(run_interleaved(configs(a.build, a.duration, a.remote), a.repeat))


if __name__ == "__main__":
    main()
