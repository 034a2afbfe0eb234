"""``potm measure micro``: microbenchmark binaries across backends and threads.

Each workload (a benchmark name plus its options, e.g. ``"intset -s rb -i
4096"``) runs on every chosen backend at every thread count, ``--repeat``
times, as the binaries ``<build>/bench/<bench>-<backend>``.  Repetitions
are interleaved (all configurations once, then all again, ...) so that a
slow spell of a noisy machine spreads over all of them instead of spoiling
one.  The table shows medians:

* throughput in millions of transactions per second,
* its spread: half the interquartile range of the runs, in percent of the
  median (how far a typical run lies from it; on a noisy machine a
  ratio whose margin is below the spreads of its two rows is not settled),
* the ratio to the ``seq`` backend at one thread, measured in the same
  invocation (the physical limit the overheads are measured against),
* the speedup over the same backend at one thread,
* the abort rate (aborted attempts / all attempts).

A run that crashes, times out, exits non-zero or fails its verification is
reported as FAILED with the tail of its stderr; the others go on, and the
command exits with status 1 at the end.  The raw JSON lines and CSV files
(one row per run, one per configuration) go to ``--out``.

A backend may carry environment settings after a colon, which makes it a
variant of its own in the table: ``pot:POTM_MODE=pogl``,
``pot:POTM_TURN_BATCH=0``, ``libitm:ITM_DEFAULT_METHOD=serialirr`` (the
``-fgnu-tm`` build of the same source), several separated by commas.

Examples::

    potm measure micro                                  # the default table
    potm measure micro --build build --repeat 3
    potm measure micro "intset -s sl" "bank -a 256" --threads 1 2 8
    potm measure micro "intset -s hs -i 4096 -r 8192 -u 20" --backends seq tl2 \
        pot pot:POTM_MODE=pogl libitm:ITM_DEFAULT_METHOD=serialirr

Example:
    >>> split_backend("pot:POTM_MODE=pogl,POTM_TURN_BATCH=0")
    ('pot', {'POTM_MODE': 'pogl', 'POTM_TURN_BATCH': '0'})
    >>> parse_workload("intset -s rb -u 20").label
    'intset -s rb -u 20'
    >>> round(half_iqr_fraction([90.0, 100.0, 100.0, 110.0, 200.0]), 3)
    0.05
    >>> parse_workload("bank -t 2")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: workload 'bank -t 2': -t is set by potm measure micro (use --threads, --duration)
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from potm.measure.common import default_build

DEFAULT_WORKLOAD = "intset -s rb -i 4096 -r 8192 -u 20"
DEFAULT_BACKENDS = ("seq", "gl", "tl2")
BASELINE_BACKEND = "seq"
STDERR_TAIL_LINES = 6
# Options the runner sets itself; a workload must not repeat them.
RESERVED_OPTIONS = ("-t", "-d", "-H", "-h")


@dataclass(frozen=True)
class Workload:
    """A benchmark and its own options, as typed by the user."""

    bench: str
    args: tuple[str, ...]

    @property
    def label(self) -> str:
        """The workload as a command line fragment."""
        return " ".join((self.bench, *self.args))

    @property
    def counts_operations(self) -> bool:
        """True if the workload runs a fixed number of operations (-n)."""
        return any(a == "-n" or a.startswith("-n") for a in self.args)


@dataclass(frozen=True)
class Config:
    """One cell of the sweep: a workload on a backend at a thread count."""

    workload: Workload
    backend: str
    threads: int


@dataclass
class Run:
    """The outcome of one execution of a benchmark binary."""

    config: Config
    repeat: int
    command: list[str]
    exit_code: int | None          # None: timed out or could not start
    record: dict[str, Any] | None  # the parsed JSON line
    raw_json: str | None
    stderr: str
    error: str | None              # why the run counts as failed

    @property
    def ok(self) -> bool:
        """True if the run exited 0 and verified its result."""
        return self.error is None

    @property
    def throughput(self) -> float:
        """Operations per second reported by the benchmark."""
        assert self.record is not None
        return float(self.record["throughput"])

    @property
    def abort_rate(self) -> float | None:
        """Aborted attempts as a fraction of all attempts; None for a
        binary that reports no statistics (intset-libitm)."""
        assert self.record is not None
        stats = self.record.get("stats")
        if not stats:
            return None
        attempts = stats["commits"] + stats.get("cancels", 0) + stats["aborts"]
        return stats["aborts"] / attempts if attempts else 0.0


def half_iqr_fraction(values: Sequence[float]) -> float | None:
    """Half the interquartile range of values over their median (the
    spread the table shows); None for fewer than two values or a median
    of zero."""
    if len(values) < 2:
        return None
    median = statistics.median(values)
    if median == 0:
        return None
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / 2 / median


@dataclass
class Summary:
    """Medians over the repetitions of one configuration."""

    config: Config
    runs: list[Run] = field(default_factory=list)
    skipped: str | None = None     # why the configuration was not run

    @property
    def ok_runs(self) -> list[Run]:
        """The runs that succeeded."""
        return [r for r in self.runs if r.ok]

    @property
    def failed_runs(self) -> list[Run]:
        """The runs that failed."""
        return [r for r in self.runs if not r.ok]

    @property
    def failed(self) -> bool:
        """True if any repetition failed (the row is then FAILED)."""
        return bool(self.failed_runs)

    def median_throughput(self) -> float | None:
        """Median throughput of the successful runs, if all succeeded."""
        if self.failed or not self.runs:
            return None
        return statistics.median(r.throughput for r in self.runs)

    def throughput_spread(self) -> float | None:
        """half_iqr_fraction of the runs' throughputs, if all succeeded."""
        if self.failed:
            return None
        return half_iqr_fraction([r.throughput for r in self.runs])

    def median_abort_rate(self) -> float | None:
        """Median abort rate of the runs, if all succeeded and report it."""
        rates = [r.abort_rate for r in self.runs]
        if self.failed or not rates or any(a is None for a in rates):
            return None
        return statistics.median(a for a in rates if a is not None)


