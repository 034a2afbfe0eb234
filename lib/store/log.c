/*
 * lib/store/log.c — the record store's redo log, checkpoints and recovery
 * (<potm/durable.h>), after Silo's epoch-based group commit (Tu et al.,
 * SOSP 2013, section 4.10).
 *
 * Workers.  store_insert, store_delete and store_update note what an
 * attempt changes (table, key, record) in the thread's worker state and
 * set the descriptor's commit hook (txd.h).  Before the backend commits,
 * once the body has ended, the hook builds the transaction record and
 * announces the commit in the worker's busy word; after the commit, it
 * stamps the record, appends it to the worker's buffer and clears busy.
 * The bytes logged are those the commit installs (D3): on silo and tl2,
 * the bytes the attempt wrote in each record, taken from its write set
 * (lib/log_written.h: no read of the record, no read-set entry), an
 * update as an OP_PATCH of them, an insert (or a record written whole)
 * as an OP_PUT of its image, memory under what was written; where the
 * writes are in place (tl2's irrevocable and serial attempts, seq)
 * nobody else commits meanwhile and the image is memory.
 *
 * Stamps.  A commit's stamp orders it after every commit it depends on:
 * silo's TID, tl2's write version, seq's own counter.  lower_bound() is a
 * value every commit that starts (announces) later will have at least:
 * silo's epoch << sequence bits, tl2's clock + 1.
 *
 * The logger, every period_ms: bound = lower_bound(), lowered to every
 * busy worker's announced bound; D = bound - 1.  It then drains every
 * worker's buffer into one TX block each, writes a MARK block with D,
 * fdatasync()s and publishes D as the durable stamp.
 *
 * Blocks: a header (magic, type, payload length, CRC32C of type, length
 * and payload) and the payload.  A file log.<n> is CKPT_BEGIN, CKPT_DATA
 * blocks, CKPT_END, then TX and MARK blocks.
 *
 * Operations: OP_PUT (the whole record: insert or overwrite), OP_PATCH
 * (pieces: offset, length, bytes; the record exists, made by an earlier
 * stamp or the checkpoint), OP_DEL.
 *
 * Invariants:
 *  D1 (announce) A worker's busy word holds, from before its commit takes
 *     its stamp until after its record is in its buffer (or the attempt
 *     aborts or is cancelled: the hook's ENDED call), a lower bound of
 *     that stamp (or BUSY_PENDING while it computes one; the logger waits
 *     it out).  The worker stores busy, fences, then reads the bound; the
 *     logger reads the bound, fences, then reads busy: a commit the logger
 *     saw idle announces a bound at least the logger's, so its stamp is
 *     above D.
 *  D2 (complete) Hence every commit with a stamp <= D is in a worker's
 *     buffer when the logger drains them (its append precedes its busy
 *     reset, under the buffer's mutex), and its record is written before
 *     MARK(D).  Records above D may precede MARK(D); they count only under
 *     a later MARK.
 *  D3 (order) For two commits that write one byte, stamps follow the
 *     commit order (the backend's guarantee: each locks the byte's stripe
 *     and takes a stamp above the stripe's; stm/silo.c S3, tl2's clock),
 *     and each commit logs exactly the bytes it installs: those it wrote
 *     (from its write set, final at the hook; an OP_PATCH never carries a
 *     byte it did not write, which a concurrent commit of another field
 *     could own), or, for an insert, the record it filled, unpublished
 *     until the commit.  Replaying the records with stamps <= D in stamp
 *     order therefore leaves each byte as its last writer up to D left
 *     it: the state after every commit up to D, a prefix closed under
 *     dependencies (a commit's stamp is above every stamp it read): no
 *     transaction is half applied, none is applied without one it read.
 *  D4 (durable) D is published only after the blocks up to MARK(D) are
 *     fdatasync()ed; potm_durable_wait(s) returns 0 only once D >= s.
 *  D5 (torn tail) Blocks are only appended.  Recovery trusts the longest
 *     prefix of whole blocks with good checksums, cuts the rest off, and
 *     applies the records up to the last MARK in that prefix (D2).
 *  D6 (full) A write that would pass max_bytes is not made; one that fails
 *     (ENOSPC, EIO) is cut back to the last whole block.  Either way the
 *     log stops: the durable stamp stays, waits fail, later commits are
 *     not logged (potm_durable_last_stamp answers UINT64_MAX, which no
 *     wait reaches), and what is on disk is a valid log (D5).
 *  D7 (checkpoints) A checkpoint is quiescent: nothing commits while its
 *     file is written, so its contents are the state after every commit
 *     logged in the files before.  A file counts only with its
 *     CKPT_END; older files are removed only after the new one's
 *     checkpoint is durable (file and directory synced), so a crash at
 *     any point leaves one complete checkpoint to start from.  Stamps are
 *     compared only within one file.
 *  D8 (quiescent rounds) At close and at a checkpoint nothing commits
 *     (the API's precondition), so every commit is in a buffer: the
 *     round marks the largest stamp appended, even above the bound (on
 *     silo, the current epoch, which would otherwise wait for the epoch
 *     to end).
 */
#include "store_internal.h"

#include <potm/durable.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The backend's stamps (stm/silo.c, stm/tl2.c; seq: a counter here). */
#if defined(POTM_BACKEND_SILO)
uint64_t potm_silo_epoch(void);
uint64_t potm_silo_last_tid(void);
unsigned potm_silo_seq_bits(void);
#define DLOG_SUPPORTED 1
static uint64_t dlog_lower_bound(void)
{
	return potm_silo_epoch() << potm_silo_seq_bits();
}
static uint64_t dlog_commit_stamp(void)
{
	return potm_silo_last_tid();
}
int potm_silo_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix);
#define dlog_written potm_silo_log_written
#elif defined(POTM_BACKEND_TL2)
uint64_t potm_tl2_clock(void);
uint64_t potm_tl2_last_wv(void);
#define DLOG_SUPPORTED 1
static uint64_t dlog_lower_bound(void)
{
	return potm_tl2_clock() + 1;
}
static uint64_t dlog_commit_stamp(void)
{
	return potm_tl2_last_wv();
}
int potm_tl2_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix);
#define dlog_written potm_tl2_log_written
#elif defined(POTM_BACKEND_SEQ)
/* One thread: the commits' own order. */
static uint64_t dlog_seq_next = 1;
#define DLOG_SUPPORTED 1
static uint64_t dlog_lower_bound(void)
{
	return __atomic_load_n(&dlog_seq_next, __ATOMIC_SEQ_CST);
}
static uint64_t dlog_commit_stamp(void)
{
	return __atomic_fetch_add(&dlog_seq_next, 1, __ATOMIC_SEQ_CST);
}
#else
#define DLOG_SUPPORTED 0
static uint64_t dlog_lower_bound(void)
{
	return 1;
}
static uint64_t dlog_commit_stamp(void)
{
	return 0;
}
#endif

