/*
 * lib/access_gen.h — the typed tm_read_* / tm_write_* family, generated.
 *
 * A backend defines two functions and includes this file once:
 *
 *   static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size);
 *   static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b);
 *
 * The uint64_t carries the accessed bytes in its first `size` bytes of
 * memory (memcpy order), which keeps every backend endian-neutral.  The
 * word-sized tm_read/tm_write are the backend's own (its hottest path).
 *
 * A backend whose accesses are plain loads and stores (seq, gl, the HTM
 * backends) defines POTM_GEN_IN_PLACE and, instead of the four,
 *
 *   static inline void BACKEND_LOG_WRITE(potm_thread_t *t, void *a, unsigned size);
 *
 * which keeps what a store of size bytes at a must leave behind to be
 * undone (nothing, or an undo-log entry); every access is then generated:
 * a read checks that the thread is in a transaction and loads, a write
 * checks, calls BACKEND_LOG_WRITE and stores.
 *
 * tm_read_bytes (a byte range) is generated too: a plain copy in place,
 * else byte reads up to the first word boundary, word reads, byte reads
 * after the last one.  A backend that reads a range better (tl2: one
 * snapshot check per stripe) defines POTM_GEN_OWN_READ_BYTES and its own.
 * tm_write_bytes likewise: the naturally aligned 1-, 2-, 4- and 8-byte
 * pieces that tile the range (<potm/static/pieces.h>), each through the
 * typed write (so each is logged or buffered as any write of its size),
 * unless the backend defines POTM_GEN_OWN_WRITE_BYTES (tl2, silo: one
 * write-set entry per word, the stripe bookkeeping once per stripe).
 */
#ifndef POTM_ACCESS_GEN_H
#define POTM_ACCESS_GEN_H

#include <string.h>

#ifdef POTM_GEN_IN_PLACE
/* POTM_GEN_COUNT_ACCESSES (pot-rtm, pot-rot): every access adds to the
 * attempt's count, as pot's do, since the count decides the runs of
 * turns whichever path the attempt takes. */
#ifdef POTM_GEN_COUNT_ACCESSES
#define POTM_GEN_COUNT_(t, n) ((t)->txd.accesses += (n))
#else
#define POTM_GEN_COUNT_(t, n) ((void)(t), (void)(n))
#endif

tm_word_t tm_read(const tm_word_t *a)
{
	POTM_GEN_COUNT_(potm_self_in_tx("tm_read"), 1);
	return *a;
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	potm_thread_t *t = potm_self_writing("tm_write");
	POTM_GEN_COUNT_(t, 1);
	BACKEND_LOG_WRITE(t, a, sizeof *a);
	*a = v;
}

static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	POTM_GEN_COUNT_(potm_self_in_tx("tm_read"), 1);
	uint64_t b = 0;
	memcpy(&b, a, size);
	return b;
}

static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	potm_thread_t *t = potm_self_writing("tm_write");
	POTM_GEN_COUNT_(t, 1);
	BACKEND_LOG_WRITE(t, a, size);
	memcpy(a, &b, size);
}
#endif

/* 8-byte types are whole words: they take the backend's word path, its
 * fastest (pointers and longs are most of what programs read). */
