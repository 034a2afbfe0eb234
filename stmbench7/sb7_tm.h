/*
 * stmbench7/sb7_tm.h — how STMBench7 touches shared memory.
 *
 * The benchmark is compiled in three flavours from the same sources:
 *
 *   (default)        a potm transaction per operation: SB7_LOAD/SB7_STORE
 *                    are TM_LOAD/TM_STORE, memory comes from tm_malloc and
 *                    goes back through tm_free (deferred reclamation).
 *   SB7_LOCK_COARSE  one reader-writer lock around every operation.
 *   SB7_LOCK_MEDIUM  one reader-writer lock per level of the structure.
 *
 * The operations of a potm build are also compiled a second time as its
 * serial clone (SB7_SERIAL_CLONE, sb7_serial.h): plain loads and stores,
 * memory from tm_malloc/tm_free, for transactions that run in serial mode
 * (tm_serial(): alone, nothing to instrument).
 *
 * In the lock flavours the accesses are plain loads and stores and memory
 * is freed at once: every operation that frees memory (the structural
 * modifications, a text chunk replaced by an edit, a container array
 * outgrown) holds the write lock of everything that could still point to
 * it.
 *
 * What is read without SB7_LOAD:
 *  - the descriptor of the whole database (parameters, the headers of the
 *    indexes and id pools), which is written before the first worker starts
 *    and never again;
 *  - the contents (length and bytes) of a published text chunk
 *    (sb7_text.h).  A published chunk is immutable: an edit publishes a new
 *    chunk with SB7_STORE of the chunk pointer and sb7_free()s the old one,
 *    so the pointer, loaded with SB7_LOAD, is what the transaction's
 *    snapshot covers, and tm_free's grace period keeps the old chunk
 *    readable for every transaction that may still hold it.  This is what
 *    makes the text scans (T4, T8, ST2) cost one transactional load per
 *    chunk instead of one per 8 characters.
 *  - frozen fields, read with SB7_FROZEN: the fields sb7_struct.h marks
 *    immutable that the traversals navigate by (an atomic part's id, a
 *    connection's ends, an assembly's kind, a composite part's root part
 *    and document), a map node's key and height, a string key's length and
 *    words.  Such a field is written with plain stores before its object is
 *    published and never again, so it holds the same value in every
 *    snapshot that can reach the object: the transactional load of the
 *    pointer that led to the object is all the snapshot needs (a doomed
 *    transaction still reads a value that was true of a live object), and
 *    tm_free's grace period keeps a removed object readable.  STMBench7's
 *    T3c makes 175,000 skip-list searches of the build-date index; with
 *    the keys frozen each costs half the transactional loads.
 * Every other field goes through SB7_LOAD/SB7_STORE, including the
 * "nullOperation" read of every object a traversal visits (SB7_TOUCH),
 * which is what puts the object in the transaction's read set; memory a
 * transaction allocated and has not yet published (a new object, a new
 * text chunk) is filled with plain stores.
 */
#ifndef SB7_TM_H
#define SB7_TM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(SB7_LOCK_COARSE) || defined(SB7_LOCK_MEDIUM)
#define SB7_LOCKS 1
#endif

/* Stores made by this thread since it started: an operation that reports
 * failure must not have written anything unless the backend can roll it
 * back (see sb7_driver's use).  Kept per thread like errno, because the
 * store macro has no other context to count into.  initial-exec, as
 * tm_self_: in the library the Python package loads
 * (libpotm-bench-<b>-stmbench7.so) the default model would call
 * __tls_get_addr on every counted store, 700,000 per T3c in the serial
 * clone. */
extern __thread unsigned long sb7_stores_by_this_thread
	__attribute__((tls_model("initial-exec")));

/* Read a field for its own sake: the original's "nullOperation" on an
 * object it visits.  The empty asm keeps the compiler from dropping a load
 * whose value is unused (a plain load in the lock and seq builds). */
#define SB7_TOUCH(p)                                                     \
	do {                                                             \
		__typeof__(*(p)) sb7_touched_ = SB7_LOAD(p);             \
		__asm__ __volatile__("" : : "r"(sb7_touched_));          \
	} while (0)

/* A frozen field (see above): a plain load in every build. */
#define SB7_FROZEN(p) (*(p))

#ifdef SB7_LOCKS

#define SB7_LOAD(p) (*(p))
#define SB7_STORE(p, v) ((void)(sb7_stores_by_this_thread++, *(p) = (v)))

static inline void *sb7_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL) {
		fprintf(stderr, "stmbench7: out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

static inline void sb7_free(void *p)
{
	free(p);
}

/* Lock builds cannot undo a write. */
#define SB7_CAN_ROLL_BACK 0

/* A block run while no other thread works (build, check, teardown). */
#define SB7_SOLO_BEGIN() do {
#define SB7_SOLO_END() } while (0)

#else /* a potm backend, or its serial clone */

#include <potm/tm.h>

#ifdef SB7_SERIAL_CLONE

/* Alone (serial mode): plain accesses, as seq.  A plain store cannot be
 * rolled back, so stores are counted: sb7_execute reports an operation
 * that fails after storing (none does: the lock builds check the same). */
#define SB7_LOAD(p) (*(p))
#define SB7_STORE(p, v) ((void)(sb7_stores_by_this_thread++, *(p) = (v)))

#else

/* TM_LOAD returns void * for every pointer field; the cast gives back the
 * field's own type, so that loads nest (SB7_LOAD(&SB7_LOAD(&a->b)->c)). */
#define SB7_LOAD(p) ((__typeof__(*(p)))TM_LOAD(p))

/* seq keeps no log: tm_cancel is an error there, and a failed operation
 * must not have stored anything (counted).  The others roll a failed
 * operation back: nothing to count (the long update traversals store
 * 700,000 times). */
#ifdef POTM_BACKEND_SEQ
#define SB7_CAN_ROLL_BACK 0
#define SB7_STORE(p, v) ((void)(sb7_stores_by_this_thread++, TM_STORE((p), (v))))
#else
#define SB7_CAN_ROLL_BACK 1
#define SB7_STORE(p, v) ((void)TM_STORE((p), (v)))
#endif

#endif /* SB7_SERIAL_CLONE */

static inline void *sb7_alloc(size_t size)
{
	void *p = tm_malloc(size);
	if (p == NULL) {
		fprintf(stderr, "stmbench7: out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

static inline void sb7_free(void *p)
{
	tm_free(p);
}

#define SB7_SOLO_BEGIN() TM_BEGIN()
#define SB7_SOLO_END() TM_END()

#endif

#endif /* SB7_TM_H */
