"""The benchmarks and their parameters.

Each workload is a benchmark of ``libpotm-bench-<b>.so``, or a program
with a library of its own, ``libpotm-bench-<b>-<program>.so`` (each STAMP
application, stmbench7: ``Workload.library``); its parameters
have a Python name (used by ``potm.run``/``potm.sweep`` and as ``--name`` on
the command line) and the benchmark's own option letter (used in the argv
handed to ``potm_bench_main`` and accepted on the command line as well).
Everything is validated here, before any process starts; a parameter that
is not given is not passed, so the benchmark's own default applies.
Besides each value's range, a workload may have rules between parameters
(``Needs``, ``AtMost``): the doppel benchmark's Zipf alpha is for incrz
and like only, its moving hot key for incr1 only; an intset cannot start
with more keys than its range.  They are the benchmark's own usage
errors, reported here with the parameter's Python name.  A STAMP
application's ``size`` has no option letter: it names an input set, whose
options potm.stamp adds when the run starts.

Example:
    >>> spec = workload("intset")
    >>> args = spec.validate({"structure": "rb", "update": 20, "threads": 2})
    >>> spec.argv(args)
    ['intset', '-s', 'rb', '-u', '20', '-t', '2']
    >>> spec.validate({"update": 120})
    Traceback (most recent call last):
    ...
    ValueError: intset: parameter 'update' = 120 is out of range: a percentage, 0..100
    >>> doppel = workload("doppel")
    >>> doppel.argv(doppel.validate({"kind": "incrz", "alpha_x100": 80}))
    ['doppel', '-w', 'incrz', '-a', '80']
    >>> doppel.validate({"alpha_x100": 80})
    Traceback (most recent call last):
    ...
    ValueError: doppel: parameter 'alpha_x100' = 80 needs 'kind' to be one of incrz, like ...

A switch (``Param.switch``) is a bare option, given as a bool: tm1's
``affine`` is its -A when True and nothing when False, so a sweep can
put both on one axis:

    >>> tm1 = workload("tm1")
    >>> tm1.argv(tm1.validate({"execution": "dora-inline", "affine": True}))
    ['tm1', '-e', 'dora-inline', '-A']
    >>> tm1.argv(tm1.validate({"execution": "dora-inline", "affine": False}))
    ['tm1', '-e', 'dora-inline']
    >>> tm1.validate({"affine": True})
    Traceback (most recent call last):
    ...
    ValueError: tm1: parameter 'affine' = True needs 'execution' to be one of dora, ...
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Mapping, Optional, SupportsIndex, Union

#: A parameter value: benchmarks take integers and names, and switches
#: (bare options) are on or off.
Value = Union[bool, int, str]

#: Largest value of an unsigned 64-bit option (seeds).
U64_MAX = (1 << 64) - 1
#: Largest value of an int-sized option.
INT_MAX = (1 << 31) - 1

#: One day in milliseconds (the largest period the doppel benchmark takes).
DAY_MS = 86400000
#: The doppel benchmark's workloads and modes, and its largest key count.
DOPPEL_KINDS: tuple[str, ...] = ("incr1", "incrz", "like")
DOPPEL_MODES: tuple[str, ...] = ("doppel", "occ", "split", "atomic")
DOPPEL_MAX_KEYS = 1 << 26
#: The rubis benchmark's modes.
RUBIS_MODES: tuple[str, ...] = ("doppel", "occ", "split")

#: The tpcc benchmark's transaction mixes: the standard one, or one type alone.
TPCC_MIXES: tuple[str, ...] = ("standard", "new-order", "payment", "order-status",
                               "delivery", "stock-level")
#: How both run their transactions: whole on a worker, or as DORA flow
#: graphs on executors that own their partitions.
_DORA_EXECUTIONS: tuple[str, ...] = ("conventional", "dora", "dora-private")
#: How tm1 runs them: those, or with the executors as terminals (inline).
TM1_EXECUTIONS: tuple[str, ...] = _DORA_EXECUTIONS + ("dora-inline",)
#: How tpcc runs them: those, or on a partitioned store (a lock per
#: warehouse, New-Order or Payment alone).
TPCC_EXECUTIONS: tuple[str, ...] = _DORA_EXECUTIONS + ("partitioned",)
#: TPC-C's population per warehouse (clause 4.3): items, customers per district.
TPCC_ITEMS = 100000
TPCC_CUSTOMERS = 3000

#: The lsd benchmark's workloads and modes.
LSD_WORKLOADS: tuple[str, ...] = ("hotkey", "assert")
LSD_MODES: tuple[str, ...] = ("lsd", "std")
#: How tpcc writes New-Order and Payment.
LSD_INTERFACES: tuple[str, ...] = ("std", "lsd")

#: Backends that run one thread only (seq: no concurrency control).
SINGLE_THREAD_BACKENDS: tuple[str, ...] = ("seq",)


@dataclass(frozen=True)
class Param:
    """One benchmark option.

    ``choices`` makes it a name parameter; ``switch`` a bare option, whose
    value is a bool: True gives the option alone, False leaves it out (as
    an absent parameter is); otherwise it is an integer in
    ``minimum..maximum``.  ``default`` is the benchmark's own default, as
    its -h states it (shown in help, used by the rules between parameters;
    None: not stated).  It is never passed: an absent parameter is absent
    from the argv.

    Example:
        >>> affine = Param("affine", "-A", "x", switch=True, default=False)
        >>> affine.args(affine.check("tm1", True)), affine.args(False)
        (['-A'], [])
        >>> affine.check("tm1", 1)
        Traceback (most recent call last):
        ...
        ValueError: tm1: parameter 'affine' = 1 is not a bool; expected True (pass -A) or False (leave it out)
        >>> Param("window", "-W", "x").args(2)
        ['-W', '2']
    """

    name: str
    flag: str
    help: str
    minimum: int = 0
    maximum: int = INT_MAX
    choices: Optional[tuple[str, ...]] = None
    unit: str = ""
    default: Optional[Value] = None
    switch: bool = False

    def __post_init__(self) -> None:
        if self.switch and (self.choices is not None or self.unit or not self.flag):
            raise ValueError(f"parameter {self.name!r}: a switch is a bare option: "
                             "it needs a flag and takes no choices or unit")

    def allowed(self) -> str:
        """The allowed values, for messages and --help."""
        if self.switch:
            return f"True (pass {self.flag}) or False (leave it out)"
        if self.choices is not None:
            return "one of " + ", ".join(self.choices)
        if self.unit == "%":
            return f"a percentage, {self.minimum}..{self.maximum}"
        upper = "2^64-1" if self.maximum == U64_MAX else str(self.maximum)
        return f"an integer, {self.minimum}..{upper}"

    def check(self, workload: str, value: object) -> Value:
        """value, converted to int or str, if it is allowed; else ValueError."""
        where = f"{workload}: parameter {self.name!r} = {value!r}"
        if self.switch:
            # numpy's bool_ is no bool subclass; anything else (1, "yes")
            # is refused rather than guessed at.
            if isinstance(value, bool) or type(value).__name__ == "bool_":
                return bool(value)
            raise ValueError(f"{where} is not a bool; expected {self.allowed()}")
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

    def args(self, value: Value) -> list[str]:
        """The argv words for a checked value: the option and its value, or
        for a switch the option alone when True and nothing when False."""
        if self.switch:
            return [self.flag] if value else []
        return [self.flag, str(value)]


THREADS = Param("threads", "-t", "number of threads", minimum=1, maximum=4096)
DURATION = Param("duration", "-d", "run for this many milliseconds",
                 minimum=1, unit="ms")
OPS = Param("ops", "-n", "run this many operations per thread (instead of a duration)",
            minimum=1, maximum=U64_MAX)
SEED = Param("seed", "-S", "random seed", maximum=U64_MAX)


@dataclass(frozen=True)
class Needs:
    """A rule between two parameters: ``name``, when given, needs ``other``
    to be one of ``allowed``.

    when: the values of name the rule is about (empty: every value);
    unless: a value of name that is always fine (0 for "off").  When other
    is not given, its default (``Param.default``) is what counts.

    Example:
        >>> rule = Needs("change", "kind", ("incr1",), unless=0)
        >>> rule.broken({"change": 500, "kind": "like"}, {"kind": "incr1"})
        "parameter 'change' = 500 needs 'kind' to be one of incr1 (it is 'like')"
        >>> rule.broken({"change": 0, "kind": "like"}, {"kind": "incr1"}) is None
        True
    """

    name: str
    other: str
    allowed: tuple[str, ...]
    when: tuple[Value, ...] = ()
    unless: Optional[Value] = None
    why: str = ""

    def broken(self, values: Mapping[str, Value],
               defaults: Mapping[str, Value]) -> Optional[str]:
        """What is wrong with values (checked ones; defaults: the workload's
        defaults), or None if the rule holds."""
        if self.name not in values:
            return None
        value = values[self.name]
        if value == self.unless or (self.when and value not in self.when):
            return None
        given = self.other in values
        other = values[self.other] if given else defaults.get(self.other)
        if other is None or other in self.allowed:
            return None
        state = f"it is {other!r}" + ("" if given else ", the default")
        text = (f"parameter {self.name!r} = {value!r} needs {self.other!r} to be one of "
                f"{', '.join(self.allowed)} ({state})")
        return text + (f": {self.why}" if self.why else "")


@dataclass(frozen=True)
class AtMost:
    """A rule between two integer parameters: ``name`` may not exceed
    ``limit``.  Checked when one of them is given, the other counting with
    its default; no check when a value is unknown.

    Example:
        >>> AtMost("initial", "range").broken({"initial": 600, "range": 512}, {})
        "parameter 'initial' = 600 exceeds 'range' = 512"
        >>> AtMost("categories", "items").broken({"items": 10}, {"categories": 16})
        "parameter 'categories' = 16 (its default) exceeds 'items' = 10"
    """

    name: str
    limit: str
    why: str = ""

    @property
    def other(self) -> str:
        """The parameter the rule depends on."""
        return self.limit

    def broken(self, values: Mapping[str, Value],
               defaults: Mapping[str, Value]) -> Optional[str]:
        """What is wrong with values (checked ones; defaults: the workload's
        defaults), or None if the rule holds."""
        if self.name not in values and self.limit not in values:
            return None
        value = values.get(self.name, defaults.get(self.name))
        limit = values.get(self.limit, defaults.get(self.limit))
        if not isinstance(value, int) or not isinstance(limit, int) or value <= limit:
            return None
        text = (f"parameter {self.name!r} = {value}" +
                ("" if self.name in values else " (its default)") +
                f" exceeds {self.limit!r} = {limit}" +
                ("" if self.limit in values else " (its default)"))
        return text + (f": {self.why}" if self.why else "")


#: A rule between parameters (Workload.rules).
Rule = Union[Needs, AtMost]


@dataclass(frozen=True)
class Workload:
    """A benchmark: its name (argv[0]), its parameters, in argv order, and
    the rules between them."""

    name: str
    help: str
    params: tuple[Param, ...]
    rules: tuple[Rule, ...] = ()
    #: "" for a benchmark of libpotm-bench-<b>.so; else the program of
    #: libpotm-bench-<b>-<library>.so (a STAMP application, stmbench7).
    library: str = ""
    #: The RunResult field that measures a run: "throughput" (higher is
    #: better) or "elapsed" (STAMP: seconds to completion, lower is better).
    metric: str = "throughput"

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        for rule in self.rules:
            for name in (rule.name, rule.other):
                if name not in names:
                    raise ValueError(f"{self.name}: a rule names {name!r}, which is not "
                                     f"one of its parameters")

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
        defaults = {p.name: p.default for p in self.params if p.default is not None}
        for rule in self.rules:
            problem = rule.broken(checked, defaults)
            if problem is not None:
                raise ValueError(f"{self.name}: {problem}")
        return {p.name: checked[p.name] for p in self.params if p.name in checked}

    def argv(self, values: Mapping[str, Value]) -> list[str]:
        """The benchmark's argv for validated values (argv[0] is the name)."""
        args = [self.name]
        for p in self.params:
            if p.name in values and p.flag:  # no flag: resolved by the caller (stamp.py)
                args += p.args(values[p.name])
        return args


