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
};

int tm_tx_start_(tm_txd_t *d)
{
	return potm_tx_enter((potm_thread_t *)d) != POTM_ENTER_SKIP;
}

void tm_tx_end_(tm_txd_t *d)
{
	potm_thread_t *t = (potm_thread_t *)d;
	if (--d->depth > 0)
		return;
	d->depth = 1;   /* potm_tx_committed expects the transaction open */
	potm_tx_committed(t, false);
}

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

tm_word_t tm_read(const tm_word_t *a)
{
	potm_self_in_tx("tm_read");
	return *a;
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	potm_self_in_tx("tm_write");
	*a = v;
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
	potm_self_in_tx("tm_write");
	memcpy(a, &b, size);
}

#include "access_gen.h"
