/*
 * potm/store.h — a transactional in-memory record store on the TM API.
 *
 * A table holds fixed-size records, each under a unique 64-bit primary key,
 * indexed either in key order (STORE_ORDERED: a B+-tree of nodes a few
 * cache lines wide; get, insert, delete, range scans) or by hash
 * (STORE_HASH: chained buckets sized at creation; get, insert, delete, no
 * order).  A table may carry secondary indexes: ordered maps from a key
 * computed from a record to that record, kept by the table on every insert
 * and delete (TPC-C's customers by last name).
 *
 * Every operation on a table's contents runs inside a potm transaction
 * (TM_BEGIN/TM_END or tm_atomic) and is part of it: it commits, aborts and
 * re-executes with it, on every backend.  The store is compiled once per
 * backend (libpotm-store-<b>), so its accesses take the backend's inline
 * common case.
 *
 *     store_table_def_t def = { .name = "stock", .record_size = sizeof(stock_t),
 *                               .kind = STORE_HASH, .capacity = 100000 };
 *     store_table_t *t = store_table_create(&def);      // after tm_init
 *     TM_BEGIN();
 *         stock_t *s = store_get(t, key);
 *         if (s != NULL)
 *             TM_STORE(&s->quantity, TM_LOAD(&s->quantity) - 1);
 *     TM_END();
 *
 * Records.  store_get/store_insert/scans return a pointer to the record's
 * bytes in TM memory, valid until the transaction ends.  Its fields are
 * read and written with the typed accesses of <potm/tm.h> (TM_LOAD,
 * TM_STORE) — an update in place — and byte ranges (strings) with
 * store_read_bytes/store_write_bytes.  A record holds plain data, no
 * pointers; its bytes, padding included, are what store_digest hashes, so
 * a program that wants equal digests zeroes its records before filling
 * them.  Records are 8-byte aligned.  A record's primary key never
 * changes; neither may the fields a secondary key is computed from.
 *
 * Deletes free the record (and any index node left empty) with tm_free:
 * at commit, after a grace period, so a concurrent reader that still holds
 * the pointer reads freed-but-valid memory until its own transaction ends.
 *
 * Misuse is reported and the process aborts with the message: an operation
 * on contents outside a transaction, a scan of a hash table, a record size
 * or capacity out of range at creation (that one returns NULL with
 * tm_last_error() instead, like every creation call).
 */
#ifndef POTM_STORE_H
#define POTM_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <potm/tm.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct store_table store_table_t;
typedef struct store_index store_index_t;

typedef enum store_kind {
	STORE_ORDERED = 0,   /* B+-tree: get, insert, delete, scans */
	STORE_HASH           /* hash buckets: get, insert, delete */
} store_kind_t;

#define STORE_RECORD_MAX 65536u       /* largest record_size, bytes */
#define STORE_CAPACITY_MAX (1u << 30) /* largest hash capacity */

typedef struct store_table_def {
	const char *name;      /* for messages and reports; copied */
	size_t record_size;    /* bytes, 1..STORE_RECORD_MAX */
	store_kind_t kind;
	size_t capacity;       /* STORE_HASH: the records expected (buckets =
	                        * the next power of two); chains grow past it.
	                        * 0 for STORE_ORDERED. */
	int record_guard;      /* 1: each record carries a guard word that
	                        * store_update writes, so that store_read_record
	                        * reads a record with one check (Silo's record
	                        * TID word); every transaction that changes a
	                        * record in place must then call store_update.
	                        * 0 (the default): no such word. */
} store_table_def_t;

/* ---- tables and indexes (outside transactions, by a registered thread) --- */

/* A new, empty table; NULL with tm_last_error() on a bad definition or out
 * of memory.  Call after tm_init. */
store_table_t *store_table_create(const store_table_def_t *def);

/* Free the table, its records and its indexes.  No transaction may be
 * using it. */
void store_table_destroy(store_table_t *t);

/* A secondary key: computed from a record and its primary key.  It must be
 * unique over the table (compose it with the primary key's bits) and must
 * depend only on fields that never change after the insert. */
typedef uint64_t (*store_key_fn)(const void *rec, uint64_t pkey);

/* Add a secondary index (ordered) to an empty table; NULL with
 * tm_last_error() if the table has records or out of memory.  The index
 * belongs to the table and goes with it. */
store_index_t *store_index_create(store_table_t *t, const char *name, store_key_fn key);

const char *store_table_name(const store_table_t *t);
size_t store_record_size(const store_table_t *t);

/* ---- contents (inside a transaction) ------------------------------------- */

/* The record under key, or NULL. */
void *store_get(store_table_t *t, uint64_t key);

/* Insert a copy of rec (record_size bytes) under key and into every
 * secondary index; returns the new record, or NULL (and nothing changes)
 * if key is present. */
void *store_insert(store_table_t *t, uint64_t key, const void *rec);

/* Remove the record under key from the table and its indexes and free it;
 * 1 if it was there, 0 if not. */
int store_delete(store_table_t *t, uint64_t key);

/* Declare that this transaction changes rec (a record of t) in place,
 * with TM_STORE or store_write_bytes: under a redo log (<potm/durable.h>)
 * its bytes as of the commit are logged, and on a table created with
 * record_guard its guard word is written (store_read_record's check
 * relies on it: there the call is required).  Call it once per record
 * and transaction, before or after the writes; on an unguarded table
 * without a log it does nothing.  Inserts and deletes need no such
 * call. */
void store_update(store_table_t *t, void *rec);

