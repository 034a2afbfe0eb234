"""Real workloads on every built backend.

The backends are those built in the C build directory ($POTMPY_BUILD_DIR,
default: the checkout's build/).  A backend whose benchmark library
libpotm-bench-<b>.so is missing is skipped with that reason, never passed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import potm
from conftest import build_dir, real_backends
from potm._lib import LibraryDir
from potm.result import RunResult

ABORT_CAUSES = {"read_locked", "read_version", "write_locked", "validate", "explicit",
                "order", "htm_conflict", "htm_capacity", "htm_explicit", "htm_retry",
                "htm_nested", "htm_other", "serial", "condition"}


def _cpu_has_rtm() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " rtm" in flags


def _config_for(backend: str) -> dict[str, Any]:
    """Settings that let a backend run on this machine (reported, not hidden:
    the result's config records them)."""
    if backend in ("rtm", "pot-rtm") and not _cpu_has_rtm():
        return {"htm_fallback_only": 1}  # no RTM here: the software fallback runs
    return {}


def _threads_for(backend: str) -> int:
    return 1 if backend == "seq" else 2


def _runnable(backend: str) -> Path:
    """The build directory, if backend's benchmark library is in it; skip
    otherwise, saying what is missing."""
    if backend == "(none)":
        pytest.skip(f"no potm build in {build_dir()}: build with CMake and set "
                    "POTMPY_BUILD_DIR")
    libs = LibraryDir(build_dir())
    if not libs.has_bench(backend):
        pytest.skip(f"{libs.bench_path(backend).name} is not built in {libs.path} "
                    "(benchmarks not built yet, or POTM_BUILD_BENCH=OFF)")
    return libs.path


BACKENDS = real_backends() or ["(none)"]


def _check_ok(r: RunResult, workload: str, backend: str, threads: int) -> None:
    assert r.ok, r.describe_failure()
    assert r.verified
    assert r.throughput > 0 and r.elapsed > 0 and r.ops > 0
    assert r.commits > 0
    assert set(r.aborts_by_cause) <= ABORT_CAUSES
    assert sum(r.aborts_by_cause.values()) == r.aborts
    assert r.raw is not None
    assert r.raw["bench"] == workload
    assert r.raw["backend"] == backend
    assert r.raw["threads"] == threads


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("structure", ["rb", "ll", "hs", "sl"])
def test_intset(backend: str, structure: str) -> None:
    lib_dir = _runnable(backend)
    threads = _threads_for(backend)
    r = potm.run("intset", backend=backend, threads=threads, structure=structure,
                 initial=128, range=256, update=20, duration=100, seed=1,
                 config=_config_for(backend), lib_dir=lib_dir, timeout=60)
    _check_ok(r, "intset", backend, threads)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bank(backend: str) -> None:
    lib_dir = _runnable(backend)
    threads = _threads_for(backend)
    r = potm.run("bank", backend=backend, threads=threads, accounts=64, readonly=20,
                 duration=100, seed=2, config=_config_for(backend), lib_dir=lib_dir,
                 timeout=60)
    _check_ok(r, "bank", backend, threads)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bank_fixed_operation_count(backend: str) -> None:
    lib_dir = _runnable(backend)
    threads = _threads_for(backend)
    r = potm.run("bank", backend=backend, threads=threads, accounts=64, ops=500,
                 config=_config_for(backend), lib_dir=lib_dir, timeout=60)
    _check_ok(r, "bank", backend, threads)
    assert r.ops == 500 * threads


def test_a_small_real_sweep(tmp_path: Path) -> None:
    multi = [b for b in real_backends() if b != "seq" and b not in ("rtm", "pot-rtm")]
    if not multi:
        pytest.skip(f"no multi-thread software backend built in {build_dir()}")
    lib_dir = _runnable(multi[0])
    chosen = [b for b in multi if LibraryDir(lib_dir).has_bench(b)][:2]
    cache = tmp_path / "sweep.jsonl"
    t = potm.sweep("bank", backends=chosen, threads=[1, 2], accounts=[16, 256],
                   duration=50, repeat=2, cache=cache, lib_dir=lib_dir, progress=False)
    assert len(t) == len(chosen) * 2 * 2 * 2
    assert t["ok"].all(), [r.describe_failure() for r in t.results or [] if not r.ok]
    med = t.median()
    assert len(med) == len(chosen) * 4 and (med["runs"] == 2).all()
    again = potm.sweep("bank", backends=chosen, threads=[1, 2], accounts=[16, 256],
                       duration=50, repeat=2, cache=cache, lib_dir=lib_dir, progress=False)
    assert again.array.tolist() == t.array.tolist()


def test_a_sweep_over_a_fixed_operation_count(tmp_path: Path) -> None:
    """ops= is a parameter (-n) and ops a measure: the key column of the
    parameter is ops_param, the measure keeps its name."""
    multi = [b for b in real_backends() if b != "seq" and b not in ("rtm", "pot-rtm")]
    if not multi:
        pytest.skip(f"no multi-thread software backend built in {build_dir()}")
    lib_dir = _runnable(multi[0])
    t = potm.sweep("bank", backends=[multi[0]], threads=2, accounts=64, ops=[100, 300],
                   repeat=1, lib_dir=lib_dir, progress=False)
    assert t["ok"].all(), [r.describe_failure() for r in t.results or [] if not r.ok]
    assert "ops_param" in t.keys
    assert sorted(zip(t["ops_param"].tolist(), t["ops"].tolist())) == [(100, 200), (300, 600)]
    assert len(t.median()) == 2
