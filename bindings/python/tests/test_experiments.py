"""The experiment registry, 'potm reproduce' and 'potm experiments'.

Runs use the fake benchmark (tests/fixtures/fake_bench.c) installed under
the names of real backends (seq, gl, tl2), and, when they are built in
$POTMPY_BUILD_DIR, the real backends for one quick experiment.
"""

from __future__ import annotations

import csv
import doctest
import importlib
import io
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Optional

import pytest

import potm
import potm.experiments
import potm.reproduce
from potm.experiments import registry
from conftest import SEED_CRASH, SOURCE_DIR, build_dir, compile_fake, real_backends
from potm import api, worker
from potm._lib import LibraryDir
from potm.cli import main
from potm.experiments import EXPERIMENTS, Case, Experiment, Grid, experiment, select
from potm.experiments.availability import missing_backend, plan, unavailable
from potm.experiments.render import (Combined, Curves, Derived, KeyNumber, NormalizedBars,
                                     Speedup, Timeline, key_text)
from potm.experiments.tables import Column, labelled, merge, with_columns
from potm.experiments.variants import variant
from potm.modes import ModesUnavailable
from potm.plot import series_labels, synthetic_table
from potm.plot.timeline import timeline_table
from potm.reproduce import exit_status, reproduce, run_experiment

#: Every experiment the registry must list.
EXPECTED_IDS = {
    "overhead", "fig-3.11", "determinism-cost",
    "fig-3.6", "fig-3.7", "fig-3.8", "fig-3.10", "fig-3.12", "fig-3.13", "fig-3.14",
    "fig-3.14-rtm",    "fig-7-1", "fig-7-2", "fig-7-3", "fig-7-4", "fig-7-6", "table-7.3", "rubis",
    "tpcc", "tpcc-dora", "tpcc-dora-remote", "tpcc-dora-latency", "tm1-dora", "fig-4.7",
    "fig-4.8-hotkey", "fig-4.8-assert", "ycsb",
}
#: The Doppel experiments and the series each draws.
DOPPEL_SERIES = {
    "fig-7-1": {"doppel", "occ", "gl", "atomic"}, "fig-7-2": {"doppel", "occ", "gl", "atomic"},
    "fig-7-3": {"doppel", "occ"}, "fig-7-4": {"doppel", "occ", "gl"},
    "fig-7-6": {"doppel", "occ", "gl"}, "table-7.3": {"doppel", "occ", "gl"},
    "rubis": {"doppel", "occ", "gl"},
}
#: The backends the fake library directory pretends to be.
FAKE_AS = ("seq", "gl", "tl2")
SCRIPTS_DIR = SOURCE_DIR / "experiments"


