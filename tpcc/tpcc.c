/*
 * tpcc/tpcc.c — TPC-C on the record store, as a benchmark of the harness.
 *
 *   tpcc-<b> [-w warehouses (0: one per thread)] [-m mix] [-e execution] [-I items]
 *            [-C customers] [-x remote %] [-R ms] [-W window] [-t -d -n -S -H]
 *
 * The database of -w warehouses is populated (clause 4.3), the workers run
 * the mix (-m: the standard 45/43/4/4/4, or one transaction type) with no
 * think time, each at its home warehouse, then the consistency conditions
 * of clause 3.3.2.1–4 are checked and the database's digest is taken.
 * One JSON line reports the throughput (all transactions per second), the
 * counts of each type, rollbacks, latency percentiles, the aborts by cause,
 * each condition's verdict and the digest.
 *
 * -e dora runs the same mix as DORA flow graphs (tpcc_dora.c): the -t
 * workers are the executors, warehouses routed to them by range; the
 * JSON line gains the executor's counters (actions, lock waits, retries
 * of transactions that died on a lock, undone actions).  -e dora-private
 * (tpcc_dora_private.c) runs them over private tables per warehouse with
 * no TM in the executors, which do not register; -W sets how many
 * transactions a DORA terminal keeps in flight.
 *
 * -I and -C scale the population down (fewer items; fewer customers, and
 * so orders, per district) for quick tests; a run that uses them reports
 * "scale": "reduced".
 *
 * -D dir logs the run in dir with the record store's redo log
 * (<potm/durable.h>, tpcc_durable.c; -L caps the log's growth, to test a
 * full disk) and keeps dir/acked, the counts of durable commits; -r -D dir
 * recovers the database from dir instead of running, checks the
 * consistency conditions and that every acknowledged New-Order and
 * Payment is there, and prints one JSON line of what it found.
 *
 * Determinism: every input is drawn from the worker's own stream (seed,
 * worker id), dates come from a logical clock (tpcc_now) and HISTORY keys
 * from (worker, sequence), so with a deterministic backend (pot) and -n
 * the final database, and its digest, depend only on the seed, -w, -I,
 * -C, -m, -t and -n.
 */
#include "tpcc.h"
#include "potm_bench.h"

#include <potm/dora.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

POTM_BENCH_EXPORT int potm_bench_tpcc(int argc, char **argv);

static const char *const tpcc_interfaces[] = { "std", "lsd", NULL };
static const char *const tpcc_executions[] = {
	"conventional", "dora", "dora-private", "partitioned", NULL,
};
static const char *const tpcc_mixes[] = {
	"standard", "new-order", "payment", "order-status", "delivery", "stock-level", NULL,
};

/* JSON key stems of the transaction types. */
static const char *const tx_keys[TPCC_TX_TYPES] = {
	"new_order", "payment", "order_status", "delivery", "stock_level",
};

typedef struct tpcc_totals {
	uint64_t done[TPCC_TX_TYPES], committed[TPCC_TX_TYPES];
	uint64_t rollbacks, remote_lines, remote_payments, by_name, delivered,
		delivery_skipped, low_stock, errors, ack_waits;
	const char *first_error;
	bench_lat_t lat[TPCC_TX_TYPES];
	uint64_t p50[TPCC_TX_TYPES], p99[TPCC_TX_TYPES];
} tpcc_totals_t;

static void add_up(const tpcc_db_t *db, tpcc_totals_t *t)
{
	memset(t, 0, sizeof *t);
	for (unsigned i = 0; i < db->threads; i++) {
		const tpcc_worker_t *w = &db->worker[i];
		for (int k = 0; k < TPCC_TX_TYPES; k++) {
			t->done[k] += w->done[k];
			t->committed[k] += w->committed[k];
			bench_lat_merge(&t->lat[k], &w->lat[k]);
		}
		t->rollbacks += w->rollbacks;
		t->remote_lines += w->remote_lines;
		t->remote_payments += w->remote_payments;
		t->by_name += w->by_name;
		t->delivered += w->delivered;
		t->delivery_skipped += w->delivery_skipped;
		t->low_stock += w->low_stock;
		t->ack_waits += w->ack_waits;
		if (w->errors && t->errors == 0)
			t->first_error = w->error;
		t->errors += w->errors;
	}
	for (int k = 0; k < TPCC_TX_TYPES; k++) {
		t->p50[k] = bench_lat_percentile(&t->lat[k], 50);
		t->p99[k] = bench_lat_percentile(&t->lat[k], 99);
	}
}

