"""'potm measure stamp': its summary, CSV and figure on a JSON-lines file of
runs (the format its matrix writes), without running STAMP; and one tiny
matrix on the binaries of the C build, when they are built."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import potm
from conftest import build_dir

#: The command, from the package under test.
MEASURE = [sys.executable, "-m", "potm", "measure", "stamp"]
ENV = dict(os.environ, PYTHONPATH=str(Path(potm.__file__).parent.parent))

#: (case, variant, threads) -> seconds of the three repetitions.
TIMES = {
    ("kmeans-low", "seq", 1): (1.0, 1.1, 0.9),
    ("kmeans-low", "tl2", 1): (4.0, 4.0, 4.0),
    ("kmeans-low", "tl2", 2): (2.0, 2.2, 1.8),
    ("kmeans-low", "pot", 2): (3.0, 3.3, 2.7),
    ("yada", "seq", 1): (1.0, 1.0, 1.0),
    ("yada", "tl2", 1): (4.0, 4.0, 4.0),
    ("yada", "tl2", 2): (4.0, 4.0, 4.0),
    ("yada", "pot", 2): (2.0, 2.0, 2.0),
}


def write_runs(path: Path) -> None:
    with path.open("w") as out:
        for (case, variant, threads), times in TIMES.items():
            for rep, t in enumerate(times):
                out.write(json.dumps({"app": case.split("-")[0], "backend": variant,
                                      "threads": threads, "time": t, "commits": 10,
                                      "aborts": 0, "check": "pass", "digest": "ab",
                                      "case": case, "set": "real", "variant": variant,
                                      "rep": rep}) + "\n")


def test_summary_csv_and_figure(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    write_runs(runs)
    proc = subprocess.run([*MEASURE, "--summary", str(runs),
                           "--csv", str(tmp_path / "runs.csv"),
                           "--plot", str(tmp_path / "fig")],
                          capture_output=True, text=True, check=True, env=ENV)
    # pot over tl2: 3.0/2.0 and 2.0/4.0, geometric mean sqrt(0.75).
    assert "pot time / tl2 time, 2 threads:" in proc.stdout
    assert "kmeans-low 1.50 yada 0.50 | geomean 0.87" in proc.stdout
    # Figure 3.11's view: tl2 at 2 threads over tl2 at 1, 4.0/2.0 and 4.0/4.0.
    assert "tl2 2-thread speedup over tl2 t1:" in proc.stdout
    assert "kmeans-low 2.00 yada 1.00 | geomean 1.41" in proc.stdout
    with (tmp_path / "runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 24
    assert rows[0]["case"] == "kmeans-low" and float(rows[0]["time_s"]) == 1.0
    for ext in ("png", "svg"):
        assert (tmp_path / f"fig.{ext}").stat().st_size > 1000


def test_plot_without_runs_at_those_threads_fails_clearly(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    write_runs(runs)
    proc = subprocess.run([*MEASURE, "--summary", str(runs),
                           "--plot", str(tmp_path / "fig"), "--plot-threads", "4"],
                          capture_output=True, text=True, env=ENV)
    assert proc.returncode == 2
    assert "no runs with 4 threads" in proc.stderr
    assert not (tmp_path / "fig.png").exists()


def test_usage_errors(tmp_path: Path) -> None:
    for args, message in ((["--out", str(tmp_path / "r"), "--cases", "nope"], "unknown case"),
                          (["--out", str(tmp_path / "r"), "--configs", "tl2"],
                           "expected variant:threads"),
                          ([], "--out FILE (or --summary FILE)")):
        proc = subprocess.run([*MEASURE, *args], capture_output=True, text=True, env=ENV)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not (tmp_path / "r").exists()


def test_a_tiny_matrix_on_the_build(tmp_path: Path) -> None:
    """Two cases at the small inputs, a plain backend and a Pot mode under
    another order (pot@round-robin), both thread-count flags (kmeans -p,
    vacation -c), comma-separated and separate words."""
    build = build_dir()
    needed = [build / "stamp" / f"{app}-{b}" for app in ("kmeans", "vacation")
              for b in ("tl2", "pot")]
    missing = [p.name for p in needed if not p.is_file()]
    if missing:
        pytest.skip(f"not built in {build}/stamp: {', '.join(missing)}")
    runs = tmp_path / "runs.jsonl"
    proc = subprocess.run([*MEASURE, "--build", str(build), "--out", str(runs), "--size",
                           "small", "--cases", "kmeans-low,vacation-high", "--configs",
                           "tl2:2", "pot@round-robin:2", "--reps", "1"],
                          capture_output=True, text=True, env=ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [(d["case"], d["set"], d["variant"], d["threads"], d["check"]) for d in lines] == [
        ("kmeans-low", "small", "tl2", 2, "pass"),
        ("kmeans-low", "small", "pot@round-robin", 2, "pass"),
        ("vacation-high", "small-high", "tl2", 2, "pass"),
        ("vacation-high", "small-high", "pot@round-robin", 2, "pass")]
    assert "pot@round-robin time / tl2 time, 2 threads:" in proc.stdout
