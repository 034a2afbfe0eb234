/*
 * hash.h — string hash functions of the STAMP interface, over
 * NUL-terminated strings with unsigned long arithmetic.
 */
#ifndef HASH_H
#define HASH_H 1

#include "types.h"

/* Bernstein's djb2: h = 33 * h + c, starting from 5381. */
ulong_t hash_dbj2(const char *str);

/* sdbm: h = c + (h << 6) + (h << 16) - h, starting from 0 (the recurrence
 * genome also evaluates incrementally over prefixes). */
ulong_t hash_sdbm(const char *str);

#endif /* HASH_H */
