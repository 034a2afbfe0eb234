/*
 * tests/regression/pot/test_pot_keys.c — commutativity keys
 * (tm_set_next_order_key; stm/pot.c K1-K6): several keyed transactions in
 * fast mode at once, each still committed in its slot.
 *
 *  - determinism: slots taken by whichever thread asks next (as a
 *    server's workers take requests), keyed ones partitioned by key, some
 *    keyless and some TM_KEY_NONE that touch every partition; 20 runs (pot;
 *    3 on the HTM backends) at 2 threads and oversubscribed at 6 give the
 *    sequential order's per-slot results and final state every time; again
 *    with 128-byte stripes, where the partitions share stripes (K3, K4);
 *  - concurrency: a keyed transaction whose slot follows a running one
 *    with another key runs in fast mode beside it (tm_stats early_fast;
 *    a handshake inside both bodies proves the overlap), and does not
 *    with the same key or after TM_KEY_NONE;
 *  - early promotion (K6): a keyed speculative transaction whose
 *    predecessor's slot is supplied while it runs goes on in fast mode
 *    before its turn;
 *  - deferred pass (lib/sequencer.h K7): an early transaction that ends
 *    before its turn returns at once, its slot passed on by the commit
 *    before it; its slot cannot be supplied again, and a later keyed
 *    slot with its key runs early beside the unfinished one before it;
 *  - misuse: a key without the explicit order is refused, and so is
 *    giving up or re-keying a keyed slot before it ran.
 * pot-rtm and pot-rot accept keys and ignore them: the same runs, no
 * early_fast.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#define PARTS 6          /* keys 0..PARTS-1 */
#define ACCOUNTS 4       /* per partition */
#define SLOTS 240

/* The state: per-partition accounts and an order-sensitive log hash; a
 * global hash only the transactions that commute with nothing touch. */
typedef struct part {
	long acct[ACCOUNTS];
	unsigned long log;
} part_t;

static part_t parts[PARTS];
static unsigned long global_log;
static long results[SLOTS];
static unsigned next_slot;

enum kind { K_KEYED, K_KEYLESS, K_NONE };

static enum kind kind_of(unsigned s)
{
	return s % 11 == 5 ? K_NONE : s % 7 == 3 ? K_KEYLESS : K_KEYED;
}

static unsigned part_of(unsigned s)
{
	return (s * 2654435761u >> 9) % PARTS;
}

/* Slot s's body: keyed, within its partition (a transfer and the log);
 * otherwise across every partition (a transfer between two, and the
 * global log mixed with every partition's).  The result depends on the
 * order. */
static long body(unsigned s, bool tm)
{
#define LD(p) (tm ? TM_LOAD(p) : *(p))
#define ST(p, v) do { if (tm) TM_STORE((p), (v)); else *(p) = (v); } while (0)
	if (kind_of(s) == K_KEYED) {
		part_t *p = &parts[part_of(s)];
		unsigned a = s % ACCOUNTS, b = (s / ACCOUNTS + 1 + a) % ACCOUNTS;
		long amount = (long)(s % 5) + 1;
		long from = LD(&p->acct[a]);
		if (a != b && from >= amount) {
			ST(&p->acct[a], from - amount);
			ST(&p->acct[b], LD(&p->acct[b]) + amount);
		}
		unsigned long log = LD(&p->log);
		ST(&p->log, log * 31 + s);
		return (long)(log % 1000003) + from;
	}
	unsigned long g = LD(&global_log);
	for (unsigned i = 0; i < PARTS; i++)
		g = g * 17 + LD(&parts[i].log);
	ST(&global_log, g * 31 + s);
	part_t *x = &parts[s % PARTS], *y = &parts[(s / PARTS + 1) % PARTS];
	long v = LD(&x->acct[0]);
	if (x != y && v > 0) {
		ST(&x->acct[0], v - 1);
		ST(&y->acct[1], LD(&y->acct[1]) + 1);
	}
	return (long)(g % 1000003);
#undef LD
#undef ST
}

