"""The package's functions: backends, run, sweep.

Every argument is checked before any process starts; a mistake is a
ValueError that names the parameter (and, for a backend, lists the built
ones).  Each run then executes in a fresh worker process (potm.worker), so
a crash or a hang becomes a failed RunResult, never a dead interpreter.

Example:
    >>> import potm
    >>> potm.backends()                                              # doctest: +SKIP
    ['seq', 'gl', 'tl2']
    >>> r = potm.run("intset", backend="tl2", threads=2, structure="rb",
    ...              update=20, duration=200)                        # doctest: +SKIP
    >>> r.ok, r.throughput                                           # doctest: +SKIP
    (True, 2410398.5)
    >>> t = potm.sweep("bank", backends=["gl", "tl2"], threads=[1, 2],
    ...                repeat=3, cache="bank.jsonl", duration=200)   # doctest: +SKIP
    >>> print(t.median().to_text(["backend", "threads", "throughput"]))  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from potm import stamp, worker
from potm._lib import BACKEND_ORDER, LibraryDir
from potm.cache import SweepCache, point_key
from potm.config import (ConfigError, ConfigValue, check_variables, config_env,
                         config_error_text, config_field)
from potm.progress import Progress
from potm.result import RunResult, result_from_outcome
from potm.table import SweepTable
from potm.workloads import (SINGLE_THREAD_BACKENDS, STAMP_WORKLOADS, THREADS, Value, Workload,
                            workload)

PathLike = Union[str, "os.PathLike[str]"]

MAX_THREADS = config_field("max_threads")

#: The STAMP applications' workload names (their input sets need resolving).
STAMP_NAMES = frozenset(w.name for w in STAMP_WORKLOADS)

#: Time limit of a run when none is given: this plus three times the
#: requested duration.
DEFAULT_TIMEOUT_S = 120.0


def backends(lib_dir: Optional[PathLike] = None) -> list[str]:
    """The backends built in the library directory (see potm._lib), in the
    project's report order.

    A backend counts as built when its library libpotm-<b>.so is there;
    ``has_bench`` says whether its benchmark library is too.
    """
    return LibraryDir.find(lib_dir).backends()


def has_bench(backend: str, lib_dir: Optional[PathLike] = None) -> bool:
    """Whether the benchmark library libpotm-bench-<backend>.so is built."""
    return LibraryDir.find(lib_dir).has_bench(backend)


@dataclass(frozen=True)
class BackendInfo:
    """What a backend library says about itself (asked in a worker)."""

    name: str
    library: Path
    bench_library: Optional[Path]
    config_default: dict[str, int]
    abort_causes: list[str]


def backend_info(backend: str, lib_dir: Optional[PathLike] = None,
                 timeout: float = 60.0) -> BackendInfo:
    """Load libpotm-<backend>.so in a worker and report its name, default
    configuration and abort causes.  RuntimeError if the worker fails."""
    libs = LibraryDir.find(lib_dir)
    _check_backend(libs, backend, need_bench=False)
    outcome = worker.describe_backend(libs.core_path(backend), timeout=timeout)
    problem = outcome.problem()
    if problem is None and outcome.returncode != 0:
        problem = f"exit status {outcome.returncode}"
    if problem is not None:
        raise RuntimeError(f"backend {backend!r}: {problem}\n{outcome.stderr_tail()}")
    data = json.loads(outcome.stdout)
    bench = libs.bench_path(backend)
    return BackendInfo(name=data["backend"], library=libs.core_path(backend),
                       bench_library=bench if bench.is_file() else None,
                       config_default=data["config_default"],
                       abort_causes=data["abort_causes"])


def _check_backend(libs: LibraryDir, backend: object, *, need_bench: bool,
                   program: str = "") -> str:
    """backend if it is built in libs (and has a benchmark library, for
    program if given, if need_bench); ValueError otherwise, which says
    whether the name is one of potm's backends that this install lacks or
    a name no build has, and lists the built backends."""
    built = libs.backends()
    if not isinstance(backend, str) or backend not in built:
        shown = ", ".join(built) or "(none)"
        if isinstance(backend, str) and backend in BACKEND_ORDER:
            raise ValueError(
                f"backend {backend!r} is not built in this install; built in "
                f"{libs.path}: {shown} (configure the C build with it in "
                "-DPOTM_BACKENDS=..., or install on a machine that can build it)")
        raise ValueError(f"unknown backend {backend!r}; built in {libs.path}: {shown} "
                         f"(potm's backends are {', '.join(BACKEND_ORDER)})")
    if need_bench and not libs.has_bench(backend, program):
        with_bench = [b for b in built if libs.has_bench(b, program)]
        what = "STAMP/STMBench7: POTM_BUILD_STAMP, POTM_BUILD_STMBENCH7" if program \
            else "the benchmarks: POTM_BUILD_BENCH"
        raise ValueError(
            f"backend {backend!r} is built but its benchmark library "
            f"{libs.bench_path(backend, program).name} is not in {libs.path} (build "
            f"{what}=ON); backends with it: {', '.join(with_bench) or '(none)'}")
    return backend


#: Environments the C library accepted: (backend library, its modification
#: time, the POTM_* variables); a run's environment is checked once per
#: process and library.
_ACCEPTED: set[tuple[str, int, tuple[tuple[str, str], ...]]] = set()

_VARIABLE_NAME = re.compile(r"POTM_[A-Z0-9_]+")


def check_environment(libs: LibraryDir, backends: Sequence[str], env: Mapping[str, str],
                      config: Optional[Mapping[str, ConfigValue]] = None,
                      timeout: float = 60.0) -> None:
    """Have each backend's library parse the POTM_* variables env as its
    tm_init will (tm_config_from_env, in a worker with the environment the
    runs get); ConfigError naming the refused variable and its allowed
    values, as the library words them.  config: the settings given as
    config=, for the message.  A library without the configuration API
    (or one that cannot be loaded) is answered by the package's own table,
    which then refuses unknown variables too."""
    if not env:  # nothing for tm_config_from_env to refuse
        return
    origin = {config_field(name).env: f"config={{{name!r}: {value!r}}}"
              for name, value in (config or {}).items()}
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("POTM_")}
    run_env.update(env)
    for backend in dict.fromkeys(backends):
        core = libs.core_path(backend)
        try:
            mtime_ns = core.stat().st_mtime_ns
        except OSError:
            mtime_ns = 0
        key = (str(core), mtime_ns, tuple(sorted(env.items())))
        if key in _ACCEPTED:
            continue
        report = worker.environment_report(
            worker.check_environment(core, timeout=timeout, env=run_env))
        if report is None:
            check_variables(env, known_only=False, origin=origin, lib_dir=libs.path)
        elif not report.get("ok"):
            problem = str(report.get("error") or "refused by tm_config_from_env")
            named = _VARIABLE_NAME.search(problem)
            raise ConfigError(config_error_text(problem, named.group(0) if named else "",
                                                origin))
        _ACCEPTED.add(key)


def check_process_environment(libs: LibraryDir, backends: Sequence[str]) -> None:
    """ConfigError if a run on one of backends would refuse a POTM_*
    variable of this process: the check run and sweep make before their
    first run (the package's table, then each backend's library), made
    once for many sweeps (potm reproduce)."""
    check_environment(libs, backends, _potm_environment(None, libs.path))


def _check_threads(backend: str, threads: object, env: Mapping[str, str],
                   spec: Workload) -> int:
    """threads, checked against its range, the run's max_threads (env: its
    POTM_* variables) and the single-thread backends."""
    count = int(THREADS.check(spec.name, threads))
    limit = int(env.get(MAX_THREADS.env, str(MAX_THREADS.default)))
    if count > limit:
        raise ValueError(f"{spec.name}: parameter 'threads' = {count} exceeds config "
                         f"max_threads = {limit} ({MAX_THREADS.env})")
    if backend in SINGLE_THREAD_BACKENDS and count != 1:
        raise ValueError(f"{spec.name}: parameter 'threads' = {count}, but backend "
                         f"{backend!r} runs one thread only (sweep it separately with "
                         "threads=[1] and join the tables with SweepTable.concat)")
    return count


def _timeout(timeout: Optional[float], params: Mapping[str, Value],
             spec: Optional[Workload] = None) -> float:
    """The run's time limit in seconds: timeout if given, else the default
    (a STAMP application's depends on its input set)."""
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout > 0:
            raise ValueError(f"timeout = {timeout!r}: expected a number of seconds > 0")
        return float(timeout)
    if spec is not None and spec.name in STAMP_NAMES:
        return stamp.default_timeout(str(params.get("size", "test")))
    duration_s = float(params.get("duration", 0)) / 1000.0
    return DEFAULT_TIMEOUT_S + 3.0 * duration_s


@dataclass(frozen=True)
class _Point:
    """One validated run: everything the worker needs."""

    spec: Workload
    backend: str
    threads: int
    params: dict[str, Value]  # workload parameters other than threads
    config: dict[str, str]    # the POTM_* variables of the run
    timeout: float

    def argv(self) -> list[str]:
        return self.spec.argv({**self.params, "threads": self.threads})

    def label(self) -> str:
        shown = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.backend} t={self.threads} {shown}".rstrip()


