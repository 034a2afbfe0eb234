/*
 * hash.c — see hash.h.
 */
#include "hash.h"

ulong_t hash_dbj2(const char *str)
{
	ulong_t h = 5381;
	for (; *str; str++)
		h = (h << 5) + h + (unsigned char)*str;
	return h;
}

ulong_t hash_sdbm(const char *str)
{
	ulong_t h = 0;
	for (; *str; str++)
		h = (unsigned char)*str + (h << 6) + (h << 16) - h;
	return h;
}
