/*
 * stmbench7/sb7_check.h — whole-structure invariants and the structure
 * hash.  Both read everything; run them inside one SB7_SOLO transaction
 * while no other thread works.
 */
#ifndef SB7_CHECK_H
#define SB7_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "sb7_struct.h"

typedef struct sb7_census {
	long complex_assemblies, base_assemblies, composite_parts, atomic_parts;
	long component_links;          /* base assembly -> composite part */
	long connections;
} sb7_census_t;

/* Report every violation on err (the first few in detail) and return how
 * many there were; *census receives what the walk counted. */
long sb7_check_invariants(sb7_db_t *db, FILE *err, sb7_census_t *census);

/* A deterministic function of the whole structure: every object's fields,
 * the order of every set and bag, the texts, the free ids in pool order.
 * Never an address. */
uint64_t sb7_structure_hash(sb7_db_t *db);

#endif /* SB7_CHECK_H */
