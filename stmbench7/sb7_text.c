/*
 * stmbench7/sb7_text.c — chunked text, read and written in place a word at
 * a time (see sb7_text.h for the reasons).
 *
 * Byte tricks work on the 8 bytes of a word in memory order; masks are
 * built through memcpy, so nothing here depends on the byte order.
 */
#include "sb7_text.h"

#include <string.h>

#include "sb7_tm.h"

#define SB7_ONES 0x0101010101010101ull
#define SB7_HIGHS 0x8080808080808080ull
#define SB7_LOWS 0x7f7f7f7f7f7f7f7full

/* Edits that change a length keep the chunk's bytes on the stack. */
#define SB7_TEXT_MAX_EDITED_CHUNK 1024

static size_t sb7_words_for(long bytes)
{
	return (size_t)(bytes + 7) / 8;
}

/* 0x80 in each of the first n bytes (memory order) of a word. */
static uint64_t sb7_first_bytes_high(long n)
{
	unsigned char b[8] = { 0 };
	for (long i = 0; i < n && i < 8; i++)
		b[i] = 0x80;
	uint64_t m;
	memcpy(&m, b, 8);
	return m;
}

/* 0x80 in every byte of w equal to c, among the bytes selected by valid. */
static uint64_t sb7_matching_bytes(uint64_t w, unsigned char c, uint64_t valid)
{
	uint64_t x = w ^ (SB7_ONES * c);
	uint64_t nonzero = ((x & SB7_LOWS) + SB7_LOWS) | x | SB7_LOWS;
	return ~nonzero & valid;
}

/* The valid-byte mask of word i of a chunk of len bytes. */
static uint64_t sb7_word_valid(long len, size_t i)
{
	long rest = len - (long)i * 8;
	return rest >= 8 ? SB7_HIGHS : sb7_first_bytes_high(rest);
}

static long sb7_round8(long n)
{
	return (n + 7) & ~7L;
}

static sb7_text_chunk_t *sb7_chunk_fresh(const char *bytes, long len)
{
	long cap = sb7_round8(len + SB7_TEXT_SLACK);
	sb7_text_chunk_t *c = sb7_alloc(sizeof *c + (size_t)cap);
	c->length = len;
	c->capacity = cap;
	memset(c->words, 0, (size_t)cap);
	memcpy(c->words, bytes, (size_t)len);
	return c;
}

void sb7_text_init_fresh(sb7_text_t *t, const char *line, long min_length)
{
	long line_len = (long)strlen(line);
	if (line_len == 0 || line_len + SB7_TEXT_SLACK > SB7_TEXT_MAX_EDITED_CHUNK / 2) {
		fprintf(stderr, "stmbench7: text line of %ld bytes is not supported\n", line_len);
		abort();
	}
	long lines = (min_length + line_len - 1) / line_len;
	if (lines < 1)
		lines = 1;
	long per_chunk = SB7_TEXT_CHUNK_BYTES / line_len;
	if (per_chunk < 1)
		per_chunk = 1;
	long rest = lines - 1;
	t->nchunks = 1 + (rest + per_chunk - 1) / per_chunk;
	t->chunks = sb7_alloc((size_t)t->nchunks * sizeof *t->chunks);

	/* per_chunk lines fill at most max(SB7_TEXT_CHUNK_BYTES, line_len)
	 * bytes, and line_len is bounded above. */
	char block[SB7_TEXT_CHUNK_BYTES + SB7_TEXT_MAX_EDITED_CHUNK];
	for (long i = 0; i < per_chunk; i++)
		memcpy(block + i * line_len, line, (size_t)line_len);
	t->chunks[0] = sb7_chunk_fresh(line, line_len);
	for (long c = 1; c < t->nchunks; c++) {
		long n = rest < per_chunk ? rest : per_chunk;
		t->chunks[c] = sb7_chunk_fresh(block, n * line_len);
		rest -= n;
	}
}

void sb7_text_release(sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++)
		sb7_free(SB7_LOAD(&chunks[c]));
	sb7_free(chunks);
}

long sb7_text_length(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks), total = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++)
		total += SB7_LOAD(&SB7_LOAD(&chunks[c])->length);
	return total;
}

/* The number of set high bits of a word that has only high bits set
 * (popcount is a library call on baseline x86-64). */
static long sb7_count_high_bits(uint64_t lanes)
{
	return (long)(((lanes >> 7) * SB7_ONES) >> 56);
}

long sb7_text_count_char(const sb7_text_t *t, char ch)
{
	long n = SB7_LOAD(&t->nchunks), found = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		long len = SB7_LOAD(&chunk->length);
		size_t full = (size_t)len / 8;
		/* Whole words first, with no per-word mask, then the tail. */
		for (size_t i = 0; i < full; i++) {
			uint64_t hit = sb7_matching_bytes(SB7_LOAD(&chunk->words[i]), (unsigned char)ch,
			                                  SB7_HIGHS);
			found += sb7_count_high_bits(hit);
		}
		if (len % 8)
			found += sb7_count_high_bits(sb7_matching_bytes(
				SB7_LOAD(&chunk->words[full]), (unsigned char)ch, sb7_word_valid(len, full)));
	}
	return found;
}

