/*
 * table.h — genome's hash table of entries: numBucket sorted lists
 * (ordered by entry address, no duplicates), bucket = hash % numBucket.
 * The caller hashes; the table never compares keys.
 */
#ifndef GENOME_TABLE_H
#define GENOME_TABLE_H 1

#include "list.h"
#include "tm.h"
#include "types.h"

typedef struct table {
	list_t **buckets;
	long numBucket;
} table_t;

table_t *table_alloc(long numBucket);
void table_free(table_t *tablePtr);   /* not the entries */
bool_t TMtable_insert(TM_ARGDECL table_t *tablePtr, ulong_t hash, void *dataPtr);
/* Number of entries in all buckets (sequential). */
long table_getSize(table_t *tablePtr);

#define TMTABLE_INSERT(t, h, d)   TMtable_insert(TM_ARG (t), (h), (d))

#endif /* GENOME_TABLE_H */
