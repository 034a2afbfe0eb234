/*
 * server/net.c — the I/O thread: connections, frames and batches.
 *
 * One thread polls the listening socket, the clients and a wake-up pipe.
 * It reads frames, answers at once what needs no agreement (a broken or
 * unknown request, parameters out of range, STATUS), and appends every
 * other request frame to the current batch.  After each round of poll
 * events (or when a batch holds batch_max requests) the batch becomes one
 * log entry, proposed to the agreement: on a single server the order of
 * arrival is the agreed order.  A replica that is not the leader orders
 * nothing: it answers every request NOT_LEADER, naming the leader it
 * knows, and so does a leader whose batch the agreement refused (it lost
 * the leadership since the request came).
 *
 * Responses come back from the executor through an outbox (a list under
 * a lock, and a byte on the pipe) addressed by client id: each goes to the
 * connection that last sent a request of that client, so that a client
 * that reconnects and retries gets its answer on its new connection.  A
 * response for a client with no connection is dropped (the executor keeps
 * it for a retry).
 *
 * Bad input never stops the server: a length above POTM_FRAME_MAX gets a
 * TOO_LARGE response and the connection is closed (the stream cannot be
 * resynchronized); a body that does not parse gets MALFORMED and the
 * connection stays; a client gone mid-frame leaves only its partial frame
 * behind, discarded with the connection.
 */
#define _GNU_SOURCE
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NET_MAX_CONNS 1024
#define NET_READ_CHUNK 65536

typedef struct conn {
	int fd;
	uint8_t *in;              /* bytes read, not yet a whole frame */
	size_t in_len, in_cap;
	uint8_t *out;             /* bytes to write, from out_off */
	size_t out_len, out_off, out_cap;
	uint64_t client_id;       /* the last client that sent a request here */
	uint64_t bound;           /* when (net's counter): the latest binding wins */
	bool closing;             /* close once out is written */
} conn_t;

typedef struct outbox_item {
	struct outbox_item *next;
	uint64_t client_id;
	size_t len;
	uint8_t frame[];
} outbox_item_t;

struct net {
	int listen_fd;
	int wake[2];              /* the outbox and stop requests write here */
	volatile sig_atomic_t stop;
	const server_options_t *opt;
	const server_state_t *st;
	agreement_t *ag;
	executor_t *ex;
	conn_t *conns[NET_MAX_CONNS];
	unsigned nconns;
	uint64_t bindings;

	uint8_t *batch;           /* the entry being built: whole request frames */
	size_t batch_len, batch_cap;
	unsigned batch_count;
	uint64_t proposed;        /* requests proposed so far */

	pthread_mutex_t lock;     /* the outbox */
	outbox_item_t *out_head, *out_tail;
	bool wake_due;            /* a response went into an empty outbox: net_flush wakes */
};

static int set_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

