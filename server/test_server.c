/*
 * server/test_server.c — potm-server through its protocol (Check).
 *
 * Every test starts the servers it needs itself, on a free loopback port,
 * and stops them (SIGTERM; a server also dies with its test process, by
 * PR_SET_PDEATHSIG).  Nothing depends on timing: the requests are a fixed
 * stream, and what is compared is state (digests, balances, statuses).
 *
 *  - the protocol: frames round-trip, malformed bodies are refused;
 *  - exactly once: a request retried with its id, on the same connection
 *    or a new one, is answered again and not executed again;
 *  - bad input: a malformed body, an unknown type, parameters out of
 *    range, an oversized frame, a client gone mid-frame; the server keeps
 *    serving everyone else;
 *  - determinism: one fixed TPC-C and bank stream, pipelined on one
 *    connection (the arrival order is the stream's, the batches are
 *    whatever the server read at once): pot with 2 and 8 workers, twice,
 *    pot+lsd, pot+fast with 2 and 8 workers and pot+lsd+fast (keyed
 *    requests of the stream's two warehouses in fast mode at once) reach
 *    the digest sequential reaches on the seq backend,
 *    and every run passes the consistency checks.
 */
#define _GNU_SOURCE
#include <potm/client.h>

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef POTM_SERVER_DIR
#error "POTM_SERVER_DIR: the directory of the potm-server-<b> binaries"
#endif

#define TIMEOUT_MS 60000

typedef struct server {
	pid_t pid;
	FILE *out;
	unsigned port;
	char final[1024];         /* its last line, once stopped */
	int status;
} server_t;

static bool have_backend(const char *b)
{
	char path[512];
	snprintf(path, sizeof path, "%s/potm-server-%s", POTM_SERVER_DIR, b);
	return access(path, X_OK) == 0;
}

/* Start potm-server-<backend> with reduced TPC-C and, if extra is not
 * NULL, the options it lists (NULL-terminated; at most 16). */
static void server_start_with(server_t *s, const char *backend, const char *mode,
                              const char *workers, const char *const *extra)
{
	char path[512];
	snprintf(path, sizeof path, "%s/potm-server-%s", POTM_SERVER_DIR, backend);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		const char *argv[40] = { path, "--mode", mode, "-w", "2", "-I", "1000",
		                         "-C", "30", "--accounts", "8" };
		unsigned k = 11;
		for (unsigned i = 0; extra != NULL && extra[i] != NULL && i < 16; i++)
			argv[k++] = extra[i];
		if (extra == NULL) {
			argv[k++] = "--port";
			argv[k++] = "0";
		}
		if (workers != NULL) {
			argv[k++] = "--workers";
			argv[k++] = workers;
		}
		argv[k] = NULL;
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	*s = (server_t){ .pid = pid, .out = fdopen(fds[0], "r") };
	char line[1024];
	ck_assert_msg(fgets(line, sizeof line, s->out) != NULL, "%s did not start", path);
	const char *p = strstr(line, "\"port\": ");
	ck_assert_msg(p != NULL, "no port in: %s", line);
	s->port = (unsigned)strtoul(p + 8, NULL, 10);
}

static void server_start(server_t *s, const char *backend, const char *mode,
                         const char *workers)
{
	server_start_with(s, backend, mode, workers, NULL);
}

static void server_stop(server_t *s)
{
	kill(s->pid, SIGTERM);
	char line[1024];
	s->final[0] = '\0';
	while (fgets(line, sizeof line, s->out) != NULL)
		snprintf(s->final, sizeof s->final, "%s", line);
	fclose(s->out);
	waitpid(s->pid, &s->status, 0);
	ck_assert_msg(WIFEXITED(s->status) && WEXITSTATUS(s->status) == 0,
	              "server exit status %d: %s", s->status, s->final);
	ck_assert_msg(strstr(s->final, "\"verified\": true") != NULL, "%s", s->final);
}

static potm_client_t *connect_to(const server_t *s, uint64_t client_id)
{
	potm_client_t *c = potm_client_connect("127.0.0.1", s->port, client_id, TIMEOUT_MS);
	ck_assert_msg(c != NULL, "connect: %s", strerror(errno));
	return c;
}

static int64_t balance(potm_client_t *c, int64_t account)
{
	potm_response_t r;
	ck_assert_int_eq(potm_client_call(c, POTM_TX_BALANCE, &account, 1, &r), 0);
	ck_assert_int_eq(r.status, POTM_OK);
	return r.values[0];
}

