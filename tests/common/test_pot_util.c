/* tests/common/test_pot_util.c — see test_pot_util.h. */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_run.h"

const char *pot_modes[POT_NMODES];
const char *pot_sequenced_modes[POT_NSEQUENCED];

/* Both lists from the library's, before main. */
__attribute__((constructor)) static void pot_modes_init(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < POT_NMODES; i++) {
		pot_modes[i] = tm_mode_name(i);
		if (!potm_mode_policies[i].rounds && n < POT_NSEQUENCED)
			pot_sequenced_modes[n++] = pot_modes[i];
	}
}

void pot_use_mode(const char *mode)
{
	setenv("POTM_MODE", mode, 1);
	unsetenv("POTM_SEQUENCER");
}

void pot_use_sequencer(const char *mode, const char *sequencer)
{
	pot_use_mode(mode);
	setenv("POTM_SEQUENCER", sequencer, 1);
}

int pot_run_suite(Suite *s)
{
	return potm_check_run(s);
}

/* A backend this machine cannot run (pot-rtm without RTM when the tests
 * use the hardware: POTM_TEST_HTM_HARDWARE) skips the whole test binary
 * with the reason (exit 77), before Check forks its first test. */
__attribute__((constructor)) static void pot_skip_if_unsupported(void)
{
	int rc = tm_init(NULL);
	if (rc == TM_ERR_UNSUPPORTED) {
		printf("skipped: %s\n", tm_last_error());
		exit(77);
	}
	if (rc == 0)
		tm_shutdown();
}

void pot_init_or_fail(void)
{
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
}

uint64_t pot_hash(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 1099511628211ull;
	}
	return h;
}

