"""What the DORA experiments share: the systems compared (each backend
run conventionally and under DORA) and the ratio they quote.  Not an
experiment itself (the registry skips files named _*); the definitions
beside it import it.

    >>> [v.name for v in VARIANTS]
    ['occ', 'occ-dora', '2pl', '2pl-dora', 'dora-private']
    >>> VARIANTS[-1].backend, VARIANTS[-1].params
    ('tl2', {'execution': 'dora-private'})
    >>> VARIANTS[1].params
    {'execution': 'dora'}
    >>> k = dora_over("2 executors", {"benchmark": "tm1", "threads": 2}, "occ")
    >>> k.label, k.where["variant"], k.over
    ('2 executors occ-dora/occ', 'occ-dora', {'benchmark': 'tm1', 'threads': 2, 'variant': 'occ'})
"""

from __future__ import annotations

from typing import Mapping

from potm.experiments import KeyNumber, Variant

#: Each backend conventionally and under DORA (the benchmark's -e): OCC is
#: tl2.
VARIANTS = tuple(Variant(name + suffix, backend, params={"execution": execution})
                 for name, backend in (("occ", "tl2"), ("2pl", "2pl"))
                 for suffix, execution in (("", "conventional"), ("-dora", "dora"))) + (
    # DORA with private tables: no TM in the executors, so the backend only
    # loads and checks the database (tl2: any multi-threaded one would do).
    Variant("dora-private", "tl2", params={"execution": "dora-private"}),)


def dora_over(label: str, where: Mapping[str, object], conventional: str,
              dora: str = "") -> KeyNumber:
    """The throughput of a DORA variant (conventional's, unless dora names
    another) over conventional's at the same point."""
    dora = dora or conventional + "-dora"
    return KeyNumber(f"{label} {dora}/{conventional}", {**where, "variant": dora},
                     over={**where, "variant": conventional})
