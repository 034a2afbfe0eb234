/*
 * stmbench7/sb7_text.c — chunked text with immutable chunks replaced by
 * copy-on-write (see sb7_text.h for the invariant and why plain loads of a
 * chunk's contents are safe).
 *
 * Chunk pointers (and the text's own fields) go through SB7_LOAD/SB7_STORE;
 * a chunk's length and words are read with plain loads, and a new chunk is
 * filled with plain stores before its pointer is published.
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

/* The number of set high bits of a word that has only high bits set
 * (popcount is a library call on baseline x86-64). */
static long sb7_count_high_bits(uint64_t lanes)
{
	return (long)(((lanes >> 7) * SB7_ONES) >> 56);
}

/* A published chunk's text: plain loads (the chunk is immutable). */
static const unsigned char *sb7_chunk_bytes(const sb7_text_chunk_t *chunk)
{
	return (const unsigned char *)chunk->words;
}

/* A new, unpublished chunk for len bytes, its padding already zero: the
 * caller fills words[] (plain stores) and then publishes it. */
static sb7_text_chunk_t *sb7_chunk_new(long len)
{
	size_t words = sb7_words_for(len);
	sb7_text_chunk_t *c = sb7_alloc(sizeof *c + words * 8);
	c->length = len;
	c->capacity = (long)words * 8;
	if (words > 0)
		c->words[words - 1] = 0;
	return c;
}

void sb7_text_init_fresh(sb7_text_t *t, const char *line, long min_length)
{
	long line_len = (long)strlen(line);
	if (line_len == 0) {
		fprintf(stderr, "stmbench7: empty text line\n");
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

	/* The first line alone, so that the prefix swap copies one line. */
	t->chunks[0] = sb7_chunk_new(line_len);
	memcpy(t->chunks[0]->words, line, (size_t)line_len);
	/* The full chunks hold the same lines: one chunk, shared (a run). */
	sb7_text_chunk_t *full = NULL;
	for (long c = 1; c < t->nchunks; c++) {
		long n = rest < per_chunk ? rest : per_chunk;
		rest -= n;
		if (n == per_chunk && full != NULL) {
			t->chunks[c] = full;
			continue;
		}
		sb7_text_chunk_t *chunk = sb7_chunk_new(n * line_len);
		char *bytes = (char *)chunk->words;
		for (long i = 0; i < n; i++)
			memcpy(bytes + i * line_len, line, (size_t)line_len);
		t->chunks[c] = chunk;
		if (n == per_chunk)
			full = chunk;
	}
}

void sb7_text_release(sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	const sb7_text_chunk_t *last = NULL;
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		if (chunk != last)   /* once per run */
			sb7_free(chunk);
		last = chunk;
	}
	sb7_free(chunks);
}

long sb7_text_length(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks), total = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++)
		total += SB7_LOAD(&chunks[c])->length;
	return total;
}

/* 16 bytes compared at once: GCC's generic vectors, SSE2 on x86-64 and
 * VSX on ppc64le, without intrinsics of either. */
typedef unsigned char sb7_bytes16_t __attribute__((vector_size(16)));
typedef uint64_t sb7_words2_t __attribute__((vector_size(16)));

/* 64 bytes per iteration: four 16-byte compares, whose all-ones lanes
 * (-1) are subtracted from per-byte counters, at most 4 per iteration, so
 * SB7_VEC_BLOCKS iterations cannot overflow a byte (4 * 63 = 252). */
#define SB7_VEC_BLOCKS 63

