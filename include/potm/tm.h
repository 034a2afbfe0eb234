/*
 * potm/tm.h — transactions: the public API.
 *
 * One API, many backends: the program is linked with one libpotm-<backend>
 * library (seq, gl, tl2, pot, ...), chosen at build time.  Compiling with
 * -DPOTM_BACKEND_<NAME> (the CMake targets and pkg-config files set it) lets
 * the backend's common case of an access run inline; any program also works
 * without it, through function calls.  This file is the whole interface;
 * what its macros and inline functions expand to lives in
 * <potm/static/txd.h> and <potm/static/access.h>, engine internals that
 * are installed with it but are no interface: a program uses the names
 * documented here only.
 *
 *     tm_config_t cfg;
 *     tm_config_default(&cfg);
 *     tm_init(&cfg);                      // once per process
 *     tm_thread_enter(id);                // once per thread, id = logical id
 *     TM_BEGIN();
 *         long v = TM_LOAD(&acct[a]);
 *         TM_STORE(&acct[a], v - 1);
 *     TM_END();
 *     tm_thread_exit();
 *     tm_shutdown();
 *
 * Rules of the transaction block:
 *  - An aborted attempt resumes at TM_BEGIN() with a longjmp
 *    (__builtin_longjmp).  A local variable assigned inside the block and
 *    read after an abort must be volatile (as with any setjmp).
 *  - Leave the block only through TM_END(): no return, break or goto out of
 *    it.  tm_cancel() is the way to give up.
 *  - Nesting is flattened: a TM_BEGIN() inside a transaction joins the
 *    enclosing one, an abort or cancel anywhere restarts or cancels the
 *    outermost, and only the outermost TM_END() commits.
 *  - Shared memory is touched only through the typed accesses (tm_read_*,
 *    tm_write_*, or TM_LOAD / TM_STORE, below); memory the transaction allocated itself and has not yet
 *    published may also be written directly.
 *  - One exception for reads: a field written only before its object was
 *    published (by a transactional store of a pointer to it) and never
 *    after may be read directly once this transaction has read a pointer
 *    to the object, provided objects are freed with tm_free (its grace
 *    period keeps them readable).  The backends publish a transaction's
 *    stores after its earlier plain ones, so such a field holds its one
 *    value in every snapshot that reaches the object (STMBench7's map keys
 *    and ids, sb7_tm.h).
 */
#ifndef POTM_TM_H
#define POTM_TM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <potm/config.h>
#include <potm/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uintptr_t tm_word_t;   /* a machine word (tm_read, tm_write) */
typedef void *tm_ptr_t;        /* a pointer (tm_read_ptr, tm_write_ptr) */

/* ---- life cycle ------------------------------------------------------- */

/* Start the library.  cfg may be NULL (defaults); the POTM_* environment is
 * applied on top of it.  Returns 0; TM_ERR_UNSUPPORTED if this machine
 * cannot run the backend (e.g. no RTM); -1 for any other error (bad
 * configuration, already initialized).  tm_last_error() says why. */
int tm_init(const tm_config_t *cfg);

#define TM_ERR_UNSUPPORTED (-2)

/* Stop the library: waits for deferred frees.  Every thread must have
 * exited (tm_thread_exit) first. */
void tm_shutdown(void);

/* Register the calling thread under logical id (0 <= id < max_threads).  The
 * id names the thread in statistics and fixes its place in a deterministic
 * backend's order.  Returns 0, or -1 with tm_last_error() (id out of range
 * or taken, thread already registered, backend refuses more threads). */
int tm_thread_enter(unsigned id);

/* Unregister the calling thread; its statistics are kept. */
void tm_thread_exit(void);

/* The message of the last failed call on this thread ("" if none). */
const char *tm_last_error(void);

/* "tl2", "seq", ... : the backend this program is linked with. */
const char *tm_backend_name(void);

/* The active configuration (after environment overrides); NULL before
 * tm_init. */
const tm_config_t *tm_current_config(void);

/* ---- transactions ----------------------------------------------------- */

