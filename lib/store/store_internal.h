/*
 * lib/store/store_internal.h — what the record store's files share: the
 * record header, the B+-tree's node layout, the hash index, the table and
 * index structs.  No interface: programs use <potm/store.h>.
 *
 * Which fields are accessed how (the rules of <potm/tm.h>):
 *  - Mutable shared fields (a node's permutation word, keys and
 *    pointers, a tree's root, a bucket head, a record's chain link, the
 *    record bytes) are read and written inside transactions through the
 *    typed accesses only.
 *  - Frozen fields (a record's key, a node's level, everything in the
 *    table and index structs but the roots) are written before their
 *    object is published and never after, so transactions read them
 *    directly once they hold a pointer to the object.
 *  - A block the transaction allocated and has not yet published (a new
 *    record, the new half of a split, a new root) is filled with plain
 *    stores; once it is published every further access is transactional.
 *  - The quiescent calls (digest, count, check, destroy, index creation)
 *    use plain reads: no transaction runs on the table meanwhile.
 */
#ifndef POTM_STORE_INTERNAL_H
#define POTM_STORE_INTERNAL_H

#ifdef POTM_PRIVATE_ACCESS
/*
 * The private store (private.c compiles these files a second time with
 * POTM_PRIVATE_ACCESS): the same tables, indexes and invariants, but every
 * access to a table's contents is a plain load or store, its blocks come
 * from malloc and go back with free at once, and no call needs a
 * transaction.  A private table is owned by one thread at a time (a DORA
 * executor), which alone reads and writes it; handing it to another
 * thread needs a happens-before edge (DORA's quiescence, Q1 in dora.c).
 * Its functions are the public ones renamed store_private_* (and the
 * internal ones likewise, so both copies link into one program).
 */
#define store_table_create store_private_table_create
#define store_table_destroy store_private_table_destroy
#define store_index_create store_private_index_create
#define store_table_name store_private_table_name
#define store_record_size store_private_record_size
#define store_get store_private_get
#define store_insert store_private_insert
#define store_delete store_private_delete
#define store_key_of store_private_key_of
#define store_update store_private_update_   /* nothing to log: no public name */
#define store_scan store_private_scan
#define store_first store_private_first
#define store_last store_private_last
#define store_index_get store_private_index_get
#define store_index_scan store_private_index_scan
#define store_index_first store_private_index_first
#define store_index_last store_private_index_last
#define store_read_bytes store_private_read_bytes
#define store_write_bytes store_private_write_bytes
#define store_read_record store_private_read_record
#define store_write_record store_private_write_record
#define store_read_fields store_private_read_fields
#define store_digest store_private_digest
#define store_walk store_private_walk
#define store_count store_private_count
#define store_check store_private_check
#define store_table_seal store_private_table_seal_
#define store_table_sealed store_private_table_sealed_
#define store_abort store_private_abort_
#define btree_init store_private_btree_init_
#define btree_destroy store_private_btree_destroy_
#define btree_get store_private_btree_get_
#define btree_insert store_private_btree_insert_
#define btree_delete store_private_btree_delete_
#define btree_scan store_private_btree_scan_
#define btree_edge store_private_btree_edge_
#define btree_count store_private_btree_count_
#define btree_walk store_private_btree_walk_
#define btree_check store_private_btree_check_
#define btree_is_empty_root store_private_btree_is_empty_root_
#define hash_init store_private_hash_init_
#define hash_destroy store_private_hash_destroy_
#define hash_bucket_of store_private_hash_bucket_of_
#define hash_get store_private_hash_get_
#define hash_insert store_private_hash_insert_
#define hash_delete store_private_hash_delete_
#define hash_walk store_private_hash_walk_
#define hash_check store_private_hash_check_
#endif

#include <potm/store.h>
#include <potm/tm.h>

#ifdef POTM_PRIVATE_ACCESS
#include <stdlib.h>
#include <string.h>
/* Plain accesses in place of the backend's: the owner thread is the only
 * one touching the table (see above). */