def parse_workload(text: str) -> Workload:
    """Split ``"intset -s rb"`` into a Workload; reject options we set."""
    words = shlex.split(text)
    if not words:
        raise argparse.ArgumentTypeError("empty workload")
    for w in words[1:]:
        if w[:2] in RESERVED_OPTIONS:
            raise argparse.ArgumentTypeError(
                f"workload '{text}': {w[:2]} is set by potm measure micro "
                "(use --threads, --duration)")
    return Workload(words[0], tuple(words[1:]))


def split_backend(backend: str) -> tuple[str, dict[str, str]]:
    """A backend variant's binary suffix and environment settings.

    Example:
        >>> split_backend("tl2")
        ('tl2', {})
        >>> split_backend("libitm:ITM_DEFAULT_METHOD=serialirr")
        ('libitm', {'ITM_DEFAULT_METHOD': 'serialirr'})
        >>> split_backend("pot:POTM_MODE")
        Traceback (most recent call last):
        ...
        ValueError: --backends: 'pot:POTM_MODE': a setting is NAME=VALUE, got 'POTM_MODE'
    """
    name, _, settings = backend.partition(":")
    env: dict[str, str] = {}
    for item in filter(None, settings.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key or not value or \
                not all(ch.isupper() or ch.isdigit() or ch == "_" for ch in key):
            raise ValueError(f"--backends: '{backend}': a setting is NAME=VALUE, "
                             f"got '{item}'")
        env[key] = value
    return name, env


def find_binary(build: Path, bench: str, backend: str) -> Path | None:
    """The executable <bench>-<backend> in the build tree (bench/, a folder
    of its own such as tpcc/, or the top), if built (a variant's settings do
    not change the binary)."""
    name = split_backend(backend)[0]
    for directory in (build / "bench", build / bench, build):
        candidate = directory / f"{bench}-{name}"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def stderr_tail(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    """The last few non-empty lines of a run's stderr."""
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def run_once(binary: Path, config: Config, repeat: int, seed: int,
             duration_ms: int, timeout_s: float) -> Run:
    """Run one benchmark process and classify its outcome."""
    command = [str(binary), *config.workload.args, "-t", str(config.threads)]
    if not config.workload.counts_operations:
        command += ["-d", str(duration_ms)]
    if not any(a.startswith("-S") for a in config.workload.args):
        command += ["-S", str(seed)]
    env = dict(os.environ, **split_backend(config.backend)[1])
    try:
        proc = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout_s, check=False, env=env)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) \
            else (exc.stderr or "")
        return Run(config, repeat, command, None, None, None, err,
                   f"timed out after {timeout_s:.0f} s")
    except OSError as exc:
        return Run(config, repeat, command, None, None, None, "",
                   f"cannot run: {exc}")

    raw = next((line for line in proc.stdout.splitlines()
                if line.startswith("{")), None)
    record: dict[str, Any] | None = None
    error: str | None = None
    if raw is not None:
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            error = f"unreadable JSON line: {exc}"
    if record is not None and not record.get("verified", False):
        error = f"verification failed: {record.get('verify_msg', '?')}"
    elif proc.returncode < 0:
        error = f"killed by signal {-proc.returncode}"
    elif proc.returncode != 0:
        error = f"exit status {proc.returncode}"
    elif record is None and error is None:
        error = "no JSON line on stdout"
    return Run(config, repeat, command, proc.returncode, record, raw,
               proc.stderr, error)