#define POTM_GEN_ACCESS_(T, sfx)                                             \
	T tm_read##sfx(const T *a)                                           \
	{                                                                    \
		potm_check_aligned(a, sizeof(T), "tm_read" #sfx);            \
		uint64_t b = sizeof(T) == sizeof(tm_word_t)                  \
		        ? (uint64_t)tm_read((const tm_word_t *)(const void *)a) \
		        : BACKEND_READ_BYTES(a, sizeof(T));                  \
		T v;                                                         \
		memcpy(&v, &b, sizeof v);                                    \
		return v;                                                    \
	}                                                                    \
	void tm_write##sfx(T *a, T v)                                        \
	{                                                                    \
		potm_check_aligned(a, sizeof(T), "tm_write" #sfx);           \
		uint64_t b = 0;                                              \
		memcpy(&b, &v, sizeof v);                                    \
		if (sizeof(T) == sizeof(tm_word_t))                          \
			tm_write((tm_word_t *)(void *)a, (tm_word_t)b);      \
		else                                                         \
			BACKEND_WRITE_BYTES(a, sizeof(T), b);                \
	}

POTM_GEN_ACCESS_(uint8_t, _u8)
POTM_GEN_ACCESS_(uint16_t, _u16)
POTM_GEN_ACCESS_(uint32_t, _u32)
POTM_GEN_ACCESS_(uint64_t, _u64)
POTM_GEN_ACCESS_(tm_ptr_t, _ptr)
POTM_GEN_ACCESS_(float, _float)
POTM_GEN_ACCESS_(double, _double)
#undef POTM_GEN_ACCESS_

#ifndef POTM_GEN_OWN_READ_BYTES
void tm_read_bytes(void *dst, const void *src, size_t n)
{
#ifdef POTM_GEN_IN_PLACE
	POTM_GEN_COUNT_(potm_self_in_tx("tm_read_bytes"), tm_bytes_accesses_(src, n));
	memcpy(dst, src, n);
#else
	/* Where a read is a plain load (TM_TXD_PLAIN_READS: pot's fast mode,
	 * tl2's irrevocable one) the range is one copy.  It counts the
	 * accesses the loops below would (a byte before the first word
	 * boundary, a word, a byte after the last), since pot's runs of
	 * turns are decided by that count and must not depend on the path. */
	tm_txd_t *x = tm_self_;
	if (x != NULL && x->depth > 0 && (x->flags & TM_TXD_PLAIN_READS)) {
		x->accesses += tm_bytes_accesses_(src, n);
		memcpy(dst, src, n);
		return;
	}
	const uint8_t *s = src;
	uint8_t *d = dst;
	for (; n > 0 && ((uintptr_t)s & 7) != 0; n--)
		*d++ = tm_read_u8(s++);
	for (; n >= 8; n -= 8, s += 8, d += 8) {
		tm_word_t w = tm_read((const tm_word_t *)(const void *)s);
		memcpy(d, &w, 8);
	}
	for (; n > 0; n--)
		*d++ = tm_read_u8(s++);
#endif
}
#endif

#ifndef POTM_GEN_OWN_WRITE_BYTES
/* The splitter inlined here, not called (potm_write_pieces): with put
 * constant (access.h's tm_put_piece_, the typed write of each piece's
 * size), each piece is a direct call instead of an indirect one. */
void tm_write_bytes(void *dst, const void *src, size_t n)
{
	potm_self_writing("tm_write_bytes");
	tm_write_pieces_(dst, src, n, tm_put_piece_, NULL);
}
#endif

/* A backend whose tm.h accesses are inline with an out-of-line slow path
 * (pot: plain loads and, alone, logged plain stores in fast mode) defines
 * POTM_GEN_READ_SPEC: the slow paths are the library's read and write,
 * under second names. */
#ifdef POTM_GEN_READ_SPEC
#define POTM_GEN_SPEC_(T, sfx)                                               \
	T tm_read##sfx##_spec_(const T *a) __attribute__((alias("tm_read" #sfx))); \
	void tm_write##sfx##_slow_(T *a, T v) __attribute__((alias("tm_write" #sfx)));
POTM_GEN_SPEC_(tm_word_t, )
POTM_GEN_SPEC_(uint8_t, _u8)
POTM_GEN_SPEC_(uint16_t, _u16)
POTM_GEN_SPEC_(uint32_t, _u32)
POTM_GEN_SPEC_(uint64_t, _u64)
POTM_GEN_SPEC_(tm_ptr_t, _ptr)
POTM_GEN_SPEC_(float, _float)
POTM_GEN_SPEC_(double, _double)
#undef POTM_GEN_SPEC_
#endif

#endif /* POTM_ACCESS_GEN_H */
