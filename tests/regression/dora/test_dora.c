/*
 * The DORA executor (lib/dora) on every backend it runs on:
 *  - routing: range and hash rules, ownership, reroutes and their errors;
 *  - RVP join: a phase's continuation runs once, after every action of
 *    the phase, and the next phase sees their results;
 *  - abort: an action that fails in the last phase undoes the updates,
 *    inserts and deletes of every action on every executor;
 *  - local locks between two transactions on one executor: the younger
 *    waits for the older and sees its committed write; the older dies on
 *    a lock the younger holds, and its effects are undone; shared locks
 *    share;
 *  - a bank of transfers on 2 and on 8 executors (oversubscribed), with
 *    aborts and a resource manager moving ranges between executors
 *    mid-run: the money is conserved, every transaction ends, and the
 *    executors ran exactly the actions the transactions added (none lost,
 *    none run twice), each on the executor owning its data.
 *  - the same bank over private tables (potm_dora_set_private), one per
 *    account so that an account's table moves with its routing, read and
 *    written with plain accesses by actions that run no backend
 *    transaction, with and without reroutes.
 *  - the bank with inline executors (potm_dora_set_inline): one-action
 *    reads through potm_dora_run_here, one-phase transfers run whole at
 *    submission when both accounts are local, the rest through the
 *    rings; every outcome on its submitter, the same exact counts, at 2,
 *    4 (with reroutes: every executor acknowledges each pause) and 8
 *    executors.
 * seq (one thread) runs everything on one executor.
 */
#include "../store/store_test.h"

#include <potm/dora.h>
#include <potm/store_private.h>

#include <sched.h>
#include <stdatomic.h>

#include "check_run.h"
#include "test_threads.h"

typedef struct acct {
	int64_t balance;
	uint64_t pad;
} acct_t;

static store_table_t *accounts(size_t n, int64_t each)
{
	store_table_def_t def = { .name = "acct", .record_size = sizeof(acct_t),
	                          .kind = STORE_HASH, .capacity = n };
	store_table_t *t = store_table_create(&def);
	ck_assert_msg(t != NULL, "%s", tm_last_error());
	TM_BEGIN();
	for (uint64_t k = 0; k < n; k++) {
		acct_t a = { .balance = each };
		store_insert(t, k, &a);
	}
	TM_END();
	return t;
}

static unsigned executors_here(unsigned want)
{
	return single_thread_backend() ? 1 : want;
}

/* Serve executor 0 from the calling (registered) thread until nothing is
 * in flight. */
static void drain(potm_dora_t *d)
{
	while (potm_dora_in_flight(d) != 0)
		for (unsigned e = 0; e < potm_dora_executors(d); e++)
			potm_dora_serve(d, e);
}

/* ---- routing ------------------------------------------------------------- */

START_TEST(routing)
{
	store_test_start();
	potm_dora_t *d = potm_dora_create(4, 2);
	ck_assert_msg(d != NULL, "%s", tm_last_error());
	ck_assert_int_eq(potm_dora_rule_range(d, 0, 1, 8), 0);
	for (uint64_t v = 1; v <= 8; v++)
		ck_assert_uint_eq(potm_dora_owner(d, 0, v), (v - 1) / 2);
	ck_assert_int_eq(potm_dora_rule_hash(d, 1, 0, 999), 0);
	unsigned seen[4] = { 0 };
	for (uint64_t v = 0; v < 1000; v++) {
		unsigned e = potm_dora_owner(d, 1, v);
		ck_assert_uint_lt(e, 4);
		ck_assert_uint_eq(e, potm_dora_owner(d, 1, v));
		seen[e]++;
	}
	for (unsigned e = 0; e < 4; e++)
		ck_assert_uint_gt(seen[e], 150);   /* a hash spreads values */
	ck_assert_int_eq(potm_dora_reroute(d, 0, 3, 6, 3), 0);
	ck_assert_uint_eq(potm_dora_owner(d, 0, 2), 0);
	for (uint64_t v = 3; v <= 6; v++)
		ck_assert_uint_eq(potm_dora_owner(d, 0, v), 3);
	ck_assert_uint_eq(potm_dora_owner(d, 0, 7), 3);
	ck_assert_int_eq(potm_dora_reroute(d, 0, 0, 3, 1), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "outside"));
	ck_assert_int_eq(potm_dora_reroute(d, 0, 1, 3, 4), -1);
	ck_assert_int_eq(potm_dora_rule_range(d, 2, 0, 1), -1);
	ck_assert_int_eq(potm_dora_rule_range(d, 0, 5, 4), -1);
	potm_dora_stats_t st;
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.reroutes, 1);
	potm_dora_destroy(d);
	ck_assert_ptr_null(potm_dora_create(0, 1));
	ck_assert_ptr_null(potm_dora_create(POTM_DORA_MAX_EXECUTORS + 1, 1));
	store_test_stop();
}
END_TEST

