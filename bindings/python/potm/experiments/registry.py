"""Where the experiments are defined: one file each, read at run time.

Every figure or table potm reproduces is one file, ``<name>.py``, in a
definitions directory; the file holds its whole definition (grid,
variants, rendering) as ``EXPERIMENT = Experiment(...)`` and, run as a
script, reproduces it (potm.reproduce.script_main).  The package holds
only the machinery.  The directory is, first found:

* ``$POTMPY_EXPERIMENTS_DIR``;
* in a checkout, the repository's ``experiments/`` (beside ``bindings/``);
* in an installed package, the copy it carries (``potm/_experiments``,
  bindings/python/CMakeLists.txt).

Files whose name starts with ``_`` are not experiments.  The registry
lists the experiments in the natural order of their ids (``fig-3.7``
before ``fig-3.8`` before ``fig-3.10``): an experiment that takes the runs
of another (fig-3.8 those of fig-3.7, fig-3.12 those of fig-3.10) comes
after it.

Example:
    >>> sorted(["fig-3.10", "overhead", "fig-3.8", "fig-7-1"], key=id_order)
    ['fig-3.8', 'fig-3.10', 'fig-7-1', 'overhead']
    >>> experiment("fig-3.11").requires
    ('tl2',)
    >>> [e.id for e in select(["fig-3.1*"])]
    ['fig-3.10', 'fig-3.11', 'fig-3.12', 'fig-3.13', 'fig-3.14', 'fig-3.14-rtm']
"""

from __future__ import annotations

import fnmatch
import functools
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Optional, Sequence, Union

from potm.experiments.model import Experiment

#: Environment variable naming another definitions directory.
EXPERIMENTS_DIR_ENV = "POTMPY_EXPERIMENTS_DIR"

_HERE = Path(__file__).resolve().parent        # .../potm/experiments
_PACKAGE_DIR = _HERE.parent                    # .../potm
#: The copy an installed package carries.
PACKAGE_EXPERIMENTS = _PACKAGE_DIR / "_experiments"


def checkout_experiments() -> Optional[Path]:
    """The experiments/ directory of the checkout this package lives in
    (bindings/python/potm), or None for an installed package."""
    python_dir = _PACKAGE_DIR.parent
    if python_dir.name != "python" or python_dir.parent.name != "bindings":
        return None
    candidate = python_dir.parent.parent / "experiments"
    return candidate if candidate.is_dir() else None


def definitions_dir() -> Path:
    """The directory the experiments are read from (see the module
    docstring); FileNotFoundError saying where it looked."""
    from_env = os.environ.get(EXPERIMENTS_DIR_ENV, "")
    if from_env:
        path = Path(from_env)
        if not path.is_dir():
            raise FileNotFoundError(f"{EXPERIMENTS_DIR_ENV}={from_env}: not a directory")
        return path
    for candidate in (checkout_experiments(), PACKAGE_EXPERIMENTS):
        if candidate is not None and candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"potm: no experiment definitions: neither a checkout's experiments/ nor "
        f"{PACKAGE_EXPERIMENTS}; set {EXPERIMENTS_DIR_ENV}=<checkout>/experiments")


def id_order(experiment_id: str) -> tuple[Union[int, str], ...]:
    """The sort key of an id: its numbers compare as numbers."""
    parts = re.split(r"(\d+)", experiment_id)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def definition_files(directory: Path) -> list[Path]:
    """The definition files of a directory (not those named _*)."""
    return sorted(p for p in directory.glob("*.py") if not p.name.startswith("_"))


def load_definition(path: Path) -> Experiment:
    """The EXPERIMENT a definition file defines; ValueError naming the file
    if it cannot be loaded or defines none.

    A definition may import what its family of figures shares from a
    module named _*.py beside it (``from _doppel import OCC``), as it
    does when run as a script: its directory is on sys.path while it
    loads."""
    name = f"potm_experiment_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # dataclasses defined there look their module up
    directory = str(path.parent)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ValueError(f"experiment definition {path} failed to load: "
                         f"{type(exc).__name__}: {exc}") from exc
    finally:
        if added:
            sys.path.remove(directory)
    exp = getattr(module, "EXPERIMENT", None)
    if not isinstance(exp, Experiment):
        raise ValueError(f"experiment definition {path} defines no EXPERIMENT = "
                         "Experiment(...)")
    return exp


@functools.lru_cache(maxsize=None)
def _load_all(directory: Path) -> dict[str, Experiment]:
    found: dict[str, tuple[Experiment, Path]] = {}
    for path in definition_files(directory):
        exp = load_definition(path)
        if exp.id in found:
            raise ValueError(f"experiment id {exp.id!r} is defined twice: in "
                             f"{found[exp.id][1].name} and {path.name}")
        found[exp.id] = (exp, path)
    return {i: found[i][0] for i in sorted(found, key=id_order)}


def experiments() -> dict[str, Experiment]:
    """Every experiment by id, in registry order."""
    return dict(_load_all(definitions_dir().resolve()))


def experiment(experiment_id: str) -> Experiment:
    """The experiment with this id; ValueError listing the ids otherwise."""
    known = experiments()
    try:
        return known[experiment_id]
    except KeyError:
        raise ValueError(f"unknown experiment {experiment_id!r}; known: "
                         f"{', '.join(known)}") from None


def select(patterns: Optional[Sequence[str]] = None) -> list[Experiment]:
    """The experiments whose ids match any of the patterns (exact ids or
    shell patterns such as 'fig-3.*'), in registry order; all of them when
    patterns is empty.  ValueError for a pattern that matches none."""
    known = experiments()
    if not patterns:
        return list(known.values())
    chosen: set[str] = set()
    for pattern in patterns:
        matched = [i for i in known if fnmatch.fnmatchcase(i, pattern)]
        if not matched:
            raise ValueError(f"no experiment matches {pattern!r}; known: "
                             f"{', '.join(known)}")
        chosen.update(matched)
    return [e for i, e in known.items() if i in chosen]
