/*
 * stmbench7/sb7_text.h — the manual's and the documents' text.
 *
 * The original keeps each text as one immutable string and replaces it
 * whole on every update: OP11 (swap every 'I' and 'i' of the 1 MB manual)
 * copies 1 MB, T5/ST7 (swap the prefix "I am" <-> "This is" of a 20 KB
 * document) copy 20 KB.  Here a text is a sequence of chunks whose bytes
 * are read and written in place, a 64-bit word (8 characters) per
 * transactional access:
 *
 *  - A scan (T4, T8, ST2: count the 'I's) costs one transactional load per
 *    8 characters.
 *  - A character replacement (OP11) stores only the words that contain a
 *    character that changes: one word per 30-character line of the
 *    manual (33,334 of its 125,000 words), and nothing else.
 *  - An edit that changes the length (the prefix swap) rewrites only its
 *    own chunk.  The first line of a text has a chunk of its own, so the
 *    prefix swap stores about 6 words.  A chunk has slack for such edits
 *    and is replaced by a larger copy only if an edit outgrows it.
 *
 * Bytes past a chunk's length are zero, so equal texts have equal words.
 */
#ifndef SB7_TEXT_H
#define SB7_TEXT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sb7_text_chunk {
	long length;        /* bytes in use */
	long capacity;      /* bytes words[] holds (a multiple of 8) */
	uint64_t words[];
} sb7_text_chunk_t;

typedef struct sb7_text {
	long nchunks;
	sb7_text_chunk_t **chunks;
} sb7_text_t;

/* The line repeated until the text is at least min_length bytes long; the
 * first line in a chunk of its own, the others packed into chunks of about
 * SB7_TEXT_CHUNK_BYTES.  t is fresh (plain stores). */
void sb7_text_init_fresh(sb7_text_t *t, const char *line, long min_length);
void sb7_text_release(sb7_text_t *t);

long sb7_text_length(const sb7_text_t *t);
long sb7_text_count_char(const sb7_text_t *t, char c);
/* -1 if the text is empty. */
int sb7_text_first_char(const sb7_text_t *t);
int sb7_text_last_char(const sb7_text_t *t);
bool sb7_text_starts_with(const sb7_text_t *t, const char *prefix);
/* If the text starts with from, replace that prefix by to: 1, else 0. */
int sb7_text_replace_prefix(sb7_text_t *t, const char *from, const char *to);
/* Replace every from by to; returns how many were replaced. */
long sb7_text_replace_char(sb7_text_t *t, char from, char to);
/* Deterministic hash of the content (not of the chunking). */
uint64_t sb7_text_hash(const sb7_text_t *t, uint64_t h);

#define SB7_TEXT_CHUNK_BYTES 256
/* Free room per chunk: the prefix swap grows a line by 3 bytes. */
#define SB7_TEXT_SLACK 16

#endif /* SB7_TEXT_H */
