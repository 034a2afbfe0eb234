"""A bad POTM_* variable is refused before anything runs, naming the
variable and its allowed values; a backend this install lacks is told apart
from a name no build has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import potm
from conftest import build_dir, real_backends
from potm import api, worker
from potm._lib import LibraryDir
from potm.cli import main as cli_main
from potm.config import ConfigError
from potm.modes import ModesUnavailable


@pytest.fixture(autouse=True)
def _no_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that starts is a failed test: the check comes first."""
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a run was started although the environment is bad")
    monkeypatch.setattr(worker, "run_bench", forbidden)
    api._ACCEPTED.clear()


@pytest.mark.parametrize("name,value,pattern", [
    ("POTM_SEQUENCER", "random", r'POTM_SEQUENCER="random"; allowed: round-robin, '
                                 r"weighted, explicit"),
    ("POTM_MAX_THREADS", "abc", r'POTM_MAX_THREADS="abc"; allowed: an integer from 1 '
                                r"to 4096"),
    ("POTM_LOCK_BITS", "-3", r'POTM_LOCK_BITS="-3"; allowed: an integer from 8 to 28'),
    ("POTM_FOO", "1", r"unknown environment variable POTM_FOO; the POTM_\* settings "
                      r"are: POTM_MAX_THREADS, "),
])
def test_a_bad_variable_stops_a_sweep_before_it_starts(
        fake_lib_dir: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str,
        pattern: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=pattern) as caught:
        potm.sweep("bank", backends=["fake"], threads=[1, 2], repeat=2,
                   lib_dir=fake_lib_dir, progress=False)
    assert "set in the environment of this process" in str(caught.value)
    assert isinstance(caught.value, ValueError)  # what callers already catch
    with pytest.raises(ConfigError, match=pattern):
        potm.run("bank", backend="fake", lib_dir=fake_lib_dir)


