/*
 * types.h — the scalar types of the STAMP interface.
 *
 * bool_t is a long (not _Bool) because STAMP stores flags in shared
 * variables that transactions access as whole words.
 */
#ifndef TYPES_H
#define TYPES_H 1

typedef long bool_t;
typedef unsigned long ulong_t;

#ifndef FALSE
#define FALSE 0L
#endif
#ifndef TRUE
#define TRUE 1L
#endif

#endif /* TYPES_H */