/* ---- RVP join and abort --------------------------------------------------- */

#define JOIN_ACTIONS 6

typedef struct join {
	store_table_t *t;
	int64_t seen[JOIN_ACTIONS];   /* phase 1's reads, one slot per action */
	uint64_t key[JOIN_ACTIONS];
	int continuations;
	int64_t sum;                  /* phase 2's view of phase 1 */
	int outcome;
	bool fail_last;               /* phase 3 aborts */
	bool done;
} join_t;

typedef struct join_arg {
	join_t *j;
	unsigned i;
} join_arg_t;

static join_arg_t join_args[JOIN_ACTIONS];

/* Phase 1: +1000 on its account, remember the new balance; also insert a
 * record and delete one (for the abort test's undo). */
static int join_phase1(potm_dora_act_t *a, void *arg)
{
	join_arg_t *ja = arg;
	join_t *j = ja->j;
	acct_t *r = potm_dora_update(a, j->t, j->key[ja->i]);
	if (r == NULL)
		return 1;
	TM_STORE(&r->balance, TM_LOAD(&r->balance) + 1000);
	j->seen[ja->i] = TM_LOAD(&r->balance);
	acct_t n = { .balance = 7 };
	if (potm_dora_insert(a, j->t, 1000 + j->key[ja->i], &n) == NULL)
		return 1;
	return potm_dora_delete(a, j->t, 500 + j->key[ja->i]) ? 0 : 1;
}

static int join_phase2(potm_dora_act_t *a, void *arg)
{
	join_t *j = arg;
	acct_t *r = potm_dora_update(a, j->t, 0);
	int64_t s = 0;
	for (unsigned i = 0; i < JOIN_ACTIONS; i++)
		s += j->seen[i];
	j->sum = s;
	TM_STORE(&r->balance, TM_LOAD(&r->balance) - 1);
	return 0;
}

static int join_phase3(potm_dora_act_t *a, void *arg)
{
	join_t *j = arg;
	(void)a;
	return j->fail_last ? 1 : 0;
}

static void join_next3(potm_dora_tx_t *tx, void *ctx)
{
	potm_dora_add(tx, 0, 7, join_phase3, ctx, NULL, 0);
}

static void join_next2(potm_dora_tx_t *tx, void *ctx)
{
	join_t *j = ctx;
	j->continuations++;
	for (unsigned i = 0; i < JOIN_ACTIONS; i++)
		ck_assert_int_ne(j->seen[i], 0);   /* every phase-1 action is done */
	potm_dora_lock_t lk = { .space = 1, .key = 0, .mode = POTM_DORA_X };
	potm_dora_add(tx, 0, 0, join_phase2, j, &lk, 1);
	potm_dora_then(tx, join_next3, j);
}

static void join_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	join_t *j = ctx;
	(void)tx;
	j->outcome = outcome;
	j->done = true;
}

/* A three-phase transaction over accounts spread on 4 executors (1 on
 * seq): JOIN_ACTIONS updates, inserts and deletes, an RVP, a sum, an RVP,
 * a last action that may fail. */