def test_a_mode_is_checked_against_the_library_s_list(
        fake_lib_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """POTM_MODE's values are the library's (tm_mode_name): the fake has
    none, and says so before anything runs."""
    monkeypatch.setenv("POTM_MODE", "pot")
    with pytest.raises(ModesUnavailable, match=r"libpotm-fake.so does not export "
                                               r"tm_mode_name"):
        potm.sweep("bank", backends=["fake"], lib_dir=fake_lib_dir, progress=False)
    libs = _built("tl2")
    if not libs.has_bench("tl2"):
        pytest.skip("no benchmark library for tl2")
    monkeypatch.setenv("POTM_MODE", "bogus")
    with pytest.raises(ConfigError, match=r'POTM_MODE="bogus"; allowed: pot, pot-fast, '
                                          r"pot-ordered, pogl, destm"):
        potm.run("bank", backend="tl2", lib_dir=libs.path)


def test_config_overrides_a_bad_variable(fake_lib_dir: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """config= replaces the environment's value: the run never sees it."""
    monkeypatch.setenv("POTM_MAX_THREADS", "abc")
    monkeypatch.setattr(worker, "run_bench", _fake_run)
    r = potm.run("bank", backend="fake", config={"max_threads": 8}, lib_dir=fake_lib_dir)
    assert r.ok and r.config["POTM_MAX_THREADS"] == "8"


def test_the_build_variables_are_not_settings(fake_lib_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """POTM_BACKENDS, POTM_JOBS... belong to the build: never refused."""
    monkeypatch.setenv("POTM_JOBS", "2")
    monkeypatch.setenv("POTM_BACKENDS", "tl2;pot")
    monkeypatch.setattr(worker, "run_bench", _fake_run)
    assert potm.run("bank", backend="fake", lib_dir=fake_lib_dir).ok


def _fake_run(*args: Any, **kwargs: Any) -> worker.Outcome:
    line = ('{"bench": "bank", "throughput": 1.0, "stats": {"commits": 1, "aborts": 0}, '
            '"verified": true}')
    return worker.Outcome(("fake",), 1, 0, line + "\n", "", False, 1.0, 0.1)


def test_the_command_line_reports_the_variable(fake_lib_dir: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("POTM_SEQUENCER", "random")
    with pytest.raises(SystemExit) as done:
        cli_main(["sweep", "bank", "-b", "fake", "--repeat", "1", "--no-progress",
                  "--lib-dir", str(fake_lib_dir)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert 'POTM_SEQUENCER="random"' in err and "allowed: round-robin, weighted" in err
    assert "rejected its arguments" not in err


def _built(backend: str) -> LibraryDir:
    if backend not in real_backends():
        pytest.skip(f"backend {backend} is not built in {build_dir()}")
    return LibraryDir(build_dir())


def _python_table_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure the answer comes from the C library, not the package's table."""
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the package's table answered instead of the library")
    monkeypatch.setattr(api, "check_variables", forbidden)


@pytest.mark.parametrize("name,value,pattern", [
    ("POTM_MODE", "bogus", r'invalid value POTM_MODE="bogus"; allowed: pot, pot-fast'),
    ("POTM_MAX_THREADS", "abc", r'POTM_MAX_THREADS="abc"; allowed: an integer from 1'),
    ("POTM_FOO", "1", r"unknown environment variable POTM_FOO"),
])
def test_the_library_itself_judges_the_variables(monkeypatch: pytest.MonkeyPatch,
                                                 name: str, value: str,
                                                 pattern: str) -> None:
    libs = _built("tl2")
    _python_table_forbidden(monkeypatch)
    with pytest.raises(ConfigError, match=pattern):
        api.check_environment(libs, ["tl2"], {name: value})


def test_a_backend_variable_is_known_to_its_backend_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """POTM_POTRTM_WAIT is pot-rtm's own: its library takes it, tl2's refuses
    it (only the libraries know this)."""
    libs = _built("pot-rtm")
    _built("tl2")
    _python_table_forbidden(monkeypatch)
    api.check_environment(libs, ["pot-rtm"], {"POTM_POTRTM_WAIT": "1"})
    with pytest.raises(ConfigError, match=r"unknown environment variable POTM_POTRTM_WAIT"):
        api.check_environment(libs, ["pot-rtm", "tl2"], {"POTM_POTRTM_WAIT": "1"})


def test_a_real_sweep_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    libs = _built("tl2")
    if not libs.has_bench("tl2"):
        pytest.skip("no benchmark library for tl2")
    monkeypatch.setenv("POTM_SEQUENCER", "random")
    with pytest.raises(ConfigError, match=r'POTM_SEQUENCER="random"; allowed: round-robin'):
        potm.sweep("bank", backends=["tl2"], threads=[1, 2], lib_dir=libs.path,
                   progress=False)


def test_the_library_lists_the_modes_when_it_can() -> None:
    """The worker reports tm_mode_name's list (None from a library without it)."""
    libs = _built("pot")
    outcome = worker.check_environment(libs.core_path("pot"))
    assert outcome.returncode == 0, outcome.stderr
    report = json.loads(outcome.stdout)
    assert report["ok"] is True and report["error"] == ""
    assert report["modes"] is None or "pot" in report["modes"]


# ---------------------------------------------------------------- backends

def test_a_backend_this_install_lacks(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"backend 'rot' is not built in this install; "
                                         r"built in .*: fake") as caught:
        potm.run("bank", backend="rot", lib_dir=fake_lib_dir)
    assert "unknown" not in str(caught.value)


def test_a_name_no_build_has(fake_lib_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown backend 'tl3'; built in .*: fake "
                                         r"\(potm's backends are seq, gl, tl2, 2pl, silo, pot, ") as caught:
        potm.sweep("bank", backends=["tl3"], lib_dir=fake_lib_dir, progress=False)
    assert "not built in this install" not in str(caught.value)