/* ---- blocks ------------------------------------------------------------------ */

#define DLOG_MAGIC 0x504f544dU           /* "POTM" */
enum { BLK_CKPT_BEGIN = 1, BLK_CKPT_DATA, BLK_CKPT_END, BLK_TX, BLK_MARK };
enum { OP_PUT = 1, OP_DEL = 2, OP_PATCH = 3 };

typedef struct blk_hdr {
	uint32_t magic, type, len, crc;
} blk_hdr_t;

/* A transaction record in a TX block: this, then nops operations, each
 * an op_hdr_t and, for OP_PUT, the table's record_size bytes (the whole
 * record), for OP_PATCH a uint32_t length and that many bytes of pieces
 * (lib/log_written.h's format: uint32_t offset, uint32_t length, the
 * bytes), for OP_DEL nothing. */
typedef struct tx_hdr {
	uint64_t stamp;
	uint32_t nops, bytes;       /* bytes: the whole record, this included */
} tx_hdr_t;

typedef struct op_hdr {
	uint32_t table, op;         /* table: its index in the log's array */
	uint64_t key;
} op_hdr_t;

#define CKPT_DATA_MAX (1u << 20)
#define BLOCK_MAX (1u << 30)

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static uint32_t crc32c_table(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
/* SSE4.2's crc32 instruction computes the same CRC32C, 8 bytes at a
 * time: the log's checksums are most of the logger's work otherwise. */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t c = (uint32_t)~crc;
	for (; n >= 8; n -= 8, b += 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	uint32_t c32 = (uint32_t)c;
	while (n--)
		c32 = __builtin_ia32_crc32qi(c32, *b++);
	return ~c32;
}
#endif

static uint32_t (*crc32c)(uint32_t crc, const void *p, size_t n) = crc32c_table;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;   /* Castagnoli */
		crc_table[i] = c;
	}
#if defined(__x86_64__)
	/* Only if it agrees with the table on a sample (the file format is
	 * the table's). */
	static const char sample[] = "123456789 and some more bytes to cover the tail";
	if (__builtin_cpu_supports("sse4.2") &&
	    crc32c_sse42(0, sample, sizeof sample) == crc32c_table(0, sample, sizeof sample))
		crc32c = crc32c_sse42;
#endif
}

static uint32_t blk_crc(uint32_t type, uint32_t len, const void *payload)
{
	uint32_t h[2] = { type, len };
	return crc32c(crc32c(0, h, sizeof h), payload, len);
}

/* ---- workers ----------------------------------------------------------------- */

#define BUSY_PENDING UINT64_MAX

typedef struct dlog_note {
	uint32_t table, op;         /* OP_PUT: inserted, OP_PATCH: updated */
	uint64_t key;
	const void *rec;
	size_t range;               /* its range in the worker's ranges */
} dlog_note_t;

/* A worker's buffer starts this large (its pages are touched only as it
 * fills): a round's records fit without copies into a larger buffer. */
#define DLOG_BUF_MIN ((size_t)1 << 20)

typedef struct dlog_worker {
	pthread_mutex_t mu;            /* buf, len, cap: the worker and the logger */
	unsigned char *buf;
	size_t len, cap;
	uint64_t max_stamp;            /* the largest stamp appended (D8) */
	uint64_t busy;                 /* D1 */
	/* the running attempt's notes and images: the worker's alone */
	uint64_t attempt;
	dlog_note_t *notes;
	size_t nnotes, notes_cap;
	unsigned char *img;            /* the transaction record, built before the commit */
	size_t img_len, img_cap;
	tm_log_range_t *ranges;        /* the bytes written in each record */
	size_t ranges_cap;
	unsigned char *pieces;         /* the ranges' pieces */
	size_t pieces_cap;
	tm_log_slot_t *slots;          /* the index lent to dlog_written */
	size_t nslots;
	uint64_t slots_gen;            /* the last generation lent */
	uint64_t last_stamp;
	struct dlog_worker *next;
} dlog_worker_t;

struct potm_durable {
	char *dir;
	unsigned period_ms;
	uint64_t max_bytes;
	int quiet;
	store_table_t **tables;
	unsigned ntables;
	unsigned file_no;
	int fd;
	uint64_t off;                  /* bytes in the file (whole blocks) */
	uint64_t ckpt_end;             /* the checkpoint's end */
	pthread_mutex_t mu;            /* the file, the rounds, the workers list */
	pthread_cond_t cv;             /* durable moved, or the logger is woken */
	pthread_t thread;
	bool running, stop, kick;
	dlog_worker_t *workers;
	unsigned char *spare;          /* the logger's swap buffer */
	size_t spare_cap;
	uint64_t durable;              /* D4 */
	uint64_t marked;               /* the last MARK written */
	int failed;
	char error[256];
	uint64_t generation;
};

/* One log at a time (potm_durable_open says so). */
static potm_durable_t *dlog_current;
static uint64_t dlog_generation;
static __thread dlog_worker_t *dlog_me;
static __thread uint64_t dlog_me_gen;