net_t *net_create(unsigned port, unsigned *bound, const server_options_t *o,
                  const server_state_t *st)
{
	net_t *n = calloc(1, sizeof *n);
	if (n == NULL)
		return NULL;
	n->opt = o;
	n->st = st;
	n->wake[0] = n->wake[1] = -1;
	pthread_mutex_init(&n->lock, NULL);
	n->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (n->listen_fd < 0 || pipe(n->wake) != 0) {
		perror("potm-server: socket");
		net_destroy(n);
		return NULL;
	}
	int one = 1;
	setsockopt(n->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);   /* loopback only */
	socklen_t alen = sizeof a;
	if (bind(n->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    listen(n->listen_fd, 128) != 0 ||
	    getsockname(n->listen_fd, (struct sockaddr *)&a, &alen) != 0 ||
	    set_nonblocking(n->listen_fd) != 0 || set_nonblocking(n->wake[0]) != 0 ||
	    set_nonblocking(n->wake[1]) != 0) {
		fprintf(stderr, "potm-server: cannot listen on 127.0.0.1:%u: %s\n", port,
		        strerror(errno));
		net_destroy(n);
		return NULL;
	}
	*bound = ntohs(a.sin_port);
	return n;
}

void net_attach(net_t *n, agreement_t *ag, executor_t *ex)
{
	n->ag = ag;
	n->ex = ex;
}

void net_request_stop(net_t *n)
{
	n->stop = 1;
	char c = 's';
	ssize_t r = write(n->wake[1], &c, 1);
	(void)r;
}

void net_send(void *net, uint64_t client_id, const uint8_t *frame, size_t len)
{
	net_t *n = net;
	outbox_item_t *it = malloc(sizeof *it + len);
	if (it == NULL)
		return;   /* the client times out and retries; its response is kept */
	it->next = NULL;
	it->client_id = client_id;
	it->len = len;
	memcpy(it->frame, frame, len);
	pthread_mutex_lock(&n->lock);
	if (n->out_head == NULL)
		n->wake_due = true;   /* the I/O thread took everything: wake it */
	if (n->out_tail != NULL)
		n->out_tail->next = it;
	else
		n->out_head = it;
	n->out_tail = it;
	pthread_mutex_unlock(&n->lock);
}

/* One wake-up for the responses the executor sent since its last flush:
 * the thread that sends may hold Pot's turn next, and the woken I/O
 * thread may take its CPU. */
void net_flush(void *net)
{
	net_t *n = net;
	pthread_mutex_lock(&n->lock);
	bool due = n->wake_due;
	n->wake_due = false;
	pthread_mutex_unlock(&n->lock);
	if (due) {
		char c = 'r';
		ssize_t r = write(n->wake[1], &c, 1);
		(void)r;   /* full pipe: a wake-up is pending anyway */
	}
}

/* ---- connections ---------------------------------------------------------------- */

static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	uint8_t *b = realloc(*buf, c);
	if (b == NULL)
		return -1;
	*buf = b;
	*cap = c;
	return 0;
}

static void conn_close(net_t *n, unsigned i)
{
	conn_t *c = n->conns[i];
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
	n->conns[i] = n->conns[--n->nconns];
}

static void conn_flush(conn_t *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->closing = true, c->out_off = c->out_len;   /* peer gone */
			break;
		}
		c->out_off += (size_t)w;
	}
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
}

static void conn_queue(conn_t *c, const uint8_t *frame, size_t len)
{
	if (reserve(&c->out, &c->out_cap, c->out_len + len) != 0) {
		c->closing = true;
		return;
	}
	memcpy(c->out + c->out_len, frame, len);
	c->out_len += len;
	conn_flush(c);
}

static void reply(conn_t *c, const potm_request_t *req, int status, const char *why,
                  const int64_t *values, unsigned nvalues)
{
	potm_response_t r;
	memset(&r, 0, sizeof r);
	r.status = (uint16_t)status;
	r.client_id = req ? req->client_id : 0;
	r.request_id = req ? req->request_id : 0;
	r.position = POTM_POSITION_NONE;
	r.nvalues = (uint16_t)nvalues;
	if (nvalues)
		memcpy(r.values, values, nvalues * sizeof *values);
	snprintf(r.message, sizeof r.message, "%s", why ? why : "");
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t len = potm_encode_response(&r, frame, sizeof frame);
	if (len)
		conn_queue(c, frame, len);
}

static void not_leader(net_t *n, conn_t *c, const potm_request_t *req);

/* The connection that last sent a request of client_id, or NULL. */
static conn_t *conn_of(net_t *n, uint64_t client_id)
{
	conn_t *best = NULL;
	for (unsigned i = 0; i < n->nconns; i++) {
		conn_t *c = n->conns[i];
		if (c->client_id == client_id && !c->closing &&
		    (best == NULL || c->bound > best->bound))
			best = c;
	}
	return best;
}

static void propose_batch(net_t *n)
{
	if (n->batch_count == 0)
		return;
	if (agreement_propose(n->ag, n->batch, n->batch_len) == 0) {
		n->proposed += n->batch_count;
	} else {
		/* No longer the leader: nothing of the batch is ordered; each
		 * client hears where to send its request again. */
		for (size_t off = 0; off + 4 <= n->batch_len;) {
			uint32_t len = potm_frame_length(n->batch + off);
			potm_request_t req;
			conn_t *c;
			if (potm_decode_request(n->batch + off + 4, len, &req, NULL) == 0 &&
			    (c = conn_of(n, req.client_id)) != NULL)
				not_leader(n, c, &req);
			off += 4 + len;
		}
	}
	n->batch_len = 0;
	n->batch_count = 0;
}

