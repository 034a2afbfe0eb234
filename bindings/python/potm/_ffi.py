"""cffi declarations (ABI mode) of the part of the C API the package uses.

The declarations mirror ``include/potm/config.h`` and
``include/potm/stats.h`` field by field; tests/test_ffi.py compiles the real
headers and checks that every size and offset agrees.  Nothing here loads a
library at import time: ``open_core`` and ``open_bench`` dlopen on demand,
and the package calls them only in worker processes (potm.worker), so a
library that crashes cannot take the caller down.

Example (in a throw-away process):
    >>> from potm import _ffi
    >>> core = _ffi.open_core("build/libpotm-tl2.so")  # doctest: +SKIP
    >>> _ffi.string(core.tm_backend_name())                      # doctest: +SKIP
    'tl2'
"""

from __future__ import annotations

from typing import Any, Union

import cffi

#: Number of abort causes in this version of stats.h (TM_ABORT__COUNT).
ABORT_CAUSE_COUNT = 14

CONFIG_CDEF = """
typedef struct tm_config {
    unsigned max_threads;
    int pin;
    unsigned lock_bits;
    unsigned stripe_shift;
    unsigned backoff_max;
    int extend;
    unsigned htm_retries;
    int htm_fallback_only;
    int htm_force;
    int verbose;
    char mode[24];
    char sequencer[16];
    unsigned turn_timeout_ms;
    unsigned turn_batch;
    unsigned dp_split_ms;
    unsigned dp_stash_max;
    unsigned dp_classify_ms;
    unsigned dp_split_impact;
    unsigned dp_join_impact;
    unsigned promote_writes;
    unsigned promote_reads;
    int serial;
    unsigned serial_writes;
    int silo_global_tid;
    unsigned htm_coalesce;
} tm_config_t;

void tm_config_default(tm_config_t *cfg);
int tm_config_from_env(tm_config_t *cfg);
const char *tm_mode_name(unsigned i);
"""

STATS_CDEF = """
enum tm_abort_cause {
    TM_ABORT_READ_LOCKED = 0,
    TM_ABORT_READ_VERSION,
    TM_ABORT_WRITE_LOCKED,
    TM_ABORT_VALIDATE,
    TM_ABORT_EXPLICIT,
    TM_ABORT_ORDER,
    TM_ABORT_HTM_CONFLICT,
    TM_ABORT_HTM_CAPACITY,
    TM_ABORT_HTM_EXPLICIT,
    TM_ABORT_HTM_RETRY,
    TM_ABORT_HTM_NESTED,
    TM_ABORT_HTM_OTHER,
    TM_ABORT_SERIAL,
    TM_ABORT_CONDITION,
    TM_ABORT__COUNT
};

typedef struct tm_stats {
    uint64_t commits;
    uint64_t commits_ro;
    uint64_t cancels;
    uint64_t aborts;
    uint64_t aborts_by_cause[%d];
    uint64_t reads;
    uint64_t writes;
    uint64_t extensions;
    uint64_t fast_commits;
    uint64_t promotions;
    uint64_t spec_commits;
    uint64_t wait_turn_ns;
    uint64_t irrevocable;
    uint64_t shared_reads;
    uint64_t serial;
    uint64_t htm_starts;
    uint64_t htm_commits;
    uint64_t htm_fallbacks;
    uint64_t htm_persistent;
    uint64_t allocs;
    uint64_t frees;
    uint64_t reclaimed;
    uint64_t early_fast;
} tm_stats_t;

int tm_stats(tm_stats_t *out);
void tm_stats_reset(void);
const char *tm_abort_cause_name(int cause);
""" % ABORT_CAUSE_COUNT

TM_CDEF = """
int tm_init(const tm_config_t *cfg);
void tm_shutdown(void);
const char *tm_last_error(void);
const char *tm_backend_name(void);
const tm_config_t *tm_current_config(void);
"""

BENCH_CDEF = """
int potm_bench_main(int argc, char **argv);
"""

LIBC_CDEF = """
int fflush(void *stream);
int prctl(int option, ...);
"""

#: The one FFI instance of the package; every declaration above is in it.
ffi = cffi.FFI()
ffi.cdef(CONFIG_CDEF)
ffi.cdef(STATS_CDEF)
ffi.cdef(TM_CDEF)
ffi.cdef(BENCH_CDEF)
ffi.cdef(LIBC_CDEF)


def open_core(path: str) -> Any:
    """dlopen a backend library libpotm-<b>.so; returns the cffi library."""
    return ffi.dlopen(path)


def open_bench(path: str) -> Any:
    """dlopen a benchmark library libpotm-bench-<b>.so."""
    return ffi.dlopen(path)


def open_libc() -> Any:
    """The C library of this process (fflush, prctl)."""
    return ffi.dlopen(None)


def string(ptr: Any) -> str:
    """A C string as str ("" for NULL)."""
    if ptr == ffi.NULL:
        return ""
    text = ffi.string(ptr)  # bytes for char * and char[]
    return text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text


def config_to_dict(cfg: Any) -> dict[str, Union[int, str]]:
    """A tm_config_t as {field: value}, in declaration order (char arrays
    as str)."""
    values: dict[str, Union[int, str]] = {}
    for name, field in ffi.typeof("tm_config_t").fields:
        if field.type.kind == "array":
            values[name] = string(getattr(cfg, name))
        else:
            values[name] = int(getattr(cfg, name))
    return values


def make_argv(args: list[str]) -> tuple[Any, list[Any]]:
    """A C argv (char **, NULL-terminated) for args.

    Returns the array and the list of its strings; keep both alive for as
    long as the C code may use them.

    Example:
        >>> argv, keep = make_argv(["intset", "-t", "2"])
        >>> string(argv[2])
        '2'
        >>> argv[3] == ffi.NULL
        True
    """
    strings = [ffi.new("char[]", a.encode("utf-8")) for a in args]
    argv = ffi.new("char *[]", strings + [ffi.NULL])
    return argv, strings
