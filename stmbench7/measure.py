#!/usr/bin/env python3
"""Run the STMBench7 measurement matrix and print medians.

    stmbench7/measure.py --build build-sb7 --out sb7.jsonl      # run, then summarise
    stmbench7/measure.py --summary sb7.jsonl                    # summarise only

Every run is one process printing one JSON line; the lines are appended to
--out as they come, so an interrupted matrix keeps what it measured.  A
config is variant:threads, where a variant is a backend (tl2, seq, coarse,
...) or a mode of the pot backend (pot-fast, pot-ordered, pogl, destm: the
pot binary with POTM_MODE set), in the weighted order STMBench7 picks for
them or, as MODE@ORDER, another (pot@round-robin: POTM_SEQUENCER, Pot's
own order).  Besides the table of medians, the summary
gives the Pot thesis's two views: each variant normalized to tl2 at the same
thread count (Figure 3.10) and speedup over 1-thread tl2 (Figure 3.12), and
where starvation appears: each multi-thread variant's long traversals,
their aborts per execution and their worst latency against one thread's
mean (the same variant's, or seq's when it was not run alone).  The
repetitions are the outer loop: on a shared, noisy machine a disturbance
then spreads over all configurations instead of spoiling one of them.
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys

#: Variants that are modes of the pot backend (POTM_MODE).
POT_MODES = ("pot", "pot-fast", "pot-ordered", "pogl", "destm")

#: Variants that are a backend run with settings of its own: tl2-inplace is
#: tl2 with serial mode off (its long transactions go on in place,
#: instrumented, instead of restarting alone on the uninstrumented clone).
ENV_VARIANTS = {"tl2-inplace": ("tl2", {"POTM_SERIAL": "0"})}

DEFAULT_CONFIGS = ["seq:1", "tl2:1", "tl2:2", "gl:1", "gl:2", "coarse:1", "coarse:2",
                   "medium:1", "medium:2"]


def run_matrix(args):
    configs = [c.split(":") for c in args.configs]
    with open(args.out, "a") as out:
        for rep, sm, workload, (backend, threads) in itertools.product(
                range(args.reps), args.structural_mods, args.workloads, configs):
            variant = backend
            env = dict(os.environ)
            # MODE@SEQUENCER, e.g. pot@round-robin: a pot mode under another
            # sequencer (POTM_SEQUENCER).
            mode, _, sequencer = variant.partition("@")
            if variant in ENV_VARIANTS:
                backend, settings = ENV_VARIANTS[variant]
                env.update(settings)
            elif mode in POT_MODES:
                backend = "pot"
                env["POTM_MODE"] = mode
                if sequencer:
                    env["POTM_SEQUENCER"] = sequencer
            binary = os.path.join(args.build, "stmbench7", "stmbench7-" + backend)
            cmd = [binary, "-s", args.size, "-w", workload, "-n", threads, "-t", "true",
                   "-m", sm, "-d", str(args.duration_ms), "--seed", str(rep + 1)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                print("FAILED (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr),
                      file=sys.stderr)
                continue
            d = json.loads(proc.stdout.strip().splitlines()[-1])
            d["variant"] = variant
            out.write(json.dumps(d) + "\n")
            out.flush()
            print("rep %d %-6s t%s w=%-2s sm=%-5s %9.1f ops/s  failed %4.1f%%" % (
                rep, variant, threads, workload, sm, d["throughput"],
                100.0 * d["failed_ops"] / max(d["ops"], 1)), file=sys.stderr, flush=True)


def summarise(path):
    groups = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            key = (d["structural_mods"], d["workload"], d.get("variant", d["backend"]),
                   d["threads"])
            groups.setdefault(key, []).append(d)
    print("| SMs | workload | backend | threads | runs | ops/s (median) | min..max "
          "| failed % | aborts/op | run length s | links / atomic parts at the end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: (k[0], ["r", "rw", "w"].index(k[1]),
                                             order_of(k[2]), k[3])):
        runs = groups[key]
        tp = [r["throughput"] for r in runs]
        failed = statistics.median(100.0 * r["failed_ops"] / max(r["ops"], 1) for r in runs)
        # The library's count where there is one: runs made before the
        # operations took theirs from it (tm_thread_stats) missed the
        # hardware aborts (rtm).
        aborts = statistics.median(r.get("stats", {}).get("aborts", r["aborts"]) /
                                   max(r["ops"], 1) for r in runs)
        length = statistics.median(r["elapsed_s"] for r in runs)
        links = statistics.median(r["structure"]["component_links"] for r in runs)
        parts = statistics.median(r["structure"]["atomic_parts"] for r in runs)
        print("| %s | %s | %s | %d | %d | %.0f | %.0f..%.0f | %.1f | %.3f | %.1f | %d / %d |" % (
            "on" if key[0] else "off", key[1], key[2], key[3], len(runs),
            statistics.median(tp), min(tp), max(tp), failed, aborts, length, links, parts))


    pot_thesis_views(groups)
    starvation_view(groups)


#: The long traversals, whose attempts are the ones worth protecting.
LONG_TRAVERSALS = ("T1", "T2a", "T2b", "T2c", "T3a", "T3b", "T3c", "T4", "T5", "T6")


def operation_totals(runs, op):
    """(executions, aborts, worst latency in us, mean latency in us) of op
    over runs; executions count successful and failed ones alike."""
    per = [r["per_operation"][op] for r in runs if op in r.get("per_operation", {})]
    count = sum(p["count"] for p in per)
    time_us = sum(p["total_time_s"] for p in per) * 1e6
    return (count, sum(p["aborts"] for p in per),
            max((p["max_latency_us"] for p in per), default=0.0),
            time_us / count if count else 0.0)


def starvation_view(groups):
    """Per multi-thread variant and workload: aborts per operation, the long
    traversals' aborts per execution, and T3c's (the longest: 175,000
    build-date moves) aborts per execution and worst latency against its
    mean at one thread (the same variant alone, else seq).  A transaction
    that starves shows as many aborts and a worst case far above its cost
    alone; a lock shows no aborts, and its worst case is the time spent
    waiting for the other thread's traversal."""
    for sm in sorted({k[0] for k in groups}):
        rows = sorted((k for k in groups if k[0] == sm and k[3] > 1),
                      key=lambda k: (["r", "rw", "w"].index(k[1]), order_of(k[2]), k[3]))
        if not rows:
            continue
        print("\nStructural modifications %s; where starvation appears (aborts per "
              "execution; T3c's worst latency against its mean at one thread):\n"
              % ("on" if sm else "off"))
        print("| workload | variant | threads | aborts/op | long traversals: aborts/exec "
              "| most aborted traversal | T3c aborts/exec | T3c worst ms | x 1-thread mean |")
        print("|---|---|---|---|---|---|---|---|---|")
        for key in rows:
            runs = groups[key]
            alone = groups.get((sm, key[1], key[2], 1)) or groups.get((sm, key[1], "seq", 1))
            totals = {op: operation_totals(runs, op) for op in LONG_TRAVERSALS}
            execs = sum(t[0] for t in totals.values())
            aborts = sum(t[1] for t in totals.values())
            most = max((op for op in LONG_TRAVERSALS if totals[op][1]),
                       key=lambda op: totals[op][1] / totals[op][0], default="")
            n3, a3, worst3, _ = totals["T3c"]
            base3 = operation_totals(alone, "T3c")[3] if alone else 0.0
            ops = sum(r["ops"] for r in runs)
            total_aborts = sum(r.get("stats", {}).get("aborts", r["aborts"]) for r in runs)
            print("| %s | %s | %d | %.3f | %.2f | %s | %s | %s | %s |" % (
                key[1], key[2], key[3], total_aborts / max(ops, 1),
                aborts / execs if execs else 0.0,
                "%s %.2f" % (most, totals[most][1] / totals[most][0]) if most else "",
                "%.2f" % (a3 / n3) if n3 else "",
                "%.1f" % (worst3 / 1000) if n3 else "",
                "%.1f" % (worst3 / base3) if n3 and base3 else ""))