static void run_join(bool fail_last)
{
	store_test_start();
	unsigned ne = executors_here(4);
	potm_dora_t *d = potm_dora_create(ne, 1);
	ck_assert_msg(d != NULL, "%s", tm_last_error());
	ck_assert_int_eq(potm_dora_rule_range(d, 0, 0, 999), 0);
	store_table_t *t = accounts(1000, 100);
	uint64_t before = store_digest(t);
	static join_t j;
	memset(&j, 0, sizeof j);
	j.t = t;
	j.fail_last = fail_last;
	potm_dora_tx_t *tx = potm_dora_tx_new(d, join_done, &j);
	for (unsigned i = 0; i < JOIN_ACTIONS; i++) {
		j.key[i] = 10 + 80 * i;   /* on different executors */
		join_args[i] = (join_arg_t){ .j = &j, .i = i };
		potm_dora_lock_t lk[3] = {
			{ .space = 1, .key = j.key[i], .mode = POTM_DORA_X },
			{ .space = 1, .key = 1000 + j.key[i], .mode = POTM_DORA_X },
			{ .space = 1, .key = 500 + j.key[i], .mode = POTM_DORA_X },
		};
		potm_dora_add(tx, 0, j.key[i], join_phase1, &join_args[i], lk, 3);
	}
	potm_dora_then(tx, join_next2, &j);
	ck_assert_int_eq(potm_dora_submit(tx), 0);
	drain(d);
	ck_assert(j.done);
	ck_assert_int_eq(j.continuations, 1);
	ck_assert_int_eq(j.sum, JOIN_ACTIONS * 1100);
	potm_dora_stats_t st;
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.actions, JOIN_ACTIONS + 2);
	if (fail_last) {
		ck_assert_int_eq(j.outcome, POTM_DORA_ABORTED);
		ck_assert_uint_eq(st.aborted, 1);
		ck_assert_uint_eq(st.undone, JOIN_ACTIONS + 1);
		ck_assert_uint_eq(store_digest(t), before);
		ck_assert_uint_eq(store_count(t), 1000);
	} else {
		ck_assert_int_eq(j.outcome, POTM_DORA_COMMITTED);
		ck_assert_uint_eq(st.committed, 1);
		ck_assert_uint_ne(store_digest(t), before);
		ck_assert_uint_eq(store_count(t), 1000);   /* as many inserted as deleted */
		TM_BEGIN();
		acct_t *r = store_get(t, 0);
		ck_assert_int_eq(TM_LOAD(&r->balance), 99);
		ck_assert_ptr_null(store_get(t, 500 + j.key[1]));
		ck_assert_ptr_nonnull(store_get(t, 1000 + j.key[1]));
		TM_END();
	}
	ck_assert_int_eq(store_check(t), 0);
	store_table_destroy(t);
	potm_dora_destroy(d);
	store_test_stop();
}

START_TEST(rvp_join)
{
	run_join(false);
}
END_TEST

START_TEST(abort_undoes_every_action)
{
	run_join(true);
}
END_TEST

/* ---- local locks: two transactions on one executor ------------------------- */

typedef struct pair {
	store_table_t *t;
	int64_t seen;       /* what the second transaction read */
	int outcome;
	int order;          /* which finished when */
	int *clock;
} pair_t;

/* Account key's balance += 10 (its old image saved), the new balance
 * into p->seen. */
static int add_ten_at(potm_dora_act_t *a, pair_t *p, uint64_t key)
{
	acct_t *r = potm_dora_update(a, p->t, key);
	TM_STORE(&r->balance, TM_LOAD(&r->balance) + 10);
	p->seen = TM_LOAD(&r->balance);
	return 0;
}

static int add_ten(potm_dora_act_t *a, void *arg)
{
	return add_ten_at(a, arg, 1);
}

static int add_ten_to_2(potm_dora_act_t *a, void *arg)
{
	return add_ten_at(a, arg, 2);
}

static int read_one(potm_dora_act_t *a, void *arg)
{
	pair_t *p = arg;
	(void)a;
	acct_t *r = store_get(p->t, 1);
	p->seen = TM_LOAD(&r->balance);
	return 0;
}

static int nothing(potm_dora_act_t *a, void *arg)
{
	(void)a;
	(void)arg;
	return 0;
}

static void then_nothing(potm_dora_tx_t *tx, void *ctx)
{
	potm_dora_add(tx, 0, 1, nothing, ctx, NULL, 0);
}

static const potm_dora_lock_t lock_x1 = { .space = 1, .key = 1, .mode = POTM_DORA_X };
static const potm_dora_lock_t lock_s1 = { .space = 1, .key = 1, .mode = POTM_DORA_S };

static void then_add_ten(potm_dora_tx_t *tx, void *ctx)
{
	potm_dora_add(tx, 0, 1, add_ten, ctx, &lock_x1, 1);
}

static void pair_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	pair_t *p = ctx;
	(void)tx;
	p->outcome = outcome;
	p->order = ++*p->clock;
}

/* Both on executor 0, served by this thread alone, so the interleaving is
 * the queues' order. */