static int workers_alloc(tpcc_db_t *db)
{
	db->worker = aligned_alloc(64, db->threads * sizeof *db->worker);
	if (db->worker == NULL)
		return -1;
	memset(db->worker, 0, db->threads * sizeof *db->worker);
	for (unsigned i = 0; i < db->threads; i++) {
		db->worker[i].names = malloc(db->customers * sizeof(tpcc_name_hit_t));
		if (db->worker[i].names == NULL)
			return -1;
	}
	return 0;
}

static void workers_free(tpcc_db_t *db)
{
	for (unsigned i = 0; db->worker != NULL && i < db->threads; i++)
		free(db->worker[i].names);
	free(db->worker);
	db->worker = NULL;
}

/* Set-up: the tables and the shared rows as thread 0, then the
 * warehouses by one loader per worker (at most one per warehouse).  On
 * failure nothing is left: no table, no registered thread. */
static int tpcc_setup(tpcc_db_t *db, const bench_common_t *c, uint64_t *load_ns)
{
	int rc = bench_enter_main(c);
	if (rc != BENCH_EXIT_OK)
		return rc;
	uint64_t t0 = bench_now_ns();
	bool ok = tpcc_create(db) == 0 && tpcc_load_shared(db) == 0;
	tm_thread_exit();
	/* A deterministic backend commits one transaction per turn: parallel
	 * loaders there only wait for each other. */
	unsigned loaders = tm_is_deterministic() ? 1 : db->threads;
	/* Unregistered workers (-e dora-private) may outnumber what the
	 * backend registers at once (seq: one thread); the loaders register. */
	if (c->unregistered && strcmp(tm_backend_name(), "seq") == 0)
		loaders = 1;
	ok = ok && tpcc_load_warehouses(db, loaders) == 0;
	*load_ns = bench_now_ns() - t0;
	if (!ok) {
		if (bench_enter_main(c) == BENCH_EXIT_OK) {
			tpcc_destroy(db);
			tm_thread_exit();
		}
		return BENCH_EXIT_FAILED;
	}
	return BENCH_EXIT_OK;
}

