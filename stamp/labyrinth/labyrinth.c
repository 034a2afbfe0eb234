/*
 * labyrinth.c — STAMP's maze routing benchmark (Lee's algorithm), this
 * project's implementation.
 *
 * Reads a 3-D grid and source/destination pairs (-i); -t threads route
 * the pairs (longest first) so that no two paths share a cell, each route
 * one transaction (router.c).  -x/-y/-z are the step costs, -b the cost of
 * a bend, -p prints the routed grid.
 *
 * Self-check (maze.c): every routed path joins its own pair through
 * adjacent cells, no two paths share a cell or cross an endpoint, and the
 * shared grid marks exactly the walls, endpoints and path cells.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "list.h"
#include "maze.h"
#include "args.h"
#include "report.h"
#include "router.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

typedef struct params {
	long bendCost;
	const char *fileName;
	bool_t doPrint;
	long numThread;
	long xCost, yCost, zCost;
} params_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options] -i <file>\n"
	        "  -b <INT>   bend cost (1)\n"
	        "  -i <file>  input file\n"
	        "  -p         print the routed maze\n"
	        "  -t <UINT>  number of threads (1)\n"
	        "  -x <UINT>  x movement cost (1)\n"
	        "  -y <UINT>  y movement cost (1)\n"
	        "  -z <UINT>  z movement cost (2)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ 1, NULL, FALSE, 1, 1, 1, 2 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "b:i:pt:x:y:z:")) != -1) {
		switch (opt) {
		case 'b': p->bendCost = args_long(argv[0], opt, optarg, 0, 1L << 20); break;
		case 'i': p->fileName = optarg; break;
		case 'p': p->doPrint = TRUE; break;
		case 't': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
		case 'x': p->xCost = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 'y': p->yCost = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 'z': p->zCost = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
	if (p->fileName == NULL) {
		fprintf(stderr, "%s: an input file is required (-i)\n", argv[0]);
		usage(argv[0]);
	}
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);

	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	maze_t *m;
	long numPathToRoute = maze_read(&m, p.fileName);
	router_t r = { p.xCost, p.yCost, p.zCost, p.bendCost };
	list_t *pathVectorList = list_alloc(NULL);
	if (pathVectorList == NULL) {
		fprintf(stderr, "labyrinth: out of memory\n");
		exit(1);
	}
	router_solve_arg_t a = { &r, m, pathVectorList };

	TIMER_T start, stop;
	TIMER_READ(start);
	thread_start(router_solve, &a);
	TIMER_READ(stop);
	double seconds = TIMER_DIFF_SECONDS(start, stop);

	long numPathRouted = 0;
	bool_t passed = maze_checkPaths(m, pathVectorList, &numPathRouted, p.doPrint);
	printf("Paths routed    = %li\n", numPathRouted);
	printf("Elapsed time    = %f seconds\n", seconds);
	if (passed && numPathRouted <= numPathToRoute) {
		puts("Verification passed.");
	} else {
		passed = FALSE;
		report_check_failed("labyrinth", "the routed paths are inconsistent (see above)");
	}
	report_set_digest(maze_digest(m, pathVectorList));
	report_print("labyrinth", argc, argv, p.numThread, seconds, passed);

	list_iter_t it;
	list_iter_reset(&it, pathVectorList);
	while (list_iter_hasNext(&it, pathVectorList)) {
		vector_t *paths = list_iter_next(&it, pathVectorList);
		for (long i = 0; i < vector_getSize(paths); i++) {
			routed_path_t *routed = vector_at(paths, i);
			vector_free(routed->cellsPtr);
			free(routed);
		}
		vector_free(paths);
	}
	list_free(pathVectorList);
	maze_free(m);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