START_TEST(local_lock_conflicts)
{
	store_test_start();
	potm_dora_t *d = potm_dora_create(1, 1);
	ck_assert_msg(d != NULL, "%s", tm_last_error());
	ck_assert_int_eq(potm_dora_rule_range(d, 0, 0, 9), 0);
	store_table_t *t = accounts(4, 100);
	int clock = 0;
	potm_dora_stats_t st;

	/* The older holds X until its second phase; the younger waits, then
	 * reads the committed 110 and adds its own 10. */
	pair_t old = { .t = t, .clock = &clock }, young = { .t = t, .clock = &clock };
	potm_dora_tx_t *to = potm_dora_tx_new(d, pair_done, &old);
	potm_dora_add(to, 0, 1, add_ten, &old, &lock_x1, 1);
	potm_dora_then(to, then_nothing, &old);
	potm_dora_tx_t *ty = potm_dora_tx_new(d, pair_done, &young);
	potm_dora_add(ty, 0, 1, add_ten, &young, &lock_x1, 1);
	ck_assert_int_eq(potm_dora_submit(to), 0);
	ck_assert_int_eq(potm_dora_submit(ty), 0);
	drain(d);
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.lock_waits, 1);
	ck_assert_uint_eq(st.lock_deaths, 0);
	ck_assert_int_eq(old.outcome, POTM_DORA_COMMITTED);
	ck_assert_int_eq(young.outcome, POTM_DORA_COMMITTED);
	ck_assert_int_lt(old.order, young.order);
	ck_assert_int_eq(old.seen, 110);
	ck_assert_int_eq(young.seen, 120);

	/* The older comes to the lock after the younger took it: it dies,
	 * and its first phase's +10 is undone; the younger commits. */
	pair_t o2 = { .t = t, .clock = &clock }, y2 = { .t = t, .clock = &clock };
	to = potm_dora_tx_new(d, pair_done, &o2);
	potm_dora_lock_t lk2 = { .space = 1, .key = 2, .mode = POTM_DORA_X };
	potm_dora_add(to, 0, 2, add_ten_to_2, &o2, &lk2, 1);
	potm_dora_then(to, then_add_ten, &o2);
	ty = potm_dora_tx_new(d, pair_done, &y2);
	potm_dora_add(ty, 0, 1, add_ten, &y2, &lock_x1, 1);
	potm_dora_then(ty, then_nothing, &y2);
	ck_assert_int_eq(potm_dora_submit(to), 0);
	ck_assert_int_eq(potm_dora_submit(ty), 0);
	drain(d);
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.lock_deaths, 1);
	ck_assert_int_eq(o2.outcome, POTM_DORA_CONFLICT);
	ck_assert_int_eq(y2.outcome, POTM_DORA_COMMITTED);
	ck_assert_int_eq(y2.seen, 130);

	/* Shared locks share: neither waits. */
	pair_t r1 = { .t = t, .clock = &clock }, r2 = { .t = t, .clock = &clock };
	potm_dora_tx_t *a = potm_dora_tx_new(d, pair_done, &r1);
	potm_dora_add(a, 0, 1, read_one, &r1, &lock_s1, 1);
	potm_dora_then(a, then_nothing, &r1);
	potm_dora_tx_t *b = potm_dora_tx_new(d, pair_done, &r2);
	potm_dora_add(b, 0, 1, read_one, &r2, &lock_s1, 1);
	ck_assert_int_eq(potm_dora_submit(a), 0);
	ck_assert_int_eq(potm_dora_submit(b), 0);
	drain(d);
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.lock_waits, 1);
	ck_assert_int_eq(r2.order, r1.order - 1);   /* b finished first */
	ck_assert_int_eq(r1.seen, 130);
	ck_assert_int_eq(r2.seen, 130);

	TM_BEGIN();
	acct_t *r = store_get(t, 1);
	ck_assert_int_eq(TM_LOAD(&r->balance), 130);
	r = store_get(t, 2);
	ck_assert_int_eq(TM_LOAD(&r->balance), 100);   /* the dead one's +10 undone */
	TM_END();
	store_table_destroy(t);
	potm_dora_destroy(d);
	store_test_stop();
}
END_TEST

/* ---- the bank: executors as threads, reroutes mid-run ------------------------ */

#define BANK_ACCOUNTS 64
#define BANK_WINDOW 4
#define BANK_TX (2000 / STORE_TEST_SCALE)   /* per executor */

typedef struct transfer {
	_Atomic int state;        /* 0 free, 1 running, 2 done */
	int outcome;
	uint64_t from, to;
	int64_t amount;
	bool fail;                /* the check action aborts */
} transfer_t;

static struct bank {
	potm_dora_t *d;
	store_table_t *t;
	unsigned executors;
	transfer_t slot[8][BANK_WINDOW];
	atomic_uint_fast64_t added;        /* actions added to transactions */
	atomic_uint_fast64_t misrouted;    /* actions run off their owner */
	atomic_uint finished;              /* executors done submitting */
	atomic_int stop_rm;
	atomic_uint moves;                 /* reroutes done */
	bool reroute;                      /* submit until a few reroutes happened */
	bool priv;                         /* private tables: pt[account] */
	bool inl;                          /* inline executors (potm_dora_set_inline) */
	uint64_t per_executor;             /* transactions each submits */
	atomic_uint_fast64_t misdelivered; /* inline: an outcome off its submitter */
	atomic_int rm_finished;            /* inline: the resource manager stopped */
	store_table_t *pt[BANK_ACCOUNTS];
	uint64_t sent[8];
	uint64_t committed, aborted, conflicts;   /* by submitter, summed after */
	uint64_t tally[8][3];
} bank;

