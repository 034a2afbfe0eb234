"""The result lines of STAMP and STMBench7, in the benchmark harness's keys.

The microbenchmarks print the harness's JSON line (bench, elapsed_s, ops,
throughput, counts, stats, verified, verify_msg).  The STAMP applications
print their own (app, time, commits, check, digest, stats: stamp/lib/
report.h) and STMBench7 its own (bench, elapsed_s, ops, throughput,
successful_ops, invariants_ok, ...: stmbench7/README.md).  ``harness_view``
returns a copy of such a line with the harness's keys added, so that
potm.result reads every benchmark the same way; the original keys stay.

* STAMP: elapsed_s = time (the figure's measure: execution time, lower
  is better), ops = commits, throughput = commits per second, verified =
  (check == "pass"); counts: commits, aborts and runs_per_s = 1 / time
  (the application's speed: speedups over a baseline are its ratios).
* STMBench7: verified = invariants_ok; counts: successful_ops, failed_ops,
  throughput_with_failed, build_s, check_s, invariant_violations (its
  throughput counts successful operations, as the original does).

Example:
    >>> line = {"app": "vacation", "time": 0.5, "commits": 1000, "aborts": 7,
    ...         "check": "pass", "stats": {"commits": 1000}}
    >>> view = harness_view(line)
    >>> view["elapsed_s"], view["throughput"], view["verified"], view["counts"]
    (0.5, 2000.0, True, {'commits': 1000, 'aborts': 7, 'runs_per_s': 2.0})
    >>> harness_view({"bench": "stmbench7", "invariants_ok": False,
    ...               "invariant_violations": 2})["verify_msg"]
    'the structure broke 2 invariant(s)'
    >>> harness_view({"bench": "intset", "verified": True})["verified"]
    True
"""

from __future__ import annotations

from typing import Any, Mapping

#: STMBench7's own measures that become "counts".
SB7_COUNTS: tuple[str, ...] = ("successful_ops", "failed_ops", "throughput_with_failed",
                               "build_s", "check_s", "invariant_violations")


def _stamp_view(data: dict[str, Any]) -> dict[str, Any]:
    """A STAMP line (it has "app" and "time") with the harness's keys."""
    seconds = data.get("time")
    commits = data.get("commits")
    passed = data.get("check") == "pass"
    data.setdefault("bench", data.get("app"))
    data["elapsed_s"] = seconds
    data["ops"] = commits
    if isinstance(seconds, (int, float)) and seconds > 0 and isinstance(commits, int):
        data["throughput"] = commits / seconds
    data["verified"] = passed
    data["verify_msg"] = "" if passed else f"self-check: {data.get('check', 'no result')}"
    counts: dict[str, Any] = {k: data[k] for k in ("commits", "aborts") if k in data}
    if isinstance(seconds, (int, float)) and seconds > 0:
        counts["runs_per_s"] = 1.0 / seconds
    data["counts"] = counts
    return data


def _sb7_view(data: dict[str, Any]) -> dict[str, Any]:
    """An STMBench7 line with the harness's keys."""
    ok = data.get("invariants_ok") is True
    data["verified"] = ok
    data["verify_msg"] = "" if ok else \
        f"the structure broke {data.get('invariant_violations', '?')} invariant(s)"
    data["counts"] = {k: data[k] for k in SB7_COUNTS if k in data}
    return data


def harness_view(line: Mapping[str, Any]) -> dict[str, Any]:
    """line (a parsed JSON result line) with the harness's keys."""
    data = dict(line)
    if "app" in data and "time" in data:
        return _stamp_view(data)
    if data.get("bench") == "stmbench7" and "verified" not in data:
        return _sb7_view(data)
    return data
