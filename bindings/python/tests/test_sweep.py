"""Sweeps: the grid, failures that do not stop it, the resumable cache."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

import potm
from conftest import HANG_TIMEOUT_S, SEED_CRASH, SEED_HANG, SEED_VERIFY_FAIL, logged_calls
from potm.cache import SweepCache
from potm.result import CountValue, RunResult, result_from_outcome
from potm.table import SweepTable, parse_series
from potm.worker import Outcome


def test_grid_and_table(fake_lib_dir: Path, fake_log: Path) -> None:
    t = potm.sweep("intset", backends=["fake"], threads=[1, 2], structure="rb",
                   update=[0, 30], repeat=2, lib_dir=fake_lib_dir, progress=False)
    assert len(t) == 8 and len(logged_calls(fake_log)) == 8
    assert t.keys == ("workload", "backend", "threads", "structure", "update")
    assert t.columns[:9] == ("workload", "backend", "threads", "structure", "update",
                             "repeat", "ok", "failure", "verified")
    assert {"throughput", "commits", "aborts", "reads", "abort_read_locked",
            "abort_validate"} <= set(t.measures)
    assert t["ok"].all()
    assert t.array.dtype["threads"] == np.int64 and t.array.dtype["structure"].kind == "U"
    # Rows are grouped by point, repeats together.
    assert list(t["repeat"]) == [0, 1] * 4
    two = t.filter(threads=2, update=30)
    assert len(two) == 2 and list(two["throughput"]) == [2030.0, 2030.0]
    rows = list(t)
    assert rows[0]["backend"] == "fake" and isinstance(rows[0]["threads"], int)
    assert t.results is not None and len(t.results) == 8


def test_failures_are_recorded_and_the_sweep_goes_on(fake_lib_dir: Path,
                                                     fake_log: Path) -> None:
    t = potm.sweep("bank", backends=["fake"], seed=[1, SEED_CRASH, SEED_HANG, 2],
                   repeat=1, timeout=HANG_TIMEOUT_S, lib_dir=fake_lib_dir, progress=False)
    assert len(t) == 4 and len(logged_calls(fake_log)) == 4
    assert list(t["ok"]) == [True, False, False, True]
    failures = list(t["failure"])
    assert failures[1] == "the worker crashed: killed by SIGSEGV"
    assert failures[2].startswith(f"timed out after {HANG_TIMEOUT_S:g} s")
    assert math.isnan(t["throughput"][1]) and t["throughput"][3] == 1000.0
    failed = t.filter(ok=False)
    assert failed.results is not None
    assert [r.params["seed"] for r in failed.results] == [SEED_CRASH, SEED_HANG]


def test_resume_from_cache(fake_lib_dir: Path, fake_log: Path, tmp_path: Path) -> None:
    cache = tmp_path / "runs.jsonl"
    grid = dict(backends=["fake"], threads=[1, 2], accounts=64, repeat=2, cache=cache,
                lib_dir=fake_lib_dir, progress=False)
    first = potm.sweep("bank", readonly=[0, 10], **grid)  # type: ignore[arg-type]
    assert len(logged_calls(fake_log)) == 8
    assert len(cache.read_text().splitlines()) == 8

    again = potm.sweep("bank", readonly=[0, 10], **grid)  # type: ignore[arg-type]
    assert len(logged_calls(fake_log)) == 8  # nothing ran
    assert again.array.tolist() == first.array.tolist()

    wider = potm.sweep("bank", readonly=[0, 10, 20], **grid)  # type: ignore[arg-type]
    assert len(wider) == 12
    new_calls = logged_calls(fake_log)[8:]
    assert len(new_calls) == 4 and all("20" in c[c.index("-r") + 1] for c in new_calls)


def test_resume_after_an_interruption(fake_lib_dir: Path, fake_log: Path,
                                      tmp_path: Path) -> None:
    """A sweep stopped half-way (here: Ctrl-C on the hanging point) resumes."""
    cache = tmp_path / "runs.jsonl"
    common = dict(backends=["fake"], repeat=1, cache=cache, lib_dir=fake_lib_dir,
                  progress=False)
    potm.sweep("bank", seed=[1, 2], **common)  # type: ignore[arg-type]
    # A line cut short by the interruption must not spoil the cache.
    with open(cache, "a") as f:
        f.write('{"key": {"workload": "bank", "backe')
    with pytest.warns(UserWarning, match=r"runs.jsonl:3: skipping a damaged cache line"):
        t = potm.sweep("bank", seed=[1, 2, 3], **common)  # type: ignore[arg-type]
    assert t["ok"].all() and len(t) == 3
    assert [c[-1] for c in logged_calls(fake_log)] == ["1", "2", "3"]
    lines = cache.read_text().splitlines()
    assert lines[-1].startswith('{"key"') and len(lines) == 4


def test_failed_runs_are_retried_on_resume(fake_lib_dir: Path, fake_log: Path,
                                           tmp_path: Path) -> None:
    common = dict(backends=["fake"], seed=[1, SEED_VERIFY_FAIL], repeat=1,
                  cache=tmp_path / "c.jsonl", lib_dir=fake_lib_dir, progress=False)
    potm.sweep("bank", **common)  # type: ignore[arg-type]
    assert len(logged_calls(fake_log)) == 2
    potm.sweep("bank", retry_failed=False, **common)  # type: ignore[arg-type]
    assert len(logged_calls(fake_log)) == 2
    t = potm.sweep("bank", **common)  # type: ignore[arg-type]
    calls = logged_calls(fake_log)
    assert len(calls) == 3 and calls[-1][-1] == str(SEED_VERIFY_FAIL)
    assert list(t["ok"]) == [True, False]


def test_config_is_part_of_the_cache_key(fake_lib_dir: Path, fake_log: Path,
                                         tmp_path: Path) -> None:
    common = dict(backends=["fake"], repeat=1, cache=tmp_path / "c.jsonl",
                  lib_dir=fake_lib_dir, progress=False)
    potm.sweep("bank", **common)  # type: ignore[arg-type]
    potm.sweep("bank", config={"lock_bits": 10}, **common)  # type: ignore[arg-type]
    potm.sweep("bank", config={"lock_bits": 10}, **common)  # type: ignore[arg-type]
    assert len(logged_calls(fake_log)) == 2


def test_progress_line(fake_lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    potm.sweep("bank", backends=["fake"], threads=[1, 2], repeat=1, lib_dir=fake_lib_dir,
               progress=True)
    err = capsys.readouterr().err
    assert "1/2" in err and "fake t=2 #1" in err
    assert err.rstrip().splitlines()[-1] == "2/2 done"


def _result(backend: str, threads: int, throughput: float, ok: bool = True) -> RunResult:
    return RunResult(workload="bank", backend=backend, threads=threads,
                     params={"accounts": 8}, ok=ok, failure="" if ok else "crash",
                     throughput=throughput if ok else math.nan, commits=10, aborts=1,
                     aborts_by_cause={"validate": 1}, stats={"commits": 10, "aborts": 1},
                     verified=ok, raw={} if ok else None)


def _table() -> SweepTable:
    rows = [(0, _result("gl", 1, 10.0)), (1, _result("gl", 1, 30.0)),
            (2, _result("gl", 1, 20.0)), (0, _result("tl2", 2, 5.0)),
            (1, _result("tl2", 2, 0.0, ok=False)), (2, _result("tl2", 2, 7.0))]
    return SweepTable.from_results(rows, ["accounts"])


def test_median_over_ok_repeats() -> None:
    med = _table().median()
    assert len(med) == 2
    assert med.columns[:6] == ("workload", "backend", "threads", "accounts", "runs",
                               "failures")
    gl, tl2 = list(med)
    assert gl["throughput"] == 20.0 and gl["runs"] == 3 and gl["failures"] == 0
    assert tl2["throughput"] == 6.0 and tl2["runs"] == 2 and tl2["failures"] == 1
    assert tl2["abort_validate"] == 1.0


def test_median_of_a_point_that_always_failed() -> None:
    t = SweepTable.from_results([(0, _result("gl", 1, 0.0, ok=False))], ["accounts"])
    [row] = list(t.median())
    assert row["runs"] == 0 and math.isnan(row["throughput"])


def test_filter() -> None:
    t = _table()
    assert len(t.filter(backend="gl")) == 3
    assert len(t.filter(backend=["gl", "tl2"], ok=True)) == 5
    assert len(t.filter(backend="none")) == 0
    with pytest.raises(ValueError, match=r"filter: no column 'backends'"):
        t.filter(backends="gl")
    with pytest.raises(KeyError, match=r"no column 'speed'"):
        t["speed"]


def test_to_csv(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    _table().to_csv(path)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6
    assert rows[0]["backend"] == "gl" and rows[0]["throughput"] == "10.0"
    assert rows[4]["ok"] == "False" and rows[4]["throughput"] == ""
    assert rows[4]["failure"] == "crash"


def test_concat() -> None:
    a = _table().filter(backend="gl")
    b = SweepTable.from_results([(0, _result("pot-rtm", 4, 9.0))], ["accounts"])
    both = SweepTable.concat([a, b])
    assert list(both["backend"]) == ["gl", "gl", "gl", "pot-rtm"]
    assert both.results is not None and len(both.results) == 4
    with pytest.raises(ValueError, match=r"columns differ"):
        SweepTable.concat([a, a.median()])


def test_to_text() -> None:
    text = _table().median().to_text(["backend", "threads", "throughput"])
    assert text.splitlines() == ["backend  threads  throughput",
                                 "     gl        1          20",
                                 "    tl2        2           6"]


def _doppel_result(repeat: int, counts: dict[str, CountValue], ok: bool = True) -> RunResult:
    """A doppel run with the given counts (a failed one has none)."""
    return RunResult(workload="doppel", backend="tl2", threads=2, params={"change": 200},
                     ok=ok, failure="" if ok else "crash",
                     throughput=100.0 + repeat if ok else math.nan, elapsed=0.3,
                     stats={"commits": 10, "reads": 7}, counts=counts if ok else {},
                     verified=ok, raw={} if ok else None)


def test_counts_become_columns(tmp_path: Path) -> None:
    """Numbers of "counts" are measures (prefixed: counts.reads is not
    stats.reads); a list (the timeline) is a text column; a count that is
    null everywhere is left out; records, median, CSV and the cache cope."""
    rows = [(0, _doppel_result(0, {"reads": 3, "read_p99_ns": 384, "timeline": [5, 6, 0],
                                   "unused": None})),
            (1, _doppel_result(1, {"reads": 4, "read_p99_ns": 512, "timeline": None,
                                   "unused": None})),
            (2, _doppel_result(2, {}, ok=False))]
    t = SweepTable.from_results(rows, ["change"])
    assert {"count_reads", "count_read_p99_ns"} <= set(t.measures)
    assert "count_unused" not in t.columns and "count_timeline" not in t.measures
    assert list(t["reads"][:2]) == [7.0, 7.0] and list(t["count_reads"][:2]) == [3.0, 4.0]
    assert math.isnan(t["count_reads"][2])
    assert list(t["count_timeline"]) == ["5 6 0", "", ""]
    assert t.columns.index("count_timeline") == t.columns.index("verified") + 1
    assert [row["count_timeline"] for row in t] == ["5 6 0", "", ""]
    assert parse_series(t["count_timeline"][0]) == [5.0, 6.0, 0.0]
    med = t.median()
    assert "count_timeline" not in med.columns and list(med["count_reads"]) == [3.5]
    path = tmp_path / "t.csv"
    t.to_csv(path)
    with open(path, newline="") as f:
        written = list(csv.DictReader(f))
    assert [r["count_timeline"] for r in written] == ["5 6 0", "", ""]
    assert written[1]["count_read_p99_ns"] == "512.0"
    cache = SweepCache(tmp_path / "c.jsonl")
    for repeat, r in rows:
        cache.put({"repeat": repeat}, r)
    again = SweepCache(tmp_path / "c.jsonl")
    back = [(repeat, again.get({"repeat": repeat})) for repeat, _ in rows]
    assert all(r is not None for _, r in back)
    assert back[0][1] is not None and back[0][1].counts["timeline"] == [5, 6, 0]
    t2 = SweepTable.from_results([(i, r) for i, r in back if r is not None], ["change"])
    assert t2.columns == t.columns and list(t2["count_timeline"]) == list(t["count_timeline"])


def test_counts_are_parsed_from_the_json_line() -> None:
    line = ('{"bench": "doppel", "threads": 2, "elapsed_s": 0.2, "ops": 10, '
            '"throughput": 50.0, "counts": {"writes": 10, "timeline": [4, 6], '
            '"read_mean_ns": 0, "bad": "x", "mixed": [1, "a"]}, "stats": {"commits": 10}, '
            '"verified": true, "verify_msg": "ok"}\n')
    outcome = Outcome(command=("worker",), pid=1, returncode=0, stdout=line, stderr="",
                      timed_out=False, timeout=60.0, wall_time=0.3)
    r = result_from_outcome(workload="doppel", backend="tl2", threads=2, params={},
                            config={}, argv=["doppel"], outcome=outcome)
    assert r.ok and r.counts == {"writes": 10, "timeline": [4, 6], "read_mean_ns": 0,
                                 "bad": None, "mixed": None}
    assert RunResult.from_dict(r.to_dict()) == r
