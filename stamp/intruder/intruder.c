/*
 * intruder.c — STAMP's network intrusion detection benchmark, this
 * project's implementation.
 *
 * A stream of -n flows (at most -l bytes each, -a percent of them attack
 * signatures, seed -s) arrives as shuffled packets.  -t threads each loop:
 * take a packet (transaction), feed it to the shared reassembler
 * (transaction), take one reassembled flow if any (transaction) and run
 * the signature detector on it (private).
 *
 * Self-check: every reassembled flow equals the flow as generated, each
 * flow is reassembled once, the detected flows are exactly the attacks,
 * no decoder error occurred, and no fragment or flow is left over.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "detector.h"
#include "args.h"
#include "report.h"
#include "stream.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"
#include "vector.h"

typedef struct params {
	long percentAttack;
	long maxDataLength;
	long numFlow;
	long randomSeed;
	long numThread;
} params_t;

typedef struct thread_result {
	vector_t *attackFlowIds;   /* flows the detector flagged */
	long numDecoded;
	long numMismatch;          /* reassembled data differing from the flow */
	long numDecoderError;
} thread_result_t;

typedef struct run_args {
	stream_t *streamPtr;
	decoder_t *decoderPtr;
	thread_result_t *results;  /* by thread id */
} run_args_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options]\n"
	        "  -a <UINT>  percent of flows that are attacks (10)\n"
	        "  -l <UINT>  max data length of a flow (16)\n"
	        "  -n <UINT>  number of flows (1048576)\n"
	        "  -s <UINT>  random seed (1)\n"
	        "  -t <UINT>  number of threads (1)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ 10, 16, 1L << 20, 1, 1 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "a:l:n:s:t:")) != -1) {
		switch (opt) {
		case 'a': p->percentAttack = args_long(argv[0], opt, optarg, 0, 100); break;
		case 'l': p->maxDataLength = args_long(argv[0], opt, optarg, 1, 1L << 24); break;
		case 'n': p->numFlow = args_long(argv[0], opt, optarg, 1, 1L << 32); break;
		case 's': p->randomSeed = args_long(argv[0], opt, optarg, 0, 0xffffffffL); break;
		case 't': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
}

/* ---- the three transactions of a thread's loop --------------------------------- */

static packet_t *getPacket(TM_ARGDECL stream_t *s)
{
	packet_t *volatile packet = NULL;
	TM_BEGIN();
	packet = TMSTREAM_GETPACKET(s);
	TM_END();
	return packet;
}

static intruder_error_t processPacket(TM_ARGDECL decoder_t *d, packet_t *packet)
{
	volatile intruder_error_t error = ERROR_NONE;
	TM_BEGIN();
	error = TMDECODER_PROCESS(d, packet);
	TM_END();
	return error;
}

static char *getComplete(TM_ARGDECL decoder_t *d, long *flowIdPtr)
{
	char *volatile data = NULL;
	TM_BEGIN();
	data = TMDECODER_GETCOMPLETE(d, flowIdPtr);
	TM_END();
	return data;
}

static void processPackets(void *argPtr)
{
	TM_THREAD_ENTER();
	run_args_t *a = argPtr;
	thread_result_t *r = &a->results[thread_getId()];
	for (;;) {
		packet_t *packet = getPacket(TM_ARG a->streamPtr);
		if (packet == NULL)
			break;
		if (processPacket(TM_ARG a->decoderPtr, packet) != ERROR_NONE)
			r->numDecoderError++;
		long flowId = -1;
		char *data = getComplete(TM_ARG a->decoderPtr, &flowId);
		if (data == NULL)
			continue;
		r->numDecoded++;
		/* The generated flows are immutable: comparing needs no TM. */
		if (flowId < 1 || flowId > a->streamPtr->numFlow ||
		    strcmp(data, a->streamPtr->flowStrings[flowId]) != 0)
			r->numMismatch++;
		if (detector_process(data) == ERROR_SIGNATURE)
			vector_pushBack(r->attackFlowIds, (void *)flowId);
		P_FREE(data);
	}
	TM_THREAD_EXIT();
}

/* ---- verification ------------------------------------------------------------------ */

