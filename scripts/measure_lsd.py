#!/usr/bin/env python3
"""LSD against standard accesses, interleaved, medians: the runs behind
docs/RESULTS.md's LSD section (2 threads; OCC = tl2, 2PL = 2pl, Pot = pot).

    python3 scripts/measure_lsd.py [BUILD_DIR] [REPEATS] [WORKLOADS]

WORKLOADS: a comma-separated subset of hotkey, assert-c0, assert-c1,
tpcc-w1.  Prints one line per configuration: median throughput, median
abort rate, runs.
"""
import json, statistics, subprocess, sys
B = sys.argv[1] if len(sys.argv) > 1 else "build"
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
configs = []
for be in ("tl2", "2pl", "pot"):
    for m in ("std", "lsd"):
        configs.append((f"hotkey {be} {m}", [f"{B}/bench/lsd-{be}", "-w", "hotkey", "-m", m, "-p", "4", "-r", "64", "-t", "2", "-d", "1000"]))
        configs.append((f"assert-c0 {be} {m}", [f"{B}/bench/lsd-{be}", "-w", "assert", "-m", m, "-p", "4", "-r", "64", "-t", "2", "-d", "1000"]))
        configs.append((f"assert-c1 {be} {m}", [f"{B}/bench/lsd-{be}", "-w", "assert", "-c", "1", "-m", m, "-p", "4", "-r", "64", "-t", "2", "-d", "1000"]))
        configs.append((f"tpcc-w1 {be} {m}", [f"{B}/tpcc/tpcc-{be}", "-a", m, "-w", "1", "-t", "2", "-d", "2000"]))
configs.append(("hotkey seq std", [f"{B}/bench/lsd-seq", "-w", "hotkey", "-m", "std", "-p", "4", "-r", "64", "-t", "1", "-d", "1000"]))
configs.append(("tpcc-w1 seq std", [f"{B}/tpcc/tpcc-seq", "-w", "1", "-t", "1", "-d", "2000"]))
only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
res = {}
for rep in range(REPS):
    for name, cmd in configs:
        if only and name.split()[0] not in only:
            continue
        out = subprocess.run(cmd, capture_output=True, text=True)
        line = out.stdout.strip().splitlines()[0]
        d = json.loads(line)
        st = d["stats"]
        res.setdefault(name, []).append((d["throughput"], st["aborts"], st["commits"],
                                         st.get("fast_commits", 0)))
for name, v in res.items():
    thr = statistics.median(x[0] for x in v)
    ab = statistics.median(x[1] / max(1, x[1] + x[2]) for x in v)
    # Pot: the share of commits in fast mode (begun in the turn or
    # promoted), which decides most of a Pot variant's cost.
    fast = statistics.median(x[3] / max(1, x[2]) for x in v)
    tail = f"  fast {100*fast:5.1f}%" if any(x[3] for x in v) else ""
    print(f"{name:24s} {thr:14.1f} tx/s  aborts {100*ab:5.1f}%  n={len(v)}{tail}")
