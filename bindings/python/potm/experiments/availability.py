"""Can an experiment run here?  If not, why not, in one sentence.

An experiment is skipped, never failed, when something it needs is
missing: it is blocked (waits for a benchmark feature), a workload of its
grid is not in this package (``potm.WORKLOADS``), it needs Intel RTM and
the CPU has none, there is no library directory, a backend it requires is
not built or has no benchmark library (for a STAMP application or
STMBench7: no library of that program, libpotm-bench-<b>-<program>.so),
or that library was built without one of its workloads.  Variants of its
grid whose backend it does not require are dropped when missing
(``plan``), with a note.

Which workloads a benchmark library has is asked of the library itself:
potm_bench_main, given a name it does not know, lists the ones it has
(bench/registry.c); ``built_workloads`` runs it once per library in a
worker and reads that list.

Example:
    >>> from potm.experiments import experiment
    >>> unavailable(experiment("fig-3.10"), None, "no libraries")
    'no libraries'
    >>> known_benchmarks("potm_bench_main: unknown benchmark 'x'; known:\\n"
    ...                  "  intset     integer set\\n  bank       bank\\n")
    ('intset', 'bank')
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Optional, Sequence

from potm import worker
from potm._lib import LibraryDir
from potm.experiments.model import Experiment, Sweep
from potm.experiments.variants import cpu_has_rtm, spec_backend, spec_name
from potm.workloads import WORKLOADS


#: The benchmark name that makes potm_bench_main list the ones it has.
LIST_PROBE = "potm-list-benchmarks"
PROBE_TIMEOUT_S = 60.0


def known_benchmarks(stderr: str) -> Optional[tuple[str, ...]]:
    """The names potm_bench_main lists after "known:" on stderr when asked
    for an unknown benchmark; None if there is no such list."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip().endswith("known:"):
            return tuple(item.split()[0] for item in lines[i + 1:]
                         if item.startswith("  ") and item.split())
    return None


@functools.lru_cache(maxsize=None)
def built_workloads(bench_lib: Path) -> Optional[tuple[str, ...]]:
    """The benchmarks compiled into a benchmark library (None: it did not
    say, so nothing is assumed missing)."""
    outcome = worker.run_bench(bench_lib, [LIST_PROBE], timeout=PROBE_TIMEOUT_S)
    return known_benchmarks(outcome.stderr)


def missing_backend(libs: LibraryDir, backend: str,
                    workloads: Sequence[str] = ()) -> Optional[str]:
    """Why backend cannot run the workloads from libs, or None if it can."""
    if backend not in libs.backends():
        return f"backend '{backend}' is not built in {libs.path}"
    programs = [WORKLOADS[w].library for w in workloads
                if w in WORKLOADS and WORKLOADS[w].library]
    for program in programs:  # STAMP applications, stmbench7: libraries of their own
        if not libs.has_bench(backend, program):
            return (f"backend '{backend}' has no {program} library "
                    f"({libs.bench_path(backend, program).name}) in {libs.path}")
    workloads = [w for w in workloads if w not in WORKLOADS or not WORKLOADS[w].library]
    bench = libs.bench_path(backend)
    if not libs.has_bench(backend):
        return f"backend '{backend}' has no benchmark library ({bench.name}) in {libs.path}"
    built = built_workloads(bench) if workloads else None
    if built is not None:
        absent = [w for w in workloads if w not in built]
        if absent:
            return (f"{bench.name} was built without the {', '.join(absent)} "
                    f"benchmark{'s' if len(absent) > 1 else ''} (it has: {', '.join(built)})")
    return None


def unavailable(exp: Experiment, libs: Optional[LibraryDir],
                libs_problem: str = "no potm library directory") -> Optional[str]:
    """The reason exp cannot run with the libraries libs (None: no library
    directory, libs_problem says why), or None if it can."""
    if exp.blocked:
        return exp.blocked
    missing = [name for name in exp.workloads() if name not in WORKLOADS]
    if missing:
        which = f"workload '{missing[0]}' is" if len(missing) == 1 else \
            f"workloads {', '.join(missing)} are"
        return f"{which} not in this potm package yet (it has: {', '.join(WORKLOADS)})"
    if exp.needs_rtm_cpu and not cpu_has_rtm():
        return "this CPU has no Intel RTM (hardware transactions) to measure"
    if libs is None:
        return libs_problem
    for backend in exp.requires:
        problem = missing_backend(libs, backend, exp.workloads())
        if problem is not None:
            return problem
    return None


#: Backends that refuse to start on a CPU without Intel RTM (the rtm
#: backend has a variant for that case instead, rtm-fallback).
RTM_ONLY_BACKENDS: tuple[str, ...] = ("pot-rtm",)


def plan(exp: Experiment, scale: str, libs: LibraryDir) -> tuple[list[Sweep], list[str]]:
    """The sweeps of exp's grid at scale that can run with libs, and notes:
    each variant left out (backend not built, or one that needs Intel RTM
    on a CPU without it) and each variant's own note.  A variant of a
    backend that is not built is left out before the grid is resolved:
    the Pot modes are named only where pot is built."""
    sweeps, notes = [], []
    dropped: dict[str, str] = {}
    grid = exp.grid(scale)
    built = libs.backends()
    kept = []
    for spec in grid.variants:
        backend = spec_backend(spec)
        if backend in RTM_ONLY_BACKENDS and not cpu_has_rtm():
            dropped.setdefault(spec_name(spec), "this CPU has no Intel RTM")
        elif backend in built:
            kept.append(spec)
        else:
            dropped.setdefault(spec_name(spec), missing_backend(libs, backend) or "")
    grid = dataclasses.replace(grid, variants=tuple(kept))
    for sweep in grid.sweeps(libs.path):
        problem = missing_backend(libs, sweep.variant.backend, [sweep.case.workload])
        if problem is not None:
            dropped.setdefault(sweep.variant.name, problem)
            continue
        sweeps.append(sweep)
        if sweep.variant.note and sweep.variant.note not in notes:
            notes.append(sweep.variant.note)
    for name, problem in dropped.items():
        notes.append(f"variant '{name}' left out: {problem}")
    return sweeps, notes