static inline sb7_bytes16_t sb7_load16(const uint64_t *p)
{
	sb7_bytes16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The sum of the 16 byte counters (each at most 252). */
static long sb7_sum_byte_lanes(sb7_bytes16_t counts)
{
	sb7_words2_t w = (sb7_words2_t)counts;
	long sum = 0;
	for (int i = 0; i < 2; i++) {
		/* Bytes to 16-bit lanes (at most 504), then the 4 lanes by one
		 * multiply (at most 2,016: no carry out of the top lane). */
		uint64_t pairs = (w[i] & 0x00ff00ff00ff00ffull) + ((w[i] >> 8) & 0x00ff00ff00ff00ffull);
		sum += (long)((pairs * 0x0001000100010001ull) >> 48);
	}
	return sum;
}

/* How many bytes of the chunk equal ch: plain loads, 64 bytes at a time,
 * then a word at a time.  T4 scans a 20 KB document per composite part of
 * every base assembly, 44 MB on the small structure: a scalar scan would
 * dominate every backend's `-w r` time and hide the TM's own cost.  A
 * compiler vectorizes the original's std::count the same way. */
static long sb7_chunk_count_char(const sb7_text_chunk_t *chunk, unsigned char ch)
{
	long len = chunk->length, found = 0;
	const uint64_t *words = chunk->words;
	size_t full = (size_t)len / 8, i = 0;
	sb7_bytes16_t want = (sb7_bytes16_t){0} + ch;
	while (full - i >= 8) {
		size_t blocks = (full - i) / 8;
		if (blocks > SB7_VEC_BLOCKS)
			blocks = SB7_VEC_BLOCKS;
		sb7_bytes16_t counts = {0};
		for (size_t b = 0; b < blocks; b++, i += 8)
			counts -= (sb7_bytes16_t)(sb7_load16(words + i) == want) +
			          (sb7_bytes16_t)(sb7_load16(words + i + 2) == want) +
			          (sb7_bytes16_t)(sb7_load16(words + i + 4) == want) +
			          (sb7_bytes16_t)(sb7_load16(words + i + 6) == want);
		found += sb7_sum_byte_lanes(counts);
	}
	uint64_t lanes = 0;   /* at most 7 words left: at most 7 per byte */
	for (; i < full; i++)
		lanes += sb7_matching_bytes(words[i], ch, SB7_HIGHS) >> 7;
	found += (long)((lanes * SB7_ONES) >> 56);
	if (len % 8)
		found += sb7_count_high_bits(
			sb7_matching_bytes(words[full], ch, sb7_word_valid(len, full)));
	return found;
}

long sb7_text_count_char(const sb7_text_t *t, char ch)
{
	long n = SB7_LOAD(&t->nchunks), found = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++)
		found += sb7_chunk_count_char(SB7_LOAD(&chunks[c]), (unsigned char)ch);
	return found;
}

int sb7_text_first_char(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++) {
		const sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		if (chunk->length > 0)
			return sb7_chunk_bytes(chunk)[0];
	}
	return -1;
}

int sb7_text_last_char(const sb7_text_t *t)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = n - 1; c >= 0; c--) {
		const sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		if (chunk->length > 0)
			return sb7_chunk_bytes(chunk)[chunk->length - 1];
	}
	return -1;
}

bool sb7_text_starts_with(const sb7_text_t *t, const char *prefix)
{
	size_t plen = strlen(prefix);
	const sb7_text_chunk_t *chunk = SB7_LOAD(&SB7_LOAD(&t->chunks)[0]);
	return (size_t)chunk->length >= plen && memcmp(sb7_chunk_bytes(chunk), prefix, plen) == 0;
}

int sb7_text_replace_prefix(sb7_text_t *t, const char *from, const char *to)
{
	long flen = (long)strlen(from), tlen = (long)strlen(to);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[0]);
	const unsigned char *old = sb7_chunk_bytes(chunk);
	long len = chunk->length;
	if (len < flen || memcmp(old, from, (size_t)flen) != 0)
		return 0;
	sb7_text_chunk_t *fresh = sb7_chunk_new(len - flen + tlen);
	char *bytes = (char *)fresh->words;
	memcpy(bytes, to, (size_t)tlen);
	memcpy(bytes + tlen, old + flen, (size_t)(len - flen));
	SB7_STORE(&chunks[0], fresh);
	sb7_free(chunk);
	return 1;
}