/* TM_BEGIN(); ... TM_END(); is one transaction, run on the calling
 * (registered) thread: the block re-executes until it commits, or until
 * tm_cancel().  The rules of the block are those at the top of this file.
 * Only the outermost pair commits; an inner pair joins it. */
#define TM_BEGIN() POTM_TX_BEGIN_()
#define TM_END()   POTM_TX_END_()

/* Abort the running transaction and re-execute it (after backoff). */
void tm_restart(void) __attribute__((noreturn));

/* Abort the running transaction and do not retry: its effects are undone
 * and execution continues after TM_END().  Deterministic backends commit a
 * cancelled transaction as an ordered no-op. */
void tm_cancel(void) __attribute__((noreturn));

/* 1 if this thread's last top-level transaction was cancelled. */
int tm_was_cancelled(void);

/* 1 if the running transaction is in serial mode: no other transaction
 * runs until it ends, so its body may take an uninstrumented clone of its
 * code, with plain loads and stores (as GCC's libitm runs uninstrumented
 * code in serial-irrevocable mode).  Test it right after TM_BEGIN: every
 * attempt starts at TM_BEGIN again, and whether it is serial is decided
 * there.  A plain store is not logged, so after one the body must not call
 * tm_restart or tm_cancel (they could not undo it); TM_STORE stays
 * revocable.  tl2 and pot run transactions serially, only when asked
 * (tm_config_t.serial: long transactions restart in serial mode; pogl's
 * are all serial). */
static inline int tm_serial(void);

/* Say that the calling thread's next transaction is long: with
 * tm_config_t.serial set, a backend with serial mode starts it serially
 * (tl2 at once, pot in its turn) instead of at the promotion mark, saving
 * the attempt it would give up there; no effect otherwise.  For a
 * transaction known to write much (libitm's "does go irrevocable").
 * Returns 0, or -1 with tm_last_error(): calling thread not registered,
 * called inside a transaction. */
int tm_hint_serial(void);

/* 1 if the calling thread is inside a transaction. */
static inline int tm_in_tx(void);

#define TM_COMMITTED 0
#define TM_CANCELLED 1

/* Run fn(arg) as one transaction; returns TM_COMMITTED or TM_CANCELLED.
 * For bindings and executors that cannot use the macros. */
int tm_atomic(void (*fn)(void *), void *arg);

/* What the macros and inline functions above expand to: the thread's
 * transaction descriptor and the backend's entry points. */
#include <potm/static/txd.h>

/* ---- read-only transactions ------------------------------------------- */

/* TM_BEGIN_RO(); ... TM_END(); is a transaction that promises not to
 * write: TM_BEGIN() followed by tm_declare_read_only().  On silo it reads
 * a consistent snapshot, the state at its start, and never aborts
 * (stm/silo.c, N1-N7); elsewhere it runs as an ordinary transaction.
 * Either way a write through the library inside it is an API misuse
 * (reported, the process aborts).  Nested inside a running transaction it joins that
 * one unchanged, as TM_BEGIN does. */
#define TM_BEGIN_RO() POTM_TX_BEGIN_() tm_declare_read_only()

/* Declare the running transaction read-only; call it first in the block,
 * before any access (every attempt starts at TM_BEGIN and declares
 * again).  Outside a transaction, or after the attempt's first access, a
 * misuse; in a nested block, no effect. */
void tm_declare_read_only(void);

/* The old versions kept for snapshot transactions right now (silo: the
 * stripe versions linked in the version chains); 0 on backends without
 * snapshots.  For tests and statistics. */
size_t tm_snapshot_versions(void);

/* tm_write of a word whose current bytes no snapshot can read: memory
 * that no committed state has ever reached (a block allocated and not
 * yet published, or published by this very transaction), or a slot of a
 * structure that no committed state has ever named, such as a B+-tree
 * node's free slot that has held no entry since the node was made.  A
 * backend that keeps old versions for snapshots (silo) keeps none of
 * this word's; elsewhere it is tm_write.  The caller vouches for the
 * freshness: a snapshot that could read the word would read the new
 * bytes.  POTM_KEEPS_VERSIONS_ is defined in a build for such a
 * backend: without it a caller may skip working out whether a word is
 * fresh and call tm_write. */
void tm_write_fresh(tm_word_t *a, tm_word_t v);

