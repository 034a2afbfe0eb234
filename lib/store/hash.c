/*
 * lib/store/hash.c — the hash index: a fixed array of bucket heads, each
 * a chain threaded through the records' headers.
 *
 * The array has the next power of two of the capacity asked for, is
 * allocated at creation and never resized: a resize would write every
 * bucket, conflicting with every transaction on the table.  Chains grow
 * past the capacity instead.
 *
 * A record's key is frozen (written before the record is published), so a
 * lookup reads it directly; only the heads and the links are transactional.
 * A new record goes at the head of its chain: one transactional write.  An
 * unlinked record keeps its link, so a reader still holding it (until its
 * transaction ends, tm_free's grace period) walks on into the live chain.
 *
 * Invariant H1: every record is in the chain of hash_bucket_of(its key),
 * once; no key is in two records.
 */
#include "store_internal.h"

#include <stdlib.h>

/* The low bits of a bijective mix of the key: sequential keys (TPC-C's)
 * spread over the buckets instead of filling neighbouring heads. */
uint64_t hash_bucket_of(const hash_index_t *h, uint64_t key)
{
	return store_mix64(key) & h->mask;
}

int hash_init(hash_index_t *h, size_t capacity, const char *table)
{
	uint64_t n = 1;
	while (n < capacity)
		n <<= 1;
	/* calloc: a large array's pages are zero until touched. */
	h->bucket = calloc(n, sizeof *h->bucket);
	if (h->bucket == NULL)
		return potm_error("store_table_create(\"%s\"): out of memory for %llu buckets",
		                  table, (unsigned long long)n);
	h->mask = n - 1;
	return 0;
}

/* No transaction uses the table (store_table_destroy's precondition), so
 * the records go straight back to the allocator. */
void hash_destroy(hash_index_t *h)
{
	if (h->bucket == NULL)
		return;
	for (uint64_t b = 0; b <= h->mask; b++) {
		store_rec_hdr_t *r = h->bucket[b];
		while (r != NULL) {
			store_rec_hdr_t *next = r->next;
			free(r);
			r = next;
		}
	}
	free(h->bucket);
	h->bucket = NULL;
}

store_rec_hdr_t *hash_get(hash_index_t *h, uint64_t key)
{
	store_rec_hdr_t *r = TM_LOAD(&h->bucket[hash_bucket_of(h, key)]);
	while (r != NULL && r->key != key)
		r = TM_LOAD(&r->next);
	return r;
}

bool hash_insert(hash_index_t *h, store_rec_hdr_t *r)
{
	store_rec_hdr_t **head = &h->bucket[hash_bucket_of(h, r->key)];
	store_rec_hdr_t *first = TM_LOAD(head);
	for (store_rec_hdr_t *o = first; o != NULL; o = TM_LOAD(&o->next))
		if (o->key == r->key)
			return false;
	r->next = first;   /* r is not yet published */
	TM_STORE(head, r);
	return true;
}

store_rec_hdr_t *hash_delete(hash_index_t *h, uint64_t key)
{
	store_rec_hdr_t **link = &h->bucket[hash_bucket_of(h, key)];
	store_rec_hdr_t *r = TM_LOAD(link);
	while (r != NULL) {
		if (r->key == key) {
			TM_STORE(link, TM_LOAD(&r->next));
			return r;
		}
		link = &r->next;
		r = TM_LOAD(link);
	}
	return NULL;
}

/* ---- quiescent walks (plain reads) ------------------------------------------- */

int hash_walk(const hash_index_t *h, int (*fn)(store_rec_hdr_t *r, void *arg), void *arg)
{
	for (uint64_t b = 0; b <= h->mask; b++)
		for (store_rec_hdr_t *r = h->bucket[b]; r != NULL; r = r->next) {
			int rc = fn(r, arg);
			if (rc != 0)
				return rc;
		}
	return 0;
}

static int hash_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* H1 for one chain: each record in this bucket, the chain acyclic (a
 * second pointer at half speed would meet the first in a cycle), no key
 * twice (the chain's keys sorted into keys, grown as needed). */
static int hash_check_chain(const hash_index_t *h, uint64_t b, uint64_t **keys, size_t *cap,
                            const char *table)
{
	size_t n = 0;
	const store_rec_hdr_t *slow = h->bucket[b];
	for (const store_rec_hdr_t *r = h->bucket[b]; r != NULL; r = r->next) {
		if (hash_bucket_of(h, r->key) != b)
			return potm_error("store_check(\"%s\"): key %#llx in bucket %llu, belongs "
			                  "in %llu (H1)", table, (unsigned long long)r->key,
			                  (unsigned long long)b,
			                  (unsigned long long)hash_bucket_of(h, r->key));
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			uint64_t *k = realloc(*keys, *cap * sizeof *k);
			if (k == NULL)
				return potm_error("store_check(\"%s\"): out of memory", table);
			*keys = k;
		}
		(*keys)[n++] = r->key;
		if (n % 2 == 0) {
			slow = slow->next;
			if (slow == r->next && slow != NULL)
				return potm_error("store_check(\"%s\"): the chain of bucket %llu is a "
				                  "cycle (H1)", table, (unsigned long long)b);
		}
	}
	if (n > 1) {
		qsort(*keys, n, sizeof **keys, hash_key_cmp);
		for (size_t i = 1; i < n; i++)
			if ((*keys)[i] == (*keys)[i - 1])
				return potm_error("store_check(\"%s\"): key %#llx is in two records (H1)",
				                  table, (unsigned long long)(*keys)[i]);
	}
	return 0;
}

int hash_check(const hash_index_t *h, const char *table)
{
	uint64_t *keys = NULL;
	size_t cap = 0;
	int rc = 0;
	for (uint64_t b = 0; b <= h->mask && rc == 0; b++)
		rc = hash_check_chain(h, b, &keys, &cap, table);
	free(keys);
	return rc;
}