#: STAMP's input sets: the names stamp/inputs.py gives them.  test and
#: small run in well under a second; real is STAMP's README "real" inputs
#: (seconds to a minute per run); paper (and the -high variants: vacation
#: and kmeans at high contention) are the published evaluation's sizes.
STAMP_SIZES: tuple[str, ...] = ("test", "small", "real", "paper")
STAMP_SIZES_HIGH: tuple[str, ...] = ("test", "small", "small-high", "real", "real-high",
                                     "paper", "paper-high")
#: The STAMP applications: name, option that sets the thread count, sizes, help.
STAMP_APPS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("bayes", "-t", STAMP_SIZES, "learns the structure of a Bayesian network"),
    ("genome", "-t", STAMP_SIZES, "gene sequencing: rebuilds a gene from segments"),
    ("intruder", "-t", STAMP_SIZES, "network intrusion detection: reassembles and "
     "scans packet streams"),
    ("kmeans", "-p", STAMP_SIZES_HIGH, "K-means clustering of points"),
    ("labyrinth", "-t", STAMP_SIZES, "routes paths through a 3-D maze (Lee's algorithm)"),
    ("ssca2", "-t", STAMP_SIZES, "builds a graph's adjacency arrays (SSCA2 kernel 1)"),
    ("vacation", "-c", STAMP_SIZES_HIGH, "travel reservation system: clients book "
     "cars, flights and rooms"),
    ("yada", "-t", STAMP_SIZES, "Delaunay mesh refinement (Ruppert's algorithm)"),
)


