"""The ``potm`` command (also ``python -m potm``).

    potm backends [-v]
    potm run intset --backend tl2 --threads 2 -s rb -u 20 -d 200
    potm run bank -b gl -t 2 --accounts 1024 --readonly 20 --ops 10000
    potm sweep intset -b gl,tl2 -t 1,2 -s rb,ll -u 0,20 -d 200 --repeat 3 \\
        --cache intset.jsonl --csv intset.csv
    potm experiments [-v]
    potm reproduce [--quick|--full] [--out DIR] [EXPERIMENT ...]
    potm measure stamp|stmbench7|micro [--build DIR] ...

A workload option has its Python name (--update) and the benchmark's own
letter (-u); in a sweep it takes a comma-separated list.  --config k=v sets
a C-library setting (potm.config) for every run.  Every command but
measure takes --lib-dir DIR (default: the installed libraries, or
$POTMPY_LIB_DIR); measure runs the executables of a CMake build directory
(potm.measure).

Exit status: 0 when every run is ok, 1 when a run failed, 2 for a usage
error (bad option or value; nothing was run).  For reproduce: 1 when an
experiment that could run failed (a skipped experiment is not a failure).

Example:
    >>> main(["run", "bank", "-b", "tl2", "-t", "2", "-d", "100"])  # doctest: +SKIP
    bank on tl2, 2 thread(s): ok
    ...
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any, NoReturn, Optional, Sequence

from potm import api
from potm import measure
from potm._lib import LibraryDir
from potm.config import CONFIG_FIELDS, ConfigValue
from potm.modes import ModesUnavailable
from potm.options import add_lib_dir, add_reproduce_arguments
from potm.result import RunResult
from potm.workloads import THREADS, WORKLOADS, Param, Value

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

#: A switch's values on the command line.
_SWITCH_WORDS = {"true": True, "false": False}


def _parse_value(param: Param, text: str) -> Value:
    """One command-line value of param (range checks are the API's).

    >>> affine = Param("affine", "-A", "x", switch=True)
    >>> _parse_value(affine, "true"), _parse_value(affine, "false")
    (True, False)
    >>> _parse_value(affine, "1")
    Traceback (most recent call last):
    ...
    ValueError: --affine: '1' is not true or false
    """
    if param.switch:
        if text not in _SWITCH_WORDS:
            raise ValueError(f"--{param.name}: {text!r} is not true or false")
        return _SWITCH_WORDS[text]
    if param.choices is not None:
        return text
    try:
        return int(text, 10)
    except ValueError:
        raise ValueError(f"--{param.name}: {text!r} is not an integer") from None


def _parse_threads(text: str) -> list[int]:
    """--threads: one count or a comma-separated list."""
    try:
        return [int(item, 10) for item in text.split(",") if item != ""]
    except ValueError:
        raise ValueError(f"--threads: {text!r} is not an integer (list)") from None


def _parse_list(param: Param, text: str) -> list[Value]:
    """A comma-separated list of values of param."""
    return [_parse_value(param, item) for item in text.split(",") if item != ""]


def _parse_config(items: Sequence[str]) -> dict[str, ConfigValue]:
    """--config name=value items as a dict (values that look like integers
    become int; potm.config checks them)."""
    config: dict[str, ConfigValue] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--config {item!r}: expected name=value")
        config[name] = int(value, 10) if value.lstrip("-").isdigit() else value
    return config


def _add_run_options(parser: argparse.ArgumentParser, *, lists: bool) -> None:
    """Options shared by run and sweep (lists: comma-separated values)."""
    plural = " (comma-separated list)" if lists else ""
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="seconds before a run counts as hung and is killed "
                             "(default: 120 + 3 x duration)")
    config_names = ", ".join(f.name for f in CONFIG_FIELDS)
    parser.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                        help=f"C-library setting for the runs, repeatable: {config_names}")
    parser.add_argument(THREADS.flag, "--threads", dest="threads", metavar="N",
                        default="1", help=f"number of threads{plural} (default 1)")


def _add_workload_options(parser: argparse.ArgumentParser, params: Sequence[Param],
                          *, lists: bool) -> None:
    for p in params:
        if p.name == "threads":
            continue
        if p.switch:
            # Alone, as the benchmark takes it (-A: true); or with a value,
            # so that a sweep can list both (--affine false,true).
            metavar = "true|false" + (",..." if lists else "")
            default = "" if p.default is None else f" (default {str(p.default).lower()})"
            parser.add_argument(*_option_names(p), dest=f"param_{p.name}", metavar=metavar,
                                nargs="?", const="true",
                                help=f"{p.help}; alone or true: pass {p.flag}, false: "
                                     f"leave it out{default}")
            continue
        metavar = "|".join(p.choices) if p.choices else p.name.upper()
        if lists:
            metavar += ",..."
        default = "" if p.default is None else f" (default {p.default})"
        parser.add_argument(*_option_names(p), dest=f"param_{p.name}", metavar=metavar,
                            help=f"{p.help}; {p.allowed()}{default}")


def _option_names(p: Param) -> list[str]:
    """The command-line names of a workload parameter: --<name> and the
    benchmark's own option when it is a short one that 'run' and 'sweep'
    do not use themselves (-t is --threads everywhere).

    >>> _option_names(Param("update", "-u", "x")), _option_names(Param("size", "", "x"))
    (['-u', '--update'], ['--size'])
    >>> _option_names(Param("traversals", "-t", "x")), _option_names(Param("ops", "--ops", "x"))
    (['--traversals'], ['--ops'])
    """
    names = [f"--{p.name}"]
    if len(p.flag) == 2 and p.flag.startswith("-") and p.flag != THREADS.flag:
        names.insert(0, p.flag)
    return names


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="potm", description="Run and sweep the potm TM benchmarks.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p_backends = commands.add_parser("backends", help="list the built backends")
    add_lib_dir(p_backends)
    p_backends.add_argument("-v", "--verbose", action="store_true",
                            help="load each backend in a worker and report its name "
                                 "and abort causes")

    p_run = commands.add_parser("run", help="run one benchmark once")
    run_workloads = p_run.add_subparsers(dest="workload", metavar="WORKLOAD", required=True)
    p_sweep = commands.add_parser("sweep", help="run a grid of points, repeated")
    sweep_workloads = p_sweep.add_subparsers(dest="workload", metavar="WORKLOAD",
                                             required=True)
    for w in WORKLOADS.values():
        r = run_workloads.add_parser(w.name, help=w.help)
        add_lib_dir(r)
        r.add_argument("-b", "--backend", required=True, help="the backend")
        _add_run_options(r, lists=False)
        r.add_argument("--json", action="store_true",
                       help="print the whole result as one JSON object")
        _add_workload_options(r, w.params, lists=False)

        s = sweep_workloads.add_parser(w.name, help=w.help)
        add_lib_dir(s)
        s.add_argument("-b", "--backends", required=True, metavar="B,...",
                       help="backends (comma-separated list)")
        _add_run_options(s, lists=True)
        s.add_argument("--repeat", type=int, default=3, help="runs per point (default 3)")
        s.add_argument("--cache", metavar="FILE",
                       help="JSON-lines file of finished runs: resume from it")
        s.add_argument("--csv", metavar="FILE", help="write every run as CSV")
        s.add_argument("--median-csv", metavar="FILE",
                       help="write the medians per point as CSV")
        s.add_argument("--no-progress", action="store_true", help="no progress line")
        s.add_argument("--no-retry-failed", action="store_true",
                       help="keep failed runs found in the cache instead of rerunning them")
        _add_workload_options(s, w.params, lists=True)

    p_list = commands.add_parser(
        "experiments", help="list the experiments 'reproduce' knows and whether they can run")
    add_lib_dir(p_list)
    p_list.add_argument("-v", "--verbose", action="store_true",
                        help="also what each reproduces, its grids and notes")

    p_repro = commands.add_parser(
        "reproduce", help="run experiments: their CSV, figures and a summary (potm.reproduce)")
    p_repro.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                         help="experiment ids or patterns such as 'fig-3.*' "
                              "(default: all; see 'potm experiments')")
    add_reproduce_arguments(p_repro)
    measure.add_parser(commands)
    return parser


def _workload_values(args: argparse.Namespace, *, lists: bool) -> dict[str, Any]:
    """The workload options given on the command line, parsed."""
    values: dict[str, Any] = {}
    for p in WORKLOADS[args.workload].params:
        text = getattr(args, f"param_{p.name}", None)
        if p.name == "threads" or text is None:
            continue
        values[p.name] = _parse_list(p, text) if lists else _parse_value(p, text)
    return values


def _print_result(r: RunResult) -> None:
    status = "ok" if r.ok else "FAILED"
    print(f"{r.workload} on {r.backend}, {r.threads} thread(s): {status}")
    if r.raw is not None:
        if r.metric == "elapsed":  # STAMP: the execution time is the measure
            print(f"  execution time {r.elapsed:.6f} s (lower is better)   "
                  f"{r.throughput:.4g} commits/s")
        else:
            print(f"  throughput {r.throughput:.4g} ops/s   elapsed {r.elapsed:.3f} s   "
                  f"ops {r.ops}")
        causes = ", ".join(f"{k} {v}" for k, v in r.aborts_by_cause.items() if v)
        print(f"  commits {r.commits}   aborts {r.aborts}" + (f" ({causes})" if causes else ""))
        print(f"  verified: {r.verified} {r.verify_msg}".rstrip())
    if not r.ok:
        print(r.describe_failure(), file=sys.stderr)


def _cmd_backends(args: argparse.Namespace) -> int:
    libs = LibraryDir.find(args.lib_dir)
    print(f"libraries in {libs.path}:")
    for b in libs.backends():
        bench = "bench: yes" if libs.has_bench(b) else "bench: not built"
        line = f"  {b:10s} {libs.core_path(b).name:24s} {bench}"
        if args.verbose:
            info = api.backend_info(b, lib_dir=libs.path)
            line += f"   reports itself as {info.name!r}; abort causes: " + \
                ", ".join(info.abort_causes)
        print(line)
    for note in hardware_notes(libs.backends()):
        print(note)
    return EXIT_OK


def hardware_notes(built: Sequence[str], *, rtm: Optional[bool] = None,
                   qemu: Optional[str] = None) -> list[str]:
    """What the HTM backends can do here: whether this CPU has Intel RTM
    (rtm defaults to /proc/cpuinfo's flag), and where the POWER8 backends
    run (qemu defaults to the qemu-ppc64le on PATH).

    >>> hardware_notes(["tl2", "rtm"], rtm=False, qemu=None)[0]
    'hardware: this CPU has no Intel RTM: rtm and pot-rtm run only with htm_fallback_only=1 (every transaction on the fallback; the experiments call it rtm-fallback)'
    >>> "under qemu-ppc64le" in hardware_notes(["tl2"], rtm=True, qemu="/usr/bin/qemu-ppc64le")[1]
    True
    """
    from potm.experiments.variants import cpu_has_rtm
    has_rtm = cpu_has_rtm() if rtm is None else rtm
    qemu = shutil.which("qemu-ppc64le") if qemu is None else qemu
    notes = []
    if has_rtm:
        notes.append("hardware: this CPU has Intel RTM: rtm and pot-rtm run hardware "
                     "transactions")
    else:
        notes.append("hardware: this CPU has no Intel RTM: rtm and pot-rtm run only with "
                     "htm_fallback_only=1 (every transaction on the fallback; the "
                     "experiments call it rtm-fallback)")
    if any(b in built for b in ("rot", "pot-rot")):
        notes.append("          rot and pot-rot: built for this POWER machine")
    else:
        where = (f"tested under qemu-ppc64le ({qemu}), where tbegin. always fails: "
                 "correct, not timed" if qemu else "qemu-ppc64le is not installed "
                 "(scripts/deps.sh installs it)")
        notes.append("          rot and pot-rot (POWER8): not in this directory; 'make "
                     f"test' cross-builds them into build-ppc64le/, {where}")
    return notes


def _cmd_run(args: argparse.Namespace) -> int:
    threads = _parse_threads(args.threads)
    if len(threads) != 1:
        raise ValueError(f"--threads {args.threads}: one number for 'run' (lists are "
                         "for 'sweep')")
    result = api.run(args.workload, backend=args.backend,
                     threads=threads[0], timeout=args.timeout,
                     config=_parse_config(args.config), lib_dir=args.lib_dir,
                     **_workload_values(args, lists=False))
    if args.json:
        print(json.dumps(result.to_dict()))
        if not result.ok:
            print(result.describe_failure(), file=sys.stderr)
    else:
        _print_result(result)
    return EXIT_OK if result.ok else EXIT_FAILED


def _cmd_sweep(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise ValueError(f"--repeat {args.repeat}: expected at least 1")
    table = api.sweep(
        args.workload, backends=[b for b in args.backends.split(",") if b],
        threads=_parse_threads(args.threads), repeat=args.repeat, cache=args.cache,
        progress=not args.no_progress, timeout=args.timeout,
        retry_failed=not args.no_retry_failed, config=_parse_config(args.config),
        lib_dir=args.lib_dir, **_workload_values(args, lists=True))
    medians = table.median()
    if args.csv:
        table.to_csv(args.csv)
    if args.median_csv:
        medians.to_csv(args.median_csv)
    metric = WORKLOADS[args.workload].metric  # elapsed for STAMP (lower is better)
    shown = [*medians.keys, "runs", "failures", metric, "commits", "aborts"]
    print(medians.to_text([c for c in shown if c in medians.columns]))
    failed = table.filter(ok=False)
    for r in failed.results or []:
        print(r.describe_failure(), file=sys.stderr)
    return EXIT_OK if len(failed) == 0 else EXIT_FAILED


def _cmd_experiments(args: argparse.Namespace) -> int:
    from potm.reproduce import listing
    print(listing(args.lib_dir, verbose=args.verbose))
    return EXIT_OK


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from potm.reproduce import run_from_args
    return run_from_args(args, args.experiments)


def main(argv: Optional[Sequence[str]] = None) -> NoReturn:
    """Parse argv (default: sys.argv[1:]), run the command, exit with its status."""
    args = _build_parser().parse_args(argv)
    handlers = {"backends": _cmd_backends, "run": _cmd_run, "sweep": _cmd_sweep,
                "experiments": _cmd_experiments, "reproduce": _cmd_reproduce,
                "measure": measure.run}
    try:
        status = handlers[args.command](args)
    except (ValueError, FileNotFoundError, ModesUnavailable) as exc:
        print(f"potm: error: {exc}", file=sys.stderr)
        status = EXIT_USAGE
    except KeyboardInterrupt:
        print("potm: interrupted", file=sys.stderr)
        status = 130
    sys.exit(status)