/* ---- the protocol ------------------------------------------------------------ */

START_TEST(test_frames_round_trip)
{
	potm_request_t q = { .type = POTM_TX_TRANSFER, .client_id = 0x1122334455667788ull,
	                     .request_id = 9, .nparams = 3, .params = { 1, -2, INT64_MAX } };
	uint8_t buf[4 + POTM_FRAME_MAX];
	size_t n = potm_encode_request(&q, buf, sizeof buf);
	ck_assert_uint_eq(n, 4 + POTM_REQUEST_HEADER + 24);
	ck_assert_uint_eq(potm_frame_length(buf), n - 4);
	potm_request_t d;
	ck_assert_int_eq(potm_decode_request(buf + 4, n - 4, &d, NULL), 0);
	ck_assert_uint_eq(d.client_id, q.client_id);
	ck_assert_int_eq(d.params[1], -2);
	ck_assert_int_eq(d.params[2], INT64_MAX);

	const char *why = NULL;
	ck_assert_int_eq(potm_decode_request(buf + 4, n - 5, &d, &why), POTM_ERR_MALFORMED);
	ck_assert_ptr_nonnull(why);
	buf[4] = 9;   /* version */
	ck_assert_int_eq(potm_decode_request(buf + 4, n - 4, &d, NULL), POTM_ERR_MALFORMED);
	ck_assert_uint_eq(d.request_id, 9);   /* the ids parsed, for the error */

	potm_response_t r = { .status = POTM_ERR_BAD_PARAMS, .client_id = 1, .request_id = 2,
	                      .position = 3, .nvalues = 2, .values = { -1, 5 } };
	snprintf(r.message, sizeof r.message, "why");
	n = potm_encode_response(&r, buf, sizeof buf);
	potm_response_t e;
	ck_assert_int_eq(potm_decode_response(buf + 4, n - 4, &e, NULL), 0);
	ck_assert_int_eq(e.values[0], -1);
	ck_assert_str_eq(e.message, "why");
	q.nparams = POTM_PARAMS_MAX + 1;
	ck_assert_uint_eq(potm_encode_request(&q, buf, sizeof buf), 0);
}
END_TEST

/* ---- exactly once ------------------------------------------------------------ */

START_TEST(test_retry_executes_once)
{
	const char *backend = have_backend("pot") ? "pot" : "seq";
	server_t s;
	server_start(&s, backend, strcmp(backend, "pot") == 0 ? "pot" : "sequential", NULL);
	potm_client_t *c = connect_to(&s, 4242);
	int64_t p[] = { 0, 1, 100 };
	potm_response_t r1, r2, r3;
	ck_assert_int_eq(potm_client_call(c, POTM_TX_TRANSFER, p, 3, &r1), 0);
	ck_assert_int_eq(r1.status, POTM_OK);
	ck_assert_int_eq(r1.values[1], 900);

	/* The same request id again, on the same connection and on another:
	 * the first response, not a second transfer. */
	potm_request_t again = { .type = POTM_TX_TRANSFER, .client_id = 4242,
	                         .request_id = r1.request_id, .nparams = 3,
	                         .params = { 0, 1, 100 } };
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t n = potm_encode_request(&again, frame, sizeof frame);
	ck_assert_int_eq(potm_client_send_raw(c, frame, n), 0);
	ck_assert_int_eq(potm_client_recv(c, &r2), 0);
	potm_client_t *c2 = connect_to(&s, 4242);
	ck_assert_int_eq(potm_client_send_raw(c2, frame, n), 0);
	ck_assert_int_eq(potm_client_recv(c2, &r3), 0);
	const potm_response_t *again_r[] = { &r2, &r3 };
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(again_r[i]->status, POTM_OK);
		ck_assert_uint_eq(again_r[i]->position, r1.position);
		ck_assert_int_eq(again_r[i]->values[1], 900);
	}
	/* An id below the client's last one is stale, never executed. */
	again.request_id = 5;
	n = potm_encode_request(&again, frame, sizeof frame);
	ck_assert_int_eq(potm_client_send_raw(c2, frame, n), 0);
	ck_assert_int_eq(potm_client_recv(c2, &r2), 0);
	ck_assert_int_eq(r2.status, POTM_OK);
	ck_assert_int_eq(r2.values[1], 800);
	again.request_id = 4;
	n = potm_encode_request(&again, frame, sizeof frame);
	ck_assert_int_eq(potm_client_send_raw(c2, frame, n), 0);
	ck_assert_int_eq(potm_client_recv(c2, &r3), 0);
	ck_assert_int_eq(r3.status, POTM_ERR_STALE);
	potm_client_close(c2);
	c2 = connect_to(&s, 0);
	ck_assert_int_eq(balance(c2, 0), 800);
	ck_assert_int_eq(balance(c2, 1), 1200);
	potm_client_close(c);
	potm_client_close(c2);
	server_stop(&s);
}
END_TEST
/* Continuous execution (no digest to wait for): retries sent back to back
 * with their original, so that they are walked while it still runs, get
 * its response; the request after them runs once. */