def _stamp_workload(app: str, thread_flag: str, sizes: tuple[str, ...],
                    text: str) -> Workload:
    """One STAMP application: its input set (resolved to options and input
    files when the run starts, by potm.stamp) and its thread count."""
    return Workload(app, f"STAMP {app}: {text}; measured by its execution time "
                    "(elapsed, lower is better)", (
        Param("size", "", "input set (stamp/README.md): test and small take well under "
              "a second, paper is the published evaluation's", choices=sizes,
              default="test"),
        Param("threads", thread_flag, "number of threads", minimum=1, maximum=4096),
    ), library=app, metric="elapsed")


#: One workload per STAMP application (each has its own library and sizes).
STAMP_WORKLOADS: tuple[Workload, ...] = tuple(_stamp_workload(*app) for app in STAMP_APPS)

#: The STAMP cases as STAMP's own evaluation reports them: (case name,
#: application, suffix of its input sets): every application once, kmeans
#: and vacation at low ("<set>") and high ("<set>-high") contention.
STAMP_CASES: tuple[tuple[str, str, str], ...] = tuple(
    case for app, _, sizes, _ in STAMP_APPS
    for case in (((f"{app}-low", app, ""), (f"{app}-high", app, "-high"))
                 if "real-high" in sizes else ((app, app, ""),)))

