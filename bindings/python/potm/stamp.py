"""STAMP input sets: from a set's name to the application's options.

A STAMP workload's ``size`` (test, small, small-high, real, real-high,
paper, paper-high) names one of the input sets of ``stamp/inputs.py``, the
project's table of STAMP arguments (stamp/README.md).  That script is asked for the set's
options (``inputs.py args <app> <set> --dir <input dir> --json``); it
generates the input files the set needs (kmeans points, labyrinth mazes,
yada meshes) on first use and keeps them in the input directory, each with
a stamp of its recipe, size and checksum; a file that does not match its
stamp (deleted, damaged) is generated again.  The build already generates
the ``test`` set's files into ``<build>/stamp/inputs``.

This process remembers a set's options only together with the state (size,
modification time, inode) of the files they rely on: once one of them
changes or goes, the next run asks inputs.py again, which checks the files
against their stamps.

Where things are:

* the input directory: ``$POTMPY_STAMP_INPUT_DIR``, else ``stamp/inputs``
  under the library directory (a CMake build directory), or for an
  installed package's libraries ``~/.cache/potm/stamp-inputs``
  (``$XDG_CACHE_HOME``);
* ``inputs.py``: ``$POTMPY_STAMP_DIR/inputs.py``, else the ``stamp/``
  directory of the checkout this package lives in, else the copy an
  installed package carries (``potm/_stamp``, with yada's mesh generator).

Example:
    >>> set_options("vacation", "test", Path("build/stamp/inputs"))  # doctest: +SKIP
    ['-n4', '-q60', '-u90', '-r4096', '-t16384']
    >>> default_timeout("paper") > default_timeout("test")
    True
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

from potm._lib import _PACKAGE_LIB_DIR

#: Environment variables naming the input directory and the stamp/ sources.
INPUT_DIR_ENV = "POTMPY_STAMP_INPUT_DIR"
STAMP_DIR_ENV = "POTMPY_STAMP_DIR"

#: Time limits of a run (seconds): the paper sets take minutes on 2 cores.
SMALL_SET_TIMEOUT_S = 300.0
PAPER_SET_TIMEOUT_S = 3600.0

#: Generating a paper set's inputs (a million-point mesh) takes a while.
GENERATE_TIMEOUT_S = 1800.0


def default_timeout(size: str) -> float:
    """The default time limit of one run at this input set.

    >>> default_timeout("test")
    300.0
    """
    large = size.startswith("paper") or size.startswith("real")
    return PAPER_SET_TIMEOUT_S if large else SMALL_SET_TIMEOUT_S


#: What an installed package carries of stamp/ (bindings/python/CMakeLists.txt).
_PACKAGE_STAMP_DIR = Path(__file__).resolve().parent / "_stamp"


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def input_dir(lib_dir: Path) -> Path:
    """The directory of STAMP's input files for libraries in lib_dir: beside
    a build's libraries, or the user's cache for an installed package's.

    >>> input_dir(Path("/b")) == Path(os.environ.get(INPUT_DIR_ENV, "/b/stamp/inputs"))
    True
    """
    from_env = os.environ.get(INPUT_DIR_ENV, "")
    if from_env:
        return Path(from_env)
    if lib_dir.resolve() == _PACKAGE_LIB_DIR:
        return _cache_home() / "potm" / "stamp-inputs"
    return lib_dir / "stamp" / "inputs"


def inputs_script() -> Path:
    """stamp/inputs.py: $POTMPY_STAMP_DIR's, the checkout's, else the
    installed package's copy; FileNotFoundError saying how to point at it."""
    from_env = os.environ.get(STAMP_DIR_ENV, "")
    if from_env:
        candidates = [Path(from_env) / "inputs.py"]
    else:
        candidates = [Path(__file__).resolve().parents[3] / "stamp" / "inputs.py",
                      _PACKAGE_STAMP_DIR / "inputs.py"]
    for script in candidates:
        if script.is_file():
            return script
    raise FileNotFoundError(
        f"potm: STAMP's input table {candidates[0]} is not there: run STAMP from a potm "
        f"checkout or an installed package, or set {STAMP_DIR_ENV}=<checkout>/stamp")


def _inputs_environment() -> dict[str, str]:
    """inputs.py's environment: an installed package's yada mesh generator
    (a build's is found beside its input directory)."""
    env = dict(os.environ)
    meshgen = _PACKAGE_STAMP_DIR / "yada-meshgen"
    if "STAMP_MESHGEN" not in env and meshgen.is_file():
        env["STAMP_MESHGEN"] = str(meshgen)
    return env


#: A file's state as far as this process can see without reading it: size,
#: modification time and inode (None for a missing file).
FileState = Optional[tuple[int, int, int]]

#: (inputs.py, app, size, input dir) -> (options, the files they rely on,
#: their states when inputs.py vouched for them).
_known: dict[tuple[str, str, str, str], tuple[list[str], list[str], list[FileState]]] = {}


def _state(path: str) -> FileState:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _states(paths: Sequence[str]) -> list[FileState]:
    return [_state(p) for p in paths]


def clear_cache() -> None:
    """Forget every set's options (the next run asks inputs.py again)."""
    _known.clear()


def set_options(app: str, size: str, inputs: Path) -> list[str]:
    """The options of app at input set size, its input files made (again)
    if needed in the directory inputs.  RuntimeError if inputs.py fails.

    The answer is remembered while the files it relies on stay as they
    were; a deleted or changed file sends the next call to inputs.py,
    which checks the files against their stamps and regenerates them."""
    script = inputs_script()
    key = (str(script), app, size, str(inputs))
    known = _known.get(key)
    if known is not None and None not in known[2] and _states(known[1]) == known[2]:
        return list(known[0])
    command = [sys.executable, str(script), "args", app, size, "--dir", str(inputs),
               "--json"]
    proc = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=GENERATE_TIMEOUT_S, env=_inputs_environment())
    if proc.returncode != 0:
        raise RuntimeError(f"potm: {' '.join(command)} failed (exit status "
                           f"{proc.returncode}):\n{proc.stderr.strip()}")
    try:
        answer = json.loads(proc.stdout)
        options = [str(a) for a in answer["args"]]
        files = [str(f) for f in answer["files"]]
    except (ValueError, KeyError, TypeError):
        raise RuntimeError(f"potm: {' '.join(command)} printed no JSON answer:\n"
                           f"{proc.stdout.strip()[:500]}") from None
    _known[key] = (options, files, _states(files))
    return list(options)
