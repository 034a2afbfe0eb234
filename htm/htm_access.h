/*
 * htm/htm_access.h — the transactional accesses of the HTM backends (rtm,
 * rot, pot-rtm, pot-rot): plain loads and stores.  A hardware transaction
 * needs no instrumentation; a path that writes in place in software (the
 * global-lock fallback, Pot's fast mode) sets TM_TXD_UNDO and logs the old
 * bytes, so that tm_restart and tm_cancel can undo them.
 *
 * The including backend defines, before including this file,
 *   static inline potm_undo_t *htm_undo_of(potm_thread_t *t);
 * Programs compiled with POTM_BACKEND_RTM or POTM_BACKEND_POT_RTM inline
 * the same accesses from tm.h; these out-of-line versions serve everyone
 * else.
 */
#ifndef POTM_HTM_ACCESS_H
#define POTM_HTM_ACCESS_H

static inline void BACKEND_LOG_WRITE(potm_thread_t *t, void *a, unsigned size)
{
	if (t->txd.flags & TM_TXD_UNDO)
		potm_undo_log(htm_undo_of(t), a, size);
}

/* The inline writes of programs compiled with a backend macro log here. */
void tm_undo_log_(void *a, unsigned size)
{
	potm_undo_log(htm_undo_of(potm_self()), a, size);
}

#define POTM_GEN_IN_PLACE 1
#include "access_gen.h"

#endif /* POTM_HTM_ACCESS_H */