#: STMBench7's operation mixes and structure sizes (stmbench7/README.md).
SB7_MIXES: tuple[str, ...] = ("r", "rw", "w")
SB7_SIZES: tuple[str, ...] = ("tiny", "small", "medium", "big")
_ON_OFF: tuple[str, ...] = ("true", "false")

STMBENCH7 = Workload("stmbench7", "STMBench7: operations on a CAD-like object graph "
                     "(traversals, queries, structural modifications)", (
    Param("mix", "-w", "operation mix: r (90% read-only), rw (60%), w (10%)",
          choices=SB7_MIXES, default="rw"),
    Param("size", "-s", "structure size (tiny: a reduced one for tests)",
          choices=SB7_SIZES, default="small"),
    Param("traversals", "-t", "long traversals on or off", choices=_ON_OFF,
          default="true"),
    Param("structural", "-m", "structural modifications on or off", choices=_ON_OFF,
          default="true"),
    Param("op11", "-r", "OP11 (writes the 1 MB manual) on or off", choices=_ON_OFF,
          default="true"),
    Param("readonly", "-p", "override the mix's percentage of read-only operations",
          maximum=100, unit="%"),
    Param("threads", "-n", "number of threads", minimum=1, maximum=1024),
    Param("duration", "-d", "run for this many milliseconds", minimum=1,
          maximum=DAY_MS, unit="ms", default=10000),
    Param("ops", "--ops", "run this many operations per thread (instead of a duration)",
          minimum=1, maximum=1 << 40),
    Param("seed", "--seed", "random seed", maximum=(1 << 63) - 1, default=1),
), library="stmbench7")

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
        ), rules=(
            AtMost("initial", "range", why="a set of keys from that range cannot start "
                   "with more elements"),
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
        Workload("doppel", "hot records of the Doppel thesis (INCR1, INCRZ, LIKE) on the "
                 "Doppel layer: split records against plain transactions", (
            Param("kind", "-w", "incr1: increment one key, 'hot' percent of them the hot "
                  "key; incrz: increment a Zipf-distributed key; like: users like pages "
                  "(Zipf) and read them", choices=DOPPEL_KINDS, default="incr1"),
            Param("mode", "-m", "doppel: the classifier splits hot records; occ: the same "
                  "transactions, nothing split (the backend alone); split: the hot keys "
                  "split by hand; atomic: atomic increments, no transactions (incr1, "
                  "incrz)", choices=DOPPEL_MODES, default="doppel"),
            Param("keys", "-k", "number of keys (pages for like)", minimum=1,
                  maximum=DOPPEL_MAX_KEYS, default=1000000),
            Param("users", "-U", "like: number of users", minimum=1,
                  maximum=DOPPEL_MAX_KEYS, default=100000),
            Param("hot", "-p", "incr1: percentage of transactions on the hot key",
                  maximum=100, unit="%", default=100),
            Param("alpha_x100", "-a", "incrz, like: the Zipf parameter alpha times 100 "
                  "(140 is alpha 1.4)", maximum=400, default=140),
            Param("write", "-u", "like: percentage of write transactions", maximum=100,
                  unit="%", default=50),
            Param("split", "-s", "split mode, incrz and like: how many of the most popular "
                  "keys are split by hand", minimum=1, maximum=256, default=1),
            Param("change", "-c", "incr1: the hot key moves every this many ms (0: never)",
                  maximum=DAY_MS, unit="ms", default=0),
            Param("interval", "-i", "count commits per interval of this many ms, reported "
                  "as the timeline count (0: off; 100 when the hot key moves)",
                  maximum=DAY_MS, unit="ms", default=0),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            Needs("alpha_x100", "kind", ("incrz", "like"), why="incr1 takes 'hot' instead"),
            Needs("change", "kind", ("incr1",), unless=0),
            Needs("change", "mode", ("doppel", "occ", "atomic"), unless=0,
                  why="a hand split cannot follow the moving hot key"),
            Needs("mode", "kind", ("incr1", "incrz"), when=("atomic",),
                  why="like has no atomic version"),
        )),
        Workload("rubis", "RUBiS-style auction on the Doppel layer: StoreBid (max bid, "
                 "bid count, top bidders of an item and its category) and ViewItem", (
            Param("mode", "-m", "doppel: the classifier splits hot records; occ: nothing "
                  "split (the backend alone); split: the hot item's records split by hand",
                  choices=RUBIS_MODES, default="doppel"),
            Param("items", "-k", "number of items (auctions)", minimum=1,
                  maximum=DOPPEL_MAX_KEYS, default=100000),
            Param("users", "-U", "number of bidders", minimum=1, maximum=DOPPEL_MAX_KEYS,
                  default=100000),
            Param("categories", "-c", "number of categories (item i is in category i mod "
                  "categories)", minimum=1, maximum=65536, default=16),
            Param("hot", "-p", "percentage of transactions on the hot item, the rest "
                  "uniform", maximum=100, unit="%", default=0),
            Param("bid", "-u", "percentage of StoreBid transactions (the others are "
                  "ViewItem)", maximum=100, unit="%", default=100),
            Param("top", "-K", "bids kept in each category's top-K set", minimum=1,
                  maximum=64, default=10),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            AtMost("categories", "items", why="every category needs an item"),
        )),
        Workload("lsd", "Lazy State Determination microbenchmarks (Pot thesis Figure 4.8): "
                 "a hot counter decremented while it stays >= 0 (hotkey), or a "
                 "condition over a shared word (assert), written with LSD or with "
                 "standard accesses", (
            Param("kind", "-w", "hotkey: 'hot' percent of the transactions decrement "
                  "the hot counter if it stays >= 0; assert: every transaction asserts "
                  "level >= 1 ('invalidate' > 0: and updates the level)",
                  choices=LSD_WORKLOADS, default="hotkey"),
            Param("mode", "-m", "lsd: futures, conditions and lazy writes on the shared "
                  "word; std: standard reads and writes", choices=LSD_MODES,
                  default="lsd"),
            Param("private", "-p", "private words of its thread each transaction adds 1 "
                  "to (standard accesses)", maximum=64, default=4),
            Param("table_reads", "-r", "reads of a shared table nobody writes, after the access "
                  "to the shared word (the rest of a transaction's work)", maximum=4096,
                  default=0),
            Param("hot", "-x", "hotkey: percentage of transactions on the hot counter",
                  maximum=100, unit="%", default=100),
            Param("invalidate", "-c", "assert: percentage of transactions that invalidate "
                  "the others' condition (0: nobody writes the level)", maximum=100,
                  unit="%", default=0),
            Param("initial", "-i", "hotkey: the counter's initial value and refill",
                  minimum=1, maximum=1 << 40, default=100000),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            Needs("hot", "kind", ("hotkey",), why="assert has no private-only transactions"),
            Needs("invalidate", "kind", ("assert",)),
            Needs("initial", "kind", ("hotkey",), why="assert's level follows from "
                  "'invalidate'"),
        )),
        Workload("tpcc", "TPC-C on the record store: the five transactions (standard "
                 "mix or one alone) on a database of 'warehouses' warehouses, then the "
                 "consistency checks of clause 3.3.2", (
            Param("warehouses", "-w", "number of warehouses; 0: one per thread (worker i's "
                  "home is warehouse i mod warehouses + 1)", maximum=4095, default=1),
            Param("mix", "-m", "standard (45/43/4/4/4 % New-Order, Payment, Order-Status, "
                  "Delivery, Stock-Level) or one transaction type alone",
                  choices=TPCC_MIXES, default="standard"),
            Param("interface", "-a", "std: standard reads and writes; lsd: New-Order and "
                  "Payment written with LSD (lazy counters and balances, stock quantity "
                  "conditions, the next order id as a future key)", choices=LSD_INTERFACES,
                  default="std"),
            Param("execution", "-e", "conventional: each worker runs whole transactions; "
                  "dora: the workers are DORA executors owning the warehouses in equal "
                  "ranges, each transaction a flow graph of actions (not on Pot's "
                  "backends); dora-private: the same over private tables per warehouse, "
                  "plain accesses and no TM in the executors; partitioned: those tables "
                  "with one lock per warehouse, each transaction taking its warehouses' "
                  "locks in ascending order, no TM (mix new-order or payment)",
                  choices=TPCC_EXECUTIONS,
                  default="conventional"),
            Param("remote_lines", "-x", "percentage of New-Order lines supplied by another "
                  "warehouse, when there are several (TPC-C: 1)", maximum=100, unit="%",
                  default=1),
            Param("reroute", "-R", "execution dora: DORA's resource manager moves a random "
                  "range of warehouses to a random executor every this many milliseconds "
                  "(0: never)", maximum=60000, unit="ms", default=0),
            Param("window", "-W", "execution dora or dora-private: transactions each "
                  "terminal keeps in flight (1: one at a time, so a latency is one "
                  "transaction's response time)", minimum=1, maximum=4, default=4),
            Param("items", "-I", "items, and stock rows per warehouse (below 100000 is not "
                  "TPC-C's population)", minimum=1, maximum=TPCC_ITEMS, default=TPCC_ITEMS),
            Param("customers", "-C", "customers, and initial orders, per district (below "
                  "3000 is not TPC-C's population)", minimum=1, maximum=TPCC_CUSTOMERS,
                  default=TPCC_CUSTOMERS),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            Needs("reroute", "execution", ("dora", "dora-private"), unless=0),
            Needs("window", "execution", ("dora", "dora-private"), unless=4),
            Needs("execution", "mix", ("new-order", "payment"), when=("partitioned",)),
        )),
        Workload("tm1", "Nokia's TM1 (TATP) on the record store: the subscriber "
                 "database and its seven transactions in the standard mix (80 % "
                 "reads), conventionally or under DORA, then structure and "
                 "call-forwarding count checks", (
            Param("subscribers", "-s", "subscribers, the population's scale",
                  minimum=1, maximum=1 << 22, default=100000),
            Param("execution", "-e", "conventional: each worker runs whole transactions; "
                  "dora: the workers are DORA executors owning ranges of subscribers "
                  "(not on Pot's backends); dora-private: the same over private tables "
                  "per executor, no TM in the executors; dora-inline: dora-private with "
                  "each executor running what routes to itself at once and exchanging "
                  "the rest through rings", choices=TM1_EXECUTIONS,
                  default="conventional"),
            Param("window", "-W", "execution dora, dora-private or dora-inline: "
                  "transactions each terminal keeps outstanding", minimum=1, maximum=64,
                  default=4),
            Param("affine", "-A", "execution dora, dora-private or dora-inline: each "
                  "executor draws its transactions' subscribers from the range it owns, "
                  "as clients routed to their partition (False: every executor draws "
                  "from all)", switch=True, default=False),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            Needs("window", "execution", ("dora", "dora-private", "dora-inline"), unless=4),
            Needs("affine", "execution", ("dora", "dora-private", "dora-inline"),
                  unless=False),
        )),
        Workload("ycsb", "A YCSB-like key-value workload on the record store: 100-byte "
                 "records under uniform keys, reads and read-modify-writes (each a "
                 "counter increment), then the counters' sum checked against the "
                 "committed read-modify-writes", (
            Param("keys", "-k", "records in the table", minimum=1, maximum=1 << 26,
                  default=100000),
            Param("read_pct", "-r", "reads in percent; the rest are read-modify-writes",
                  maximum=100, unit="%", default=80),
            Param("execution", "-e", "tm: each operation a transaction; plain: a private "
                  "table with plain accesses and no transaction, one thread only; kv: a "
                  "concurrent key-value store without transactions, a sequence lock per "
                  "record (Silo's Key-Value baseline)", choices=("tm", "plain", "kv"),
                  default="tm"),
            Param("words", "-W", "execution tm: read and write records a word at a time "
                  "instead of under their guard words (a check per lock stripe)",
                  switch=True, default=False),
            THREADS, DURATION, OPS, SEED,
        ), rules=(
            Needs("words", "execution", ("tm",), unless=False),
        )),
    )
}
WORKLOADS.update((w.name, w) for w in (*STAMP_WORKLOADS, STMBENCH7))


def workload(name: str) -> Workload:
    """The workload called name; ValueError listing the known ones otherwise."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r}; known: "
                         f"{', '.join(WORKLOADS)}") from None

