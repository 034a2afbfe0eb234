"""Interleaved repeated runs of benchmark programs, medians: the shared
part of scripts/measure_*.py.

Each configuration is a name and a command whose first stdout line is a
JSON object with "throughput" (and, for TM programs, "stats").  Runs are
interleaved (every configuration once, then again), so that a noisy
stretch of the machine spreads over all of them.

>>> rows = run_interleaved([("true", ["sh", "-c", "echo '{\\"throughput\\": 5}'"])], 3)
>>> rows["true"].throughput
5.0
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class Medians:
    """A configuration's medians over its runs."""

    throughput: float
    abort_rate: float   # aborts / (aborts + commits), 0 without TM statistics
    fast_share: float   # Pot: fast-mode commits / commits, 0 elsewhere
    runs: int


def run_once(cmd: list[str]) -> dict[str, object]:
    """Run cmd and return its first stdout line as JSON; exit with the
    command's stderr if it fails."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        sys.exit(f"{' '.join(cmd)}: exit status {out.returncode}\n{out.stderr.strip()}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[0])
    return result


def run_interleaved(configs: list[tuple[str, list[str]]], repeats: int) -> dict[str, Medians]:
    """Run every configuration repeats times, interleaved; medians by name."""
    samples: dict[str, list[tuple[float, float, float]]] = {}
    for _ in range(repeats):
        for name, cmd in configs:
            d = run_once(cmd)
            st = d.get("stats") or {}
            assert isinstance(st, dict)
            aborts, commits = float(st.get("aborts", 0)), float(st.get("commits", 0))
            samples.setdefault(name, []).append((
                float(d["throughput"]),  # type: ignore[arg-type]
                aborts / max(1.0, aborts + commits),
                float(st.get("fast_commits", 0)) / max(1.0, commits)))
    return {name: Medians(statistics.median(x[0] for x in v),
                          statistics.median(x[1] for x in v),
                          statistics.median(x[2] for x in v), len(v))
            for name, v in samples.items()}


def print_table(rows: dict[str, Medians]) -> None:
    """One line per configuration: median throughput, abort rate, runs
    (and Pot's fast-mode share where there is one)."""
    for name, m in rows.items():
        tail = f"  fast {100 * m.fast_share:5.1f}%" if m.fast_share else ""
        print(f"{name:28s} {m.throughput:14.1f} tx/s  aborts {100 * m.abort_rate:5.1f}%"
              f"  n={m.runs}{tail}")
