/*
 * server/stream.c — potm-server --stream N: the execution phase alone.
 *
 * The thesis's Figures 5.4 and 5.5 measure how fast a replica executes
 * the agreed stream; with sockets and client threads on the same cores,
 * the measurement is of the scheduler instead.  This mode keeps the rest
 * of the path: C closed-loop clients draw their requests as potm-load's
 * do (workload.c), one outstanding per client; the clients form groups
 * of batch_max, and a group's requests of one round are one log entry,
 * as the I/O thread would read them in one poll round.  Entries are
 * proposed to the local agreement and applied by the executor (its
 * applier, its workers, the configured mode) exactly as from the
 * network.  A group's next entry is proposed when the last response of
 * its current one comes back, which is what closed-loop clients do, and
 * entries go in log order only, so the log does not depend on timing.
 * The frames are encoded before the clock starts: the clients' cost is
 * not the server's.
 *
 * Then the run prints one JSON line: the requests, the seconds from the
 * first proposal to the last response, the throughput, the mean and p99
 * latency (a request's: its entry's), the responses' statuses, the TM's
 * commits and aborts, and the digest of the state
 * after the stream.  Every request of the stream takes the same position
 * and slot in every mode, so the deterministic modes (sequential, pot,
 * pot+lsd, pot+fast, pot+lsd+fast) end with the same digest for the same
 * seed: the determinism claim, checked by t-server-stream.
 */
#include "server.h"
#include "workload.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The stream's log entries, encoded: entry k is bytes[off[k], off[k+1])
 * and holds count[k] requests, those of client group group[k] (clients
 * [group * batch_max, ...)). */
typedef struct stream_log {
	uint8_t *bytes;
	size_t len, cap;
	size_t *off;
	unsigned *count;
	size_t *group;
	size_t nentries;
} stream_log_t;

static int log_put(stream_log_t *l, const uint8_t *frame, size_t n)
{
	if (l->len + n > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1u << 16;
		while (cap < l->len + n)
			cap *= 2;
		uint8_t *p = realloc(l->bytes, cap);
		if (p == NULL)
			return -1;
		l->bytes = p;
		l->cap = cap;
	}
	memcpy(l->bytes + l->len, frame, n);
	l->len += n;
	return 0;
}

/* Draw the stream: rounds of one request per client, in client order,
 * cut into entries of batch_max requests at most. */
static int build_log(stream_log_t *l, const server_options_t *o)
{
	workload_opts_t wo = { .warehouses = o->warehouses, .items = o->items,
	                       .customers = o->customers, .accounts = o->accounts,
	                       .seed = o->seed, .hot = o->stream_hot };
	unsigned c = o->stream_clients;
	uint64_t n = o->stream;
	size_t rounds = (size_t)((n + c - 1) / c);
	size_t per_round = (c + o->batch_max - 1) / o->batch_max;
	workload_client_t *cl = calloc(c, sizeof *cl);
	uint64_t *next_id = calloc(c, sizeof *next_id);
	l->off = malloc((rounds * per_round + 1) * sizeof *l->off);
	l->count = calloc(rounds * per_round + 1, sizeof *l->count);
	l->group = calloc(rounds * per_round + 1, sizeof *l->group);
	if (cl == NULL || next_id == NULL || l->off == NULL ||
	    l->count == NULL || l->group == NULL)
		goto oom;
	for (unsigned i = 0; i < c; i++)
		workload_client_init(&cl[i], &wo, i);
	uint8_t frame[4 + POTM_FRAME_MAX];
	uint64_t drawn = 0;
	for (size_t r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < c && drawn < n; i++, drawn++) {
			if (i % o->batch_max == 0) {
				l->group[l->nentries] = i / o->batch_max;
				l->off[l->nentries++] = l->len;
			}
			l->count[l->nentries - 1]++;
			potm_request_t req = { .client_id = i + 1, .request_id = ++next_id[i] };
			unsigned np;
			req.type = workload_next(&cl[i], req.params, &np);
			req.nparams = (uint16_t)np;
			size_t len = potm_encode_request(&req, frame, sizeof frame);
			if (len == 0) {
				fprintf(stderr, "potm-server: --stream: a request does not encode\n");
				goto fail;
			}
			if (log_put(l, frame, len) != 0)
				goto oom;
		}
	}
	l->off[l->nentries] = l->len;
	free(cl);
	free(next_id);
	return 0;
oom:
	fprintf(stderr, "potm-server: --stream: out of memory for the stream\n");
