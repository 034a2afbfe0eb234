/*
 * potm/client.h — a client of potm-server (protocol: potm/protocol.h and
 * server/PROTOCOL.md).
 *
 *     potm_client_t *c = potm_client_connect("127.0.0.1", port, 0, 2000);
 *     int64_t p[] = { 0, 1, 10 };                  // transfer 10 from 0 to 1
 *     potm_response_t r;
 *     if (potm_client_call(c, POTM_TX_TRANSFER, p, 3, &r) == 0 && r.status == POTM_OK)
 *         printf("balance %lld\n", (long long)r.values[1]);
 *     potm_client_close(c);
 *
 * A call waits for its response up to the timeout; on a timeout or a
 * broken connection it reconnects and sends the same request id again
 * (up to retries times), which the server executes at most once.  Calls
 * may also be pipelined (potm_client_send, then potm_client_recv): the
 * responses come back in the order sent.  Not thread-safe: one client per
 * thread.
 *
 * A replicated server (Raft, server/README.md): connect with every
 * replica's address; a call that meets a follower (POTM_ERR_NOT_LEADER)
 * goes to the leader the follower names, or to the next replica, and one
 * that loses its connection tries the next replica, always with the same
 * request id, for up to timeout_ms * (retries + 1) in all.
 *
 *     const char *replicas[] = { "127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103" };
 *     potm_client_t *c = potm_client_connect_cluster(replicas, 3, 0, 2000);
 */
#ifndef POTM_CLIENT_H
#define POTM_CLIENT_H

#include <potm/protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct potm_client potm_client_t;

/* Connect to host:port (a numeric IPv4 address).  client_id 0 draws a
 * random one.  timeout_ms bounds every wait of the client (connect, send,
 * response); retries, set with potm_client_set_retries, defaults to 3.
 * NULL on failure, with errno set. */
potm_client_t *potm_client_connect(const char *host, unsigned port, uint64_t client_id,
                                   int timeout_ms);
/* Several replicas, each "HOST:PORT" (numeric IPv4): the client connects
 * to the first that accepts.  NULL on failure (none accepts, or a bad
 * address: EINVAL), with errno set. */
potm_client_t *potm_client_connect_cluster(const char *const *addresses, unsigned n,
                                           uint64_t client_id, int timeout_ms);
void potm_client_set_retries(potm_client_t *c, unsigned retries);
/* The port of the replica the client talks to now. */
unsigned potm_client_port(const potm_client_t *c);
uint64_t potm_client_id(const potm_client_t *c);
/* The id the next request will carry (ids start at 1 and grow by one). */
uint64_t potm_client_next_request_id(const potm_client_t *c);

/* Send one request and wait for its response, retrying as above.  Returns
 * 0 with *resp filled (its status may be an error the server reported),
 * or -1 if no response came (errno: ETIMEDOUT, ECONNREFUSED, ...). */
int potm_client_call(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                     potm_response_t *resp);

/* Pipelining: send a request without waiting (its id is returned through
 * *request_id), and receive the next response.  No retries.  0 or -1. */
int potm_client_send(potm_client_t *c, uint16_t type, const int64_t *params, unsigned n,
                     uint64_t *request_id);
int potm_client_recv(potm_client_t *c, potm_response_t *resp);

/* Send raw bytes (tests of bad input).  0 or -1. */
int potm_client_send_raw(potm_client_t *c, const void *bytes, size_t len);

void potm_client_close(potm_client_t *c);

#ifdef __cplusplus
}
#endif

#endif /* POTM_CLIENT_H */
