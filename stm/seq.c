/*
 * stm/seq.c — no concurrency control: plain loads and stores, one thread.
 *
 * The physical limit that every other backend's overhead is measured
 * against.  Programs compiled with -DPOTM_BACKEND_SEQ get the accesses
 * inlined from tm.h; these out-of-line versions serve everyone else.
 *
 * With nothing logged there is nothing to roll back: tm_restart and
 * tm_cancel are reported as errors (STAMP's sequential build does the same).
 */
#include "potm_internal.h"

const potm_backend_t potm_backend = {
	.name = "seq",
	.thread_size = sizeof(potm_thread_t),
	.max_threads = 1,
	.frees_at_commit = true,
};

/* One thread (max_threads): potm_tx_committed reclaims what it freed at
 * once (frees_at_commit), so no read-side section is needed. */
#define BACKEND_NO_READ_SECTION 1

/* One thread, in place: nothing to start, nothing to publish.  Writes
 * are not tracked, so no commit counts as read-only. */
static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	return false;
}

#include "tx_gen.h"

void tm_restart(void)
{
	potm_self_in_tx("tm_restart");
	potm_fatal("tm_restart: the seq backend keeps no log and cannot roll "
	           "back; use gl or an STM backend");
}

void tm_cancel(void)
{
	potm_self_in_tx("tm_cancel");
	potm_fatal("tm_cancel: the seq backend keeps no log and cannot roll "
	           "back; use gl or an STM backend");
}

/* Nothing is logged (hence no tm_restart). */
static inline void BACKEND_LOG_WRITE(potm_thread_t *t, void *a, unsigned size)
{
}

#define POTM_GEN_IN_PLACE 1
#include "access_gen.h"