static void own_check(potm_dora_act_t *a, uint64_t key)
{
	if (potm_dora_owner(bank.d, 0, key) != potm_dora_act_executor(a))
		atomic_fetch_add(&bank.misrouted, 1);
}

static int bank_debit(potm_dora_act_t *a, void *arg)
{
	transfer_t *x = arg;
	own_check(a, x->from);
	if (bank.priv) {
		ck_assert(!tm_in_tx());   /* P1: no backend transaction */
		acct_t *r = potm_dora_update(a, bank.pt[x->from], x->from);
		r->balance -= x->amount;
		return 0;
	}
	acct_t *r = potm_dora_update(a, bank.t, x->from);
	TM_STORE(&r->balance, TM_LOAD(&r->balance) - x->amount);
	return 0;
}

static int bank_credit(potm_dora_act_t *a, void *arg)
{
	transfer_t *x = arg;
	own_check(a, x->to);
	if (bank.priv) {
		acct_t *r = potm_dora_update(a, bank.pt[x->to], x->to);
		r->balance += x->amount;
		return 0;
	}
	acct_t *r = potm_dora_update(a, bank.t, x->to);
	TM_STORE(&r->balance, TM_LOAD(&r->balance) + x->amount);
	return 0;
}

static int bank_check(potm_dora_act_t *a, void *arg)
{
	transfer_t *x = arg;
	own_check(a, x->from);
	if (bank.priv)
		ck_assert_ptr_nonnull(store_private_get(bank.pt[x->from], x->from));
	else
		(void)TM_LOAD(&((acct_t *)store_get(bank.t, x->from))->balance);
	return x->fail ? 1 : 0;
}

/* A read of one account (inline mode's one-action transactions). */
static int bank_audit(potm_dora_act_t *a, void *arg)
{
	transfer_t *x = arg;
	own_check(a, x->from);
	const acct_t *r = bank.priv ? store_private_get(bank.pt[x->from], x->from)
	                            : store_get(bank.t, x->from);
	ck_assert_ptr_nonnull(r);
	if (!bank.priv)
		(void)TM_LOAD(&r->balance);
	return 0;
}

static void bank_next(potm_dora_tx_t *tx, void *ctx)
{
	transfer_t *x = ctx;
	potm_dora_lock_t lk = { .space = 1, .key = x->from, .mode = POTM_DORA_S };
	potm_dora_add(tx, 0, x->from, bank_check, x, &lk, 1);
	atomic_fetch_add(&bank.added, 1);
}

static __thread unsigned bank_self;   /* the executor this thread serves */

static void bank_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	transfer_t *x = ctx;
	(void)tx;
	if (bank.inl && (unsigned)((x - &bank.slot[0][0]) / BANK_WINDOW) != bank_self)
		atomic_fetch_add(&bank.misdelivered, 1);
	x->outcome = outcome;
	atomic_store_explicit(&x->state, 2, memory_order_release);
}

static void bank_reap(unsigned id)
{
	for (unsigned k = 0; k < BANK_WINDOW; k++) {
		transfer_t *x = &bank.slot[id][k];
		if (atomic_load_explicit(&x->state, memory_order_acquire) == 2) {
			bank.tally[id][x->outcome]++;
			atomic_store_explicit(&x->state, 0, memory_order_relaxed);
		}
	}
}

