"""What the LSD figures share: the systems compared (each a backend run
with LSD or with standard accesses), the run lengths, the ratio they
quote, and how our setup differs from the thesis's.  Not an experiment
itself (the registry skips files named _*); the definitions beside it
import it.

    >>> [v.name for v in VARIANTS]
    ['seq', 'occ', 'occ-lsd', '2pl', '2pl-lsd', 'pot', 'pot+lsd']
    >>> lsd_variants("interface")[2].params
    {'interface': 'lsd'}
    >>> lsd_over_std("hot key", {"hot": 100, "threads": 2}, "occ").over
    {'hot': 100, 'threads': 2, 'variant': 'occ'}
"""

from __future__ import annotations

from typing import Mapping

from potm.experiments import KeyNumber, Variant

#: Run lengths (ms) and repeats of the two scales.
QUICK = {"duration": 200}
FULL = {"duration": 1000}
QUICK_REPEAT, FULL_REPEAT = 3, 5



def lsd_variants(switch: str) -> tuple[Variant, ...]:
    """The thesis's variants: OCC and 2PL with and without LSD, Pot and
    Pot+LSD, and seq (uninstrumented, one thread) as the limit; OCC is
    tl2.  switch names the benchmark parameter that picks LSD ("lsd") or
    standard accesses ("std")."""
    return (Variant("seq", "seq", params={switch: "std"}),
            *(Variant(name + suffix, backend, params={switch: value})
              for name, backend, plus in (("occ", "tl2", "-"), ("2pl", "2pl", "-"),
                                          ("pot", "pot", "+"))
              for suffix, value in (("", "std"), (plus + "lsd", "lsd"))))


#: The variants of the lsd microbenchmark (its -m switch).
VARIANTS = lsd_variants("mode")

#: How our setup differs from the thesis's.
SETUP_NOTE = ("2 cores (1 and 2 threads); the thesis ran a database server with "
              "clients over the network, where a standard read is a round trip and "
              "a transaction is long: here every transaction reads words of "
              "a shared table ('table_reads') after its access to the shared word, which keeps a "
              "standard read of it exposed until the commit.  LSD is used on the "
              "shared word only; the private work is standard in both modes.")


def lsd_over_std(label: str, where: Mapping[str, object], std: str) -> KeyNumber:
    """The throughput of std's LSD variant over std's at the same point."""
    lsd = {"occ": "occ-lsd", "2pl": "2pl-lsd", "pot": "pot+lsd"}[std]
    return KeyNumber(f"{label} {lsd}/{std}", {**where, "variant": lsd},
                     over={**where, "variant": std})