fail:
	free(cl);
	free(next_id);
	return -1;
}

/* One entry's latency, shared by its n requests. */
typedef struct entry_lat {
	double ms;
	uint64_t n;
} entry_lat_t;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The closed loop: every client group has one entry in flight; when its
 * last response comes back (on the thread that answers, executor_send_fn)
 * the group's next entry is proposed.  Entries are proposed in log order
 * only, so the log is the same in every run: an entry whose group's
 * previous entry is still in flight holds back the ones after it. */
typedef struct stream_sink {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	const stream_log_t *log;
	agreement_t *ag;
	unsigned group_size;      /* clients per entry (batch_max) */
	/* under lock: */
	uint64_t *answered, *want;   /* per group: responses back, and in flight */
	size_t *current;          /* per group: its entry in flight, or SIZE_MAX */
	double *proposed_at;      /* per entry */
	entry_lat_t *lat;         /* per entry answered, in answer order */
	size_t nlat;
	size_t next;              /* the next entry to propose */
	uint64_t ok, rolled_back, errors;
} stream_sink_t;

/* Propose every entry, in log order, whose group has none in flight. */
static void stream_pump(stream_sink_t *s)
{
	const stream_log_t *l = s->log;
	while (s->next < l->nentries && s->current[l->group[s->next]] == SIZE_MAX) {
		size_t k = s->next++, g = l->group[k];
		s->current[g] = k;
		s->want[g] += l->count[k];
		s->proposed_at[k] = now_s();
		agreement_propose(s->ag, l->bytes + l->off[k], l->off[k + 1] - l->off[k]);
	}
}

/* A frame's status is the 16-bit word at byte 2 of its body
 * (server/PROTOCOL.md), read without decoding the rest. */
static void stream_send(void *ctx, uint64_t client_id, const uint8_t *frame, size_t len)
{
	stream_sink_t *s = ctx;
	unsigned status = len >= 8 ? (unsigned)frame[6] | (unsigned)frame[7] << 8 : 0xffffu;
	size_t g = (size_t)(client_id - 1) / s->group_size;
	pthread_mutex_lock(&s->lock);
	if (status == POTM_OK)
		s->ok++;
	else if (status == POTM_ROLLED_BACK)
		s->rolled_back++;
	else
		s->errors++;
	if (++s->answered[g] == s->want[g]) {
		/* each request of the entry waited this long */
		size_t k = s->current[g];
		s->lat[s->nlat++] = (entry_lat_t){ .ms = (now_s() - s->proposed_at[k]) * 1e3,
		                                   .n = s->log->count[k] };
		s->current[g] = SIZE_MAX;
		stream_pump(s);
		if (s->nlat == s->log->nentries)
			pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->lock);
}

static int cmp_lat(const void *a, const void *b)
{
	double x = ((const entry_lat_t *)a)->ms, y = ((const entry_lat_t *)b)->ms;
	return (x > y) - (x < y);
}

/* The requests' mean latency and their p99 by nearest rank (potm-load's
 * definition), from the entries' (sorts lat). */
static void latency_summary(entry_lat_t *lat, size_t n, uint64_t total, double *mean,
                            double *p99)
{
	double sum = 0;
	for (size_t r = 0; r < n; r++)
		sum += lat[r].ms * (double)lat[r].n;
	*mean = total ? sum / (double)total : 0;
	qsort(lat, n, sizeof *lat, cmp_lat);
	uint64_t rank = (99 * total + 99) / 100, seen = 0;
	for (size_t r = 0; r < n; r++) {
		seen += lat[r].n;
		if (seen >= rank) {
			*p99 = lat[r].ms;
			break;
		}
	}
}


