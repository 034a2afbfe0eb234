"""Variants: the things an experiment compares (a backend, a Pot mode...).

A variant is a backend plus the C-library settings (POTM_* config) and
workload parameters that make it what it is: ``pot-fast`` is the pot
backend with ``mode=pot-fast``.  Its name is the series label in figures
and the ``variant`` column of an experiment's table.

The Pot modes (``pot``, ``pot-fast``...) are the C library's list
(potm.modes): a name that is no other variant is looked up there, and
``POT_MODES`` in a grid stands for all of them, in the library's order;
both are read when the grid is resolved, from its library directory.

``rtm`` depends on the CPU: where the CPU has Intel RTM it is the rtm
backend as is; elsewhere (AMD, or RTM disabled by microcode) it becomes
``rtm-fallback``, the rtm backend running every transaction on its
global-lock fallback (``htm_fallback_only=1``), and says so in its note.

Example:
    >>> variant("pot-fast", lib_dir="build")                   # doctest: +SKIP
    Variant(name='pot-fast', backend='pot', config={'mode': 'pot-fast'}, params={}, note='')
    >>> variant("tl2").backend
    'tl2'
    >>> dict(variant("pot-weighted").config)
    {'mode': 'pot', 'sequencer': 'weighted'}
    >>> dict(variant("pot-round-robin").config)
    {'mode': 'pot', 'sequencer': 'round-robin'}
    >>> variant("rtm").name in ("rtm", "rtm-fallback")
    True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

from potm._lib import PathLike
from potm.config import ConfigValue
from potm.modes import POT_BACKEND, pot_modes


@dataclass(frozen=True)
class PotModes:
    """Every mode of the pot backend (POTM_MODE), a variant each, in the C
    library's order (potm.modes); a grid's POT_MODES."""

    def __repr__(self) -> str:
        return "POT_MODES"


#: In a grid's variants: every Pot mode, named when the grid is resolved.
POT_MODES = PotModes()

#: Pot under a given order (POTM_SEQUENCER), whatever the program's own
#: default: weighted (the workload's transactions declare weights with
#: tm_set_weight; equal weights make it round-robin) or round-robin (Pot's
#: own order; STMBench7 defaults to the weighted order, its operations
#: declaring their run time).
ORDER_VARIANTS: Mapping[str, str] = {"pot-weighted": "weighted",
                                     "pot-round-robin": "round-robin"}

#: Backends that are a variant of their own name, with no settings.
PLAIN_BACKENDS: tuple[str, ...] = ("seq", "gl", "tl2", "2pl", "silo", "pot-rtm", "rot",
                                   "pot-rot")

CPUINFO = "/proc/cpuinfo"


@dataclass(frozen=True)
class Variant:
    """A backend with the settings that make one series of a figure."""

    name: str
    backend: str
    config: Mapping[str, ConfigValue] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""


#: What a grid lists as a variant: a name, a Variant or POT_MODES.
VariantSpec = Union[str, "Variant", PotModes]


@functools.lru_cache(maxsize=1)
def cpu_has_rtm() -> bool:
    """Whether /proc/cpuinfo lists the rtm flag (False if it cannot be read)."""
    try:
        with open(CPUINFO) as f:
            for line in f:
                if line.startswith("flags"):
                    return "rtm" in line.split(":", 1)[1].split()
    except OSError:
        return False
    return False


def rtm_variant() -> Variant:
    """The rtm backend: on its hardware path if the CPU has RTM, else on
    its software fallback only (named rtm-fallback)."""
    if cpu_has_rtm():
        return Variant("rtm", "rtm")
    return Variant("rtm-fallback", "rtm", {"htm_fallback_only": 1},
                   note="this CPU has no Intel RTM: 'rtm-fallback' is the rtm backend "
                        "running every transaction on its global-lock fallback "
                        "(htm_fallback_only=1), not hardware transactions")


def variant(name: str, lib_dir: Optional[PathLike] = None) -> Variant:
    """The variant called name: a plain backend, a Pot mode (named by the
    library of the library directory lib_dir) or rtm.  ValueError listing
    the known names otherwise; potm.modes.ModesUnavailable if name could
    only be a Pot mode and there is no library to tell."""
    if name in PLAIN_BACKENDS:
        return Variant(name, name)
    if name in ORDER_VARIANTS:
        order = ORDER_VARIANTS[name]
        mode = name.removesuffix("-" + order)
        why = ("each transaction's weight comes from the workload (tm_set_weight)"
               if order == "weighted" else "Pot's own order, by logical thread id")
        return Variant(name, "pot", {"mode": mode, "sequencer": order},
                       note=f"'{name}' is POTM_MODE={mode} under the {order} order "
                            f"(POTM_SEQUENCER={order}): {why}")
    if name == "rtm":
        return rtm_variant()
    modes = pot_modes(lib_dir)
    if name in modes:
        return Variant(name, POT_BACKEND, {"mode": name})
    known = ", ".join([*PLAIN_BACKENDS, *modes, *ORDER_VARIANTS, "rtm"])
    raise ValueError(f"unknown variant {name!r}; known: {known} (or give a Variant)")


def expand(specs: tuple[VariantSpec, ...],
           lib_dir: Optional[PathLike] = None) -> list[Variant]:
    """The variants a grid lists, names resolved (variant) and POT_MODES
    replaced by the modes of the library directory lib_dir."""
    out: list[Variant] = []
    for spec in specs:
        if isinstance(spec, Variant):
            out.append(spec)
        elif isinstance(spec, PotModes):
            out += [variant(mode, lib_dir) for mode in pot_modes(lib_dir)]
        else:
            out.append(variant(spec, lib_dir))
    return out


def spec_backend(spec: VariantSpec) -> str:
    """The backend of what a grid lists, without reading the mode list:
    a name that is no other variant can only be a Pot mode.

    >>> [spec_backend(s) for s in ("seq", "rtm", "pot-weighted", "destm", POT_MODES)]
    ['seq', 'rtm', 'pot', 'pot', 'pot']
    """
    if isinstance(spec, Variant):
        return spec.backend
    if isinstance(spec, str) and (spec in PLAIN_BACKENDS or spec == "rtm"):
        return spec
    return POT_BACKEND


def spec_name(spec: VariantSpec) -> str:
    """How a grid's entry is called in a note (POT_MODES: 'the Pot modes')."""
    if isinstance(spec, Variant):
        return spec.name
    if isinstance(spec, PotModes):
        return "the Pot modes"
    return spec