static void status_reply(net_t *n, conn_t *c, const potm_request_t *req)
{
	executor_status_t s;
	executor_status(n->ex, &s);
	const server_state_t *st = n->st;
	uint64_t leader;
	const char *host;
	unsigned port;
	agreement_leader(n->ag, &leader, &host, &port);
	int64_t v[] = { (int64_t)s.batches, (int64_t)s.positions, (int64_t)s.executed,
	                (int64_t)s.digest, (int64_t)s.digest_batches,
	                st->db.warehouses, st->db.items, st->db.customers, st->naccounts,
	                n->opt->workers, (int64_t)n->opt->mode, (int64_t)n->opt->replica,
	                agreement_is_leader(n->ag), (int64_t)leader, (int64_t)s.snapshots,
	                (int64_t)s.restores };
	reply(c, req, POTM_OK, NULL, v, sizeof v / sizeof v[0]);
}

/* A replica that is not the leader orders nothing: it names the leader
 * it knows, and the client sends the same request id there. */
static void not_leader(net_t *n, conn_t *c, const potm_request_t *req)
{
	uint64_t id;
	const char *host;
	unsigned port;
	agreement_leader(n->ag, &id, &host, &port);
	int64_t v[] = { (int64_t)id, port };
	char why[128];
	if (id != 0 && port != 0 && host != NULL)
		snprintf(why, sizeof why, "not the leader: replica %llu is, at %s:%u",
		         (unsigned long long)id, host, port);
	else if (id != 0)
		snprintf(why, sizeof why, "not the leader: replica %llu is", (unsigned long long)id);
	else
		snprintf(why, sizeof why, "not the leader: no leader is known (an election)");
	reply(c, req, POTM_ERR_NOT_LEADER, why, v, 2);
}

/* One whole frame read from c. */
static void handle_frame(net_t *n, conn_t *c, const uint8_t *frame, uint32_t len)
{
	potm_request_t req;
	const char *why = NULL;
	if (potm_decode_request(frame + 4, len, &req, &why) != 0) {
		reply(c, &req, POTM_ERR_MALFORMED, why, NULL, 0);
		return;
	}
	if (req.type == POTM_ADMIN_STATUS) {
		status_reply(n, c, &req);
		return;
	}
	if (n->stop) {
		reply(c, &req, POTM_ERR_SHUTTING_DOWN, "the server is stopping", NULL, 0);
		return;
	}
	if (!agreement_is_leader(n->ag)) {
		not_leader(n, c, &req);
		return;
	}
	server_op_t op;
	int rc = state_decode(n->st, &req, &op, &why);
	if (rc != POTM_OK) {
		reply(c, &req, rc, why, NULL, 0);
		return;
	}
	if (req.client_id == 0) {
		reply(c, &req, POTM_ERR_BAD_PARAMS, "client id 0 is reserved", NULL, 0);
		return;
	}
	c->client_id = req.client_id;
	c->bound = ++n->bindings;
	if (reserve(&n->batch, &n->batch_cap, n->batch_len + 4 + len) != 0) {
		reply(c, &req, POTM_ERR_FAILED, "out of memory", NULL, 0);
		return;
	}
	memcpy(n->batch + n->batch_len, frame, 4 + len);
	n->batch_len += 4 + len;
	if (++n->batch_count >= n->opt->batch_max)
		propose_batch(n);
}