/* ---- memory ------------------------------------------------------------ */

/* Allocate inside a transaction; the block is freed again if the attempt
 * aborts.  Outside a transaction it is plain malloc. */
void *tm_malloc(size_t size);

/* Free inside a transaction: takes effect at commit, and the memory goes
 * back to the allocator only after a grace period, once no transaction that
 * could still hold a pointer to it is running.  Outside a transaction the
 * same deferred reclamation applies. */
void tm_free(void *ptr);

/* Wait until every block freed so far by the calling thread, and by
 * threads that have exited, has been reclaimed (for tests and shutdown;
 * a registered thread hands its committed frees over in batches, and
 * when it exits).  Must not be called inside a transaction. */
void tm_reclaim_barrier(void);

/* ---- accesses ------------------------------------------------------------
 *
 * Inside a transaction, shared memory is read and written through typed
 * accesses, one pair per type T:
 *
 *     T    tm_read<sfx>(const T *a);
 *     void tm_write<sfx>(T *a, T v);
 *
 *     <sfx>     T                      <sfx>     T
 *     (none)    tm_word_t              _i8       int8_t
 *     _u8       uint8_t                _char     char
 *     _u16      uint16_t               _i16      int16_t
 *     _u32      uint32_t               _i32      int32_t
 *     _u64      uint64_t               _i64      int64_t
 *     _ptr      tm_ptr_t               _ll       long long
 *     _float    float                  _ull      unsigned long long
 *     _double   double
 *
 * Natural alignment is required.  Sub-word writes never touch the bytes
 * around them.  An access outside a transaction is a misuse: reported,
 * and the process aborts (except where an access is a plain load or store
 * compiled inline with NDEBUG: seq, rtm, pot-rtm).  With
 * -DPOTM_BACKEND_<NAME> a backend's common case is inline; without it
 * every access is a call, with the same meaning.
 *
 *     void tm_read_bytes(void *dst, const void *src, size_t n);
 *
 * copies n bytes of shared memory at src (any alignment) into private
 * memory at dst (which must not overlap it): the same as n tm_read_u8
 * calls, but a backend reads as much at once as it can (tl2: one
 * snapshot check per stripe, not per byte).
 *
 *     void tm_write_bytes(void *dst, const void *src, size_t n);
 *
 * copies n bytes of private memory at src into shared memory at dst (any
 * alignment; not overlapping): the same as n tm_write_u8 calls (the bytes
 * around the range are never written), but a backend takes the range at
 * once where it can (tl2, silo: one write-set entry per word).
 */
#include <potm/static/access.h>

/* TM_LOAD(p) / TM_STORE(p, v): the typed access chosen by the pointer's
 * type, returning the pointee's own type.  Any other pointee is taken to
 * be a pointer (tm_read_ptr / tm_write_ptr). */
#define POTM_GENERIC_LOAD_(T, f) T *: f, const T *: f
#define TM_LOAD(p)                                                         \
	_Generic((p),                                                      \
		POTM_GENERIC_LOAD_(_Bool, tm_read_u8_bool_),               \
		POTM_GENERIC_LOAD_(char, tm_read_char),                    \
		POTM_GENERIC_LOAD_(signed char, tm_read_i8),               \
		POTM_GENERIC_LOAD_(unsigned char, tm_read_u8),             \
		POTM_GENERIC_LOAD_(short, tm_read_i16),                    \
		POTM_GENERIC_LOAD_(unsigned short, tm_read_u16),           \
		POTM_GENERIC_LOAD_(int, tm_read_i32),                      \
		POTM_GENERIC_LOAD_(unsigned, tm_read_u32),                 \
		POTM_GENERIC_LOAD_(long, tm_read_i64),                     \
		POTM_GENERIC_LOAD_(unsigned long, tm_read_u64),            \
		POTM_GENERIC_LOAD_(long long, tm_read_ll),                 \
		POTM_GENERIC_LOAD_(unsigned long long, tm_read_ull),       \
		POTM_GENERIC_LOAD_(float, tm_read_float),                  \
		POTM_GENERIC_LOAD_(double, tm_read_double),                \
		default: tm_load_ptr_)(p)