def _validate_point(workload_name: str, backend: str, threads: object,
                    params: Mapping[str, object], config: Optional[Mapping[str, ConfigValue]],
                    timeout: Optional[float], lib_dir: Optional[PathLike]) -> _Point:
    """Check one point's arguments; the library directory lib_dir is read
    only for the names of the pot modes, if a mode is given."""
    spec = workload(workload_name)
    checked = spec.validate(params)
    env = _potm_environment(config, lib_dir)
    count = _check_threads(backend, threads, env, spec)
    return _Point(spec, backend, count, checked, env, _timeout(timeout, checked, spec))


def _potm_environment(config: Optional[Mapping[str, ConfigValue]],
                      lib_dir: Optional[PathLike]) -> dict[str, str]:
    """The POTM_* variables a run will see: this process's, overridden by
    config.  (They are part of a run's identity in a sweep cache.)"""
    env = {k: v for k, v in os.environ.items() if k.startswith("POTM_")}
    given = config_env(config, lib_dir)
    # The values of the settings the package knows (it reads max_threads
    # itself); the library judges the rest before the first run.
    check_variables({k: v for k, v in env.items() if k not in given}, lib_dir=lib_dir)
    env.update(given)
    return dict(sorted(env.items()))


def _execute(libs: LibraryDir, point: _Point) -> RunResult:
    """Run one validated point in a worker."""
    env = dict(os.environ)
    env.update(point.config)
    argv = point.argv()
    if point.spec.name in STAMP_NAMES:  # the input set's options go first
        size = str(point.params.get("size", "test"))
        try:
            argv[1:1] = stamp.set_options(point.spec.name, size, stamp.input_dir(libs.path))
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            # No inputs, no run: a failed run like a crash, so that a sweep
            # records it and goes on.
            return RunResult(workload=point.spec.name, backend=point.backend,
                             threads=point.threads, params=point.params, ok=False,
                             failure=f"input set {size!r} could not be prepared: {e}",
                             config=point.config, metric=point.spec.metric)
    outcome = worker.run_bench(libs.bench_path(point.backend, point.spec.library), argv,
                               timeout=point.timeout, env=env)
    return result_from_outcome(workload=point.spec.name, backend=point.backend,
                               threads=point.threads, params=point.params,
                               config=point.config, argv=argv, outcome=outcome,
                               metric=point.spec.metric)


