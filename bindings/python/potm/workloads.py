"""The benchmarks and their parameters.

Each workload is a benchmark of ``libpotm-bench-<b>.so``; its parameters
have a Python name (used by ``potm.run``/``potm.sweep`` and as ``--name`` on
the command line) and the benchmark's own option letter (used in the argv
handed to ``potm_bench_main`` and accepted on the command line as well).
Everything is validated here, before any process starts; a parameter that
is not given is not passed, so the benchmark's own default applies.

Example:
    >>> spec = workload("intset")
    >>> args = spec.validate({"structure": "rb", "update": 20, "threads": 2})
    >>> spec.argv(args)
    ['intset', '-s', 'rb', '-u', '20', '-t', '2']
    >>> spec.validate({"update": 120})
    Traceback (most recent call last):
    ...
    ValueError: intset: parameter 'update' = 120 is out of range: a percentage, 0..100
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Mapping, Optional, SupportsIndex, Union

#: A parameter value: benchmarks take integers and names.
Value = Union[int, str]

#: Largest value of an unsigned 64-bit option (seeds).
U64_MAX = (1 << 64) - 1
#: Largest value of an int-sized option.
INT_MAX = (1 << 31) - 1

#: Backends that run one thread only (seq: no concurrency control).
SINGLE_THREAD_BACKENDS: tuple[str, ...] = ("seq",)


@dataclass(frozen=True)
class Param:
    """One benchmark option.

    ``choices`` makes it a name parameter; otherwise it is an integer in
    ``minimum..maximum``.
    """

    name: str
    flag: str
    help: str
    minimum: int = 0
    maximum: int = INT_MAX
    choices: Optional[tuple[str, ...]] = None
    unit: str = ""

    def allowed(self) -> str:
        """The allowed values, for messages and --help."""
        if self.choices is not None:
            return "one of " + ", ".join(self.choices)
        if self.unit == "%":
            return f"a percentage, {self.minimum}..{self.maximum}"
        upper = "2^64-1" if self.maximum == U64_MAX else str(self.maximum)
        return f"an integer, {self.minimum}..{upper}"

    def check(self, workload: str, value: object) -> Value:
        """value, converted to int or str, if it is allowed; else ValueError."""
        where = f"{workload}: parameter {self.name!r} = {value!r}"
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{where} is not allowed: {self.allowed()}")
            return value
        if isinstance(value, bool):
            raise ValueError(f"{where} is a bool; expected {self.allowed()}")
        if not isinstance(value, SupportsIndex):  # int, numpy integers
            raise ValueError(f"{where} is not an integer; expected {self.allowed()}")
        number = operator.index(value)
        if not self.minimum <= number <= self.maximum:
            raise ValueError(f"{workload}: parameter {self.name!r} = {number} "
                             f"is out of range: {self.allowed()}")
        return number


THREADS = Param("threads", "-t", "number of threads", minimum=1, maximum=4096)
DURATION = Param("duration", "-d", "run for this many milliseconds",
                 minimum=1, unit="ms")
OPS = Param("ops", "-n", "run this many operations per thread (instead of a duration)",
            minimum=1, maximum=U64_MAX)
SEED = Param("seed", "-S", "random seed", maximum=U64_MAX)


@dataclass(frozen=True)
class Workload:
    """A benchmark: its name (argv[0]) and its parameters, in argv order."""

    name: str
    help: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        """The parameter called name; ValueError listing them otherwise."""
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params)
        raise ValueError(f"{self.name}: unknown parameter {name!r}; "
                         f"its parameters are: {known}")

    def validate(self, values: Mapping[str, object]) -> dict[str, Value]:
        """Check every value and the rules between them.

        Returns the values converted (numpy integers become int), in the
        workload's parameter order.  Raises ValueError naming the parameter.
        """
        checked = {name: self.param(name).check(self.name, v)
                   for name, v in values.items()}
        if "duration" in checked and "ops" in checked:
            raise ValueError(f"{self.name}: parameters 'duration' and 'ops' exclude "
                             "each other: give a duration (ms) or a number of "
                             "operations per thread, not both")
        initial, key_range = checked.get("initial"), checked.get("range")
        if isinstance(initial, int) and isinstance(key_range, int) and initial > key_range:
            raise ValueError(
                f"{self.name}: parameter 'initial' = {initial} exceeds 'range' = "
                f"{key_range}: a set of keys from a range of {key_range} cannot start "
                "with more elements")
        return {p.name: checked[p.name] for p in self.params if p.name in checked}

    def argv(self, values: Mapping[str, Value]) -> list[str]:
        """The benchmark's argv for validated values (argv[0] is the name)."""
        args = [self.name]
        for p in self.params:
            if p.name in values:
                args += [p.flag, str(values[p.name])]
        return args


WORKLOADS: dict[str, Workload] = {
    w.name: w for w in (
        Workload("intset", "integer set: lookups, inserts and removals of random keys", (
            Param("structure", "-s", "the set's data structure: red-black tree, "
                  "linked list, hash set, skip list", choices=("rb", "ll", "hs", "sl")),
            Param("initial", "-i", "number of elements inserted before the run", minimum=1),
            Param("range", "-r", "keys are drawn from 0..range-1", minimum=1),
            Param("update", "-u", "percentage of operations that are updates",
                  maximum=100, unit="%"),
            THREADS, DURATION, OPS, SEED,
        )),
        Workload("bank", "bank: transfers between accounts and read-only balance totals", (
            Param("accounts", "-a", "number of accounts", minimum=2),
            Param("readonly", "-r", "percentage of read-only (total balance) transactions",
                  maximum=100, unit="%"),
            THREADS, DURATION, OPS, SEED,
        )),
        Workload("fasttx", "one thread, transactions of a fixed number of accesses "
                 "(Pot thesis Figure 3.6)", (
            Param("kind", "-k", "r (reads), w (writes), rw (increments)",
                  choices=("r", "w", "rw")),
            Param("accesses", "-a", "accesses per transaction", maximum=64),
            THREADS, DURATION, OPS, SEED,
        )),
    )
}


def workload(name: str) -> Workload:
    """The workload called name; ValueError listing the known ones otherwise."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r}; known: "
                         f"{', '.join(WORKLOADS)}") from None