#undef TM_LOAD
#undef TM_STORE
#define TM_LOAD(p) (*(p))
#define TM_STORE(p, v) ((void)(*(p) = (v)))
#undef tm_read_u64
#undef tm_write_u64
#undef tm_write_u8
#undef tm_read_bytes
#undef tm_write_bytes
#undef tm_malloc
#undef tm_free
#define tm_read_u64(p) (*(const uint64_t *)(p))
#define tm_write_u64(p, v) ((void)(*(uint64_t *)(p) = (v)))
#define tm_write_u8(p, v) ((void)(*(uint8_t *)(p) = (v)))
#define tm_read_bytes(d, s, n) ((void)memcpy((d), (s), (n)))
#define tm_write_bytes(d, s, n) ((void)memcpy((d), (s), (n)))
#undef tm_read_guarded_
#define tm_read_guarded_(d, s, n, g) ((void)(d), (void)(s), (void)(n), (void)(g), 0) /* tm_read_bytes copies */
#define tm_malloc(n) store_private_malloc_(n)
#define tm_free(p) free(p)
#undef POTM_KEEPS_VERSIONS_   /* nothing to spare: no snapshot reads a private table */
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The library's error recorder (lib/error.c): the message for
 * tm_last_error(); returns -1. */
int potm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define STORE_CACHELINE 64
#define store_unlikely(x) __builtin_expect(!!(x), 0)

/* The store's own functions shared between its files stay inside the
 * library that links them. */
#pragma GCC visibility push(hidden)

/* Report a misuse of the API, or a failure a transaction cannot return
 * (out of memory), on stderr, naming the call, and abort. */