/* Parameters of transaction (id, k): a fixed function of both. */
static uint64_t pot_param(unsigned id, unsigned k, unsigned salt)
{
	uint64_t z = ((uint64_t)id << 40) ^ ((uint64_t)k << 8) ^ salt;
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline long ld(long *p, bool tm)
{
	return tm ? TM_LOAD(p) : *p;
}

static inline void st(long *p, long v, bool tm)
{
	if (tm)
		TM_STORE(p, v);
	else
		*p = v;
}

/* ---- counter: one shared counter and a log of who incremented it ------- */

static long counter;
static long *counter_log;
static size_t counter_log_len;

static void counter_setup(unsigned n, unsigned per)
{
	counter = 0;
	counter_log_len = (size_t)n * per;
	counter_log = calloc(counter_log_len, sizeof(long));
}

static int64_t counter_body(unsigned id, unsigned k, bool tm)
{
	long c = ld(&counter, tm);
	st(&counter, c + 1, tm);
	st(&counter_log[c], (long)id << 20 | k, tm);
	return c;
}

static uint64_t counter_hash(void)
{
	uint64_t h = pot_hash(POT_HASH_INIT, (uint64_t)counter);
	for (long i = 0; i < counter && (size_t)i < counter_log_len; i++)
		h = pot_hash(h, (uint64_t)counter_log[i]);
	return h;
}

static void counter_teardown(void)
{
	free(counter_log);
	counter_log = NULL;
}

const pot_prog_t pot_prog_counter = {
	"counter", counter_setup, counter_body, counter_hash, counter_teardown,
};

/* ---- bank: transfers that happen only if the money is there ------------- */

#define BANK_ACCOUNTS 16
#define BANK_INITIAL 100
static long bank[BANK_ACCOUNTS * 8];   /* one account per 64 bytes */
#define ACCT(i) (&bank[(i) * 8])

static void bank_setup(unsigned n, unsigned per)
{
	(void)n;
	(void)per;
	memset(bank, 0, sizeof bank);
	for (int i = 0; i < BANK_ACCOUNTS; i++)
		*ACCT(i) = BANK_INITIAL;
}

static int64_t bank_body(unsigned id, unsigned k, bool tm)
{
	uint64_t r = pot_param(id, k, 1);
	if (r % 8 == 0) {
		/* An audit: read-only, must always see the total. */
		long sum = 0;
		for (int i = 0; i < BANK_ACCOUNTS; i++)
			sum += ld(ACCT(i), tm);
		return sum;
	}
	int from = (int)((r >> 8) % BANK_ACCOUNTS);
	int to = (int)((r >> 16) % BANK_ACCOUNTS);
	long amount = (long)((r >> 24) % 60) + 1;
	long f = ld(ACCT(from), tm);
	if (f < amount) {
		if (tm)
			tm_cancel();   /* an ordered no-op */
		return POT_CANCELLED;
	}
	st(ACCT(from), f - amount, tm);
	st(ACCT(to), ld(ACCT(to), tm) + amount, tm);
	return f;
}

static uint64_t bank_hash(void)
{
	uint64_t h = POT_HASH_INIT;
	for (int i = 0; i < BANK_ACCOUNTS; i++)
		h = pot_hash(h, (uint64_t)*ACCT(i));
	return h;
}

static void bank_teardown(void)
{
}

const pot_prog_t pot_prog_bank = {
	"bank", bank_setup, bank_body, bank_hash, bank_teardown,
};

/* ---- intset: a sorted linked list of small keys --------------------------- */

typedef struct node {
	long key;
	struct node *next;
} node_t;

#define SET_KEYS 64
static node_t set_head;       /* sentinel; key -1 */

static node_t *ldn(node_t **p, bool tm)
{
	return tm ? TM_LOAD(p) : *p;
}

static void stn(node_t **p, node_t *v, bool tm)
{
	if (tm)
		TM_STORE(p, v);
	else
		*p = v;
}

static void set_setup(unsigned n, unsigned per)
{
	(void)n;
	(void)per;
	set_head.key = -1;
	set_head.next = NULL;
	/* Half the keys present at the start. */
	node_t **tail = &set_head.next;
	for (long key = 0; key < SET_KEYS; key += 2) {
		node_t *x = malloc(sizeof *x);
		x->key = key;
		x->next = NULL;
		*tail = x;
		tail = &x->next;
	}
}

static int64_t set_body(unsigned id, unsigned k, bool tm)
{
	uint64_t r = pot_param(id, k, 2);
	long key = (long)(r % SET_KEYS);
	unsigned op = (unsigned)(r >> 32) % 4;   /* 0 contains, 1-2 insert, 3 remove */
	node_t *prev = &set_head;
	node_t *cur = ldn(&prev->next, tm);
	while (cur != NULL && ld(&cur->key, tm) < key) {
		prev = cur;
		cur = ldn(&cur->next, tm);
	}
	bool found = cur != NULL && ld(&cur->key, tm) == key;
	if (op == 0 || (op < 3 && found) || (op == 3 && !found))
		return found;
	if (op < 3) {
		node_t *x = tm ? tm_malloc(sizeof *x) : malloc(sizeof *x);
		x->key = key;   /* not yet published: plain writes */
		x->next = cur;
		stn(&prev->next, x, tm);
		return 2;
	}
	stn(&prev->next, ldn(&cur->next, tm), tm);
	if (tm)
		tm_free(cur);
	else
		free(cur);
	return 3;
}

static uint64_t set_hash(void)
{
	uint64_t h = POT_HASH_INIT;
	for (node_t *x = set_head.next; x; x = x->next)
		h = pot_hash(h, (uint64_t)x->key);
	return h;
}

static void set_teardown(void)
{
	node_t *x = set_head.next;
	while (x) {
		node_t *n = x->next;
		free(x);
		x = n;
	}
	set_head.next = NULL;
}

const pot_prog_t pot_prog_intset = {
	"intset", set_setup, set_body, set_hash, set_teardown,
};

/* ---- running ----------------------------------------------------------------- */

struct thread_arg {
	unsigned id;
	void (*fn)(unsigned id, void *arg);
	void *arg;
	tm_barrier_t *start;
};

static void *pot_thread_main(void *p)
{
	struct thread_arg *a = p;
	ck_assert_msg(tm_thread_enter(a->id) == 0, "tm_thread_enter(%u): %s", a->id,
	              tm_last_error());
	tm_barrier_wait(a->start);
	a->fn(a->id, a->arg);
	tm_thread_exit();
	return NULL;
}

void pot_run_threads(unsigned n, void (*fn)(unsigned id, void *arg), void *arg)
{
	pthread_t th[64];
	struct thread_arg args[64];
	tm_barrier_t start;
	ck_assert(n <= 64);
	ck_assert(tm_barrier_init(&start, n) == 0);
	for (unsigned i = 0; i < n; i++) {
		args[i] = (struct thread_arg){ i, fn, arg, &start };
		ck_assert(pthread_create(&th[i], NULL, pot_thread_main, &args[i]) == 0);
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	ck_assert(tm_barrier_destroy(&start) == 0);
}

struct prog_arg {
	const pot_prog_t *prog;
	pot_run_t *run;
};

/* One transaction, in a function of its own: nothing of the caller's
 * lives across the setjmp. */
static __attribute__((noinline)) int64_t run_one(const pot_prog_t *prog,
                                                 unsigned id, unsigned k)
{
	volatile int64_t result = POT_CANCELLED;
	TM_BEGIN();
		result = prog->body(id, k, true);
	TM_END();
	return tm_was_cancelled() ? POT_CANCELLED : result;
}

unsigned (*pot_weight_of)(unsigned id, unsigned k);

static void prog_thread(unsigned id, void *p)
{
	struct prog_arg *a = p;
	pot_run_t *run = a->run;
	for (unsigned k = 0; k < run->per_thread; k++) {
		pot_rec_t *r = &run->recs[(size_t)id * run->per_thread + k];
		if (pot_weight_of != NULL)
			ck_assert_int_eq(tm_set_weight(pot_weight_of(id, k)), 0);
		r->result = run_one(a->prog, id, k);
		r->id = id;
		r->k = k;
		r->slot = tm_last_order();
	}
}

static int rec_by_slot(const void *x, const void *y)
{
	const pot_rec_t *a = x, *b = y;
	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

void pot_run_prog(const pot_prog_t *prog, unsigned nthreads, unsigned per_thread,
                  pot_run_t *run)
{
	struct timespec t0, t1;
	memset(run, 0, sizeof *run);
	run->nthreads = nthreads;
	run->per_thread = per_thread;
	run->recs = calloc((size_t)nthreads * per_thread, sizeof *run->recs);
	prog->setup(nthreads, per_thread);
	pot_init_or_fail();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct prog_arg a = { prog, run };
	pot_run_threads(nthreads, prog_thread, &a);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	run->wall_us = (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	tm_shutdown();   /* waits for the deferred frees */

	run->state_hash = prog->state_hash();
	size_t n = (size_t)nthreads * per_thread;
	if (run->recs[0].slot != TM_ORDER_NONE) {
		pot_rec_t *sorted = malloc(n * sizeof *sorted);
		memcpy(sorted, run->recs, n * sizeof *sorted);
		qsort(sorted, n, sizeof *sorted, rec_by_slot);
		uint64_t h = POT_HASH_INIT;
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				ck_assert_msg(sorted[i].slot != sorted[i - 1].slot,
				              "two transactions in slot %llu",
				              (unsigned long long)sorted[i].slot);
			h = pot_hash(h, (uint64_t)sorted[i].id << 32 | sorted[i].k);
		}
		run->order_hash = h;
		free(sorted);
	}
}

void pot_replay_check(const pot_prog_t *prog, const pot_run_t *run)
{
	size_t n = (size_t)run->nthreads * run->per_thread;
	ck_assert_msg(run->recs[0].slot != TM_ORDER_NONE, "no order to replay");
	pot_rec_t *sorted = malloc(n * sizeof *sorted);
	memcpy(sorted, run->recs, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, rec_by_slot);
	uint64_t final_hash = run->state_hash;
	prog->teardown();
	prog->setup(run->nthreads, run->per_thread);
	for (size_t i = 0; i < n; i++) {
		pot_rec_t *r = &sorted[i];
		int64_t res = prog->body(r->id, r->k, false);
		ck_assert_msg(res == r->result,
		              "%s: transaction (%u, %u) in slot %llu returned %lld in "
		              "the run but %lld in the sequential replay",
		              prog->name, r->id, r->k, (unsigned long long)r->slot,
		              (long long)r->result, (long long)res);
	}
	ck_assert_msg(prog->state_hash() == final_hash,
	              "%s: final state differs from the sequential replay", prog->name);
	free(sorted);
}
