/*
 * stm/gl.c — one global lock around every transaction.
 *
 * The lock is a ticket lock (FIFO, one shared counter pair) whose waiters
 * spin proportionally to their distance from the head and yield once they
 * have spun for long: with more threads than cores the next ticket holder
 * may be descheduled, and spinning on it would waste the quantum it needs.
 * Writes are in place with an undo log, so tm_restart and tm_cancel work.
 */
#include "potm_internal.h"

typedef struct gl_thread {
	potm_thread_t th;
	potm_undo_t undo;
} gl_thread_t;

static struct {
	uint32_t next POTM_ALIGNED;    /* next ticket to hand out */
	uint32_t serving POTM_ALIGNED; /* ticket that holds the lock */
} gl_lock;

/* Only the waiter next in line spins; the others yield at once.  With more
 * threads than cores, the CPU a far waiter would burn is the one the holder
 * or the next waiter needs, and a FIFO lock cannot progress past a
 * descheduled waiter until it runs again. */
static void gl_acquire(void)
{
	uint32_t me = __atomic_fetch_add(&gl_lock.next, 1, __ATOMIC_RELAXED);
	unsigned spins = 0;
	for (;;) {
		uint32_t cur = __atomic_load_n(&gl_lock.serving, __ATOMIC_ACQUIRE);
		if (cur == me)
			return;
		if (me - cur > 1 || ++spins > 256) {
			sched_yield();
			continue;
		}
		potm_cpu_relax();
	}
}

static void gl_release(void)
{
	uint32_t cur = __atomic_load_n(&gl_lock.serving, __ATOMIC_RELAXED);
	__atomic_store_n(&gl_lock.serving, cur + 1, __ATOMIC_RELEASE);
}

static void gl_thread_fini(potm_thread_t *t)
{
	potm_undo_free(&((gl_thread_t *)t)->undo);
}

const potm_backend_t potm_backend = {
	.name = "gl",
	.thread_size = sizeof(gl_thread_t),
	.thread_fini = gl_thread_fini,
};

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	gl_acquire();
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	gl_thread_t *g = (gl_thread_t *)d;
	bool ro = potm_undo_count(&g->undo) == 0;
	potm_undo_clear(&g->undo);
	gl_release();
	return ro;
}

#include "tx_gen.h"

static gl_thread_t *gl_rollback(const char *which)
{
	gl_thread_t *g = (gl_thread_t *)potm_self_in_tx(which);
	potm_undo_rollback(&g->undo);
	gl_release();
	return g;
}

void tm_restart(void)
{
	potm_tx_aborted(&gl_rollback("tm_restart")->th, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	potm_tx_cancelled(&gl_rollback("tm_cancel")->th);
}

static inline void BACKEND_LOG_WRITE(potm_thread_t *t, void *a, unsigned size)
{
	potm_undo_log(&((gl_thread_t *)t)->undo, a, size);
}

/* tm.h reads inline inside a transaction; the library's reads are its
 * slow path, under the _spec_ names. */
#define POTM_GEN_IN_PLACE 1
#define POTM_GEN_READ_SPEC 1
#include "access_gen.h"
