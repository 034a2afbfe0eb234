"""The result of one run.

A ``RunResult`` is made from the worker's ``Outcome``: the JSON line the
benchmark printed (keys bench, backend, threads, its parameters, seed,
elapsed_s, ops, throughput, counts, stats, verified, verify_msg) and how
the worker ended.  "counts" holds the benchmark's own measures (intset:
inserted, removed...; doppel: writes, read_mean_ns, split_records... and
timeline, a list of commits per interval, or null); they are kept as
they are: a number, a list of numbers, or None.  A run is ``ok`` when the benchmark exited with status 0, printed its
JSON line and verified its result; otherwise ``failure`` says why, and
``stderr_tail`` holds the end of its stderr.

Example:
    >>> r = potm.run("bank", backend="tl2", threads=2, duration=200)  # doctest: +SKIP
    >>> r.ok, r.throughput > 0, r.aborts_by_cause["validate"]         # doctest: +SKIP
    (True, True, 12)
    >>> r.check()        # raises RunError if the run failed           # doctest: +SKIP
    >>> _count_value([3, 4]), _count_value(None), _count_value("x"), _count_value(2.5)
    ([3, 4], None, None, 2.5)
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

from potm.formats import harness_view
from potm.worker import Outcome

#: A value of the benchmark's "counts" object: a number, a list of numbers
#: (a time series such as doppel's timeline) or None (JSON null).
CountValue = Union[int, float, list[Union[int, float]], None]

#: Exit statuses of potm_bench_main.
EXIT_OK = 0
EXIT_VERIFY_FAILED = 1
EXIT_BAD_ARGUMENTS = 2


class RunError(RuntimeError):
    """A run failed (raised by RunResult.check())."""


#: Characters of a failure a RunResult's repr keeps.
REPR_FAILURE_CHARS = 60


@dataclass(frozen=True, repr=False)
class RunResult:
    """One run of one benchmark on one backend.

    ``params`` are the workload parameters as requested (threads apart);
    the benchmark's own view, defaults included, is in ``raw``.
    ``metric`` names the field that measures the run in its figures:
    "throughput" (higher is better) or, for the STAMP applications,
    "elapsed" (execution time in seconds, lower is better).  STAMP and
    STMBench7 lines are read through potm.formats.harness_view.
    Measures are NaN/0 when the run produced no JSON line.  ``stats`` holds
    every counter of the JSON "stats" object except aborts_by_cause (which
    has its own field); ``counts`` the benchmark's "counts" object (see
    CountValue); ``raw`` is the whole parsed JSON line.
    """

    workload: str
    backend: str
    threads: int
    params: dict[str, Any]
    ok: bool
    failure: str = ""
    throughput: float = math.nan
    elapsed: float = math.nan
    ops: int = 0
    commits: int = 0
    aborts: int = 0
    aborts_by_cause: dict[str, int] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    counts: dict[str, CountValue] = field(default_factory=dict)
    verified: bool = False
    verify_msg: str = ""
    seed: Optional[int] = None
    raw: Optional[dict[str, Any]] = None
    config: dict[str, str] = field(default_factory=dict)
    returncode: Optional[int] = None
    stderr_tail: str = ""
    wall_time: float = math.nan
    metric: str = "throughput"

    def __repr__(self) -> str:
        """One line: what ran, and its measure or why it failed.

        >>> RunResult("bank", "tl2", 2, {"accounts": 64}, ok=True, throughput=2.5e6,
        ...           commits=12, aborts=3)
        <RunResult bank tl2 threads=2 accounts=64: ok, throughput 2.5e+06, commits 12, aborts 3>
        >>> RunResult("bank", "gl", 1, {}, ok=False, failure="timed out after 5 s (hang?)")
        <RunResult bank gl threads=1: FAILED timed out after 5 s (hang?)>
        """
        shown = "".join(f" {k}={v}" for k, v in self.params.items())
        head = f"<RunResult {self.workload} {self.backend} threads={self.threads}{shown}: "
        if not self.ok:
            failure = self.failure.splitlines()[0] if self.failure else "(no reason)"
            if len(failure) > REPR_FAILURE_CHARS:
                failure = failure[:REPR_FAILURE_CHARS - 3] + "..."
            return head + f"FAILED {failure}>"
        measure = self.elapsed if self.metric == "elapsed" else self.throughput
        unit = " s" if self.metric == "elapsed" else ""
        return head + (f"ok, {self.metric} {measure:.4g}{unit}, commits {self.commits}, "
                       f"aborts {self.aborts}>")

    def check(self) -> RunResult:
        """self if the run is ok; RunError with the failure otherwise."""
        if not self.ok:
            raise RunError(self.describe_failure())
        return self

    def describe_failure(self) -> str:
        """The failure and, if any, the stderr tail, as one message."""
        where = f"{self.workload} on {self.backend}, {self.threads} thread(s), {self.params}"
        text = f"{where}: {self.failure}"
        if self.stderr_tail:
            text += "\n--- stderr (tail) ---\n" + self.stderr_tail
        return text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (NaN becomes None); see from_dict."""
        data = asdict(self)
        for key in ("throughput", "elapsed", "wall_time"):
            if isinstance(data[key], float) and math.isnan(data[key]):
                data[key] = None
        return data

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> RunResult:
        """The inverse of to_dict."""
        values = dict(data)
        for key in ("throughput", "elapsed", "wall_time"):
            if values.get(key) is None:
                values[key] = math.nan
        return RunResult(**values)


