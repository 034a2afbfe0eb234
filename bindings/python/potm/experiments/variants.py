"""Variants: the things an experiment compares (a backend, a Pot mode...).

A variant is a backend plus the C-library settings (POTM_* config) and
workload parameters that make it what it is: ``pot-fast`` is the pot
backend with ``mode=pot-fast``.  Its name is the series label in figures
and the ``variant`` column of an experiment's table.

``rtm`` depends on the CPU: where the CPU has Intel RTM it is the rtm
backend as is; elsewhere (AMD, or RTM disabled by microcode) it becomes
``rtm-fallback``, the rtm backend running every transaction on its
global-lock fallback (``htm_fallback_only=1``), and says so in its note.

Example:
    >>> variant("pot-fast")
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
from typing import Any, Mapping

from potm.config import ConfigValue

#: The runtime modes of the pot backend (POTM_MODE), in report order.
POT_MODES: tuple[str, ...] = ("pot", "pot-fast", "pot-ordered", "pogl", "destm")

#: Pot under a given order (POTM_SEQUENCER), whatever the program's own
#: default: weighted (the workload's transactions declare weights with
#: tm_set_weight; equal weights make it round-robin) or round-robin (Pot's
#: own order; STMBench7 defaults to the weighted order, its operations
#: declaring their run time).
ORDER_VARIANTS: Mapping[str, str] = {"pot-weighted": "weighted",
                                     "pot-round-robin": "round-robin"}

#: Backends that are a variant of their own name, with no settings.
PLAIN_BACKENDS: tuple[str, ...] = ("seq", "gl", "tl2", "pot-rtm", "rot", "pot-rot")

CPUINFO = "/proc/cpuinfo"


@dataclass(frozen=True)
class Variant:
    """A backend with the settings that make one series of a figure."""

    name: str
    backend: str
    config: Mapping[str, ConfigValue] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""


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


def variant(name: str) -> Variant:
    """The variant called name: a plain backend, a Pot mode or rtm.
    ValueError listing the known names otherwise."""
    if name in PLAIN_BACKENDS:
        return Variant(name, name)
    if name in POT_MODES:
        return Variant(name, "pot", {"mode": name})
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
    known = ", ".join([*PLAIN_BACKENDS, *POT_MODES, *ORDER_VARIANTS, "rtm"])
    raise ValueError(f"unknown variant {name!r}; known: {known} (or give a Variant)")