static unsigned char sb7_byte_of(uint64_t w, long i)
{
	unsigned char b[8];
	memcpy(b, &w, 8);
	return b[i];
}

int sb7_text_first_char(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		if (SB7_LOAD(&chunk->length) > 0)
			return sb7_byte_of(SB7_LOAD(&chunk->words[0]), 0);
	}
	return -1;
}

int sb7_text_last_char(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = n - 1; c >= 0; c--) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		long len = SB7_LOAD(&chunk->length);
		if (len > 0)
			return sb7_byte_of(SB7_LOAD(&chunk->words[(len - 1) / 8]), (len - 1) % 8);
	}
	return -1;
}

/* Copy the first chunk's bytes (zero padded to whole words) into buf. */
static long sb7_read_first_chunk(sb7_text_chunk_t *chunk, char *buf)
{
	long len = SB7_LOAD(&chunk->length);
	if (len > SB7_TEXT_MAX_EDITED_CHUNK) {
		fprintf(stderr, "stmbench7: first text chunk of %ld bytes is too long to edit\n", len);
		abort();
	}
	for (size_t i = 0; i < sb7_words_for(len); i++) {
		uint64_t w = SB7_LOAD(&chunk->words[i]);
		memcpy(buf + 8 * i, &w, 8);
	}
	return len;
}

bool sb7_text_starts_with(const sb7_text_t *t, const char *prefix)
{
	/* The prefixes asked for are a few bytes: only the words they cover
	 * are read. */
	long plen = (long)strlen(prefix);
	sb7_text_chunk_t *chunk = SB7_LOAD(&SB7_LOAD(&t->chunks)[0]);
	if (SB7_LOAD(&chunk->length) < plen)
		return false;
	for (size_t i = 0; i < sb7_words_for(plen); i++) {
		uint64_t w = SB7_LOAD(&chunk->words[i]);
		long n = plen - (long)i * 8 < 8 ? plen - (long)i * 8 : 8;
		if (memcmp(&w, prefix + 8 * i, (size_t)n) != 0)
			return false;
	}
	return true;
}

int sb7_text_replace_prefix(sb7_text_t *t, const char *from, const char *to)
{
	long flen = (long)strlen(from), tlen = (long)strlen(to);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[0]);
	/* Both buffers are zero past their lengths: words there compare and
	 * store as the zero padding that memory holds. */
	char old[2 * SB7_TEXT_MAX_EDITED_CHUNK + 16];
	char fresh[2 * SB7_TEXT_MAX_EDITED_CHUNK + 16];
	long len = sb7_read_first_chunk(chunk, old);
	if (len < flen || memcmp(old, from, (size_t)flen) != 0)
		return 0;
	long new_len = len - flen + tlen;
	if (new_len > SB7_TEXT_MAX_EDITED_CHUNK) {
		fprintf(stderr, "stmbench7: prefix edit would make a %ld-byte chunk\n", new_len);
		abort();
	}
	memset(old + len, 0, sizeof old - (size_t)len);
	memset(fresh, 0, sizeof fresh);
	memcpy(fresh, to, (size_t)tlen);
	memcpy(fresh + tlen, old + flen, (size_t)(len - flen));
	if (new_len > SB7_LOAD(&chunk->capacity)) {
		/* Outgrown: a larger copy replaces the chunk. */
		SB7_STORE(&chunks[0], sb7_chunk_fresh(fresh, new_len));
		sb7_free(chunk);
		return 1;
	}
	size_t words = sb7_words_for(new_len > len ? new_len : len);
	for (size_t i = 0; i < words; i++) {
		uint64_t was, now;
		memcpy(&was, old + 8 * i, 8);
		memcpy(&now, fresh + 8 * i, 8);
		if (now != was)
			SB7_STORE(&chunk->words[i], now);
	}
	SB7_STORE(&chunk->length, new_len);
	return 1;
}

long sb7_text_replace_char(sb7_text_t *t, char from, char to)
{
	long n = SB7_LOAD(&t->nchunks), replaced = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	uint64_t to_bytes = SB7_ONES * (unsigned char)to;
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		long len = SB7_LOAD(&chunk->length);
		size_t words = sb7_words_for(len);
		for (size_t i = 0; i < words; i++) {
			uint64_t w = SB7_LOAD(&chunk->words[i]);
			uint64_t hit = sb7_matching_bytes(w, (unsigned char)from, sb7_word_valid(len, i));
			if (hit == 0)
				continue;
			uint64_t byte_mask = (hit >> 7) * 0xff;
			SB7_STORE(&chunk->words[i], (w & ~byte_mask) | (to_bytes & byte_mask));
			replaced += sb7_count_high_bits(hit);
		}
	}
	return replaced;
}

uint64_t sb7_text_hash(const sb7_text_t *t, uint64_t h)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		long len = SB7_LOAD(&chunk->length);
		for (size_t i = 0; i < sb7_words_for(len); i++) {
			uint64_t w = SB7_LOAD(&chunk->words[i]);
			unsigned char b[8];
			memcpy(b, &w, 8);
			for (long k = 0; k < 8 && (long)i * 8 + k < len; k++)
				h = (h ^ b[k]) * 0x100000001b3ull;
		}
	}
	return h;
}
