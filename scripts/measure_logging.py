#!/usr/bin/env python3
"""The cost of the store's redo log on TPC-C (Silo's Figure 11 persistence
bars): silo without a log, with the log on tmpfs and with it on disk,
interleaved medians: the runs behind docs/RESULTS.md's redo-log rows.

    python3 scripts/measure_logging.py [--build DIR] [--repeat N] [--duration MS]
        [--tmpfs DIR] [--disk DIR]

Standard mix, warehouses = threads, at 1 and 2 threads; every logged run
starts from an empty log directory (removed and made again), so each one
pays its opening checkpoint before its timed part, never inside it.
Prints one line per configuration and the logged-over-unlogged ratios.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import print_table, run_interleaved  # noqa: E402


def configs(build: Path, ms: int, logs: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """The configurations, by name: for each thread count, no log and one
    per log location."""
    out: list[tuple[str, list[str]]] = []
    prog = str(build / "tpcc" / "tpcc-silo")
    for t in ("1", "2"):
        base = [prog, "-w", t, "-t", t, "-d", str(ms)]
        out.append((f"silo t{t} no log", base))
        for where, root in logs.items():
            d = shlex.quote(str(root / f"potm-log-t{t}"))
            cmd = " ".join(shlex.quote(x) for x in base)
            out.append((f"silo t{t} log on {where}",
                        ["sh", "-c", f"rm -rf {d} && exec {cmd} -D {d}"]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", type=Path, default=Path("build"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--duration", type=int, default=1000, help="ms per run")
    p.add_argument("--tmpfs", type=Path, default=Path("/dev/shm"))
    p.add_argument("--disk", type=Path, default=Path("/var/tmp"))
    a = p.parse_args()
    if not (a.build / "tpcc" / "tpcc-silo").is_file():
        p.error(f"{a.build}/tpcc/tpcc-silo not found: build first (make build)")
    if a.repeat < 1 or a.duration < 1:
        p.error("--repeat and --duration must be positive")
    for d in (a.tmpfs, a.disk):
        if not d.is_dir():
            p.error(f"{d}: not a directory")
    rows = run_interleaved(configs(a.build, a.duration, {"tmpfs": a.tmpfs, "disk": a.disk}),
                           a.repeat)
    print_table(rows)
    for t in ("1", "2"):
        plain = rows[f"silo t{t} no log"].throughput
        for where in ("tmpfs", "disk"):
            logged = rows[f"silo t{t} log on {where}"].throughput
            print(f"{t} thread(s): no log over log on {where}: {plain / logged:.2f}x")


if __name__ == "__main__":
    main()
