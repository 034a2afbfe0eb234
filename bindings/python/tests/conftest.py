"""Shared fixtures and helpers of the potm Python tests.

Two library directories are used:

* the fake one (``fake_lib_dir``): tests/fixtures/fake_bench.c compiled in a
  temporary directory as libpotm-bench-fake.so and libpotm-fake.so; its
  seeds make runs crash, hang, fail verification... (see the C file);
* the real build (``build_dir``): $POTMPY_BUILD_DIR, by default the
  checkout's ``build`` directory (the Makefile sets the variable).  Tests of
  real backends skip, saying why, when a library is missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
from pathlib import Path

import pytest

from potm._lib import LIB_DIR_ENV, LibraryDir
from potm.server import ERR_MALFORMED, ERR_TOO_LARGE, ERR_UNKNOWN_TYPE, Client, ProtocolError

TESTS_DIR = Path(__file__).resolve().parent
SOURCE_DIR = TESTS_DIR.parents[2]  # the repository root
FIXTURE_SOURCE = TESTS_DIR / "fixtures" / "fake_bench.c"

#: Seeds of the fake benchmark (tests/fixtures/fake_bench.c).
SEED_CRASH = 13
SEED_HANG = 14
SEED_VERIFY_FAIL = 15
SEED_BAD_ARGS = 16
SEED_NO_JSON = 17
SEED_ABORT = 18

#: The time limit of a run that hangs on purpose.  A run's limit counts from
#: the worker's start, Python's start-up included, so it is generous: on a
#: loaded machine the worker must still reach the benchmark before it, or
#: the run would time out without having hung in the benchmark.
HANG_TIMEOUT_S = 15.0


def build_dir() -> Path:
    """The C build directory the real-backend tests use."""
    return Path(os.environ.get("POTMPY_BUILD_DIR", str(SOURCE_DIR / "build"))).resolve()


def real_backends() -> list[str]:
    """The backends built in build_dir() (empty if there is no build)."""
    path = build_dir()
    return LibraryDir(path).backends() if path.is_dir() else []


def build_dir_with(workload: str, *backends: str) -> Path:
    """The build directory, if every backend's benchmark library has
    workload; else the test is skipped, saying why."""
    from potm.experiments.availability import missing_backend
    path = build_dir()
    libs = LibraryDir(path)
    for b in backends:
        if not path.is_dir() or not libs.has_bench(b):
            pytest.skip(f"no {b} benchmark library in {path}")
        problem = missing_backend(libs, b, [workload])
        if problem is not None:
            pytest.skip(problem)
    return path


def compile_fake(out_dir: Path) -> Path:
    """Build the fake benchmark into out_dir as backend 'fake'; out_dir."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) to build the fake benchmark fixture")
    bench = out_dir / "libpotm-bench-fake.so"
    subprocess.run([cc, "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared",
                    "-fPIC", "-o", str(bench), str(FIXTURE_SOURCE)], check=True)
    shutil.copyfile(bench, out_dir / "libpotm-fake.so")
    return out_dir


@pytest.fixture(scope="session")
def fake_lib_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library directory with the fake backend 'fake'."""
    return compile_fake(tmp_path_factory.mktemp("fakelib"))


@pytest.fixture
def fake_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file where the fake benchmark logs each call (pid and argv)."""
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_BENCH_LOG", str(log))
    return log


def logged_calls(log: Path) -> list[list[str]]:
    """The fake benchmark's calls: [pid, argv0, args...] per call."""
    if not log.exists():
        return []
    return [line.split() for line in log.read_text().splitlines() if line]


@pytest.fixture(autouse=True)
def _no_inherited_lib_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests say which library directory they use."""
    monkeypatch.delenv(LIB_DIR_ENV, raising=False)


def check_bad_input(bad: Client) -> None:
    """Send on bad the server's three kinds of bad request and check each
    answer: a malformed request, an unknown type, and a frame over the
    size limit, after which the server closes the connection."""
    bad.send_raw(struct.pack("<I", 8) + bytes(8))
    assert bad.recv().status == ERR_MALFORMED
    assert bad.call(999, []).status == ERR_UNKNOWN_TYPE
    bad.send_raw(struct.pack("<I", 1 << 30))
    assert bad.recv().status == ERR_TOO_LARGE
    with pytest.raises((ProtocolError, OSError)):
        bad.recv()


def send_half_request(port: int) -> None:
    """Connect to the server on port, send part of a request and hang up."""
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(struct.pack("<I", 48) + bytes(10))
    half.close()