#define TM_STORE(p, v)                                                     \
	_Generic((p),                                                      \
		_Bool *: tm_write_u8_bool_,                                \
		char *: tm_write_char,                                     \
		signed char *: tm_write_i8,                                \
		unsigned char *: tm_write_u8,                              \
		short *: tm_write_i16,                                     \
		unsigned short *: tm_write_u16,                            \
		int *: tm_write_i32,                                       \
		unsigned *: tm_write_u32,                                  \
		long *: tm_write_i64,                                      \
		unsigned long *: tm_write_u64,                             \
		long long *: tm_write_ll,                                  \
		unsigned long long *: tm_write_ull,                        \
		float *: tm_write_float,                                   \
		double *: tm_write_double,                                 \
		default: tm_store_ptr_)((p), (v))

/* ==== barriers and ordering ================================================
 *
 * Barriers work with every backend.  With a deterministic backend (pot) a
 * barrier is also part of the order: a registered thread arrives in its
 * own turn, then stops holding turns while it waits, so the threads still
 * running never wait for it; the arrival that completes the barrier puts
 * the waiting threads back and a new round of turns begins.
 *
 * The determinism contract (pot): the same program with the same input and
 * the same number of threads commits the same transactions in the same
 * order and ends in the same state, provided threads communicate only
 * through transactions, tm barriers and tm_thread_enter/exit.  By default
 * (POTM_SEQUENCER=round-robin) transactions take turns by logical id: in
 * each round every registered thread commits one transaction, lowest id
 * first.  Registration joins at the next round boundary, so start
 * deterministically: every thread registers, then all meet at a tm
 * barrier (or all register before any of them runs a transaction).  A
 * registered thread holds its turns until tm_thread_exit(): one that
 * blocks elsewhere (pthread_join, a mutex, a non-tm barrier) while others
 * wait is reported after POTM_TURN_TIMEOUT_MS.
 */

typedef struct tm_barrier {
	unsigned count;        /* threads that must arrive */
	unsigned arrived;      /* arrivals in the current generation */
	uint32_t generation;   /* bumped by the arrival that completes it */
	uint32_t lock;         /* guards arrived and parked */
	unsigned nparked;      /* registered threads parked in this generation */
	unsigned *parked;      /* ... their logical ids (count slots) */
} tm_barrier_t;

/* tm_barrier_wait's result for exactly one thread of each generation (the
 * one whose arrival completed it); the others get 0. */
#define TM_BARRIER_SERIAL 1

/* count >= 1 threads.  Returns 0, or -1 with tm_last_error(). */
int tm_barrier_init(tm_barrier_t *b, unsigned count);

/* Wait until count threads have arrived.  Not inside a transaction.
 * Registered and unregistered threads may both take part; with pot, the
 * order of the registered ones is deterministic only if the arrival that
 * completes the barrier is a registered thread's. */
int tm_barrier_wait(tm_barrier_t *b);

/* Returns 0, or -1 if threads are still waiting on it. */
int tm_barrier_destroy(tm_barrier_t *b);

/* The calling thread's last top-level transaction, committed or cancelled
 * (a cancelled transaction takes its place too, as a no-op): its slot
 * number in the deterministic order, counting from 0 at tm_init.  Slots
 * also go to barrier arrivals, thread exits and tm_restart() calls made in
 * the turn (which give the turn up, so that other threads can change what
 * the transaction waits for), so the numbers of one thread's transactions
 * are increasing but not consecutive.  TM_ORDER_NONE
 * with a non-deterministic backend or before the first transaction.
 * Replaying the transactions sequentially by slot number reproduces the
 * run's final state. */
#define TM_ORDER_NONE UINT64_MAX
uint64_t tm_last_order(void);

/* True when the linked backend commits in a deterministic order (pot,
 * pot-rtm, pot-rot, in every POTM_MODE), false otherwise.  A program whose
 * transactions read shared memory without barriers (STAMP's labyrinth
 * copies its grid with plain loads) must make those reads part of its
 * transaction when this is true, or its result may depend on timing. */
bool tm_is_deterministic(void);

