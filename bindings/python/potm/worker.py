"""Worker processes: every run happens in a fresh Python process.

The parent side (``run_bench``, ``describe_backend``) starts a Python
process running ``potm.worker.main`` in its own session, with stdout and stderr on
pipes, and waits for it with a time limit.  The child side (``main``)
dlopens the library with cffi and calls into it.  Whatever the C code
prints on file descriptor 1 is what the parent reads and parses; Python's
own ``sys.stdout`` is pointed at stderr in the child so that nothing else
can land there.

A child killed by a signal (a crash) or stopped at its time limit (a hang:
the whole process group gets SIGKILL) comes back as an ``Outcome`` that
says so, with the tail of its stderr; the caller's interpreter is never at
risk.  If the caller is interrupted (Ctrl-C) the child is killed before the
exception propagates, and a child whose parent dies is killed by the kernel
(PR_SET_PDEATHSIG).

Child command lines, to debug by hand (``Outcome.command`` has the exact
one of a run):
    python -c 'from potm.worker import main; main()' bench <libpotm-bench-b.so> intset -t 2
    python -c 'from potm.worker import main; main()' describe <libpotm-b.so>
    python -c 'from potm.worker import main; main()' checkenv <libpotm-b.so>

Example:
    >>> out = run_bench(Path("build/libpotm-bench-tl2.so"),
    ...                 ["intset", "-t", "2", "-d", "100"], timeout=60)  # doctest: +SKIP
    >>> out.returncode, out.stdout[:10]                                  # doctest: +SKIP
    (0, '{"bench": ')
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NoReturn, Optional, Sequence

#: Exit status of a worker that could not load its library or symbol.
SETUP_FAILED = 125

#: How much of a failed run's stderr a report keeps.
STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 3000

_PR_SET_PDEATHSIG = 1

#: How a worker starts: like ``python -m potm.worker`` but without runpy
#: importing the module a second time (the package imports it already).
_CHILD_MAIN = "from potm.worker import main; main()"


@dataclass(frozen=True)
class Outcome:
    """What a worker process did: exit status or signal, output, time."""

    command: tuple[str, ...]
    pid: int
    returncode: Optional[int]  # None if it was killed at the time limit
    stdout: str
    stderr: str
    timed_out: bool
    timeout: float
    wall_time: float

    @property
    def signal(self) -> Optional[str]:
        """The name of the signal that killed the worker ("SIGSEGV"), if any."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

    def stderr_tail(self) -> str:
        """The last lines of stderr (at most STDERR_TAIL_LINES lines)."""
        lines = self.stderr.rstrip("\n").splitlines()[-STDERR_TAIL_LINES:]
        return "\n".join(lines)[-STDERR_TAIL_CHARS:]

    def problem(self) -> Optional[str]:
        """Why the worker did not finish normally, or None if it exited.

        Covers the time limit, death by signal and failure to load the
        library; an exit status is the caller's to interpret.
        """
        if self.timed_out:
            return (f"timed out after {self.timeout:g} s (hang?); "
                    "the worker was killed")
        if self.signal is not None:
            return f"the worker crashed: killed by {self.signal}"
        if self.returncode == SETUP_FAILED:
            return "the worker could not load the library"
        return None


def _package_root() -> str:
    """The directory holding the potm package (for the child's sys.path)."""
    return str(Path(__file__).resolve().parent.parent)


