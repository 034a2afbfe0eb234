/*
 * potm/store_private.h — private tables: the record store of <potm/store.h>
 * with plain memory accesses and no transaction.
 *
 * The same tables (ordered or hash, secondary indexes, fixed-size records
 * under 64-bit keys), compiled a second time with plain loads and stores
 * (lib/store/private.c): a record's fields are read and written as plain
 * C (rec->field += x), store_private_read_bytes/write_bytes are memcpy,
 * deletes free at once.  A private table belongs to one thread at a time,
 * which alone touches it; it may change hands only across a
 * happens-before edge (a DORA executor's tables move with a routing
 * change, behind its quiescence).  Nothing is undone by itself: a program
 * that needs atomicity keeps its own undo (DORA's private actions,
 * potm_dora_private_*).
 *
 * The calls mean what their store_* namesakes mean (store.h), but run
 * outside or inside a transaction alike, and never take part in one.  A
 * table made by one family is used with that family's calls only.
 *
 *     store_table_t *t = store_private_table_create(&def);
 *     stock_t *s = store_private_get(t, key);
 *     if (s != NULL)
 *             s->quantity--;
 */
#ifndef POTM_STORE_PRIVATE_H
#define POTM_STORE_PRIVATE_H

#include <potm/store.h>

#ifdef __cplusplus
extern "C" {
#endif

store_table_t *store_private_table_create(const store_table_def_t *def);
void store_private_table_destroy(store_table_t *t);
store_index_t *store_private_index_create(store_table_t *t, const char *name, store_key_fn key);
const char *store_private_table_name(const store_table_t *t);
size_t store_private_record_size(const store_table_t *t);

void *store_private_get(store_table_t *t, uint64_t key);
void *store_private_insert(store_table_t *t, uint64_t key, const void *rec);
int store_private_delete(store_table_t *t, uint64_t key);
uint64_t store_private_key_of(const void *rec);
size_t store_private_scan(store_table_t *t, uint64_t lo, uint64_t hi, int dir,
                          store_visit_fn fn, void *arg);
void *store_private_first(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key);
void *store_private_last(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key);
void *store_private_index_get(store_index_t *ix, uint64_t skey);
size_t store_private_index_scan(store_index_t *ix, uint64_t lo, uint64_t hi, int dir,
                                store_visit_fn fn, void *arg);
void *store_private_index_first(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey);
void *store_private_index_last(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey);
void store_private_read_bytes(void *dst, const void *rec_src, size_t n);
void store_private_write_bytes(void *rec_dst, const void *src, size_t n);
void store_private_read_record(store_table_t *t, const void *rec, void *dst);
void store_private_write_record(store_table_t *t, void *rec, const void *src);
void store_private_read_fields(store_table_t *t, const void *rec, size_t off, size_t n,
                               void *dst);

uint64_t store_private_digest(const store_table_t *t);
int store_private_walk(const store_table_t *t, store_visit_fn fn, void *arg);
size_t store_private_count(const store_table_t *t);
int store_private_check(const store_table_t *t);

#ifdef __cplusplus
}
#endif

#endif /* POTM_STORE_PRIVATE_H */