static void bank_work(unsigned id, unsigned n)
{
	(void)n;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
	uint64_t sent = 0;
	bank_self = id;
	while (sent < bank.per_executor || (bank.reroute && atomic_load(&bank.moves) < 3)) {
		bank_reap(id);
		transfer_t *x = NULL;
		for (unsigned k = 0; k < BANK_WINDOW && x == NULL; k++)
			if (atomic_load_explicit(&bank.slot[id][k].state, memory_order_relaxed) == 0)
				x = &bank.slot[id][k];
		if (x != NULL) {
			x->from = rng_next(&rng) % BANK_ACCOUNTS;
			x->to = (x->from + 1 + rng_next(&rng) % (BANK_ACCOUNTS - 1)) % BANK_ACCOUNTS;
			x->amount = (int64_t)(rng_next(&rng) % 50);
			x->fail = rng_next(&rng) % 10 == 0;
			/* Inline: a quarter one-action reads, a quarter transfers
			 * of one phase (run whole at submission when both
			 * accounts are here), the rest as elsewhere. */
			unsigned kind = bank.inl ? (unsigned)(rng_next(&rng) % 4) : 2;
			potm_dora_lock_t lf = { .space = 1, .key = x->from, .mode = POTM_DORA_X };
			potm_dora_lock_t lt = { .space = 1, .key = x->to, .mode = POTM_DORA_X };
			sent++;
			if (kind == 0) {
				lf.mode = POTM_DORA_S;
				int rc = potm_dora_run_here(bank.d, id, 0, x->from, bank_audit, x, &lf, 1);
				if (rc != POTM_DORA_NOT_HERE) {
					atomic_fetch_add(&bank.added, 1);
					ck_assert_int_eq(rc, POTM_DORA_COMMITTED);
					bank.tally[id][rc]++;
					continue;
				}
			}
			atomic_store_explicit(&x->state, 1, memory_order_relaxed);
			potm_dora_tx_t *tx = potm_dora_tx_new(bank.d, bank_done, x);
			if (kind == 0) {
				potm_dora_add(tx, 0, x->from, bank_audit, x, &lf, 1);
			} else {
				potm_dora_add(tx, 0, x->from, bank_debit, x, &lf, 1);
				potm_dora_add(tx, 0, x->to, bank_credit, x, &lt, 1);
				if (kind >= 2)
					potm_dora_then(tx, bank_next, x);
			}
			atomic_fetch_add(&bank.added, kind == 0 ? 1 : 2);
			if (bank.inl)
				while (potm_dora_submit_on(tx, id) == POTM_DORA_PAUSED)
					potm_dora_serve(bank.d, id);
			else
				while (potm_dora_submit(tx) == POTM_DORA_PAUSED)
					potm_dora_serve(bank.d, id);
		}
		if (potm_dora_serve(bank.d, id) == 0)
			sched_yield();
	}
	bank.sent[id] = sent;
	/* Keep serving until every executor's transactions are done. */
	for (;;) {
		bank_reap(id);
		bool idle = true;
		for (unsigned k = 0; k < BANK_WINDOW; k++)
			idle &= atomic_load(&bank.slot[id][k].state) == 0;
		if (idle)
			break;
		if (potm_dora_serve(bank.d, id) == 0)
			sched_yield();
	}
	atomic_fetch_add(&bank.finished, 1);
	/* Inline: a reroute waits for every executor's acknowledgement,
	 * so all serve until the resource manager stopped. */
	while (atomic_load(&bank.finished) < bank.executors || potm_dora_in_flight(bank.d) != 0 ||
	       (bank.inl && bank.reroute && !atomic_load(&bank.rm_finished)))
		if (potm_dora_serve(bank.d, id) == 0)
			sched_yield();
}

/* The resource manager: moves ranges of accounts around until told to
 * stop. */
static void *bank_rm(void *arg)
{
	(void)arg;
	uint64_t rng = 12345;
	/* Inline: stop after a few moves, the executors serving meanwhile. */
	while (!atomic_load(&bank.stop_rm) && !(bank.inl && atomic_load(&bank.moves) >= 5)) {
		uint64_t lo = rng_next(&rng) % BANK_ACCOUNTS;
		uint64_t hi = lo + rng_next(&rng) % (BANK_ACCOUNTS - lo);
		unsigned e = (unsigned)(rng_next(&rng) % bank.executors);
		ck_assert_int_eq(potm_dora_reroute(bank.d, 0, lo, hi, e), 0);
		atomic_fetch_add(&bank.moves, 1);
		for (int i = 0; i < 200; i++)
			sched_yield();
	}
	atomic_store(&bank.rm_finished, 1);
	return NULL;
}