def pot_thesis_views(groups):
    """Figure 3.10 (variant / tl2, same threads) and 3.12 (/ 1-thread tl2)."""
    med = {k: statistics.median(r["throughput"] for r in runs) for k, runs in groups.items()}
    for sm in sorted({k[0] for k in med}):
        for title, base_threads in (("normalized to tl2 at the same thread count "
                                     "(Pot thesis Figure 3.10)", None),
                                    ("speedup over 1-thread tl2 (Pot thesis Figure 3.12)", 1)):
            rows = sorted({(k[2], k[3]) for k in med if k[0] == sm},
                          key=lambda vt: (order_of(vt[0]), vt[1]))
            print("\nStructural modifications %s; %s:\n" % ("on" if sm else "off", title))
            print("| variant | threads | r | rw | w |")
            print("|---|---|---|---|---|")
            for variant, threads in rows:
                cells = []
                for w in ("r", "rw", "w"):
                    base = med.get((sm, w, "tl2", base_threads or threads))
                    v = med.get((sm, w, variant, threads))
                    cells.append("%.2f" % (v / base) if v and base else "")
                print("| %s | %d | %s |" % (variant, threads, " | ".join(cells)))


def order_of(variant):
    """Rows in a fixed order: seq, tl2, the pot modes (pot@round-robin right
    after pot), the locks, then anything else (rtm, ...)."""
    names = ("seq", "tl2", "tl2-inplace") + POT_MODES + ("gl", "coarse", "medium")
    base, _, setting = variant.partition("@")
    rank = names.index(base) if base in names else len(names)
    return (rank, setting)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="stmbench7-results.jsonl")
    ap.add_argument("--summary", help="only summarise this JSONL file")
    ap.add_argument("--size", default="small")
    ap.add_argument("--duration-ms", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workloads", nargs="+", default=["r", "rw", "w"])
    ap.add_argument("--structural-mods", nargs="+", default=["false", "true"])
    ap.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS,
                    help="backend:threads pairs")
    args = ap.parse_args()
    if args.summary:
        summarise(args.summary)
        return
    run_matrix(args)
    summarise(args.out)


if __name__ == "__main__":
    main()
