/*
 * STMBench7's chunked text (stmbench7/sb7_text.c): the character count
 * that T4, T8 and ST2 run, 64 bytes at a time with vector compares, then a
 * word at a time, then the last partial word.  Checked against a byte-by-
 * byte count on chunks of every length around those boundaries, with the
 * character at the edges, everywhere and nowhere, and bytes that differ
 * from it by one bit or have the high bit set (a SWAR or signed-compare
 * slip shows there).  The same for OP11's replacement of one character by
 * another.
 */
#include <potm/tm.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../../stmbench7/sb7_text.h"

#include "check_run.h"

__thread unsigned long sb7_stores_by_this_thread;

static void start(void)
{
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static void stop(void)
{
	tm_thread_exit();
	tm_shutdown();
}

/* A one-chunk text holding bytes[0..len). */
static sb7_text_chunk_t *chunk_of(const unsigned char *bytes, long len)
{
	long cap = (len + 7) / 8 * 8;
	sb7_text_chunk_t *c = calloc(1, sizeof *c + (size_t)cap + 8);
	ck_assert_ptr_nonnull(c);
	c->length = len;
	c->capacity = cap;
	memcpy(c->words, bytes, (size_t)len);
	/* Bytes past the length are not text: fill the last word's tail with
	 * the character so that counting them shows. */
	memset((unsigned char *)c->words + len, bytes[len], (size_t)(cap - len));
	return c;
}

static long count_bytes(const unsigned char *bytes, long len, unsigned char ch)
{
	long n = 0;
	for (long i = 0; i < len; i++)
		n += bytes[i] == ch;
	return n;
}

static long count_in_tx(sb7_text_t *t, char ch)
{
	volatile long n = 0;
	TM_BEGIN();
		n = sb7_text_count_char(t, ch);
	TM_END();
	return n;
}

/* Lengths up to two vector batches (63 blocks of 64 bytes) and a bit:
 * every length at first, then every 37th. */
#define MAX_LEN (2 * 63 * 64 + 100)
#define NEXT_LEN(len) ((len) + ((len) < 300 ? 1 : 37))

/* The characters looked for: the manual's, and bytes with the high bit set
 * or zero (a signed-compare or SWAR slip shows there). */
static const unsigned char test_chars[] = { 'I', 'i', 0x80, 0xff, 0 };
#define PATTERNS 4

/* Fill bytes[0..len) with one of the patterns around ch: 0 all ch, 1 none
 * (one bit off), 2 random, 3 ch at the edges and at the end of every
 * 64-byte block.  bytes[len], past the end, is ch: it must not count. */
static void fill_pattern(unsigned char *bytes, long len, unsigned char ch, int pattern,
                         unsigned *seed)
{
	for (long i = 0; i <= len; i++) {
		*seed = *seed * 1103515245u + 12345u;
		unsigned char r = (unsigned char)(*seed >> 16);
		switch (pattern) {
		case 0: bytes[i] = ch; break;
		case 1: bytes[i] = ch ^ 1; break;
		case 2: bytes[i] = r & 1 ? ch : r | 0x80; break;
		default: bytes[i] = (i == 0 || i == len - 1 || i % 64 == 63) ? ch : ch ^ 0x80;
		}
	}
	bytes[len] = ch;
}

START_TEST(count_char_matches_bytewise_count)
{
	start();
	static unsigned char bytes[MAX_LEN + 1];
	unsigned seed = 12345;
	for (long len = 0; len <= MAX_LEN; len = NEXT_LEN(len)) {
		for (size_t k = 0; k < sizeof test_chars; k++) {
			unsigned char ch = test_chars[k];
			for (int pattern = 0; pattern < PATTERNS; pattern++) {
				fill_pattern(bytes, len, ch, pattern, &seed);
				sb7_text_chunk_t *c = chunk_of(bytes, len);
				sb7_text_t t = { .nchunks = 1, .chunks = &c };
				ck_assert_msg(count_in_tx(&t, (char)ch) == count_bytes(bytes, len, ch),
				              "length %ld, char 0x%02x, pattern %d: %ld, expected %ld",
				              len, ch, pattern, count_in_tx(&t, (char)ch),
				              count_bytes(bytes, len, ch));
				free(c);
			}
		}
	}
	stop();
}
END_TEST

static long replace_in_tx(sb7_text_t *t, char from, char to)
{
	volatile long n = 0;
	TM_BEGIN();
		n = sb7_text_replace_char(t, from, to);
	TM_END();
	return n;
}

/* OP11's replacement, 64 bytes at a time, then a word at a time: the new
 * chunk must hold the bytewise result, the count must match, the bytes
 * past the length (here equal to the character) must stay, and a chunk
 * without the character must stay shared. */
START_TEST(replace_char_matches_bytewise_replace)
{
	start();
	static unsigned char bytes[MAX_LEN + 1], want[MAX_LEN + 1];
	unsigned seed = 54321;
	for (long len = 0; len <= MAX_LEN; len = NEXT_LEN(len)) {
		for (size_t k = 0; k < sizeof test_chars; k++) {
			unsigned char ch = test_chars[k], to = ch ^ 0x21;
			for (int pattern = 0; pattern < PATTERNS; pattern++) {
				fill_pattern(bytes, len, ch, pattern, &seed);
				long expected = count_bytes(bytes, len, ch);
				for (long i = 0; i < len; i++)
					want[i] = bytes[i] == ch ? to : bytes[i];
				sb7_text_chunk_t *before = chunk_of(bytes, len), *c = before;
				sb7_text_t t = { .nchunks = 1, .chunks = &c };
				long n = replace_in_tx(&t, (char)ch, (char)to);
				ck_assert_msg(n == expected, "length %ld, char 0x%02x, pattern %d: "
				              "%ld replaced, expected %ld", len, ch, pattern, n, expected);
				if (expected == 0) {
					ck_assert_ptr_eq(c, before);
					free(before);
					continue;
				}
				ck_assert_ptr_ne(c, before);
				ck_assert_int_eq(c->length, len);
				/* One assertion per chunk: Check records each one. */
				const unsigned char *got = (const unsigned char *)c->words;
				long bad = 0;
				while (bad < c->capacity && got[bad] == (bad < len ? want[bad] : ch))
					bad++;
				ck_assert_msg(bad == c->capacity,
				              "length %ld, char 0x%02x, pattern %d: byte %ld is 0x%02x",
				              len, ch, pattern, bad, got[bad]);
				tm_free(c);   /* before went the same way, inside the replacement */
			}
		}
	}
	tm_reclaim_barrier();
	stop();
}
END_TEST

/* A text built as the benchmark builds its documents and manual: chunks of
 * whole lines, the count the sum over chunks. */
START_TEST(count_char_over_chunks)
{
	start();
	const char *line = "I am the documentation for composite part #42.\n";
	long per_line = count_bytes((const unsigned char *)line, (long)strlen(line), 'o');
	sb7_text_t t;
	TM_BEGIN();
		sb7_text_init_fresh(&t, line, 20000);
	TM_END();
	ck_assert_int_gt(t.nchunks, 2);
	volatile long length = 0;
	TM_BEGIN();
		length = sb7_text_length(&t);
	TM_END();
	ck_assert_int_eq(length % (long)strlen(line), 0);
	ck_assert_int_eq(count_in_tx(&t, 'o'), length / (long)strlen(line) * per_line);
	ck_assert_int_eq(count_in_tx(&t, 'I'), length / (long)strlen(line));
	ck_assert_int_eq(count_in_tx(&t, 'Z'), 0);
	TM_BEGIN();
		sb7_text_release(&t);
	TM_END();
	stop();
}
END_TEST

/* The full chunks of a built text are one shared chunk (a run); OP11's
 * replacement copies it once, stores the copy in every slot of the run,
 * counts every slot's characters and frees the old chunk once (ASan
 * builds see a double free or a leak). */
START_TEST(replace_char_over_shared_runs)
{
	start();
	const char *line = "I am the manual for module #1\n";
	sb7_text_t t;
	TM_BEGIN();
		sb7_text_init_fresh(&t, line, 100000);
	TM_END();
	long n = t.nchunks;
	ck_assert_int_gt(n, 4);
	ck_assert_ptr_eq(t.chunks[1], t.chunks[n - 2]);   /* the run */
	ck_assert_ptr_ne(t.chunks[0], t.chunks[1]);       /* the first line alone */
	volatile long length = 0;
	TM_BEGIN();
		length = sb7_text_length(&t);
	TM_END();
	long lines = length / (long)strlen(line);
	for (int round = 0; round < 3; round++) {
		char from = round % 2 ? 'i' : 'I', to = round % 2 ? 'I' : 'i';
		sb7_text_chunk_t *old_run = t.chunks[1];
		ck_assert_int_eq(replace_in_tx(&t, from, to), lines);
		ck_assert_int_eq(count_in_tx(&t, to), lines);
		ck_assert_int_eq(count_in_tx(&t, from), 0);
		ck_assert_ptr_ne(t.chunks[1], old_run);
		ck_assert_ptr_eq(t.chunks[1], t.chunks[n - 2]);
		ck_assert_int_eq(replace_in_tx(&t, 'Z', 'z'), 0);   /* nothing copied */
	}
	TM_BEGIN();
		sb7_text_release(&t);
	TM_END();
	tm_reclaim_barrier();
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sb7-text");
	TCase *tc = tcase_create("count-and-replace");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, count_char_matches_bytewise_count);
	tcase_add_test(tc, count_char_over_chunks);
	tcase_add_test(tc, replace_char_matches_bytewise_replace);
	tcase_add_test(tc, replace_char_over_shared_runs);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
