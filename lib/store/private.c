/*
 * lib/store/private.c — the private store (<potm/store_private.h>): the
 * record store's sources compiled a second time, in this one unit, with
 * POTM_PRIVATE_ACCESS, which store_internal.h turns into plain loads and
 * stores, malloc/free and the store_private_* names.  The tables, indexes,
 * invariants (T1, B1-B4) and checks are those of the transactional store;
 * only the access to memory differs.
 */
#define POTM_PRIVATE_ACCESS 1

#include <potm/store_private.h>

#include "table.c"
#include "btree.c"
#include "hash.c"