static void run_bank_inline(unsigned want, bool reroute, bool priv, bool inl)
{
	store_test_init();
	memset(&bank, 0, sizeof bank);
	bank.executors = executors_here(want);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	bank.d = potm_dora_create(bank.executors, 1);
	ck_assert_msg(bank.d != NULL, "%s", tm_last_error());
	ck_assert_int_eq(potm_dora_rule_hash(bank.d, 0, 0, BANK_ACCOUNTS - 1), 0);
	bank.t = accounts(BANK_ACCOUNTS, 1000);
	bank.priv = priv;
	bank.inl = inl;
	/* The inline runs are new: fewer where commits are handed over. */
	bank.per_executor = inl ? (uint64_t)(BANK_TX / test_handoff_divisor()) : BANK_TX;
	if (inl) {
		ck_assert_int_eq(potm_dora_set_inline(bank.d, 1), 0);
		ck_assert_int_eq(potm_dora_is_inline(bank.d), 1);
	}
	if (priv) {
		ck_assert_int_eq(potm_dora_set_private(bank.d, 1), 0);
		ck_assert_int_eq(potm_dora_is_private(bank.d), 1);
		store_table_def_t def = { .name = "acct", .record_size = sizeof(acct_t),
		                          .kind = STORE_ORDERED };
		for (uint64_t k = 0; k < BANK_ACCOUNTS; k++) {
			bank.pt[k] = store_private_table_create(&def);
			ck_assert_ptr_nonnull(bank.pt[k]);
			acct_t a = { .balance = 1000 };
			ck_assert_ptr_nonnull(store_private_insert(bank.pt[k], k, &a));
		}
	}
	tm_thread_exit();

	pthread_t rm;
	bank.reroute = reroute;
	if (reroute)
		ck_assert_int_eq(pthread_create(&rm, NULL, bank_rm, NULL), 0);
	test_run_threads(bank.executors, bank_work);
	if (reroute) {
		atomic_store(&bank.stop_rm, 1);
		pthread_join(rm, NULL);
	}

	ck_assert_int_eq(tm_thread_enter(0), 0);
	potm_dora_stats_t st;
	potm_dora_stats(bank.d, &st);
	uint64_t tally[3] = { 0, 0, 0 };
	for (unsigned e = 0; e < bank.executors; e++)
		for (int k = 0; k < 3; k++)
			tally[k] += bank.tally[e][k];
	uint64_t txs = 0;
	for (unsigned e = 0; e < bank.executors; e++)
		txs += bank.sent[e];
	ck_assert_uint_eq(tally[0] + tally[1] + tally[2], txs);
	ck_assert_uint_eq(st.committed, tally[0]);
	ck_assert_uint_eq(st.aborted, tally[1]);
	ck_assert_uint_eq(st.conflicts, tally[2]);
	ck_assert_uint_gt(tally[1], 0);
	ck_assert_uint_eq(st.actions, atomic_load(&bank.added));   /* no action lost */
	ck_assert_uint_eq(atomic_load(&bank.misrouted), 0);
	ck_assert_uint_eq(potm_dora_in_flight(bank.d), 0);
	if (inl) {
		ck_assert_uint_eq(atomic_load(&bank.misdelivered), 0);
		ck_assert_uint_gt(st.inline_runs, 0);
		/* Fixed once transactions ran. */
		ck_assert_int_eq(potm_dora_set_inline(bank.d, 0), -1);
	} else {
		ck_assert_uint_eq(st.inline_runs, 0);
	}
	if (reroute) {
		ck_assert_uint_eq(st.reroutes, atomic_load(&bank.moves));
		ck_assert_uint_ge(st.reroutes, 3);
	}
	if (priv) {
		/* The flag is fixed once transactions ran. */
		ck_assert_int_eq(potm_dora_set_private(bank.d, 0), -1);
		ck_assert_ptr_nonnull(strstr(tm_last_error(), "already submitted"));
		int64_t psum = 0;
		for (uint64_t k = 0; k < BANK_ACCOUNTS; k++) {
			ck_assert_uint_eq(store_private_count(bank.pt[k]), 1);
			ck_assert_int_eq(store_private_check(bank.pt[k]), 0);
			psum += ((acct_t *)store_private_get(bank.pt[k], k))->balance;
			store_private_table_destroy(bank.pt[k]);
		}
		ck_assert_int_eq(psum, 1000 * BANK_ACCOUNTS);
	}
	int64_t sum = 0;
	TM_BEGIN();
	sum = 0;
	for (uint64_t k = 0; k < BANK_ACCOUNTS; k++) {
		acct_t *r = store_get(bank.t, k);
		sum += TM_LOAD(&r->balance);
	}
	TM_END();
	ck_assert_int_eq(sum, 1000 * BANK_ACCOUNTS);
	ck_assert_int_eq(store_check(bank.t), 0);
	store_table_destroy(bank.t);
	potm_dora_destroy(bank.d);
	store_test_stop();
}

static void run_bank_tables(unsigned want, bool reroute, bool priv)
{
	run_bank_inline(want, reroute, priv, false);
}

static void run_bank(unsigned want, bool reroute)
{
	run_bank_tables(want, reroute, false);
}

START_TEST(bank_private)
{
	run_bank_tables(2, false, true);
}
END_TEST

START_TEST(bank_private_oversubscribed_reroute)
{
	run_bank_tables(4, true, true);
}
END_TEST

START_TEST(bank_two_executors)
{
	run_bank(2, false);
}
END_TEST

START_TEST(bank_oversubscribed)
{
	run_bank(8, false);
}
END_TEST

START_TEST(reroute_loses_no_action)
{
	run_bank(4, true);
}
END_TEST

/* Inline executors: local transactions run at submission, the rest
 * through the rings, each outcome back on its submitter; exact counts. */
START_TEST(bank_inline_private)
{
	run_bank_inline(2, false, true, true);
}
END_TEST

