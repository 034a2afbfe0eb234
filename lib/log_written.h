/*
 * lib/log_written.h — what the record store's redo log (lib/store/log.c)
 * takes from a deferred write set (stm/tl2_sets.h): the bytes of one
 * record that the committing attempt wrote, as pieces.  Shared by the
 * backends whose writes wait in such a set until their commit (silo,
 * tl2), each of which exports it as potm_<backend>_log_written; include
 * after tl2_sets.h.
 *
 * Why the write set and not memory: the log's replay applies each
 * commit's pieces in stamp order, and per byte the stamps of its writers
 * follow their commit order (the stripe's lock), so the last piece
 * applied is the committed byte (lib/store/log.c, D3).  Bytes of the
 * record the attempt did not write are not its to log: copied from
 * memory, a stripe another committer changes at the same time could carry
 * that commit's value under this one's stamp, out of order.  The write
 * set is final once the body ended (a lazy LSD write, filled only at the
 * commit, is not allowed on a logged record: <potm/durable.h>), so the
 * log reads it before the backend commits, inside the attempt: no read
 * set entry, no lock, no copy of what was not written.
 *
 * A piece: uint32_t offset in the record, uint32_t length, then the
 * bytes (no alignment).  The pieces are in address order and never
 * adjacent (a run of written bytes is one piece), so at most n / 2 + 1 of
 * them: out needs room for POTM_LOG_WRITTEN_MAX(n) bytes (8 more: the
 * last bytes are copied a word at a time).
 */
#ifndef POTM_LOG_WRITTEN_H
#define POTM_LOG_WRITTEN_H

#define POTM_LOG_PIECE_HDR 8u
#define POTM_LOG_WRITTEN_MAX(n) ((n) + POTM_LOG_PIECE_HDR * ((n) / 2 + 1) + 8)

/* The bit of a's stripe (of 1 << shift bytes) in a filter of 1,024 bits
 * (the backends' written_stripes). */
static inline uint64_t potm_log_stripe_bit_(uintptr_t a, unsigned shift, unsigned *word)
{
	uint64_t h = ((a >> shift) * TM_WFILTER_MUL) >> (64 - 10);
	*word = (unsigned)(h >> 6);
	return (uint64_t)1 << (h & 63);
}

/* A write-set entry's byte mask (0xff per byte written, memcpy order) as
 * eight bits, bit i for byte i. */
static inline unsigned potm_log_mask_bits_(tm_word_t mask)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Byte i's low bit is bit 8i; the product gathers bit 8i at 56 + i. */
	return (unsigned)(((mask & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
#else
	const unsigned char *m = (const unsigned char *)&mask;
	unsigned bits = 0;
	for (unsigned i = 0; i < 8; i++)
		bits |= (unsigned)(m[i] & 1) << i;
	return bits;
#endif
}

/* The bytes of [rec, rec + n) that ws holds, as pieces into out; returns
 * the pieces' length and sets *covered to the number of bytes.
 * stripes: the backend's filter of the stripes holding words of ws (a
 * bit per stripe of 1 << shift bytes): a stripe whose bit is clear is
 * skipped without a lookup, most of a wide record that the attempt wrote
 * a few fields of. */
static inline size_t potm_log_written_(tl2_wset_t *ws, const uint64_t *stripes, unsigned shift,
                                       const void *rec, size_t n, unsigned char *out,
                                       size_t *covered)
{
	uintptr_t lo = (uintptr_t)rec, hi = lo + n;
	unsigned char *p = out;
	unsigned char *piece = NULL;   /* the open piece's header */
	uintptr_t piece_end = 0;       /* the address after its last byte */
	size_t got = 0;
	if (ws->n == 0) {
		*covered = 0;
		return 0;
	}
	uintptr_t stripe_end = 0;
	size_t next = SIZE_MAX;   /* the entry after the last one found */
	for (uintptr_t word = lo & ~(uintptr_t)7; word < hi; word += 8) {
		if (word >= stripe_end) {
			unsigned w;
			uint64_t bit = potm_log_stripe_bit_(word, shift, &w);
			stripe_end = (word | (((uintptr_t)1 << shift) - 1)) + 1;
			if (!(stripes[w] & bit)) {
				word = stripe_end - 8;   /* the next stripe's first word */
				continue;
			}
		}
		/* Fields written in address order sit in consecutive entries:
		 * the one after the last found is tried before a lookup. */
		const tl2_wentry_t *e;
		if (next < ws->n && ws->e[next].addr == word)
			e = &ws->e[next];
		else if ((e = tl2_ws_lookup(ws, word)) == NULL)
			continue;
		next = (size_t)(e - ws->e) + 1;
		/* The word's written bytes inside the record, a bit each. */
		unsigned bits = potm_log_mask_bits_(e->mask);
		if (word < lo)
			bits &= 0xffu << (lo - word);
		if (word + 8 > hi)
			bits &= 0xffu >> (word + 8 - hi);
		while (bits != 0) {
			unsigned first = (unsigned)__builtin_ctz(bits);
			unsigned len = (unsigned)__builtin_ctz(~(bits >> first));
			bits &= ~(((1u << len) - 1) << first);
			uintptr_t b = word + first;
			if (piece == NULL || b != piece_end) {
				if (piece != NULL) {
					uint32_t plen = (uint32_t)(p - piece - POTM_LOG_PIECE_HDR);
					memcpy(piece + 4, &plen, 4);
				}
				piece = p;
				uint32_t off = (uint32_t)(b - lo);
				memcpy(piece, &off, 4);
				p += POTM_LOG_PIECE_HDR;
			}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* All 8 bytes at once (out has the room): no call. */
			uint64_t v = e->val >> (8 * first);
			memcpy(p, &v, 8);
#else
			memcpy(p, (const unsigned char *)&e->val + first, len);
#endif
			p += len;
			got += len;
			piece_end = b + len;
		}
	}
	if (piece != NULL) {
		uint32_t len = (uint32_t)(p - piece - POTM_LOG_PIECE_HDR);
		memcpy(piece + 4, &len, 4);
	}
	*covered = got;
	return (size_t)(p - out);
}

#endif /* POTM_LOG_WRITTEN_H */
