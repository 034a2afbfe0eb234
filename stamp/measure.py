#!/usr/bin/env python3
"""Time the STAMP applications on several backends and summarise (issue 6).

    stamp/measure.py --out stamp-real.jsonl                 # run, then summarise
    stamp/measure.py --summary stamp-real.jsonl             # summarise only
    stamp/measure.py --cases kmeans-low,yada --configs seq:1,tl2:2 --reps 1
    stamp/measure.py --summary runs.jsonl --csv runs.csv --plot fig   # fig.png, fig.svg

A case is an application at an input set (stamp/inputs.py; default: the
`real` sets, STAMP's README inputs for real machines); a config is
variant:threads, where a variant is a backend (seq, tl2, ...) or a mode of
the pot backend (pot-fast, pot-ordered, pogl, destm).  Every run is one
process whose JSON line (the transactional phase's time, the check result)
is appended to --out as it comes, so an interrupted matrix keeps what it
measured.  Repetitions are the outer loop: on a noisy machine a
disturbance spreads over every configuration instead of spoiling one.

The summary: median times, then the issue's ratios with their geometric
means: 1-thread overhead of each variant over seq, speedup over seq at 2
threads, and each variant's time over tl2's at the same thread count.
"""

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inputs  # noqa: E402

POT_MODES = ("pot", "pot-fast", "pot-ordered", "pogl", "destm")

#: case name -> (application, input set, or None for the --size default).
CASES = {
    "bayes": ("bayes", None), "genome": ("genome", None), "intruder": ("intruder", None),
    "kmeans-low": ("kmeans", None), "kmeans-high": ("kmeans", "high"),
    "labyrinth": ("labyrinth", None), "ssca2": ("ssca2", None),
    "vacation-low": ("vacation", None), "vacation-high": ("vacation", "high"),
    "yada": ("yada", None),
}
DEFAULT_CONFIGS = "seq:1,tl2:1,tl2:2,pot:2"


def case_set(case, size):
    app, flavour = CASES[case]
    return app, size + "-high" if flavour else size


def run_matrix(o):
    build = os.path.abspath(o.build)
    input_dir = os.path.join(build, "stamp", "inputs")
    configs = [c.split(":") for c in o.configs.split(",")]
    cases = o.cases.split(",")
    for case in cases:
        if case not in CASES:
            raise SystemExit("unknown case %r; known: %s" % (case, ", ".join(CASES)))
    with open(o.out, "a") as out:
        for rep, case, (variant, threads) in itertools.product(range(o.reps), cases, configs):
            app, set_name = case_set(case, o.size)
            backend, env = variant, dict(os.environ)
            if variant in POT_MODES:
                backend, env["POTM_MODE"] = "pot", variant
            binary = os.path.join(build, "stamp", "%s-%s" % (app, backend))
            args = inputs.app_args(app, set_name, input_dir)
            args.append("%s%s" % (inputs.THREAD_FLAG[app], threads))
            proc = subprocess.run([binary] + args, capture_output=True, text=True, env=env,
                                  timeout=o.timeout)
            lines = [l for l in proc.stdout.splitlines() if l.startswith('{"app"')]
            if proc.returncode != 0 or not lines:
                print("FAILED (%d): %s %s\n%s" % (proc.returncode, binary, " ".join(args),
                                                  proc.stderr[-2000:]), file=sys.stderr)
                continue
            d = json.loads(lines[-1])
            d.update(case=case, set=set_name, variant=variant, rep=rep)
            out.write(json.dumps(d) + "\n")
            out.flush()
            print("rep %d %-14s %-11s t%s %8.3f s  %s" % (rep, case, variant, threads,
                  d["time"], d["check"]), file=sys.stderr, flush=True)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def read_runs(path):
    """The runs of a JSON-lines file written by run_matrix, one dict each."""
    with open(path) as f:
        return [json.loads(line) for line in f]


