"""Run-time settings of the C library (tm_config_t / POTM_* variables).

A run takes them as ``config={"lock_bits": 22, ...}``; the worker process
gets them as the POTM_* environment variables that ``tm_init`` reads, so
they apply to any benchmark without the benchmark knowing about them.  The
table below mirrors ``include/potm/config.h`` (names, ranges, defaults);
tests/test_ffi.py checks it against the C library.

The values of ``mode`` (POTM_MODE) are the C library's list
(potm.modes), read from the library directory when a mode is checked.

Example:
    >>> config_env({"lock_bits": 22, "extend": 0, "sequencer": "weighted"})
    {'POTM_LOCK_BITS': '22', 'POTM_EXTEND': '0', 'POTM_SEQUENCER': 'weighted'}
    >>> config_env({"mode": "pot-fast"}, lib_dir="build")   # doctest: +SKIP
    {'POTM_MODE': 'pot-fast'}
    >>> config_env({"lock_bits": 40})
    Traceback (most recent call last):
    ...
    ValueError: config 'lock_bits' = 40 is out of range: an integer from 8 to 28 (POTM_LOCK_BITS)
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Union

from potm._lib import PathLike
from potm.modes import pot_modes

#: A setting's value: an integer, or a name for the string settings.
ConfigValue = Union[int, str]

#: POTM_* variables of the build and the tooling, which the C library
#: ignores (lib/config.c's cfg_not_runtime).
NOT_RUNTIME_VARIABLES: tuple[str, ...] = (
    "POTM_BACKENDS", "POTM_SANITIZE", "POTM_BUILD_DIR", "POTM_JOBS")

#: The text of an integer setting as tm_config_from_env takes it: decimal
#: digits only (no sign, no blank, no base prefix).
_DECIMAL = re.compile(r"[0-9]+")


class ConfigError(ValueError):
    """A configuration the C library would refuse: a bad config= setting or
    POTM_* variable.  Raised before any run starts."""


@dataclass(frozen=True)
class ConfigField:
    """One tm_config_t member and its POTM_* variable: an integer in
    minimum..maximum, or one of a few names: choices, or those the library
    of a library directory gives (choices_from, called when a value is
    checked).  lib_dir below: that directory (default: potm._lib's)."""

    name: str
    env: str
    minimum: int
    maximum: int
    default: ConfigValue
    help: str
    choices: Optional[tuple[str, ...]] = None
    choices_from: Optional[Callable[[Optional[PathLike]], tuple[str, ...]]] = None

    @property
    def is_named(self) -> bool:
        """True for the settings whose values are names."""
        return self.choices is not None or self.choices_from is not None

    @property
    def is_bool(self) -> bool:
        """True for the 0|1 switches."""
        return not self.is_named and self.minimum == 0 and self.maximum == 1

    def names(self, lib_dir: Optional[PathLike] = None) -> Optional[tuple[str, ...]]:
        """The allowed names (None for an integer setting)."""
        if self.choices_from is not None:
            return self.choices_from(lib_dir)
        return self.choices

    def allowed(self, lib_dir: Optional[PathLike] = None) -> str:
        """The allowed values, as the C library words them."""
        names = self.names(lib_dir)
        if names is not None:
            return ", ".join(names)
        if self.is_bool:
            return "0 or 1"
        return f"an integer from {self.minimum} to {self.maximum}"

    def check(self, value: object, lib_dir: Optional[PathLike] = None) -> str:
        """value as the text of the POTM_* variable; ValueError if not allowed."""
        names = self.names(lib_dir)
        if names is not None:
            if not isinstance(value, str) or value not in names:
                raise ValueError(f"config {self.name!r} = {value!r} is not allowed: "
                                 f"{', '.join(names)} ({self.env})")
            return value
        if isinstance(value, bool):
            value = int(value)
        try:
            number = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            raise ValueError(
                f"config {self.name!r} = {value!r} is not an integer; allowed: "
                f"{self.allowed()} ({self.env})") from None
        if not self.minimum <= number <= self.maximum:
            raise ValueError(
                f"config {self.name!r} = {number} is out of range: "
                f"{self.allowed()} ({self.env})")
        return str(number)

    def check_text(self, text: str, lib_dir: Optional[PathLike] = None) -> Optional[str]:
        """None if text is a value tm_config_from_env accepts for this
        variable, else the reason, naming the variable and the allowed
        values.

        >>> config_field("max_threads").check_text("abc")
        'invalid value POTM_MAX_THREADS="abc"; allowed: an integer from 1 to 4096'
        >>> config_field("sequencer").check_text("weighted") is None
        True
        """
        names = self.names(lib_dir)
        if names is not None:
            good = text in names
        else:
            good = _DECIMAL.fullmatch(text) is not None and \
                self.minimum <= int(text) <= self.maximum
        if good:
            return None
        return f'invalid value {self.env}="{text}"; allowed: {self.allowed(lib_dir)}'


CONFIG_FIELDS: tuple[ConfigField, ...] = (
    ConfigField("max_threads", "POTM_MAX_THREADS", 1, 4096, 256,
                "logical thread ids are 0..max_threads-1"),
    ConfigField("pin", "POTM_PIN", 0, 1, 0,
                "pin thread i to a CPU, filling NUMA node 0 first"),
    ConfigField("lock_bits", "POTM_LOCK_BITS", 8, 28, 20,
                "log2 of the number of versioned locks (TL2)"),
    ConfigField("stripe_shift", "POTM_STRIPE_SHIFT", 3, 12, 5,
                "log2 of the bytes one lock covers (TL2)"),
    ConfigField("backoff_max", "POTM_BACKOFF_MAX", 0, 1 << 24, 4096,
                "cap of the randomized exponential backoff, in pauses"),
    ConfigField("extend", "POTM_EXTEND", 0, 1, 1,
                "extend the snapshot instead of aborting (0 = TL2 as published)"),
    ConfigField("htm_retries", "POTM_HTM_RETRIES", 1, 1000, 10,
                "hardware attempts before the fallback"),
    ConfigField("htm_fallback_only", "POTM_HTM_FALLBACK_ONLY", 0, 1, 0,
                "run every transaction on the HTM backends' software fallback"),
    ConfigField("htm_force", "POTM_HTM_FORCE", 0, 1, 0,
                "issue hardware transactions although the CPU reports no HTM"),
    ConfigField("verbose", "POTM_VERBOSE", 0, 1, 0, "verbose library output"),
    ConfigField("mode", "POTM_MODE", 0, 0, "pot",
                "pot backend: pot (live promotion), pot-fast (without: Pot*), "
                "pot-ordered (ordered commits only: Pot-), pogl (preordered global "
                "lock), destm (round-based DeSTM)",
                choices_from=pot_modes),
    ConfigField("sequencer", "POTM_SEQUENCER", 0, 0, "round-robin",
                "pot backend: order by logical thread id, by id and transaction "
                "weights (tm_set_weight), or tm_set_next_order()",
                choices=("round-robin", "weighted", "explicit")),
    ConfigField("turn_timeout_ms", "POTM_TURN_TIMEOUT_MS", 0, 3600000, 60000,
                "pot backend: a turn held this long outside the TM API is a fatal "
                "error (0 = wait forever)"),
    ConfigField("turn_batch", "POTM_TURN_BATCH", 0, 1 << 24, 65536,
                "pot, pot-fast (round-robin): a thread keeps the turn after a short "
                "transaction (fewer accesses than this / 16 and than 64) while its run's "
                "accesses (+1 each) stay under this, so short transactions cross "
                "between cores once per run; the order stays deterministic "
                "(0 = one transaction per turn)"),
    ConfigField("dp_split_ms", "POTM_DP_SPLIT_MS", 1, 10000, 20,
                "Doppel: length of a split phase (t_s)"),
    ConfigField("dp_stash_max", "POTM_DP_STASH_MAX", 1, 1000000, 1024,
                "Doppel: end a split phase early once this many transactions "
                "are stashed (n_s)"),
    ConfigField("dp_classify_ms", "POTM_DP_CLASSIFY_MS", 0, 600000, 200,
                "Doppel: classifier period (t_c); 0 = split by hand only"),
    ConfigField("dp_split_impact", "POTM_DP_SPLIT_IMPACT", 1, 1000000, 100,
                "Doppel: impact (per mille) at which a record is split (T_split)"),
    ConfigField("dp_join_impact", "POTM_DP_JOIN_IMPACT", 0, 1000000, 20,
                "Doppel: impact (per mille) below which a split record is "
                "joined (T_join)"),
    ConfigField("promote_writes", "POTM_PROMOTE_WRITES", 0, 1 << 24, 256,
                "tl2: a transaction whose write set reaches this many words "
                "continues irrevocably if the commit token is free (0 = never)"),
    ConfigField("promote_reads", "POTM_PROMOTE_READS", 0, 1 << 24, 16384,
                "tl2: a transaction that has read this many stripes goes on with "
                "plain reads while commits wait if it has written nothing, else "
                "tries live promotion (0 = never)"),
    ConfigField("serial", "POTM_SERIAL", 0, 1, 0,
                "tl2, pot: a long transaction (serial_writes reached, tl2 starving, "
                "tm_hint_serial) restarts in serial mode, alone, where tm_serial() "
                "lets its body run uninstrumented code (for programs that have such "
                "a clone); pogl transactions are all serial"),
    ConfigField("serial_writes", "POTM_SERIAL_WRITES", 0, 1 << 24, 2048,
                "tl2, pot with serial: a transaction whose writes reach this many "
                "words restarts serially (a restart loses the attempt: a later "
                "mark than promote_writes); 0 = never"),
    ConfigField("silo_global_tid", "POTM_SILO_GLOBAL_TID", 0, 1, 0,
                "silo: every commit's TID from one shared counter (Silo's "
                "MemSilo+GlobalTID) instead of the thread's own"),
    ConfigField("htm_coalesce", "POTM_HTM_COALESCE", 1, 64, 4,
                "rtm: consecutive transactions of a thread run in one hardware "
                "transaction, backing off after a group aborts; 1 = one each"),
)

_BY_NAME = {f.name: f for f in CONFIG_FIELDS}
_BY_ENV = {f.env: f for f in CONFIG_FIELDS}


def config_field(name: str) -> ConfigField:
    """The field called name; ValueError listing the known ones otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        raise ValueError(f"unknown config setting {name!r}; known: {known}") from None


def config_env(config: Optional[Mapping[str, ConfigValue]],
               lib_dir: Optional[PathLike] = None) -> dict[str, str]:
    """Validate config and return it as POTM_* environment variables.

    Raises ValueError naming the setting if a name is unknown or a value is
    not allowed (potm.modes.ModesUnavailable if a mode is given and the
    library directory lib_dir cannot name the modes).
    """
    return {config_field(name).env: config_field(name).check(value, lib_dir)
            for name, value in (config or {}).items()}



def is_potm_variable(name: str) -> bool:
    """Whether the C library reads name as a run-time setting (or refuses
    it as an unknown one): POTM_*, apart from the build's variables."""
    return name.startswith("POTM_") and name not in NOT_RUNTIME_VARIABLES


def variable_problem(name: str, text: str, *, known_only: bool = True,
                     lib_dir: Optional[PathLike] = None) -> Optional[str]:
    """Why the POTM_* variable name=text would be refused, or None.

    A variable this table does not know is refused unless known_only
    (then it is left to the C library, whose backends may read variables
    of their own).

    >>> variable_problem("POTM_FOO", "1") is None
    True
    >>> variable_problem("POTM_FOO", "1", known_only=False)   # doctest: +ELLIPSIS
    'unknown environment variable POTM_FOO; the POTM_* settings are: POTM_MAX_THREADS, ...'
    """
    field = _BY_ENV.get(name)
    if field is not None:
        return field.check_text(text, lib_dir)
    if known_only or not is_potm_variable(name):
        return None
    known = ", ".join(_BY_ENV)
    return f"unknown environment variable {name}; the POTM_* settings are: {known}"


def check_variables(env: Mapping[str, str], *, known_only: bool = True,
                    origin: Optional[Mapping[str, str]] = None,
                    lib_dir: Optional[PathLike] = None) -> None:
    """ConfigError for the first POTM_* variable of env that is refused
    (see variable_problem); origin: variable -> where it was set, for the
    message (default: this process's environment)."""
    for name, text in env.items():
        problem = variable_problem(name, text, known_only=known_only, lib_dir=lib_dir)
        if problem is not None:
            raise ConfigError(config_error_text(problem, name, origin))


def config_error_text(problem: str, name: str,
                      origin: Optional[Mapping[str, str]] = None) -> str:
    """The message of a refused variable: the problem, where the variable
    was set, and that nothing ran."""
    where = (origin or {}).get(name, "the environment of this process")
    return f"potm: {problem} (set in {where}); no run was started"
