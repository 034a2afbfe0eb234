/*
 * kmeans.c — STAMP's K-means clustering benchmark, this project's
 * implementation.
 *
 * Reads points (-i, text or -b binary), normalizes each attribute to zero
 * mean and unit variance (unless -z), then for every k from -n to -m
 * clusters them (normal.c) starting from k points drawn with a generator
 * reseeded with 7, until at most -t of the points change cluster in an
 * iteration.  Prints the centres of the last k and the time of the
 * parallel steps.  -p threads.
 *
 * Self-check: every iteration's transactional accumulators must equal what
 * the points' final assignments imply (normal.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normal.h"
#include "random.h"
#include "args.h"
#include "report.h"
#include "thread.h"
#include "tm.h"

#define KMEANS_SEED 7

typedef struct params {
	const char *fileName;
	bool_t isBinary;
	long maxCluster;
	long minCluster;
	float threshold;
	bool_t useZscore;
	long numThread;
} params_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options] -i <file>\n"
	        "  -i <file>  input: one point per line (id, then attributes)\n"
	        "  -b         the input is binary: int32 count, int32 dimensions, float32 values\n"
	        "  -m <UINT>  maximum number of clusters (13)\n"
	        "  -n <UINT>  minimum number of clusters (4)\n"
	        "  -t <FLT>   convergence threshold: fraction of points moving (0.001)\n"
	        "  -z         do not normalize the attributes (z-score)\n"
	        "  -p <UINT>  number of threads (1)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ NULL, FALSE, 13, 4, 0.001f, TRUE, 1 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "i:bm:n:t:zp:")) != -1) {
		switch (opt) {
		case 'i': p->fileName = optarg; break;
		case 'b': p->isBinary = TRUE; break;
		case 'm': p->maxCluster = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 'n': p->minCluster = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 't': p->threshold = (float)args_double(argv[0], opt, optarg, 0.0, ARGS_NO_MAX, 0); break;
		case 'z': p->useZscore = FALSE; break;
		case 'p': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
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
	if (p->maxCluster < p->minCluster) {
		fprintf(stderr, "%s: -m %ld is smaller than -n %ld\n", argv[0], p->maxCluster,
		        p->minCluster);
		exit(2);
	}
}

static void inputError(const char *fileName, const char *what)
{
	fprintf(stderr, "kmeans: %s: %s\n", fileName, what);
	exit(1);
}

/* Points as rows of one float array. */
typedef struct points {
	float *values;
	float **rows;
	long numObject;
	long numFeature;
} points_t;

static void points_setRows(points_t *pts)
{
	pts->rows = malloc(pts->numObject * sizeof *pts->rows);
	if (pts->rows == NULL)
		inputError("input", "out of memory");
	for (long i = 0; i < pts->numObject; i++)
		pts->rows[i] = pts->values + i * pts->numFeature;
}

static points_t readBinary(const char *fileName)
{
	points_t pts = { 0 };
	FILE *f = fopen(fileName, "rb");
	if (f == NULL)
		inputError(fileName, strerror(errno));
	int32_t header[2];
	if (fread(header, sizeof header[0], 2, f) != 2 || header[0] < 1 || header[1] < 1)
		inputError(fileName, "bad binary header");
	pts.numObject = header[0];
	pts.numFeature = header[1];
	size_t n = (size_t)pts.numObject * pts.numFeature;
	pts.values = malloc(n * sizeof(float));
	if (pts.values == NULL)
		inputError(fileName, "out of memory");
	if (fread(pts.values, sizeof(float), n, f) != n)
		inputError(fileName, "truncated");
	fclose(f);
	points_setRows(&pts);
	return pts;
}

static const char *const SEPARATORS = " \t,\r\n";

