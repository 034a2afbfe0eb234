/*
 * lib/read_only.c — transactions declared read-only (TM_BEGIN_RO).
 *
 * The declaration is a flag of the attempt (TM_TXD_READ_ONLY, cleared by
 * every outermost start, lib/tx_gen.h) that the library's writes test
 * (potm_self_writing), plus the backend's own part where it has one
 * (silo: the attempt reads a snapshot instead).
 */
#include "potm_internal.h"

void potm_read_only_write(const char *which)
{
	potm_fatal("API misuse: %s inside a transaction declared read-only "
	           "(TM_BEGIN_RO / tm_declare_read_only)", which);
}

void tm_declare_read_only(void)
{
	potm_thread_t *t = potm_self_in_tx("tm_declare_read_only");
	if (t->txd.depth > 1)
		return;   /* nested: joins the enclosing transaction as it is */
	if (t->txd.flags & TM_TXD_READ_ONLY)
		return;
	t->txd.flags |= TM_TXD_READ_ONLY;
	if (potm_backend.declare_read_only != NULL)
		potm_backend.declare_read_only(t);
}

size_t tm_snapshot_versions(void)
{
	return potm_backend.snapshot_versions != NULL ? potm_backend.snapshot_versions() : 0;
}

void tm_write_fresh(tm_word_t *a, tm_word_t v)
{
	if (potm_backend.write_fresh != NULL)
		potm_backend.write_fresh(a, v);
	else
		tm_write(a, v);
}
