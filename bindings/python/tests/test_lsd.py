"""LSD from the package: the lsd workload's parameters, real runs of both
workloads in both modes (their own verification: the counter's arithmetic
and the private words are exact) and the two Figure 4.8 experiments on a
small grid.  Real runs use the C build directory ($POTMPY_BUILD_DIR,
default: the checkout's build/) and are skipped, with the reason, when its
benchmark libraries lack lsd."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import pytest

import potm
from conftest import build_dir_with
from potm._lib import LibraryDir
from potm.experiments import EXPERIMENTS, Grid, Variant
from potm.reproduce import run_experiment


def _counts(r: potm.RunResult) -> dict[str, int]:
    """The run's integer counters."""
    return {k: v for k, v in r.counts.items() if isinstance(v, int)}


def _libs_with_lsd(*backends: str) -> Path:
    """The build directory, if every backend's benchmark library has lsd."""
    return build_dir_with("lsd", *backends)


def test_parameters_and_argv() -> None:
    spec = potm.WORKLOADS["lsd"]
    args = spec.validate({"kind": "assert", "mode": "std", "invalidate": 20,
                          "table_reads": 8, "threads": 2})
    assert spec.argv(args) == ["lsd", "-w", "assert", "-m", "std", "-r", "8", "-c", "20",
                               "-t", "2"]
    with pytest.raises(ValueError, match=r"'hot' = 50 needs 'kind' to be one of hotkey"):
        spec.validate({"kind": "assert", "hot": 50})
    with pytest.raises(ValueError, match=r"'invalidate' = 10 needs 'kind' to be one of "
                                         r"assert \(it is 'hotkey', the default\)"):
        spec.validate({"invalidate": 10})
    with pytest.raises(ValueError, match=r"'mode' = 'occ' is not allowed: one of lsd, std"):
        spec.validate({"mode": "occ"})
    with pytest.raises(ValueError, match=r"'private' = 65 is out of range"):
        spec.validate({"private": 65})


@pytest.mark.parametrize("mode", ["lsd", "std"])
def test_hotkey_runs_verify_the_counter(mode: str) -> None:
    libs = _libs_with_lsd("tl2")
    r = potm.run("lsd", backend="tl2", threads=2, ops=3000, kind="hotkey", mode=mode,
                 hot=50, initial=200, table_reads=8, lib_dir=libs).check()
    assert r.verified and r.ops == 6000
    c = _counts(r)
    assert c["transactions"] == 6000
    # every transaction either left the counter alone or decremented it;
    # those that found it empty refilled it
    assert c["private_only"] + c["taken"] + c["refills"] == 6000
    assert 0 < c["private_only"] < 6000 and c["taken"] > 0
    assert 0 <= c["final_level"] == 200 + 200 * c["refills"] - c["taken"]


def test_assert_contended_counts_restores() -> None:
    libs = _libs_with_lsd("tl2")
    r = potm.run("lsd", backend="tl2", threads=2, ops=2000, kind="assert", mode="lsd",
                 invalidate=20, lib_dir=libs).check()
    c = _counts(r)
    # level 9: one transaction in ten finds it at 0 and restores it
    assert r.raw is not None and r.raw["initial"] == 9
    assert c["taken"] + c["restores"] == 4000 and c["restores"] > 0
    assert 0 <= c["final_level"] <= 9


@pytest.mark.parametrize("exp_id,x", [("fig-4.8-hotkey", "hot"),
                                      ("fig-4.8-assert", "invalidate")])
def test_the_experiments_on_a_small_grid(tmp_path: Path, exp_id: str, x: str) -> None:
    libs = LibraryDir(_libs_with_lsd("tl2"))
    exp = EXPERIMENTS[exp_id]
    variants = tuple(v for v in exp.quick.variants
                     if isinstance(v, Variant) and v.name in ("occ", "occ-lsd"))
    small = replace(exp, quick=Grid(cases=exp.quick.cases, variants=variants,
                                    threads=(1, 2), repeat=1, params={"duration": 50}))
    report = run_experiment(small, "quick", tmp_path, libs, progress=False,
                            stream=io.StringIO())
    assert report.status == "ok", report.reason
    with open(tmp_path / f"{exp_id}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    xs = {str(v) for c in exp.quick.cases for v in c.params[x]}
    assert {(r["variant"], r[x], r["threads"]) for r in rows} == {
        (v, p, t) for v in ("occ", "occ-lsd") for p in xs for t in ("1", "2")}
    assert all(r["ok"] == "True" and float(r["throughput"]) > 0 for r in rows)
    assert "occ-lsd/occ" in report.key_numbers
    assert (tmp_path / f"{exp_id}.png").stat().st_size > 1000
