"""STAMP and STMBench7 from the package: each application is a library of
its own (libpotm-bench-<b>-<program>.so), run in a worker like the
microbenchmarks; STAMP's result is its execution time (metric "elapsed"),
STMBench7's its throughput.  Real runs use the C build directory
($POTMPY_BUILD_DIR, default: the checkout's build/) and are skipped, with
the reason, when the libraries are not built there."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

import potm
from potm import stamp
from conftest import build_dir
from potm._lib import LibraryDir
from potm.experiments import EXPERIMENTS, Case, Experiment, Grid
from potm.experiments.render import NormalizedBars
from potm.reproduce import run_experiment


def _libs_with(program: str, *backends: str) -> Path:
    """The build directory, if it has program's library for every backend."""
    path = build_dir()
    libs = LibraryDir(path)
    for b in backends:
        if not path.is_dir() or not libs.has_bench(b, program):
            pytest.skip(f"{libs.bench_path(b, program).name} is not built in {path}")
    return path


def test_parameters_and_argv() -> None:
    vacation = potm.WORKLOADS["vacation"]
    assert vacation.metric == "elapsed" and vacation.library == "vacation"
    assert vacation.argv(vacation.validate({"size": "paper-high", "threads": 4})) == \
        ["vacation", "-c", "4"]  # the set's options are added when the run starts
    with pytest.raises(ValueError, match="'size' = 'small-high' is not allowed"):
        potm.WORKLOADS["genome"].validate({"size": "small-high"})
    sb7 = potm.WORKLOADS["stmbench7"]
    assert sb7.argv(sb7.validate({"mix": "w", "structural": "false", "ops": 10,
                                  "threads": 2})) == \
        ["stmbench7", "-w", "w", "-m", "false", "-n", "2", "--ops", "10"]


def test_missing_program_library_is_named(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"libpotm-bench-fake-vacation\.so is not in"):
        potm.run("vacation", backend="fake", lib_dir=fake_lib_dir)


def test_stamp_runs_and_reports_its_time() -> None:
    libs = _libs_with("vacation", "tl2", "pot")
    for backend in ("tl2", "pot"):
        r = potm.run("vacation", backend=backend, threads=2, size="test", lib_dir=libs)
        r.check()
        assert r.metric == "elapsed" and 0 < r.elapsed < math.inf and r.verified
        assert r.raw is not None and r.raw["app"] == "vacation" and r.raw["check"] == "pass"
        assert r.commits == r.ops == 16384  # -t16384 transactions
        assert r.counts["runs_per_s"] == pytest.approx(1.0 / r.elapsed)
    # An input file the build generated (kmeans' points), one thread on seq.
    if LibraryDir(libs).has_bench("seq", "kmeans"):
        potm.run("kmeans", backend="seq", size="test", lib_dir=libs).check()


def test_input_set_that_cannot_be_prepared_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """inputs.py failing (a generator that crashes, a full disk) fails that
    run with the reason; the sweep records it and goes on."""
    libs = _libs_with("vacation", "tl2")
    real = Path(stamp.__file__).resolve().parents[3] / "stamp" / "inputs.py"
    stub = tmp_path / "inputs.py"
    stub.write_text(
        "import os, sys\n"
        "if 'small' in sys.argv:\n"
        "    sys.exit('inputs.py: cannot write the input files: No space left on device')\n"
        f"os.execv(sys.executable, [sys.executable, {str(real)!r}] + sys.argv[1:])\n")
    monkeypatch.setenv(stamp.STAMP_DIR_ENV, str(tmp_path))
    stamp.clear_cache()
    try:
        table = potm.sweep("vacation", backends=["tl2"], threads=2, size=["small", "test"],
                           repeat=1, progress=False, lib_dir=libs)
    finally:
        stamp.clear_cache()
    by_size = {r.params["size"]: r for r in table.results or []}
    assert not by_size["small"].ok
    assert "input set 'small' could not be prepared" in by_size["small"].failure
    assert "No space left on device" in by_size["small"].failure
    by_size["test"].check()


def test_stmbench7_runs_and_reports_its_throughput() -> None:
    libs = _libs_with("stmbench7", "tl2")
    r = potm.run("stmbench7", backend="tl2", threads=2, mix="rw", size="tiny",
                 duration=150, lib_dir=libs).check()
    assert r.metric == "throughput" and r.throughput > 0 and r.verified
    successful = r.counts["successful_ops"]
    assert isinstance(successful, int) and successful > 0
    assert r.counts["invariant_violations"] == 0
    assert r.raw is not None and r.raw["workload"] == "rw"


def test_a_small_stamp_experiment(tmp_path: Path) -> None:
    libs = _libs_with("vacation", "tl2", "pot")
    grid = Grid(cases=(Case("vacation", "vacation", {"size": "test"}),),
                variants=("tl2", "pot-fast"), threads=(2,), repeat=1)
    exp = Experiment("t-stamp", "STAMP test", "nothing", grid, grid,
                     NormalizedBars(baseline="tl2", value="elapsed"), requires=("tl2", "pot"))
    report = run_experiment(exp, "quick", tmp_path, LibraryDir(libs), progress=False)
    assert report.status == "ok", report.reason
    with open(tmp_path / "t-stamp.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["variant"] for r in rows} == {"tl2", "pot-fast"}
    assert all(r["ok"] == "True" and float(r["elapsed"]) > 0 for r in rows)
    assert report.key_numbers.startswith("elapsed of tl2: pot-fast ")


def test_normalized_bars_have_one_thread_count() -> None:
    """A bar chart normalized per benchmark cannot mix thread counts (the
    renderer refuses): a full grid must not find that out after hours."""
    for exp in EXPERIMENTS.values():
        if isinstance(exp.render, NormalizedBars):
            for scale in ("quick", "full"):
                assert len(exp.grid(scale).threads) == 1, f"{exp.id} {scale}"