START_TEST(test_retry_in_flight)
{
	const char *backend = have_backend("pot") ? "pot" : "seq";
	const char *extra[] = { "--port", "0", "--digest-every", "0", NULL };
	server_t s;
	server_start_with(&s, backend, strcmp(backend, "pot") == 0 ? "pot" : "sequential", NULL,
	                  extra);
	potm_client_t *c = connect_to(&s, 77);
	uint8_t frame[4 + POTM_FRAME_MAX];
	for (int round = 0; round < 20; round++) {
		potm_request_t q = { .type = POTM_TX_TRANSFER, .client_id = 77,
		                     .request_id = 2 * (uint64_t)round + 1, .nparams = 3,
		                     .params = { 2, 3, 10 } };
		size_t n = potm_encode_request(&q, frame, sizeof frame);
		for (int i = 0; i < 3; i++)   /* the request and two retries */
			ck_assert_int_eq(potm_client_send_raw(c, frame, n), 0);
		q.request_id++;
		n = potm_encode_request(&q, frame, sizeof frame);
		ck_assert_int_eq(potm_client_send_raw(c, frame, n), 0);
		potm_response_t r[4];
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(potm_client_recv(c, &r[i]), 0);
		for (int i = 0; i < 3; i++) {
			ck_assert_int_eq(r[i].status, POTM_OK);
			ck_assert_uint_eq(r[i].request_id, q.request_id - 1);
			ck_assert_uint_eq(r[i].position, r[0].position);
			ck_assert_int_eq(r[i].values[1], 1000 - 20 * round - 10);
		}
		ck_assert_int_eq(r[3].status, POTM_OK);
		ck_assert_uint_eq(r[3].request_id, q.request_id);
		ck_assert_int_eq(r[3].values[1], 1000 - 20 * round - 20);
	}
	potm_client_close(c);
	c = connect_to(&s, 0);
	ck_assert_int_eq(balance(c, 2), 1000 - 400);
	ck_assert_int_eq(balance(c, 3), 1000 + 400);
	potm_client_close(c);
	server_stop(&s);
}
END_TEST

/* ---- replicas ------------------------------------------------------------------- */

/* n distinct loopback ports, free when asked: every socket stays bound
 * until all are chosen, since a port closed at once may be handed out
 * again by the next bind (two replicas on one address). */
static void free_ports(unsigned *port, unsigned n)
{
	int fd[8];
	ck_assert_uint_le(n, 8);
	for (unsigned i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET,
		                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof a;
		ck_assert_int_eq(bind(fd[i], (struct sockaddr *)&a, sizeof a), 0);
		ck_assert_int_eq(getsockname(fd[i], (struct sockaddr *)&a, &len), 0);
		port[i] = ntohs(a.sin_port);
	}
	for (unsigned i = 0; i < n; i++)
		close(fd[i]);
}

/* A replica's STATUS values (server/PROTOCOL.md), or false if it does
 * not answer. */
static bool replica_status(const char *address, potm_response_t *r)
{
	potm_client_t *c = potm_client_connect_cluster(&address, 1, 0, 2000);
	if (c == NULL)
		return false;
	potm_client_set_retries(c, 0);
	bool ok = potm_client_call(c, POTM_ADMIN_STATUS, NULL, 0, r) == 0 &&
	          r->status == POTM_OK && r->nvalues >= 16;
	potm_client_close(c);
	return ok;
}

/* Wait until every replica applied the same batches and published its
 * digest after them; that digest. */
