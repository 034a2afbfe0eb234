/*
 * server/protocol.c — encoding and decoding of potm-server's frames
 * (potm/protocol.h; the format is documented in server/PROTOCOL.md).
 * Byte by byte, so that it does not depend on the host's byte order or
 * alignment; the 64-bit fields (most of a request: its parameters) are
 * one unaligned copy on a little-endian host, where the bytes are the
 * same.
 */
#include <potm/protocol.h>

#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PROTO_LITTLE_ENDIAN 1
#endif

static void put64(uint8_t *p, uint64_t v)
{
#ifdef PROTO_LITTLE_ENDIAN
	memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t potm_frame_length(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
#ifdef PROTO_LITTLE_ENDIAN
	memcpy(&v, p, 8);
#else
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
#endif
	return v;
}

size_t potm_encode_request(const potm_request_t *req, uint8_t *buf, size_t cap)
{
	if (req->nparams > POTM_PARAMS_MAX)
		return 0;
	size_t body = POTM_REQUEST_HEADER + 8u * req->nparams;
	if (4 + body > cap)
		return 0;
	put32(buf, (uint32_t)body);
	uint8_t *p = buf + 4;
	p[0] = POTM_PROTO_VERSION;
	p[1] = POTM_KIND_REQUEST;
	put16(p + 2, req->type);
	put64(p + 4, req->client_id);
	put64(p + 12, req->request_id);
	put16(p + 20, req->nparams);
	put16(p + 22, 0);
	for (unsigned i = 0; i < req->nparams; i++)
		put64(p + POTM_REQUEST_HEADER + 8 * i, (uint64_t)req->params[i]);
	return 4 + body;
}

size_t potm_encode_response(const potm_response_t *resp, uint8_t *buf, size_t cap)
{
	if (resp->nvalues > POTM_VALUES_MAX)
		return 0;
	size_t mlen = strnlen(resp->message, POTM_MESSAGE_MAX);
	size_t body = POTM_RESPONSE_HEADER + 8u * resp->nvalues + mlen;
	if (4 + body > cap)
		return 0;
	put32(buf, (uint32_t)body);
	uint8_t *p = buf + 4;
	p[0] = POTM_PROTO_VERSION;
	p[1] = POTM_KIND_RESPONSE;
	put16(p + 2, resp->status);
	put64(p + 4, resp->client_id);
	put64(p + 12, resp->request_id);
	put64(p + 20, resp->position);
	put16(p + 28, resp->nvalues);
	put16(p + 30, (uint16_t)mlen);
	for (unsigned i = 0; i < resp->nvalues; i++)
		put64(p + POTM_RESPONSE_HEADER + 8 * i, (uint64_t)resp->values[i]);
	memcpy(p + POTM_RESPONSE_HEADER + 8u * resp->nvalues, resp->message, mlen);
	return 4 + body;
}

static int malformed(const char **why, const char *what)
{
	if (why != NULL)
		*why = what;
	return POTM_ERR_MALFORMED;
}

int potm_decode_request(const uint8_t *p, size_t len, potm_request_t *req, const char **why)
{
	memset(req, 0, offsetof(potm_request_t, params));
	if (len < POTM_REQUEST_HEADER)
		return malformed(why, "frame shorter than a request header");
	req->type = get16(p + 2);
	req->client_id = get64(p + 4);
	req->request_id = get64(p + 12);
	if (p[0] != POTM_PROTO_VERSION)
		return malformed(why, "unknown protocol version");
	if (p[1] != POTM_KIND_REQUEST)
		return malformed(why, "not a request");
	unsigned n = get16(p + 20);
	if (n > POTM_PARAMS_MAX)
		return malformed(why, "more than 64 parameters");
	if (len != POTM_REQUEST_HEADER + 8u * n)
		return malformed(why, "frame length does not match the parameter count");
	req->nparams = (uint16_t)n;
	for (unsigned i = 0; i < n; i++)
		req->params[i] = (int64_t)get64(p + POTM_REQUEST_HEADER + 8 * i);
	return 0;
}

int potm_decode_response(const uint8_t *p, size_t len, potm_response_t *resp,
                         const char **why)
{
	memset(resp, 0, sizeof *resp);
	if (len < POTM_RESPONSE_HEADER)
		return malformed(why, "frame shorter than a response header");
	if (p[0] != POTM_PROTO_VERSION || p[1] != POTM_KIND_RESPONSE)
		return malformed(why, "not a response of this protocol version");
	resp->status = get16(p + 2);
	resp->client_id = get64(p + 4);
	resp->request_id = get64(p + 12);
	resp->position = get64(p + 20);
	unsigned n = get16(p + 28), mlen = get16(p + 30);
	if (n > POTM_VALUES_MAX || mlen > POTM_MESSAGE_MAX)
		return malformed(why, "too many values or too long a message");
	if (len != POTM_RESPONSE_HEADER + 8u * n + mlen)
		return malformed(why, "frame length does not match its contents");
	resp->nvalues = (uint16_t)n;
	for (unsigned i = 0; i < n; i++)
		resp->values[i] = (int64_t)get64(p + POTM_RESPONSE_HEADER + 8 * i);
	memcpy(resp->message, p + POTM_RESPONSE_HEADER + 8u * n, mlen);
	resp->message[mlen] = '\0';
	return 0;
}

const char *potm_status_name(int status)
{
	switch (status) {
	case POTM_OK: return "ok";
	case POTM_ROLLED_BACK: return "rolled back";
	case POTM_ERR_MALFORMED: return "malformed";
	case POTM_ERR_TOO_LARGE: return "too large";
	case POTM_ERR_UNKNOWN_TYPE: return "unknown type";
	case POTM_ERR_BAD_PARAMS: return "bad parameters";
	case POTM_ERR_STALE: return "stale request id";
	case POTM_ERR_FAILED: return "failed";
	case POTM_ERR_SHUTTING_DOWN: return "shutting down";
	case POTM_ERR_NOT_LEADER: return "not the leader";
	default: return "unknown";
	}
}
