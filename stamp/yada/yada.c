/*
 * yada.c — STAMP's Delaunay mesh refinement benchmark (Ruppert's
 * algorithm, Kulkarni et al.'s transactional design), this project's
 * implementation.
 *
 * Reads a Triangle mesh (-i <prefix>: .node, .ele, .poly) and refines it
 * until no triangle has an angle below -a degrees and no boundary segment
 * is encroached.  -t threads take bad elements from a shared work heap and
 * refine each in one transaction (region.c).
 *
 * Self-check (STAMP's own is compiled out): the final mesh is connected,
 * consistently linked, has the final size, no bad element, exactly its
 * boundary segments in the boundary set, and still covers the domain.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "element.h"
#include "heap.h"
#include "mesh.h"
#include "random.h"
#include "region.h"
#include "args.h"
#include "report.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

typedef struct params {
	double angleConstraint;
	const char *inputPrefix;
	long numThread;
} params_t;

typedef struct work {
	mesh_t *meshPtr;
	heap_t *workHeapPtr;
	long totalNumAdded;        /* transactional */
	long numProcess;           /* transactional */
	region_t **regions;        /* per thread, freed at the end */
} work_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options] -i <prefix>\n"
	        "  -a <FLT>     minimum angle constraint in degrees (20)\n"
	        "  -i <prefix>  input: <prefix>.node, <prefix>.ele, <prefix>.poly\n"
	        "  -t <UINT>    number of threads (1)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ 20.0, NULL, 1 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "a:i:t:")) != -1) {
		switch (opt) {
		case 'a':
			p->angleConstraint = args_double(argv[0], opt, optarg, 0.0, 60.0, 1);
			break;
		case 'i':
			p->inputPrefix = optarg;
			break;
		case 't':
			p->numThread = args_long(argv[0], opt, optarg, 1, 4096);
			break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
	if (p->inputPrefix == NULL) {
		fprintf(stderr, "%s: an input prefix is required (-i)\n", argv[0]);
		usage(argv[0]);
	}
}

/* ---- the transactions of a thread's loop ---------------------------------------- */

static element_t *takeElement(TM_ARGDECL heap_t *workHeap)
{
	element_t *volatile e = NULL;
	TM_BEGIN();
	e = TMHEAP_REMOVE(workHeap);
	TM_END();
	return e;
}

static bool_t isGarbage(TM_ARGDECL element_t *e)
{
	volatile bool_t garbage = FALSE;
	TM_BEGIN();
	garbage = TMELEMENT_ISGARBAGE(e);
	TM_END();
	return garbage;
}

static long refine(TM_ARGDECL region_t *r, element_t *e, mesh_t *m)
{
	volatile long numAdded = 0;
	TM_BEGIN();
	region_beginAttempt(r);
	numAdded = TMREGION_REFINE(r, e, m);
	TM_END();
	region_commitAttempt(r);
	return numAdded;
}

static void release(TM_ARGDECL element_t *e)
{
	TM_BEGIN();
	TMELEMENT_SETISREFERENCED(e, FALSE);
	TMELEMENT_ISGARBAGE(e);   /* STAMP frees garbage here: elements live on */
	TM_END();
}

static void transferBad(TM_ARGDECL region_t *r, heap_t *workHeap)
{
	TM_BEGIN();
	TMREGION_TRANSFERBAD(r, workHeap);
	TM_END();
}

static void addTotals(TM_ARGDECL work_t *w, long numAdded, long numProcess)
{
	TM_BEGIN();
	TM_SHARED_WRITE(w->totalNumAdded, (long)TM_SHARED_READ(w->totalNumAdded) + numAdded);
	TM_SHARED_WRITE(w->numProcess, (long)TM_SHARED_READ(w->numProcess) + numProcess);
	TM_END();
}

static void process(void *argPtr)
{
	TM_THREAD_ENTER();
	work_t *w = argPtr;
	region_t *r = w->regions[thread_getId()];
	long totalNumAdded = 0, numProcess = 0;
	for (;;) {
		element_t *e = takeElement(TM_ARG w->workHeapPtr);
		if (e == NULL)
			break;
		if (isGarbage(TM_ARG e))
			continue;   /* removed since it was queued */
		totalNumAdded += refine(TM_ARG r, e, w->meshPtr);
		release(TM_ARG e);
		transferBad(TM_ARG r, w->workHeapPtr);
		numProcess++;
	}
	addTotals(TM_ARG w, totalNumAdded, numProcess);
	TM_THREAD_EXIT();
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);
	element_setAngleConstraint(p.angleConstraint);
	printf("Angle constraint = %lf\n", p.angleConstraint);
	printf("Reading input... ");
	fflush(stdout);
	mesh_t *m = mesh_alloc();
	long initNumElement = mesh_read(m, p.inputPrefix);
	puts("done.");
	printf("Initial number of mesh elements = %li\n", initNumElement);
	printf("Initial number of bad elements  = %li\n", queue_getSize(m->initBadQueuePtr));
	fflush(stdout);

	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	/* The initial bad elements, shuffled (seed 0), go to the work heap. */
	random_t *randomPtr = random_alloc();
	heap_t *workHeap = heap_alloc(1024, element_heapCompare);
	work_t w = { m, workHeap, 0, 0, calloc(p.numThread, sizeof(region_t *)) };
	if (randomPtr == NULL || workHeap == NULL || w.regions == NULL) {
		fprintf(stderr, "yada: out of memory\n");
		exit(1);
	}
	mesh_shuffleBad(m, randomPtr);
	element_t *e;
	while ((e = queue_pop(m->initBadQueuePtr)) != NULL) {
		heap_insert(workHeap, e);
		e->isReferenced = TRUE;
	}
	for (long t = 0; t < p.numThread; t++)
		w.regions[t] = region_alloc();

	printf("Starting triangulation... ");
	fflush(stdout);
	TIMER_T start, stop;
	TIMER_READ(start);
	thread_start(process, &w);
	TIMER_READ(stop);
	puts("done.");
	double seconds = TIMER_DIFF_SECONDS(start, stop);
	long finalSize = initNumElement + w.totalNumAdded;
	printf("Elapsed time                    = %0.3lf\n", seconds);
	printf("Final mesh size                 = %li\n", finalSize);
	printf("Number of elements processed    = %li\n", w.numProcess);
	fflush(stdout);

	bool_t passed = mesh_check(m, finalSize) && heap_getSize(workHeap) == 0;
	if (passed) {
		puts("Final mesh is valid.");
	} else {
		puts("Final mesh is NOT valid.");
		report_check_failed("yada", "the refined mesh is inconsistent (see above)");
	}
	report_set_digest(report_digest_long(report_digest_long(REPORT_DIGEST_INIT, finalSize),
	                                     w.numProcess));
	report_print("yada", argc, argv, p.numThread, seconds, passed);

	for (long t = 0; t < p.numThread; t++)
		region_free(w.regions[t]);
	free(w.regions);
	heap_free(workHeap);
	random_free(randomPtr);
	mesh_free(m);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