static void reset_state(void)
{
	memset(parts, 0, sizeof parts);
	for (unsigned i = 0; i < PARTS; i++)
		for (unsigned a = 0; a < ACCOUNTS; a++)
			parts[i].acct[a] = 10;
	global_log = 0;
	next_slot = 0;
}

static uint64_t state_hash(void)
{
	uint64_t h = POT_HASH_INIT;
	for (unsigned i = 0; i < PARTS; i++) {
		for (unsigned a = 0; a < ACCOUNTS; a++)
			h = pot_hash(h, (uint64_t)parts[i].acct[a]);
		h = pot_hash(h, parts[i].log);
	}
	return pot_hash(h, global_log);
}

static __attribute__((noinline)) long run_tx(unsigned s)
{
	long r = 0;
	TM_BEGIN();
		r = body(s, true);
	TM_END();
	return r;
}

static void supply(unsigned s)
{
	int rc;
	switch (kind_of(s)) {
	case K_KEYED:
		rc = tm_set_next_order_key(s, part_of(s));
		break;
	case K_NONE:
		rc = tm_set_next_order_key(s, TM_KEY_NONE);
		break;
	default:
		rc = tm_set_next_order(s);
	}
	ck_assert_msg(rc == 0, "slot %u: %s", s, tm_last_error());
}

/* Each thread takes the next slot, as the server's workers take the next
 * request: which thread runs which slot is timing, the order is not. */
static void taker_thread(unsigned id, void *arg)
{
	(void)id;
	(void)arg;
	for (;;) {
		unsigned s = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);
		if (s >= SLOTS)
			break;
		supply(s);
		results[s] = run_tx(s);
		ck_assert_int_eq(tm_last_order(), s);
	}
}

static uint64_t results_hash(void)
{
	uint64_t h = POT_HASH_INIT;
	for (unsigned s = 0; s < SLOTS; s++)
		h = pot_hash(h, (uint64_t)results[s]);
	return h;
}

/* One run under a fresh tm_init (the mode and sequencer set before): n
 * threads of fn, then tm's counters, after which tm is shut down. */
static tm_stats_t run_and_count(unsigned n, void (*fn)(unsigned id, void *arg))
{
	pot_init_or_fail();
	pot_run_threads(n, fn, NULL);
	tm_stats_t st;
	ck_assert_int_eq(tm_stats(&st), 0);
	tm_shutdown();
	return st;
}

static bool backend_runs_early(const char *mode)
{
	return strcmp(tm_backend_name(), "pot") == 0 &&
	       (strcmp(mode, "pot") == 0 || strcmp(mode, "pot-fast") == 0);
}

static void check_runs(const char *mode, unsigned nthreads, unsigned runs)
{
	reset_state();
	for (unsigned s = 0; s < SLOTS; s++)
		results[s] = body(s, false);
	uint64_t want_results = results_hash(), want_state = state_hash();
	uint64_t early = 0;
	for (unsigned r = 0; r < runs; r++) {
		pot_use_sequencer(mode, "explicit");
		reset_state();
		memset(results, 0, sizeof results);
		tm_stats_t st = run_and_count(nthreads, taker_thread);
		early += st.early_fast;
		if (!backend_runs_early(mode))
			ck_assert_uint_eq(st.early_fast, 0);
		ck_assert_msg(results_hash() == want_results && state_hash() == want_state,
		              "%s, %u threads, run %u: results %s, state %s", mode, nthreads, r,
		              results_hash() == want_results ? "as serial" : "differ",
		              state_hash() == want_state ? "as serial" : "differs");
	}
	printf("keys %-11s %u threads: %u runs as serial, early_fast %llu\n", mode, nthreads,
	       runs, (unsigned long long)early);
	unsetenv("POTM_STRIPE_SHIFT");
}

/* 20 runs where keys are used; the HTM backends ignore them (and pot-rot
 * runs under qemu in CI): a few runs there. */
static unsigned runs_here(void)
{
	return strcmp(tm_backend_name(), "pot") == 0 ? 20 : 3;
}

START_TEST(test_keys_deterministic_2)
{
	check_runs(pot_sequenced_modes[_i], 2, runs_here());
}
END_TEST

