"""What the Doppel thesis's figures share: run lengths, the systems
compared, how our setup differs from the thesis's, and the ratio they
quote.  Not an experiment itself (the registry skips files named _*); the
definition files beside it import it.

    >>> versus("100% hot", {"hot": 100}).over
    {'hot': 100, 'variant': 'occ'}
"""

from __future__ import annotations

from typing import Mapping

from potm.experiments import KeyNumber, Variant

#: Run lengths (ms) and repeats of the two scales.
QUICK_MS, QUICK_REPEAT = 200, 3
FULL_MS, FULL_REPEAT = 2000, 3
#: The parameters of every run: the thesis's 1M keys (full), 100k (quick).
QUICK = {"duration": QUICK_MS, "keys": 100000}
FULL = {"duration": FULL_MS, "keys": 1000000}

#: The systems compared, variants of one benchmark: doppel splits hot
#: records (tl2 backend, mode doppel); occ runs the same transactions with
#: nothing split (TL2 alone); gl, the global-lock backend, stands in for
#: 2PL; atomic increments without a transaction.  Quick runs are short:
#: their doppel classifies every 50 ms (dp_classify_ms) instead of 200 ms.
DOPPEL = Variant("doppel", "tl2", params={"mode": "doppel"})
DOPPEL_QUICK = Variant(
    "doppel", "tl2", {"dp_classify_ms": 50}, {"mode": "doppel"},
    note="quick runs are short: the doppel variant classifies every 50 ms "
         "(dp_classify_ms) instead of every 200 ms")
OCC = Variant("occ", "tl2", params={"mode": "occ"})
GL = Variant("gl", "gl", params={"mode": "occ"})
ATOMIC = Variant("atomic", "tl2", params={"mode": "atomic"})

#: How our setup differs from the thesis's.
SETUP_NOTE = ("2 cores shared with other jobs (the thesis: 20 cores; its Go prototype's "
              "2-core numbers are the comparable ones); gl, a global lock, stands in for "
              "2PL; our C layer is several times faster per transaction than the Go "
              "prototype, so compare ratios, not M tx/s.")


def versus(label: str, where: Mapping[str, object], a: str = "doppel", b: str = "occ",
           value: str = "throughput") -> KeyNumber:
    """The ratio of variant a to variant b at the same point."""
    return KeyNumber(f"{label} {a}/{b}", {**where, "variant": a},
                     over={**where, "variant": b}, value=value)
