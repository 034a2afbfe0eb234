/*
 * potm/static/pieces.h — a byte range cut into the writes that tile it.
 *
 * Engine internals, installed because <potm/static/access.h>'s inline
 * tm_write_bytes expands to them.  tm_write_bytes (tm.h) writes a range
 * as pieces, each the largest of 8, 4, 2 and 1 bytes that the destination
 * is aligned to and the range still holds.  A piece is then a write the
 * typed accesses take (naturally aligned), so it is logged, buffered or
 * counted as any write of its size, and a sub-word piece never touches
 * the bytes beside it.  The source may have any alignment.
 *
 * One splitter for every caller: the inline write paths (pot's fast mode,
 * the HTM backends' software paths) and the library's generic one
 * (lib/access_gen.h) inline it; tl2's irrevocable mode calls it out of
 * line (potm_write_pieces, lib/potm_internal.h).  Called with a constant
 * put, it is inlined whole and every put sees a constant size: the
 * alignment tests per piece, and no indirect call.
 */
#ifndef POTM_STATIC_PIECES_H
#define POTM_STATIC_PIECES_H

#ifndef POTM_TM_H
#error "include <potm/tm.h>, not <potm/static/pieces.h>"
#endif

#include <stddef.h>
#include <stdint.h>

/* Write size bytes (1, 2, 4 or 8) at a, aligned to size; b carries them
 * in memcpy order (its first size bytes in memory), as the backends'
 * byte accesses do, which keeps the pieces endian-neutral. */
typedef void (*tm_put_piece_fn_)(void *ctx, void *a, unsigned size, uint64_t b);

/* One piece of a constant size: its bytes to put, and the range past it. */
static inline __attribute__((always_inline)) void
tm_piece_(unsigned char **d, const unsigned char **s, size_t *n, unsigned size,
          tm_put_piece_fn_ put, void *ctx)
{
	uint64_t b = 0;
	__builtin_memcpy(&b, *s, size);
	put(ctx, *d, size, b);
	*d += size;
	*s += size;
	*n -= size;
}

static inline __attribute__((always_inline)) void
tm_write_pieces_(void *dst, const void *src, size_t n, tm_put_piece_fn_ put, void *ctx)
{
	unsigned char *d = (unsigned char *)dst;
	const unsigned char *s = (const unsigned char *)src;
	/* Each branch puts a constant size and advances by it, so that an
	 * inlined put keeps no test of its own and no branch joins another
	 * before the loop test. */
	while (n > 0) {
		if (((uintptr_t)d & 7) == 0 && n >= 8)
			tm_piece_(&d, &s, &n, 8, put, ctx);
		else if (((uintptr_t)d & 3) == 0 && n >= 4)
			tm_piece_(&d, &s, &n, 4, put, ctx);
		else if (((uintptr_t)d & 1) == 0 && n >= 2)
			tm_piece_(&d, &s, &n, 2, put, ctx);
		else
			tm_piece_(&d, &s, &n, 1, put, ctx);
	}
}

#endif /* POTM_STATIC_PIECES_H */
