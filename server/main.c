/*
 * server/main.c — potm-server-<backend>: a transactional server that
 * executes clients' requests in an agreed order (server/README.md).
 *
 *   potm-server-pot --mode pot --workers 2 --port 0 -w 1
 *
 * Backends are chosen at compile time, so each backend has its binary and
 * the mode must fit it: sequential runs on any (potm-server-seq is the
 * classic state machine), pot, pot+lsd, pot+fast and pot+lsd+fast need a
 * deterministic backend (pot), occ needs tl2 and 2pl the 2pl backend.  On start the server
 * populates the database, prints one JSON line with the port it listens
 * on, and serves until SIGTERM or SIGINT; then it applies what it has
 * taken, checks the database (TPC-C's consistency conditions, the bank's
 * total) and prints a JSON line with the final digest and the verdict.
 * Exit status: 0, 1 if a check failed, 2 for a bad option.  With --stream N
 * it serves no socket: it executes N requests of closed-loop clients
 * through the local agreement (stream.c), prints one JSON line and exits.
 */
#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *backend;      /* the backend it needs, NULL: any */
	bool lsd;
} modes[] = {
	[SERVER_SEQUENTIAL] = { "sequential", NULL, false },
	[SERVER_POT] = { "pot", "pot", false },
	[SERVER_POT_LSD] = { "pot+lsd", "pot", true },
	[SERVER_OCC] = { "occ", "tl2", false },
	[SERVER_2PL] = { "2pl", "2pl", false },
	[SERVER_POT_FAST] = { "pot+fast", "pot", false },
	[SERVER_POT_LSD_FAST] = { "pot+lsd+fast", "pot", true },
};
#define NMODES (sizeof modes / sizeof modes[0])

static net_t *the_net;

/* The agreement's snapshot callbacks: the executor's state machine. */
static void *snapshot_begin_cb(void *ex)
{
	return executor_snapshot_begin(ex);
}

static int snapshot_end_cb(void *ex, void *snap, void **bytes, size_t *len)
{
	return executor_snapshot_end(ex, snap, bytes, len);
}

static int restore_cb(void *ex, const void *bytes, size_t len)
{
	return executor_restore(ex, bytes, len);
}

static void on_signal(int sig)
{
	(void)sig;
	if (the_net != NULL)
		net_request_stop(the_net);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: potm-server-%s [options]\n"
	        "  --mode M          sequential | pot | pot+lsd | pot+fast | pot+lsd+fast (pot\n"
	        "                    backend) | occ (tl2) | 2pl (2pl backend); default: the\n"
	        "                    backend's own\n"
	        "  --workers N       executing threads for every mode but sequential (1..64,\n"
	        "                    default 2)\n"
	        "  --port P          TCP port on 127.0.0.1 (default 0: any free one)\n"
	        "  -w N              TPC-C warehouses (1..%u, default 1)\n"
	        "  -I N, -C N        items (default 100000), customers per district (default 3000)\n"
	        "  --accounts N      bank accounts (1..1000000, default 16)\n"
	        "  --seed S          population seed (default 1)\n"
	        "  --batch-max N     requests per log entry (1..4096, default 256; with\n"
	        "                    --stream %u)\n"
	        "  --digest-every N  publish a digest every N batches (0: never; default 1)\n"
	        "  --applier-executes  the applier runs requests beside the workers (so\n"
	        "                    --workers 1 is two executing threads)\n"
	        "  --worker-spin N   polls for work before a worker sleeps (default 0)\n"
	        "  --extend N        pot, pot+lsd: a transaction whose turn has not come when its\n"
	        "                    requests are done takes in the next one, up to N times\n"
	        "                    (0..64, default 0)\n"
	        "  --barrier         execute pass by pass: the entries queued at once run to\n"
	        "                    their end and are answered before the next are walked\n"
	        "                    (default: continuously, quiescent only for a digest,\n"
	        "                    a snapshot or --log-dir's group commit)\n"
	        "  --requests-per-tx N  run N consecutive requests as one transaction, in one\n"
	        "                    slot (modes pot, pot+lsd, occ, 2pl; 1..64, default 1)\n"
	        "  --log-dir DIR     a single server's redo log: answer each request once its\n"
	        "                    commit is durable; recover DIR's state at start (modes\n"
	        "                    sequential and occ, backends seq and tl2)\n"
	        "the execution phase alone, no sockets (server/stream.c):\n"
	        "  --stream N        propose N requests of closed-loop clients to the local\n"
	        "                    agreement, execute them, print one JSON line and exit\n"
	        "  --clients C       the clients: requests per round (1..4096, default 16)\n"
	        "  --workload W      tpcc (default) or hot (transfers from account 0)\n"
	        "replication (Raft; without --replica: a single server)%s:\n"
	        "  --replica ID      this replica's id among the peers\n"
	        "  --peers LIST      ID=HOST:RAFT_PORT[:CLIENT_PORT],... every replica (up to %u)\n"
	        "  --data-dir DIR    this replica's log and snapshots (created if missing)\n"
	        "  --snapshot-every N  log entries between snapshots (default: libraft's, 1024)\n"
	        "  --election-ms N   election timeout, ms (default: libraft's, 1000)\n",
	        tm_backend_name(), TPCC_MAX_WAREHOUSES, STREAM_BATCH_MAX,
	        agreement_raft_available ? "" : " -- not in this build (no libraft)",
	        AGREEMENT_PEERS_MAX);
}