@pytest.fixture(scope="session")
def fake_backends(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library directory where seq, gl and tl2 are the fake benchmark."""
    built = compile_fake(tmp_path_factory.mktemp("fakebuild"))
    out = tmp_path_factory.mktemp("fakebackends")
    for b in FAKE_AS:
        shutil.copyfile(built / "libpotm-fake.so", out / f"libpotm-{b}.so")
        shutil.copyfile(built / "libpotm-bench-fake.so", out / f"libpotm-bench-{b}.so")
    return out


def _potm(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ registry
def test_registry_lists_every_experiment() -> None:
    assert set(EXPERIMENTS) == EXPECTED_IDS
    for exp in EXPERIMENTS.values():
        assert exp.title and exp.reproduces and exp.workloads()
        for scale in ("quick", "full"):
            grid = exp.grid(scale)
            assert grid.cases and grid.variants and grid.repeat >= 1
        assert exp.quick.repeat == 3


#: The Pot modes in the C library's order (tm_mode_name).
MODES = ["pot", "pot-fast", "pot-ordered", "pogl", "destm"]


def test_the_grids_name_the_library_s_pot_modes() -> None:
    """POT_MODES in a grid is every mode the library names, in its order:
    the grids are those the experiments have always had."""
    if not real_backends():
        pytest.skip(f"no potm build in {build_dir()} (set POTMPY_BUILD_DIR)")
    rtm = variant("rtm").name
    expected = {
        ("determinism-cost", "quick"): ["tl2", *MODES],
        ("determinism-cost", "full"): ["tl2", *MODES],
        ("fig-3.7", "quick"): ["tl2", *MODES], ("fig-3.7", "full"): ["tl2", *MODES],
        ("fig-3.10", "full"): ["tl2", *MODES, "pot-round-robin"],
        ("overhead", "full"): ["seq", "gl", "tl2", *MODES, rtm],
        ("overhead", "quick"): ["seq", "gl", "tl2", "pot", rtm],
        ("fig-3.8", "full"): ["pot", "pot-fast", "pot-ordered", "destm"],
    }
    for (exp_id, scale), names in expected.items():
        grid = experiment(exp_id).grid(scale)
        assert [v.name for v in grid.resolved_variants(build_dir())] == names, exp_id
    for exp in EXPERIMENTS.values():
        for scale in ("quick", "full"):
            assert exp.grid(scale).resolved_variants(build_dir())
    pogl = variant("pogl", build_dir())
    assert (pogl.backend, dict(pogl.config)) == ("pot", {"mode": "pogl"})
    with pytest.raises(ValueError, match=r"unknown variant 'pot-slow'; known: seq, .*"
                                         r"pot, pot-fast, pot-ordered, pogl, destm"):
        variant("pot-slow", build_dir())


def test_a_pot_mode_needs_a_library_to_name_it(fake_backends: Path) -> None:
    """Without a library that names the modes, a variant that can only be a
    Pot mode says what is missing; the other variants need no list."""
    assert variant("tl2").backend == "tl2" and variant("pot-weighted").backend == "pot"
    with pytest.raises(ModesUnavailable, match=r"there is none"):
        variant("pot-fast")
    with pytest.raises(ModesUnavailable, match=r"does not export tm_mode_name"):
        experiment("fig-3.7").grid("quick").resolved_variants(fake_backends)


def test_select_and_unknown_ids() -> None:
    assert [e.id for e in select(["fig-7-*"])] == ["fig-7-1", "fig-7-2", "fig-7-3",
                                                   "fig-7-4", "fig-7-6"]
    assert [e.id for e in select(["overhead", "fig-3.11"])] == ["fig-3.11", "overhead"]
    assert [e.id for e in select(["fig-3.*"])][:4] == ["fig-3.6", "fig-3.7", "fig-3.8",
                                                        "fig-3.10"]
    with pytest.raises(ValueError, match="no experiment matches 'fig-9'"):
        select(["fig-9"])
    with pytest.raises(ValueError, match="unknown experiment 'x'"):
        experiment("x")


def test_every_experiment_is_one_file_of_experiments() -> None:
    """Each file of experiments/ defines one experiment, the registry's,
    and runs it as a script."""
    assert registry.definitions_dir().resolve() == SCRIPTS_DIR.resolve()
    ids = {}
    for path in registry.definition_files(SCRIPTS_DIR):
        exp = registry.load_definition(path)
        assert exp == experiment(exp.id)
        assert "script_main(EXPERIMENT" in path.read_text(), path.name
        ids[exp.id] = path.name
    assert set(ids) == EXPECTED_IDS


def test_axis_labels_carry_units() -> None:
    """Every figure names its value axis itself (a unit, a percentage or a
    ratio), not with a column name."""
    for exp in EXPERIMENTS.values():
        renders: list[Any] = [exp.render]
        while renders:
            r = renders.pop()
            if isinstance(r, Derived):
                renders.append(r.render)
            elif isinstance(r, Combined):
                renders += [r.main, *r.extra.values()]
            elif hasattr(r, "ylabel"):
                label = r.ylabel
                assert label, f"{exp.id}: {type(r).__name__} has no ylabel"
                assert re.search(r"\(.+\)|%| / |speedup", label), f"{exp.id}: {label!r}"
            else:
                assert all("(" in label for label in r.labels), exp.id


def _write_definition(directory: Path, name: str, exp_id: str) -> None:
    (directory / f"{name}.py").write_text(
        "from potm.experiments import Case, Experiment, Grid, NormalizedBars\n"
        "GRID = Grid((Case('bank', 'bank'),), ('tl2',))\n"
        f"EXPERIMENT = Experiment({exp_id!r}, 't', 't', GRID, GRID, NormalizedBars('tl2'))\n")


def test_definitions_directory_from_the_environment(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _write_definition(tmp_path, "b", "t-9")
    _write_definition(tmp_path, "a", "t-10")
    _write_definition(tmp_path, "c", "t-10b")
    (tmp_path / "_helper.py").write_text("raise RuntimeError('not an experiment')\n")
    monkeypatch.setenv(registry.EXPERIMENTS_DIR_ENV, str(tmp_path))
    assert list(potm.experiments.EXPERIMENTS) == ["t-9", "t-10", "t-10b"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "d.py").write_text("X = 1\n")
    monkeypatch.setenv(registry.EXPERIMENTS_DIR_ENV, str(other))
    with pytest.raises(ValueError, match="d.py defines no EXPERIMENT"):
        select()
    (other / "d.py").write_text("import nope\n")
    with pytest.raises(ValueError, match="d.py failed to load: ModuleNotFoundError"):
        select()
    twice = tmp_path / "twice"
    twice.mkdir()
    _write_definition(twice, "x", "t-1")
    _write_definition(twice, "y", "t-1")
    monkeypatch.setenv(registry.EXPERIMENTS_DIR_ENV, str(twice))
    with pytest.raises(ValueError, match="'t-1' is defined twice: in x.py and y.py"):
        select()
    monkeypatch.setenv(registry.EXPERIMENTS_DIR_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="not a directory"):
        select()


def test_installed_package_carries_the_definitions(fake_backends: Path,
                                                   tmp_path: Path) -> None:
    """An install outside a checkout (bindings/python/CMakeLists.txt copies
    experiments/*.py into potm/_experiments) lists and runs them."""
    site = tmp_path / "site"
    shutil.copytree(Path(potm.__file__).parent, site / "potm",
                    ignore=shutil.ignore_patterns("__pycache__", "_libs"))
    shutil.copytree(SCRIPTS_DIR, site / "potm" / "_experiments",
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    env = {k: v for k, v in os.environ.items() if k != registry.EXPERIMENTS_DIR_ENV}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, "-m", "potm", "experiments", "--lib-dir",
                           str(fake_backends)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert {line.split()[0] for line in done.stdout.splitlines()[3:] if line} == EXPECTED_IDS
    probe = "from potm.experiments import registry; print(registry.definitions_dir())"
    where = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(site / "potm" / "_experiments")
    done = subprocess.run([sys.executable, str(site / "potm" / "_experiments" / "overhead.py"),
                           "--no-progress", "--out", str(tmp_path / "out"), "--lib-dir",
                           str(fake_backends)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "overhead.csv").is_file()


def test_grid_sweeps_and_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    if not real_backends():
        pytest.skip(f"no potm build in {build_dir()} to name the Pot modes")
    grid = Grid(cases=(Case("bank", "bank", {"accounts": 64}),),
                variants=("seq", "tl2", "pot-fast"), threads=(1, 2), params={"duration": 50})
    sweeps = grid.sweeps(build_dir())
    assert [(s.variant.name, s.threads) for s in sweeps] == [
        ("seq", (1,)), ("tl2", (1, 2)), ("pot-fast", (1, 2))]
    assert sweeps[2].variant.backend == "pot"
    assert sweeps[2].variant.config == {"mode": "pot-fast"}
    assert list(sweeps[0].params.items()) == [("accounts", 64), ("duration", 50)]
    monkeypatch.setattr("potm.experiments.variants.cpu_has_rtm", lambda: False)
    rtm = variant("rtm")
    assert rtm.name == "rtm-fallback" and rtm.config == {"htm_fallback_only": 1}
    assert "no Intel RTM" in rtm.note
    monkeypatch.setattr("potm.experiments.variants.cpu_has_rtm", lambda: True)
    assert variant("rtm").name == "rtm" and not variant("rtm").config


def test_merge_tables_with_different_columns() -> None:
    a = labelled(synthetic_table({"structure": ["rb"], "backend": ["tl2"]}, lambda p: 1.0),
                 benchmark="intset-rb", variant="tl2")
    b = labelled(synthetic_table({"accounts": [64], "backend": ["gl"]}, lambda p: 2.0,
                                 workload="bank"), benchmark="bank", variant="gl")
    b.array["throughput"][:] = 5.0
    m = merge([a, b])
    assert m.keys == ("workload", "benchmark", "variant", "structure", "backend", "accounts")
    assert len(m) == 6 and list(m["structure"]) == ["rb"] * 3 + [""] * 3
    assert list(m["accounts"]) == [""] * 3 + ["64"] * 3
    assert list(m["throughput"][3:]) == [5.0] * 3


# ------------------------------------------------------------------ availability
def test_missing_workload_is_skipped_with_reason(fake_backends: Path, tmp_path: Path) -> None:
    libs = LibraryDir(fake_backends)
    assert unavailable(experiment("fig-3.10"), libs) == \
        f"backend 'tl2' has no stmbench7 library (libpotm-bench-tl2-stmbench7.so) in " \
        f"{fake_backends}"
    report = run_experiment(experiment("fig-3.7"), "quick", tmp_path, libs)
    assert report.status == "skipped" and "has no bayes library" in report.reason
    assert not list(tmp_path.iterdir())  # nothing ran, nothing written
    custom = Experiment("t-nope", "t", "t", Grid((Case("x", "nope"),), ("tl2",)),
                        Grid((Case("x", "nope"),), ("tl2",)), NormalizedBars("tl2"))
    assert "workload 'nope' is not in this potm package" in (unavailable(custom, libs) or "")


def test_missing_backend_is_skipped_or_left_out(fake_backends: Path) -> None:
    libs = LibraryDir(fake_backends)
    assert unavailable(experiment("determinism-cost"), libs) == \
        f"backend 'pot' is not built in {fake_backends}"
    grid = Grid((Case("bank", "bank"),), ("tl2",))
    blocked = Experiment("t-blocked", "t", "t", grid, grid, NormalizedBars("tl2"),
                         blocked="needs a feature the benchmark lacks")
    assert unavailable(blocked, libs) == "needs a feature the benchmark lacks"
    assert unavailable(experiment("overhead"), None, "no libraries here") == "no libraries here"
    sweeps, notes = plan(experiment("overhead"), "quick", libs)
    assert [s.variant.name for s in sweeps] == ["seq", "gl", "tl2"]
    assert any("variant 'pot' left out: backend 'pot' is not built" in n for n in notes)


def test_rtm_only_backend_is_left_out_without_rtm(fake_backends: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for lib in fake_backends.iterdir():
        shutil.copyfile(lib, tmp_path / lib.name)
        if "-tl2" in lib.name:
            shutil.copyfile(lib, tmp_path / lib.name.replace("-tl2", "-pot-rtm"))
    libs = LibraryDir(tmp_path)
    grid = Grid((Case("bank", "bank"),), ("tl2", "pot-rtm"))
    exp = Experiment("t-rtm", "t", "t", grid, grid, NormalizedBars("tl2"))
    monkeypatch.setattr("potm.experiments.availability.cpu_has_rtm", lambda: False)
    sweeps, notes = plan(exp, "quick", libs)
    assert [s.variant.name for s in sweeps] == ["tl2"]
    assert "variant 'pot-rtm' left out: this CPU has no Intel RTM" in notes
    monkeypatch.setattr("potm.experiments.availability.cpu_has_rtm", lambda: True)
    sweeps, _ = plan(exp, "quick", libs)
    assert [s.variant.name for s in sweeps] == ["tl2", "pot-rtm"]


def test_experiments_command(fake_backends: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _potm(["experiments", "--lib-dir", str(fake_backends)], capsys)
    assert status == 0
    lines = {line.split()[0]: line for line in out.splitlines()[3:] if line}
    assert set(lines) == EXPECTED_IDS
    assert lines["overhead"].endswith("available")
    assert "skipped: backend 'pot' is not built" in lines["determinism-cost"]
    assert "skipped: backend 'tl2' has no stmbench7 library" in lines["fig-3.10"]
    status, out, _ = _potm(["experiments", "-v", "--lib-dir", str(fake_backends)], capsys)
    assert "reproduces: Pot thesis Figure 3.11" in out and "provisional" in out


# ------------------------------------------------------------------ reproduce
def test_reproduce_quick_with_the_fake(fake_backends: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    status, out, _ = _potm(["reproduce", "--quick", "--out", str(out_dir), "--no-progress",
                            "--lib-dir", str(fake_backends), "overhead", "fig-3.10"], capsys)
    assert status == 0
    rows = _csv_rows(out_dir / "overhead.csv")
    assert len(rows) == 9  # seq, gl, tl2 x 3 repeats
    assert {r["variant"] for r in rows} == set(FAKE_AS)
    assert all(float(r["throughput"]) == 1020.0 and r["ok"] == "True" for r in rows)
    assert {r["structure"] for r in rows} == {"rb"} and {r["initial"] for r in rows} == {"4096"}
    svg = (out_dir / "overhead.svg").read_text()
    for name in FAKE_AS:
        assert f">{name}<" in svg
    assert (out_dir / "overhead.png").stat().st_size > 1000
    assert "throughput of seq: gl 1.00x, tl2 1.00x" in (out_dir / "overhead.txt").read_text()
    summary = (out_dir / "summary.txt").read_text().splitlines()
    assert summary[1].split()[:3] == ["fig-3.10", "skipped", "backend"]
    assert summary[2].split()[:2] == ["overhead", "ok"]
    assert "overhead.png" in summary[2]
    assert "variant 'pot' left out" in out


def test_reproduce_an_experiment_of_two_workloads(fake_backends: Path, tmp_path: Path) -> None:
    grid = Grid(cases=(Case("intset-rb", "intset", {"structure": "rb", "update": [10]}),
                       Case("bank", "bank", {"accounts": 64})),
                variants=("gl", "tl2"), threads=(1, 2), repeat=2, params={"duration": 20})
    exp = Experiment("t-scal", "Scalability test", "nothing", grid, grid,
                     Speedup(baseline="tl2"), requires=("tl2",))
    report = run_experiment(exp, "quick", tmp_path, LibraryDir(fake_backends),
                            progress=False)
    assert report.status == "ok", report.reason
    rows = _csv_rows(tmp_path / "t-scal.csv")
    assert len(rows) == 2 * 2 * 2 * 2
    assert {(r["benchmark"], r["structure"], r["accounts"]) for r in rows} == {
        ("intset-rb", "rb", ""), ("bank", "", "64")}
    # fake throughput: 1000 x threads + update (intset) or + readonly (bank)
    assert "intset-rb: gl 1.99x, tl2 1.99x; bank: gl 2.00x, tl2 2.00x" in report.key_numbers
    svg = (tmp_path / "t-scal.svg").read_text()
    assert ">gl<" in svg and ">tl2<" in svg and ">intset, rb<" in svg and "benchmark =" not in svg


def test_an_experiment_reuses_the_runs_of_one_before(fake_backends: Path,
                                                      tmp_path: Path) -> None:
    """fig-3.8's points are fig-3.7's: a run of the same point and repeat
    recorded by an earlier experiment is taken from its cache (and copied
    into the new one), a failed one is run again."""
    bank = (Case("bank", "bank", {"accounts": 64}),)
    wide = Grid(cases=bank, variants=("gl", "tl2"), threads=(2,), repeat=2,
                params={"duration": 20})
    narrow = Grid(cases=bank, variants=("tl2",), threads=(2,), repeat=2,
                  params={"duration": 20})
    first = Experiment("t-wide", "t", "t", wide, wide, NormalizedBars("tl2"))
    second = Experiment("t-narrow", "t", "t", narrow, narrow, NormalizedBars("tl2"))
    libs = LibraryDir(fake_backends)
    assert run_experiment(first, "quick", tmp_path, libs, progress=False).status == "ok"
    # Mark the donor's tl2 runs: repeat 0 with a throughput no run gives,
    # repeat 1 as failed.
    donor = tmp_path / "t-wide.runs.jsonl"
    lines = [json.loads(line) for line in donor.read_text().splitlines()]
    for entry in lines:
        if entry["key"]["backend"] == "tl2":
            if entry["key"]["repeat"] == 0:
                entry["result"]["throughput"] = 4242.0
            else:
                entry["result"]["ok"] = False
    donor.write_text("".join(json.dumps(e) + "\n" for e in lines))
    report = run_experiment(second, "quick", tmp_path, libs, progress=False, reuse=[donor])
    assert report.status == "ok", report.reason
    rows = _csv_rows(tmp_path / "t-narrow.csv")
    assert sorted(float(r["throughput"]) for r in rows) == [2000.0, 4242.0]
    assert len((tmp_path / "t-narrow.runs.jsonl").read_text().splitlines()) == 2
    # Without reuse, everything runs.
    report = run_experiment(second, "quick", tmp_path, libs, progress=False)
    assert [float(r["throughput"]) for r in _csv_rows(tmp_path / "t-narrow.csv")] == [2000.0] * 2


def test_reproduce_passes_earlier_caches_on(fake_backends: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """reproduce gives each experiment the caches of those run before it."""
    seen: dict[str, list[Path]] = {}

    def record(exp: Experiment, *args: Any, reuse: Any = (), **kwargs: Any) -> Any:
        seen[exp.id] = list(reuse)
        return potm.reproduce.Report(exp.id, "ok")

    monkeypatch.setattr(potm.reproduce, "run_experiment", record)
    reproduce(["fig-3.7", "fig-3.8", "fig-3.10"], out=tmp_path, lib_dir=fake_backends,
              progress=False)
    assert seen == {"fig-3.7": [], "fig-3.8": [tmp_path / "fig-3.7.runs.jsonl"],
                    "fig-3.10": [tmp_path / "fig-3.7.runs.jsonl",
                                 tmp_path / "fig-3.8.runs.jsonl"]}


def test_a_failing_experiment_fails_alone(fake_backends: Path, tmp_path: Path) -> None:
    crash = Grid(cases=(Case("bank", "bank", {"seed": SEED_CRASH}),), variants=("tl2",),
                 repeat=1)
    exp = Experiment("t-crash", "t", "t", crash, crash, NormalizedBars("tl2"))
    report = run_experiment(exp, "quick", tmp_path, LibraryDir(fake_backends),
                            progress=False)
    assert report.status == "failed" and "1 of 1 runs failed" in report.reason
    assert "SIGSEGV" in report.reason
    bad = Grid(cases=(Case("bank", "bank", {"readonly": 300}),), variants=("tl2",))
    exp = Experiment("t-bad", "t", "t", bad, bad, NormalizedBars("tl2"))
    report = run_experiment(exp, "quick", tmp_path, LibraryDir(fake_backends))
    assert report.status == "failed" and "'readonly' = 300 is out of range" in report.reason
    assert exit_status([report]) == 1


def test_summary_keeps_earlier_experiments(fake_backends: Path, tmp_path: Path) -> None:
    reproduce(["fig-3.6"], out=tmp_path, lib_dir=fake_backends, progress=False)
    reproduce(["fig-3.10"], out=tmp_path, lib_dir=fake_backends, progress=False)
    lines = (tmp_path / "summary.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["fig-3.6", "fig-3.10"]


def test_reproduce_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _potm(["reproduce", "fig-9.9"], capsys)
    assert status == 2 and "no experiment matches 'fig-9.9'" in err
    with pytest.raises(SystemExit):
        main(["reproduce", "--quick", "--full"])


def _no_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a run was started although the environment is bad")
    monkeypatch.setattr(worker, "run_bench", forbidden)
    api._ACCEPTED.clear()


@pytest.mark.parametrize("name,value,pattern", [
    ("POTM_MAX_THREADS", "abc", r'POTM_MAX_THREADS="abc"; allowed: an integer from 1 to'),
    ("POTM_FOO", "1", r"unknown environment variable POTM_FOO; the POTM_\* settings are: "),
])
def test_reproduce_refuses_a_bad_variable_up_front(
        fake_backends: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], name: str, value: str, pattern: str) -> None:
    """A bad POTM_* variable is one usage error, before any experiment runs,
    not a failure of each experiment."""
    monkeypatch.setenv(name, value)
    _no_runs(monkeypatch)
    out_dir = tmp_path / "out"
    status, out, err = _potm(["reproduce", "--quick", "--out", str(out_dir), "--no-progress",
                              "--lib-dir", str(fake_backends), "overhead", "fig-3.6"], capsys)
    assert status == 2 and re.search(pattern, err), err
    assert "no run was started" in err and "failed" not in out
    assert not out_dir.exists()


def test_reproduce_refuses_a_bad_mode_up_front(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """POTM_MODE=bogus: exit 2, naming the variable and the modes the
    library allows; nothing runs."""
    if "tl2" not in real_backends():
        pytest.skip(f"tl2 is not built in {build_dir()}")
    monkeypatch.setenv("POTM_MODE", "bogus")
    _no_runs(monkeypatch)
    out_dir = tmp_path / "out"
    status, out, err = _potm(["reproduce", "--quick", "--out", str(out_dir), "--no-progress",
                              "--lib-dir", str(build_dir()), "overhead"], capsys)
    assert status == 2, err
    assert 'POTM_MODE="bogus"; allowed: pot, pot-fast, pot-ordered, pogl, destm' in err
    assert not out_dir.exists() and "overhead" not in out


def test_python_dash_m_reproduce_default_out(fake_backends: Path, tmp_path: Path) -> None:
    """What 'make demo' does: python3 -m potm reproduce --quick, the package
    from PYTHONPATH and the libraries from POTMPY_LIB_DIR."""
    env = dict(os.environ, PYTHONPATH=str(Path(potm.__file__).parent.parent),
               POTMPY_LIB_DIR=str(fake_backends))
    done = subprocess.run([sys.executable, "-m", "potm", "reproduce", "--quick",
                           "--no-progress", "overhead"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results" / "quick" / "overhead.csv").is_file()
    assert "overhead    ok" in done.stdout


def test_script_runs_one_experiment(fake_backends: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPTS_DIR / "overhead.py"), "--quick",
                           "--no-progress", "--out", str(tmp_path), "--lib-dir",
                           str(fake_backends)], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "overhead.csv").is_file() and (tmp_path / "overhead.svg").is_file()


def test_reproduce_quick_on_the_real_backends(tmp_path: Path) -> None:
    libs_path = build_dir()
    needed = ("seq", "tl2")
    if not libs_path.is_dir():
        pytest.skip(f"no C build directory {libs_path} (set POTMPY_BUILD_DIR)")
    libs = LibraryDir(libs_path)
    missing = [b for b in needed if not libs.has_bench(b)]
    if missing:
        pytest.skip(f"benchmark libraries of {', '.join(missing)} are not built in "
                    f"{libs_path} (libpotm-bench-<b>.so)")
    [report] = reproduce([_short(experiment("overhead"))], scale="quick", out=tmp_path,
                         lib_dir=libs_path, progress=False)
    assert report.status == "ok", report.reason
    rows = _csv_rows(tmp_path / "overhead.csv")
    built = [b for b in ("seq", "gl", "tl2") if libs.has_bench(b)]
    assert {r["variant"] for r in rows} >= set(built)
    assert all(r["ok"] == "True" and float(r["throughput"]) > 0 for r in rows)
    svg = (tmp_path / "overhead.svg").read_text()
    assert all(f">{b}<" in svg for b in built)
    # The library says which benchmarks it was built with.
    assert "was built without the nope benchmark (it has: intset, bank" in \
        (missing_backend(libs, "tl2", ["intset", "nope"]) or "")


#: The run length (ms) of the real-backend tests' timed runs: long enough
#: for every run to commit transactions and report them, while the tests
#: check the rows, figures and key numbers, not the figures' values.
TEST_DURATION_MS = 50


def _short(exp: Experiment) -> Experiment:
    """exp with the timed runs of its quick grid (a "duration" parameter,
    of the grid or of a case) cut to TEST_DURATION_MS."""
    def cut(params: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(params)
        if isinstance(out.get("duration"), int):
            out["duration"] = min(out["duration"], TEST_DURATION_MS)
        return out
    quick = exp.quick
    cases = tuple(replace(c, params=cut(c.params)) for c in quick.cases)
    return replace(exp, quick=replace(quick, cases=cases, params=cut(quick.params)))


def _once(exp_id: str, cases: Optional[int] = None, short: bool = False) -> Experiment:
    """exp_id with its quick grid run once, on its first cases only if
    cases is given, its timed runs cut if short (_short): the grids,
    renderers and files are under test, not the medians (make demo runs the
    quick grids as defined)."""
    exp = experiment(exp_id)
    if short:
        exp = _short(exp)
    return replace(exp, quick=replace(exp.quick, repeat=1, cases=exp.quick.cases[:cases]))


#: Experiments whose quick grid the tests cut to its first cases: STAMP
#: applications, a second or more each; fig-3.8 draws fig-3.7's runs.
_FEWER_CASES = {"fig-3.7": 3, "fig-3.8": 3}


def _reproduce_quick(tmp_path_factory: pytest.TempPathFactory, ids: list[str],
                     needs: dict[str, list[str]],
                     short: bool = False) -> tuple[Path, dict[str, Any]]:
    """Run ids --quick (_once, cut as _FEWER_CASES says, timed runs cut
    if short) in one reproduce call on the real backends: the output
    directory and the reports by id.  Skipped unless every backend of needs
    has a benchmark library with the workloads it lists."""
    libs_path = build_dir()
    if not libs_path.is_dir():
        pytest.skip(f"no C build directory {libs_path} (set POTMPY_BUILD_DIR)")
    libs = LibraryDir(libs_path)
    for backend, workloads in needs.items():
        if not libs.has_bench(backend):
            pytest.skip(f"no {backend} benchmark library in {libs_path}")
        problem = missing_backend(libs, backend, workloads)
        if problem is not None:
            pytest.skip(problem)
    out = tmp_path_factory.mktemp("quick")
    once = [_once(i, _FEWER_CASES.get(i), short) for i in ids]
    reports = reproduce(once, scale="quick", out=out, lib_dir=libs_path, progress=False,
                        stream=io.StringIO())
    return out, {r.id: r for r in reports}


@pytest.fixture(scope="module")
def doppel_quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Every Doppel experiment run once, --quick (skipped without the
    doppel benchmark in libpotm-bench-tl2.so)."""
    return _reproduce_quick(tmp_path_factory, sorted(DOPPEL_SERIES), {"tl2": ["doppel"]})


@pytest.mark.parametrize("exp_id", sorted(DOPPEL_SERIES))
def test_doppel_experiments_quick(doppel_quick: tuple[Path, dict[str, Any]],
                                  exp_id: str) -> None:
    out, reports = doppel_quick
    report = reports[exp_id]
    if exp_id == "rubis" and report.status == "skipped":
        assert "rubis" in report.reason  # a library built before bench/rubis.c
        return
    assert report.status == "ok", report.reason
    rows = _csv_rows(out / f"{exp_id}.csv")
    assert rows and all(r["ok"] == "True" and float(r["throughput"]) > 0 for r in rows)
    assert {r["variant"] for r in rows} == DOPPEL_SERIES[exp_id]
    svg = (out / f"{exp_id}.svg").read_text()
    assert all(f">{name}<" in svg for name in DOPPEL_SERIES[exp_id])
    assert (out / f"{exp_id}.png").stat().st_size > 1000
    # The summary line states the key ratio first.
    assert ("2t/1t" if exp_id == "fig-7-2" else "doppel/occ") in \
        report.key_numbers.split(";")[0]
    assert report.seconds < 60, f"{exp_id} --quick took {report.seconds:.0f} s"


def test_doppel_quick_specifics(doppel_quick: tuple[Path, dict[str, Any]]) -> None:
    out, _ = doppel_quick
    moving = _csv_rows(out / "fig-7-3.csv")
    assert all(len(r["count_timeline"].split()) >= 20 for r in moving)  # 1 s / 50 ms
    assert "time (s)" in (out / "fig-7-3.txt").read_text()
    assert (out / "fig-7-4-splits.png").is_file()
    doppel_skewed = [r for r in _csv_rows(out / "fig-7-4.csv")
                     if r["variant"] == "doppel" and r["alpha_x100"] == "140"]
    assert doppel_skewed and all(float(r["count_splits"]) >= 1 for r in doppel_skewed)
    latency = _csv_rows(out / "table-7.3.csv")
    assert all(float(r["count_read_p99_ns"]) > 0 and float(r["count_write_p99_ns"]) > 0
               for r in latency)
    assert "read p99 (us)" in (out / "table-7.3.svg").read_text()


#: The Pot thesis's experiments and the microbenchmark views (overhead has
#: its own test above), run --quick on the real backends as the README's
#: main job runs them; the HTM figures come with their own checks.
POT_QUICK = ("fig-3.11", "determinism-cost", "fig-3.6", "fig-3.7", "fig-3.8", "fig-3.10",
             "fig-3.12")


@pytest.fixture(scope="module")
def pot_quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """POT_QUICK run once, in one call (so fig-3.8 and fig-3.12 take the
    runs they share with fig-3.7 and fig-3.10), timed runs cut to
    TEST_DURATION_MS; skipped where pot or tl2 is not built.  (The Doppel
    experiments keep their durations: fig-7-3's timeline needs 20
    intervals.)"""
    micro = ["fasttx", "intset", "bank"]
    return _reproduce_quick(tmp_path_factory, list(POT_QUICK), {"tl2": micro, "pot": micro},
                            short=True)


@pytest.mark.parametrize("exp_id", POT_QUICK)
def test_pot_experiments_quick(pot_quick: tuple[Path, dict[str, Any]], exp_id: str) -> None:
    out, reports = pot_quick
    report = reports[exp_id]
    assert report.status == "ok", report.reason
    rows = _csv_rows(out / f"{exp_id}.csv")
    assert rows and all(r["ok"] == "True" for r in rows)
    assert all(float(r.get("throughput") or 0) > 0 or float(r.get("elapsed") or 0) > 0
               for r in rows)
    grid = _once(exp_id, _FEWER_CASES.get(exp_id)).grid("quick")
    built = set(LibraryDir(build_dir()).backends())
    series = {v.name for v in grid.resolved_variants(build_dir()) if v.backend in built}
    assert {r["variant"] for r in rows} == series
    assert {r["benchmark"] for r in rows} == {c.name for c in grid.cases}
    assert {int(r["threads"]) for r in rows} == set(grid.threads)
    svg = (out / f"{exp_id}.svg").read_text()
    assert all(f">{name}<" in svg for name in series)
    assert (out / f"{exp_id}.png").stat().st_size > 1000
    assert report.key_numbers


def test_timeline_renderer_and_key_numbers() -> None:
    table = timeline_table({"occ": ["10 10 10 1", "12 14 10 0"],
                            "doppel": ["30 10 40 2", "30 20 60 0"]},
                           interval_ms=100, elapsed_s=0.3)
    grid = Grid((Case("x", "doppel"),), ("tl2",))
    exp = Experiment("t-time", "Timeline test", "nothing", grid, grid, Timeline())
    keys = (KeyNumber("doppel/occ first", {"variant": "doppel"}, over={"variant": "occ"},
                      value="elapsed"),)
    out = Timeline(panel=None, keys=keys)(table, exp)
    assert series_labels(out.figures[""]) == ["occ", "doppel"]
    assert out.key_numbers.startswith("doppel/occ first 1.00x; throughput (tx/s) per "
                                      "interval: occ median 110 lowest 100, doppel median")
    assert out.summary.splitlines()[:2] == ["time (s)  occ  doppel",
                                            "    0.05  110     300"]
    assert len(out.summary.splitlines()) == 4  # 3 complete intervals of 0.3 s


def test_derived_and_combined_renderers() -> None:
    t = synthetic_table({"variant": ["doppel", "occ"], "threads": [1, 2]},
                        lambda p: 100.0 * p["threads"] * (2 if p["variant"] == "doppel" else 1))
    grid = Grid((Case("x", "doppel"),), ("tl2",))
    render = Derived((Column("per_thread", "throughput", "threads"),),
                     Combined(Curves(x="threads", value="per_thread", panel=None,
                                     keys=(KeyNumber("doppel 2t/1t", {"variant": "doppel",
                                                                      "threads": 2},
                                                     over={"variant": "doppel",
                                                           "threads": 1}),)),
                              {"raw": Curves(x="threads", panel=None)}))
    exp = Experiment("t-derived", "Derived", "nothing", grid, grid, render)
    out = exp.render(t, exp)
    assert sorted(out.figures) == ["", "raw"]
    assert out.key_numbers.startswith("doppel 2t/1t 2.00x; per_thread at threads=2: "
                                      "doppel 200, occ 100")
    assert "\n\nraw:\n" in out.summary
    with pytest.raises(ValueError, match="selects"):
        key_text(t, [KeyNumber("all doppel", {"variant": "doppel"})])


def test_fig_3_8_wait_share_renderer() -> None:
    """fig-3.8's columns chain (wait per thread, per second of execution,
    percent) and its Bars renderer draws the values themselves."""
    t = synthetic_table({"benchmark": ["genome", "kmeans"], "variant": ["pot", "destm"],
                         "threads": [2]}, lambda p: 1.0)
    elapsed = 2.0   # seconds; destm waits 1.2 s per thread (60 %), pot 0.2 s (10 %)
    t = with_columns(t, [Column("wait_turn_ns", "elapsed", 1.0)])
    t.array["elapsed"] = elapsed
    t.array["wait_turn_ns"] = [2 * (1.2e9 if v == "destm" else 0.2e9)
                               for v in t.array["variant"]]
    exp = experiment("fig-3.8")
    out = exp.render(t, exp)
    assert series_labels(out.figures[""]) == ["pot", "destm"]
    assert out.key_numbers == ("% of thread time waiting for the turn, median over "
                               "benchmarks: pot 10, destm 60")
    assert "genome" in out.summary and "wait_percent" in out.summary
    with pytest.raises(ValueError, match="no column 'nope'"):
        with_columns(t, [Column("a", "wait_turn_ns", "nope")])


def test_htm_figures_run_stamp() -> None:
    """fig-3.13 and fig-3.14 are the thesis's STAMP figures on HTM: every
    STAMP case, the hardware backends required; fig-3.13 shows persistent
    aborts over hardware starts in percent, fig-3.14 times over rot's."""
    stamp_cases = {c.name for c in experiment("fig-3.7").grid("full").cases}
    for exp_id, needs in (("fig-3.13", ("rtm", "pot-rtm")), ("fig-3.14", ("rot", "pot-rot")),
                          ("fig-3.14-rtm", ("rtm", "pot-rtm"))):
        exp = experiment(exp_id)
        assert exp.requires == needs and exp.provisional == (exp_id != "fig-3.14-rtm")
        for scale in ("quick", "full"):
            assert {c.name for c in exp.grid(scale).cases} == stamp_cases
    assert experiment("fig-3.13").needs_rtm_cpu and experiment("fig-3.14-rtm").needs_rtm_cpu
    render = experiment("fig-3.14-rtm").render
    assert isinstance(render, NormalizedBars) and render.baseline == "rtm"
    t = synthetic_table({"benchmark": ["labyrinth", "kmeans"], "variant": ["rtm", "pot-rtm"],
                         "threads": [2]}, lambda p: 1.0)
    t = with_columns(t, [Column("htm_starts", "elapsed", 1.0),
                         Column("htm_persistent", "elapsed", 1.0)])
    # rtm: 30 of 200 hardware starts persistent (15 %); pot-rtm: 5 of 200.
    t.array["htm_starts"] = 200.0
    t.array["htm_persistent"] = [30.0 if v == "rtm" else 5.0 for v in t.array["variant"]]
    exp = experiment("fig-3.13")
    out = exp.render(t, exp)
    assert series_labels(out.figures[""]) == ["rtm", "pot-rtm"]
    assert "rtm 15, pot-rtm 2.5" in out.key_numbers
    assert "% of HTM starts aborted persistently" in out.key_numbers


SUBMODULES = sorted(m.name for m in pkgutil.walk_packages(potm.experiments.__path__,
                                                         "potm.experiments."))
DEFINITIONS = sorted(p.name for p in registry.definition_files(SCRIPTS_DIR))


@pytest.mark.parametrize("name", SUBMODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                             extraglobs={"potm": potm})
    assert result.failed == 0


@pytest.mark.parametrize("name", DEFINITIONS)
def test_definition_docstring_examples(name: str) -> None:
    registry.load_definition(SCRIPTS_DIR / name)
    module = sys.modules[f"potm_experiment_{name[:-3]}"]
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


SHARED = sorted(p.name for p in SCRIPTS_DIR.glob("_*.py"))


@pytest.mark.parametrize("name", SHARED)
def test_shared_definition_modules(name: str) -> None:
    """A family's shared module is no experiment, is imported by the
    definitions of that family (one copy of what they share), and its
    examples hold."""
    assert name not in DEFINITIONS
    users = [p.name for p in registry.definition_files(SCRIPTS_DIR)
             if f"from {name[:-3]} import" in p.read_text()]
    assert len(users) >= 2, users
    registry.load_definition(SCRIPTS_DIR / users[0])
    result = doctest.testmod(sys.modules[name[:-3]], optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