static inline void sb7_store16(uint64_t *p, sb7_bytes16_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Copy blocks x 64 bytes from src to dst with every byte f replaced by t,
 * as the count does it (16-byte compares, per-byte counters summed every
 * SB7_VEC_BLOCKS blocks); returns how many were replaced.  OP11 copies
 * the manual's chunks that hold the character this way: with structural
 * modifications on, OP11 is most of what a run does once the long
 * traversals have little left to visit, so its copy must not be scalar. */
static long sb7_replace_blocks(uint64_t *dst, const uint64_t *src, size_t blocks,
                               unsigned char f, unsigned char t)
{
	const sb7_bytes16_t want = (sb7_bytes16_t){0} + f, put = (sb7_bytes16_t){0} + t;
	long replaced = 0;
	while (blocks > 0) {
		size_t run = blocks > SB7_VEC_BLOCKS ? SB7_VEC_BLOCKS : blocks;
		sb7_bytes16_t counts = {0};
		for (size_t b = 0; b < run; b++, src += 8, dst += 8)
			for (int k = 0; k < 8; k += 2) {
				sb7_bytes16_t v = sb7_load16(src + k);
				sb7_bytes16_t hit = (sb7_bytes16_t)(v == want);
				sb7_store16(dst + k, (v & ~hit) | (put & hit));
				counts -= hit;
			}
		replaced += sb7_sum_byte_lanes(counts);
		blocks -= run;
	}
	return replaced;
}

long sb7_text_replace_char(sb7_text_t *t, char from, char to)
{
	long n = SB7_LOAD(&t->nchunks), replaced = 0;
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	unsigned char f = (unsigned char)from;
	uint64_t to_bytes = SB7_ONES * (unsigned char)to;
	/* The run under way: its old chunk, the chunk that replaces it (NULL:
	 * unchanged) and how many characters one copy replaced.  A run's
	 * old chunk is freed once, when the run is over. */
	sb7_text_chunk_t *run_old = NULL, *run_new = NULL;
	long run_replaced = 0;
	for (long c = 0; c < n; c++) {
		sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		if (chunk == run_old) {
			if (run_new != NULL)
				SB7_STORE(&chunks[c], run_new);
			replaced += run_replaced;
			continue;
		}
		if (run_new != NULL)
			sb7_free(run_old);
		run_old = chunk;
		run_new = NULL;
		run_replaced = 0;
		long len = chunk->length;
		const uint64_t *words = chunk->words;
		size_t nwords = sb7_words_for(len), i = 0;
		/* Chunks without the character stay as they are. */
		while (i < nwords && sb7_matching_bytes(words[i], f, sb7_word_valid(len, i)) == 0)
			i++;
		if (i == nwords)
			continue;
		long before = replaced;
		sb7_text_chunk_t *fresh = sb7_chunk_new(len);
		memcpy(fresh->words, words, i * 8);
		/* Whole words only: bytes past the length must stay as they are
		 * even when they equal f. */
		size_t full = (size_t)len / 8;
		if (i < full) {
			size_t blocks = (full - i) / 8;
			replaced += sb7_replace_blocks(fresh->words + i, words + i, blocks,
			                               f, (unsigned char)to);
			i += blocks * 8;
		}
		for (; i < nwords; i++) {
			uint64_t w = words[i];
			uint64_t hit = sb7_matching_bytes(w, f, sb7_word_valid(len, i));
			uint64_t byte_mask = (hit >> 7) * 0xff;
			fresh->words[i] = (w & ~byte_mask) | (to_bytes & byte_mask);
			replaced += sb7_count_high_bits(hit);
		}
		SB7_STORE(&chunks[c], fresh);
		run_new = fresh;
		run_replaced = replaced - before;
	}
	if (run_new != NULL)
		sb7_free(run_old);
	return replaced;
}

uint64_t sb7_text_hash(const sb7_text_t *t, uint64_t h)
{
	long n = SB7_LOAD(&t->nchunks);
	sb7_text_chunk_t **chunks = SB7_LOAD(&t->chunks);
	for (long c = 0; c < n; c++) {
		const sb7_text_chunk_t *chunk = SB7_LOAD(&chunks[c]);
		const unsigned char *b = sb7_chunk_bytes(chunk);
		for (long k = 0; k < chunk->length; k++)
			h = (h ^ b[k]) * 0x100000001b3ull;
	}
	return h;
}