static void dlog_say(const potm_durable_t *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void dlog_say(const potm_durable_t *log, const char *fmt, ...)
{
	if (log != NULL && log->quiet)
		return;
	va_list ap;
	fputs("potm durable: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *dlog_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(p, c * elem);
	if (q == NULL)
		store_abort("potm durable", "out of memory for %zu bytes of log", c * elem);
	*cap = c;
	return q;
}

static dlog_worker_t *dlog_worker(potm_durable_t *log)
{
	if (__builtin_expect(dlog_me != NULL && dlog_me_gen == log->generation, 1))
		return dlog_me;
	dlog_worker_t *w = calloc(1, sizeof *w);
	if (w == NULL)
		store_abort("potm durable", "out of memory for a worker");
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_lock(&log->mu);
	w->next = log->workers;
	log->workers = w;
	pthread_mutex_unlock(&log->mu);
	dlog_me = w;
	dlog_me_gen = log->generation;
	return w;
}

static void dlog_hook(tm_txd_t *d, int phase, int read_only);

/* The store's calls (table.c): note an operation of the running attempt. */
void store_log_note(store_table_t *t, uint64_t key, const void *rec, int kind)
{
	potm_durable_t *log = dlog_current;
	if (log == NULL || t->log_id == 0 || __atomic_load_n(&log->failed, __ATOMIC_RELAXED))
		return;
	tm_txd_t *d = tm_self_;
	dlog_worker_t *w = dlog_worker(log);
	if (w->attempt != d->attempt_id) {
		w->attempt = d->attempt_id;
		w->nnotes = 0;
	}
	uint32_t table = t->log_id - 1;
	if (kind == STORE_LOG_UPDATE) {
		/* An update noted again soon after (or after its insert, whose
		 * image has the update's bytes) logs once.  A record's memory
		 * belongs to one table: the address alone tells.  (Only an
		 * economy: a second OP_PATCH of a record carries the same
		 * bytes.) */
		for (size_t i = w->nnotes; i-- > 0 && i + 2 >= w->nnotes;)
			if (w->notes[i].rec == rec)
				return;
	}
	uint32_t op = kind == STORE_LOG_INSERT ? OP_PUT : kind == STORE_LOG_UPDATE ? OP_PATCH : OP_DEL;
	w->notes = dlog_grow(w->notes, &w->notes_cap, w->nnotes + 1, sizeof *w->notes);
	w->notes[w->nnotes++] = (dlog_note_t){ table, op, key, rec, 0 };
	d->commit_hook = dlog_hook;
}

/* With a deferred write set (silo, tl2): the bytes the attempt wrote in
 * each record noted as inserted or updated, into w->ranges (a note's
 * range is note.range).  0, or -1 if the attempt writes in place (tl2's
 * irrevocable and serial attempts): nobody else commits until it does,
 * so memory holds the records as it will commit them. */
static int dlog_collect(potm_durable_t *log, dlog_worker_t *w, size_t *need)
{
	/* The largest transaction record: an OP_PATCH's pieces take at most
	 * TM_LOG_WRITTEN_MAX(rs) bytes. */
	*need = sizeof(tx_hdr_t) + w->nnotes * sizeof(op_hdr_t);
#ifdef dlog_written
	size_t n = 0, room = 0, blocks = 0;
	w->ranges = dlog_grow(w->ranges, &w->ranges_cap, w->nnotes, sizeof *w->ranges);
	for (size_t i = 0; i < w->nnotes; i++) {
		dlog_note_t *nt = &w->notes[i];
		if (nt->op == OP_DEL)
			continue;
		size_t rs = log->tables[nt->table]->record_size;
		tm_log_range_t *r = &w->ranges[n];
		r->lo = (uintptr_t)nt->rec;
		r->hi = r->lo + rs;
		r->len = room;   /* its offset in pieces, until pieces is known */
		room += TM_LOG_WRITTEN_MAX(rs);
		*need += sizeof(uint32_t) + rs;
		blocks += TM_LOG_BLOCKS(r->lo, r->hi);
		nt->range = n++;
	}
	w->pieces = dlog_grow(w->pieces, &w->pieces_cap, room, 1);
	for (size_t j = 0; j < n; j++)
		w->ranges[j].out = w->pieces + w->ranges[j].len;
	if (w->nslots < 2 * blocks) {
		size_t c = 64;
		while (c < 2 * blocks)
			c *= 2;
		free(w->slots);
		w->slots = calloc(c, sizeof *w->slots);   /* empty: generation 0 */
		if (w->slots == NULL)
			store_abort("potm durable", "out of memory for %zu index slots", c);
		w->nslots = c;
	}
	*need += room;
	if (n == 0)
		return 0;   /* deletes only: nothing to look for */
	tm_log_index_t ix = { w->slots, w->nslots - 1, ++w->slots_gen };
	return dlog_written(w->ranges, n, &ix);
#else
	for (size_t i = 0; i < w->nnotes; i++)
		if (w->notes[i].op != OP_DEL)
			*need += log->tables[w->notes[i].table]->record_size;
	return -1;
#endif
}

/* Note n's bytes at p, its operation in *op; returns the end.  A record written whole, or
 * inserted (its memory is as store_insert filled it, unpublished until
 * the commit: nobody else writes it), is an OP_PUT of its image: memory
 * under the pieces written.  An update is an OP_PATCH of its pieces
 * (uint32_t length, then the pieces), with no read of the record.  In
 * place (collected -1: tl2's in-place attempts, seq) memory is the image,
 * read with tm_read_bytes (plain loads there).  Either way the bytes are
 * those the commit installs (D3). */
static unsigned char *dlog_bytes(unsigned char *p, uint32_t *op, const dlog_note_t *n,
                                 size_t rs, int collected, const tm_log_range_t *ranges)
{
	*op = OP_PUT;
	if (collected != 0) {
		tm_read_bytes(p, n->rec, rs);
		return p + rs;
	}
	const tm_log_range_t *r = &ranges[n->range];
	if (n->op == OP_PATCH && r->covered < rs) {
		*op = OP_PATCH;
		uint32_t l = (uint32_t)r->len;
		memcpy(p, &l, sizeof l);
		memcpy(p + sizeof l, r->out, r->len);
		return p + sizeof l + r->len;
	}
	if (n->op == OP_PUT)
		memcpy(p, n->rec, rs);
	for (const unsigned char *q = r->out; q < r->out + r->len;) {
		uint32_t h[2];
		memcpy(h, q, sizeof h);
		memcpy(p + h[0], q + TM_LOG_PIECE_HDR, h[1]);
		q += TM_LOG_PIECE_HDR + h[1];
	}
	return p + rs;
}

static void dlog_hook_before(potm_durable_t *log, dlog_worker_t *w, tm_txd_t *d)
{
	if (w == NULL || w->attempt != d->attempt_id || w->nnotes == 0) {
		/* Nothing noted by this attempt: a hook left over. */
		if (w != NULL)
			__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
		d->commit_hook = NULL;
		return;
	}
	/* The transaction record (D3). */
	size_t need;
	int collected = dlog_collect(log, w, &need);
	w->img = dlog_grow(w->img, &w->img_cap, need, 1);
	unsigned char *p = w->img + sizeof(tx_hdr_t);
	for (size_t i = 0; i < w->nnotes; i++) {
		const dlog_note_t *n = &w->notes[i];
		op_hdr_t oh = { n->table, n->op, n->key };
		unsigned char *hdr = p;
		p += sizeof oh;
		if (n->op != OP_DEL)
			p = dlog_bytes(p, &oh.op, n, log->tables[n->table]->record_size, collected,
			               w->ranges);
		memcpy(hdr, &oh, sizeof oh);
	}
	w->img_len = (size_t)(p - w->img);
	/* D1: announce, then read the bound. */
	__atomic_store_n(&w->busy, BUSY_PENDING, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&w->busy, dlog_lower_bound(), __ATOMIC_SEQ_CST);
}

static void dlog_hook_after(potm_durable_t *log, dlog_worker_t *w, tm_txd_t *d, int read_only)
{
	d->commit_hook = NULL;
	/* A failed log takes nothing more (D6): buffers would only grow. */
	if (w->attempt == d->attempt_id && w->nnotes != 0 && !read_only &&
	    !__atomic_load_n(&log->failed, __ATOMIC_RELAXED)) {
		uint64_t stamp = dlog_commit_stamp();
		tx_hdr_t th = { stamp, (uint32_t)w->nnotes, (uint32_t)w->img_len };
		memcpy(w->img, &th, sizeof th);
		pthread_mutex_lock(&w->mu);
		w->buf = dlog_grow(w->buf, &w->cap,
		                   w->len + w->img_len > DLOG_BUF_MIN ? w->len + w->img_len
		                                                      : DLOG_BUF_MIN, 1);
		memcpy(w->buf + w->len, w->img, w->img_len);
		w->len += w->img_len;
		if (stamp > w->max_stamp)
			w->max_stamp = stamp;
		pthread_mutex_unlock(&w->mu);
		w->last_stamp = stamp;
	}
	w->nnotes = 0;
	__atomic_store_n(&w->busy, 0, __ATOMIC_SEQ_CST);   /* D2: after the append */
}

static void dlog_hook(tm_txd_t *d, int phase, int read_only)
{
	potm_durable_t *log = dlog_current;
	dlog_worker_t *w = log != NULL && dlog_me_gen == log->generation ? dlog_me : NULL;
	if (phase == TM_COMMIT_HOOK_BEFORE) {
		dlog_hook_before(log, w, d);
	} else if (phase == TM_COMMIT_HOOK_ENDED) {
		/* D1: an attempt that will not commit announces nothing. */
		if (w != NULL) {
			w->nnotes = 0;
			__atomic_store_n(&w->busy, 0, __ATOMIC_SEQ_CST);
		}
		d->commit_hook = NULL;
	} else if (w != NULL) {
		dlog_hook_after(log, w, d, read_only);
	} else {
		d->commit_hook = NULL;
	}
}

uint64_t potm_durable_last_stamp(void)
{
	potm_durable_t *log = dlog_current;
	/* Once the log has failed, the caller's last commit may be one it
	 * did not take (D6), while the last one it took may be durable:
	 * answering that one's stamp would let the caller acknowledge a
	 * commit that is on no disk.  No stamp is durable any more. */
	if (log != NULL && __atomic_load_n(&log->failed, __ATOMIC_ACQUIRE))
		return UINT64_MAX;
	return log != NULL && dlog_me != NULL && dlog_me_gen == log->generation
		? dlog_me->last_stamp : 0;
}

/* ---- writing ----------------------------------------------------------------- */

/* Fail the log (D6): record why, cut a partial block off, wake the
 * waiters.  Called with log->mu held. */
static void dlog_fail(potm_durable_t *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void dlog_fail(potm_durable_t *log, const char *fmt, ...)
{
	if (log->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(log->error, sizeof log->error, fmt, ap);
	va_end(ap);
	if (log->fd >= 0 && ftruncate(log->fd, (off_t)log->off) == 0)
		(void)fdatasync(log->fd);
	__atomic_store_n(&log->failed, 1, __ATOMIC_RELEASE);
	dlog_say(log, "%s; logging stopped at durable stamp %llu", log->error,
	         (unsigned long long)log->durable);
	pthread_cond_broadcast(&log->cv);
}

static int dlog_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(fd, c, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Append one block; 0, or -1 with the log failed.  log->mu held. */
static int dlog_block(potm_durable_t *log, uint32_t type, const void *payload, size_t len)
{
	if (log->failed)
		return -1;
	if (len > BLOCK_MAX) {
		dlog_fail(log, "%s/log.%u: a block of %zu bytes is too large", log->dir,
		          log->file_no, len);
		return -1;
	}
	blk_hdr_t h = { DLOG_MAGIC, type, (uint32_t)len, blk_crc(type, (uint32_t)len, payload) };
	uint64_t end = log->off + sizeof h + len;
	if (log->max_bytes != 0 && type != BLK_CKPT_BEGIN && type != BLK_CKPT_DATA &&
	    type != BLK_CKPT_END && end - log->ckpt_end > log->max_bytes) {
		dlog_fail(log, "%s/log.%u: the log is full (its limit is %llu bytes past the "
		          "checkpoint)", log->dir, log->file_no, (unsigned long long)log->max_bytes);
		return -1;
	}
	if (dlog_write_all(log->fd, &h, sizeof h) != 0 ||
	    dlog_write_all(log->fd, payload, len) != 0) {
		int e = errno;
		dlog_fail(log, "%s/log.%u: write failed: %s%s", log->dir, log->file_no,
		          strerror(e), e == ENOSPC ? " (the disk is full)" : "");
		return -1;
	}
	log->off = end;
	return 0;
}

static int dlog_sync(potm_durable_t *log)
{
	if (log->failed)
		return -1;
	if (fdatasync(log->fd) != 0) {
		dlog_fail(log, "%s/log.%u: fdatasync failed: %s", log->dir, log->file_no,
		          strerror(errno));
		return -1;
	}
	return 0;
}

/* One round of the logger (D1-D4; quiescent: D8).  log->mu held. */
static void dlog_round(potm_durable_t *log, bool quiescent)
{
	if (log->failed)
		return;
	uint64_t bound = dlog_lower_bound();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (dlog_worker_t *w = log->workers; w != NULL; w = w->next) {
		uint64_t b;
		while ((b = __atomic_load_n(&w->busy, __ATOMIC_SEQ_CST)) == BUSY_PENDING)
			sched_yield();
		if (b != 0 && b < bound)
			bound = b;
	}
	uint64_t d = bound - 1;
	bool wrote = false;
	for (dlog_worker_t *w = log->workers; w != NULL; w = w->next) {
		pthread_mutex_lock(&w->mu);
		if (quiescent && w->max_stamp > d)
			d = w->max_stamp;
		unsigned char *b = w->buf;
		size_t len = w->len, cap = w->cap;
		w->buf = log->spare;
		w->cap = log->spare_cap;
		w->len = 0;
		pthread_mutex_unlock(&w->mu);
		log->spare = b;
		log->spare_cap = cap;
		if (len == 0)
			continue;
		if (dlog_block(log, BLK_TX, b, len) != 0)
			return;
		wrote = true;
	}
	if (d > log->marked) {
		if (dlog_block(log, BLK_MARK, &d, sizeof d) != 0)
			return;
		log->marked = d;
		wrote = true;
	}
	if (wrote && dlog_sync(log) != 0)
		return;
	if (log->marked > log->durable) {
		__atomic_store_n(&log->durable, log->marked, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&log->cv);
	}
}

static void *dlog_main(void *arg)
{
	potm_durable_t *log = arg;
	pthread_mutex_lock(&log->mu);
	while (!log->stop) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		uint64_t ns = (uint64_t)t.tv_nsec + (uint64_t)log->period_ms * 1000000u;
		t.tv_sec += (time_t)(ns / 1000000000u);
		t.tv_nsec = (long)(ns % 1000000000u);
		int rc = 0;
		while (!log->stop && !log->kick && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&log->cv, &log->mu, &t);
		log->kick = false;
		dlog_round(log, false);
	}
	dlog_round(log, true);    /* closing: nothing commits any more (D8) */
	pthread_mutex_unlock(&log->mu);
	return NULL;
}

/* ---- checkpoints ------------------------------------------------------------- */

typedef struct ckpt_ctx {
	potm_durable_t *log;
	unsigned char *buf;
	size_t len, cap;
	uint32_t table;
	size_t rs;
	uint64_t records;
} ckpt_ctx_t;

static int ckpt_flush(ckpt_ctx_t *c)
{
	if (c->len == 0)
		return 0;
	int rc = dlog_block(c->log, BLK_CKPT_DATA, c->buf, c->len);
	c->len = 0;
	return rc;
}

static int ckpt_visit(uint64_t key, void *rec, void *arg)
{
	ckpt_ctx_t *c = arg;
	size_t need = sizeof(op_hdr_t) + c->rs;
	if (c->len + need > CKPT_DATA_MAX && ckpt_flush(c) != 0)
		return -1;
	c->buf = dlog_grow(c->buf, &c->cap, c->len + need, 1);
	op_hdr_t oh = { c->table, OP_PUT, key };
	memcpy(c->buf + c->len, &oh, sizeof oh);
	memcpy(c->buf + c->len + sizeof oh, rec, c->rs);
	c->len += need;
	c->records++;
	return 0;
}

static char *dlog_path(const char *dir, unsigned no)
{
	size_t n = strlen(dir) + 32;
	char *p = malloc(n);
	if (p != NULL)
		snprintf(p, n, "%s/log.%06u", dir, no);
	return p;
}

static int dlog_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* The numbers of dir's log files, ascending; -1 on an error. */
static int dlog_list(const char *dir, unsigned **nos, size_t *n)
{
	*nos = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		unsigned no;
		char tail;
		if (sscanf(e->d_name, "log.%u%c", &no, &tail) != 1)
			continue;
		*nos = dlog_grow(*nos, &cap, *n + 1, sizeof **nos);
		(*nos)[(*n)++] = no;
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && (*nos)[j - 1] > (*nos)[j]; j--) {
			unsigned x = (*nos)[j];
			(*nos)[j] = (*nos)[j - 1];
			(*nos)[j - 1] = x;
		}
	return 0;
}

/* D7: a new file with a checkpoint, synced, then the older files
 * removed.  log->mu held; the previous file (if any) is complete. */
static int dlog_new_file(potm_durable_t *log)
{
	unsigned *nos;
	size_t n;
	if (dlog_list(log->dir, &nos, &n) != 0)
		return potm_error("potm_durable: cannot list %s: %s", log->dir, strerror(errno));
	unsigned no = n > 0 ? nos[n - 1] + 1 : 1;
	char *path = dlog_path(log->dir, no);
	int fd = path != NULL ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (fd < 0) {
		int e = errno;
		free(nos);
		potm_error("potm_durable: cannot create %s: %s", path ? path : log->dir,
		           strerror(e));
		free(path);
		return -1;
	}
	if (log->fd >= 0)
		close(log->fd);
	log->fd = fd;
	log->file_no = no;
	log->off = 0;
	log->ckpt_end = 0;
	/* durable and marked go on: stamps are the process's, and every
	 * commit logged into this file is above them (D7). */
	/* CKPT_BEGIN: the tables' record sizes, so that recovery checks it
	 * fills the same tables. */
	uint32_t *sizes = malloc((log->ntables + 1) * sizeof *sizes);
	if (sizes == NULL)
		store_abort("potm durable", "out of memory");
	sizes[0] = log->ntables;
	for (unsigned i = 0; i < log->ntables; i++)
		sizes[i + 1] = (uint32_t)log->tables[i]->record_size;
	int rc = dlog_block(log, BLK_CKPT_BEGIN, sizes, (log->ntables + 1) * sizeof *sizes);
	free(sizes);
	ckpt_ctx_t c = { .log = log };
	for (unsigned i = 0; rc == 0 && i < log->ntables; i++) {
		c.table = i;
		c.rs = log->tables[i]->record_size;
		rc = store_walk(log->tables[i], ckpt_visit, &c);
	}
	if (rc == 0)
		rc = ckpt_flush(&c);
	free(c.buf);
	if (rc == 0)
		rc = dlog_block(log, BLK_CKPT_END, &c.records, sizeof c.records);
	if (rc == 0)
		rc = dlog_sync(log);
	if (rc == 0 && dlog_sync_dir(log->dir) != 0) {
		dlog_fail(log, "%s: fsync of the directory failed: %s", log->dir, strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		free(nos);
		free(path);
		return potm_error("potm_durable: checkpoint into %s/log.%06u failed: %s", log->dir,
		                  no, log->error);
	}
	log->ckpt_end = log->off;
	/* Its state is now recoverable from this file alone: the old go. */
	for (size_t i = 0; i < n; i++) {
		char *old = dlog_path(log->dir, nos[i]);
		if (old != NULL)
			(void)unlink(old);
		free(old);
	}
	(void)dlog_sync_dir(log->dir);
	free(nos);
	free(path);
	return 0;
}

/* ---- the API ----------------------------------------------------------------- */

potm_durable_t *potm_durable_open(const potm_durable_opts_t *o, store_table_t *const *tables,
                                  unsigned n)
{
	pthread_once(&crc_once, crc_init);
	if (o == NULL || o->dir == NULL || tables == NULL || n == 0) {
		potm_error("potm_durable_open: %s", o == NULL ? "opts is NULL" :
		           o->dir == NULL ? "opts->dir is NULL" : "no tables");
		return NULL;
	}
	if (!DLOG_SUPPORTED) {
		potm_error("potm_durable_open: the %s backend has no commit stamps for the redo "
		           "log (silo, tl2 and seq have)", tm_backend_name());
		return NULL;
	}
	if (dlog_current != NULL) {
		potm_error("potm_durable_open(\"%s\"): a log is already open (one per process)",
		           o->dir);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++)
		if (tables[i] == NULL || tables[i]->log_id != 0) {
			potm_error("potm_durable_open(\"%s\"): table %u is %s", o->dir, i,
			           tables[i] == NULL ? "NULL" : "given twice");
			return NULL;
		}
	if (mkdir(o->dir, 0755) != 0 && errno != EEXIST) {
		potm_error("potm_durable_open: cannot create %s: %s", o->dir, strerror(errno));
		return NULL;
	}
	potm_durable_t *log = calloc(1, sizeof *log);
	if (log == NULL || (log->dir = strdup(o->dir)) == NULL ||
	    (log->tables = malloc(n * sizeof *log->tables)) == NULL) {
		if (log != NULL) {
			free(log->dir);
			free(log);
		}
		potm_error("potm_durable_open: out of memory");
		return NULL;
	}
	memcpy(log->tables, tables, n * sizeof *tables);
	log->ntables = n;
	log->period_ms = o->period_ms ? o->period_ms : 10;
	log->max_bytes = o->max_bytes;
	log->quiet = o->quiet;
	log->fd = -1;
	pthread_mutex_init(&log->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&log->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_lock(&log->mu);
	int rc = dlog_new_file(log);
	pthread_mutex_unlock(&log->mu);
	if (rc == 0) {
		rc = pthread_create(&log->thread, NULL, dlog_main, log);
		if (rc != 0)
			rc = potm_error("potm_durable_open: cannot start the logger: %s",
			                strerror(rc));
	}
	if (rc != 0) {
		if (log->fd >= 0)
			close(log->fd);
		pthread_cond_destroy(&log->cv);
		pthread_mutex_destroy(&log->mu);
		free(log->tables);
		free(log->dir);
		free(log);
		return NULL;
	}
	log->running = true;
	log->generation = ++dlog_generation;
	for (unsigned i = 0; i < n; i++)
		tables[i]->log_id = i + 1;
	__atomic_store_n(&dlog_current, log, __ATOMIC_RELEASE);
	return log;
}

int potm_durable_close(potm_durable_t *log)
{
	if (log == NULL)
		return 0;
	pthread_mutex_lock(&log->mu);
	log->stop = true;
	pthread_cond_broadcast(&log->cv);
	pthread_mutex_unlock(&log->mu);
	pthread_join(log->thread, NULL);   /* its last round writes the rest */
	__atomic_store_n(&dlog_current, NULL, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < log->ntables; i++)
		log->tables[i]->log_id = 0;
	int rc = 0;
	if (log->failed)
		rc = potm_error("potm_durable_close(\"%s\"): %s", log->dir, log->error);
	if (log->fd >= 0 && close(log->fd) != 0 && rc == 0)
		rc = potm_error("potm_durable_close(\"%s\"): close: %s", log->dir, strerror(errno));
	dlog_worker_t *w = log->workers;
	while (w != NULL) {
		dlog_worker_t *next = w->next;
		pthread_mutex_destroy(&w->mu);
		free(w->buf);
		free(w->notes);
		free(w->img);
		free(w->ranges);
		free(w->pieces);
		free(w->slots);
		free(w);
		w = next;
	}
	free(log->spare);
	pthread_cond_destroy(&log->cv);
	pthread_mutex_destroy(&log->mu);
	free(log->tables);
	free(log->dir);
	free(log);
	return rc;
}

int potm_durable_checkpoint(potm_durable_t *log)
{
	pthread_mutex_lock(&log->mu);
	dlog_round(log, true);    /* the old file gets every commit so far (D8) */
	int rc = log->failed ? potm_error("potm_durable_checkpoint(\"%s\"): %s", log->dir,
	                                  log->error)
	                     : dlog_new_file(log);
	pthread_cond_broadcast(&log->cv);
	pthread_mutex_unlock(&log->mu);
	return rc;
}

uint64_t potm_durable_stamp(const potm_durable_t *log)
{
	return __atomic_load_n(&log->durable, __ATOMIC_ACQUIRE);
}

int potm_durable_wait(potm_durable_t *log, uint64_t stamp)
{
	if (potm_durable_stamp(log) >= stamp)
		return 0;
	pthread_mutex_lock(&log->mu);
	log->kick = true;          /* a waiter need not sit out the period */
	pthread_cond_broadcast(&log->cv);
	while (log->durable < stamp && !log->failed)
		pthread_cond_wait(&log->cv, &log->mu);
	int rc = log->durable >= stamp ? 0 : potm_error("potm_durable_wait: %s", log->error);
	pthread_mutex_unlock(&log->mu);
	return rc;
}

int potm_durable_failed(const potm_durable_t *log)
{
	return __atomic_load_n(&log->failed, __ATOMIC_ACQUIRE);
}

const char *potm_durable_error(const potm_durable_t *log)
{
	return potm_durable_failed(log) ? log->error : "";
}

/* ---- recovery ---------------------------------------------------------------- */

typedef struct rec_tx {
	uint64_t stamp;
	size_t seq;                /* log order: a tie-breaker for qsort */
	const unsigned char *p;    /* its tx_hdr_t */
} rec_tx_t;

static int rec_tx_cmp(const void *a, const void *b)
{
	const rec_tx_t *x = a, *y = b;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct rec_ctx {
	const char *path;
	store_table_t *const *tables;
	unsigned n;
} rec_ctx_t;

/* Apply an OP_PATCH's pieces to the record under key, which its insert
 * (a stamp below, D3) or the checkpoint made. */
static int rec_patch(store_table_t *t, uint64_t key, const unsigned char **pp,
                     const unsigned char *end)
{
	uint32_t len;
	if ((size_t)(end - *pp) < sizeof len)
		return -1;
	memcpy(&len, *pp, sizeof len);
	const unsigned char *q = *pp + sizeof len;
	if ((size_t)(end - q) < len)
		return -1;
	const unsigned char *qend = q + len;
	unsigned char *rec = len != 0 ? store_get(t, key) : NULL;
	if (len != 0 && rec == NULL)
		return -1;
	if (len != 0)
		store_touch_guard(t, rec);   /* G1 */
	while (q < qend) {
		uint32_t h[2];
		if ((size_t)(qend - q) < TM_LOG_PIECE_HDR)
			return -1;
		memcpy(h, q, sizeof h);
		q += TM_LOG_PIECE_HDR;
		if (h[1] == 0 || h[0] > t->record_size || h[1] > t->record_size - h[0] ||
		    (size_t)(qend - q) < h[1])
			return -1;
		store_write_bytes(rec + h[0], q, h[1]);
		q += h[1];
	}
	*pp = qend;
	return 0;
}

/* Apply one operation (inside the caller's transaction). */
static int rec_apply(const rec_ctx_t *c, const unsigned char **pp, const unsigned char *end)
{
	op_hdr_t oh;
	if ((size_t)(end - *pp) < sizeof oh)
		return -1;
	memcpy(&oh, *pp, sizeof oh);
	*pp += sizeof oh;
	if (oh.table >= c->n || (oh.op != OP_PUT && oh.op != OP_DEL && oh.op != OP_PATCH))
		return -1;
	store_table_t *t = c->tables[oh.table];
	if (oh.op == OP_DEL) {
		store_delete(t, oh.key);
		return 0;
	}
	if (oh.op == OP_PATCH)
		return rec_patch(t, oh.key, pp, end);
	if ((size_t)(end - *pp) < t->record_size)
		return -1;
	void *rec = store_get(t, oh.key);
	if (rec != NULL) {
		store_touch_guard(t, rec);   /* G1 */
		store_write_bytes(rec, *pp, t->record_size);
	} else
		store_insert(t, oh.key, *pp);
	*pp += t->record_size;
	return 0;
}

/* Apply up to max operations from *pp (stopping at end) in one
 * transaction; *pp moves past them.  0, or -1 on a malformed one.  The
 * body starts over from the caller's values if the attempt restarts. */
static int rec_batch(const rec_ctx_t *c, const unsigned char **pp, const unsigned char *end,
                     uint32_t max)
{
	const unsigned char *start = *pp;
	volatile int bad = 0;   /* set inside the body, read after it */
	volatile int *badp = &bad;
	TM_BEGIN();
	const unsigned char *q = start;
	*badp = 0;
	for (uint32_t k = 0; k < max && q < end && *badp == 0; k++)
		*badp = rec_apply(c, &q, end);
	*pp = q;
	TM_END();
	return bad;
}

/* Parse log file path (its bytes in buf[0..size)): the blocks up to the
 * first bad one (D5).  -1: no complete checkpoint; else 0 with *good the
 * end of the last whole block. */
static int rec_scan(const rec_ctx_t *c, const unsigned char *buf, size_t size, size_t *good,
                    const char **why, rec_tx_t **txs, size_t *ntx, uint64_t *durable,
                    uint64_t *ckpt_records)
{
	size_t off = 0, cap = 0;
	int state = 0;             /* 0: want CKPT_BEGIN, 1: in it, 2: after CKPT_END */
	*ntx = 0;
	*durable = 0;
	*why = NULL;
	while (off < size) {
		blk_hdr_t h;
		if (size - off < sizeof h) {
			*why = "a short block header";
			break;
		}
		memcpy(&h, buf + off, sizeof h);
		if (h.magic != DLOG_MAGIC) {
			*why = "a bad block magic";
			break;
		}
		if (h.len > size - off - sizeof h) {
			*why = "a short block";
			break;
		}
		const unsigned char *pl = buf + off + sizeof h;
		if (blk_crc(h.type, h.len, pl) != h.crc) {
			*why = "a bad checksum";
			break;
		}
		if (state == 0 && h.type != BLK_CKPT_BEGIN) {
			*why = "no checkpoint at the start";
			break;
		}
		if (h.type == BLK_CKPT_BEGIN) {
			if (state != 0) {
				*why = "a second checkpoint";
				break;
			}
			uint32_t nt;
			if (h.len < 4 || (memcpy(&nt, pl, 4), nt != c->n) || h.len != 4 * (nt + 1)) {
				return potm_error("potm_durable_recover: %s logs %u tables, %u given",
				                  c->path, h.len >= 4 ? nt : 0, c->n);
			}
			for (unsigned i = 0; i < c->n; i++) {
				uint32_t rs;
				memcpy(&rs, pl + 4 * (i + 1), 4);
				if (rs != c->tables[i]->record_size)
					return potm_error("potm_durable_recover: %s: table %u (\"%s\") has "
					                  "records of %u bytes in the log, %zu given",
					                  c->path, i, c->tables[i]->name, rs,
					                  c->tables[i]->record_size);
			}
			state = 1;
		} else if (h.type == BLK_CKPT_DATA && state == 1) {
			/* applied later, once the checkpoint is known complete */
		} else if (h.type == BLK_CKPT_END && state == 1 && h.len == 8) {
			memcpy(ckpt_records, pl, 8);
			state = 2;
		} else if (h.type == BLK_TX && state == 2) {
			const unsigned char *p = pl, *e = pl + h.len;
			while (p < e) {
				tx_hdr_t th;
				if ((size_t)(e - p) < sizeof th ||
				    (memcpy(&th, p, sizeof th), th.bytes < sizeof th) ||
				    th.bytes > (size_t)(e - p))
					return potm_error("potm_durable_recover: %s: a malformed "
					                  "transaction record at offset %zu", c->path,
					                  (size_t)(p - buf));
				*txs = dlog_grow(*txs, &cap, *ntx + 1, sizeof **txs);
				(*txs)[*ntx] = (rec_tx_t){ th.stamp, *ntx, p };
				(*ntx)++;
				p += th.bytes;
			}
		} else if (h.type == BLK_MARK && state == 2 && h.len == 8) {
			uint64_t d;
			memcpy(&d, pl, 8);
			if (d > *durable)
				*durable = d;
		} else {
			*why = "an unexpected block";
			break;
		}
		off += sizeof h + h.len;
	}
	*good = off;
	return state == 2 ? 0 : 1;
}

static unsigned char *rec_read(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	unsigned char *buf = NULL;
	if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		*size = got;
	}
	close(fd);
	return buf;
}

/* Apply CKPT_DATA blocks and then the transactions up to durable (D3). */
static int rec_apply_all(const rec_ctx_t *c, const unsigned char *buf, size_t good,
                         rec_tx_t *txs, size_t ntx, uint64_t durable, potm_durable_info_t *info)
{
	size_t off = 0;
	while (off < good) {
		blk_hdr_t h;
		memcpy(&h, buf + off, sizeof h);
		const unsigned char *p = buf + off + sizeof h, *e = p + h.len;
		if (h.type == BLK_CKPT_END)
			break;
		if (h.type == BLK_CKPT_DATA) {
			while (p < e)   /* a batch of records per transaction */
				if (rec_batch(c, &p, e, 64) != 0)
					return potm_error("potm_durable_recover: %s: a malformed checkpoint "
					                  "record", c->path);
		}
		off += sizeof h + h.len;
	}
	qsort(txs, ntx, sizeof *txs, rec_tx_cmp);
	for (size_t i = 0; i < ntx; i++) {
		if (txs[i].stamp > durable) {
			info->discarded++;
			continue;
		}
		tx_hdr_t th;
		memcpy(&th, txs[i].p, sizeof th);
		const unsigned char *q = txs[i].p + sizeof th;
		if (rec_batch(c, &q, txs[i].p + th.bytes, th.nops) != 0)
			return potm_error("potm_durable_recover: %s: a malformed transaction record "
			                  "(stamp %llu)", c->path, (unsigned long long)txs[i].stamp);
		info->transactions++;
	}
	return 0;
}

int potm_durable_recover(const char *dir, store_table_t *const *tables, unsigned n,
                         int quiet, potm_durable_info_t *info_out)
{
	pthread_once(&crc_once, crc_init);
	potm_durable_info_t info;
	memset(&info, 0, sizeof info);
	if (dir == NULL || tables == NULL || n == 0)
		return potm_error("potm_durable_recover: %s", dir == NULL ? "dir is NULL"
		                                                         : "no tables");
	if (dlog_current != NULL)
		return potm_error("potm_durable_recover(\"%s\"): a log is open", dir);
	for (unsigned i = 0; i < n; i++)
		if (tables[i] == NULL || store_count(tables[i]) != 0)
			return potm_error("potm_durable_recover(\"%s\"): table %u is %s", dir, i,
			                  tables[i] == NULL ? "NULL" : "not empty");
	unsigned *nos;
	size_t nf;
	if (dlog_list(dir, &nos, &nf) != 0)
		return potm_error("potm_durable_recover: cannot read %s: %s", dir, strerror(errno));
	if (nf == 0) {
		free(nos);
		return potm_error("potm_durable_recover: no log in %s (no log.<n> file)", dir);
	}
	potm_durable_t q = { .quiet = quiet };
	int rc = 1;
	/* The newest file with a complete checkpoint (D7). */
	for (size_t f = nf; f-- > 0 && rc == 1;) {
		char *path = dlog_path(dir, nos[f]);
		size_t size = 0;
		unsigned char *buf = path != NULL ? rec_read(path, &size) : NULL;
		if (buf == NULL) {
			rc = potm_error("potm_durable_recover: cannot read %s: %s",
			                path ? path : dir, strerror(errno));
			free(path);
			break;
		}
		rec_ctx_t c = { path, tables, n };
		rec_tx_t *txs = NULL;
		size_t ntx = 0, good = 0;
		const char *why = NULL;
		uint64_t durable = 0, ckpt = 0;
		rc = rec_scan(&c, buf, size, &good, &why, &txs, &ntx, &durable, &ckpt);
		if (rc == 1) {
			dlog_say(&q, "%s: no complete checkpoint (%s at offset %zu); trying the "
			         "previous file", path, why ? why : "the end of the file", good);
		} else if (rc == 0) {
			if (why != NULL) {
				info.torn_bytes = size - good;
				dlog_say(&q, "%s: torn tail at offset %zu (%s): %zu bytes cut off; "
				         "recovering up to durable stamp %llu", path, good, why,
				         size - good, (unsigned long long)durable);
				int fd = open(path, O_WRONLY | O_CLOEXEC);
				if (fd < 0 || ftruncate(fd, (off_t)good) != 0 || fdatasync(fd) != 0)
					dlog_say(&q, "%s: cannot cut the tail off: %s", path,
					         strerror(errno));
				if (fd >= 0)
					close(fd);
			}
			info.file = nos[f];
			info.checkpoint_records = ckpt;
			info.durable_stamp = durable;
			rc = rec_apply_all(&c, buf, good, txs, ntx, durable, &info);
		}
		free(txs);
		free(buf);
		free(path);
	}
	free(nos);
	if (rc == 1)
		rc = potm_error("potm_durable_recover: no log file in %s has a complete checkpoint",
		                dir);
	if (rc == 0 && info_out != NULL)
		*info_out = info;
	return rc == 0 ? 0 : -1;
}
