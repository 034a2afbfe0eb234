"""Arguments are checked before anything runs, and errors name the culprit."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import potm
from potm import worker
from conftest import build_dir
from potm._lib import LIB_DIR_ENV, LibraryDir
from potm.modes import ModesUnavailable


@pytest.fixture(autouse=True)
def _no_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A validation test that starts a worker is a failed test."""
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a worker was started although validation should have failed")
    monkeypatch.setattr(worker, "run_bench", forbidden)


def test_unknown_workload_lists_the_known_ones(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown workload 'intsett'; known: intset, bank"):
        potm.run("intsett", backend="fake", lib_dir=fake_lib_dir)


def test_unknown_parameter_is_named(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown parameter 'accounts'.*structure"):
        potm.run("intset", backend="fake", accounts=10, lib_dir=fake_lib_dir)


@pytest.mark.parametrize("name,value,pattern", [
    ("update", 101, r"'update' = 101 is out of range: a percentage, 0..100"),
    ("update", -1, r"'update' = -1 is out of range"),
    ("structure", "avl", r"'structure' = 'avl' is not allowed: one of rb, ll, hs, sl"),
    ("initial", 0, r"'initial' = 0 is out of range"),
    ("range", "100", r"'range' = '100' is not an integer"),
    ("duration", 2.5, r"'duration' = 2.5 is not an integer"),
    ("seed", True, r"'seed' = True is a bool"),
    ("seed", 1 << 64, r"'seed' = 18446744073709551616 is out of range"),
])
def test_bad_values_are_named(fake_lib_dir: Path, name: str, value: object,
                              pattern: str) -> None:
    params: dict[str, Any] = {name: value}
    with pytest.raises(ValueError, match=pattern):
        potm.run("intset", backend="fake", lib_dir=fake_lib_dir, **params)


def test_numpy_integers_are_accepted() -> None:
    spec = potm.WORKLOADS["bank"]
    assert spec.validate({"accounts": np.int64(64)}) == {"accounts": 64}
    assert type(spec.validate({"accounts": np.int32(64)})["accounts"]) is int


def test_duration_and_ops_exclude_each_other(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"'duration' and 'ops' exclude each other"):
        potm.run("bank", backend="fake", duration=10, ops=10, lib_dir=fake_lib_dir)


def test_initial_cannot_exceed_range(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"'initial' = 600 exceeds 'range' = 512"):
        potm.run("intset", backend="fake", initial=600, range=512, lib_dir=fake_lib_dir)


@pytest.mark.parametrize("workload,params,pattern", [
    ("doppel", {"kind": "incr2"}, r"'kind' = 'incr2' is not allowed: one of incr1, incrz, like"),
    ("doppel", {"mode": "2pl"}, r"'mode' = '2pl' is not allowed: one of doppel, occ, split, "
                                r"atomic"),
    ("doppel", {"hot": 101}, r"'hot' = 101 is out of range: a percentage, 0..100"),
    ("doppel", {"alpha_x100": 401}, r"'alpha_x100' = 401 is out of range: an integer, 0..400"),
    ("doppel", {"keys": 0}, r"'keys' = 0 is out of range"),
    ("doppel", {"split": 257}, r"'split' = 257 is out of range: an integer, 1..256"),
    # The benchmark's own cross-option usage errors, with the Python names.
    ("doppel", {"alpha_x100": 140},
     r"doppel: parameter 'alpha_x100' = 140 needs 'kind' to be one of incrz, like "
     r"\(it is 'incr1', the default\): incr1 takes 'hot' instead"),
    ("doppel", {"kind": "incr1", "alpha_x100": 0}, r"'alpha_x100' = 0 needs 'kind'"),
    ("doppel", {"kind": "like", "change": 500},
     r"'change' = 500 needs 'kind' to be one of incr1 \(it is 'like'\)"),
    ("doppel", {"mode": "split", "change": 500},
     r"'change' = 500 needs 'mode' to be one of doppel, occ, atomic \(it is 'split'\): "
     r"a hand split cannot follow the moving hot key"),
    ("doppel", {"kind": "like", "mode": "atomic"},
     r"'mode' = 'atomic' needs 'kind' to be one of incr1, incrz \(it is 'like'\)"),
    ("rubis", {"mode": "atomic"}, r"'mode' = 'atomic' is not allowed: one of doppel, occ, "
                                  r"split"),
    ("rubis", {"top": 65}, r"'top' = 65 is out of range: an integer, 1..64"),
    ("rubis", {"items": 8}, r"rubis: parameter 'categories' = 16 \(its default\) exceeds "
                            r"'items' = 8: every category needs an item"),
])
def test_doppel_and_rubis_parameters(fake_lib_dir: Path, workload: str,
                                     params: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        potm.run(workload, backend="fake", lib_dir=fake_lib_dir, **params)


def test_doppel_rules_accept_what_the_benchmark_accepts() -> None:
    spec = potm.WORKLOADS["doppel"]
    assert spec.argv(spec.validate({"kind": "incr1", "change": 500, "interval": 50})) == \
        ["doppel", "-w", "incr1", "-c", "500", "-i", "50"]
    for ok in ({"kind": "like", "change": 0}, {"kind": "incrz", "mode": "atomic"},
               {"mode": "split", "kind": "incrz", "split": 4}, {"hot": 0},
               {"kind": "like", "alpha_x100": 0, "write": 100}):
        spec.validate(ok)
    assert potm.WORKLOADS["rubis"].validate({"items": 16, "categories": 16}) == \
        {"items": 16, "categories": 16}


@pytest.mark.parametrize("threads,pattern", [
    (0, r"'threads' = 0 is out of range"),
    (5000, r"'threads' = 5000 is out of range"),
    ("2", r"'threads' = '2' is not an integer"),
])
def test_bad_thread_counts(fake_lib_dir: Path, threads: object, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        potm.run("bank", backend="fake", threads=threads,  # type: ignore[arg-type]
                 lib_dir=fake_lib_dir)


def test_threads_beyond_config_max_threads(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"'threads' = 8 exceeds config max_threads = 4"):
        potm.run("bank", backend="fake", threads=8, config={"max_threads": 4},
                 lib_dir=fake_lib_dir)


def test_seq_runs_one_thread_only() -> None:
    # Checked from the backend's name, before looking for libraries.
    with pytest.raises(ValueError, match=r"backend 'seq' runs one thread only"):
        potm.run("bank", backend="seq", threads=2, lib_dir="/nonexistent")


def test_unknown_backend_lists_the_built_ones(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown backend 'tl3'; built in .*: fake"):
        potm.run("bank", backend="tl3", lib_dir=fake_lib_dir)


def test_backend_without_benchmark_library(tmp_path: Path, fake_lib_dir: Path) -> None:
    shutil.copyfile(fake_lib_dir / "libpotm-fake.so", tmp_path / "libpotm-tl2.so")
    with pytest.raises(ValueError, match=r"'tl2' is built but its benchmark library "
                                         r"libpotm-bench-tl2.so is not in"):
        potm.run("bank", backend="tl2", lib_dir=tmp_path)
    assert potm.backends(lib_dir=tmp_path) == ["tl2"]
    assert not potm.has_bench("tl2", lib_dir=tmp_path)


@pytest.mark.parametrize("config,pattern", [
    ({"lock_bit": 20}, r"unknown config setting 'lock_bit'; known: max_threads"),
    ({"lock_bits": 29}, r"'lock_bits' = 29 is out of range: an integer from 8 to 28 "
                        r"\(POTM_LOCK_BITS\)"),
    ({"extend": 2}, r"'extend' = 2 is out of range: 0 or 1"),
    ({"pin": "yes"}, r"'pin' = 'yes' is not an integer"),
    ({"sequencer": "random"}, r"'sequencer' = 'random' is not allowed: round-robin, "
                              r"weighted, explicit \(POTM_SEQUENCER\)"),
])
def test_bad_config(fake_lib_dir: Path, config: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        potm.run("bank", backend="fake", config=config, lib_dir=fake_lib_dir)


@pytest.mark.parametrize("mode,pattern", [
    ("pot-slow", r"'mode' = 'pot-slow' is not allowed: pot, pot-fast, pot-ordered, pogl, "
                 r"destm \(POTM_MODE\)"),
    (1, r"'mode' = 1 is not allowed"),
])
def test_bad_mode(mode: object, pattern: str) -> None:
    """The modes allowed are those the library names (tm_mode_name)."""
    libs = build_dir()
    if not (libs.is_dir() and LibraryDir(libs).has_bench("tl2")):
        pytest.skip(f"no tl2 benchmark library in {libs} (set POTMPY_BUILD_DIR)")
    with pytest.raises(ValueError, match=pattern):
        potm.run("bank", backend="tl2", config={"mode": mode},  # type: ignore[dict-item]
                 lib_dir=libs)


def test_a_mode_needs_a_library_that_names_the_modes(fake_lib_dir: Path) -> None:
    """The fake library has no tm_mode_name: a mode cannot be checked, and
    the error says what is missing; a run without one needs no list."""
    with pytest.raises(ModesUnavailable, match=r"libpotm-fake.so does not export "
                                               r"tm_mode_name"):
        potm.run("bank", backend="fake", config={"mode": "pot"}, lib_dir=fake_lib_dir)


@pytest.mark.parametrize("timeout", [0, -1, "10", True])
def test_bad_timeout(fake_lib_dir: Path, timeout: object) -> None:
    with pytest.raises(ValueError, match=r"timeout"):
        potm.run("bank", backend="fake", timeout=timeout,  # type: ignore[arg-type]
                 lib_dir=fake_lib_dir)


def test_sweep_validates_every_point_first(fake_lib_dir: Path) -> None:
    # The last point is wrong: nothing may run (the fixture forbids workers).
    with pytest.raises(ValueError, match=r"'update' = 101 is out of range"):
        potm.sweep("intset", backends=["fake"], threads=[1, 2], update=[0, 50, 101],
                   lib_dir=fake_lib_dir, progress=False)


@pytest.mark.parametrize("kwargs,pattern", [
    ({"repeat": 0}, r"repeat = 0"),
    ({"threads": []}, r"'threads' has no values"),
    ({"accounts": [8, 8]}, r"'accounts' lists 8 twice"),
    ({"backends": ["fake", "nope"]}, r"unknown backend 'nope'"),
])
def test_bad_sweeps(fake_lib_dir: Path, kwargs: dict[str, Any], pattern: str) -> None:
    arguments: dict[str, Any] = {"backends": ["fake"], "lib_dir": fake_lib_dir,
                                 "progress": False}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        potm.sweep("bank", **arguments)


def test_library_directory_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match=r"not a directory"):
        LibraryDir.find(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"holds no libpotm-<backend>.so"):
        LibraryDir.find(tmp_path)
    monkeypatch.setenv(LIB_DIR_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"\$POTMPY_LIB_DIR names"):
        LibraryDir.find()


def test_library_directory_from_the_environment(fake_lib_dir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LIB_DIR_ENV, str(fake_lib_dir))
    assert potm.backends() == ["fake"]
    assert potm.has_bench("fake")


def test_backend_order(tmp_path: Path) -> None:
    for name in ("tl2", "zz", "seq", "pot-rtm", "gl", "bench-tl2"):
        (tmp_path / f"libpotm-{name}.so").write_bytes(b"")
    (tmp_path / "libpotm-tl2.so.0").write_bytes(b"")
    assert LibraryDir(tmp_path).backends() == ["seq", "gl", "tl2", "pot-rtm", "zz"]