START_TEST(test_keys_deterministic_oversubscribed)
{
	check_runs(pot_sequenced_modes[_i], 6, runs_here());
}
END_TEST

/* Partitions that share stripes: early attempts meet each other's marks
 * and the holder's (K3), and versions must never go down (K4). */
START_TEST(test_keys_shared_stripes)
{
	setenv("POTM_STRIPE_SHIFT", "7", 1);   /* 128-byte stripes */
	check_runs("pot", 4, 10);
}
END_TEST

/* ---- two fast transactions at once ------------------------------------------ */

static long cell_a[8], cell_b[8];
static volatile int a_supplied, b_in_body, a_committed, a_saw_b;
static volatile int b_saw_a_running;

static void wait_flag(volatile int *f)
{
	/* Bounded: a run that cannot overlap still ends (and the assertion
	 * on the statistics reports it). */
	for (unsigned i = 0; i < 4000000 && !__atomic_load_n(f, __ATOMIC_ACQUIRE); i++)
		if (i > 1000)
			sched_yield();
}

static __attribute__((noinline)) void tx_a(void)
{
	TM_BEGIN();
		TM_STORE(&cell_a[0], TM_LOAD(&cell_a[0]) + 1);
		wait_flag(&b_in_body);
		a_saw_b = __atomic_load_n(&b_in_body, __ATOMIC_ACQUIRE);
		TM_STORE(&cell_a[1], TM_LOAD(&cell_a[1]) + 1);
	TM_END();
}

static __attribute__((noinline)) void tx_b(void)
{
	TM_BEGIN();
		TM_STORE(&cell_b[0], TM_LOAD(&cell_b[0]) + 1);
		b_saw_a_running = !__atomic_load_n(&a_committed, __ATOMIC_ACQUIRE);
		__atomic_store_n(&b_in_body, 1, __ATOMIC_RELEASE);
		TM_STORE(&cell_b[1], TM_LOAD(&cell_b[1]) + 1);
	TM_END();
}

static uint64_t key_b;
static uint64_t key_a;

static void pair_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 0) {
		ck_assert_int_eq(tm_set_next_order_key(0, key_a), 0);
		__atomic_store_n(&a_supplied, 1, __ATOMIC_RELEASE);
		tx_a();
		__atomic_store_n(&a_committed, 1, __ATOMIC_RELEASE);
		ck_assert_int_eq(tm_last_order(), 0);
	} else {
		wait_flag(&a_supplied);
		ck_assert_int_eq(tm_set_next_order_key(1, key_b), 0);
		tx_b();
		ck_assert_int_eq(tm_last_order(), 1);
	}
}

static uint64_t run_pair(uint64_t ka, uint64_t kb)
{
	pot_use_sequencer("pot", "explicit");
	key_a = ka;
	key_b = kb;
	a_supplied = b_in_body = a_committed = a_saw_b = b_saw_a_running = 0;
	memset(cell_a, 0, sizeof cell_a);
	memset(cell_b, 0, sizeof cell_b);
	tm_stats_t st = run_and_count(2, pair_thread);
	ck_assert(cell_a[0] == 1 && cell_a[1] == 1 && cell_b[0] == 1 && cell_b[1] == 1);
	return st.early_fast;
}

START_TEST(test_two_fast_at_once)
{
	if (strcmp(tm_backend_name(), "pot") != 0)
		return;   /* keys ignored: nothing runs early */
	/* Slot 0 (key 1) is the holder, in fast mode; slot 1 (key 2) begins
	 * while slot 0 runs (slot 0 waits inside its body until slot 1 is in
	 * its own), in fast mode too, and commits after it. */
	ck_assert_uint_eq(run_pair(1, 2), 1);
	ck_assert(a_saw_b && b_saw_a_running);
	/* The same key: slot 1 is speculative (its body still runs beside
	 * slot 0, buffered), nothing early. */
	ck_assert_uint_eq(run_pair(1, 1), 0);
	/* TM_KEY_NONE commutes with nothing. */
	ck_assert_uint_eq(run_pair(TM_KEY_NONE, 2), 0);
	ck_assert_uint_eq(run_pair(1, TM_KEY_NONE), 0);
}
END_TEST

