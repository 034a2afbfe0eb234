/*
 * stmbench7/sb7_text.h — the manual's and the documents' text.
 *
 * The original keeps each text as one immutable string and replaces it
 * whole on every update: OP11 (swap every 'I' and 'i' of the 1 MB manual)
 * copies 1 MB, T5/ST7 (swap the prefix "I am" <-> "This is" of a 20 KB
 * document) copy 20 KB.  Here a text is an array of pointers to immutable
 * chunks of at most SB7_TEXT_CHUNK_BYTES (whole lines), replaced by
 * copy-on-write:
 *
 *  - A scan (T4, T8, ST2: count the 'I's) makes one transactional load per
 *    chunk (its pointer) and reads the chunk's bytes with plain loads, 8 at
 *    a time: about 1 transactional load per 250 characters instead of 1 per
 *    8, which on an STM is most of the cost of T4 and T8.
 *  - A text is one line repeated (the specification's), so its full
 *    chunks all hold the same bytes: they are one chunk, shared.  The
 *    invariant: EQUAL CHUNK POINTERS OF A TEXT ARE ADJACENT (a run), and
 *    a run's chunk is freed once.
 *  - A character replacement (OP11) copies only the chunks that contain the
 *    character, once per run, stores the new pointer in every slot of the
 *    run and frees the old chunk once; chunks without the character stay
 *    as they are.  The manual's full chunks are one run, so OP11 copies
 *    three chunks (the first line, the shared chunk, the last) and stores
 *    252 pointers: about 6.5 KB copied of the 1 MB manual.  (Chunks are
 *    large because small ones would make OP11 thousands of allocations
 *    and frees, which cost more than the copying.)
 *  - The prefix swap copies only the first chunk, which holds the first
 *    line alone: under 50 bytes and one pointer store.
 *
 * The invariant: A PUBLISHED CHUNK IS IMMUTABLE.  Once a chunk's pointer is
 * in chunks[i] (stored by a committed transaction, or by the build before
 * the workers start), nothing writes its length, capacity or words again;
 * an edit builds a new chunk (sb7_alloc in the editing transaction, filled
 * with plain stores, as memory the transaction allocated and has not yet
 * published may be), stores its pointer with SB7_STORE and sb7_free()s the
 * old one.  Hence readers load nchunks, the chunks array pointer and every
 * chunk pointer with SB7_LOAD and the chunk's contents with plain loads,
 * under every backend:
 *  - the pointer load is part of the transaction's snapshot (validated,
 *    locked or ordered like any other access), so a transaction that
 *    commits has read the chunk that was current at its serialization
 *    point, whose contents were complete before the pointer was published;
 *    a transaction that read a stale pointer is doomed and never commits;
 *  - contents never change after publication, so plain loads of them cannot
 *    race with a writer nor see a torn edit, even in a doomed transaction
 *    (a chunk's length always matches its own words);
 *  - sb7_free is tm_free in the TM builds: reclamation waits until no
 *    running transaction can still hold the old pointer, so a reader (even
 *    a doomed one) never reads freed memory.  In the lock builds it is an
 *    immediate free under the write lock, while readers need the read lock;
 *  - what the plain loads return is a function of the pointer read
 *    transactionally, so the deterministic backends stay deterministic.
 *
 * Bytes past a chunk's length (up to its capacity, a whole number of words)
 * are zero.
 */
#ifndef SB7_TEXT_H
#define SB7_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* Immutable once published (see above): read with plain loads. */
typedef struct sb7_text_chunk {
	long length;        /* bytes of text */
	long capacity;      /* bytes words[] holds (length rounded up to 8) */
	uint64_t words[];
} sb7_text_chunk_t;

/* nchunks and chunks never change after the text is built; chunks[i] is
 * replaced by the edits (SB7_LOAD/SB7_STORE). */
typedef struct sb7_text {
	long nchunks;
	sb7_text_chunk_t **chunks;
} sb7_text_t;

/* The line repeated until the text is at least min_length bytes long; the
 * first line in a chunk of its own, the others packed into chunks of at
 * most SB7_TEXT_CHUNK_BYTES (at least one line).  t is fresh (plain
 * stores). */
void sb7_text_init_fresh(sb7_text_t *t, const char *line, long min_length);
void sb7_text_release(sb7_text_t *t);

long sb7_text_length(const sb7_text_t *t);
long sb7_text_count_char(const sb7_text_t *t, char c);
/* -1 if the text is empty. */
int sb7_text_first_char(const sb7_text_t *t);
int sb7_text_last_char(const sb7_text_t *t);
/* Whether the first chunk starts with prefix. */
bool sb7_text_starts_with(const sb7_text_t *t, const char *prefix);
/* If the text starts with from, replace that prefix by to: 1, else 0
 * (and nothing stored). */
int sb7_text_replace_prefix(sb7_text_t *t, const char *from, const char *to);
/* Replace every from by to; returns how many were replaced. */
long sb7_text_replace_char(sb7_text_t *t, char from, char to);
/* Deterministic hash of the content (not of the chunking). */
uint64_t sb7_text_hash(const sb7_text_t *t, uint64_t h);

#define SB7_TEXT_CHUNK_BYTES 4000

#endif /* SB7_TEXT_H */
