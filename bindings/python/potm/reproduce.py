"""Run experiments of the registry and write their data, figures and summaries.

``reproduce(["fig-3.11"], scale="quick", out="results/quick")`` runs each
selected experiment that can run here (potm.experiments.availability),
skips the others with the reason, and writes into ``out``:

    <id>.csv          every run (the merged sweep table, one row per run)
    <id>.png, .svg    the figure (<id>-<name>.* if an experiment draws several)
    <id>.txt          title, published result, notes, the numbers behind the figure
    <id>.runs.jsonl   the raw results (a sweep cache: --resume reuses it)
    summary.txt       one line per experiment: id, status, key numbers, figures
    summary.json      the same as data; an experiment run later into the same
                      directory replaces its own entry and keeps the others

A POTM_* variable of this process that the runs would refuse
(``POTM_MODE=bogus``) is refused once, before any experiment runs
(ConfigError; exit status 2 on the command line), naming the variable and
its allowed values.

The runs of an experiment go repeat by repeat across all its sweeps (all
cases and variants once, then again...), so a burst of noise on the shared
machine spreads over the points instead of hitting one.  A failure inside
one experiment (a crashed run, a bad parameter) makes that experiment
"failed" and the others go on.  A point that an experiment shares with one
run before it in the same call (same workload, backend, threads,
parameters, settings and repeat: fig-3.8's are fig-3.7's) is not run
again: its result is taken from that experiment's cache.

Example:
    >>> reports = reproduce(["overhead"], scale="quick", out="results/quick")  # doctest: +SKIP
    >>> print(summary_text(reports))                                          # doctest: +SKIP
    experiment  status  key numbers / reason  -> figures
    overhead    ok      throughput of seq: gl 0.90x, ...  -> results/quick/overhead.png
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, TextIO, Union

from potm import api
from potm._lib import LIB_DIR_ENV, LibraryDir
from potm.config import config_env
from potm.experiments.availability import plan, unavailable
from potm.experiments.model import SCALES, Experiment, Grid, Sweep
from potm.experiments.registry import id_order, select
from potm.experiments.tables import labelled, merge
from potm.experiments.variants import PotModes, spec_backend, variant
from potm.modes import ModesUnavailable
from potm.options import REPRODUCE_OUT, add_reproduce_arguments
from potm.plot.figure import save_figure
from potm.plot.tables import format_rows
from potm.progress import Progress
from potm.table import SweepTable
from potm.workloads import workload

PathLike = Union[str, "os.PathLike[str]"]

#: Where results go when no --out is given (potm.options.REPRODUCE_OUT).
DEFAULT_OUT = {scale: Path(path) for scale, path in REPRODUCE_OUT.items()}

SUMMARY_FILE = "summary.txt"
SUMMARY_DATA = "summary.json"


@dataclass
class Report:
    """What happened to one experiment."""

    id: str
    status: str  # "ok", "skipped" or "failed"
    reason: str = ""
    key_numbers: str = ""
    figures: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """The report as JSON-ready data (paths as text)."""
        return {"id": self.id, "status": self.status, "reason": self.reason,
                "key_numbers": self.key_numbers, "figures": [str(p) for p in self.figures],
                "files": [str(p) for p in self.files], "notes": self.notes,
                "seconds": round(self.seconds, 1)}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Report:
        """The inverse of to_dict."""
        return Report(id=data["id"], status=data["status"], reason=data["reason"],
                      key_numbers=data["key_numbers"],
                      figures=[Path(p) for p in data["figures"]],
                      files=[Path(p) for p in data["files"]], notes=list(data["notes"]),
                      seconds=float(data["seconds"]))

    def line(self) -> list[str]:
        """The summary row: id, status, key numbers or reason, PNG figures."""
        detail = self.key_numbers if self.status == "ok" else self.reason
        pngs = " ".join(str(_shown(p)) for p in self.figures if p.suffix == ".png")
        return [self.id, self.status, detail, pngs]


def _shown(path: Path) -> Path:
    """path relative to the current directory if it lies below it (the
    scripts of experiments/ pass absolute output directories), else as is.

    >>> _shown(Path.cwd() / "plots" / "a.png")
    PosixPath('plots/a.png')
    >>> _shown(Path("/elsewhere/a.png"))
    PosixPath('/elsewhere/a.png')
    """
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd())
        except ValueError:
            return path
    return path


def summary_text(reports: Sequence[Report]) -> str:
    """One line per experiment (see Report.line), aligned."""
    rows = [r.line() for r in reports]
    header = ["experiment", "status", "key numbers / reason", "-> figures"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(2)]
    lines = []
    for r in [header, *rows]:
        figures = r[3] if r is header or not r[3] else f"-> {r[3]}"
        lines.append(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]}  {figures}".rstrip())
    return "\n".join(lines)


#: The skip reason of every experiment when there is no library directory.
NO_LIBRARIES = (f"no potm C libraries (build them and set ${LIB_DIR_ENV} to the build "
                "directory, or pass --lib-dir)")


def find_libs(lib_dir: Optional[PathLike], *, verbose: bool = False
              ) -> tuple[Optional[LibraryDir], str]:
    """The library directory and, if there is none, a short reason (with
    verbose, the full explanation goes to stderr)."""
    try:
        return LibraryDir.find(lib_dir), ""
    except FileNotFoundError as exc:
        if verbose:
            print(exc, file=sys.stderr)
        return None, NO_LIBRARIES


def runs_cache(out: Path, exp_id: str) -> Path:
    """The sweep cache of experiment exp_id in the output directory out."""
    return out / f"{exp_id}.runs.jsonl"


def run_sweeps(exp: Experiment, sweeps: Sequence[Sweep], repeat: int, libs: LibraryDir,
               cache: Path, progress: bool, reuse: Sequence[Path] = ()) -> SweepTable:
    """Run the sweeps repeat by repeat; the merged, labelled table.  Runs
    recorded in the caches reuse (of experiments run before, with the same
    libraries) are taken from there (api.sweep's reuse)."""
    bar = Progress(total=len(sweeps) * repeat, enabled=progress)
    tables: list[SweepTable] = []
    try:
        for r in range(1, repeat + 1):
            tables = []
            for s in sweeps:
                bar.start(f"{exp.id}: {s.case.name} {s.variant.name} #{r}")
                t = api.sweep(s.case.workload, backends=[s.variant.backend],
                              threads=list(s.threads), repeat=r, cache=cache,
                              progress=False, retry_failed=False, config=s.variant.config,
                              lib_dir=libs.path, reuse=reuse, **s.params)
                tables.append(labelled(t, benchmark=s.case.name, variant=s.variant.name))
                bar.finish(ok=bool(t.filter(repeat=r - 1)["ok"].all()))
    finally:
        bar.close()
    return merge(tables)


def validate(sweeps: Sequence[Sweep], lib_dir: Optional[PathLike] = None) -> None:
    """Check every sweep's parameters before anything runs (ValueError);
    lib_dir: the library directory, which names the Pot modes."""
    for s in sweeps:
        spec = workload(s.case.workload)
        single = {k: (v[0] if isinstance(v, list) else v) for k, v in s.params.items()}
        for name, value in s.params.items():
            for v in value if isinstance(value, list) else [value]:
                spec.validate({**single, name: v})
        config_env(s.variant.config, lib_dir)


def _write_text(exp: Experiment, scale: str, path: Path, summary: str, key: str,
                notes: Sequence[str]) -> None:
    lines = [exp.title, "", f"experiment:  {exp.id} ({scale})",
             f"reproduces:  {exp.reproduces}"]
    lines += [f"note:        {n}" for n in ([exp.notes] if exp.notes else []) + list(notes)]
    lines += ["", summary, "", f"key numbers: {key}", ""]
    path.write_text("\n".join(lines))


def run_experiment(exp: Experiment, scale: str, out: Path, libs: Optional[LibraryDir],
                   libs_problem: str = "", *, resume: bool = False,
                   progress: bool = True, stream: Optional[TextIO] = None,
                   reuse: Sequence[Path] = ()) -> Report:
    """Run one experiment (or skip it) and write its files into out; its
    summary table goes to stream (default: sys.stdout).  reuse: run caches
    of experiments run just before with the same libraries, whose runs of
    the same points are taken rather than run again (fig-3.8's are
    fig-3.7's)."""
    stream = stream if stream is not None else sys.stdout
    started = time.monotonic()
    reason = unavailable(exp, libs, libs_problem or NO_LIBRARIES)
    if reason is not None or libs is None:
        return Report(exp.id, "skipped", reason or libs_problem)
    sweeps, notes = plan(exp, scale, libs)
    report = Report(exp.id, "failed", notes=notes)
    cache = runs_cache(out, exp.id)
    try:
        if not sweeps:
            raise ValueError("no sweep of its grid can run here")
        validate(sweeps, libs.path)
        out.mkdir(parents=True, exist_ok=True)
        if cache.exists() and not resume:
            cache.unlink()
        table = run_sweeps(exp, sweeps, exp.grid(scale).repeat, libs, cache, progress,
                           [p for p in reuse if p != cache])
        csv = out / f"{exp.id}.csv"
        table.to_csv(csv)
        report.files += [csv, cache]
        rendered = exp.render(table, exp)
        for name, fig in rendered.figures.items():
            stem = out / (exp.id if not name else f"{exp.id}-{name}")
            report.figures += save_figure(fig, stem)
        text = out / f"{exp.id}.txt"
        _write_text(exp, scale, text, rendered.summary, rendered.key_numbers, notes)
        report.files += [text, *report.figures]
        report.key_numbers = rendered.key_numbers
        failed = table.filter(ok=False)
        if len(failed):
            first = failed.results[0].describe_failure() if failed.results else \
                str(failed["failure"][0])
            report.reason = (f"{len(failed)} of {len(table)} runs failed; first: "
                             f"{first.splitlines()[0]}")
        else:
            report.status = "ok"
        print(f"\n== {exp.id} ({scale}): {exp.title}", file=stream)
        for n in ([exp.notes] if exp.notes else []) + notes:
            print(f"note: {n}", file=stream)
        print(rendered.summary, file=stream)
    except Exception as exc:  # one experiment's failure must not stop the others
        report.reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"potm reproduce: {exp.id} failed:\n{traceback.format_exc()}", file=sys.stderr)
    report.seconds = time.monotonic() - started
    return report