int potm_bench_tpcc(int argc, char **argv)
{
	bench_common_t c = { .name = "tpcc" };
	uint64_t warehouses = 1, items = TPCC_ITEMS, customers = TPCC_CUSTOMERS, reroute_ms = 0;
	uint64_t remote_pct = 1, window = TPCC_DORA_WINDOW_MAX;
	unsigned mix = TPCC_MIX_STANDARD, interface = 0, execution = 0;
	bool items_given = false, customers_given = false;
	const char *log_dir = NULL;
	bool recover = false, limit_given = false;
	uint64_t log_limit = 0;
	const bench_option_t opts[] = {
		{ 'w', BENCH_OPT_UINT, "warehouse count",
		  "warehouses, 0 for one per thread; worker i's home is warehouse "
		  "i % w + 1 (default 1)", 0, TPCC_MAX_WAREHOUSES, NULL, &warehouses, NULL },
		{ 'm', BENCH_OPT_CHOICE, "mix",
		  "standard: 45/43/4/4/4 % New-Order/Payment/Order-Status/Delivery/"
		  "Stock-Level; the others: that type alone (default standard)",
		  0, 0, tpcc_mixes, &mix, NULL },
		{ 'a', BENCH_OPT_CHOICE, "interface",
		  "std: standard reads and writes; lsd: futures, conditions and lazy "
		  "writes (default std)",
		  0, 0, tpcc_interfaces, &interface, NULL },
		{ 'e', BENCH_OPT_CHOICE, "execution",
		  "conventional: each worker runs whole transactions; dora: the workers "
		  "are DORA executors owning their warehouses, transactions are flow "
		  "graphs of actions; dora-private: the same over private tables per "
		  "warehouse, plain accesses, no TM; partitioned: those tables, one lock "
		  "per warehouse taken in order, no TM; -m new-order or payment "
		  "(default conventional)",
		  0, 0, tpcc_executions, &execution, NULL },
		{ 'x', BENCH_OPT_UINT, "remote line percentage",
		  "percentage of New-Order lines supplied by another warehouse, when there "
		  "are several (default 1, clause 2.4.1.5)", 0, 100, NULL, &remote_pct, NULL },
		{ 'R', BENCH_OPT_UINT, "reroute period",
		  "-e dora: every this many milliseconds DORA's resource manager moves a "
		  "random range of warehouses to a random executor (default 0: never)",
		  0, 60000, NULL, &reroute_ms, NULL },
		{ 'W', BENCH_OPT_UINT, "DORA window",
		  "-e dora, dora-private: transactions each terminal keeps in flight; 1 "
		  "submits one at a time, so a latency is one transaction's response "
		  "time (default 4)", 1, TPCC_DORA_WINDOW_MAX, NULL, &window, NULL },
		{ 'I', BENCH_OPT_UINT, "item count",
		  "items, and stock rows per warehouse; below 100000 is not standard "
		  "(default 100000)", 1, TPCC_ITEMS, NULL, &items, &items_given },
		{ 'C', BENCH_OPT_UINT, "customers per district",
		  "customers, and initial orders, per district; below 3000 is not standard "
		  "(default 3000)", 1, TPCC_CUSTOMERS, NULL, &customers, &customers_given },
		{ 'D', BENCH_OPT_STR, "log directory",
		  "log the run with the redo log in this directory (created if missing); "
		  "dir/acked counts the durable commits (default: no log)",
		  0, 0, NULL, &log_dir, NULL },
		{ 'r', BENCH_OPT_FLAG, "recover",
		  "with -D: recover the database from the log instead of running, then "
		  "check it (same -w, -I, -C as the logged run)", 0, 0, NULL, &recover, NULL },
		{ 'L', BENCH_OPT_UINT, "log size limit",
		  "with -D: bytes the log may grow past its checkpoint before it counts as "
		  "full (default 0: no limit)", 1, UINT64_MAX, NULL, &log_limit, &limit_given },
	};
	int rc = bench_parse(&c, "tpcc: TPC-C (the five transactions, clause 2; the "
	                     "population, clause 4.3; the consistency checks, clause "
	                     "3.3.2.1-4) on the record store",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	/* -w 0: a home warehouse per worker (low contention at any -t). */
	if (warehouses == 0) {
		if (c.threads > TPCC_MAX_WAREHOUSES)
			return bench_usage_error(&c, "-w 0 with -t %" PRIu64 ": at most %u "
			                         "warehouses", c.threads, TPCC_MAX_WAREHOUSES);
		warehouses = c.threads;
	}
	if (recover && log_dir == NULL)
		return bench_usage_error(&c, "-r: recovery needs the log's directory (-D dir)");
	if (limit_given && (log_dir == NULL || recover))
		return bench_usage_error(&c, "-L: a log size limit needs a logged run (-D dir "
		                         "without -r)");
	if (log_dir != NULL && strcmp(tm_backend_name(), "silo") != 0 &&
	    strcmp(tm_backend_name(), "tl2") != 0 && strcmp(tm_backend_name(), "seq") != 0)
		return bench_usage_error(&c, "-D: the redo log runs on silo, tl2 and seq, not %s "
		                         "(no commit stamps)", tm_backend_name());
	if (log_dir != NULL && execution != 0)
		return bench_usage_error(&c, "-D: the redo log runs with conventional execution "
		                         "(-e conventional), not DORA");
	if (log_dir != NULL && interface == 1)
		return bench_usage_error(&c, "-D: the redo log needs standard accesses (-a std): "
		                         "lazy writes are not logged");
	if ((execution == 0 || execution == 3) && reroute_ms != 0)
		return bench_usage_error(&c, "-R: rerouting needs -e dora");
	if ((execution == 0 || execution == 3) && window != TPCC_DORA_WINDOW_MAX)
		return bench_usage_error(&c, "-W: the window needs -e dora or dora-private "
		                         "(conventional workers run one transaction at a time)");
	if (execution != 0 && interface == 1)
		return bench_usage_error(&c, "-e dora: New-Order and Payment run with standard "
		                         "accesses (-a std)");
	/* A district's order ids have TPCC_O_BITS bits: with -n, even if
	 * every transaction were a New-Order in one district they must fit. */
	if (c.ops_per_thread &&
	    customers + c.ops_per_thread * c.threads > TPCC_O_ID_MAX)
		return bench_usage_error(&c, "-n %" PRIu64 " with -t %" PRIu64 ": up to %" PRIu64
		                         " New-Orders in one district would exceed the %d-bit "
		                         "order ids", c.ops_per_thread, c.threads,
		                         c.ops_per_thread * c.threads, TPCC_O_BITS);
	/* Delivery needs undelivered orders: the last 30 % of the initial
	 * ones, none below 4 customers per district and only 1 or 2 below 10. */
	if (customers < 10 && (mix == TPCC_MIX_STANDARD ||
	                       mix == TPCC_MIX_ONLY_FIRST + TPCC_DELIVERY))
		return bench_usage_error(&c, "-C %" PRIu64 ": the %s mix needs at least 10 "
		                         "customers per district (Delivery delivers the last "
		                         "30 %% of the initial orders)", customers,
		                         tpcc_mixes[mix]);

	if (execution == 3 && mix != TPCC_MIX_ONLY_FIRST + TPCC_NEW_ORDER &&
	    mix != TPCC_MIX_ONLY_FIRST + TPCC_PAYMENT)
		return bench_usage_error(&c, "-e partitioned: runs New-Order or Payment alone "
		                         "(-m new-order or -m payment), not -m %s",
		                         tpcc_mixes[mix]);

	/* -e dora-private, partitioned: the workers call no TM function. */
	c.unregistered = execution == 2 || execution == 3;
	tpcc_db_t db = {
		.warehouses = (uint32_t)warehouses, .items = (uint32_t)items,
		.customers = (uint32_t)customers, .threads = (unsigned)c.threads,
		.mix = mix, .seed = c.seed,
		.can_cancel = strcmp(tm_backend_name(), "seq") != 0,
		.lsd = interface == 1, .remote_pct = (uint32_t)remote_pct,
		.dora_window = (uint32_t)window,
	};
	if (workers_alloc(&db) != 0) {
		fprintf(stderr, "tpcc: out of memory for %" PRIu64 " workers\n", c.threads);
		workers_free(&db);
		return BENCH_EXIT_FAILED;
	}
	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK) {
		workers_free(&db);
		return rc;
	}
	if (recover) {
		rc = bench_enter_main(&c);
		if (rc == BENCH_EXIT_OK) {
			rc = tpcc_create(&db) == 0 &&
			     tpcc_durable_recover(&db, log_dir, tm_backend_name()) == 0
				? BENCH_EXIT_OK : BENCH_EXIT_FAILED;
			tpcc_destroy(&db);
			tm_thread_exit();
		}
		bench_tm_stop();
		workers_free(&db);
		return rc;
	}
	uint64_t load_ns = 0;
	rc = tpcc_setup(&db, &c, &load_ns);
	if (rc == BENCH_EXIT_OK && log_dir != NULL) {
		/* The log's checkpoint: the loaded database. */
		rc = bench_enter_main(&c);
		if (rc == BENCH_EXIT_OK) {
			if (tpcc_durable_start(&db, log_dir, log_limit) != 0) {
				tpcc_durable_finish(&db);
				tpcc_destroy(&db);
				rc = BENCH_EXIT_FAILED;
			}
			tm_thread_exit();
		}
		if (rc != BENCH_EXIT_OK) {
			bench_tm_stop();
			workers_free(&db);
			return rc;
		}
	}
	if (rc != BENCH_EXIT_OK) {
		bench_tm_stop();
		workers_free(&db);
		return rc;
	}

	tm_stats_reset();
	tpcc_private_t *priv = NULL;
	bench_run_result_t run;
	potm_dora_stats_t dst;
	memset(&dst, 0, sizeof dst);
	uint64_t retries = 0;
	if (execution == 1) {
		rc = tpcc_dora_run(&db, &c, reroute_ms, &run, &dst);
		retries = dst.conflicts;
	} else if (execution == 2) {
		rc = tpcc_dora_private_run(&db, &c, reroute_ms, &run, &dst, &priv);
		retries = dst.conflicts;
	} else if (execution == 3) {
		rc = tpcc_partitioned_run(&db, &c, &run, &priv);
	} else {
		rc = bench_run(&c, tpcc_op, &db, &run);
	}
	tm_stats_t stats;
	tm_stats(&stats);
	/* Every commit durable and acknowledged, or the log's failure. */
	bool log_failed = tpcc_durable_finish(&db) != 0;

	bool ok[TPCC_CONDITIONS] = { false, false, false, false };
	bool checked = false;
	uint64_t digest = 0;
	bench_verdict_t verdict = { .failed = false };
	int enter_rc = bench_enter_main(&c);
	if (enter_rc == BENCH_EXIT_OK) {
		/* W3: the private tables back into the shared ones. */
		if (priv != NULL && tpcc_dora_private_finish(&db, priv) != 0 && rc == BENCH_EXIT_OK)
			rc = BENCH_EXIT_FAILED;
		priv = NULL;
		if (rc == BENCH_EXIT_OK) {
			tpcc_check(&db, ok, &verdict);
			digest = tpcc_digest(&db);
			checked = true;
		}
		tpcc_destroy(&db);
		tm_thread_exit();
	}
	tpcc_dora_private_free(priv);
	bench_tm_stop();
	if (rc == BENCH_EXIT_OK)
		rc = enter_rc;
	if (rc != BENCH_EXIT_OK) {
		workers_free(&db);
		return rc;
	}

	tpcc_totals_t t;
	add_up(&db, &t);
	workers_free(&db);
	if (t.errors)
		bench_fail(&verdict, "%" PRIu64 " transactions found the database broken; the "
		           "first: %s", t.errors, t.first_error);
	uint64_t done = 0;
	for (int k = 0; k < TPCC_TX_TYPES; k++)
		done += t.done[k];
	if (log_failed)
		bench_fail(&verdict, "-D %s: the redo log failed (see above); what it holds "
		           "is recoverable up to its durable stamp", log_dir);
	if (done != run.ops)
		bench_fail(&verdict, "the workers counted %" PRIu64 " transactions, the run %"
		           PRIu64, done, run.ops);

	char digest_hex[19];
	snprintf(digest_hex, sizeof digest_hex, "%016" PRIx64, digest);
	const char *verdicts[TPCC_CONDITIONS];
	for (int i = 0; i < TPCC_CONDITIONS; i++)
		verdicts[i] = !checked ? "not checked" : ok[i] ? "ok" : "failed";
	bool standard = items == TPCC_ITEMS && customers == TPCC_CUSTOMERS;
	double new_orders_per_min = run.elapsed_s > 0
		? (double)t.committed[TPCC_NEW_ORDER] * 60.0 / run.elapsed_s : 0.0;

	const bench_kv_t params[] = {
		BENCH_STR("workload", "tpcc"),
		BENCH_U64("warehouses", warehouses),
		BENCH_STR("mix", tpcc_mixes[mix]),
		BENCH_STR("interface", tpcc_interfaces[interface]),
		BENCH_STR("execution", tpcc_executions[execution]),
		BENCH_U64("remote_lines_pct", remote_pct),
		BENCH_U64("dora_window", window),
		BENCH_U64("items", items),
		BENCH_U64("customers_per_district", customers),
		BENCH_STR("scale", standard ? "standard" : "reduced"),
		BENCH_STR("log", log_dir != NULL ? "redo" : "none"),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("new_order", t.done[TPCC_NEW_ORDER]),
		BENCH_U64("new_order_commits", t.committed[TPCC_NEW_ORDER]),
		BENCH_U64("new_order_rollbacks", t.rollbacks),
		BENCH_U64("payment", t.done[TPCC_PAYMENT]),
		BENCH_U64("payment_commits", t.committed[TPCC_PAYMENT]),
		BENCH_U64("order_status", t.done[TPCC_ORDER_STATUS]),
		BENCH_U64("order_status_commits", t.committed[TPCC_ORDER_STATUS]),
		BENCH_U64("delivery", t.done[TPCC_DELIVERY]),
		BENCH_U64("delivery_commits", t.committed[TPCC_DELIVERY]),
		BENCH_U64("stock_level", t.done[TPCC_STOCK_LEVEL]),
		BENCH_U64("stock_level_commits", t.committed[TPCC_STOCK_LEVEL]),
		BENCH_U64("new_orders_per_min", (uint64_t)new_orders_per_min),
		BENCH_U64("remote_order_lines", t.remote_lines),
		BENCH_U64("remote_payments", t.remote_payments),
		BENCH_U64("customers_by_name", t.by_name),
		BENCH_U64("orders_delivered", t.delivered),
		BENCH_U64("delivery_districts_skipped", t.delivery_skipped),
		BENCH_U64("low_stock_items", t.low_stock),
		BENCH_U64("new_order_p50_ns", t.p50[TPCC_NEW_ORDER]),
		BENCH_U64("new_order_p99_ns", t.p99[TPCC_NEW_ORDER]),
		BENCH_U64("payment_p50_ns", t.p50[TPCC_PAYMENT]),
		BENCH_U64("payment_p99_ns", t.p99[TPCC_PAYMENT]),
		BENCH_U64("order_status_p50_ns", t.p50[TPCC_ORDER_STATUS]),
		BENCH_U64("order_status_p99_ns", t.p99[TPCC_ORDER_STATUS]),
		BENCH_U64("delivery_p50_ns", t.p50[TPCC_DELIVERY]),
		BENCH_U64("delivery_p99_ns", t.p99[TPCC_DELIVERY]),
		BENCH_U64("stock_level_p50_ns", t.p50[TPCC_STOCK_LEVEL]),
		BENCH_U64("stock_level_p99_ns", t.p99[TPCC_STOCK_LEVEL]),
		BENCH_U64("load_ms", load_ns / 1000000),
		BENCH_U64("dora_actions", dst.actions),
		BENCH_U64("dora_lock_waits", dst.lock_waits),
		BENCH_U64("dora_retries", retries),
		BENCH_U64("dora_undone_actions", dst.undone),
		BENCH_U64("dora_reroutes", dst.reroutes),
		BENCH_STR("consistency_1", verdicts[0]),
		BENCH_STR("consistency_2", verdicts[1]),
		BENCH_STR("consistency_3", verdicts[2]),
		BENCH_STR("consistency_4", verdicts[3]),
		BENCH_U64("errors", t.errors),
		BENCH_U64("log_ack_waits", t.ack_waits),
		BENCH_STR("digest", digest_hex),
	};
	rc = BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);

	if (c.human) {
		printf("tpcc: %.0f New-Orders/min (%.1f s, load %.1f s);",
		       new_orders_per_min, run.elapsed_s, (double)load_ns / 1e9);
		for (int k = 0; k < TPCC_TX_TYPES; k++)
			printf(" %s %" PRIu64 " (p50 %.1f us, p99 %.1f us)%s", tx_keys[k],
			       t.done[k], (double)t.p50[k] / 1e3, (double)t.p99[k] / 1e3,
			       k + 1 < TPCC_TX_TYPES ? "," : ";");
		printf(" %" PRIu64 " rollbacks; consistency %s %s %s %s; digest %s\n",
		       t.rollbacks, verdicts[0], verdicts[1], verdicts[2], verdicts[3],
		       digest_hex);
		fflush(stdout);
	}
	return rc;
}

#ifdef POTM_TPCC_MAIN
int main(int argc, char **argv)
{
	return potm_bench_tpcc(argc, argv);
}
#endif

BENCH_REGISTER("tpcc", potm_bench_tpcc,
               "TPC-C: the five transactions on the record store, with the "
               "consistency checks of clause 3.3.2");
