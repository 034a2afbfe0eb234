"""Runs in worker processes: results, crashes, hangs, interruptions.

All against the fake benchmark (tests/fixtures/fake_bench.c), whose seed
picks a misbehaviour.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import potm
from conftest import (HANG_TIMEOUT_S, SEED_ABORT, SEED_BAD_ARGS, SEED_CRASH, SEED_HANG,
                      SEED_NO_JSON, SEED_VERIFY_FAIL, logged_calls)
from potm import worker
from potm.result import RunError


def _gone(pid: int, within: float = 60.0) -> bool:
    """Whether process pid has ended (a zombie counts as ended) within seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_normal_run(fake_lib_dir: Path, fake_log: Path) -> None:
    r = potm.run("intset", backend="fake", threads=3, structure="ll", update=40,
                 seed=7, lib_dir=fake_lib_dir)
    assert r.ok and r.failure == ""
    assert r.throughput == 3040.0
    assert r.verified and r.verify_msg == "ok"
    assert r.ops == 30 and r.commits == 30 and r.aborts == 2
    assert r.aborts_by_cause == {"read_locked": 2, "validate": 0}
    assert r.stats["reads"] == 90
    assert r.seed == 7 and r.returncode == 0
    assert r.params == {"structure": "ll", "update": 40, "seed": 7}
    assert r.raw is not None and r.raw["parameters"]["structure"] == "ll"
    assert r.check() is r
    # The benchmark got exactly the argv the parameters describe.
    [call] = logged_calls(fake_log)
    assert call[1:] == ["intset", "-s", "ll", "-u", "40", "-t", "3", "-S", "7"]
    assert int(call[0]) != os.getpid()


def test_each_run_is_a_fresh_process(fake_lib_dir: Path, fake_log: Path) -> None:
    for _ in range(2):
        assert potm.run("bank", backend="fake", lib_dir=fake_lib_dir).ok
    pids = {call[0] for call in logged_calls(fake_log)}
    assert len(pids) == 2


def test_config_reaches_the_worker_as_potm_variables(fake_lib_dir: Path) -> None:
    r = potm.run("bank", backend="fake", config={"lock_bits": 22, "extend": 0},
                 lib_dir=fake_lib_dir)
    assert r.ok
    assert r.config == {"POTM_EXTEND": "0", "POTM_LOCK_BITS": "22"}


def test_a_crash_is_a_reported_failure(fake_lib_dir: Path) -> None:
    r = potm.run("intset", backend="fake", seed=SEED_CRASH, lib_dir=fake_lib_dir)
    assert not r.ok
    assert r.failure == "the worker crashed: killed by SIGSEGV"
    assert r.returncode == -signal.SIGSEGV
    assert "crashing on purpose" in r.stderr_tail
    with pytest.raises(RunError, match=r"SIGSEGV[\s\S]*crashing on purpose"):
        r.check()


def test_abort_is_a_reported_failure(fake_lib_dir: Path) -> None:
    r = potm.run("bank", backend="fake", seed=SEED_ABORT, lib_dir=fake_lib_dir)
    assert r.failure == "the worker crashed: killed by SIGABRT"
    assert "aborting on purpose" in r.stderr_tail


def test_a_hang_is_killed_at_the_timeout(fake_lib_dir: Path, fake_log: Path) -> None:
    r = potm.run("intset", backend="fake", seed=SEED_HANG, timeout=HANG_TIMEOUT_S,
                 lib_dir=fake_lib_dir)
    assert not r.ok and r.returncode is None
    assert r.failure.startswith(f"timed out after {HANG_TIMEOUT_S:g} s")
    assert r.wall_time >= HANG_TIMEOUT_S  # killed at the limit, not before
    assert "hanging on purpose" in r.stderr_tail
    [call] = logged_calls(fake_log)
    assert _gone(int(call[0]))