/* Inside a transaction: 1 if its turn in the deterministic order has come,
 * so that it may commit without waiting (Pot: it runs, or will run from
 * its next access, in fast mode), 0 if its commit would wait for the
 * transactions before it; 1 on a backend that orders nothing.  A program
 * may use a wait it sees coming: potm-server extends a speculative
 * transaction with the next request of the order instead of idling.
 * -1 with tm_last_error() outside a transaction. */
int tm_order_reached(void);

/* Explicit order (POTM_SEQUENCER=explicit, backend pot): the calling
 * thread's next top-level transaction takes slot seqno.  Slots are
 * numbered from 0 at tm_init and each must be supplied exactly once, by
 * any thread, as a replicated state machine supplies its agreed log
 * positions; transactions then commit in slot order whatever thread runs
 * them.  Call it before each transaction (a transaction started without a
 * supplied slot is an API misuse).  A transaction restarted with
 * tm_restart() keeps its slot; a cancelled one consumes it.  A slot that
 * nobody supplies stops the order: after POTM_TURN_TIMEOUT_MS the waiting
 * thread reports the gap and the process aborts.  Returns 0, or -1 with
 * tm_last_error(): other backend or sequencer, slot already consumed or
 * supplied by another thread, called inside a transaction. */
int tm_set_next_order(uint64_t seqno);

/* The same, with the transaction's commutativity key (Vale's thesis,
 * 3.2 "multiple simultaneous fast transactions", and 5.3.2): the
 * application promises that two transactions with different keys touch
 * disjoint data (neither reads nor writes what the other writes, the
 * records and every structure they reach: a tree or a hash chain two of
 * them insert into is shared data), so that their order does not change
 * the outcome.  TM_KEY_NONE commutes with nothing.  With pot in a mode
 * with fast mode (pot, pot-fast), a keyed transaction whose key differs
 * from those of every unfinished slot between the turn and its own (all
 * supplied, none TM_KEY_NONE) runs in fast mode at once, in place beside
 * them, and still commits in its slot; if it ends before the turn
 * reaches it, tm_commit returns at once and the thread that passes the
 * turn to its slot passes it on (its effects are in memory and it cannot
 * roll back any more; tm_last_order is its slot, and the slot counts as
 * consumed).  tm_stats' early_fast counts them.  A keyless transaction
 * (tm_set_next_order) runs exactly as before and, like TM_KEY_NONE,
 * commutes with nothing.  Other Pot modes and backends (pot-rtm,
 * pot-rot) accept keys and ignore them.  Returns 0, or -1 with
 * tm_last_error(): as tm_set_next_order, a key without the explicit
 * order, and (with tm_set_next_order too) another supply while the
 * calling thread's keyed slot has not run: a later slot may already run
 * beside it on the strength of its key. */
#define TM_KEY_NONE UINT64_MAX
int tm_set_next_order_key(uint64_t seqno, uint64_t key);

/* Weighted order (POTM_SEQUENCER=weighted, Pot backends): the calling
 * thread's transactions from now on weigh weight (1..TM_WEIGHT_MAX; 1 by
 * default), roughly how long one runs compared with the shortest.  The
 * order stays deterministic: each thread has a virtual clock, the next
 * slot goes to the thread whose next transaction ends first in virtual
 * time (clock + weight; ties: lowest logical id), and its clock moves
 * there.  With equal weights this is the round-robin order; with a long
 * transaction declared heavy, the other threads commit about that many
 * light ones while it runs, instead of waiting for it in every round.
 * The weights must be a deterministic function of the program's input
 * (the operation about to run, say), never of timing.  Other sequencers
 * and backends keep the value and ignore it, so a program may always set
 * weights.  A transaction hinted serial (tm_hint_serial) where pot runs
 * it so (pot, pot-fast with tm_config_t.serial) weighs 1: nothing runs
 * beside it, so a later slot would only keep its thread waiting.
 * Returns 0, or -1 with tm_last_error(): weight out of range, calling
 * thread not registered, called inside a transaction. */
#define TM_WEIGHT_MAX 1000000u
int tm_set_weight(unsigned weight);

#ifdef __cplusplus
}
#endif
#endif /* POTM_TM_H */