def reproduce(experiments: Optional[Sequence[Union[str, Experiment]]] = None, *,
              scale: str = "quick",
              out: Optional[PathLike] = None, lib_dir: Optional[PathLike] = None,
              resume: bool = False, progress: bool = True,
              stream: Optional[TextIO] = None) -> list[Report]:
    """Run the experiments matching the ids or patterns (all by default;
    an Experiment is run as given) at scale (quick | full), writing into
    out (default: DEFAULT_OUT[scale]); writes out/summary.txt and returns
    one Report per experiment.  ValueError for an unknown id or scale
    (before anything runs)."""
    if scale not in SCALES:
        raise ValueError(f"scale {scale!r}: expected one of {', '.join(SCALES)}")
    given = [e for e in experiments or () if isinstance(e, Experiment)]
    patterns = [e for e in experiments or () if isinstance(e, str)]
    chosen = given + (select(patterns) if patterns or not given else [])
    out_dir = Path(out) if out is not None else DEFAULT_OUT[scale]
    libs, problem = find_libs(lib_dir, verbose=True)
    if libs is not None:
        check_variables_once(chosen, scale, libs)
    reports: list[Report] = []
    for e in chosen:   # each experiment reuses the runs of those before it
        reports.append(run_experiment(e, scale, out_dir, libs, problem, resume=resume,
                                      progress=progress, stream=stream,
                                      reuse=[runs_cache(out_dir, r.id) for r in reports]))
    write_summary(out_dir, reports)
    return reports