/* Read what is there; 0 if the connection stays. */
static int conn_read(net_t *n, conn_t *c)
{
	for (;;) {
		if (reserve(&c->in, &c->in_cap, c->in_len + NET_READ_CHUNK) != 0)
			return -1;
		ssize_t r = recv(c->fd, c->in + c->in_len, NET_READ_CHUNK, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r <= 0)
			return -1;   /* gone, perhaps mid-frame: its partial frame goes too */
		c->in_len += (size_t)r;
		if ((size_t)r < NET_READ_CHUNK)
			break;
	}
	size_t off = 0;
	while (c->in_len - off >= 4 && !c->closing) {
		uint32_t len = potm_frame_length(c->in + off);
		if (len > POTM_FRAME_MAX) {
			char why[96];
			snprintf(why, sizeof why, "frame of %u bytes: at most %u", len,
			         POTM_FRAME_MAX);
			reply(c, NULL, POTM_ERR_TOO_LARGE, why, NULL, 0);
			c->closing = true;
			break;
		}
		if (c->in_len - off < 4 + (size_t)len)
			break;
		handle_frame(n, c, c->in + off, len);
		off += 4 + len;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return 0;
}

static void accept_all(net_t *n)
{
	for (;;) {
		int fd = accept4(n->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		conn_t *c = n->nconns < NET_MAX_CONNS ? calloc(1, sizeof *c) : NULL;
		if (c == NULL) {
			close(fd);
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c->fd = fd;
		n->conns[n->nconns++] = c;
	}
}

/* Hand the outbox's responses to their clients' connections. */
static void deliver_outbox(net_t *n)
{
	char drain[256];
	while (read(n->wake[0], drain, sizeof drain) > 0)
		;
	pthread_mutex_lock(&n->lock);
	outbox_item_t *it = n->out_head;
	n->out_head = n->out_tail = NULL;
	pthread_mutex_unlock(&n->lock);
	while (it != NULL) {
		outbox_item_t *next = it->next;
		conn_t *best = conn_of(n, it->client_id);
		if (best != NULL)
			conn_queue(best, it->frame, it->len);
		free(it);
		it = next;
	}
}

static bool outbox_empty(net_t *n)
{
	pthread_mutex_lock(&n->lock);
	bool empty = n->out_head == NULL;
	pthread_mutex_unlock(&n->lock);
	return empty;
}

int net_serve(net_t *n)
{
	struct pollfd pfd[NET_MAX_CONNS + 2];
	unsigned stopping_rounds = 0, stopping_polls = 0;
	for (;;) {
		if (n->stop) {
			/* Stop taking requests; wait for those taken to be applied
			 * and answered. */
			propose_batch(n);
			executor_status_t s;
			executor_status(n->ex, &s);
			bool pending = false;
			for (unsigned i = 0; i < n->nconns; i++)
				pending |= n->conns[i]->out_len > 0;
			if (s.answered >= n->proposed && outbox_empty(n) && !pending)
				return 0;
			/* A client that does not read its responses does not hold
			 * the shutdown up for long: a bounded number of polls. */
			if (s.answered >= n->proposed && ++stopping_rounds > 500)
				return 0;
			/* A replica's proposal may never commit (leadership lost):
			 * the wait is bounded too. */
			if (++stopping_polls > 1000)
				return 0;
		}
		unsigned np = 0;
		pfd[np++] = (struct pollfd){ .fd = n->wake[0], .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = n->stop ? -1 : n->listen_fd, .events = POLLIN };
		unsigned nc = n->nconns;
		for (unsigned i = 0; i < nc; i++) {
			conn_t *c = n->conns[i];
			short ev = c->out_len > 0 ? POLLOUT : 0;
			if (!c->closing)
				ev |= POLLIN;
			pfd[np++] = (struct pollfd){ .fd = c->fd, .events = ev };
		}
		/* While stopping, poll with a timeout: the executor may finish
		 * without a response to wake us. */
		int rc = poll(pfd, np, n->stop ? 10 : -1);
		if (rc < 0 && errno != EINTR) {
			perror("potm-server: poll");
			return -1;
		}
		if (rc > 0 && (pfd[0].revents & POLLIN))
			deliver_outbox(n);
		if (rc > 0 && (pfd[1].revents & POLLIN))
			accept_all(n);
		/* Connections, newest index first so that closing (which moves
		 * the last into the hole) does not skip one. */
		for (unsigned i = nc; rc > 0 && i-- > 0;) {
			conn_t *c = n->conns[i];
			short re = pfd[2 + i].revents;
			bool gone = false;
			if (re & (POLLIN | POLLHUP | POLLERR))
				gone = conn_read(n, c) != 0;
			if (!gone && (re & POLLOUT))
				conn_flush(c);
			if (gone || (c->closing && c->out_len == 0))
				conn_close(n, i);
		}
		propose_batch(n);
	}
}

void net_destroy(net_t *n)
{
	if (n == NULL)
		return;
	while (n->nconns > 0)
		conn_close(n, n->nconns - 1);
	if (n->listen_fd >= 0)
		close(n->listen_fd);
	for (int i = 0; i < 2; i++)
		if (n->wake[i] >= 0)
			close(n->wake[i]);
	for (outbox_item_t *it = n->out_head, *next; it != NULL; it = next) {
		next = it->next;
		free(it);
	}
	free(n->batch);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