def run(workload: str, *, backend: str, threads: int = 1, timeout: Optional[float] = None,
        config: Optional[Mapping[str, ConfigValue]] = None, lib_dir: Optional[PathLike] = None,
        **params: Any) -> RunResult:
    """Run one benchmark once, in a fresh worker process.

    workload: "intset", "bank", "doppel"..., a STAMP application
    ("vacation", "kmeans"...: size, threads; measured by elapsed) or
    "stmbench7" (potm.workloads.WORKLOADS);
    params: its parameters by name (potm.workloads: structure, initial,
    range, update, duration, ops, seed / accounts, readonly / kind, mode,
    hot, ...); a parameter not given
    keeps the benchmark's default.  config: C-library settings
    (potm.config: lock_bits, extend, htm_fallback_only, mode, ...), passed
    as POTM_* variables.  timeout: seconds before the run is declared hung
    and killed (default: 120 s + 3 x duration).

    Returns a RunResult, failed or not; ValueError before anything runs if
    an argument is wrong.

    Example:
        >>> r = run("bank", backend="tl2", threads=2, accounts=1024,
        ...         readonly=20, duration=200)                     # doctest: +SKIP
        >>> r.ok, r.verified, r.commits > 0                        # doctest: +SKIP
        (True, True, True)
    """
    point = _validate_point(workload, backend, threads, params, config, timeout, lib_dir)
    libs = LibraryDir.find(lib_dir)
    _check_backend(libs, backend, need_bench=True, program=point.spec.library)
    check_environment(libs, [backend], point.config, config)
    return _execute(libs, point)


