/*
 * genome.c — STAMP's gene sequencing benchmark, this project's
 * implementation.
 *
 * A random gene of -g characters is cut into at least -n overlapping
 * segments of -s characters (fixed seed 0); -t threads reassemble it
 * (sequencer.c).
 *
 * Self-check: the hash set holds exactly the distinct segments; every
 * unique segment got its own construct entry and sits once in every
 * prefix table; and the reassembled sequence equals the gene.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gene.h"
#include "random.h"
#include "args.h"
#include "report.h"
#include "sequencer.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

typedef struct params {
	long geneLength;
	long minNumSegment;
	long segmentLength;
	long numThread;
} params_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options]\n"
	        "  -g <UINT>  length of the gene (16384)\n"
	        "  -n <UINT>  minimum number of segments (4194304)\n"
	        "  -s <UINT>  length of each segment, >= 2 (64)\n"
	        "  -t <UINT>  number of threads (1)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ 16384, 4194304, 64, 1 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "g:n:s:t:")) != -1) {
		switch (opt) {
		case 'g': p->geneLength = args_long(argv[0], opt, optarg, 2, 1L << 32); break;
		case 'n': p->minNumSegment = args_long(argv[0], opt, optarg, 0, 1L << 32); break;
		case 's': p->segmentLength = args_long(argv[0], opt, optarg, 2, 1L << 20); break;
		case 't': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
	if (p->segmentLength > p->geneLength) {
		fprintf(stderr, "%s: segments (-s %ld) longer than the gene (-g %ld)\n", argv[0],
		        p->segmentLength, p->geneLength);
		exit(2);
	}
}

static int compareStrings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int comparePointers(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	return (x > y) - (x < y);
}

/* The number of distinct segment strings: equal strings start at equal
 * positions unless the gene repeats itself, so it is the number of
 * distinct strings among one segment per start position. */
static long countDistinctSegments(gene_t *gene, segments_t *segs)
{
	long numStart = gene->length - segs->length + 1;
	char **strings = malloc(numStart * sizeof *strings);
	long n = 0;
	for (long i = 0; i < numStart; i++) {
		if (bitmap_isSet(segs->startBitmapPtr, i)) {
			strings[n] = malloc(segs->length + 1);
			memcpy(strings[n], gene->contents + i, segs->length);
			strings[n][segs->length] = '\0';
			n++;
		}
	}
	qsort(strings, n, sizeof *strings, compareStrings);
	long distinct = 0;
	for (long i = 0; i < n; i++) {
		if (i == 0 || strcmp(strings[i - 1], strings[i]) != 0)
			distinct++;
	}
	for (long i = 0; i < n; i++)
		free(strings[i]);
	free(strings);
	return distinct;
}

static bool_t check(gene_t *gene, segments_t *segs, sequencer_t *s)
{
	bool_t ok = TRUE;
	long numUnique = s->numUniqueSegment;
	long distinct = countDistinctSegments(gene, segs);
	if (numUnique != distinct) {
		report_check_failed("genome", "%ld unique segments kept, %ld distinct exist",
		                    numUnique, distinct);
		ok = FALSE;
	}
	for (long i = 0; i < vector_getSize(segs->contentsPtr); i++) {
		if (!hashtable_containsKey(s->uniqueSegmentsPtr, vector_at(segs->contentsPtr, i))) {
			report_check_failed("genome", "segment %ld missing from the set", i);
			ok = FALSE;
			break;
		}
	}
	/* Each unique segment in exactly one entry. */
	char **claimed = malloc((numUnique + 1) * sizeof *claimed);
	for (long i = 0; i < numUnique; i++)
		claimed[i] = s->constructEntries[i].segment;
	qsort(claimed, numUnique, sizeof *claimed, comparePointers);
	for (long i = 0; i < numUnique; i++) {
		if (claimed[i] == NULL || (i > 0 && claimed[i] == claimed[i - 1])) {
			report_check_failed("genome", "construct entries claimed wrongly");
			ok = FALSE;
			break;
		}
	}
	free(claimed);
	for (long j = 1; j < s->segmentLength; j++) {
		long n = table_getSize(s->startHashToConstructEntryTables[j]);
		if (n != numUnique) {
			report_check_failed("genome", "prefix table %ld holds %ld entries, not %ld",
			                    j, n, numUnique);
			ok = FALSE;
			break;
		}
	}
	if (table_getSize(s->hashToConstructEntryTable) != numUnique) {
		report_check_failed("genome", "the full-hash table lost entries");
		ok = FALSE;
	}
	if (s->sequenceOverflow) {
		report_check_failed("genome", "chain lengths disagree with the chains");
		ok = FALSE;
	}
	if ((long)strlen(s->sequence) < gene->length) {
		report_check_failed("genome", "the sequence (%zu) is shorter than the gene (%ld)",
		                    strlen(s->sequence), gene->length);
		ok = FALSE;
	}
	return ok;
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);

	/* Short transactions between hashing and list walks outside them: a
	 * Pot thread keeps no run of turns through that work. */
	TM_DEFAULT_TURN_BATCH(0);
	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	random_t *randomPtr = random_alloc();
	printf("Creating gene and segments... ");
	fflush(stdout);
	gene_t *gene = gene_create(p.geneLength, randomPtr);
	segments_t *segs = segments_create(gene, p.segmentLength, p.minNumSegment, randomPtr);
	sequencer_t *s = sequencer_alloc(p.geneLength, p.segmentLength, segs);
	puts("done.");
	printf("Gene length     = %li\n", gene->length);
	printf("Segment length  = %li\n", segs->length);
	printf("Number segments = %li\n", vector_getSize(segs->contentsPtr));
	fflush(stdout);

	printf("Sequencing gene... ");
	fflush(stdout);
	TIMER_T start, stop;
	TIMER_READ(start);
	thread_start(sequencer_run, s);
	TIMER_READ(stop);
	puts("done.");
	double seconds = TIMER_DIFF_SECONDS(start, stop);
	printf("Time = %lf\n", seconds);

	bool_t matches = strcmp(gene->contents, s->sequence) == 0;
	printf("Sequence matches gene: %s\n", matches ? "yes" : "no");
	if (!matches && gene->length <= 256)
		printf("gene     = %s\nsequence = %s\n", gene->contents, s->sequence);
	bool_t passed = check(gene, segs, s);
	if (!matches) {
		report_check_failed("genome", "the reassembled sequence differs from the gene");
		passed = FALSE;
	}
	/* Which entry each segment got and how the chains link them depend
	 * on the order of the transactions. */
	unsigned long digest = REPORT_DIGEST_INIT;
	for (long i = 0; i < s->numUniqueSegment; i++) {
		constructEntry_t *e = &s->constructEntries[i];
		digest = report_digest_long(digest, (e->segment - segs->storage) / (segs->length + 1));
		digest = report_digest_long(digest, e->nextPtr ? e->nextPtr - s->constructEntries : -1);
		digest = report_digest_long(digest, e->isStart);
		digest = report_digest_long(digest, e->overlap);
		digest = report_digest_long(digest, e->length);
	}
	report_set_digest(digest);
	report_print("genome", argc, argv, p.numThread, seconds, passed);

	sequencer_free(s);
	segments_free(segs);
	gene_free(gene);
	random_free(randomPtr);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