/* ---- early promotion (K6) ------------------------------------------------------ */

/* Slot 1 (key 2) begins before slot 0 is supplied, so speculatively; slot
 * 0 (key 1) is then supplied and runs, waiting inside its body until slot
 * 1 has made its next reads.  One of them looks at the order, finds slot 0
 * supplied with another key, and goes on in early fast mode. */
static long pcell_a[8] __attribute__((aligned(4096)));
static long pcell_b[64] __attribute__((aligned(4096)));
static volatile int p_b_began, p_a_supplied, p_b_read;

static __attribute__((noinline)) void ptx_a(void)
{
	TM_BEGIN();
		TM_STORE(&pcell_a[0], TM_LOAD(&pcell_a[0]) + 1);
		wait_flag(&p_b_read);
	TM_END();
}

static __attribute__((noinline)) void ptx_b(void)
{
	TM_BEGIN();
		TM_STORE(&pcell_b[0], TM_LOAD(&pcell_b[0]) + 1);
		__atomic_store_n(&p_b_began, 1, __ATOMIC_RELEASE);
		wait_flag(&p_a_supplied);
		long sum = 0;
		for (unsigned i = 8; i < 40; i++)
			sum += TM_LOAD(&pcell_b[i]);
		TM_STORE(&pcell_b[1], sum + 1);
		__atomic_store_n(&p_b_read, 1, __ATOMIC_RELEASE);
	TM_END();
}

static void promote_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 1) {
		ck_assert_int_eq(tm_set_next_order_key(1, 2), 0);
		ptx_b();
		ck_assert_int_eq(tm_last_order(), 1);
	} else {
		wait_flag(&p_b_began);
		ck_assert_int_eq(tm_set_next_order_key(0, 1), 0);
		__atomic_store_n(&p_a_supplied, 1, __ATOMIC_RELEASE);
		ptx_a();
		ck_assert_int_eq(tm_last_order(), 0);
	}
}

START_TEST(test_early_promotion)
{
	if (strcmp(tm_backend_name(), "pot") != 0)
		return;
	pot_use_sequencer("pot", "explicit");
	p_b_began = p_a_supplied = p_b_read = 0;
	memset(pcell_a, 0, sizeof pcell_a);
	memset(pcell_b, 0, sizeof pcell_b);
	tm_stats_t st = run_and_count(2, promote_thread);
	ck_assert(pcell_a[0] == 1 && pcell_b[0] == 1 && pcell_b[1] == 1);
	ck_assert_uint_eq(st.early_fast, 1);
	ck_assert_uint_eq(st.promotions, 1);
	ck_assert_uint_eq(st.aborts, 0);
}
END_TEST

/* ---- deferred pass (K7) ---------------------------------------------------------- */

/* Slot 0 (key 1) waits inside its body until thread 1 has ended slot 1
 * (key 2) and begun slot 2 (key 2 again: it commutes with slot 0, and
 * slot 1 is finished) and ended it too.  Both end before slot 0 commits,
 * so both returned before their turns; slot 0's pass passes them on,
 * and slot 3 (keyless) follows. */
static long dcell_a[8] __attribute__((aligned(4096)));
static long dcell_b[8] __attribute__((aligned(4096)));
static volatile int d_a_supplied, d_b_done, d_a_committed;
static volatile int d_b_returned_early, d_resupply_refused;

static __attribute__((noinline)) void dtx_a(void)
{
	TM_BEGIN();
		TM_STORE(&dcell_a[0], TM_LOAD(&dcell_a[0]) + 1);
		wait_flag(&d_b_done);
	TM_END();
}

static __attribute__((noinline)) void dtx_b(void)
{
	TM_BEGIN();
		TM_STORE(&dcell_b[0], TM_LOAD(&dcell_b[0]) * 10 + 1);
	TM_END();
}