static points_t readText(const char *fileName)
{
	points_t pts = { 0 };
	FILE *f = fopen(fileName, "r");
	if (f == NULL)
		inputError(fileName, strerror(errno));
	char *line = NULL;
	size_t lineCap = 0;
	float *row = NULL;         /* the attributes of the current line */
	size_t rowCap = 0;
	size_t capacity = 0;       /* floats allocated in pts.values */
	long lineNumber = 0;
	while (getline(&line, &lineCap, f) != -1) {
		lineNumber++;
		char *save;
		if (strtok_r(line, SEPARATORS, &save) == NULL)
			continue;   /* blank line; otherwise that token was the id */
		long numFeature = 0;
		char *tok;
		while ((tok = strtok_r(NULL, SEPARATORS, &save)) != NULL) {
			if ((size_t)numFeature == rowCap) {
				rowCap = rowCap ? 2 * rowCap : 64;
				row = realloc(row, rowCap * sizeof *row);
				if (row == NULL)
					inputError(fileName, "out of memory");
			}
			row[numFeature++] = (float)atof(tok);
		}
		if (pts.numObject == 0) {
			if (numFeature == 0)
				inputError(fileName, "the first point has no attributes");
			pts.numFeature = numFeature;   /* the first point fixes it */
		} else if (numFeature != pts.numFeature) {
			fprintf(stderr, "kmeans: %s:%ld: %ld attributes, the first point has %ld\n",
			        fileName, lineNumber, numFeature, pts.numFeature);
			exit(1);
		}
		size_t need = (size_t)(pts.numObject + 1) * pts.numFeature;
		if (need > capacity) {
			capacity = 2 * need;
			pts.values = realloc(pts.values, capacity * sizeof(float));
			if (pts.values == NULL)
				inputError(fileName, "out of memory");
		}
		memcpy(pts.values + (size_t)pts.numObject * pts.numFeature, row,
		       pts.numFeature * sizeof(float));
		pts.numObject++;
	}
	free(row);
	free(line);
	fclose(f);
	if (pts.numObject == 0)
		inputError(fileName, "no points");
	points_setRows(&pts);
	return pts;
}

/* Each attribute to zero mean and unit (population) standard deviation;
 * a constant attribute becomes 0 (STAMP would divide by zero). */
static void zscoreTransform(points_t *pts)
{
	for (long j = 0; j < pts->numFeature; j++) {
		double sum = 0.0;
		for (long i = 0; i < pts->numObject; i++)
			sum += pts->rows[i][j];
		double mean = sum / (double)pts->numObject;
		double squares = 0.0;
		for (long i = 0; i < pts->numObject; i++) {
			double d = pts->rows[i][j] - mean;
			squares += d * d;
		}
		double std = sqrt(squares / (double)pts->numObject);
		for (long i = 0; i < pts->numObject; i++)
			pts->rows[i][j] = std > 0.0 ? (float)((pts->rows[i][j] - mean) / std) : 0.0f;
	}
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);

	points_t pts = p.isBinary ? readBinary(p.fileName) : readText(p.fileName);
	if (p.minCluster > pts.numObject) {
		fprintf(stderr, "kmeans: %ld clusters asked for %ld points\n", p.minCluster,
		        pts.numObject);
		exit(2);
	}
	if (p.maxCluster > pts.numObject)
		p.maxCluster = pts.numObject;
	if (p.useZscore)
		zscoreTransform(&pts);

	/* Each short transaction (a point added to its center) follows the
	 * point's distances to every center, computed outside: a Pot thread
	 * keeps no run of turns through that work. */
	TM_DEFAULT_TURN_BATCH(0);
	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	random_t *randomPtr = random_alloc();
	double seconds = 0.0;
	bool_t passed = TRUE;
	kmeans_result_t result = { 0 };
	long lastK = 0;
	long numIteration = 0;
	for (long k = p.minCluster; k <= p.maxCluster; k++) {
		if (lastK > 0)
			normal_result_free(&result, lastK);
		random_seed(randomPtr, KMEANS_SEED);
		result = normal_exec(p.numThread, pts.rows, pts.numObject, pts.numFeature, k,
		                     p.threshold, randomPtr, &seconds);
		lastK = k;
		numIteration += result.numIteration;
		if (!result.checkPassed)
			passed = FALSE;
	}

	for (long c = 0; c < lastK; c++) {
		printf("%ld ", c);
		for (long j = 0; j < pts.numFeature; j++)
			printf("%f ", result.centers[c][j]);
		printf("\n");
	}
	printf("Time: %lg seconds\n", seconds);
	printf("Iterations: %ld\n", numIteration);
	if (!passed)
		report_check_failed("kmeans", "transactional accumulators lost or tore updates");
	unsigned long digest = report_digest_long(REPORT_DIGEST_INIT, numIteration);
	for (long c = 0; c < lastK; c++)
		digest = report_digest(digest, result.centers[c], pts.numFeature * sizeof(float));
	digest = report_digest(digest, result.membership, pts.numObject * sizeof(int));
	report_set_digest(digest);
	report_print("kmeans", argc, argv, p.numThread, seconds, passed);

	normal_result_free(&result, lastK);
	random_free(randomPtr);
	free(pts.rows);
	free(pts.values);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
