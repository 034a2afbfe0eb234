"""What the microbenchmark figures share (overhead, determinism-cost,
fig-3.11): run lengths, the integer set and the bank.  Not an experiment
itself (the registry skips files named _*).

    >>> intset("rb").params["structure"], intset("rb").name
    ('rb', 'intset-rb')
"""

from __future__ import annotations

from potm.experiments import Case

#: Run lengths (ms) and repeats of the two scales.
QUICK_MS, QUICK_REPEAT = 150, 3
FULL_MS, FULL_REPEAT = 1000, 5

#: The integer set: 4096 keys drawn from 8192, 20% updates (half inserts,
#: half removals: the size stays).
SET_SIZE = {"initial": 4096, "range": 8192, "update": 20}


def intset(structure: str) -> Case:
    """The integer set on one structure (rb, ll, hs, sl)."""
    return Case(f"intset-{structure}", "intset", {"structure": structure, **SET_SIZE})


#: The bank: 1024 accounts, 20% read-only total-balance transactions.
BANK = Case("bank", "bank", {"accounts": 1024, "readonly": 20})
