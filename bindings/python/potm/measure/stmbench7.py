"""``potm measure stmbench7``: the STMBench7 matrix of a build directory.

    potm measure stmbench7 --build build --out sb7.jsonl         # run, then summarise
    potm measure stmbench7 --summary sb7.jsonl                   # summarise only
    potm measure stmbench7 --duration-ms 10000 --reps 3 --workloads r rw w \\
        --structural-mods false --configs tl2:1 tl2:2 pot:2 pot@round-robin:2 coarse:2

Every run is one process, ``<build>/stmbench7/stmbench7-<backend>``,
printing one JSON line; the lines are appended to ``--out`` as they come,
so an interrupted matrix keeps what it measured.  A config is
``variant:threads`` (potm.measure.common): a backend (tl2, seq, gl, the
lock builds coarse and medium...), a mode of the pot backend under the
weighted order STMBench7 picks for it, or ``MODE@ORDER`` under another
(``pot@round-robin``: Pot's own order).  Besides the table of medians, the
summary gives the Pot thesis's two views: each variant normalized to tl2
at the same thread count (Figure 3.10) and the speedup over 1-thread tl2
(Figure 3.12), and where starvation appears: each multi-thread variant's
long traversals, their aborts per execution and their worst latency
against one thread's mean (the same variant's, or seq's when it was not
run alone).  The repetitions are the outer loop: on a shared, noisy
machine a disturbance then spreads over all configurations instead of
spoiling one of them.

Example:
    >>> sorted(["coarse", "tl2", "seq"], key=order_of)
    ['seq', 'tl2', 'coarse']
    >>> sorted(["coarse", "pot@round-robin", "tl2", "pot", "seq"],
    ...        key=order_of)                                    # doctest: +SKIP
    ['seq', 'tl2', 'pot', 'pot@round-robin', 'coarse']
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
from typing import Optional, Sequence

from potm.measure.common import (Record, append_run, default_build, parse_configs,
                                 pot_modes, read_runs, split_words, variant_settings)

DEFAULT_CONFIGS = ["seq:1", "tl2:1", "tl2:2", "gl:1", "gl:2", "coarse:1", "coarse:2",
                   "medium:1", "medium:2"]
MIXES = ("r", "rw", "w")

#: The long traversals, whose attempts are the ones worth protecting.
LONG_TRAVERSALS = ("T1", "T2a", "T2b", "T2c", "T3a", "T3b", "T3c", "T4", "T5", "T6")

#: (structural modifications, workload, variant, threads) -> its runs.
Groups = dict[tuple[bool, str, str, int], list[Record]]


def run_matrix(build: Path, out_path: str, configs: Sequence[tuple[str, int]], size: str,
               workloads: Sequence[str], structural_mods: Sequence[str], reps: int,
               duration_ms: int) -> int:
    """Run the matrix, appending each run to out_path; the failed runs."""
    failed = 0
    with open(out_path, "a") as out:
        for rep, sm, mix, (variant, threads) in itertools.product(
                range(reps), structural_mods, workloads, configs):
            backend, settings = variant_settings(variant, build)
            binary = build / "stmbench7" / f"stmbench7-{backend}"
            cmd = [str(binary), "-s", size, "-w", mix, "-n", str(threads), "-t", "true",
                   "-m", sm, "-d", str(duration_ms), "--seed", str(rep + 1)]
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  env={**os.environ, **settings}, check=False)
            if proc.returncode != 0:
                failed += 1
                print(f"FAILED ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}",
                      file=sys.stderr)
                continue
            d: Record = json.loads(proc.stdout.strip().splitlines()[-1])
            d["variant"] = variant
            append_run(out, d)
            print("rep %d %-6s t%s w=%-2s sm=%-5s %9.1f ops/s  failed %4.1f%%" % (
                rep, variant, threads, mix, sm, d["throughput"],
                100.0 * d["failed_ops"] / max(d["ops"], 1)), file=sys.stderr, flush=True)
    return failed


def order_of(variant: str) -> tuple[int, str]:
    """Rows in a fixed order: seq, tl2, the pot modes (pot@round-robin right
    after pot), the locks, then anything else (rtm, ...)."""
    names = ("seq", "tl2", "tl2-inplace", *pot_modes(), "gl", "coarse", "medium")
    base, _, setting = variant.partition("@")
    rank = names.index(base) if base in names else len(names)
    return (rank, setting)


def _row_key(k: tuple[bool, str, str, int]) -> tuple[bool, int, tuple[int, str], int]:
    return (k[0], MIXES.index(k[1]), order_of(k[2]), k[3])


def _aborts(r: Record) -> float:
    # The library's count where there is one: runs made before the
    # operations took theirs from it (tm_thread_stats) missed the
    # hardware aborts (rtm).
    return float(r.get("stats", {}).get("aborts", r["aborts"]))


def summarise(path: str) -> None:
    """Print the medians, the thesis's views and the starvation view."""
    groups: Groups = {}
    for d in read_runs(path):
        key: tuple[bool, str, str, int] = (d["structural_mods"], d["workload"],
                                           d.get("variant") or d["backend"], d["threads"])
        groups.setdefault(key, []).append(d)
    print("| SMs | workload | backend | threads | runs | ops/s (median) | min..max "
          "| failed % | aborts/op | run length s | links / atomic parts at the end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=_row_key):
        runs = groups[key]
        tp = [r["throughput"] for r in runs]
        failed = statistics.median(100.0 * r["failed_ops"] / max(r["ops"], 1) for r in runs)
        aborts = statistics.median(_aborts(r) / max(r["ops"], 1) for r in runs)
        length = statistics.median(r["elapsed_s"] for r in runs)
        links = statistics.median(r["structure"]["component_links"] for r in runs)
        parts = statistics.median(r["structure"]["atomic_parts"] for r in runs)
        print("| %s | %s | %s | %d | %d | %.0f | %.0f..%.0f | %.1f | %.3f | %.1f | %d / %d |" % (
            "on" if key[0] else "off", key[1], key[2], key[3], len(runs),
            statistics.median(tp), min(tp), max(tp), failed, aborts, length, links, parts))

    pot_thesis_views(groups)
    starvation_view(groups)


def operation_totals(runs: Sequence[Record], op: str) -> tuple[int, float, float, float]:
    """(executions, aborts, worst latency in us, mean latency in us) of op
    over runs; executions count successful and failed ones alike."""
    per = [r["per_operation"][op] for r in runs if op in r.get("per_operation", {})]
    count = sum(p["count"] for p in per)
    time_us = sum(p["total_time_s"] for p in per) * 1e6
    return (count, sum(p["aborts"] for p in per),
            max((p["max_latency_us"] for p in per), default=0.0),
            time_us / count if count else 0.0)


def starvation_view(groups: Groups) -> None:
    """Per multi-thread variant and workload: aborts per operation, the long
    traversals' aborts per execution, and T3c's (the longest: 175,000
    build-date moves) aborts per execution and worst latency against its
    mean at one thread (the same variant alone, else seq).  A transaction
    that starves shows as many aborts and a worst case far above its cost
    alone; a lock shows no aborts, and its worst case is the time spent
    waiting for the other thread's traversal."""
    for sm in sorted({k[0] for k in groups}):
        rows = sorted((k for k in groups if k[0] == sm and k[3] > 1), key=_row_key)
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
            total_aborts = sum(_aborts(r) for r in runs)
            print("| %s | %s | %d | %.3f | %.2f | %s | %s | %s | %s |" % (
                key[1], key[2], key[3], total_aborts / max(ops, 1),
                aborts / execs if execs else 0.0,
                "%s %.2f" % (most, totals[most][1] / totals[most][0]) if most else "",
                "%.2f" % (a3 / n3) if n3 else "",
                "%.1f" % (worst3 / 1000) if n3 else "",
                "%.1f" % (worst3 / base3) if n3 and base3 else ""))


def pot_thesis_views(groups: Groups) -> None:
    """Figure 3.10 (variant / tl2, same threads) and 3.12 (/ 1-thread tl2)."""
    med = {k: statistics.median(r["throughput"] for r in runs) for k, runs in groups.items()}
    views: tuple[tuple[str, Optional[int]], ...] = (
        ("normalized to tl2 at the same thread count (Pot thesis Figure 3.10)", None),
        ("speedup over 1-thread tl2 (Pot thesis Figure 3.12)", 1))
    for sm in sorted({k[0] for k in med}):
        for title, base_threads in views:
            rows = sorted({(k[2], k[3]) for k in med if k[0] == sm},
                          key=lambda vt: (order_of(vt[0]), vt[1]))
            print("\nStructural modifications %s; %s:\n" % ("on" if sm else "off", title))
            print("| variant | threads | r | rw | w |")
            print("|---|---|---|---|---|")
            for variant, threads in rows:
                cells = []
                for w in MIXES:
                    base = med.get((sm, w, "tl2", base_threads or threads))
                    v = med.get((sm, w, variant, threads))
                    cells.append("%.2f" % (v / base) if v and base else "")
                print("| %s | %d | %s |" % (variant, threads, " | ".join(cells)))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of 'potm measure stmbench7'."""
    parser.add_argument("--build", default=default_build(),
                        help="CMake build directory of the stmbench7-<backend> binaries "
                             "(default: $POTMPY_LIB_DIR, else build)")
    parser.add_argument("--out", default="stmbench7-results.jsonl",
                        help="JSON-lines file the runs are appended to "
                             "(default stmbench7-results.jsonl)")
    parser.add_argument("--summary", metavar="FILE", help="only summarise this JSONL file")
    parser.add_argument("--size", default="small", help="structure size (default small)")
    parser.add_argument("--duration-ms", type=int, default=10000,
                        help="length of each run (default 10000)")
    parser.add_argument("--reps", "--repeat", dest="reps", type=int, default=3,
                        help="repetitions (default 3)")
    parser.add_argument("--workloads", nargs="+", default=list(MIXES), metavar="MIX",
                        help="operation mixes r, rw, w (default: all three)")
    parser.add_argument("--structural-mods", nargs="+", default=["false", "true"],
                        metavar="BOOL", help="structural modifications off (false) and/or "
                                             "on (true) (default: both)")
    parser.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS,
                        metavar="VARIANT:THREADS", help="configs (default: "
                                                        f"{' '.join(DEFAULT_CONFIGS)})")


def main(args: argparse.Namespace) -> int:
    """Run (unless --summary) and summarise; 1 if a run failed, else 0."""
    if args.summary:
        summarise(args.summary)
        return 0
    mixes = split_words(args.workloads)
    for mix in mixes:
        if mix not in MIXES:
            raise ValueError(f"--workloads {mix!r}: expected {', '.join(MIXES)}")
    mods = split_words(args.structural_mods)
    for sm in mods:
        if sm not in ("false", "true"):
            raise ValueError(f"--structural-mods {sm!r}: expected false or true")
    if args.reps < 1:
        raise ValueError(f"--reps {args.reps}: expected at least 1")
    failed = run_matrix(Path(args.build).resolve(), args.out, parse_configs(args.configs),
                        args.size, mixes, mods, args.reps, args.duration_ms)
    summarise(args.out)
    return 1 if failed else 0