static int bad_option(const char *fmt, const char *arg)
{
	fprintf(stderr, "potm-server: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (--help for the options)\n");
	return 2;
}

static int parse_uint(const char *name, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "potm-server: %s %s: must be %" PRIu64 "..%" PRIu64 "\n", name,
		        arg, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* --peers: ID=HOST:RAFT_PORT[:CLIENT_PORT], comma-separated. */
static int parse_peers(const char *arg, server_options_t *o)
{
	o->npeers = 0;
	for (const char *p = arg; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[128];
		if (len >= sizeof item || o->npeers == AGREEMENT_PEERS_MAX)
			return bad_option("--peers %s: too long, or too many replicas", arg);
		memcpy(item, p, len);
		item[len] = '\0';
		agreement_peer_t *peer = &o->peers[o->npeers];
		char *q;
		unsigned long long id = strtoull(item, &q, 10);
		size_t hl = *q == '=' ? strspn(q + 1, "0123456789.") : 0;
		unsigned long raft_port = 0, client_port = 0;
		if (hl > 0 && hl < sizeof peer->host && q[1 + hl] == ':') {
			memcpy(peer->host, q + 1, hl);
			peer->host[hl] = '\0';
			q += 2 + hl;
			raft_port = isdigit((unsigned char)*q) ? strtoul(q, &q, 10) : 0;
			if (*q == ':')
				client_port = isdigit((unsigned char)q[1]) ? strtoul(q + 1, &q, 10) : 70000;
		}
		if (id == 0 || id > UINT32_MAX || raft_port == 0 || raft_port > 65535 ||
		    client_port > 65535 || *q != '\0')
			return bad_option("--peers: %s is not ID=HOST:RAFT_PORT[:CLIENT_PORT]", item);
		if (client_port == raft_port)
			return bad_option("--peers: %s: one port for Raft and for clients", item);
		peer->id = id;
		peer->raft_port = raft_port;
		peer->client_port = client_port;
		for (unsigned i = 0; i < o->npeers; i++) {
			const agreement_peer_t *other = &o->peers[i];
			if (other->id == id)
				return bad_option("--peers: replica id twice in %s", arg);
			/* Raft knows a replica by its address too (libraft
			 * refuses a configuration with one address twice), and a
			 * port is one listener: no port of one host twice. */
			unsigned long mine[2] = { raft_port, client_port };
			bool taken = false;
			for (unsigned k = 0; k < 2; k++)
				taken |= mine[k] != 0 && (mine[k] == other->raft_port ||
				                          mine[k] == other->client_port);
			if (taken && strcmp(other->host, peer->host) == 0)
				return bad_option("--peers: %s: a port another replica has on "
				                  "that host", item);
		}
		o->npeers++;
		p += len + (end != NULL);
	}
	return 0;
}

/* The default mode of a backend: the one it exists for. */
static server_mode_t default_mode(void)
{
	const char *b = tm_backend_name();
	for (unsigned m = 0; m < NMODES; m++)
		if (modes[m].backend != NULL && strcmp(modes[m].backend, b) == 0)
			return (server_mode_t)m;
	return SERVER_SEQUENTIAL;
}

static int parse_options(int argc, char **argv, server_options_t *o)
{
	*o = (server_options_t){ .mode = default_mode(), .workers = 2, .warehouses = 1,
	                         .items = TPCC_ITEMS, .customers = TPCC_CUSTOMERS,
	                         .accounts = 16, .seed = 1, .batch_max = 256,
	                         .digest_every = 1, .stream_clients = 16, .requests_per_tx = 1 };
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "workers", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "accounts", required_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 'S' },
		{ "batch-max", required_argument, NULL, 'b' },
		{ "digest-every", required_argument, NULL, 'D' },
		{ "replica", required_argument, NULL, 'R' },
		{ "peers", required_argument, NULL, 'P' },
		{ "data-dir", required_argument, NULL, 'd' },
		{ "snapshot-every", required_argument, NULL, 'n' },
		{ "election-ms", required_argument, NULL, 'e' },
		{ "stream", required_argument, NULL, 's' },
		{ "clients", required_argument, NULL, 'c' },
		{ "workload", required_argument, NULL, 'k' },
		{ "applier-executes", no_argument, NULL, 'x' },
		{ "worker-spin", required_argument, NULL, 'W' },
		{ "requests-per-tx", required_argument, NULL, 'G' },
		{ "log-dir", required_argument, NULL, 'L' },
		{ "barrier", no_argument, NULL, 'B' },
		{ "extend", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool workers_given = false, stream_args = false, batch_given = false;
	int c;
	uint64_t v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "w:I:C:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			unsigned m = 0;
			while (m < NMODES && strcmp(modes[m].name, optarg) != 0)
				m++;
			if (m == NMODES)
				return bad_option("--mode %s: must be one of sequential, pot, "
				                  "pot+lsd, pot+fast, pot+lsd+fast, occ, 2pl",
				                  optarg);
			o->mode = (server_mode_t)m;
			break;
		}
		case 't':
			if (parse_uint("--workers", optarg, 1, 64, &v))
				return 2;
			o->workers = (unsigned)v;
			workers_given = true;
			break;
		case 'p':
			if (parse_uint("--port", optarg, 0, 65535, &v))
				return 2;
			o->port = (unsigned)v;
			break;
		case 'w':
			if (parse_uint("-w", optarg, 1, TPCC_MAX_WAREHOUSES, &v))
				return 2;
			o->warehouses = (uint32_t)v;
			break;
		case 'I':
			if (parse_uint("-I", optarg, 1, TPCC_ITEMS, &v))
				return 2;
			o->items = (uint32_t)v;
			break;
		case 'C':
			if (parse_uint("-C", optarg, 10, TPCC_CUSTOMERS, &v))
				return 2;
			o->customers = (uint32_t)v;
			break;
		case 'a':
			if (parse_uint("--accounts", optarg, 1, 1000000, &v))
				return 2;
			o->accounts = (uint32_t)v;
			break;
		case 'S':
			if (parse_uint("--seed", optarg, 0, UINT64_MAX, &v))
				return 2;
			o->seed = v;
			break;
		case 'b':
			if (parse_uint("--batch-max", optarg, 1, 4096, &v))
				return 2;
			o->batch_max = (unsigned)v;
			batch_given = true;
			break;
		case 'D':
			if (parse_uint("--digest-every", optarg, 0, UINT32_MAX, &v))
				return 2;
			o->digest_every = (unsigned)v;
			break;
		case 'R':
			if (parse_uint("--replica", optarg, 1, UINT32_MAX, &v))
				return 2;
			o->replica = v;
			break;
		case 'P':
			if (parse_peers(optarg, o) != 0)
				return 2;
			break;
		case 'd':
			o->data_dir = optarg;
			break;
		case 'n':
			if (parse_uint("--snapshot-every", optarg, 1, UINT32_MAX, &v))
				return 2;
			o->snapshot_every = (unsigned)v;
			break;
		case 'e':
			if (parse_uint("--election-ms", optarg, 10, 60000, &v))
				return 2;
			o->election_ms = (unsigned)v;
			break;
		case 's':
			if (parse_uint("--stream", optarg, 1, UINT32_MAX, &v))
				return 2;
			o->stream = v;
			break;
		case 'c':
			if (parse_uint("--clients", optarg, 1, 4096, &v))
				return 2;
			o->stream_clients = (unsigned)v;
			stream_args = true;
			break;
		case 'k':
			if (strcmp(optarg, "tpcc") != 0 && strcmp(optarg, "hot") != 0)
				return bad_option("--workload %s: must be tpcc or hot", optarg);
			o->stream_hot = strcmp(optarg, "hot") == 0;
			stream_args = true;
			break;
		case 'x':
			o->applier_executes = true;
			break;
		case 'W':
			if (parse_uint("--worker-spin", optarg, 0, 1000000, &v))
				return 2;
			o->worker_spin = (unsigned)v;
			break;
		case 'G':
			if (parse_uint("--requests-per-tx", optarg, 1, SERVER_REQUESTS_PER_TX_MAX, &v))
				return 2;
			o->requests_per_tx = (unsigned)v;
			break;
		case 'L':
			o->log_dir = optarg;
			break;
		case 'B':
			o->barrier = true;
			break;
		case 'X':
			if (parse_uint("--extend", optarg, 0, 64, &v))
				return 2;
			o->extend = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return bad_option("unknown option or missing value: %s",
			                  argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_option("unexpected argument %s", argv[optind]);
	const char *need = modes[o->mode].backend;
	if (need != NULL && strcmp(need, tm_backend_name()) != 0) {
		fprintf(stderr, "potm-server: --mode %s needs the %s backend: run "
		        "potm-server-%s (this is potm-server-%s)\n", modes[o->mode].name, need,
		        need, tm_backend_name());
		return 2;
	}
	if (o->replica != 0 || o->npeers != 0 || o->data_dir != NULL) {
		if (o->replica == 0 || o->npeers == 0 || o->data_dir == NULL)
			return bad_option("%s: a replica needs --replica, --peers and --data-dir",
			                  "replication");
		const agreement_peer_t *self = NULL;
		for (unsigned i = 0; i < o->npeers; i++)
			if (o->peers[i].id == o->replica)
				self = &o->peers[i];
		if (self == NULL)
			return bad_option("--replica: %s is not among the peers", "this id");
		if (o->port == 0)
			o->port = self->client_port;
		else if (self->client_port != 0 && self->client_port != o->port)
			return bad_option("--port: %s differs from this replica's in --peers", "it");
		if (o->mode == SERVER_OCC || o->mode == SERVER_2PL)
			return bad_option("--mode %s orders nothing: it cannot be replicated",
			                  modes[o->mode].name);
	}
	if (o->log_dir != NULL) {
		/* The redo log stamps commits of seq, tl2 and silo only
		 * (potm/durable.h); Pot's modes run on pot, whose commits it
		 * cannot order, and a replica's durability is Raft's log. */
		const char *b = tm_backend_name();
		bool logs = strcmp(b, "seq") == 0 || strcmp(b, "tl2") == 0 ||
		            strcmp(b, "silo") == 0;
		if (o->replica != 0)
			return bad_option("--log-dir: %s: a replica's state is in --data-dir "
			                  "(Raft's log and snapshots)", "not with --replica");
		if (o->stream != 0)
			return bad_option("--log-dir: %s", "not with --stream");
		if (!logs || (o->mode != SERVER_SEQUENTIAL && o->mode != SERVER_OCC)) {
			fprintf(stderr, "potm-server: --log-dir with --mode %s on the %s backend: the "
			        "redo log supports the seq, tl2 and silo backends, so run "
			        "potm-server-seq --mode sequential or potm-server-tl2 --mode occ "
			        "(or sequential)\n", modes[o->mode].name, b);
			return 2;
		}
	}
	if (stream_args && o->stream == 0)
		return bad_option("%s: --clients and --workload go with --stream", "options");
	/* A stream's entries are what one poll round would read: with
	 * continuous execution, responses go out as requests finish, so the
	 * clients' next requests arrive spread over several rounds. */
	if (o->stream != 0 && !batch_given)
		o->batch_max = STREAM_BATCH_MAX;
	if (o->stream != 0 && (o->replica != 0 || o->port != 0))
		return bad_option("--stream: %s: it runs on the local agreement, no sockets",
		                  o->replica != 0 ? "not a replica" : "no --port");
	if (o->stream_hot && o->accounts < 2)
		return bad_option("--workload hot: %s", "needs --accounts >= 2");
	if (o->requests_per_tx > 1 && o->mode != SERVER_POT && o->mode != SERVER_POT_LSD &&
	    o->mode != SERVER_OCC && o->mode != SERVER_2PL)
		return bad_option("--requests-per-tx with --mode %s: only pot, pot+lsd, occ and 2pl "
		                  "run several requests per transaction (a transaction of several "
		                  "has no one commutativity key)",
		                  modes[o->mode].name);
	if (o->extend > 0 && o->mode != SERVER_POT && o->mode != SERVER_POT_LSD)
		return bad_option("--extend with --mode %s: only pot and pot+lsd (a transaction of "
		                  "several has no one commutativity key, and without an order "
		                  "nothing waits for a turn)",
		                  modes[o->mode].name);
	if (o->requests_per_tx > 1 && o->log_dir != NULL)
		return bad_option("--requests-per-tx: %s", "not with --log-dir");
	if (o->mode == SERVER_SEQUENTIAL)
		o->workers = 0;
	else if (!workers_given)
		o->workers = 2;
	return 0;
}

int main(int argc, char **argv)
{
	server_options_t o;
	int rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc == 1 ? 0 : rc;

	/* A deterministic backend executes in the agreed order: every slot
	 * is supplied by the server (the population's, the requests', the
	 * checks'). */
	bool ordered = tm_is_deterministic();
	tm_config_t cfg;
	tm_config_default(&cfg);
	if (ordered)
		snprintf(cfg.sequencer, sizeof cfg.sequencer, "explicit");
	rc = tm_init(&cfg);
	if (rc != 0) {
		fprintf(stderr, "potm-server: tm_init: %s\n", tm_last_error());
		return rc == TM_ERR_UNSUPPORTED ? 77 : 1;
	}
	if (ordered && strcmp(tm_current_config()->sequencer, "explicit") != 0) {
		fprintf(stderr, "potm-server: POTM_SEQUENCER=%s: the server supplies the "
		        "order itself (explicit)\n", tm_current_config()->sequencer);
		tm_shutdown();
		return 2;
	}

	uint64_t slot = 0;
	server_state_t st = {
		.db = { .warehouses = o.warehouses, .items = o.items, .customers = o.customers,
		        .threads = 1, .seed = o.seed, .lsd = modes[o.mode].lsd,
		        /* With several requests per transaction a New-Order that
		         * cancelled would take the others with it: it looks for
		         * its unused item first instead, as on seq. */
		        .can_cancel = strcmp(tm_backend_name(), "seq") != 0 && o.requests_per_tx <= 1 &&
		                      o.extend == 0 },
		.naccounts = o.accounts,
		.explicit_slot = ordered ? &slot : NULL,
	};
	/* One loader when the order is explicit (its slots are consecutive)
	 * or the backend takes one thread. */
	unsigned loaders = ordered || strcmp(tm_backend_name(), "seq") == 0 ? 1 : 2;
	/* --log-dir: a directory that holds a server's log is recovered from,
	 * so that the state answers for every acknowledged request; otherwise
	 * the population is the log's first checkpoint. */
	bool recover = o.log_dir != NULL && state_log_exists(o.log_dir);
	if ((recover ? state_recover(&st, o.log_dir) : state_load(&st, loaders)) != 0 ||
	    (o.log_dir != NULL && state_log_open(&st, o.log_dir) != 0)) {
		tm_shutdown();
		return 1;
	}

	if (o.stream != 0) {
		rc = stream_run(&st, &o, ordered, modes[o.mode].name);
		tm_shutdown();
		return rc;
	}

	unsigned port = 0;
	net_t *net = net_create(o.port, &port, &o, &st);
	executor_t *ex = net ? executor_start(&st, &o, ordered, net_send, net_flush, net) : NULL;
	agreement_t *ag = NULL;
	if (ex != NULL && o.replica == 0) {
		ag = agreement_local_create(executor_apply, ex);
	} else if (ex != NULL) {
		agreement_raft_config_t rc = {
			.self = o.replica, .peers = o.peers, .npeers = o.npeers,
			.data_dir = o.data_dir, .snapshot_every = o.snapshot_every,
			.election_ms = o.election_ms, .snapshot_begin = snapshot_begin_cb,
			.snapshot_end = snapshot_end_cb, .restore = restore_cb,
		};
		ag = agreement_raft_create(&rc, executor_apply, ex);
	}
	if (ag == NULL) {
		executor_stop(ex, NULL);
		net_destroy(net);
		if (tm_thread_enter(0) == 0) {
			state_log_close(&st);
			state_destroy(&st);
			tm_thread_exit();
		}
		tm_shutdown();
		return 1;
	}
	net_attach(net, ag, ex);
	the_net = net;
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	printf("{\"event\": \"listening\", \"host\": \"127.0.0.1\", \"port\": %u, "
	       "\"mode\": \"%s\", \"backend\": \"%s\", \"workers\": %u, \"agreement\": "
	       "\"%s\", \"replica\": %" PRIu64 ", \"warehouses\": %u, \"items\": %u, "
	       "\"customers_per_district\": %u, \"accounts\": %u}\n", port, modes[o.mode].name,
	       tm_backend_name(), o.workers, ag->ops->name, o.replica, o.warehouses, o.items,
	       o.customers, o.accounts);
	fflush(stdout);

	net_serve(net);
	the_net = NULL;
	/* The agreement first: no entry reaches the executor after it. */
	agreement_destroy(ag);
	executor_status_t s;
	executor_stop(ex, &s);
	net_destroy(net);

	bench_verdict_t v = { .failed = false };
	uint64_t digest = 0;
	if (tm_thread_enter(0) != 0) {
		bench_fail(&v, "tm_thread_enter: %s", tm_last_error());
	} else {
		if (state_log_close(&st) != 0)
			bench_fail(&v, "the redo log failed: %s", tm_last_error());
		state_check(&st, &v);
		digest = state_digest(&st);
		state_destroy(&st);
		tm_thread_exit();
	}
	tm_stats_t ts = { 0 };
	(void)tm_stats(&ts);   /* early_fast: keyed requests run before their turn */
	tm_shutdown();
	printf("{\"event\": \"stopped\", \"mode\": \"%s\", \"backend\": \"%s\", "
	       "\"batches\": %" PRIu64 ", \"requests\": %" PRIu64 ", \"executed\": %" PRIu64
	       ", \"digest\": \"%016" PRIx64 "\", \"verified\": %s, \"verify_msg\": \"%s\", "
	       "\"early_fast\": %" PRIu64 "}\n",
	       modes[o.mode].name, tm_backend_name(), s.batches, s.positions, s.executed,
	       digest, v.failed ? "false" : "true", v.failed ? v.msg : "", ts.early_fast);
	fflush(stdout);
	if (v.failed)
		fprintf(stderr, "potm-server: %s\n", v.msg);
	return v.failed ? 1 : 0;
}
