/* lib/error.c — error reporting: tm_last_error(), fatal misuse. */
#include "potm_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* One message per thread: an API call that fails records why, and the same
 * thread asks.  The buffer is allocated at a thread's first error and freed
 * at its exit: a static thread-local one this long would not fit the static
 * TLS that a dlopen'ed libpotm gets (its tm_self_ is initial-exec), and
 * config.c's list of the settings needs the room. */
#define POTM_ERRBUF_SIZE 2048
static __thread char *potm_errbuf;
static pthread_key_t potm_errkey;
static pthread_once_t potm_errkey_once = PTHREAD_ONCE_INIT;

static void potm_errkey_init(void)
{
	if (pthread_key_create(&potm_errkey, free) != 0)
		potm_fatal("cannot create the error message's thread key");
}

/* NULL when out of memory: the message is lost, the call still fails. */
static char *potm_errbuf_get(void)
{
	if (potm_errbuf == NULL) {
		pthread_once(&potm_errkey_once, potm_errkey_init);
		char *b = malloc(POTM_ERRBUF_SIZE);
		if (b == NULL)
			return NULL;
		b[0] = '\0';
		if (pthread_setspecific(potm_errkey, b) != 0) {
			free(b);
			return NULL;
		}
		potm_errbuf = b;
	}
	return potm_errbuf;
}

const char *tm_last_error(void)
{
	return potm_errbuf != NULL ? potm_errbuf : "";
}

static void potm_errbuf_set(const char *fmt, va_list ap)
{
	char *b = potm_errbuf_get();
	if (b != NULL)
		vsnprintf(b, POTM_ERRBUF_SIZE, fmt, ap);
}

int potm_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	potm_errbuf_set(fmt, ap);
	va_end(ap);
	if (potm_cfg.verbose)
		fprintf(stderr, "potm: error: %s\n", tm_last_error());
	return -1;
}

int potm_unsupported(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	potm_errbuf_set(fmt, ap);
	va_end(ap);
	return TM_ERR_UNSUPPORTED;
}

void potm_fatal(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("potm: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void tm_misuse_(const char *which)
{
	potm_fatal("API misuse: %s", which);
}

void *potm_xmalloc(size_t size)
{
	void *p = malloc(size);
	if (p == NULL && size != 0)
		potm_fatal("out of memory (%zu bytes)", size);
	return p;
}

void *potm_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (p == NULL && n != 0 && size != 0)
		potm_fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *potm_xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (p == NULL && size != 0)
		potm_fatal("out of memory (%zu bytes)", size);
	return p;
}

void potm_ptrvec_grow(potm_ptrvec_t *pv)
{
	pv->cap = pv->cap ? 2 * pv->cap : 16;
	pv->v = potm_xrealloc(pv->v, pv->cap * sizeof *pv->v);
}

void potm_ptrvec_free(potm_ptrvec_t *pv)
{
	free(pv->v);
	pv->v = NULL;
	pv->n = pv->cap = 0;
}

void potm_undo_grow(potm_undo_t *u)
{
	size_t n = potm_undo_count(u), cap = (size_t)(u->end - u->e);
	cap = cap ? 2 * cap : 64;
	u->e = potm_xrealloc(u->e, cap * sizeof *u->e);
	if (u->seen == NULL)
		u->seen = potm_xcalloc((size_t)1 << TM_UNDO_SEEN_BITS, sizeof *u->seen);
	u->seen_from = u->e + TM_UNDO_SEEN_AFTER;
	u->next = u->e + n;
	u->end = u->e + cap;
	potm_undo_set_plain(u, u->plain_end != NULL);
}

void potm_undo_rollback(potm_undo_t *u)
{
	while (u->next > u->e) {
		const potm_undo_entry_t *e = --u->next;
		memcpy(potm_undo_addr(e), &e->old, potm_undo_size(e));
		if (e >= u->seen_from)
			u->seen[tm_undo_seen_slot_(e->where)] = 0;
	}
}

void potm_undo_free(potm_undo_t *u)
{
	free(u->e);
	free(u->seen);
	u->e = u->next = u->end = u->plain_end = u->quick_end = NULL;
	u->seen = NULL;
	u->seen_from = NULL;
}