def _spawn(args: Sequence[str], *, timeout: float,
           env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Run a worker with args and wait at most timeout seconds."""
    child_env = dict(os.environ if env is None else env)
    path = child_env.get("PYTHONPATH", "")
    child_env["PYTHONPATH"] = _package_root() + (os.pathsep + path if path else "")
    command = (sys.executable, "-c", _CHILD_MAIN, "--parent", str(os.getpid()), *args)
    start = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=child_env, start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, err = proc.communicate()
    except BaseException:
        _kill_group(proc)
        proc.communicate()
        raise
    return Outcome(
        command=command,
        pid=proc.pid,
        returncode=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        timeout=timeout,
        wall_time=time.monotonic() - start,
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's process group (it leads its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_bench(bench_lib: Path, argv: Sequence[str], *, timeout: float,
              env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Call potm_bench_main(argv) of bench_lib in a fresh worker.

    env is the worker's whole environment (default: this process's).
    """
    return _spawn(["bench", str(bench_lib), *argv], timeout=timeout, env=env)


def describe_backend(core_lib: Path, *, timeout: float = 60.0,
                     env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Ask a worker for a backend library's name, default configuration and
    abort-cause names; stdout is one JSON object."""
    return _spawn(["describe", str(core_lib)], timeout=timeout, env=env)


def check_environment(core_lib: Path, *, timeout: float = 60.0,
                      env: Optional[Mapping[str, str]] = None) -> Outcome:
    """Have a worker with environment env parse its POTM_* variables as
    tm_init would (tm_config_from_env of core_lib); stdout is one JSON
    object: ok, error (tm_last_error) and modes (tm_mode_name's list, or
    null if the library has none).  Exit status SETUP_FAILED if the library
    does not export the configuration API."""
    return _spawn(["checkenv", str(core_lib)], timeout=timeout, env=env)


def environment_report(outcome: Outcome) -> Optional[dict[str, Any]]:
    """The JSON object a check_environment worker printed; None if it
    failed or printed none."""
    if outcome.problem() is not None or outcome.returncode != 0:
        return None
    try:
        report = json.loads(outcome.stdout)
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


# ---------------------------------------------------------------- child side

def _fail_setup(message: str) -> NoReturn:
    """Report a setup failure on stderr and exit with SETUP_FAILED."""
    sys.stderr.write(f"potm.worker: {message}\n")
    sys.stderr.flush()
    os._exit(SETUP_FAILED)


def _die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when its parent exits."""
    from potm import _ffi
    libc = _ffi.open_libc()
    libc.prctl(_PR_SET_PDEATHSIG, _ffi.ffi.cast("unsigned long", signal.SIGKILL))
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(SETUP_FAILED)


def _child_bench(lib_path: str, args: list[str]) -> NoReturn:
    """Child: dlopen lib_path, call potm_bench_main(args), exit with its status."""
    from potm import _ffi
    if not args:
        _fail_setup("bench: no benchmark name given")
    try:
        lib = _ffi.open_bench(lib_path)
        bench_main = lib.potm_bench_main
    except (OSError, AttributeError) as exc:
        _fail_setup(f"cannot load potm_bench_main from {lib_path}: {exc}")
    argv, keep_alive = _ffi.make_argv(args)
    status = bench_main(len(args), argv)
    _ffi.open_libc().fflush(_ffi.ffi.NULL)  # C stdio is fully buffered on a pipe
    del keep_alive
    sys.stderr.flush()
    os._exit(status & 0xFF)


def _child_describe(lib_path: str) -> NoReturn:
    """Child: print {"backend", "config_default", "abort_causes"} as JSON."""
    from potm import _ffi
    try:
        lib = _ffi.open_core(lib_path)
        name = _ffi.string(lib.tm_backend_name())
        cfg = _ffi.ffi.new("tm_config_t *")
        lib.tm_config_default(cfg)
        causes = []
        for cause in range(256):
            cause_name = lib.tm_abort_cause_name(cause)
            if cause_name == _ffi.ffi.NULL:
                break
            causes.append(_ffi.string(cause_name))
    except (OSError, AttributeError) as exc:
        _fail_setup(f"cannot load the backend API from {lib_path}: {exc}")
    report = {"backend": name, "config_default": _ffi.config_to_dict(cfg[0]),
              "abort_causes": causes}
    os.write(1, (json.dumps(report) + "\n").encode())
    os._exit(0)


def _child_check_environment(lib_path: str) -> NoReturn:
    """Child: parse this process's POTM_* variables with the library's
    tm_config_from_env; print {"ok", "error", "modes"} as JSON."""
    from potm import _ffi
    from potm.modes import loaded_names
    try:
        lib = _ffi.open_core(lib_path)
        config_default = lib.tm_config_default
        config_from_env = lib.tm_config_from_env
        last_error = lib.tm_last_error
    except (OSError, AttributeError) as exc:
        _fail_setup(f"cannot load the configuration API from {lib_path}: {exc}")
    cfg = _ffi.ffi.new("tm_config_t *")
    config_default(cfg)
    ok = config_from_env(cfg) == 0
    report = {"ok": ok, "error": "" if ok else _ffi.string(last_error()),
              "modes": loaded_names(lib)}
    os.write(1, (json.dumps(report) + "\n").encode())
    os._exit(0)


def main(argv: Optional[list[str]] = None) -> NoReturn:
    """Entry point of a worker process (argv: default sys.argv[1:])."""
    args = list(sys.argv[1:] if argv is None else argv)
    sys.stdout = sys.stderr  # fd 1 belongs to the C code
    faulthandler.enable()  # a crash leaves a Python traceback on stderr
    if len(args) >= 2 and args[0] == "--parent":
        if sys.platform.startswith("linux"):
            _die_with_parent(int(args[1]))
        args = args[2:]
    if len(args) >= 2 and args[0] == "bench":
        _child_bench(args[1], args[2:])
    if len(args) == 2 and args[0] == "describe":
        _child_describe(args[1])
    if len(args) == 2 and args[0] == "checkenv":
        _child_check_environment(args[1])
    _fail_setup("usage: python -m potm.worker [--parent PID] "
                "bench LIB NAME [ARGS...] | describe LIB | checkenv LIB")


if __name__ == "__main__":  # python -m potm.worker ... works too (runpy warns)
    main()
