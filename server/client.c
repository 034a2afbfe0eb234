/*
 * server/client.c — the C client of potm-server (potm/client.h).
 */
#include <potm/client.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CLIENT_ADDRS_MAX 16

struct potm_client {
	int fd;
	struct sockaddr_in addr;  /* the replica talked to now */
	struct sockaddr_in addrs[CLIENT_ADDRS_MAX];
	unsigned naddrs, at;      /* naddrs > 1: a cluster */
	uint64_t id;
	uint64_t next_request;
	int timeout_ms;
	unsigned retries;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd until deadline; 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = { .fd = fd, .events = events };
		int rc = poll(&p, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		return rc < 0 ? -1 : rc > 0;
	}
}

static int dial(potm_client_t *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return -1;
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(c->fd, (struct sockaddr *)&c->addr, sizeof c->addr) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	if (wait_fd(c->fd, POLLOUT, now_ms() + c->timeout_ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	int err = 0;
	socklen_t len = sizeof err;
	getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

static potm_client_t *client_new(uint64_t client_id, int timeout_ms)
{
	potm_client_t *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->fd = -1;
	while (client_id == 0)
		if (getrandom(&client_id, sizeof client_id, 0) != sizeof client_id)
			client_id = (uint64_t)now_ms() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	c->id = client_id;
	c->next_request = 1;
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
	c->retries = 3;
	return c;
}

static int parse_addr(const char *host, unsigned port, struct sockaddr_in *a)
{
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (port == 0 || port > 65535 || inet_pton(AF_INET, host, &a->sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

potm_client_t *potm_client_connect(const char *host, unsigned port, uint64_t client_id,
                                   int timeout_ms)
{
	potm_client_t *c = client_new(client_id, timeout_ms);
	if (c == NULL)
		return NULL;
	if (parse_addr(host, port, &c->addrs[0]) != 0) {
		free(c);
		return NULL;
	}
	c->naddrs = 1;
	c->addr = c->addrs[0];
	if (dial(c) != 0) {
		int e = errno;
		potm_client_close(c);
		errno = e;
		return NULL;
	}
	return c;
}

potm_client_t *potm_client_connect_cluster(const char *const *addresses, unsigned n,
                                           uint64_t client_id, int timeout_ms)
{
	if (n == 0 || n > CLIENT_ADDRS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	potm_client_t *c = client_new(client_id, timeout_ms);
	if (c == NULL)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		char host[64];
		const char *colon = strrchr(addresses[i], ':');
		size_t hl = colon ? (size_t)(colon - addresses[i]) : 0;
		char *end;
		unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
		if (hl == 0 || hl >= sizeof host || *end != '\0') {
			free(c);
			errno = EINVAL;
			return NULL;
		}
		memcpy(host, addresses[i], hl);
		host[hl] = '\0';
		if (parse_addr(host, (unsigned)port, &c->addrs[i]) != 0) {
			free(c);
			return NULL;
		}
	}
	c->naddrs = n;
	int e = 0;
	for (c->at = 0; c->at < n; c->at++) {
		c->addr = c->addrs[c->at];
		if (dial(c) == 0)
			return c;
		e = errno;
	}
	potm_client_close(c);
	errno = e;
	return NULL;
}

unsigned potm_client_port(const potm_client_t *c)
{
	return ntohs(c->addr.sin_port);
}

/* Leave this replica: for the one whose port hint names (a NOT_LEADER's
 * leader), else the next. */
static void move_on(potm_client_t *c, unsigned hint)
{
	unsigned next = (c->at + 1) % c->naddrs;
	for (unsigned i = 0; hint != 0 && i < c->naddrs; i++)
		if (ntohs(c->addrs[i].sin_port) == hint && i != c->at)
			next = i;
	c->at = next;
	c->addr = c->addrs[next];
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void potm_client_set_retries(potm_client_t *c, unsigned retries)
{
	c->retries = retries;
}

uint64_t potm_client_id(const potm_client_t *c)
{
	return c->id;
}

uint64_t potm_client_next_request_id(const potm_client_t *c)
{
	return c->next_request;
}

static int send_all(potm_client_t *c, const uint8_t *p, size_t len)
{
	int64_t deadline = now_ms() + c->timeout_ms;
	while (len > 0) {
		ssize_t w = send(c->fd, p, len, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		int rc = wait_fd(c->fd, POLLOUT, deadline);
		if (rc <= 0) {
			if (rc == 0)
				errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

static int recv_all(potm_client_t *c, uint8_t *p, size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t r = recv(c->fd, p, len, 0);
		if (r > 0) {
			p += r;
			len -= (size_t)r;
			continue;
		}
		if (r == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		int rc = wait_fd(c->fd, POLLIN, deadline);
		if (rc <= 0) {
			if (rc == 0)
				errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

int potm_client_send_raw(potm_client_t *c, const void *bytes, size_t len)
{
	return c->fd < 0 ? -1 : send_all(c, bytes, len);
}

static int send_request(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                        uint64_t request_id)
{
	if (n > POTM_PARAMS_MAX) {
		errno = EINVAL;
		return -1;
	}
	potm_request_t req = { .type = type, .client_id = c->id, .request_id = request_id,
	                       .nparams = (uint16_t)n };
	if (n > 0)
		memcpy(req.params, params, n * sizeof *params);
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t len = potm_encode_request(&req, frame, sizeof frame);
	if (len == 0) {
		errno = EMSGSIZE;
		return -1;
	}
	return c->fd < 0 ? -1 : send_all(c, frame, len);
}

static int recv_response(potm_client_t *c, potm_response_t *resp, int64_t deadline)
{
	uint8_t head[4], body[POTM_FRAME_MAX];
	if (c->fd < 0 || recv_all(c, head, 4, deadline) != 0)
		return -1;
	uint32_t len = potm_frame_length(head);
	if (len > POTM_FRAME_MAX || recv_all(c, body, len, deadline) != 0 ||
	    potm_decode_response(body, len, resp, NULL) != 0) {
		if (errno == 0 || len > POTM_FRAME_MAX)
			errno = EPROTO;
		return -1;
	}
	return 0;
}

int potm_client_send(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                     uint64_t *request_id)
{
	uint64_t id = c->next_request;
	if (send_request(c, type, params, n, id) != 0)
		return -1;
	c->next_request++;
	if (request_id != NULL)
		*request_id = id;
	return 0;
}

int potm_client_recv(potm_client_t *c, potm_response_t *resp)
{
	return recv_response(c, resp, now_ms() + c->timeout_ms);
}

/* A cluster's call: any replica, until the budget is spent. */
static int call_cluster(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                        potm_response_t *resp, uint64_t id)
{
	int64_t end = now_ms() + (int64_t)c->timeout_ms * (c->retries + 1);
	for (;;) {
		int64_t deadline = now_ms() + c->timeout_ms;
		if ((c->fd >= 0 || dial(c) == 0) && send_request(c, type, params, n, id) == 0) {
			int got = 0;
			while (recv_response(c, resp, deadline) == 0)
				if (resp->request_id == id || resp->request_id == 0) {
					got = 1;
					break;
				}
			if (got && (resp->status != POTM_ERR_NOT_LEADER || now_ms() >= end))
				return 0;
			if (got) {
				unsigned hint = resp->nvalues >= 2 ? (unsigned)resp->values[1] : 0;
				move_on(c, hint);
				if (resp->values[0] == 0) {   /* an election: give it time */
					struct timespec pause = { 0, 50 * 1000000 };
					nanosleep(&pause, NULL);
				}
				continue;
			}
		}
		int e = errno;
		if (now_ms() >= end) {
			errno = e ? e : ETIMEDOUT;
			return -1;
		}
		move_on(c, 0);
		struct timespec pause = { 0, 20 * 1000000 };
		nanosleep(&pause, NULL);
	}
}

int potm_client_call(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                     potm_response_t *resp)
{
	uint64_t id = c->next_request++;
	if (c->naddrs > 1)
		return call_cluster(c, type, params, n, resp, id);
	for (unsigned attempt = 0;; attempt++) {
		int64_t deadline = now_ms() + c->timeout_ms;
		if (send_request(c, type, params, n, id) == 0) {
			/* Skip answers to earlier requests (a retried one's late
			 * first response). */
			while (recv_response(c, resp, deadline) == 0)
				if (resp->request_id == id || resp->request_id == 0)
					return 0;
		}
		if (attempt >= c->retries)
			return -1;
		int e = errno;
		if (dial(c) != 0 && attempt + 1 >= c->retries) {
			errno = e;
			return -1;
		}
	}
}

void potm_client_close(potm_client_t *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}