void store_abort(const char *call, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#ifdef POTM_PRIVATE_ACCESS
/* Any thread may call the private store, inside a transaction or not. */
static inline void store_require_tx(const char *call)
{
	(void)call;
}

/* malloc, or the report tm_malloc would make: out of memory aborts. */
static inline void *store_private_malloc_(size_t n)
{
	void *p = malloc(n);
	if (store_unlikely(p == NULL))
		store_abort("store_private", "out of memory (%zu bytes)", n);
	return p;
}
#else
/* Misuse unless the calling thread is inside a transaction. */
static inline void store_require_tx(const char *call)
{
	if (store_unlikely(!tm_in_tx()))
		store_abort(call, "called outside a transaction");
}
#endif

/* ---- records -------------------------------------------------------------
 *
 * One tm_malloc'd block per record: this header, then record_size bytes
 * (malloc's alignment, at least 16, so the bytes are 8-byte aligned).  The
 * API hands out the pointer to the bytes.
 */
typedef struct store_rec_hdr {
	uint64_t key;                  /* primary key; frozen */
	struct store_rec_hdr *next;    /* hash chain (STORE_HASH); TM accesses */
} store_rec_hdr_t;

static inline store_rec_hdr_t *store_hdr_of(const void *rec)
{
	return (store_rec_hdr_t *)rec - 1;
}

static inline void *store_bytes_of(store_rec_hdr_t *h)
{
	return h + 1;
}

/* A table created with record_guard: each record's block has a guard
 * word after its bytes, at the first word boundary (so the bytes'
 * last word is whole, as tm_read_guarded_ reads it).  Invariant G1:
 * every transaction that changes a record's bytes in place writes its
 * guard word (store_update; the log's recovery likewise), so a read
 * under the guard's stripe word that sees it unchanged around a copy of
 * the bytes has copied one committed state of the record. */
static inline size_t store_guard_offset(size_t record_size)
{
	return (record_size + 7) & ~(size_t)7;
}

/* ---- the B+-tree (btree.c) -------------------------------------------------
 *
 * A node is 256 bytes: a permutation word, level, BTREE_FANOUT slots of a
 * key and a pointer.  The entries sit in the slots in no order; the
 * permutation word says which slots hold entries and in what key order,
 * after Masstree's "permuter" (Mao, Kohler and Morris, "Cache craftiness
 * for fast multicore key-value storage"):
 *   bits 0-3        count: the entries (leaf), children (inner)
 *   bits 4r+4..4r+7 the slot of the entry of rank r, r < BTREE_FANOUT
 * The ranks from count on name the free slots, so the word always holds
 * each slot 0..14 once.  An insert into a node with a free slot writes
 * that slot's key and pointer and then the word: three transactional
 * writes wherever the entry goes, instead of shifting the entries after
 * it (up to 30 writes, each a write-set entry under the software TMs); a
 * delete writes the word alone.  A free slot is read by no transaction
 * (no rank below the count names it), so writing it conflicts with
 * readers only through the word, which the insert writes anyway (and
 * through any lock stripe or cache line it shares with live fields).
 *  - Leaf (level 0): the entry of rank r is (key[s], ptr[s]), s the slot
 *    of rank r: ptr[s] is the value stored under key[s] (a record's
 *    bytes).
 *  - Inner (level > 0): count children; the child of rank r is ptr[s] and,
 *    for r >= 1, key[s] is its lower bound: it holds the keys from its
 *    own key up to the next rank's key (child 0 from the node's own lower
 *    bound, the last child up to the node's own upper bound).  The key of
 *    rank 0 means nothing.  Lower bounds only, so the whole uint64_t range
 *    is a key with no sentinel.
 * Invariants (store_check verifies them):
 *  B1: keys ascend strictly by rank within a node; every key of a subtree
 *      lies within the bounds its ancestors' separators give it.
 *  B2: a child's level is its parent's minus one, so every leaf is at the
 *      root's depth.
 *  B3: no node is empty but the root leaf of an empty tree; an inner root
 *      has at least two children.  Non-root nodes may be underfull: a
 *      delete removes only nodes it empties, it never merges (so a delete
 *      writes only along its own path and conflicts only with operations
 *      on the same nodes).
 *  B4: the permutation word names every slot once (ranks 0..14, count at
 *      most BTREE_FANOUT).
 *  B5: a node is made with every pointer NULL, and an entry's pointer is
 *      never NULL: a free slot whose pointer is NULL has held no entry
 *      since the node was made (a delete or a split leaves the stale
 *      entry in the slot it frees).  Its words are then fresh for
 *      tm_write_fresh: no committed permutation word has ranked it, so no
 *      snapshot reads them.
 *  B6: a ranked slot's key and pointer never change while it is ranked:
 *      only a free slot is written, in a transaction that also writes the
 *      node's word.  So a search may read the slots its word ranks with
 *      plain loads between two looks at the word's stripe (access.h's
 *      guarded reads): the same stripe word both times means no commit
 *      changed the node in between (the descents of get, insert, delete
 *      and the start of a scan do; a scan's walk along the leaves reads
 *      through the TM).
 * Nodes are tm_malloc'd, so they have malloc's alignment, not a cache
 * line's: tm_free must get back the very block tm_malloc returned.
 */
#define BTREE_FANOUT 15      /* slots: one 4-bit slot index per rank and a
                                4-bit count fill the permutation word */
#define BTREE_MAX_DEPTH 32   /* levels: a node splits only when full and
                                keeps three free slots at least, so each
                                level has a third of the splits of the one
                                below at most; 32 levels would take some
                                3^30 leaf splits */

typedef struct btree_node {
	uint64_t perm;                  /* count and slots by rank; TM accesses */
	uint64_t level;                 /* 0 for a leaf; frozen */
	uint64_t key[BTREE_FANOUT];
	void *ptr[BTREE_FANOUT];        /* leaf: values; inner: children */
} btree_node_t;

_Static_assert(sizeof(btree_node_t) <= 256, "a B+-tree node fits in 256 bytes");

/* The permutation word of a node with no entries: slot r at rank r. */
#define BTREE_PERM_EMPTY 0xedcba98765432100ull

static inline unsigned btree_perm_count(uint64_t perm)
{
	return (unsigned)(perm & 15);
}

/* The slot of the entry of rank r (r >= count: a free slot). */
static inline unsigned btree_perm_slot(uint64_t perm, unsigned r)
{
	return (unsigned)(perm >> (4 * r + 4)) & 15;
}

/* An insert's shortcut to the leaf of the last insert (btree.c). */
typedef struct btree_finger {
	uint64_t attempt;          /* 0: none */
	const struct btree *tree;
	struct btree_node *leaf;
	uint64_t lo, hi;           /* the leaf's keys lie in [lo, hi] */
	uint64_t perm;             /* the leaf's word as the finger's last
	                              insert wrote it */
	unsigned rank;             /* that insert's rank in perm ... */
	uint64_t key;              /* ... and key */
	uint64_t next;             /* the key of rank + 1, if next_known */
	bool next_known;
} btree_finger_t;

/* A tree: its root pointer alone on a cache line, so that a root change
 * does not disturb hardware transactions reading the frozen fields near
 * it.  The layout is the same in the private compile (a sealed table's
 * lookups run the private code on a transactional table, table.c). */
typedef struct btree {
	btree_node_t *root __attribute__((aligned(STORE_CACHELINE)));
	/* A private tree's finger lives in the tree: its one owner makes
	 * every change, so a split or delete drops it wherever the tree's
	 * owner moves (a per-thread finger would survive on the former owner
	 * and go stale).  A transactional tree's finger is the thread's;
	 * this one stays unused. */
	btree_finger_t finger __attribute__((aligned(STORE_CACHELINE)));
} btree_t;

/* Visit one entry of a scan: non-zero stops it. */
typedef int (*btree_visit_fn)(uint64_t key, void *val, void *arg);

/* Setup and teardown (outside transactions; plain accesses). */
int btree_init(btree_t *bt);
void btree_destroy(btree_t *bt, void (*free_val)(void *val));

/* Inside a transaction. */
void *btree_get(btree_t *bt, uint64_t key);
/* Insert (key, val); false (nothing changed) if key is present. */
bool btree_insert(btree_t *bt, uint64_t key, void *val);
/* Remove key; its value, or NULL if it was absent. */
void *btree_delete(btree_t *bt, uint64_t key);
size_t btree_scan(btree_t *bt, uint64_t lo, uint64_t hi, int dir,
                  btree_visit_fn fn, void *arg);
/* The value with the smallest (dir STORE_ASC) or largest (STORE_DESC) key
 * in [lo, hi], its key in *key; NULL if none. */
void *btree_edge(btree_t *bt, uint64_t lo, uint64_t hi, int dir, uint64_t *key);

/* Quiescent (plain reads). */
size_t btree_count(const btree_t *bt);
/* Visit every entry in ascending order; non-zero from fn stops. */
int btree_walk(const btree_t *bt, int (*fn)(uint64_t key, void *val, void *arg), void *arg);
/* B1-B4; 0, or -1 with potm_error naming what (prefixed with what). */
int btree_check(const btree_t *bt, const char *what);
bool btree_is_empty_root(const btree_t *bt);

/* ---- the hash index (hash.c) ------------------------------------------- */

typedef struct hash_index {
	store_rec_hdr_t **bucket;   /* the heads; frozen pointer, TM heads */
	uint64_t mask;              /* buckets - 1 (a power of two); frozen */
} hash_index_t;

/* Setup and teardown (outside transactions). */
int hash_init(hash_index_t *h, size_t capacity, const char *table);
void hash_destroy(hash_index_t *h);

/* The bucket of a key: a 64-bit mix, then the low bits. */
uint64_t hash_bucket_of(const hash_index_t *h, uint64_t key);

/* Inside a transaction. */
store_rec_hdr_t *hash_get(hash_index_t *h, uint64_t key);
/* Link a new, unpublished record (its key set) at its bucket's head; false
 * (nothing changed) if its key is present. */
bool hash_insert(hash_index_t *h, store_rec_hdr_t *r);
/* Unlink the record under key; it, or NULL if absent. */
store_rec_hdr_t *hash_delete(hash_index_t *h, uint64_t key);

/* Quiescent (plain reads). */
int hash_walk(const hash_index_t *h, int (*fn)(store_rec_hdr_t *r, void *arg), void *arg);
int hash_check(const hash_index_t *h, const char *table);

/* ---- tables and secondary indexes (table.c) ------------------------------ */

struct store_index {
	btree_t tree;               /* secondary key -> record bytes */
	store_table_t *table;       /* frozen, as the rest below */
	store_key_fn key;
	char *name;
	store_index_t *next;        /* the table's next index */
};

struct store_table {
	btree_t tree;               /* STORE_ORDERED: primary key -> bytes */
	hash_index_t hash;          /* STORE_HASH */
	store_kind_t kind;          /* frozen, as the rest below */
	size_t record_size;
	char *name;
	store_index_t *indexes;     /* set up while the table is empty, before
	                               any transaction uses it */
	uint32_t log_id;            /* 1 + its index in the open redo log's
	                               tables, 0 if not logged (log.c); set
	                               while no transaction runs */
	store_seal_t sealed;        /* store_table_seal's level; set while no
	                               transaction runs */
	bool record_guard;          /* a guard word per record (G1) */
};

static inline uint64_t *store_guard_of(const store_table_t *t, const void *rec)
{
	return (uint64_t *)((char *)rec + store_guard_offset(t->record_size));
}

/* The block size of one of t's records: header, bytes, guard word. */
static inline size_t store_block_size(const store_table_t *t)
{
	return sizeof(store_rec_hdr_t) + (t->record_guard
	                                  ? store_guard_offset(t->record_size) + sizeof(uint64_t)
	                                  : t->record_size);
}

/* G1's write: the guard word of rec, if t has guards (inside the
 * transaction that changes rec). */
static inline void store_touch_guard(store_table_t *t, void *rec)
{
	if (t->record_guard)
		tm_write_u64(store_guard_of(t, rec), 0);
}

/* The redo log (log.c): note that the running attempt inserted rec under
 * key (its bytes as of the commit are logged), updated rec in place (the
 * bytes it wrote are logged), or deleted key (rec NULL).
 * t->log_id != 0. */
enum { STORE_LOG_INSERT, STORE_LOG_UPDATE, STORE_LOG_DELETE };
void store_log_note(store_table_t *t, uint64_t key, const void *rec, int kind);

/* A strong 64-bit mix (a bijection): hash buckets, digests. */
static inline uint64_t store_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#pragma GCC visibility pop

#endif /* POTM_STORE_INTERNAL_H */