def _last_json_object(text: str) -> Optional[dict[str, Any]]:
    """The last line of text that is a JSON object, parsed; None if none."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _object(value: Any) -> dict[str, Any]:
    """A JSON object ({} for anything else)."""
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    """A counter from JSON (an int; anything else is 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> float:
    """A measure from JSON (a number; anything else is NaN)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return math.nan


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count_value(value: Any) -> CountValue:
    """A value of the "counts" object: a number or a list of numbers as
    they are, anything else (null, text, a list with other things) None."""
    if _is_number(value):
        return value  # type: ignore[no-any-return]
    if isinstance(value, list) and all(_is_number(v) for v in value):
        return list(value)
    return None


def result_from_outcome(*, workload: str, backend: str, threads: int,
                        params: Mapping[str, Any], config: Mapping[str, str],
                        argv: Sequence[str], outcome: Outcome,
                        metric: str = "throughput") -> RunResult:
    """Interpret a worker's outcome as a RunResult (argv: the benchmark's;
    metric: the workload's, see RunResult)."""
    base: dict[str, Any] = dict(
        workload=workload, backend=backend, threads=threads, params=dict(params),
        config=dict(config), returncode=outcome.returncode, metric=metric,
        stderr_tail=outcome.stderr_tail(), wall_time=outcome.wall_time)
    problem = outcome.problem()
    if problem is not None:
        return RunResult(ok=False, failure=problem, **base)
    if outcome.returncode == EXIT_BAD_ARGUMENTS:
        return RunResult(ok=False, failure=(
            "the benchmark rejected its arguments (exit status 2): "
            f"{' '.join(argv)}"), **base)
    line = _last_json_object(outcome.stdout)
    data = None if line is None else harness_view(line)
    if data is None:
        status = f"exit status {outcome.returncode}"
        return RunResult(ok=False, failure=f"no JSON result line on stdout ({status})",
                         **base)
    stats = _object(data.get("stats"))
    causes = _object(stats.get("aborts_by_cause"))
    verified = data.get("verified") is True
    verify_msg = str(data.get("verify_msg", ""))
    failure = ""
    if outcome.returncode == EXIT_VERIFY_FAILED or not verified:
        failure = f"verification failed: {verify_msg or '(no message)'}"
    elif outcome.returncode != EXIT_OK:
        failure = f"the benchmark exited with status {outcome.returncode}"
    seed = data.get("seed")
    return RunResult(
        ok=not failure, failure=failure,
        throughput=_number(data.get("throughput")),
        elapsed=_number(data.get("elapsed_s")),
        ops=_count(data.get("ops")),
        commits=_count(stats.get("commits")),
        aborts=_count(stats.get("aborts")),
        aborts_by_cause={str(k): _count(v) for k, v in causes.items()},
        stats={str(k): _count(v) for k, v in stats.items() if k != "aborts_by_cause"},
        counts={str(k): _count_value(v) for k, v in _object(data.get("counts")).items()},
        verified=verified, verify_msg=verify_msg,
        seed=seed if isinstance(seed, int) else None,
        raw=data, **base)