static uint64_t replicas_converge(char addr[][32], unsigned n)
{
	for (int round = 0; round < 2000; round++) {
		potm_response_t r[3];
		bool same = true;
		for (unsigned i = 0; i < n && same; i++)
			same = replica_status(addr[i], &r[i]) && r[i].values[0] == r[0].values[0] &&
			       r[i].values[4] == r[i].values[0];
		for (unsigned i = 1; i < n && same; i++) {
			ck_assert_int_eq(r[i].values[3], r[0].values[3]);   /* the digests */
			ck_assert_int_eq(r[i].values[1], r[0].values[1]);   /* the positions */
		}
		if (same)
			return (uint64_t)r[0].values[3];
		struct timespec pause = { 0, 20 * 1000000 };
		nanosleep(&pause, NULL);
	}
	ck_abort_msg("the replicas did not converge");
	return 0;
}

/* The cluster client: bad addresses, a dead replica skipped, and three
 * Raft replicas: calls find the leader through NOT_LEADER and run once; a
 * follower killed and restarted catches up from snapshots and the log. */
START_TEST(test_cluster_client)
{
	const char *bad[] = { "127.0.0.1", "localhost:80", "127.0.0.1:0" };
	for (unsigned i = 0; i < 3; i++) {
		errno = 0;
		ck_assert_ptr_null(potm_client_connect_cluster(&bad[i], 1, 0, 100));
		ck_assert_int_eq(errno, EINVAL);
	}
	if (!POTM_SERVER_HAS_RAFT || !have_backend("pot"))
		return;   /* built without libraft: --replica is refused */
	unsigned port[6];
	free_ports(port, 6);
	char peers[256], dir[3][64], id[3][4], addr[3][32];
	snprintf(peers, sizeof peers, "1=127.0.0.1:%u:%u,2=127.0.0.1:%u:%u,3=127.0.0.1:%u:%u",
	         port[0], port[1], port[2], port[3], port[4], port[5]);
	char root[] = "/tmp/potm-test-cluster-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	server_t s[3];
	for (unsigned i = 0; i < 3; i++) {
		snprintf(dir[i], sizeof dir[i], "%s/r%u", root, i + 1);
		snprintf(id[i], sizeof id[i], "%u", i + 1);
		snprintf(addr[i], sizeof addr[i], "127.0.0.1:%u", port[2 * i + 1]);
		const char *extra[] = { "--replica", id[i], "--peers", peers, "--data-dir", dir[i],
		                        "--election-ms", "500", "--snapshot-every", "4", NULL };
		server_start_with(&s[i], "pot", "pot", NULL, extra);
	}
	const char *addrs[] = { addr[0], addr[1], addr[2], "127.0.0.1:1" };
	/* The dead address first: the client connects to the next. */
	const char *order[] = { addrs[3], addrs[2], addrs[1], addrs[0] };
	potm_client_t *c = potm_client_connect_cluster(order, 4, 0, 2000);
	ck_assert_msg(c != NULL, "connect: %s", strerror(errno));
	potm_client_set_retries(c, 20);
	unsigned follower = 0;
	for (int k = 1; k <= 30; k++) {
		int64_t p[] = { 0, 1 + k % 7, 1 };
		potm_response_t r;
		ck_assert_int_eq(potm_client_call(c, POTM_TX_TRANSFER, p, 3, &r), 0);
		ck_assert_msg(r.status == POTM_OK, "%s", r.message);
		ck_assert_int_eq(r.values[1], 1000 - k);
		if (k == 10) {   /* SIGKILL a follower */
			replicas_converge(addr, 3);
			potm_response_t st;
			for (unsigned i = 0; i < 3 && follower == 0; i++)
				if (replica_status(addr[i], &st) && st.values[12] == 0)
					follower = i + 1;
			ck_assert_uint_ne(follower, 0);
			replica_status(addr[follower - 1], &st);
			kill(s[follower - 1].pid, SIGKILL);
			waitpid(s[follower - 1].pid, NULL, 0);
			fclose(s[follower - 1].out);
		}
	}
	const char *extra[] = { "--replica", id[follower - 1], "--peers", peers, "--data-dir",
	                        dir[follower - 1], "--election-ms", "500", "--snapshot-every",
	                        "4", NULL };
	server_start_with(&s[follower - 1], "pot", "pot", NULL, extra);
	ck_assert_int_eq(balance(c, 0), 970);
	replicas_converge(addr, 3);
	potm_response_t st;
	ck_assert(replica_status(addr[follower - 1], &st));
	ck_assert_int_ge(st.values[15], 1);   /* it restored a snapshot */
	ck_assert_int_eq(st.values[2], 31);   /* executed: 30 transfers, 1 balance */
	potm_client_close(c);
	for (unsigned i = 0; i < 3; i++)
		server_stop(&s[i]);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------ */

START_TEST(test_bad_input)
{
	const char *backend = have_backend("pot") ? "pot" : "seq";
	server_t s;
	server_start(&s, backend, strcmp(backend, "pot") == 0 ? "pot" : "sequential", NULL);
	potm_client_t *good = connect_to(&s, 0);
	potm_client_t *bad = connect_to(&s, 0);
	potm_response_t r;

	/* A body that does not parse: MALFORMED, and the connection stays. */
	uint8_t junk[4 + 30] = { 30, 0, 0, 0, 7 /* version */ };
	ck_assert_int_eq(potm_client_send_raw(bad, junk, sizeof junk), 0);
	ck_assert_int_eq(potm_client_recv(bad, &r), 0);
	ck_assert_int_eq(r.status, POTM_ERR_MALFORMED);
	ck_assert_int_eq(potm_client_call(bad, 77, NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, POTM_ERR_UNKNOWN_TYPE);
	ck_assert_uint_eq(r.position, POTM_POSITION_NONE);
	int64_t far[] = { 0, 99, 1 };   /* no account 99 */
	ck_assert_int_eq(potm_client_call(bad, POTM_TX_TRANSFER, far, 3, &r), 0);
	ck_assert_int_eq(r.status, POTM_ERR_BAD_PARAMS);
	ck_assert_msg(strstr(r.message, "accounts") != NULL, "%s", r.message);
	int64_t no[] = { 9, 1, 1, 1 };  /* warehouse 9 of 2 */
	ck_assert_int_eq(potm_client_call(bad, POTM_TX_ORDER_STATUS, no, 4, &r), 0);
	ck_assert_int_eq(r.status, POTM_ERR_BAD_PARAMS);
	ck_assert_int_eq(potm_client_call(good, POTM_TX_TRANSFER, (int64_t[]){ 2, 3, 1 }, 3, &r),
	                 0);
	ck_assert_int_eq(r.status, POTM_OK);

	/* A frame longer than the maximum: TOO_LARGE, then the connection
	 * is closed. */
	uint8_t huge[4] = { 0xff, 0xff, 0xff, 0x7f };
	ck_assert_int_eq(potm_client_send_raw(bad, huge, 4), 0);
	ck_assert_int_eq(potm_client_recv(bad, &r), 0);
	ck_assert_int_eq(r.status, POTM_ERR_TOO_LARGE);
	ck_assert_int_eq(potm_client_recv(bad, &r), -1);
	potm_client_close(bad);

	/* Half a request, then gone. */
	potm_client_t *half = connect_to(&s, 0);
	potm_request_t q = { .type = POTM_TX_TRANSFER, .client_id = potm_client_id(half),
	                     .request_id = 1, .nparams = 3, .params = { 2, 3, 1 } };
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t n = potm_encode_request(&q, frame, sizeof frame);
	ck_assert_int_eq(potm_client_send_raw(half, frame, n / 2), 0);
	potm_client_close(half);

	/* Everyone else is still served, and only the whole transfer ran. */
	ck_assert_int_eq(balance(good, 2), 999);
	ck_assert_int_eq(balance(good, 3), 1001);
	potm_client_close(good);
	server_stop(&s);
}
END_TEST

/* ---- determinism ----------------------------------------------------------------- */

#define STREAM 600
#define WINDOW 32

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t pick(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* Request i of the fixed stream: the TPC-C mix at 2 warehouses (reduced:
 * 1000 items, 30 customers per district) and transfers on a hot account. */
static uint16_t stream_request(uint64_t *s, int64_t *p, unsigned *n)
{
	int64_t w = pick(s, 1, 2), d = pick(s, 1, 10);
	int64_t k = pick(s, 1, 100);
	if (k <= 40) {
		int64_t lines = pick(s, 5, 15);
		p[0] = w, p[1] = d, p[2] = pick(s, 1, 30), p[3] = lines;
		for (int64_t i = 0; i < lines; i++) {
			p[4 + 3 * i] = pick(s, 1, 1000);
			p[5 + 3 * i] = pick(s, 1, 100) == 1 ? 3 - w : w;
			p[6 + 3 * i] = pick(s, 1, 10);
		}
		if (pick(s, 1, 100) == 1)
			p[4 + 3 * (lines - 1)] = 1001;   /* rolls back */
		*n = 4 + 3 * (unsigned)lines;
		return POTM_TX_NEW_ORDER;
	}
	if (k <= 78) {
		bool by_name = pick(s, 1, 100) <= 60;
		p[0] = w, p[1] = d, p[2] = w, p[3] = d;
		p[4] = by_name ? 0 : pick(s, 1, 30);
		p[5] = by_name ? pick(s, 0, 29) : 0;
		p[6] = pick(s, 100, 500000);
		*n = 7;
		return POTM_TX_PAYMENT;
	}
	if (k <= 82) {
		p[0] = w, p[1] = d, p[2] = pick(s, 1, 30), p[3] = 0;
		*n = 4;
		return POTM_TX_ORDER_STATUS;
	}
	if (k <= 86) {
		p[0] = w, p[1] = pick(s, 1, 10);
		*n = 2;
		return POTM_TX_DELIVERY;
	}
	if (k <= 90) {
		p[0] = w, p[1] = d, p[2] = pick(s, 10, 20);
		*n = 3;
		return POTM_TX_STOCK_LEVEL;
	}
	p[0] = 0, p[1] = pick(s, 1, 7), p[2] = pick(s, 1, 400);   /* hot account 0 */
	*n = 3;
	return POTM_TX_TRANSFER;
}

/* Run the stream on a fresh server; its final digest (16 hex digits). */
static void run_stream(const char *backend, const char *mode, const char *workers,
                       char digest[17])
{
	server_t s;
	server_start(&s, backend, mode, workers);
	potm_client_t *c = connect_to(&s, 1);
	uint64_t rng = 2026;
	unsigned sent = 0, received = 0;
	while (received < STREAM) {
		while (sent < STREAM && sent - received < WINDOW) {
			int64_t p[POTM_PARAMS_MAX];
			unsigned n;
			uint16_t type = stream_request(&rng, p, &n);
			ck_assert_int_eq(potm_client_send(c, type, p, n, NULL), 0);
			sent++;
		}
		potm_response_t r;
		ck_assert_msg(potm_client_recv(c, &r) == 0, "recv: %s", strerror(errno));
		ck_assert_msg(r.status == POTM_OK || r.status == POTM_ROLLED_BACK,
		              "%s: request %" PRIu64 ": %s %s", mode, r.request_id,
		              potm_status_name(r.status), r.message);
		ck_assert_uint_eq(r.position, received);   /* one connection: arrival order */
		received++;
	}
	potm_client_close(c);
	server_stop(&s);
	const char *p = strstr(s.final, "\"digest\": \"");
	ck_assert_msg(p != NULL, "%s", s.final);
	memcpy(digest, p + 11, 16);
	digest[16] = '\0';
	ck_assert_msg(strstr(s.final, "\"executed\": 600") != NULL, "%s", s.final);
}

START_TEST(test_pot_digest_is_sequential_digest)
{
	if (!have_backend("pot") || !have_backend("seq")) {
		printf("skipped: needs potm-server-pot and potm-server-seq\n");
		return;
	}
	char seq[17], d[17];
	run_stream("seq", "sequential", NULL, seq);
	const char *runs[][2] = { { "pot", "2" }, { "pot", "2" }, { "pot", "8" },
	                          { "pot+lsd", "2" }, { "pot+fast", "2" },
	                          { "pot+fast", "8" }, { "pot+lsd+fast", "2" } };
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		run_stream("pot", runs[i][0], runs[i][1], d);
		ck_assert_msg(strcmp(d, seq) == 0, "%s with %s workers: digest %s, sequential %s",
		              runs[i][0], runs[i][1], d, seq);
	}
}
END_TEST

START_TEST(test_occ_stays_consistent)
{
	if (!have_backend("tl2")) {
		printf("skipped: needs potm-server-tl2\n");
		return;
	}
	char d[17];
	run_stream("tl2", "occ", "8", d);   /* its checks passed (server_stop) */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_frames_round_trip);
	tcase_add_test(tc, test_retry_executes_once);
	tcase_add_test(tc, test_retry_in_flight);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_cluster_client);
	tcase_add_test(tc, test_pot_digest_is_sequential_digest);
	tcase_add_test(tc, test_occ_stays_consistent);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
