"""The modes of the pot backend (POTM_MODE), as the C library names them.

The one list is the C library's: ``tm_mode_name(i)`` (potm/config.h),
exported by every backend library, names mode i and returns NULL past the
last.  ``pot_modes`` reads it from a backend library of the library
directory (potm._lib) when something needs the names: a Pot-mode variant
of an experiment, a ``mode`` setting or a POTM_MODE variable to check.
Nothing reads it at import, so importing the package, its doctests and
the command line's --help work without any library.

Example:
    >>> pot_modes("build")                                 # doctest: +SKIP
    ('pot', 'pot-fast', 'pot-ordered', 'pogl', 'destm')
    >>> pot_modes("/nonexistent")                          # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    potm.modes.ModesUnavailable: potm: the pot backend's modes (POTM_MODE) are named by the C library (tm_mode_name), and there is none: ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from potm._lib import LibraryDir, PathLike

#: The library function that names the modes.
MODE_NAME_SYMBOL = "tm_mode_name"

#: The backend the modes belong to: its library is read first.
POT_BACKEND = "pot"

#: More modes than any library has: the loop's bound if NULL never comes.
_MAX_MODES = 256

#: The names read, by library file: (resolved path, modification time).
_READ: dict[tuple[str, int], tuple[str, ...]] = {}


class ModesUnavailable(LookupError):
    """The mode names cannot be read: there is no library directory, or
    its library cannot be loaded or does not export tm_mode_name."""


def pot_modes(lib_dir: Optional[PathLike] = None) -> tuple[str, ...]:
    """The pot backend's modes, in the C library's order, read from a
    backend library of the library directory lib_dir (default: as
    potm._lib finds it: $POTMPY_LIB_DIR or the installed libraries); the
    pot backend's library if it is built, else any backend's (each has
    tm_mode_name).  ModesUnavailable says what is missing."""
    try:
        libs = LibraryDir.find(lib_dir)
    except FileNotFoundError as exc:
        raise ModesUnavailable(
            f"potm: the pot backend's modes (POTM_MODE) are named by the C library "
            f"({MODE_NAME_SYMBOL}), and there is none: {exc}") from None
    built = libs.backends()
    backend = POT_BACKEND if POT_BACKEND in built else built[0]
    return library_modes(libs.core_path(backend))


def library_modes(library: Path) -> tuple[str, ...]:
    """tm_mode_name(0), tm_mode_name(1)... of the backend library file,
    up to its NULL; read once per file (and again when the file changes)."""
    path = library.resolve()
    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError as exc:
        raise ModesUnavailable(f"potm: cannot read the pot backend's modes from "
                               f"{library}: {exc}") from None
    if key not in _READ:
        _READ[key] = _read_names(path)
    return _READ[key]


def _lacks_symbol(path: Path) -> ModesUnavailable:
    return ModesUnavailable(
        f"potm: {path} does not export {MODE_NAME_SYMBOL}, which names the pot "
        "backend's modes (POTM_MODE): it is not a potm backend library of this "
        "version; build the libraries of this checkout")


def _read_names(path: Path) -> tuple[str, ...]:
    """dlopen path in this process and call tm_mode_name until NULL (it
    only returns constant strings: no library state is touched).  A
    library this process cannot load (each backend library takes static
    TLS, of which a process has little) is asked by a worker instead."""
    from potm import _ffi
    try:
        lib = _ffi.open_core(str(path))
    except OSError as exc:
        return _names_from_worker(path, str(exc))
    names = loaded_names(lib)
    if names is None:
        raise _lacks_symbol(path)
    return _checked(path, names)


def loaded_names(lib: Any) -> Optional[list[str]]:
    """tm_mode_name(0), tm_mode_name(1)... of a loaded library (potm._ffi)
    up to its NULL, or None if the library does not export it."""
    from potm import _ffi
    try:
        name_of = getattr(lib, MODE_NAME_SYMBOL)
    except AttributeError:
        return None
    names = []
    for i in range(_MAX_MODES):
        name = name_of(i)
        if name == _ffi.ffi.NULL:
            break
        names.append(_ffi.string(name))
    return names


def _names_from_worker(path: Path, why: str) -> tuple[str, ...]:
    """The list as a worker process reports it (potm.worker's checkenv)."""
    from potm import worker
    outcome = worker.check_environment(path)
    report = worker.environment_report(outcome)
    if report is None:
        raise ModesUnavailable(
            f"potm: cannot load {path} to read the pot backend's modes (POTM_MODE): "
            f"{why}; a worker could not either: "
            f"{outcome.problem() or outcome.stderr_tail() or 'no report'}")
    names = report.get("modes")
    if names is None:
        raise _lacks_symbol(path)
    return _checked(path, [str(n) for n in names])


def _checked(path: Path, names: list[str]) -> tuple[str, ...]:
    if not names:
        raise ModesUnavailable(f"potm: {path}'s {MODE_NAME_SYMBOL} names no mode")
    return tuple(names)