def fmt(value: float | None, width: int, decimals: int) -> str:
    """Format a number right-aligned, or '-' if there is none."""
    text = "-" if value is None else f"{value:.{decimals}f}"
    return text.rjust(width)


def baseline(summaries: dict[Config, Summary], workload: Workload) -> float | None:
    """Median throughput of seq at one thread for this workload."""
    for config, s in summaries.items():
        if (config.workload == workload and config.backend == BASELINE_BACKEND
                and config.threads == 1):
            return s.median_throughput()
    return None


def one_thread(summaries: dict[Config, Summary], config: Config) -> float | None:
    """Median throughput of the same backend and workload at one thread."""
    base = Config(config.workload, config.backend, 1)
    s = summaries.get(base)
    return s.median_throughput() if s else None


def print_table(summaries: dict[Config, Summary], workloads: Sequence[Workload],
                repeat: int, duration_ms: int) -> None:
    """Print one table per workload, failures after it."""
    bw = max([8] + [len(c.backend) for c in summaries])   # variants are long
    header = f"{'backend':<{bw}} {'threads':>7} {'M tx/s':>8} {'± %':>6} {'vs seq@1':>9} " \
             f"{'speedup':>8} {'abort %':>8} {'runs':>6}"
    for workload in workloads:
        rows = [s for c, s in summaries.items() if c.workload == workload]
        how = "" if workload.counts_operations else f" -d {duration_ms}"
        print(f"\n{workload.label}{how}   (median of {repeat} runs; speedup: "
              "over the same backend at 1 thread)")
        print(header)
        print("-" * len(header))
        seq1 = baseline(summaries, workload)
        failures: list[Summary] = []
        for s in rows:
            c = s.config
            if s.skipped:
                print(f"{c.backend:<{bw}} {c.threads:>7} {'n/a':>8}   {s.skipped}")
                continue
            if s.failed:
                failures.append(s)
                print(f"{c.backend:<{bw}} {c.threads:>7} {'FAILED':>8} {'':>6} "
                      f"{'':>9} {'':>8} {'':>8} {len(s.ok_runs):>3}/{len(s.runs)}")
                continue
            tput = s.median_throughput()
            t1 = one_thread(summaries, c)
            ratio = tput / seq1 if tput is not None and seq1 else None
            speedup = tput / t1 if tput is not None and t1 else None
            abort = s.median_abort_rate()
            mtx = None if tput is None else tput / 1e6
            abort_pct = None if abort is None else abort * 100
            spread = s.throughput_spread()
            spread_pct = None if spread is None else spread * 100
            print(f"{c.backend:<{bw}} {c.threads:>7} {fmt(mtx, 8, 3)} {fmt(spread_pct, 6, 1)} "
                  f"{fmt(ratio, 9, 2)} {fmt(speedup, 8, 2)} "
                  f"{fmt(abort_pct, 8, 2)} "
                  f"{len(s.ok_runs):>3}/{len(s.runs)}")
        for s in failures:
            c = s.config
            print(f"\nFAILED: {c.backend} at {c.threads} thread(s):")
            for r in s.failed_runs:
                print(f"  run {r.repeat + 1}: {r.error}")
                print(f"    command: {shlex.join(r.command)}")
                tail = stderr_tail(r.stderr)
                if tail:
                    print("    stderr: " + tail.replace("\n", "\n            "))


