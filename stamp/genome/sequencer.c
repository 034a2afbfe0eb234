/*
 * sequencer.c — see sequencer.h.
 *
 * Shared and transactional: the hash set's bucket lists, the prefix
 * tables' bucket lists, each entry's segment (claiming), isStart,
 * startPtr, endPtr, overlap and length.  Thread-private but written inside
 * transactions (so rolled back on abort): an entry's nextPtr and its
 * endInfo isEnd, owned by the thread whose share holds the entry.
 * Immutable: the segment strings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "sequencer.h"
#include "thread.h"
#include "tm.h"
#include "utility.h"

static ulong_t hashSegment(const void *keyPtr)
{
	return hash_sdbm(keyPtr);
}

static long compareSegmentPairs(const void *aPtr, const void *bPtr)
{
	const pair_t *a = aPtr;
	const pair_t *b = bPtr;
	return strcmp(a->firstPtr, b->firstPtr);
}

static void outOfMemory(void)
{
	fprintf(stderr, "genome: out of memory\n");
	exit(1);
}

sequencer_t *sequencer_alloc(long geneLength, long segmentLength, segments_t *segmentsPtr)
{
	sequencer_t *s = calloc(1, sizeof *s);
	if (s == NULL)
		outOfMemory();
	long maxNumUnique = geneLength - segmentLength + 1;
	s->segmentsPtr = segmentsPtr;
	s->segmentLength = segmentLength;
	s->uniqueSegmentsPtr = hashtable_alloc(geneLength, hashSegment, compareSegmentPairs, -1, -1);
	s->endInfoEntries = malloc(maxNumUnique * sizeof *s->endInfoEntries);
	s->constructEntries = malloc(maxNumUnique * sizeof *s->constructEntries);
	s->startHashToConstructEntryTables = calloc(segmentLength, sizeof(table_t *));
	s->hashToConstructEntryTable = table_alloc(geneLength);
	if (s->uniqueSegmentsPtr == NULL || s->endInfoEntries == NULL ||
	    s->constructEntries == NULL || s->startHashToConstructEntryTables == NULL ||
	    s->hashToConstructEntryTable == NULL)
		outOfMemory();
	for (long i = 0; i < maxNumUnique; i++) {
		s->endInfoEntries[i] = (endInfoEntry_t){ TRUE, 1 };
		constructEntry_t *e = &s->constructEntries[i];
		*e = (constructEntry_t){ TRUE, NULL, 0, e, NULL, e, 0, segmentLength };
	}
	for (long j = 1; j < segmentLength; j++)
		if ((s->startHashToConstructEntryTables[j] = table_alloc(geneLength)) == NULL)
			outOfMemory();
	return s;
}

void sequencer_free(sequencer_t *s)
{
	hashtable_free(s->uniqueSegmentsPtr);
	for (long j = 1; j < s->segmentLength; j++)
		table_free(s->startHashToConstructEntryTables[j]);
	free(s->startHashToConstructEntryTables);
	table_free(s->hashToConstructEntryTable);
	free(s->endInfoEntries);
	free(s->constructEntries);
	free(s->sequence);
	free(s);
}

/* Thread id's share of [0, total): chunks of round(total / numThread),
 * the last thread taking the rest. */
static void partition(long total, long id, long numThread, long *startPtr, long *stopPtr)
{
	long chunk = (long)((double)total / (double)numThread + 0.5);
	long start = id * chunk;
	long stop = id == numThread - 1 ? total : start + chunk;
	*startPtr = MIN(start, total);
	*stopPtr = MIN(stop, total);
}

/* ---- the transactions ---------------------------------------------------------- */

static void insertSegments(TM_ARGDECL hashtable_t *set, vector_t *segments, long start,
                           long stop)
{
	TM_BEGIN();
	for (long i = start; i < stop; i++) {
		char *segment = vector_at(segments, i);
		TMHASHTABLE_INSERT(set, segment, segment);
	}
	TM_END();
}

