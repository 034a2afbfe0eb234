"""'potm measure stmbench7': its summary on a JSON-lines file of runs (the
format its matrix writes), without running STMBench7: the medians, the Pot
thesis's two views and where starvation appears; and one tiny matrix on
the binaries of the C build, when they are built."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import potm
from conftest import build_dir

#: The command, from the package under test.
MEASURE = [sys.executable, "-m", "potm", "measure", "stmbench7"]
ENV = dict(os.environ, PYTHONPATH=str(Path(potm.__file__).parent.parent))


def run_line(variant: str, threads: int, throughput: float,
             ops: dict[str, tuple[int, int, float, float]]) -> dict[str, Any]:
    """One run of the rw mix, structural modifications off; ops maps an
    operation to (executions, aborts, total seconds, worst latency us)."""
    per_operation = {name: {"count": n, "aborts": a, "total_time_s": t, "max_latency_us": m}
                     for name, (n, a, t, m) in ops.items()}
    aborts = sum(a for _, a, _, _ in ops.values())
    return {"structural_mods": False, "workload": "rw", "backend": variant.split("@")[0],
            "variant": variant, "threads": threads, "throughput": throughput,
            "ops": 1000, "failed_ops": 10, "aborts": aborts, "stats": {"aborts": aborts},
            "elapsed_s": 10.0, "structure": {"component_links": 2187, "atomic_parts": 1000},
            "per_operation": per_operation}


def write_runs(path: Path) -> None:
    runs = []
    for tp in (900.0, 1000.0, 1100.0):
        runs.append(run_line("tl2", 1, tp, {"T3c": (10, 0, 0.2, 25_000.0)}))
    for _ in range(3):
        runs.append(run_line("seq", 1, 2500.0, {"T3c": (10, 0, 0.1, 11_000.0)}))
        runs.append(run_line("tl2", 2, 1200.0, {"T3c": (10, 20, 0.5, 100_000.0),
                                                "T1": (100, 10, 0.3, 9_000.0)}))
        runs.append(run_line("coarse", 2, 2000.0, {"T3c": (10, 0, 0.2, 40_000.0)}))
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))


def test_summary_views_and_starvation(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    write_runs(runs)
    out = subprocess.run([*MEASURE, "--summary", str(runs)],
                         capture_output=True, text=True, check=True, env=ENV).stdout
    # Medians and spread.
    assert "| off | rw | tl2 | 1 | 3 | 1000 | 900..1100 |" in out
    # Figure 3.10: each variant over tl2 at its thread count; 3.12: over
    # 1-thread tl2.
    fig_3_10 = out.split("Figure 3.10")[1].split("Figure 3.12")[0]
    assert "| coarse | 2 |  | 1.67 |  |" in fig_3_10
    assert "| tl2 | 2 |  | 1.20 |  |" in out.split("Figure 3.12")[1]
    # Starvation: tl2's long traversals abort (20 + 10) / (10 + 100) times
    # per execution, T3c twice, its worst case 100 ms against 20 ms alone;
    # the lock never aborts and its worst case is measured against seq's.
    starvation = out.split("where starvation appears")[1]
    assert "| rw | tl2 | 2 | 0.030 | 0.27 | T3c 2.00 | 2.00 | 100.0 | 5.0 |" in starvation
    assert "| rw | coarse | 2 | 0.000 | 0.00 |  | 0.00 | 40.0 | 4.0 |" in starvation
    # Single-thread rows are not part of that view.
    assert "| rw | tl2 | 1 |" not in starvation


def test_a_tiny_matrix_on_the_build(tmp_path: Path) -> None:
    """tl2 and pot under another order (pot@round-robin), one mix, both
    structural-modification settings, short runs."""
    build = build_dir()
    needed = [build / "stmbench7" / f"stmbench7-{b}" for b in ("tl2", "pot")]
    missing = [p.name for p in needed if not p.is_file()]
    if missing:
        pytest.skip(f"not built in {build}/stmbench7: {', '.join(missing)}")
    runs = tmp_path / "runs.jsonl"
    proc = subprocess.run([*MEASURE, "--build", str(build), "--out", str(runs), "--size",
                           "tiny", "--duration-ms", "100", "--reps", "1", "--workloads", "rw",
                           "--structural-mods", "false,true", "--configs", "tl2:1",
                           "pot@round-robin:2"],
                          capture_output=True, text=True, env=ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [(d["variant"], d["threads"], d["workload"], d["structural_mods"])
            for d in lines] == [("tl2", 1, "rw", False), ("pot@round-robin", 2, "rw", False),
                                ("tl2", 1, "rw", True), ("pot@round-robin", 2, "rw", True)]
    assert all(d["ops"] > 0 for d in lines)
    assert "| off | rw | pot@round-robin | 2 | 1 |" in proc.stdout
    assert "Figure 3.12" in proc.stdout