START_TEST(bank_inline_oversubscribed_reroute)
{
	run_bank_inline(4, true, true, true);
}
END_TEST

START_TEST(bank_inline_shared_oversubscribed)
{
	run_bank_inline(8, false, false, true);
}
END_TEST

/* One thread serving two inline executors: more messages from 0 to 1
 * than a ring holds spill into 0's list and still arrive in the order
 * they were sent (R1), each outcome back on executor 0, once. */
#define SPILL_TX 1000

static struct spill {
	unsigned ran[SPILL_TX], nran;
	unsigned outcomes, on_zero;
	unsigned serving;          /* the executor being served */
} spill;

static int spill_act(potm_dora_act_t *a, void *arg)
{
	ck_assert_uint_eq(potm_dora_act_executor(a), 1);
	spill.ran[spill.nran++] = (unsigned)(uintptr_t)arg;
	return 0;
}

static void spill_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	(void)tx;
	(void)ctx;
	ck_assert_int_eq(outcome, POTM_DORA_COMMITTED);
	spill.outcomes++;
	spill.on_zero += spill.serving == 0;
}

START_TEST(inline_ring_spill_keeps_order)
{
	store_test_start();
	memset(&spill, 0, sizeof spill);
	potm_dora_t *d = potm_dora_create(2, 1);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(potm_dora_rule_range(d, 0, 0, 1), 0);
	ck_assert_int_eq(potm_dora_set_private(d, 1), 0);
	ck_assert_int_eq(potm_dora_set_inline(d, 1), 0);
	/* Routed to executor 1: never run here. */
	ck_assert_int_eq(potm_dora_run_here(d, 0, 0, 1, spill_act, NULL, NULL, 0),
	                 POTM_DORA_NOT_HERE);
	spill.serving = 0;
	for (unsigned i = 0; i < SPILL_TX; i++) {
		potm_dora_tx_t *tx = potm_dora_tx_new(d, spill_done, NULL);
		potm_dora_add(tx, 0, 1, spill_act, (void *)(uintptr_t)i, NULL, 0);
		ck_assert_int_eq(potm_dora_submit_on(tx, 0), 0);
	}
	ck_assert_uint_eq(potm_dora_in_flight(d), SPILL_TX);
	potm_dora_serve(d, 0);   /* publishes what fits, keeps the rest */
	for (int round = 0; spill.outcomes < SPILL_TX && round < 1000; round++) {
		spill.serving = 1;
		potm_dora_serve(d, 1);
		spill.serving = 0;
		potm_dora_serve(d, 0);
	}
	ck_assert_uint_eq(spill.nran, SPILL_TX);
	for (unsigned i = 0; i < SPILL_TX; i++)
		ck_assert_uint_eq(spill.ran[i], i);
	ck_assert_uint_eq(spill.outcomes, SPILL_TX);
	ck_assert_uint_eq(spill.on_zero, SPILL_TX);
	ck_assert_uint_eq(potm_dora_in_flight(d), 0);
	potm_dora_stats_t st;
	potm_dora_stats(d, &st);
	ck_assert_uint_eq(st.committed, SPILL_TX);
	ck_assert_uint_eq(st.inline_runs, 0);
	potm_dora_destroy(d);
	store_test_stop();
}
END_TEST

/* Misuse and limits of inline mode. */
START_TEST(inline_errors)
{
	store_test_start();
	potm_dora_t *d = potm_dora_create(POTM_DORA_MAX_EXECUTORS, 1);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(potm_dora_set_inline(d, 1), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "at most 64"));
	ck_assert_int_eq(potm_dora_is_inline(d), 0);
	ck_assert_int_eq(potm_dora_set_inline(d, 0), 0);
	potm_dora_destroy(d);
	store_test_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dora");
	TCase *tc = tcase_create("dora");
	tcase_add_test(tc, routing);
	tcase_add_test(tc, rvp_join);
	tcase_add_test(tc, abort_undoes_every_action);
	tcase_add_test(tc, local_lock_conflicts);
	tcase_add_test(tc, bank_two_executors);
	tcase_add_test(tc, bank_oversubscribed);
	tcase_add_test(tc, reroute_loses_no_action);
	tcase_add_test(tc, bank_private);
	tcase_add_test(tc, bank_private_oversubscribed_reroute);
	tcase_add_test(tc, bank_inline_private);
	tcase_add_test(tc, bank_inline_oversubscribed_reroute);
	tcase_add_test(tc, bank_inline_shared_oversubscribed);
	tcase_add_test(tc, inline_errors);
	tcase_add_test(tc, inline_ring_spill_keeps_order);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
