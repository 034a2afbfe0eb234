/*
 * stmbench7/sb7_ops.h — the 45 operations of STMBench7 and their
 * categories.
 *
 * Each operation runs inside one transaction (or under its locks) and
 * returns a non-negative result, or SB7_FAILED when it "fails" (the
 * original's OperationFailedException).  Every operation detects failure
 * before its first store, except T5/ST7 on a corrupted document text,
 * which no correct run produces; the driver cancels the transaction on a
 * failure where the backend can roll back, and treats a failure after a
 * store as fatal where it cannot (seq and the lock builds).
 */
#ifndef SB7_OPS_H
#define SB7_OPS_H

#include "sb7_struct.h"

#define SB7_FAILED (-1L)

typedef enum sb7_category {
	SB7_CAT_TRAVERSAL,
	SB7_CAT_TRAVERSAL_RO,
	SB7_CAT_SHORT_TRAVERSAL,
	SB7_CAT_SHORT_TRAVERSAL_RO,
	SB7_CAT_OPERATION,
	SB7_CAT_OPERATION_RO,
	SB7_CAT_STRUCTURAL_MODIFICATION,
	SB7_CAT_COUNT
} sb7_category_t;

/* Medium-grained locking: one reader-writer lock per assembly level
 * (bit level-1), and one each for the composite parts, the atomic parts
 * (with their indexes), the documents (with the title index) and the
 * manual.  An operation names the locks it reads under and the ones it
 * writes under; structural modifications take all of them for writing. */
#define SB7_LOCK_ASSEMBLY_LEVELS 16
#define SB7_LOCK_BASE_ASSEMBLIES 0x0001u
#define SB7_LOCK_COMPLEX_ASSEMBLIES 0xfffeu
#define SB7_LOCK_ALL_ASSEMBLIES 0xffffu
#define SB7_LOCK_COMPOSITE (1u << 16)
#define SB7_LOCK_ATOMIC (1u << 17)
#define SB7_LOCK_DOCUMENT (1u << 18)
#define SB7_LOCK_MANUAL (1u << 19)
#define SB7_LOCK_COUNT 20
#define SB7_LOCK_EVERYTHING ((1u << SB7_LOCK_COUNT) - 1)

typedef struct sb7_operation {
	const char *name;              /* "T1", "ST6", "OP11", "SM8", ... */
	sb7_category_t category;
	long (*run)(sb7_thread_t *th);
	unsigned locks_read;           /* medium-grained locking */
	unsigned locks_write;
	unsigned weight;               /* tm_set_weight: run time in 2 us units
	                                  on the initial structure */
	bool walks_design;             /* walks the whole assembly tree: its
	                                  run time, and so its weight, scale
	                                  with the component links left */
} sb7_operation_t;

#define SB7_OPERATION_COUNT 45
extern const sb7_operation_t sb7_operations[SB7_OPERATION_COUNT];
/* The same table in the serial clone (sb7_serial.h), entry for entry. */
extern const sb7_operation_t sb7_serial_operations[SB7_OPERATION_COUNT];

/* The operation's weight in the weighted order (tm_set_weight) when th
 * runs it next: the table's, scaled for a design walk by the links th's
 * last walk met (sb7_thread_t.links_seen). */
unsigned sb7_operation_weight(const sb7_thread_t *th, const sb7_operation_t *op);

const char *sb7_category_name(sb7_category_t c);
bool sb7_category_read_only(sb7_category_t c);

#endif /* SB7_OPS_H */
