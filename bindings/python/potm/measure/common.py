"""What the measurement drivers share: variants, configurations, run files.

A *config* is ``variant:threads``.  A variant names a binary of the build
directory and the settings it runs under:

* a backend (``seq``, ``gl``, ``tl2``, ``rtm``..., for STMBench7 also its
  lock builds ``coarse`` and ``medium``): that backend's binary as is;
* a mode of the pot backend (``pot``, ``pot-fast``, ``pot-ordered``,
  ``pogl``, ``destm``: the C library's list, read from the build
  directory's libraries, potm.modes): the pot binary with ``POTM_MODE`` set;
* ``MODE@ORDER`` (``pot@round-robin``, ``pot@weighted``): a pot mode under
  another sequencer order (``POTM_SEQUENCER``);
* ``tl2-inplace``: tl2 with serial mode off (``POTM_SERIAL=0``): its long
  transactions go on in place, instrumented, instead of restarting alone
  on the uninstrumented clone.

Lists are given either as one comma-separated word or as several words
(``--configs seq:1,tl2:2`` and ``--configs seq:1 tl2:2`` mean the same).

Example:
    >>> variant_settings("pot@round-robin", "build")         # doctest: +SKIP
    ('pot', {'POTM_MODE': 'pot', 'POTM_SEQUENCER': 'round-robin'})
    >>> variant_settings("tl2-inplace")
    ('tl2', {'POTM_SERIAL': '0'})
    >>> parse_configs(["seq:1,tl2:2", "pot-fast:2"])
    [('seq', 1), ('tl2', 2), ('pot-fast', 2)]
    >>> parse_configs(["tl2"])
    Traceback (most recent call last):
    ...
    ValueError: config 'tl2': expected variant:threads, such as tl2:2
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from potm._lib import LIB_DIR_ENV, PathLike
from potm.modes import ModesUnavailable
from potm.modes import pot_modes as library_pot_modes

#: Variants that are a backend run with settings of its own.
ENV_VARIANTS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "tl2-inplace": ("tl2", {"POTM_SERIAL": "0"}),
}

#: One run's JSON record, as a benchmark binary prints it.
Record = dict[str, Any]


def pot_modes(build: Optional[PathLike] = None) -> tuple[str, ...]:
    """The runtime modes of the pot backend (POTM_MODE), as the libraries
    of the build directory build name them (potm.modes); none if it has
    no library that can (for ordering rows only: variant_settings needs
    them and says what is missing)."""
    try:
        return library_pot_modes(build if build is not None else default_build())
    except ModesUnavailable:
        return ()


def variant_settings(variant: str, build: Optional[PathLike] = None
                     ) -> tuple[str, dict[str, str]]:
    """The backend whose binary runs variant, and the environment variables
    that make it that variant; build: the build directory (whose libraries
    name the Pot modes)."""
    if variant in ENV_VARIANTS:
        backend, settings = ENV_VARIANTS[variant]
        return backend, dict(settings)
    mode, _, order = variant.partition("@")
    if mode in library_pot_modes(build if build is not None else default_build()):
        env = {"POTM_MODE": mode}
        if order:
            env["POTM_SEQUENCER"] = order
        return "pot", env
    return variant, {}


def split_words(items: Sequence[str]) -> list[str]:
    """Words given as several arguments or comma-separated, in order.

    >>> split_words(["r,rw", "w"])
    ['r', 'rw', 'w']
    """
    return [w for item in items for w in item.split(",") if w]


def parse_configs(items: Sequence[str]) -> list[tuple[str, int]]:
    """variant:threads items as (variant, threads) pairs; ValueError for a
    malformed one."""
    out = []
    for item in split_words(items):
        variant, sep, threads = item.rpartition(":")
        if not sep or not variant or not threads.isdigit() or int(threads) < 1:
            raise ValueError(f"config {item!r}: expected variant:threads, such as tl2:2")
        out.append((variant, int(threads)))
    return out


def default_build() -> str:
    """The build directory of the binaries: $POTMPY_LIB_DIR (a CMake build
    directory) when set, else ./build."""
    return os.environ.get(LIB_DIR_ENV) or "build"


def read_runs(path: str | Path) -> list[Record]:
    """The runs of a JSON-lines file written by a matrix, one dict each."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def append_run(out: Any, record: Record) -> None:
    """Append one run to the open JSON-lines file out, flushed: an
    interrupted matrix keeps what it measured."""
    out.write(json.dumps(record) + "\n")
    out.flush()


def geomean(values: Sequence[float]) -> float:
    """The geometric mean (NaN for no values).

    >>> round(geomean([0.5, 2.0, 1.0]), 6)
    1.0
    """
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))
