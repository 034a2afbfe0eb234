/*
 * potm/protocol.h — the wire format of potm-server (server/PROTOCOL.md).
 *
 * Every message is a frame: a 4-byte little-endian length, then that many
 * bytes of body, at most POTM_FRAME_MAX.  A request names its client (a
 * 64-bit id the client picks at random) and its request id (increasing per
 * client): the server executes a request id once, and answers a retry of
 * the client's last request with the response it already gave.  A request
 * carries a transaction type and up to POTM_PARAMS_MAX 64-bit signed
 * parameters; a response, a status, the request's position in the agreed
 * order, up to POTM_VALUES_MAX 64-bit values and, on an error, a message.
 * All integers are little-endian.
 *
 *     request body   u8 version, u8 kind = 1, u16 type, u64 client id,
 *                    u64 request id, u16 nparams, u16 0, i64 params[]
 *     response body  u8 version, u8 kind = 2, u16 status, u64 client id,
 *                    u64 request id, u64 position, u16 nvalues,
 *                    u16 message length, i64 values[], message bytes
 *
 * This header and server/protocol.c are plain C: no TM, no threads.
 */
#ifndef POTM_PROTOCOL_H
#define POTM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POTM_PROTO_VERSION 1
#define POTM_FRAME_MAX 4096          /* body bytes after the length prefix */
#define POTM_PARAMS_MAX 64
#define POTM_VALUES_MAX 32
#define POTM_MESSAGE_MAX 200
#define POTM_REQUEST_HEADER 24
#define POTM_RESPONSE_HEADER 32
#define POTM_POSITION_NONE UINT64_MAX  /* a response to a request not in the log */

enum potm_kind { POTM_KIND_REQUEST = 1, POTM_KIND_RESPONSE = 2 };

/* Transaction types.  The TPC-C ones take the parameters listed in
 * server/PROTOCOL.md; their dates and HISTORY keys come from the request's
 * position in the agreed order, not from the client. */
enum potm_type {
	POTM_TX_NEW_ORDER = 1,
	POTM_TX_PAYMENT = 2,
	POTM_TX_ORDER_STATUS = 3,
	POTM_TX_DELIVERY = 4,
	POTM_TX_STOCK_LEVEL = 5,
	POTM_TX_TRANSFER = 16,       /* bank: from, to, amount */
	POTM_TX_BALANCE = 17,        /* bank: account */
	POTM_ADMIN_STATUS = 256,     /* not ordered: the server's last published state */
};

enum potm_status {
	POTM_OK = 0,
	POTM_ROLLED_BACK = 1,        /* executed: a New-Order rolled back (clause 2.4.2.3) */
	POTM_ERR_MALFORMED = 16,     /* the body does not parse; the connection stays */
	POTM_ERR_TOO_LARGE = 17,     /* the length exceeds POTM_FRAME_MAX; then closed */
	POTM_ERR_UNKNOWN_TYPE = 18,
	POTM_ERR_BAD_PARAMS = 19,    /* wrong count, or out of the database's range */
	POTM_ERR_STALE = 20,         /* an id below the client's last one: never executed here */
	POTM_ERR_FAILED = 21,        /* executed, but found the database broken */
	POTM_ERR_SHUTTING_DOWN = 22,
	POTM_ERR_NOT_LEADER = 23,    /* a follower: values = leader's id, its client port (0: unknown) */
};

typedef struct potm_request {
	uint16_t type;
	uint64_t client_id;
	uint64_t request_id;
	uint16_t nparams;
	int64_t params[POTM_PARAMS_MAX];
} potm_request_t;

typedef struct potm_response {
	uint16_t status;
	uint64_t client_id;
	uint64_t request_id;
	uint64_t position;           /* place in the agreed order, or POTM_POSITION_NONE */
	uint16_t nvalues;
	int64_t values[POTM_VALUES_MAX];
	char message[POTM_MESSAGE_MAX + 1];   /* NUL-terminated, "" if none */
} potm_response_t;

/* Encode a whole frame (length prefix included) into buf; returns its size,
 * or 0 if it does not fit in cap or the request is out of bounds. */
size_t potm_encode_request(const potm_request_t *req, uint8_t *buf, size_t cap);
size_t potm_encode_response(const potm_response_t *resp, uint8_t *buf, size_t cap);

/* Decode a body of len bytes (the length prefix stripped).  Returns 0, or
 * POTM_ERR_MALFORMED (with *why saying what is wrong when why is not
 * NULL).  A request whose header parsed has its ids set even when the rest
 * is malformed, so that the error can name them. */
int potm_decode_request(const uint8_t *body, size_t len, potm_request_t *req,
                        const char **why);
int potm_decode_response(const uint8_t *body, size_t len, potm_response_t *resp,
                         const char **why);

/* The length prefix of a frame at p. */
uint32_t potm_frame_length(const uint8_t *p);

/* "ok", "malformed", ... for a status; "unknown" for others. */
const char *potm_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* POTM_PROTOCOL_H */
