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
# The checkout's package, unless one is installed (it comes first then).
sys.path.append(str(Path(__file__).resolve().parents[1] / "bindings" / "python"))
from interleave import print_table, run_interleaved  # noqa: E402
from potm.workloads import Value, workload  # noqa: E402


def command(build: Path, program: str, backend: str, **values: Value) -> list[str]:
    """build's program (tpcc or tm1) on backend with values, its command
    line built and checked by the Python package's workload: its option
    letters, ranges and rules, and a switch (tm1's affine) as its bare
    option when True and nothing when False.

    >>> command(Path("b"), "tm1", "tl2", execution="dora-inline", affine=True, threads=2)
    ['b/tpcc/tm1-tl2', '-e', 'dora-inline', '-A', '-t', '2']
    >>> command(Path("b"), "tm1", "tl2", affine=True)
    Traceback (most recent call last):
    ...
    ValueError: tm1: parameter 'affine' = True needs 'execution' to be one of dora, ...
    """
    spec = workload(program)
    return [f"{build}/tpcc/{program}-{backend}", *spec.argv(spec.validate(values))[1:]]


def configs(build: Path, ms: int) -> list[tuple[str, list[str]]]:
    """The configurations, by name."""
    out: list[tuple[str, list[str]]] = []
    tm1: dict[str, Value] = {"subscribers": 100000, "threads": 2, "duration": ms}
    for b in ("tl2", "2pl"):
        for e in ("conventional", "dora"):
            for name, wh in (("tpcc-w2", 2), ("tpcc-w1", 1)):
                out.append((f"{name} {b} {e}", command(build, "tpcc", b, execution=e,
                                                       warehouses=wh, threads=2,
                                                       duration=ms)))
            out.append((f"tm1 {b} {e}", command(build, "tm1", b, execution=e, **tm1)))
    for name, wh in (("tpcc-w2", 2), ("tpcc-w1", 1)):
        out.append((f"{name} dora-private", command(build, "tpcc", "tl2",
                                                    execution="dora-private", warehouses=wh,
                                                    threads=2, duration=ms)))
    out.append(("tm1 dora-private", command(build, "tm1", "tl2", execution="dora-private",
                                            **tm1)))
    # The executors as terminals: local flow graphs at submission, the rest
    # through rings; then with each executor drawing its own subscribers
    # (affine, -A: clients routed to their partition; only the sub_nbr
    # look-ups cross).
    for affine in (False, True):
        out.append(("tm1 dora-inline" + (" affine" if affine else ""),
                    command(build, "tm1", "tl2", execution="dora-inline", affine=affine,
                            **tm1)))
    out.append(("tpcc-w2 seq t1", command(build, "tpcc", "seq", warehouses=2, threads=1,
                                          duration=ms)))
    out.append(("tm1 seq t1", command(build, "tm1", "seq", **{**tm1, "threads": 1})))
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