def check_variables_once(experiments: Sequence[Experiment], scale: str,
                         libs: LibraryDir) -> None:
    """ConfigError (a ValueError) naming the variable and its allowed
    values if a POTM_* variable of this process would be refused by the
    runs of the experiments, before any of them runs: every run sees it,
    so it is one mistake, not a failure of each experiment."""
    built = libs.backends()
    backends = [spec_backend(spec) for exp in experiments
                for spec in exp.grid(scale).variants]
    api.check_process_environment(libs, [b for b in dict.fromkeys(backends) if b in built])


def write_summary(out_dir: Path, reports: Sequence[Report]) -> list[Report]:
    """Record reports in out_dir/summary.json, keeping the entries of other
    experiments run there before, and write summary.txt from all of them
    (registry order); returns all entries."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data_path = out_dir / SUMMARY_DATA
    entries: dict[str, Report] = {}
    if data_path.exists():
        try:
            for item in json.loads(data_path.read_text()):
                entries[item["id"]] = Report.from_dict(item)
        except (ValueError, KeyError, TypeError) as exc:
            print(f"potm reproduce: ignoring the damaged {data_path}: {exc}", file=sys.stderr)
    entries.update((r.id, r) for r in reports)
    merged = sorted(entries.values(), key=lambda r: id_order(r.id))
    data_path.write_text(json.dumps([r.to_dict() for r in merged], indent=1) + "\n")
    (out_dir / SUMMARY_FILE).write_text(summary_text(merged) + "\n")
    return merged


def exit_status(reports: Sequence[Report]) -> int:
    """1 if an experiment that could run failed, else 0 (skips are fine)."""
    return 1 if any(r.status == "failed" for r in reports) else 0


def run_from_args(args: argparse.Namespace, experiments: Sequence[Union[str, Experiment]],
                  stream: Optional[TextIO] = None) -> int:
    """Run reproduce for parsed arguments, print the summary; exit status."""
    stream = stream if stream is not None else sys.stdout
    reports = reproduce(experiments, scale=args.scale, out=args.out, lib_dir=args.lib_dir,
                        resume=args.resume, progress=not args.no_progress, stream=stream)
    print("\n" + summary_text(reports), file=stream)
    out_dir = Path(args.out) if args.out else DEFAULT_OUT[args.scale]
    print(f"(written to {out_dir.resolve()}; summary in {SUMMARY_FILE})", file=stream)
    return exit_status(reports)


def script_main(experiment: Union[str, Experiment], argv: Optional[Sequence[str]] = None,
                default_lib_dir: Optional[Path] = None) -> int:
    """The main function of an experiments/ file run as a script: reproduce
    the experiment it defines (or the registry's experiment of that id).

    default_lib_dir: the libraries to use when neither --lib-dir nor
    $POTMPY_LIB_DIR is given (the scripts pass their checkout's build/,
    so that they run right after 'make build')."""
    exp_id = experiment if isinstance(experiment, str) else experiment.id
    parser = argparse.ArgumentParser(
        description=f"Reproduce experiment {exp_id} (see 'potm experiments -v')."
                    + (f"  Libraries by default: {default_lib_dir}." if default_lib_dir
                       else ""))
    add_reproduce_arguments(parser)
    args = parser.parse_args(argv)
    if args.lib_dir is None and not os.environ.get(LIB_DIR_ENV) and \
            default_lib_dir is not None and default_lib_dir.is_dir():
        args.lib_dir = str(default_lib_dir)
    try:
        return run_from_args(args, [experiment])
    except (ValueError, FileNotFoundError, ModesUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def listing(lib_dir: Optional[PathLike] = None, verbose: bool = False) -> str:
    """The registry as text: id, availability and title of each experiment
    (verbose: what it reproduces, its grids and notes too)."""
    libs, problem = find_libs(lib_dir)
    rows, details = [], []
    for exp in select():
        reason = unavailable(exp, libs, problem or NO_LIBRARIES)
        status = "available" if reason is None else f"skipped: {reason}"
        rows.append([exp.id, exp.title, status])
        if verbose:
            details.append(_details(exp, status, libs))
    header = "libraries: " + (str(libs.path) if libs is not None else problem)
    text = header + "\n\n" + format_rows(["experiment", "title", "status"], rows, left=3)
    return text + ("\n\n" + "\n\n".join(details) if verbose else "")


def _variant_names(grid: Grid, libs: Optional[LibraryDir]) -> list[str]:
    """The names of a grid's variants; the Pot modes as the libraries name
    them, or as the grid lists them where no library can."""
    lib_dir = libs.path if libs is not None else None
    try:
        return [v.name for v in grid.resolved_variants(lib_dir)]
    except ModesUnavailable:
        pass
    names: list[str] = []
    for spec in grid.variants:
        if isinstance(spec, PotModes):
            names.append("the Pot modes (named by the pot library)")
            continue
        try:
            names.append(spec.name if not isinstance(spec, str) else
                         variant(spec, lib_dir).name)
        except ModesUnavailable:
            names.append(str(spec))
    return names


def _details(exp: Experiment, status: str, libs: Optional[LibraryDir]) -> str:
    lines = [f"{exp.id}: {exp.title}", f"  reproduces: {exp.reproduces}",
             f"  status:     {status}", f"  requires:   {', '.join(exp.requires) or '-'}"]
    for scale in SCALES:
        g = exp.grid(scale)
        names = ", ".join(_variant_names(g, libs))
        lines.append(f"  {scale + ':':<11} {len(g.cases)} benchmark(s) "
                     f"({', '.join(c.name for c in g.cases)}) x [{names}] x threads "
                     f"{','.join(map(str, g.threads))}, {g.repeat} repeats")
    if exp.provisional:
        lines.append("  grid:       provisional (from the published description, never run "
                     "where it can be measured)")
    if exp.notes:
        lines.append(f"  notes:      {exp.notes}")
    return "\n".join(lines)