static void deferred_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 0) {
		ck_assert_int_eq(tm_set_next_order_key(0, 1), 0);
		__atomic_store_n(&d_a_supplied, 1, __ATOMIC_RELEASE);
		dtx_a();
		__atomic_store_n(&d_a_committed, 1, __ATOMIC_RELEASE);
		ck_assert_int_eq(tm_last_order(), 0);
		/* Slot 3 comes only if slot 0's pass passed 1 and 2 on (else
		 * this waits until the sequencer reports the stall). */
		ck_assert_int_eq(tm_set_next_order(3), 0);
		dtx_a();
		ck_assert_int_eq(tm_last_order(), 3);
	} else {
		wait_flag(&d_a_supplied);
		bool early = true;
		for (unsigned s = 1; s <= 2; s++) {
			ck_assert_int_eq(tm_set_next_order_key(s, 2), 0);
			dtx_b();
			ck_assert_int_eq(tm_last_order(), s);
			early = early && !__atomic_load_n(&d_a_committed, __ATOMIC_ACQUIRE);
		}
		d_b_returned_early = early;
		/* Slot 1 ended: it is consumed, though the turn is at 0. */
		d_resupply_refused = tm_set_next_order(1) == -1 &&
		                     strstr(tm_last_error(), "consumed") != NULL;
		__atomic_store_n(&d_b_done, 1, __ATOMIC_RELEASE);
	}
}

START_TEST(test_deferred_pass)
{
	if (strcmp(tm_backend_name(), "pot") != 0)
		return;   /* keys ignored: nothing runs early */
	pot_use_sequencer("pot", "explicit");
	d_a_supplied = d_b_done = d_a_committed = 0;
	d_b_returned_early = d_resupply_refused = 0;
	memset(dcell_a, 0, sizeof dcell_a);
	memset(dcell_b, 0, sizeof dcell_b);
	tm_stats_t st = run_and_count(2, deferred_thread);
	ck_assert(d_b_returned_early);
	ck_assert(d_resupply_refused);
	ck_assert_int_eq(dcell_a[0], 2);
	ck_assert_int_eq(dcell_b[0], 11);   /* slot 1 then slot 2 */
	ck_assert_uint_eq(st.early_fast, 2);
	ck_assert_uint_eq(st.aborts, 0);
}
END_TEST

/* ---- misuse ------------------------------------------------------------------ */

START_TEST(test_key_needs_explicit_order)
{
	pot_use_mode("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_next_order_key(0, 7), -1);
	ck_assert_msg(strstr(tm_last_error(), "explicit") != NULL &&
	              strstr(tm_last_error(), "key") != NULL, "%s", tm_last_error());
	tm_thread_exit();
	tm_shutdown();
	/* With the explicit order, the same call is fine. */
	pot_use_sequencer("pot", "explicit");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_next_order_key(0, 7), 0);
	/* A keyed slot is not given up nor re-keyed before it runs: a later
	 * slot may already run beside it on the strength of its key (where
	 * keys are used; pot-rtm and pot-rot ignore them). */
	if (backend_runs_early("pot")) {
		ck_assert_int_eq(tm_set_next_order(1), -1);
		ck_assert_msg(strstr(tm_last_error(), "commutativity key") != NULL, "%s",
		              tm_last_error());
		ck_assert_int_eq(tm_set_next_order_key(0, 8), -1);
		ck_assert_int_eq(tm_set_next_order(0), -1);
	}
	ck_assert_int_eq(tm_set_next_order_key(0, 7), 0);   /* the same again: fine */
	(void)run_tx(0);
	ck_assert_int_eq(tm_last_order(), 0);
	/* A slot already consumed is refused with a key too. */
	ck_assert_int_eq(tm_set_next_order_key(0, 7), -1);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

static Suite *keys_suite(void)
{
	Suite *s = suite_create("pot-keys");
	TCase *tc = tcase_create("keys");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_keys_deterministic_2, 0, POT_NSEQUENCED);
	tcase_add_loop_test(tc, test_keys_deterministic_oversubscribed, 0, POT_NSEQUENCED);
	tcase_add_test(tc, test_keys_shared_stripes);
	tcase_add_test(tc, test_two_fast_at_once);
	tcase_add_test(tc, test_early_promotion);
	tcase_add_test(tc, test_deferred_pass);
	tcase_add_test(tc, test_key_needs_explicit_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pot_run_suite(keys_suite());
}