int stream_run(server_state_t *st, const server_options_t *o, bool ordered,
               const char *mode_name)
{
	stream_log_t l = { 0 };
	stream_sink_t sink = { .log = &l, .group_size = o->batch_max, .next = 0 };
	pthread_mutex_init(&sink.lock, NULL);
	pthread_cond_init(&sink.cv, NULL);
	int rc = 1;
	executor_t *ex = NULL;
	agreement_t *ag = NULL;
	if (build_log(&l, o) != 0)
		goto out;
	size_t groups = (o->stream_clients + o->batch_max - 1) / o->batch_max;
	sink.answered = calloc(groups, sizeof *sink.answered);
	sink.want = calloc(groups, sizeof *sink.want);
	sink.current = malloc(groups * sizeof *sink.current);
	sink.proposed_at = calloc(l.nentries + 1, sizeof *sink.proposed_at);
	sink.lat = calloc(l.nentries + 1, sizeof *sink.lat);
	if (sink.answered == NULL || sink.want == NULL || sink.current == NULL ||
	    sink.proposed_at == NULL || sink.lat == NULL) {
		fprintf(stderr, "potm-server: --stream: out of memory\n");
		goto out;
	}
	for (size_t g = 0; g < groups; g++)
		sink.current[g] = SIZE_MAX;
	ex = executor_start(st, o, ordered, stream_send, NULL, &sink);
	ag = ex != NULL ? agreement_local_create(executor_apply, ex) : NULL;
	if (ag == NULL)
		goto out;
	sink.ag = ag;

	double t0 = now_s();
	pthread_mutex_lock(&sink.lock);
	stream_pump(&sink);
	while (sink.nlat < l.nentries)
		pthread_cond_wait(&sink.cv, &sink.lock);
	pthread_mutex_unlock(&sink.lock);
	double seconds = now_s() - t0;
	double mean_ms = 0, p99_ms = 0;
	latency_summary(sink.lat, sink.nlat, o->stream, &mean_ms, &p99_ms);

	agreement_destroy(ag);
	ag = NULL;
	executor_status_t s;
	executor_stop(ex, &s);
	ex = NULL;

	bench_verdict_t v = { .failed = false };
	uint64_t digest = 0;
	if (tm_thread_enter(0) != 0) {
		bench_fail(&v, "tm_thread_enter: %s", tm_last_error());
	} else {
		state_check(st, &v);
		digest = state_digest(st);
		state_destroy(st);
		tm_thread_exit();
	}
	tm_stats_t ts = { 0 };
	(void)tm_stats(&ts);
	printf("{\"event\": \"stream\", \"mode\": \"%s\", \"backend\": \"%s\", \"workers\": %u, "
	       "\"applier_executes\": %s, \"clients\": %u, \"workload\": \"%s\", "
	       "\"warehouses\": %u, \"batch_max\": %u, \"requests\": %" PRIu64
	       ", \"executed\": %" PRIu64 ", \"seconds\": %.6f, \"throughput\": %.1f, "
	       "\"mean_latency_ms\": %.4f, \"p99_latency_ms\": %.4f, "
	       "\"ok\": %" PRIu64 ", \"rolled_back\": %" PRIu64 ", \"errors\": %" PRIu64
	       ", \"commits\": %" PRIu64 ", \"aborts\": %" PRIu64 ", \"early_fast\": %" PRIu64
	       ", \"fast_commits\": %" PRIu64 ", \"spec_commits\": %" PRIu64
	       ", \"promotions\": %" PRIu64 ", \"wait_turn_ms\": %.3f, \"worker_idle_ms\": %.3f"
	       ", \"digest\": \"%016" PRIx64 "\", \"verified\": %s, \"verify_msg\": \"%s\"}\n",
	       mode_name, tm_backend_name(), o->workers, o->applier_executes ? "true" : "false",
	       o->stream_clients, o->stream_hot ? "hot" : "tpcc", o->warehouses, o->batch_max,
	       s.positions, s.executed, seconds, seconds > 0 ? (double)s.positions / seconds : 0,
	       mean_ms, p99_ms,
	       sink.ok, sink.rolled_back, sink.errors, ts.commits, ts.aborts, ts.early_fast,
	       ts.fast_commits, ts.spec_commits, ts.promotions, (double)ts.wait_turn_ns / 1e6,
	       (double)s.worker_idle_ns / 1e6,
	       digest, v.failed ? "false" : "true", v.failed ? v.msg : "");
	fflush(stdout);
	if (v.failed)
		fprintf(stderr, "potm-server: %s\n", v.msg);
	rc = v.failed || sink.errors != 0 ? 1 : 0;
	goto done;
out:
	if (ag != NULL)
		agreement_destroy(ag);
	executor_stop(ex, NULL);
	if (tm_thread_enter(0) == 0) {
		state_destroy(st);
		tm_thread_exit();
	}
done:
	free(sink.answered);
	free(sink.want);
	free(sink.current);
	free(sink.proposed_at);
	free(sink.lat);
	free(l.count);
	free(l.group);
	free(l.bytes);
	free(l.off);
	pthread_cond_destroy(&sink.cv);
	pthread_mutex_destroy(&sink.lock);
	return rc;
}