def write_outputs(out: Path, summaries: dict[Config, Summary]) -> None:
    """Write runs.jsonl, runs.csv and summary.csv into out."""
    out.mkdir(parents=True, exist_ok=True)
    runs = [r for s in summaries.values() for r in s.runs]
    with open(out / "runs.jsonl", "w", encoding="utf-8") as f:
        for r in runs:
            if r.raw_json is not None:
                f.write(r.raw_json + "\n")
    with open(out / "runs.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["workload", "backend", "threads", "repeat", "status",
                    "exit_code", "elapsed_s", "ops", "throughput", "commits",
                    "aborts", "abort_rate", "verify_msg", "error", "command"])
        for r in runs:
            rec = r.record or {}
            stats = rec.get("stats") or {}
            w.writerow([
                r.config.workload.label, r.config.backend, r.config.threads,
                r.repeat + 1, "ok" if r.ok else "FAILED",
                "" if r.exit_code is None else r.exit_code,
                rec.get("elapsed_s", ""), rec.get("ops", ""),
                rec.get("throughput", ""), stats.get("commits", ""),
                stats.get("aborts", ""),
                f"{r.abort_rate:.6f}" if r.record and r.abort_rate is not None else "",
                rec.get("verify_msg", ""), r.error or "", shlex.join(r.command),
            ])
    with open(out / "summary.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["workload", "backend", "threads", "runs", "ok_runs",
                    "status", "throughput_median", "throughput_min",
                    "throughput_max", "throughput_half_iqr", "ratio_vs_seq_1t",
                    "speedup_vs_1t", "abort_rate_median"])
        for c, s in summaries.items():
            ok = [r.throughput for r in s.ok_runs]
            tput = s.median_throughput()
            seq1 = baseline(summaries, c.workload)
            t1 = one_thread(summaries, c)
            status = "skipped" if s.skipped else ("FAILED" if s.failed else "ok")
            abort = s.median_abort_rate()
            spread = s.throughput_spread()
            w.writerow([
                c.workload.label, c.backend, c.threads, len(s.runs), len(ok), status,
                "" if tput is None else f"{tput:.1f}",
                f"{min(ok):.1f}" if ok else "", f"{max(ok):.1f}" if ok else "",
                "" if spread is None else f"{spread:.4f}",
                f"{tput / seq1:.4f}" if tput is not None and seq1 else "",
                f"{tput / t1:.4f}" if tput is not None and t1 else "",
                "" if abort is None else f"{abort:.6f}",
            ])


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of 'potm measure micro'."""
    p.add_argument("workloads", nargs="*", type=parse_workload,
                   metavar="WORKLOAD",
                   help=f"benchmark and its options, quoted (default: "
                        f"'{DEFAULT_WORKLOAD}')")
    p.add_argument("--build", type=Path, default=Path(default_build()),
                   help="CMake build directory (default: $POTMPY_LIB_DIR, else build)")
    p.add_argument("--backends", nargs="+", metavar="B",
                   help="backends, each optionally with settings after a colon "
                        "(pot:POTM_MODE=pogl; default: those of seq gl tl2 "
                        "that are built)")
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2], metavar="N",
                   help="thread counts (default: 1 2)")
    p.add_argument("--repeat", "--reps", dest="repeat", type=int, default=5,
                   help="runs per configuration; the table shows medians "
                        "(default: 5)")
    p.add_argument("--duration", type=int, default=1000, metavar="MS",
                   help="duration of each run in ms (-d; default 1000)")
    p.add_argument("--seed", type=int, default=1,
                   help="-S of the first repetition, +1 for each further one "
                        "(default 1)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds before a run is killed (default: 30 + 10 x "
                        "the duration)")
    p.add_argument("--out", type=Path, default=None,
                   help="directory for runs.jsonl, runs.csv and summary.csv "
                        "(default: <build>/bench-table)")


def check_arguments(args: argparse.Namespace) -> None:
    """ValueError for option values no run could use."""
    if args.repeat < 1:
        raise ValueError("--repeat must be at least 1")
    if args.duration < 1:
        raise ValueError("--duration must be at least 1 ms")
    if any(t < 1 for t in args.threads):
        raise ValueError("--threads: thread counts must be at least 1")
    for b in args.backends or ():
        name = split_backend(b)[0]
        if not name or not all(ch.isalnum() or ch == "-" for ch in name):
            raise ValueError(f"--backends: '{b}' is not a backend name (give the "
                             "workloads before the options, or after --)")
    if not args.workloads:
        args.workloads = [parse_workload(DEFAULT_WORKLOAD)]


def main(args: argparse.Namespace) -> int:
    """Run the sweep; 0 if every run succeeded, 1 if any failed, 2 when
    the binaries are not built."""
    check_arguments(args)
    build: Path = args.build
    workloads: list[Workload] = args.workloads
    threads: list[int] = list(dict.fromkeys(args.threads))
    timeout = args.timeout or 30.0 + 10.0 * args.duration / 1000.0

    # Which binaries exist.  Asked-for backends must exist; the default
    # set is whatever of it was built.
    binaries: dict[tuple[str, str], Path] = {}
    backends: list[str] = list(args.backends or DEFAULT_BACKENDS)
    missing: list[str] = []
    for w in workloads:
        for b in backends:
            path = find_binary(build, w.bench, b)
            if path:
                binaries[(w.bench, b)] = path
            elif args.backends:
                missing.append(f"{w.bench}-{b}")
    if missing:
        print(f"potm measure micro: not built in {build}: {', '.join(missing)}",
              file=sys.stderr)
        return 2
    backends = [b for b in backends if any((w.bench, b) in binaries for w in workloads)]
    if not backends:
        print(f"potm measure micro: no benchmark binaries in {build}/bench for "
              f"{', '.join(args.backends or DEFAULT_BACKENDS)}: build first "
              "(cmake --build <dir>)", file=sys.stderr)
        return 2

    summaries: dict[Config, Summary] = {}
    for w in workloads:
        for b in backends:
            for t in threads:
                c = Config(w, b, t)
                summaries[c] = Summary(c)
                if (w.bench, b) not in binaries:
                    summaries[c].skipped = "not built"
                elif b == BASELINE_BACKEND and t > 1:
                    summaries[c].skipped = "seq runs one thread only"

    todo = [s for s in summaries.values() if not s.skipped]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"potm measure micro: {len(todo)} configurations x {args.repeat} runs on "
          f"{os.cpu_count()} CPUs (load average {load:.2f}), build {build}",
          flush=True)
    started = time.monotonic()
    for rep in range(args.repeat):
        for s in todo:
            c = s.config
            # One seed per repetition, the same for every configuration:
            # the backends of a repetition see the same operations.
            run = run_once(binaries[(c.workload.bench, c.backend)], c, rep,
                           args.seed + rep, args.duration, timeout)
            s.runs.append(run)
            mark = "." if run.ok else "F"
            print(mark, end="", flush=True)
    print(f" {time.monotonic() - started:.0f} s", flush=True)

    print_table(summaries, workloads, args.repeat, args.duration)
    out: Path = args.out or build / "bench-table"
    write_outputs(out, summaries)
    print(f"\nraw JSON lines: {out / 'runs.jsonl'}; CSV: {out / 'runs.csv'}, "
          f"{out / 'summary.csv'}")
    return 1 if any(s.failed for s in summaries.values()) else 0