/* Copy a whole record (record_size bytes) between rec, a record of t,
 * and private memory.  store_write_record is store_write_bytes of the
 * whole record and store_update.  On a table created with record_guard,
 * store_read_record takes one check around a plain copy where the
 * backend validates reads (tl2, silo: one read-set entry for the record
 * instead of one per stripe), and falls back to store_read_bytes when the
 * transaction wrote into the record or the guard moved.  On an unguarded
 * table, and on the other backends, it is store_read_bytes; on a table
 * sealed with STORE_SEAL_ALL, a plain copy. */
void store_read_record(store_table_t *t, const void *rec, void *dst);
void store_write_record(store_table_t *t, void *rec, const void *src);

/* The n bytes at offset off of rec, a record of t, as store_read_record
 * reads the whole record: a group of columns under one check on a
 * guarded table.  off + n beyond record_size is misuse. */
void store_read_fields(store_table_t *t, const void *rec, size_t off, size_t n, void *dst);

/* The primary key of a record returned by this API. */
uint64_t store_key_of(const void *rec);

/* Visit a record during a scan: return 0 to go on, anything else to stop.
 * key is the key of the index scanned (primary or secondary).  The visitor
 * may read and update the record, but must not insert into or delete from
 * the table being scanned (collect keys, act after the scan). */
typedef int (*store_visit_fn)(uint64_t key, void *rec, void *arg);

#define STORE_ASC  0
#define STORE_DESC 1

/* Visit the records with lo <= key <= hi in ascending (STORE_ASC) or
 * descending (STORE_DESC) key order; returns how many were visited (the
 * one that stopped the scan included).  Ordered tables only. */
size_t store_scan(store_table_t *t, uint64_t lo, uint64_t hi, int dir,
                  store_visit_fn fn, void *arg);

/* The record with the smallest (store_first) or largest (store_last) key in
 * [lo, hi], or NULL; its key in *key if key is not NULL.  Ordered tables
 * only. */
void *store_first(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key);
void *store_last(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key);

/* The same through a secondary index (keys are secondary keys). */
void *store_index_get(store_index_t *ix, uint64_t skey);
size_t store_index_scan(store_index_t *ix, uint64_t lo, uint64_t hi, int dir,
                        store_visit_fn fn, void *arg);
void *store_index_first(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey);
void *store_index_last(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey);

/* Copy n bytes between a record (TM memory) and private memory, inside a
 * transaction: word accesses where aligned, byte accesses at the ends. */
void store_read_bytes(void *dst, const void *rec_src, size_t n);
void store_write_bytes(void *rec_dst, const void *src, size_t n);

/* Copy n bytes of a record that no transaction ever changes: a field
 * frozen since the record's insert (TPC-C's names, taxes, S_DIST, S_DATA)
 * or any byte of a record of a table sealed with STORE_SEAL_ALL.  A plain
 * copy, with nothing to log or validate: while the transaction that found
 * rec runs, rec stays valid (a deleted record's memory is freed after a
 * grace period) and no commit can change those bytes, so every snapshot
 * the transaction may see holds the same ones.  A frozen scalar field is read the same way, with
 * plain C (rec->field).  Inside the transaction that obtained rec. */
static inline void store_read_frozen(void *dst, const void *rec_src, size_t n)
{
	memcpy(dst, rec_src, n);
}

/* ---- whole tables (quiescent: no transaction changes the table) --------- */

/* An order-independent hash of the table's contents: every (key, record
 * bytes) pair, and their number.  Equal contents, equal digest, whatever
 * the order of inserts and deletes that produced them. */
uint64_t store_digest(const store_table_t *t);

/* Visit every record, in no particular order (key order for an ordered
 * table), with plain reads: the bytes are the committed contents, since
 * nothing runs.  The visitor returns 0 to go on; the walk returns the
 * first other value (a snapshot's writer stops on a full buffer). */
int store_walk(const store_table_t *t, store_visit_fn fn, void *arg);

/* The number of records. */
size_t store_count(const store_table_t *t);

/* Sealing: a promise that transactions no longer change a table's keys
 * (STORE_SEAL_KEYS: no insert, no delete; records are still updated in
 * place, through the TM) or nothing at all (STORE_SEAL_ALL: a catalog,
 * TPC-C's ITEM).  Either way the table's indexes no longer change, so its
 * gets, scans and edge lookups, and those of its secondary indexes, read
 * them with plain loads: nothing there to log, validate or conflict with.
 * Under STORE_SEAL_ALL a record's bytes are frozen too (store_read_frozen,
 * plain C).  A change the level forbids is misuse: store_insert and
 * store_delete under either level, store_update under STORE_SEAL_ALL
 * (reported, the process aborts); a write into a sealed record's bytes
 * cannot be seen and is undefined.  Quiescent, like the calls above: seal
 * before the threads that use the table start (or behind any other
 * happens-before edge).  STORE_UNSEALED lifts the promise (a replica
 * replacing its whole state from a snapshot, say). */
typedef enum store_seal {
	STORE_UNSEALED = 0,   /* the default: inserts, deletes and updates */
	STORE_SEAL_KEYS,      /* updates in place only */
	STORE_SEAL_ALL        /* no change at all */
} store_seal_t;

void store_table_seal(store_table_t *t, store_seal_t level);
store_seal_t store_table_sealed(const store_table_t *t);

/* Check the table's structure (B+-tree: keys in order within and across
 * nodes, separators bound their subtrees, every leaf at one depth, no empty
 * node but an empty root; hash: every record in its bucket; every secondary
 * index holds exactly one entry per record, under its key).  0 if sound,
 * else -1 with tm_last_error() saying what is wrong. */
int store_check(const store_table_t *t);

#ifdef __cplusplus
}
#endif

#endif /* POTM_STORE_H */
