/*
 * sequencer.h — genome's reconstruction of the gene from its segments.
 *
 * Parallel phases (sequencer_run, separated by barriers):
 *  1. deduplicate the segments into a hash set, CHUNK_STEP1 inserts per
 *     transaction;
 *  2a. give each unique segment a construct entry (claimed in a
 *     transaction) and index it under the hash of each of its proper
 *     prefixes, one transaction per table;
 *  2b. for overlap lengths L = length-1 down to 1, link every chain end
 *     to a chain start whose first L characters equal its last L, one
 *     transaction per attempt;
 *  3. thread 0 concatenates the chains.
 */
#ifndef GENOME_SEQUENCER_H
#define GENOME_SEQUENCER_H 1

#include "gene.h"
#include "hashtable.h"
#include "table.h"
#include "types.h"

#ifndef CHUNK_STEP1
#define CHUNK_STEP1 12
#endif

typedef struct constructEntry {
	bool_t isStart;                  /* head of a chain */
	char *segment;
	ulong_t endHash;                 /* hash of the suffix to match next */
	struct constructEntry *startPtr; /* chain head (valid at head and tail) */
	struct constructEntry *nextPtr;  /* next segment in the chain */
	struct constructEntry *endPtr;   /* chain tail (valid at head and tail) */
	long overlap;                    /* characters shared with nextPtr */
	long length;                     /* characters of the chain (at the head) */
} constructEntry_t;

typedef struct endInfoEntry {
	bool_t isEnd;                    /* tail of a chain */
	long jumpToNext;                 /* distance to the next tail */
} endInfoEntry_t;

typedef struct sequencer {
	char *sequence;                  /* the result (phase 3) */
	segments_t *segmentsPtr;
	hashtable_t *uniqueSegmentsPtr;  /* segment string -> itself */
	endInfoEntry_t *endInfoEntries;
	table_t **startHashToConstructEntryTables;   /* [1..length-1] */
	constructEntry_t *constructEntries;
	table_t *hashToConstructEntryTable;
	long segmentLength;
	long numUniqueSegment;           /* set in phase 2a */
	bool_t sequenceOverflow;         /* the chains were longer than counted */
} sequencer_t;

sequencer_t *sequencer_alloc(long geneLength, long segmentLength, segments_t *segmentsPtr);
/* Parallel region body; argPtr is the sequencer_t. */
void sequencer_run(void *argPtr);
void sequencer_free(sequencer_t *sequencerPtr);

#endif /* GENOME_SEQUENCER_H */
