"""Where the potm C libraries are.

A *library directory* holds, for each built backend ``b``, the backend
library ``libpotm-<b>.so`` and, once the benchmarks are built, the benchmark
library ``libpotm-bench-<b>.so`` (which exports ``potm_bench_main``), and
the libraries of the larger programs, one per program and backend:
``libpotm-bench-<b>-<app>.so`` for each STAMP application and
``libpotm-bench-<b>-stmbench7.so`` (they export ``potm_bench_main`` too).
It is,
in this order of precedence:

1. the ``lib_dir`` given explicitly to a function (or ``--lib-dir`` on the
   command line);
2. the directory named by the environment variable ``POTMPY_LIB_DIR``
   (developer mode: point it at a CMake build directory such as
   ``<checkout>/build`` and use the package without installing it);
3. ``potm/_libs`` inside the installed package (``pip install``).

The variable is not called ``POTM_...``: the C library treats every
``POTM_*`` variable as a run-time setting and refuses unknown ones.

Example:
    >>> from potm._lib import LibraryDir
    >>> libs = LibraryDir.find("build")  # a CMake build dir  # doctest: +SKIP
    >>> libs.backends()                              # doctest: +SKIP
    ['seq', 'gl', 'tl2']
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

#: The environment variable naming a library directory.
LIB_DIR_ENV = "POTMPY_LIB_DIR"

#: The backends in the order the project reports them (DESIGN.md); a
#: backend found on disk that is not listed here comes after these, sorted.
BACKEND_ORDER: tuple[str, ...] = (
    "seq", "gl", "tl2", "2pl", "silo", "pot", "rtm", "pot-rtm", "rot", "pot-rot",
)

_PACKAGE_LIB_DIR = Path(__file__).resolve().parent / "_libs"
_CORE_PREFIX = "libpotm-"
_BENCH_PREFIX = "libpotm-bench-"
_SUFFIX = ".so"

PathLike = Union[str, "os.PathLike[str]"]


def _backend_sort_key(name: str) -> tuple[int, str]:
    """Order backends as BACKEND_ORDER does, unknown ones last by name."""
    if name in BACKEND_ORDER:
        return (BACKEND_ORDER.index(name), name)
    return (len(BACKEND_ORDER), name)


@dataclass(frozen=True)
class LibraryDir:
    """A directory of potm libraries.

    Example:
        >>> libs = LibraryDir(Path("build"))
        >>> libs.core_path("tl2").name
        'libpotm-tl2.so'
        >>> libs.bench_path("tl2").name
        'libpotm-bench-tl2.so'
    """

    path: Path

    @staticmethod
    def find(lib_dir: Optional[PathLike] = None) -> LibraryDir:
        """The library directory to use (see the module docstring).

        Raises FileNotFoundError, saying where it looked, if there is none.
        """
        if lib_dir is not None:
            return LibraryDir._checked(Path(lib_dir), "the lib_dir argument")
        from_env = os.environ.get(LIB_DIR_ENV, "")
        if from_env:
            return LibraryDir._checked(Path(from_env), f"${LIB_DIR_ENV}")
        packaged = LibraryDir(_PACKAGE_LIB_DIR)
        if packaged.path.is_dir() and packaged.backends():
            return packaged
        raise FileNotFoundError(
            "potm: no C libraries found: the package was not installed with "
            f"its libraries ({_PACKAGE_LIB_DIR} is missing or empty) and "
            f"${LIB_DIR_ENV} is not set.  Install with "
            "'pip install ./bindings/python', or build with CMake and set "
            f"{LIB_DIR_ENV}=<build dir> (or pass lib_dir=...)."
            + _hint_source_build()
        )

    @staticmethod
    def _checked(path: Path, origin: str) -> LibraryDir:
        """A LibraryDir for path, which origin named; it must hold a backend."""
        libs = LibraryDir(path.expanduser().resolve())
        if not libs.path.is_dir():
            raise FileNotFoundError(
                f"potm: {origin} names {path}, which is not a directory")
        if not libs.backends():
            raise FileNotFoundError(
                f"potm: {origin} names {libs.path}, which holds no "
                f"{_CORE_PREFIX}<backend>{_SUFFIX} library (is it a built "
                "potm CMake build directory?)")
        return libs

    def core_path(self, backend: str) -> Path:
        """The backend library libpotm-<backend>.so (may not exist)."""
        return self.path / f"{_CORE_PREFIX}{backend}{_SUFFIX}"

    def bench_path(self, backend: str, program: str = "") -> Path:
        """The benchmark library libpotm-bench-<backend>.so, or with a
        program (a STAMP application, stmbench7: a program of its own, see
        Workload.library) libpotm-bench-<backend>-<program>.so; it may not
        exist.

        >>> LibraryDir(Path("build")).bench_path("tl2", "vacation").name
        'libpotm-bench-tl2-vacation.so'
        """
        name = f"{backend}-{program}" if program else backend
        return self.path / f"{_BENCH_PREFIX}{name}{_SUFFIX}"

    def backends(self) -> list[str]:
        """The backends whose backend library is in this directory, in
        report order."""
        found = []
        for entry in self.path.glob(f"{_CORE_PREFIX}*{_SUFFIX}"):
            name = entry.name[len(_CORE_PREFIX):-len(_SUFFIX)]
            if entry.name.startswith(_BENCH_PREFIX) or not name:
                continue
            found.append(name)
        return sorted(found, key=_backend_sort_key)

    def has_bench(self, backend: str, program: str = "") -> bool:
        """Whether the benchmark library of backend (for program, if given)
        is in this directory."""
        return self.bench_path(backend, program).is_file()


def _hint_source_build() -> str:
    """A hint naming the checkout's build directory, if there is one."""
    checkout_build = Path(__file__).resolve().parents[3] / "build"
    if (checkout_build / "CMakeCache.txt").is_file():
        return f"  (A build directory exists at {checkout_build}.)"
    return ""
