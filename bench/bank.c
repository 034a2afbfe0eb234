/*
 * bench/bank.c — the bank benchmark.
 *
 * -a accounts start with -b units each.  A worker either moves a random
 * amount from one random account to another (a short read-write
 * transaction on two words), or, in -r percent of its operations, sums all
 * accounts in one read-only transaction and checks the sum against the
 * invariant total.  A TM that lets a transaction see half of a transfer
 * shows up as a violation; the total must also hold after the run.
 * Balances may go negative: the invariant is the sum, not the sign.
 */
#include "harness.h"
#include "potm_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

enum {
	BANK_TRANSFERS,     /* transfer transactions */
	BANK_TOTALS,        /* read-only "total" transactions */
	BANK_VIOLATIONS,    /* totals that did not add up */
};

typedef struct bank {
	long *balance;      /* TM memory: one word per account */
	uint64_t accounts;
	long total;         /* the invariant: accounts x initial balance */
	uint64_t total_pct;
} bank_t;

#define BANK_MAX_AMOUNT 100

static void bank_transfer(bank_t *b, uint64_t from, uint64_t to, long amount)
{
	TM_BEGIN();
	long src = TM_LOAD(&b->balance[from]);
	long dst = TM_LOAD(&b->balance[to]);
	TM_STORE(&b->balance[from], src - amount);
	TM_STORE(&b->balance[to], dst + amount);
	TM_END();
}

/* The sum of all balances, read in one transaction. */
static long bank_total(bank_t *b)
{
	volatile long sum = 0;
	TM_BEGIN();
	long s = 0;
	for (uint64_t i = 0; i < b->accounts; i++)
		s += TM_LOAD(&b->balance[i]);
	sum = s;
	TM_END();
	return sum;
}

static void bank_op(void *shared, bench_thread_t *self)
{
	bank_t *b = shared;
	if (bench_rng_below(&self->rng, 100) < b->total_pct) {
		self->count[BANK_TOTALS]++;
		if (bank_total(b) != b->total)
			self->count[BANK_VIOLATIONS]++;
		return;
	}
	uint64_t from = bench_rng_below(&self->rng, b->accounts);
	/* A different account: draw from the others and skip over from. */
	uint64_t to = from;
	if (b->accounts > 1) {
		to = bench_rng_below(&self->rng, b->accounts - 1);
		to += to >= from;
	}
	long amount = 1 + (long)bench_rng_below(&self->rng, BANK_MAX_AMOUNT);
	bank_transfer(b, from, to, amount);
	self->count[BANK_TRANSFERS]++;
}

static void bank_open_range(bank_t *b, uint64_t first, uint64_t end, long initial)
{
	TM_BEGIN();
	for (uint64_t i = first; i < end; i++)
		TM_STORE(&b->balance[i], initial);
	TM_END();
}

/* Chunks keep a write-buffering TM's write set small for huge -a.  (One
 * transaction per call: gcc's -Wclobbered distrusts TM_BEGIN in a loop.) */
#define BANK_OPEN_CHUNK 4096

static void bank_open_accounts(bank_t *b, long initial)
{
	for (uint64_t first = 0; first < b->accounts; first += BANK_OPEN_CHUNK) {
		uint64_t end = first + BANK_OPEN_CHUNK < b->accounts
		               ? first + BANK_OPEN_CHUNK : b->accounts;
		bank_open_range(b, first, end, initial);
	}
}

static void bank_close_accounts(bank_t *b)
{
	TM_BEGIN();
	tm_free(b->balance);
	TM_END();
}

int potm_bench_bank(int argc, char **argv)
{
	bench_common_t c = { .name = "bank" };
	uint64_t accounts = 1024, initial = 1000, total_pct = 10;
	const bench_option_t opts[] = {
		{ 'a', BENCH_OPT_UINT, "account count", "accounts (default 1024)",
		  1, (uint64_t)1 << 26, NULL, &accounts, NULL },
		{ 'b', BENCH_OPT_UINT, "initial balance",
		  "initial balance of every account (default 1000)", 0, 1000000000,
		  NULL, &initial, NULL },
		{ 'r', BENCH_OPT_UINT, "read-only percentage",
		  "percent of operations that sum all accounts in a read-only "
		  "transaction (default 10)", 0, 100, NULL, &total_pct, NULL },
	};
	int rc = bench_parse(&c, "bank: transfers between random accounts and "
	                     "read-only totals that check the invariant sum",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;

	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		return rc;
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK) {
		bench_tm_stop();
		return rc;
	}
	bank_t bank = {
		.accounts = accounts,
		.total = (long)(accounts * initial),
		.total_pct = total_pct,
	};
	/* Outside a transaction tm_malloc is plain allocation; the balances
	 * are then written transactionally like any shared data. */
	bank.balance = tm_malloc(accounts * sizeof *bank.balance);
	if (bank.balance == NULL) {
		fprintf(stderr, "bank: out of memory for %" PRIu64 " accounts\n", accounts);
		tm_thread_exit();
		bench_tm_stop();
		return BENCH_EXIT_FAILED;
	}
	bank_open_accounts(&bank, (long)initial);
	tm_thread_exit();
	tm_stats_reset();

	bench_run_result_t run;
	rc = bench_run(&c, bank_op, &bank, &run);
	tm_stats_t stats;
	tm_stats(&stats);

	int enter_rc = bench_enter_main(&c);
	if (enter_rc != BENCH_EXIT_OK) {
		bench_tm_stop();
		return enter_rc;
	}
	long final_total = bank_total(&bank);
	bank_close_accounts(&bank);
	tm_thread_exit();
	bench_tm_stop();
	if (rc != BENCH_EXIT_OK)
		return rc;

	bench_verdict_t verdict = { .failed = false };
	if (run.count[BANK_VIOLATIONS])
		bench_fail(&verdict, "%" PRIu64 " of %" PRIu64 " read-only totals saw a "
		           "sum other than %ld", run.count[BANK_VIOLATIONS],
		           run.count[BANK_TOTALS], bank.total);
	else if (final_total != bank.total)
		bench_fail(&verdict, "total after the run is %ld, expected %ld",
		           final_total, bank.total);

	const bench_kv_t params[] = {
		BENCH_U64("accounts", accounts),
		BENCH_U64("initial_balance", initial),
		BENCH_U64("read_only", total_pct),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("transfers", run.count[BANK_TRANSFERS]),
		BENCH_U64("totals", run.count[BANK_TOTALS]),
		BENCH_U64("violations", run.count[BANK_VIOLATIONS]),
		BENCH_I64("final_total", final_total),
	};
	return BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
}

BENCH_REGISTER("bank", potm_bench_bank,
               "bank: transfers and read-only totals with an invariant sum");
