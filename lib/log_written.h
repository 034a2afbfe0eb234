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
 * them: out needs room for POTM_LOG_WRITTEN_MAX(n) bytes.
 */
#ifndef POTM_LOG_WRITTEN_H
#define POTM_LOG_WRITTEN_H

#define POTM_LOG_PIECE_HDR 8u
#define POTM_LOG_WRITTEN_MAX(n) ((n) + POTM_LOG_PIECE_HDR * ((n) / 2 + 1))

/* The bytes of [rec, rec + n) that ws holds, as pieces into out; returns
 * the pieces' length and sets *covered to the number of bytes. */
static inline size_t potm_log_written_(tl2_wset_t *ws, const void *rec, size_t n,
                                       unsigned char *out, size_t *covered)
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
	for (uintptr_t word = lo & ~(uintptr_t)7; word < hi; word += 8) {
		const tl2_wentry_t *e = tl2_ws_lookup(ws, word);
		if (e == NULL || e->mask == 0)
			continue;
		const unsigned char *val = (const unsigned char *)&e->val;
		const unsigned char *mask = (const unsigned char *)&e->mask;
		uintptr_t from = word > lo ? word : lo, to = word + 8 < hi ? word + 8 : hi;
		for (uintptr_t b = from; b < to; b++) {
			if (!mask[b - word])
				continue;
			if (piece == NULL || b != piece_end) {
				if (piece != NULL) {
					uint32_t len = (uint32_t)(p - piece - POTM_LOG_PIECE_HDR);
					memcpy(piece + 4, &len, 4);
				}
				piece = p;
				uint32_t off = (uint32_t)(b - lo);
				memcpy(piece, &off, 4);
				p += POTM_LOG_PIECE_HDR;
			}
			if (b == word && to == word + 8 && e->mask == ~(tm_word_t)0) {
				/* A whole word: its 8 bytes at once. */
				memcpy(p, val, 8);
				p += 8;
				got += 8;
				piece_end = word + 8;
				break;
			}
			*p++ = val[b - word];
			got++;
			piece_end = b + 1;
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