/* The first entry at or after cursor (circularly) without a segment gets
 * this one; returns its index. */
static long claimEntry(TM_ARGDECL constructEntry_t *entries, long numUnique, long cursor,
                       char *segment)
{
	volatile long claimed = -1;
	TM_BEGIN();
	long e = cursor;
	while (TM_SHARED_READ_P(entries[e].segment) != NULL)
		e = (e + 1) % numUnique;
	TM_SHARED_WRITE_P(entries[e].segment, segment);
	claimed = e;
	TM_END();
	return claimed;
}

static void insertIntoTable(TM_ARGDECL table_t *table, ulong_t hash, constructEntry_t *entry)
{
	TM_BEGIN();
	TMTABLE_INSERT(table, hash, entry);
	TM_END();
}

/* Link chain end E to chain start S if S's first L characters are E's
 * last L (and S does not head E's own chain); TRUE if linked. */
static bool_t linkIfOverlap(TM_ARGDECL constructEntry_t *E, endInfoEntry_t *endInfo,
                            constructEntry_t *S, long L, long segmentLength)
{
	volatile bool_t linked = FALSE;
	TM_BEGIN();
	bool_t match = FALSE;
	if (TM_SHARED_READ(S->isStart) &&
	    (constructEntry_t *)TM_SHARED_READ_P(E->startPtr) != S &&
	    strncmp(S->segment, E->segment + segmentLength - L, L) == 0) {
		TM_SHARED_WRITE(S->isStart, FALSE);
		TM_LOCAL_WRITE(endInfo->isEnd, FALSE);
		constructEntry_t *tail = TM_SHARED_READ_P(S->endPtr);   /* S's chain */
		constructEntry_t *head = TM_SHARED_READ_P(E->startPtr); /* E's chain */
		TM_SHARED_WRITE_P(tail->startPtr, head);
		TM_LOCAL_WRITE_P(E->nextPtr, S);
		TM_SHARED_WRITE_P(head->endPtr, tail);
		TM_SHARED_WRITE(E->overlap, L);
		TM_SHARED_WRITE(head->length, (long)TM_SHARED_READ(head->length) +
		                              (long)TM_SHARED_READ(S->length) - L);
		match = TRUE;
	}
	linked = match;
	TM_END();
	return linked;
}

/* ---- the phases ------------------------------------------------------------------ */

static void deduplicate(TM_ARGDECL sequencer_t *s, long id, long numThread)
{
	vector_t *segments = s->segmentsPtr->contentsPtr;
	long start, stop;
	partition(vector_getSize(segments), id, numThread, &start, &stop);
	for (long i = start; i < stop; i += CHUNK_STEP1)
		insertSegments(TM_ARG s->uniqueSegmentsPtr, segments, i, MIN(stop, i + CHUNK_STEP1));
}

static void indexSegments(TM_ARGDECL sequencer_t *s, long id, long numThread)
{
	hashtable_t *set = s->uniqueSegmentsPtr;
	long numUnique = hashtable_getSize(set);   /* constant from now on */
	if (id == 0)
		s->numUniqueSegment = numUnique;
	long segmentLength = s->segmentLength;
	long cursor = id * (long)((double)numUnique / (double)numThread + 0.5);
	cursor = numUnique > 0 ? cursor % numUnique : 0;
	long start, stop;
	partition(set->numBucket, id, numThread, &start, &stop);
	for (long b = start; b < stop; b++) {
		list_t *bucket = set->buckets[b];
		list_iter_t it;
		list_iter_reset(&it, bucket);
		while (list_iter_hasNext(&it, bucket)) {
			pair_t *p = list_iter_next(&it, bucket);
			char *segment = p->firstPtr;
			long e = claimEntry(TM_ARG s->constructEntries, numUnique, cursor, segment);
			cursor = (e + 1) % numUnique;
			constructEntry_t *entry = &s->constructEntries[e];
			entry->endHash = hash_sdbm(segment + 1);   /* the entry is ours */
			/* sdbm of each proper prefix, incrementally; then of the
			 * whole segment. */
			ulong_t startHash = 0;
			for (long j = 1; j < segmentLength; j++) {
				startHash = (unsigned char)segment[j - 1] + (startHash << 6) +
				            (startHash << 16) - startHash;
				insertIntoTable(TM_ARG s->startHashToConstructEntryTables[j],
				                startHash, entry);
			}
			startHash = (unsigned char)segment[segmentLength - 1] + (startHash << 6) +
			            (startHash << 16) - startHash;
			insertIntoTable(TM_ARG s->hashToConstructEntryTable, startHash, entry);
		}
	}
}