def _axis(name: str, values: object) -> list[Any]:
    """A sweep axis: a list of values (a scalar is a one-value axis)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        return [values]
    axis = list(values)
    if not axis:
        raise ValueError(f"sweep: parameter {name!r} has no values")
    for v in axis:
        if axis.count(v) > 1:
            raise ValueError(f"sweep: parameter {name!r} lists {v!r} twice")
    return axis


def _reusable(donors: Sequence[SweepCache], key: Mapping[str, Any]) -> Optional[RunResult]:
    """The first successful run recorded under key in donors, or None."""
    for donor in donors:
        found = donor.get(key)
        if found is not None and found.ok:
            return found
    return None


def sweep(workload: str, *, backends: Sequence[str], threads: Union[int, Sequence[int]] = 1,
          repeat: int = 3, cache: Optional[PathLike] = None, progress: bool = True,
          timeout: Optional[float] = None, retry_failed: bool = True,
          config: Optional[Mapping[str, ConfigValue]] = None, lib_dir: Optional[PathLike] = None,
          reuse: Sequence[PathLike] = (), **grid: Any) -> SweepTable:
    """Run the cartesian product backends x threads x grid, repeat times.

    Each keyword in grid is a parameter of the workload with one value or a
    list of values.  Every point is validated before the first run.  The
    runs go repeat by repeat (all points once, then all points again, ...)
    so that a burst of noise on the machine spreads over the points rather
    than hitting every repeat of one.  A failed run (crash, hang, failed
    verification) is recorded and the sweep goes on.

    cache: a JSON-lines file of finished runs; runs found there are not
    run again (failed ones are, unless retry_failed=False), so an
    interrupted sweep resumes.  reuse: other such files (of other sweeps
    made with the same libraries): a successful run of the same point and
    repeat found there is taken, and copied into cache, instead of run
    again.  progress: a progress line on stderr.

    Returns a SweepTable with one row per run, point by point with the
    repeats of a point together (.median() for one row per point).

    Example:
        >>> t = sweep("intset", backends=["gl", "tl2"], threads=[1, 2],
        ...           structure=["rb", "ll"], update=20, duration=100,
        ...           cache="intset.jsonl")                        # doctest: +SKIP
        >>> len(t)                                                 # doctest: +SKIP
        24
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"sweep: repeat = {repeat!r}: expected an integer >= 1")
    backend_axis = _axis("backends", backends)
    thread_axis = _axis("threads", threads)
    names = list(grid)
    axes = [_axis(name, grid[name]) for name in names]

    points: list[_Point] = []
    for backend, count in itertools.product(backend_axis, thread_axis):
        for values in itertools.product(*axes):
            points.append(_validate_point(workload, backend, count, dict(zip(names, values)),
                                          config, timeout, lib_dir))
    libs = LibraryDir.find(lib_dir)
    for backend in dict.fromkeys(backend_axis):
        _check_backend(libs, backend, need_bench=True, program=points[0].spec.library)
    check_environment(libs, backend_axis, points[0].config, config)

    store = SweepCache(cache) if cache is not None else None
    donors = [SweepCache(path) for path in reuse if Path(path).exists()]
    done: dict[tuple[int, int], RunResult] = {}
    todo: list[tuple[int, int, dict[str, Any]]] = []
    for r in range(repeat):
        for i, point in enumerate(points):
            key = point_key(point.spec.name, point.backend, point.threads, point.params,
                            point.config, repeat=r)
            cached = store.get(key) if store is not None else None
            if cached is None:
                cached = _reusable(donors, key)
                if cached is not None and store is not None:
                    store.put(key, cached)
            if cached is not None and (cached.ok or not retry_failed):
                done[(r, i)] = cached
            else:
                todo.append((r, i, key))

    bar = Progress(total=len(points) * repeat, enabled=progress)
    bar.skip(len(done))
    try:
        for r, i, key in todo:
            bar.start(f"{points[i].label()} #{r + 1}")
            result = _execute(libs, points[i])
            if store is not None:
                store.put(key, result)
            done[(r, i)] = result
            bar.finish(ok=result.ok)
    finally:
        bar.close()
    rows = [(r, done[(r, i)]) for i in range(len(points)) for r in range(repeat)]
    return SweepTable.from_results(rows, names)

