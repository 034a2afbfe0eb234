/*
 * lib/log_written.h — what the record store's redo log (lib/store/log.c)
 * takes from a deferred write set (stm/tl2_sets.h): the bytes the
 * committing attempt wrote inside each record it logs, as pieces
 * (tm_log_range_t, txd.h).  Shared by the backends whose writes wait in
 * such a set until their commit (silo, tl2), each of which exports it as
 * potm_<backend>_log_written; include after tl2_sets.h.
 *
 * Why the write set and not memory: the log's replay applies each
 * commit's pieces in stamp order, and per byte the stamps of its writers
 * follow their commit order (the stripe's lock), so the last piece
 * applied is the committed byte (lib/store/log.c, D3).  Bytes of a record
 * the attempt did not write are not its to log: copied from memory, a
 * stripe another committer changes at the same time could carry that
 * commit's value under this one's stamp, out of order.  The write set is
 * final once the body ended (a lazy LSD write, filled only at the commit,
 * is not allowed on a logged record: <potm/durable.h>), so the log takes
 * it before the backend commits, inside the attempt: no read-set entry,
 * no lock, no copy of what was not written.
 *
 * One pass over the write set, each entry placed by a hash index of the
 * ranges' 256-byte blocks: an attempt writes a few dozen words, where
 * walking the records' words would look up hundreds (a stock row of
 * New-Order is 41 words, of which it writes 2).
 */
#ifndef POTM_LOG_WRITTEN_H
#define POTM_LOG_WRITTEN_H

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

/* Append the bytes of e selected by bits (inside r) to r's pieces: a run
 * that starts where the last piece ended extends it. */
static inline void potm_log_put_(tm_log_range_t *r, const tl2_wentry_t *e, unsigned bits)
{
	while (bits != 0) {
		unsigned first = (unsigned)__builtin_ctz(bits);
		unsigned len = (unsigned)__builtin_ctz(~(bits >> first));
		bits &= ~(((1u << len) - 1) << first);
		uintptr_t b = e->addr + first;
		unsigned char *p = r->out + r->len;
		if (r->len != 0 && b == r->piece_end_) {
			/* The open piece is the last one: its length grows. */
			uint32_t plen;
			unsigned char *hdr = r->out + r->piece_hdr_;
			memcpy(&plen, hdr + 4, 4);
			plen += len;
			memcpy(hdr + 4, &plen, 4);
		} else {
			uint32_t h[2] = { (uint32_t)(b - r->lo), len };
			r->piece_hdr_ = r->len;
			memcpy(p, h, sizeof h);
			p += TM_LOG_PIECE_HDR;
		}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* All 8 bytes at once (out has the room): no call. */
		uint64_t v = e->val >> (8 * first);
		memcpy(p, &v, 8);
#else
		memcpy(p, (const unsigned char *)&e->val + first, len);
#endif
		p += len;
		r->len = (size_t)(p - r->out);
		r->covered += len;
		r->piece_end_ = b + len;
	}
}

static inline size_t potm_log_slot_(uintptr_t block, size_t mask)
{
	return (size_t)((block * TM_WFILTER_MUL) >> 32) & mask;
}

/* Fill r[0..n) with the bytes ws holds in each (ix: txd.h's index, its
 * slots of older generations empty). */
static inline void potm_log_written_(const tl2_wset_t *ws, tm_log_range_t *r, size_t n,
                                     const tm_log_index_t *ix)
{
	uint64_t gen = ix->gen;
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		r[i].len = r[i].covered = 0;
		uintptr_t last = (r[i].hi - 1) >> TM_LOG_BLOCK_SHIFT;
		for (uintptr_t b = r[i].lo >> TM_LOG_BLOCK_SHIFT; b <= last; b++) {
			size_t s = potm_log_slot_(b, ix->mask);
			while (ix->slots[s].gen == gen)
				s = (s + 1) & ix->mask;
			ix->slots[s] = (tm_log_slot_t){ b, i, gen };
		}
	}
	for (size_t k = 0; k < ws->n; k++) {
		const tl2_wentry_t *e = &ws->e[k];
		uintptr_t a = e->addr, b = a >> TM_LOG_BLOCK_SHIFT;
		/* Every range holding a byte of the word (a word lies in one
		 * block; a block may hold parts of several records, and a
		 * record noted twice has two equal ranges). */
		for (size_t s = potm_log_slot_(b, ix->mask); ix->slots[s].gen == gen;
		     s = (s + 1) & ix->mask) {
			if (ix->slots[s].block != b || e->mask == 0)
				continue;
			tm_log_range_t *ri = &r[ix->slots[s].range];
			unsigned bits = potm_log_mask_bits_(e->mask);
			if (a < ri->lo)
				bits &= a + 8 > ri->lo ? 0xffu << (ri->lo - a) : 0;
			if (a + 8 > ri->hi)
				bits &= a < ri->hi ? 0xffu >> (a + 8 - ri->hi) : 0;
			if (bits != 0)
				potm_log_put_(ri, e, bits);
		}
	}
}

#endif /* POTM_LOG_WRITTEN_H */