static bool_t check(const params_t *p, stream_t *s, decoder_t *d, thread_result_t *results,
                    long numAttack, long *numFoundPtr)
{
	bool_t ok = TRUE;
	long numFound = 0, numDecoded = 0, numMismatch = 0, numError = 0;
	char *seen = calloc(p->numFlow + 1, 1);
	for (long t = 0; t < p->numThread; t++) {
		thread_result_t *r = &results[t];
		numDecoded += r->numDecoded;
		numMismatch += r->numMismatch;
		numError += r->numDecoderError;
		for (long i = 0; i < vector_getSize(r->attackFlowIds); i++) {
			long flowId = (long)vector_at(r->attackFlowIds, i);
			numFound++;
			if (flowId < 1 || flowId > p->numFlow || seen[flowId]++) {
				report_check_failed("intruder", "flow %ld reported twice or invalid", flowId);
				ok = FALSE;
			} else if (!stream_isAttack(s, flowId)) {
				report_check_failed("intruder", "flow %ld reported but is no attack", flowId);
				ok = FALSE;
			}
		}
	}
	free(seen);
	*numFoundPtr = numFound;
	if (numFound != numAttack) {
		report_check_failed("intruder", "%ld attacks found, %ld generated", numFound, numAttack);
		ok = FALSE;
	}
	if (numDecoded != p->numFlow) {
		report_check_failed("intruder", "%ld flows reassembled, %ld generated", numDecoded,
		                    p->numFlow);
		ok = FALSE;
	}
	if (numMismatch != 0) {
		report_check_failed("intruder", "%ld flows reassembled wrongly", numMismatch);
		ok = FALSE;
	}
	if (numError != 0) {
		report_check_failed("intruder", "%ld decoder errors", numError);
		ok = FALSE;
	}
	if (d->fragmentedMapPtr->root != NULL || !queue_isEmpty(d->decodedQueuePtr) ||
	    !queue_isEmpty(s->packetQueuePtr)) {
		report_check_failed("intruder", "fragments, flows or packets left over");
		ok = FALSE;
	}
	if (rbtree_verify(d->fragmentedMapPtr, "fragmented") < 0)
		ok = FALSE;
	return ok;
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);
	printf("Percent attack  = %li\n", p.percentAttack);
	printf("Max data length = %li\n", p.maxDataLength);
	printf("Num flow        = %li\n", p.numFlow);
	printf("Random seed     = %li\n", p.randomSeed);
	fflush(stdout);

	/* Short transactions between packet decoding and signature checks
	 * outside them: a Pot thread keeps no run of turns through that
	 * work. */
	TM_DEFAULT_TURN_BATCH(0);
	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	stream_t *s = stream_alloc(p.percentAttack);
	long numAttack = stream_generate(s, p.numFlow, p.randomSeed, p.maxDataLength);
	printf("Num attack      = %li\n", numAttack);
	fflush(stdout);

	decoder_t *d = decoder_alloc();
	thread_result_t *results = calloc(p.numThread, sizeof *results);
	if (d == NULL || results == NULL) {
		fprintf(stderr, "intruder: out of memory\n");
		exit(1);
	}
	for (long t = 0; t < p.numThread; t++)
		if ((results[t].attackFlowIds = vector_alloc(64)) == NULL) {
			fprintf(stderr, "intruder: out of memory\n");
			exit(1);
		}
	run_args_t a = { s, d, results };

	TIMER_T start, stop;
	TIMER_READ(start);
	thread_start(processPackets, &a);
	TIMER_READ(stop);
	double seconds = TIMER_DIFF_SECONDS(start, stop);
	printf("Elapsed time    = %f seconds\n", seconds);

	long numFound = 0;
	bool_t passed = check(&p, s, d, results, numAttack, &numFound);
	printf("Num found       = %li\n", numFound);
	/* Which thread reassembled and flagged which flows, in what order. */
	unsigned long digest = REPORT_DIGEST_INIT;
	for (long t = 0; t < p.numThread; t++) {
		digest = report_digest_long(digest, results[t].numDecoded);
		for (long i = 0; i < vector_getSize(results[t].attackFlowIds); i++)
			digest = report_digest_long(digest, (long)vector_at(results[t].attackFlowIds, i));
	}
	report_set_digest(digest);
	report_print("intruder", argc, argv, p.numThread, seconds, passed);

	for (long t = 0; t < p.numThread; t++)
		vector_free(results[t].attackFlowIds);
	free(results);
	decoder_free(d);
	stream_free(s);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