def summarise(path):
    times = {}
    for d in read_runs(path):
        if d.get("check") == "pass":
            times.setdefault((d["case"], d["variant"], d["threads"]), []).append(d["time"])
    if not times:
        raise SystemExit("%s: no passing runs to summarise" % path)
    med = {k: statistics.median(v) for k, v in times.items()}
    cases = [c for c in CASES if any(k[0] == c for k in med)]
    configs = sorted({(k[1], k[2]) for k in med}, key=lambda c: (c[1], c[0] != "seq", c[0] != "tl2", c[0]))
    head = ["case"] + ["%s t%d" % c for c in configs]
    print("Median time of the transactional phase, seconds (runs per point: %d..%d)"
          % (min(map(len, times.values())), max(map(len, times.values()))))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for c in cases:
        cells = ["%.3f" % med[(c,) + cf] if (c,) + cf in med else "" for cf in configs]
        print("| %s | %s |" % (c, " | ".join(cells)))

    def ratio_row(title, num, den):
        rs = [(c, med[(c,) + num] / med[(c,) + den]) for c in cases
              if (c,) + num in med and (c,) + den in med]
        if rs:
            print("%-34s %s | geomean %.2f" % (title, " ".join("%s %.2f" % r for r in rs),
                                                 geomean([r for _, r in rs])))
    print()
    for v, t in configs:
        if v != "seq" and t == 1:
            ratio_row("%s 1-thread time / seq:" % v, (v, 1), ("seq", 1))
    for v, t in configs:
        if t > 1:
            rs = [(c, med[(c, "seq", 1)] / med[(c, v, t)]) for c in cases
                  if (c, "seq", 1) in med and (c, v, t) in med]
            if rs:
                print("%-34s %s | geomean %.2f" % ("%s %d-thread speedup over seq:" % (v, t),
                      " ".join("%s %.2f" % r for r in rs), geomean([r for _, r in rs])))
    for v, t in configs:
        if t > 1 and ("tl2", 1) in configs:   # Figure 3.11's view
            ratio_row("%s %d-thread speedup over tl2 t1:" % (v, t), ("tl2", 1), (v, t))
    for v, t in configs:
        if v != "tl2" and v != "seq" and ("tl2", t) in configs:
            ratio_row("%s time / tl2 time, %d threads:" % (v, t), (v, t), ("tl2", t))


CSV_COLUMNS = ("case", "set", "variant", "threads", "rep", "time", "commits", "aborts",
               "check", "digest")


def write_csv(path, csv_path):
    """Every run of the JSON-lines file as one CSV row (time in seconds)."""
    with open(csv_path, "w") as out:
        out.write(",".join(c if c != "time" else "time_s" for c in CSV_COLUMNS) + "\n")
        for d in read_runs(path):
            out.write(",".join(str(d.get(c, "")) for c in CSV_COLUMNS) + "\n")


def plot_normalized(path, stem, threads):
    """Figure 3.7's view: each variant's time over tl2's at `threads`,
    one group of bars per case (medians, min..max error bars); writes
    <stem>.png and <stem>.svg with the potm package of this checkout."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bindings", "python"))
    import numpy as np
    from potm.plot import normalized_bars
    from potm.table import SweepTable
    runs = [d for d in read_runs(path) if d["threads"] == threads]
    if not runs:
        raise SystemExit("--plot: no runs with %d threads in %s" % (threads, path))

    def text(key):
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


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--out", help="JSON-lines file the runs are appended to")
    ap.add_argument("--summary", help="only summarise this JSON-lines file")
    ap.add_argument("--size", default="real", help="input set (default real)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--configs", default=DEFAULT_CONFIGS)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    ap.add_argument("--csv", metavar="FILE", help="also write every run as CSV")
    ap.add_argument("--plot", metavar="STEM",
                    help="also draw each variant's time over tl2's (STEM.png, STEM.svg)")
    ap.add_argument("--plot-threads", type=int, default=2, help="threads of --plot (default 2)")
    o = ap.parse_args(argv)
    if o.summary:
        summarise(o.summary)
        report_files(o, o.summary)
        return 0
    if not o.out:
        ap.error("--out FILE (or --summary FILE)")
    run_matrix(o)
    summarise(o.out)
    report_files(o, o.out)
    return 0


def report_files(o, path):
    if o.csv:
        write_csv(path, o.csv)
    if o.plot:
        plot_normalized(path, o.plot, o.plot_threads)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
