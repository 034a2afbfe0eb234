"""'potm measure micro': the microbenchmark table of a build's binaries
(skipped, saying why, when they are not built), its files and its usage
errors."""

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
MEASURE = [sys.executable, "-m", "potm", "measure", "micro"]
ENV = dict(os.environ, PYTHONPATH=str(Path(potm.__file__).parent.parent))


def test_table_and_files(tmp_path: Path) -> None:
    build = build_dir()
    missing = [b for b in ("seq", "tl2") if not (build / "bench" / f"intset-{b}").is_file()]
    if missing:
        pytest.skip(f"intset-{', intset-'.join(missing)} not built in {build}/bench")
    proc = subprocess.run([*MEASURE, "intset -s rb -i 256 -r 512 -u 20", "--build", str(build),
                           "--backends", "seq", "tl2", "--threads", "1", "2", "--repeat", "2",
                           "--duration", "50", "--out", str(tmp_path)],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "intset -s rb -i 256 -r 512 -u 20 -d 50" in proc.stdout
    assert "seq runs one thread only" in proc.stdout
    rows = {(r["backend"], r["threads"]): r
            for r in csv.DictReader(open(tmp_path / "summary.csv", newline=""))}
    assert rows[("seq", "2")]["status"] == "skipped"
    assert rows[("seq", "1")]["status"] == "ok" and rows[("seq", "1")]["runs"] == "2"
    assert float(rows[("seq", "1")]["ratio_vs_seq_1t"]) == 1.0
    assert rows[("tl2", "2")]["ok_runs"] == "2"
    assert float(rows[("tl2", "2")]["throughput_median"]) > 0
    tl2 = rows[("tl2", "2")]
    lo, hi, median = (float(tl2[k]) for k in ("throughput_min", "throughput_max",
                                              "throughput_median"))
    # Two runs: the quartiles are the runs themselves' interpolation, so
    # half the interquartile range lies within half the full range.
    assert 0 <= float(tl2["throughput_half_iqr"]) <= (hi - lo) / 2 / median + 1e-4
    assert "± %" in proc.stdout
    lines = (tmp_path / "runs.jsonl").read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["verified"] for line in lines)


def test_half_iqr_fraction() -> None:
    """The spread column: half the interquartile range over the median,
    unmoved by one outlier, undefined for a single run."""
    from potm.measure.micro import half_iqr_fraction
    assert half_iqr_fraction([100.0]) is None
    assert half_iqr_fraction([0.0, 0.0]) is None
    assert half_iqr_fraction([100.0, 100.0, 100.0]) == 0.0
    assert half_iqr_fraction([90.0, 100.0, 100.0, 110.0, 200.0]) == pytest.approx(0.05)
    assert half_iqr_fraction([90.0, 100.0, 100.0, 110.0, 10_000.0]) == pytest.approx(0.05)


@pytest.mark.parametrize("args, message", [
    (["bank -t 2"], "-t is set by potm measure micro"),
    (["--repeat", "0"], "--repeat must be at least 1"),
    (["--backends", "nope", "--build", "/nonexistent"], "not built in /nonexistent"),
])
def test_usage_errors(args: list[str], message: str) -> None:
    proc = subprocess.run([*MEASURE, *args], capture_output=True, text=True, env=ENV)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_backend_variants(tmp_path: Path) -> None:
    """A variant's settings reach its runs only: pot:POTM_MODE=pogl runs
    every transaction in its turn (no speculative commit), pot with runs of
    turns off commits speculatively while it waits, and both rows are in the
    table. (With the default long runs a short run may never wait.)"""
    build = build_dir()
    if not (build / "bench" / "intset-pot").is_file():
        pytest.skip(f"intset-pot not built in {build}/bench")
    proc = subprocess.run([*MEASURE, "intset -s hs -i 256 -r 512 -u 20", "--build", str(build),
                           "--backends", "pot:POTM_TURN_BATCH=0", "pot:POTM_MODE=pogl,POTM_TURN_BATCH=0",
                           "--threads", "2", "--repeat", "1", "--duration", "50",
                           "--out", str(tmp_path)],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pot:POTM_MODE=pogl,POTM_TURN_BATCH=0" in proc.stdout
    labels = [r["backend"] for r in csv.DictReader(open(tmp_path / "runs.csv", newline=""))]
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    stats = {label: rec["stats"] for label, rec in zip(labels, records, strict=True)}
    assert stats["pot:POTM_TURN_BATCH=0"]["spec_commits"] > 0, stats
    pogl = stats["pot:POTM_MODE=pogl,POTM_TURN_BATCH=0"]
    assert pogl["spec_commits"] == 0 and pogl["commits"] > 0, pogl


def test_backend_variant_bad_setting() -> None:
    proc = subprocess.run([*MEASURE, "--backends", "pot:POTM_MODE"], capture_output=True,
                          text=True, env=ENV)
    assert proc.returncode == 2 and "a setting is NAME=VALUE" in proc.stderr, proc.stderr


def test_binary_without_statistics(tmp_path: Path) -> None:
    """intset-libitm reports no TM statistics: its row has a throughput and
    no abort rate, and the table is still printed."""
    build = build_dir()
    if not (build / "bench" / "intset-libitm").is_file():
        pytest.skip(f"intset-libitm not built in {build}/bench")
    proc = subprocess.run([*MEASURE, "intset -s hs -i 256 -r 512 -u 20", "--build", str(build),
                           "--backends", "libitm:ITM_DEFAULT_METHOD=serialirr",
                           "--threads", "1", "--repeat", "2", "--duration", "50",
                           "--out", str(tmp_path)],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = list(csv.DictReader(open(tmp_path / "summary.csv", newline="")))
    assert len(rows) == 1 and rows[0]["status"] == "ok", rows
    assert float(rows[0]["throughput_median"]) > 0 and rows[0]["abort_rate_median"] == ""
