"""stamp/measure.py's summary, CSV and figure on a JSON-lines file of runs
(the format its matrix writes), without running STAMP."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from conftest import SOURCE_DIR

MEASURE = SOURCE_DIR / "stamp" / "measure.py"

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
    proc = subprocess.run([sys.executable, str(MEASURE), "--summary", str(runs),
                           "--csv", str(tmp_path / "runs.csv"),
                           "--plot", str(tmp_path / "fig")],
                          capture_output=True, text=True, check=True)
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
    proc = subprocess.run([sys.executable, str(MEASURE), "--summary", str(runs),
                           "--plot", str(tmp_path / "fig"), "--plot-threads", "4"],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert "no runs with 4 threads" in proc.stderr
    assert not (tmp_path / "fig.png").exists()
