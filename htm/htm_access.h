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

tm_word_t tm_read(const tm_word_t *a)
{
	potm_self_in_tx("tm_read");
	return *a;
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	potm_thread_t *t = potm_self_in_tx("tm_write");
	if (t->txd.flags & TM_TXD_UNDO)
		potm_undo_log(htm_undo_of(t), a, sizeof *a);
	*a = v;
}

void tm_undo_log_(void *a, unsigned size)
{
	potm_undo_log(htm_undo_of(potm_self()), a, size);
}

static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	potm_self_in_tx("tm_read");
	uint64_t b = 0;
	memcpy(&b, a, size);
	return b;
}

static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	potm_thread_t *t = potm_self_in_tx("tm_write");
	if (t->txd.flags & TM_TXD_UNDO)
		potm_undo_log(htm_undo_of(t), a, size);
	memcpy(a, &b, size);
}

#include "access_gen.h"

#endif /* POTM_HTM_ACCESS_H */
