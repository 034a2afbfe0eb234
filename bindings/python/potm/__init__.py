"""potm: run and sweep the potm transactional-memory backends from Python.

Each run executes in a fresh worker process that loads the backend's
benchmark library with cffi, so a crash or a hang is a reported failure,
never a dead interpreter or notebook.

Example:
    >>> import potm
    >>> potm.backends()                                          # doctest: +SKIP
    ['seq', 'gl', 'tl2']
    >>> r = potm.run("intset", backend="tl2", threads=2, structure="rb",
    ...              update=20, duration=200)                    # doctest: +SKIP
    >>> t = potm.sweep("intset", backends=["gl", "tl2"], threads=[1, 2],
    ...                structure="rb", update=[0, 20], duration=200,
    ...                repeat=3, cache="intset.jsonl")           # doctest: +SKIP
    >>> t.median().to_csv("intset.csv")                          # doctest: +SKIP

The libraries are found inside the installed package, or in the directory
named by POTMPY_LIB_DIR (a CMake build directory), or in lib_dir=... given
to any function (see potm._lib).
"""

from __future__ import annotations

from potm.api import BackendInfo, backend_info, backends, has_bench, run, sweep
from potm.config import CONFIG_FIELDS
from potm.result import RunError, RunResult
from potm.table import SweepTable
from potm.workloads import WORKLOADS

__version__ = "0.1.0"

__all__ = [
    "BackendInfo", "CONFIG_FIELDS", "RunError", "RunResult", "SweepTable", "WORKLOADS",
    "backend_info", "backends", "has_bench", "run", "sweep", "__version__",
]
