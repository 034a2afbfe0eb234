"""What the DORA experiments share: the systems compared (each backend
run conventionally and under DORA) and the ratio they quote.  Not an
experiment itself (the registry skips files named _*); the definitions
beside it import it.

    >>> [v.name for v in VARIANTS]
    ['occ', 'occ-dora', '2pl', '2pl-dora']
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
                 for suffix, execution in (("", "conventional"), ("-dora", "dora")))


def dora_over(label: str, where: Mapping[str, object], conventional: str) -> KeyNumber:
    """The throughput of conventional's DORA variant over conventional's at
    the same point."""
    dora = conventional + "-dora"
    return KeyNumber(f"{label} {dora}/{conventional}", {**where, "variant": dora},
                     over={**where, "variant": conventional})
