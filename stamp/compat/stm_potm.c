/*
 * stm_potm.c — the run-time part of stm.h: what TL2's libtl2 provides to
 * STAMP (start-up, shutdown, thread handles) plus the rollback log of
 * STM_LOCAL_WRITE.  Linked, together with a potm backend library, through
 * the libtl2 stand-in that the build writes next to stm.h.
 */
#include "stm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- start-up and shutdown -------------------------------------------- */

static int stats_reported;

void stm_potm_stats_reported(void)
{
	stats_reported = 1;
}

/* Defined by the compat thread library (thread.c of this directory, built
 * with -DSTM); left undefined (weak: address NULL) when the program links
 * STAMP's own lib/thread.c. */
extern const int potm_stamp_compat_threads __attribute__((weak));

/* The build names the tl2-compat directory this copy was compiled for. */
#ifndef POTM_STAMP_COMPAT_DIR
#define POTM_STAMP_COMPAT_DIR "the STM directory"
#endif

/* A deterministic backend needs the compat thread library: STAMP's own
 * parks registered threads at a mutex/condition-variable barrier that the
 * order cannot see, so the thread holding the turn never takes it and
 * every other thread waits for it (genome and ssca2 stall at their first
 * barrier).  Refused before anything runs. */
static void require_compat_threads(void)
{
	if (&potm_stamp_compat_threads != NULL || !tm_is_deterministic())
		return;
	fprintf(stderr,
	        "potm: backend %s is deterministic and needs potm's STAMP thread "
	        "library, but this program links another one (STAMP's own "
	        "lib/thread.c): its threads would wait at barriers that the "
	        "deterministic order cannot see, and the run would stall.\n"
	        "potm: copy tm.h, thread.h and thread.c from "
	        POTM_STAMP_COMPAT_DIR " into STAMP's lib/ (their barriers are tm "
	        "barriers) and rebuild after 'make -f Makefile.stm clean', or "
	        "use a backend that is not deterministic (tl2).\n",
	        tm_backend_name());
	exit(1);
}

static int turn_batch_given;
static unsigned turn_batch;

void stm_potm_default_turn_batch(unsigned accesses)
{
	turn_batch_given = 1;
	turn_batch = accesses;
}

void stm_potm_startup(void)
{
	require_compat_threads();
	tm_config_t cfg;
	tm_config_default(&cfg);
	if (turn_batch_given)
		cfg.turn_batch = turn_batch;   /* POTM_TURN_BATCH still wins */
	int rc = tm_init(&cfg);
	if (rc == TM_ERR_UNSUPPORTED) {
		/* 77: "skipped" for test harnesses (ctest SKIP_RETURN_CODE). */
		fprintf(stderr, "potm: backend %s cannot run on this machine: %s\n",
		        tm_backend_name(), tm_last_error());
		exit(77);
	}
	if (rc != 0) {
		fprintf(stderr, "potm: tm_init failed (backend %s): %s\n",
		        tm_backend_name(), tm_last_error());
		exit(1);
	}
}

void stm_potm_shutdown(void)
{
	/* TL2's TxShutdown prints its statistics; so does this, as one JSON
	 * line, unless the program printed its own report. */
	if (!stats_reported) {
		tm_stats_t s;
		if (tm_stats(&s) == 0) {
			printf("{\"backend\": \"%s\", \"tm_stats\": ", tm_backend_name());
			tm_stats_print_json(stdout, &s);
			printf("}\n");
			fflush(stdout);
		}
	}
	tm_shutdown();
}

/* ---- thread handles ----------------------------------------------------- */

stm_potm_thread_t *stm_potm_new_thread(void)
{
	stm_potm_thread_t *t = calloc(1, sizeof *t);
	if (t == NULL) {
		fprintf(stderr, "potm: out of memory for a thread handle\n");
		abort();
	}
	return t;
}

void stm_potm_init_thread(stm_potm_thread_t *t, long id)
{
	t->id = id;
	/* The compat thread library registers every thread of a parallel
	 * region before running it (so that a deterministic backend sees
	 * all of them from the first transaction on); STAMP's own thread
	 * library does not, and then the handle registers the thread. */
	if (tm_self_ != NULL)
		return;
	if (id < 0 || tm_thread_enter((unsigned)id) != 0) {
		fprintf(stderr, "potm: cannot register thread %ld with backend %s: %s\n",
		        id, tm_backend_name(), tm_last_error());
		exit(1);
	}
	t->registered_here = 1;
}

static void local_log_release(void);

void stm_potm_free_thread(stm_potm_thread_t *t)
{
	if (t == NULL)
		return;
	local_log_release();   /* the thread may end after this */
	if (t->registered_here)
		tm_thread_exit();
	free(t);
}

/* ---- rollback log of STM_LOCAL_WRITE ------------------------------------
 * (The restore is stm_potm_local_attempt_ in stm.h.) */

__thread size_t stm_potm_local_count_ __attribute__((tls_model("initial-exec")));
__thread stm_potm_local_entry_t *stm_potm_local_entries_
	__attribute__((tls_model("initial-exec")));
static __thread size_t local_capacity;

void stm_potm_local_log_(void *addr, size_t size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		fprintf(stderr, "potm: STM_LOCAL_WRITE of a %zu-byte variable "
		        "(1, 2, 4 or 8 bytes)\n", size);
		abort();
	}
	if (stm_potm_local_count_ == local_capacity) {
		size_t cap = local_capacity ? 2 * local_capacity : 64;
		stm_potm_local_entry_t *grown =
		        realloc(stm_potm_local_entries_, cap * sizeof *grown);
		if (grown == NULL) {
			fprintf(stderr, "potm: out of memory for the local-write log\n");
			abort();
		}
		stm_potm_local_entries_ = grown;
		local_capacity = cap;
	}
	stm_potm_local_entry_t *e = &stm_potm_local_entries_[stm_potm_local_count_++];
	e->addr = addr;
	e->size = size;
	e->old = 0;
	memcpy(&e->old, addr, size);
}

static void local_log_release(void)
{
	free(stm_potm_local_entries_);
	stm_potm_local_entries_ = NULL;
	local_capacity = 0;
	stm_potm_local_count_ = 0;
}