def test_failed_verification(fake_lib_dir: Path) -> None:
    r = potm.run("bank", backend="fake", seed=SEED_VERIFY_FAIL, lib_dir=fake_lib_dir)
    assert not r.ok and not r.verified and r.returncode == 1
    assert r.failure == "verification failed: fake bench: checksum mismatch (on purpose)"
    assert r.throughput == 1000.0  # the measurement is still there


def test_rejected_arguments(fake_lib_dir: Path) -> None:
    r = potm.run("bank", backend="fake", seed=SEED_BAD_ARGS, lib_dir=fake_lib_dir)
    assert not r.ok and r.returncode == 2
    assert "rejected its arguments (exit status 2): bank -t 1 -S 16" in r.failure
    assert "rejecting the arguments on purpose" in r.stderr_tail


def test_no_json_line(fake_lib_dir: Path) -> None:
    r = potm.run("bank", backend="fake", seed=SEED_NO_JSON, lib_dir=fake_lib_dir)
    assert not r.ok and r.failure == "no JSON result line on stdout (exit status 0)"


def test_a_library_that_does_not_load(tmp_path: Path, fake_lib_dir: Path) -> None:
    (tmp_path / "libpotm-broken.so").write_bytes(b"not an ELF file")
    (tmp_path / "libpotm-bench-broken.so").write_bytes(b"not an ELF file")
    r = potm.run("bank", backend="broken", lib_dir=tmp_path)
    assert not r.ok
    assert r.failure == "the worker could not load the library"
    assert "cannot load potm_bench_main from" in r.stderr_tail
    with pytest.raises(RuntimeError, match=r"'broken': the worker could not load"):
        potm.backend_info("broken", lib_dir=tmp_path)


def test_backend_info(fake_lib_dir: Path) -> None:
    info = potm.backend_info("fake", lib_dir=fake_lib_dir)
    assert info.name == "fake"
    assert info.abort_causes == ["read_locked", "validate"]
    assert info.config_default["lock_bits"] == 20
    assert info.bench_library == fake_lib_dir / "libpotm-bench-fake.so"


def test_interrupting_the_caller_kills_the_worker(fake_lib_dir: Path, fake_log: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during a run (here: a timer raising KeyboardInterrupt once the
    benchmark has started, as its call log shows) must not leave a hung
    benchmark behind."""
    def interrupt(signum: int, frame: object) -> None:
        if logged_calls(fake_log):
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
        with pytest.raises(KeyboardInterrupt):
            potm.run("bank", backend="fake", seed=SEED_HANG, timeout=300,
                     lib_dir=fake_lib_dir)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    [call] = logged_calls(fake_log)
    assert _gone(int(call[0]))


def test_a_worker_dies_with_its_parent(fake_lib_dir: Path, fake_log: Path,
                                       tmp_path: Path) -> None:
    """A parent killed outright (no chance to clean up) takes its worker along."""
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import potm
        potm.run("bank", backend="fake", seed={SEED_HANG}, timeout=60,
                 lib_dir={str(fake_lib_dir)!r})
    """))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(potm.__file__).parent.parent)
    parent = subprocess.Popen([sys.executable, str(script)], env=env)
    try:
        deadline = time.monotonic() + 120
        while not logged_calls(fake_log) and time.monotonic() < deadline:
            time.sleep(0.05)
        [call] = logged_calls(fake_log)
    finally:
        parent.kill()
        parent.wait()
    assert _gone(int(call[0]))


def test_outcome_reports_signals_by_name() -> None:
    base = dict(command=("x",), pid=1, stdout="", stderr="a\nb\n", timed_out=False,
                timeout=1.0, wall_time=0.1)
    assert worker.Outcome(returncode=-9, **base).signal == "SIGKILL"  # type: ignore[arg-type]
    assert worker.Outcome(returncode=0, **base).problem() is None  # type: ignore[arg-type]
    assert worker.Outcome(returncode=0, **base).stderr_tail() == "a\nb"  # type: ignore[arg-type]
