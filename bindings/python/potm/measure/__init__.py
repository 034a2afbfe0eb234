"""``potm measure``: the benchmark binaries of a CMake build, as tables.

One runner, three suites, each a subcommand:

* ``potm measure stamp``: the STAMP applications (potm.measure.stamp):
  a matrix of cases x configs into a JSON-lines file, then median times
  and ratios (overhead over seq, speedups, time over tl2), a CSV and a
  figure of the times over tl2's;
* ``potm measure stmbench7``: STMBench7 (potm.measure.stmbench7): a matrix
  of mixes x structural modifications x configs, then medians, the Pot
  thesis's Figure 3.10 and 3.12 views and where starvation appears;
* ``potm measure micro``: the microbenchmarks (potm.measure.micro):
  median throughput, the ratio to seq at one thread, the speedup and the
  abort rate, with JSON-lines and CSV files.

They run the build's executables (``<build>/stamp/<app>-<backend>``,
``<build>/stmbench7/stmbench7-<backend>``, ``<build>/bench/<bench>-<backend>``),
not the package's libraries: the STMBench7 lock builds (coarse, medium)
exist only as executables, and the numbers of earlier measurements were
taken that way.  A configuration is ``variant:threads``
(potm.measure.common).

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="potm")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["measure", "stmbench7", "--summary", "sb7.jsonl"])
    >>> args.suite, args.summary
    ('stmbench7', 'sb7.jsonl')
"""

from __future__ import annotations

import argparse
from typing import Any

from potm.measure import micro, stamp, stmbench7

SUITES = {"stamp": stamp, "stmbench7": stmbench7, "micro": micro}


def add_parser(commands: Any) -> None:
    """Add 'measure' and its suites to the subparsers of a command."""
    p_measure = commands.add_parser(
        "measure", help="time the benchmark binaries of a build: STAMP, STMBench7, "
                        "microbenchmarks")
    suites = p_measure.add_subparsers(dest="suite", metavar="SUITE", required=True)
    for name, module in SUITES.items():
        doc = (module.__doc__ or "").strip()
        p = suites.add_parser(name, help=doc.splitlines()[0].split(": ", 1)[-1].rstrip("."),
                              description=doc.split("\nExample:\n")[0],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Run the suite chosen on the command line; its exit status."""
    status: int = SUITES[args.suite].main(args)
    return status