static void matchEnds(TM_ARGDECL sequencer_t *s, long L, long id, long numThread)
{
	long numUnique = s->numUniqueSegment;
	long segmentLength = s->segmentLength;
	table_t *table = s->startHashToConstructEntryTables[L];
	long start, stop;
	partition(numUnique, id, numThread, &start, &stop);
	for (long i = start; i < stop; i += s->endInfoEntries[i].jumpToNext) {
		if (!s->endInfoEntries[i].isEnd)
			continue;
		constructEntry_t *E = &s->constructEntries[i];
		/* The prefix table is constant in this phase: plain iteration. */
		list_t *bucket = table->buckets[E->endHash % (ulong_t)table->numBucket];
		list_iter_t it;
		list_iter_reset(&it, bucket);
		while (list_iter_hasNext(&it, bucket)) {
			constructEntry_t *S = list_iter_next(&it, bucket);
			if (linkIfOverlap(TM_ARG E, &s->endInfoEntries[i], S, L, segmentLength))
				break;
		}
	}
}

/* Thread 0, between two overlap lengths: the remaining ends will match on
 * their suffix of length L - 1, and the skip links jump over non-ends. */
static void prepareNextLength(sequencer_t *s, long L)
{
	long numUnique = s->numUniqueSegment;
	long next = numUnique;
	for (long i = numUnique - 1; i >= 0; i--) {
		endInfoEntry_t *info = &s->endInfoEntries[i];
		info->jumpToNext = next - i;
		if (info->isEnd) {
			constructEntry_t *E = &s->constructEntries[i];
			E->endHash = hash_sdbm(E->segment + s->segmentLength - (L - 1));
			next = i;
		}
	}
}

/* Thread 0: concatenate the chains, in entry order. */
static void buildSequence(sequencer_t *s)
{
	long numUnique = s->numUniqueSegment;
	long total = 0;
	for (long i = 0; i < numUnique; i++)
		if (s->constructEntries[i].isStart)
			total += s->constructEntries[i].length;
	char *sequence = malloc(total + 1);
	if (sequence == NULL)
		outOfMemory();
	long pos = 0;
	for (long i = 0; i < numUnique; i++) {
		if (!s->constructEntries[i].isStart)
			continue;
		for (constructEntry_t *x = &s->constructEntries[i]; x != NULL; x = x->nextPtr) {
			long n = s->segmentLength - x->overlap;
			if (n < 0 || pos + n > total) {
				s->sequenceOverflow = TRUE;   /* inconsistent chains */
				break;
			}
			memcpy(sequence + pos, x->segment, n);
			pos += n;
		}
	}
	sequence[pos] = '\0';
	s->sequence = sequence;
}

void sequencer_run(void *argPtr)
{
	TM_THREAD_ENTER();
	sequencer_t *s = argPtr;
	long id = thread_getId();
	long numThread = thread_getNumThread();

	deduplicate(TM_ARG s, id, numThread);
	thread_barrier_wait();

	indexSegments(TM_ARG s, id, numThread);
	thread_barrier_wait();

	for (long L = s->segmentLength - 1; L > 0; L--) {
		matchEnds(TM_ARG s, L, id, numThread);
		thread_barrier_wait();
		if (id == 0 && L > 1)
			prepareNextLength(s, L);
		thread_barrier_wait();
	}

	if (id == 0)
		buildSequence(s);
	TM_THREAD_EXIT();
}
