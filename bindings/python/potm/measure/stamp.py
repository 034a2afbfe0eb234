"""``potm measure stamp``: time the STAMP applications of a build directory.

    potm measure stamp --build build --out stamp-real.jsonl      # run, then summarise
    potm measure stamp --summary stamp-real.jsonl                # summarise only
    potm measure stamp --cases kmeans-low,yada --configs seq:1,tl2:2 --reps 1 --out F
    potm measure stamp --summary runs.jsonl --csv runs.csv --plot fig   # fig.png, fig.svg

A case is an application at an input set (``stamp/inputs.py``; default:
the ``real`` sets, STAMP's README inputs for real machines); kmeans and
vacation come at low and high contention (``kmeans-low``,
``kmeans-high``...).  A config is ``variant:threads`` (potm.measure.common).
Every run is one process, ``<build>/stamp/<app>-<backend>``, whose JSON
line (the transactional phase's time, the self-check's result) is
appended to ``--out`` as it comes, so an interrupted matrix keeps what it
measured.  Repetitions are the outer loop: on a noisy machine a
disturbance spreads over every configuration instead of spoiling one.

The summary: median times, then ratios with their geometric means: the
1-thread overhead of each variant over seq, the speedup over seq at more
threads, the speedup over 1-thread tl2 (the Pot thesis's Figure 3.11
view) and each variant's time over tl2's at the same thread count.

Example:
    >>> case_set("kmeans-high", "real")
    ('kmeans', 'real-high')
    >>> list(CASES)[:4]
    ['bayes', 'genome', 'intruder', 'kmeans-low']
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from potm.measure.common import (Record, append_run, default_build, geomean,
                                 parse_configs, read_runs, split_words, variant_settings)
from potm.workloads import STAMP_CASES, workload

#: case name -> (application, flavour: "" or "-high", the suffix of its sets).
CASES: dict[str, tuple[str, str]] = {name: (app, flavour)
                                     for name, app, flavour in STAMP_CASES}

DEFAULT_CONFIGS = "seq:1,tl2:1,tl2:2,pot:2"
CSV_COLUMNS = ("case", "set", "variant", "threads", "rep", "time", "commits", "aborts",
               "check", "digest")


def case_set(case: str, size: str) -> tuple[str, str]:
    """The application and input set of case at size."""
    app, flavour = CASES[case]
    return app, size + flavour


def run_matrix(build: Path, out_path: str, cases: Sequence[str],
               configs: Sequence[tuple[str, int]], size: str, reps: int,
               timeout: float) -> int:
    """Run every case on every config, reps times, appending each run to
    out_path; the number of failed runs."""
    for case in cases:
        if case not in CASES:
            raise ValueError(f"unknown case {case!r}; known: {', '.join(CASES)}")
        app, set_name = case_set(case, size)
        workload(app).validate({"size": set_name})
    from potm.stamp import set_options
    input_dir = build / "stamp" / "inputs"
    failed = 0
    with open(out_path, "a") as out:
        for rep, case, (variant, threads) in itertools.product(range(reps), cases, configs):
            app, set_name = case_set(case, size)
            backend, settings = variant_settings(variant, build)
            binary = build / "stamp" / f"{app}-{backend}"
            thread_flag = next(p.flag for p in workload(app).params if p.name == "threads")
            args = [*set_options(app, set_name, input_dir), f"{thread_flag}{threads}"]
            proc = subprocess.run([str(binary), *args], capture_output=True, text=True,
                                  env={**os.environ, **settings}, timeout=timeout,
                                  check=False)
            lines = [line for line in proc.stdout.splitlines() if line.startswith('{"app"')]
            if proc.returncode != 0 or not lines:
                failed += 1
                print(f"FAILED ({proc.returncode}): {binary} {' '.join(args)}\n"
                      f"{proc.stderr[-2000:]}", file=sys.stderr)
                continue
            d: Record = json.loads(lines[-1])
            d.update(case=case, set=set_name, variant=variant, rep=rep)
            append_run(out, d)
            print("rep %d %-14s %-11s t%s %8.3f s  %s" % (rep, case, variant, threads,
                  d["time"], d["check"]), file=sys.stderr, flush=True)
    return failed


def summarise(path: str) -> None:
    """Print the medians and the ratios of the runs in path."""
    times: dict[tuple[str, str, int], list[float]] = {}
    for d in read_runs(path):
        if d.get("check") == "pass":
            times.setdefault((d["case"], d["variant"], d["threads"]), []).append(d["time"])
    if not times:
        raise ValueError(f"{path}: no passing runs to summarise")
    med = {k: statistics.median(v) for k, v in times.items()}
    cases = [c for c in CASES if any(k[0] == c for k in med)]
    configs = sorted({(k[1], k[2]) for k in med},
                     key=lambda c: (c[1], c[0] != "seq", c[0] != "tl2", c[0]))
    head = ["case"] + ["%s t%d" % c for c in configs]
    print("Median time of the transactional phase, seconds (runs per point: %d..%d)"
          % (min(map(len, times.values())), max(map(len, times.values()))))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for c in cases:
        cells = ["%.3f" % med[(c, *cf)] if (c, *cf) in med else "" for cf in configs]
        print("| %s | %s |" % (c, " | ".join(cells)))

    def ratio_row(title: str, num: tuple[str, int], den: tuple[str, int]) -> None:
        rs = [(c, med[(c, *num)] / med[(c, *den)]) for c in cases
              if (c, *num) in med and (c, *den) in med]
        if rs:
            print("%-34s %s | geomean %.2f" % (title, " ".join("%s %.2f" % r for r in rs),
                                                 geomean([r for _, r in rs])))
    print()
    for v, t in configs:
        if v != "seq" and t == 1:
            ratio_row("%s 1-thread time / seq:" % v, (v, 1), ("seq", 1))
    for v, t in configs:
        if t > 1:
            ratio_row("%s %d-thread speedup over seq:" % (v, t), ("seq", 1), (v, t))
    for v, t in configs:
        if t > 1 and ("tl2", 1) in configs:   # Figure 3.11's view
            ratio_row("%s %d-thread speedup over tl2 t1:" % (v, t), ("tl2", 1), (v, t))
    for v, t in configs:
        if v != "tl2" and v != "seq" and ("tl2", t) in configs:
            ratio_row("%s time / tl2 time, %d threads:" % (v, t), (v, t), ("tl2", t))


def write_csv(path: str, csv_path: str) -> None:
    """Every run of the JSON-lines file as one CSV row (time in seconds)."""
    with open(csv_path, "w") as out:
        out.write(",".join(c if c != "time" else "time_s" for c in CSV_COLUMNS) + "\n")
        for d in read_runs(path):
            out.write(",".join(str(d.get(c, "")) for c in CSV_COLUMNS) + "\n")


def plot_normalized(path: str, stem: str, threads: int) -> None:
    """Figure 3.7's view: each variant's time over tl2's at threads, one
    group of bars per case (medians, min..max error bars); writes
    <stem>.png and <stem>.svg."""
    import numpy as np

    from potm.plot import normalized_bars
    from potm.table import SweepTable
    runs = [d for d in read_runs(path) if d["threads"] == threads]
    if not runs:
        raise ValueError(f"--plot: no runs with {threads} threads in {path}")

    def text(key: str) -> str:
        return "U%d" % max(len(d[key]) for d in runs)
    array = np.zeros(len(runs), dtype=[("case", text("case")), ("variant", text("variant")),
                                       ("repeat", "i8"), ("ok", "?"), ("elapsed", "f8")])
    for i, d in enumerate(runs):
        array[i] = (d["case"], d["variant"], d["rep"], d["check"] == "pass", d["time"])
    table = SweepTable(array, ("case", "variant"))
    normalized_bars(table, "elapsed", group="case", series="variant", baseline="tl2",
                    title="STAMP (%s inputs, %d threads): time relative to tl2"
                          % (runs[0].get("set", ""), threads),
                    ylabel="time / tl2 time (lower is better)", save=stem)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of 'potm measure stamp'."""
    parser.add_argument("--build", default=default_build(),
                        help="CMake build directory of the STAMP binaries "
                             "(default: $POTMPY_LIB_DIR, else build)")
    parser.add_argument("--out", help="JSON-lines file the runs are appended to")
    parser.add_argument("--summary", metavar="FILE", help="only summarise this JSON-lines file")
    parser.add_argument("--size", default="real", help="input set (default real)")
    parser.add_argument("--cases", nargs="+", default=list(CASES), metavar="CASE",
                        help="cases, comma-separated or several (default: all)")
    parser.add_argument("--configs", nargs="+", default=[DEFAULT_CONFIGS],
                        metavar="VARIANT:THREADS",
                        help=f"configs, comma-separated or several (default {DEFAULT_CONFIGS})")
    parser.add_argument("--reps", "--repeat", dest="reps", type=int, default=3,
                        help="repetitions (default 3)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds per run (default 1800)")
    parser.add_argument("--csv", metavar="FILE", help="also write every run as CSV")
    parser.add_argument("--plot", metavar="STEM",
                        help="also draw each variant's time over tl2's (STEM.png, STEM.svg)")
    parser.add_argument("--plot-threads", type=int, default=2,
                        help="threads of --plot (default 2)")


def main(args: argparse.Namespace) -> int:
    """Run (unless --summary) and summarise; 1 if a run failed, else 0."""
    failed = 0
    path = args.summary
    if not path:
        if not args.out:
            raise ValueError("potm measure stamp: --out FILE (or --summary FILE)")
        if args.reps < 1:
            raise ValueError(f"--reps {args.reps}: expected at least 1")
        failed = run_matrix(Path(args.build).resolve(), args.out, split_words(args.cases),
                            parse_configs(args.configs), args.size, args.reps, args.timeout)
        path = args.out
    summarise(path)
    if args.csv:
        write_csv(path, args.csv)
    if args.plot:
        plot_normalized(path, args.plot, args.plot_threads)
    return 1 if failed else 0
